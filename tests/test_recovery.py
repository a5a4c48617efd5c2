"""kill -9 at a random point, then a plain rerun: a training run (train) and a study kernel (run_study / grok-nb).
Both must end with byte-identical final weights to an uninterrupted run, no debris (temporary checkpoint folders,
atomic-write temp files), no duplicate metrics; the killed kernel is recorded with the cell it was executing."""
import json, os, random, signal, subprocess, sys, time
from pathlib import Path
import nbformat, pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
       "OMP_NUM_THREADS": "1"}
STEPS = 150
TRAIN = f'''
import sys, torch
from grok_nb.models import build_model
from grok_nb.train import train
class Src:
    fingerprint, batch_size = "recovery-v1", 8
    def batch(self, step):
        g = torch.Generator().manual_seed(1000 + step)
        start = torch.randint(0, 64, (8, 1), generator=g)
        return {{"input_ids": (start + torch.arange(16)) % 64}}
def ev(model, step):                                 # draws random numbers: a resume must restore the RNG after it
    return {{"probe": float(torch.rand(1))}}
model = build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16)
train(model, Src(), {STEPS}, run_dir=RUN_DIR, lr=3e-3, checkpoint_every=6, eval_fn=ev, log_every=1, progress=False)
'''

def records(run: Path) -> list[dict]:
    recs = [json.loads(l) for l in (run / "metrics.jsonl").read_text().splitlines() if l.strip()]
    return [{k: v for k, v in r.items() if k != "tokens_per_s"} for r in recs]

def final_weights(run: Path) -> bytes:
    return (run / "checkpoints" / f"step_{STEPS:06d}" / "model.safetensors").read_bytes()

def debris(run: Path) -> list[str]:
    return sorted(str(p.relative_to(run)) for p in run.rglob(".*") if p.name != ".lock")

def wait_lines(f: Path, n: int, proc, timeout: float = 180):
    "Wait until `f` has `n` lines (the training is under way), while `proc` runs."
    t0 = time.time()
    while time.time() - t0 < timeout and proc.poll() is None:
        if f.exists() and len(f.read_bytes().splitlines()) >= n: return
        time.sleep(0.01)
    raise AssertionError(f"{f} never reached {n} lines (process exit {proc.poll()})")

def check_recovered(run: Path, clean: Path):
    assert final_weights(run) == final_weights(clean)                     # byte-identical final weights
    assert debris(run) == [], debris(run)                                 # no temp folders or files
    keys = [(r["step"], r.get("event")) for r in records(run)]
    assert len(keys) == len(set(keys)), "duplicate metrics"
    assert records(run) == records(clean)                                 # the same records, eval probes included


def test_training_killed_at_a_random_point(tmp_path):
    code = lambda d: TRAIN.replace("RUN_DIR", repr(str(d)))
    subprocess.run([sys.executable, "-c", code(tmp_path / "clean")], env=ENV, check=True)
    run = tmp_path / "killed"
    for attempt in range(2):                                              # killed twice, at random points
        n0 = len((run / "metrics.jsonl").read_bytes().splitlines()) if attempt else 0
        k = random.randint(5, STEPS - 40)
        proc = subprocess.Popen([sys.executable, "-c", code(run)], env=ENV)
        wait_lines(run / "metrics.jsonl", (k if not attempt else min(n0 + 5, 2 * STEPS)), proc)
        time.sleep(random.uniform(0, 0.2 if not attempt else 0.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        print(f"attempt {attempt}: killed after ~{len(records(run))} records")
    (run / "checkpoints" / ".step_000007.debris").mkdir()                 # what a kill during a save leaves
    (run / ".metrics.jsonl.x1y2.tmp").write_text("half")
    subprocess.run([sys.executable, "-c", code(run)], env=ENV, check=True)
    check_recovered(run, tmp_path / "clean")


STUDY = ("import os\nfrom pathlib import Path\nPath(run_dir, 'kernel.pid').write_text(str(os.getpid()))",
         TRAIN.replace("RUN_DIR", "run_dir"),
         "from grok_nb.core import save_json\nsave_json({'done': True}, run_dir + '/results.json')")

@pytest.fixture
def train_study(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("x = 0\nrun_dir = None")
    p.metadata["tags"] = ["parameters"]
    nb.cells = [p] + [nbformat.v4.new_code_cell(s) for s in STUDY]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    (tmp_path / "studies").mkdir()
    nbformat.write(nb, tmp_path / "studies" / "trainer.ipynb")
    monkeypatch.setenv("GROK_NB_STUDIES_DIR", str(tmp_path / "studies"))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")     # the in-process run's kernel threads as the CLI reruns do (ENV)
    return tmp_path


def test_kernel_killed_then_plain_rerun(train_study):
    from grok_nb.sweep import run_study
    tmp = train_study
    env = {**ENV, "GROK_NB_STUDIES_DIR": str(tmp / "studies")}
    clean = run_study("trainer", {}, runs_dir=tmp / "clean")
    assert clean["status"] == "finished", clean
    cli = [sys.executable, "-c", "from grok_nb.jobs import main; raise SystemExit(main())", "run", "trainer",
           "--runs-dir", str(tmp / "runs")]
    proc = subprocess.Popen(cli, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run = tmp / "runs" / "trainer" / Path(clean["path"]).name
    wait_lines(run / "metrics.jsonl", random.randint(5, STEPS - 30), proc)
    os.kill(int((run / "kernel.pid").read_text()), signal.SIGKILL)        # the kernel, not the runner
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, (out, err)
    st = json.loads((run / "status.json").read_text())
    assert st["status"] == "interrupted" and st["error"].startswith("DeadKernelError"), st
    assert "train(model, Src()" in st["cell"], st                            # the cell it was executing
    again = subprocess.run(cli, env=env, capture_output=True, text=True)    # a plain rerun: no --retry-failed
    assert again.returncode == 0, again.stdout + again.stderr
    st = json.loads((run / "status.json").read_text())
    assert st["status"] == "finished" and st["attempts"][-1]["status"] == "interrupted", st
    check_recovered(run, Path(clean["path"]))


def test_dead_runner_is_stale_and_rerun(train_study):
    "The runner itself killed: status.json says running with a dead pid; the next run_study reruns it."
    from grok_nb.sweep import run_study, load_runs
    tmp = train_study
    env = {**ENV, "GROK_NB_STUDIES_DIR": str(tmp / "studies")}
    code = f"from grok_nb.sweep import run_study; run_study('trainer', {{}}, runs_dir={str(tmp / 'runs')!r})"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, start_new_session=True)
    time.sleep(0.5)
    runs = tmp / "runs" / "trainer"
    t0 = time.time()
    while not list(runs.glob("*/metrics.jsonl")) and time.time() - t0 < 120: time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)                                   # runner and kernel
    proc.wait()
    time.sleep(0.5)
    assert list(load_runs("trainer", tmp / "runs").status) == ["interrupted"]
    rec = run_study("trainer", {}, runs_dir=tmp / "runs")
    assert rec["status"] == "finished", rec
    assert json.loads((Path(rec["path"]) / "status.json").read_text())["attempts"][-1]["status"] == "interrupted"


def test_crafted_pickle_is_refused_on_resume(tmp_path):
    "A run folder received from someone else: its last state.pt runs a command when unpickled. Resuming refuses it."
    code = TRAIN.replace("RUN_DIR", repr(str(tmp_path / "run"))).replace(f"train(model, Src(), {STEPS}",
                                                                         "train(model, Src(), 12")
    subprocess.run([sys.executable, "-c", code], env=ENV, check=True)
    ck = tmp_path / "run" / "checkpoints" / "step_000012"
    marker = tmp_path / "PWNED"
    evil = (f"import torch, os\nclass E:\n    def __reduce__(self): return (os.system, ('touch {marker}',))\n"
            f"torch.save({{'step': 12, 'x': E()}}, {str(ck / 'state.pt')!r})\n"
            f"from grok_nb.core import sha256_file, load_json, save_json\n"
            f"m = load_json({str(ck / 'manifest.json')!r}); m['files']['state.pt'] = sha256_file({str(ck / 'state.pt')!r})\n"
            f"save_json(m, {str(ck / 'manifest.json')!r})")
    subprocess.run([sys.executable, "-c", evil], env=ENV, check=True)
    code24 = code.replace("train(model, Src(), 12", "train(model, Src(), 24")
    r = subprocess.run([sys.executable, "-c", code24], env=ENV, capture_output=True, text=True)
    assert r.returncode != 0 and "refused to unpickle: not a weights-only training state" in r.stderr, r.stderr[-2000:]
    assert not marker.exists()                                            # the payload never ran


class _Killed(Exception): pass


def test_every_family_resumes_byte_identical(tmp_path):
    """Every model family of the zoo, trained 24 steps with a checkpoint every 5, is stopped dead at step 13 (after
    the step-10 checkpoint, with metrics written past it), then rerun plainly: the rerun resumes from step 10 and ends
    with the same bytes and records as an uninterrupted run. GPT-NeoX (Pythia) could not: transformers 5 saves its
    head as `embed_out`, and the resume read the file under the module's names (`lm_head`)."""
    import torch
    from grok_nb.models import build_model
    from grok_nb.mixers import build_mixer_model
    from grok_nb.train import train

    class Src:
        fingerprint, batch_size = "family-v1", 4
        def __init__(self, die=None): self.die = die
        def batch(self, step):
            if step == self.die: raise _Killed(step)
            g = torch.Generator().manual_seed(step)
            return {"input_ids": torch.randint(0, 64, (4, 16), generator=g)}

    def run(name, d, die=None):
        model = (build_model(name, vocab_size=64, seed=0, seq_len=16) if "-" in name else
                 build_mixer_model(name, vocab_size=64, d_model=32, n_layers=2, seq_len=16, seed=0))
        train(model, Src(die), 24, run_dir=d, lr=3e-3, checkpoint_every=5, log_every=1, progress=False)

    for name in ("gpt-tiny", "llama-tiny", "pythia-micro", "mlp_mixer", "mamba2", "gated_deltanet", "rwkv"):
        clean, killed = tmp_path / f"clean-{name}", tmp_path / f"killed-{name}"
        run(name, clean)
        with pytest.raises(_Killed): run(name, killed, die=13)
        assert (killed / "checkpoints" / "step_000010").is_dir(), name
        run(name, killed)
        final = lambda r: (r / "checkpoints" / "step_000024" / "model.safetensors").read_bytes()   # noqa: E731
        assert final(killed) == final(clean), name
        assert records(killed) == records(clean), name
