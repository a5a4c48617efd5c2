"""Sweep reliability: submitit's local and debug executors with the options given, SLURM options reaching sbatch (a
stand-in sbatch), `--executor slurm` refused without SLURM, `--no-wait` and `grok-nb status`, an interrupted sweep
resumed without duplicates, two sweeps on one folder never running the same run twice, and the run ids of parameter
sets that existed before the execution parameters."""
import os, sys, time, json, signal, subprocess
from pathlib import Path
import nbformat, pytest

TOY = '''import time, os
from grok_nb.core import save_json
with open(os.path.join(os.path.dirname(os.path.dirname(run_dir)), "executions.log"), "a") as f: f.write(f"{x}\\n")
time.sleep(sleep)
save_json({"y": x * x}, run_dir + "/results.json")'''

@pytest.fixture
def toy(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("x = 2\nsleep = 0.0\nrun_dir = None"); p.metadata["tags"] = ["parameters"]
    nb.cells = [p, nbformat.v4.new_code_cell(TOY)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    (tmp_path / "studies").mkdir(); nbformat.write(nb, tmp_path / "studies" / "toy.ipynb")
    monkeypatch.setenv("GROK_NB_STUDIES_DIR", str(tmp_path / "studies"))
    return tmp_path

def executions(root): return sorted(int(l) for l in (root / "runs" / "executions.log").read_text().split())

def test_submitit_local_executor(toy):
    "submitit's LocalExecutor (subprocesses): the runs finish, and its parameters are the ones given."
    from grok_nb.sweep import sweep, grid, load_runs
    df = sweep("toy", grid(x=[1, 2]), executor="submitit", cluster="local", runs_dir=toy / "runs", progress=False,
               slurm={"timeout_min": 7, "cpus_per_task": 1, "partition": "gpu"})
    assert list(df.status) == ["finished", "finished"]
    assert df.attrs["executor"] == {"cluster": "local", "parameters": {"timeout_min": 7, "cpus_per_task": 1}}
    assert sorted(load_runs("toy", toy / "runs")["r_y"]) == [1, 4]

def test_interrupted_sweep_resumes_without_duplicates(toy):
    code = (f"from grok_nb.sweep import sweep, grid; sweep('toy', grid(x=[1, 2, 3, 4], sleep=1.5), runs_dir={str(toy / 'runs')!r}, progress=False)")
    env = {**os.environ}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:                       # wait until the first run has finished, then kill the sweep
        if len(list((toy / "runs" / "toy").glob("*/results.json"))) >= 1: break
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL); proc.wait()
    done_before = len(list((toy / "runs" / "toy").glob("*/results.json")))
    assert 1 <= done_before < 4
    from grok_nb.sweep import sweep, grid, load_runs
    sweep("toy", grid(x=[1, 2, 3, 4], sleep=1.5), runs_dir=toy / "runs", progress=False)
    df = load_runs("toy", toy / "runs")
    assert sorted(df.r_y) == [1, 4, 9, 16]
    ex = executions(toy)
    finished_first = ex[:done_before]
    # each finished run executed once; only the run killed mid-way may have started twice
    assert all(ex.count(x) == 1 for x in finished_first), ex
    assert len(ex) <= 5, ex

def test_two_sweeps_on_one_folder_share_the_work(toy):
    code = (f"from grok_nb.sweep import sweep, grid; sweep('toy', grid(x=[1, 2, 3, 4], sleep=1.0), runs_dir={str(toy / 'runs')!r}, progress=False)")
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(2)]
    for p in procs: assert p.wait(timeout=300) == 0
    from grok_nb.sweep import sweep, grid
    df = sweep("toy", grid(x=[1, 2, 3, 4], sleep=1.0), runs_dir=toy / "runs", progress=False)
    assert df.skipped.all()
    assert executions(toy) == [1, 2, 3, 4]            # no run executed twice


def test_submitit_debug_executor_gets_the_options(toy):
    "submitit's DebugExecutor (in this process): the parameters it was given are the user's, and the runs finish."
    from grok_nb.sweep import sweep, grid
    df = sweep("toy", grid(x=[3, 4]), executor="submitit", cluster="debug", runs_dir=toy / "runs", progress=False,
               slurm={"timeout_min": 5, "mem": "2G", "cpus_per_task": 2})
    assert list(df.status) == ["finished", "finished"] and df.job_id.notna().all(), df
    assert df.attrs["executor"] == {"cluster": "debug", "parameters": {"timeout_min": 5, "mem_gb": 2.0,
                                                                        "cpus_per_task": 2}}


def test_run_ids_of_existing_parameter_sets_are_unchanged():
    """Adding grad_accum / compile (and nproc to study C, hard_forms to study A) leaves the id of every earlier
    parameter set as it was (these ids were computed on main at 7b0808f, before the parameters existed). A non-neutral
    hard_forms makes a new run; how a run executes (device, nproc, grad_accum, compile) never does."""
    from grok_nb.sweep import resolve_params, run_path
    from grok_nb.jobs import PROFILES
    pinned = [(PROFILES["c-long"][0]()[0], "b522a99ecc89"), (PROFILES["a"][0]()[0], "05bc6d543b26"),
              (PROFILES["b"][0]()[0], "f9672dbb338d"), (("sparse_attention", {}), "c22735f05b64"),
              (("emergence", {}), "3dea5fe76420"), (("grokking", {}), "a003f45bceb2"), (("compartments", {}), "a21e82b51206")]
    for (study, p), rid in pinned:
        full = resolve_params(study, p)
        assert {"grad_accum", "compile", "nproc"} <= set(full), sorted(full)
        assert run_path(study, full).name == rid, (study, p)
        assert run_path(study, {**full, "grad_accum": 1, "compile": False}).name == rid
        for ex in ({"compile": True}, {"nproc": 4, "grad_accum": 2}, {"device": "cuda", "nproc": 2}):
            assert run_path(study, {**full, **ex}).name == rid, (study, ex)
    g = resolve_params("grokking", {})
    assert run_path("grokking", {**g, "hard_forms": True}).name != run_path("grokking", g).name


FAKE_SBATCH = '''#!/bin/sh
n=$(ls "$FAKE_SLURM_RECORD" | wc -l)
cp "$1" "$FAKE_SLURM_RECORD/job$n.sh"
echo "Submitted batch job $((4242 + n))"
'''

def test_slurm_options_reach_sbatch_and_no_wait_returns_job_ids(toy, monkeypatch, capsys):
    """A stand-in SLURM (sbatch / srun scripts on PATH; sbatch keeps the script it is given): `--executor auto` says it
    chose slurm, the options on the command line are the #SBATCH lines of the job array, `--no-wait` prints the job
    ids and returns, and `grok-nb status` lists the runs with them."""
    from grok_nb.jobs import main
    bindir, rec = toy / "bin", toy / "sbatch_scripts"
    bindir.mkdir(), rec.mkdir()
    (bindir / "sbatch").write_text(FAKE_SBATCH)
    (bindir / "srun").write_text("#!/bin/sh\nexit 0\n")
    for f in bindir.iterdir(): f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_RECORD", str(rec))
    rc = main(["sweep", "toy", "-p", "x=1,2,3", "--executor", "auto", "--partition", "gpu", "--account", "lab",
               "--qos", "high", "--cpus-per-task", "8", "--mem", "64G", "--time", "90", "--gpus", "2",
               "--array-parallelism", "2", "--no-wait", "--runs-dir", str(toy / "runs")])
    out, err = capsys.readouterr()
    assert rc == 0, (out, err)
    assert f"executor auto -> slurm (sbatch at {bindir / 'sbatch'})" in err, err
    assert [l.split()[1:] for l in out.splitlines() if "4242_" in l] == [["submitted", f"4242_{k}"] for k in range(3)], out
    script = (rec / "job0.sh").read_text()
    for line in ("--partition=gpu", "--account=lab", "--qos=high", "--cpus-per-task=8", "--mem=64GB", "--time=90",
                 "--gpus-per-node=2", "--array=0-2%2"):
        assert f"#SBATCH {line}\n" in script, (line, script)
    assert main(["status", "toy", "--runs-dir", str(toy / "runs")]) == 0
    out = capsys.readouterr().out
    assert sorted(l.split()[1:3] for l in out.strip().splitlines()[1:-1]) == [["queued", f"4242_{k}"] for k in range(3)]
    assert out.strip().splitlines()[-1] == f"toy: 3 runs in {toy / 'runs' / 'toy'}: queued 3", out


def test_slurm_refused_without_slurm_and_auto_says_local(toy, monkeypatch, capsys):
    "No sbatch on PATH: `--executor slurm` is refused in one line (nothing submitted, nothing run); `auto` runs here."
    from grok_nb.jobs import main
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    assert main(["sweep", "toy", "-p", "x=1", "--executor", "slurm", "--partition", "gpu",
                 "--runs-dir", str(toy / "runs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grok-nb: error: sweep: executor 'slurm': SLURM is not available") and err.count("\n") == 1
    assert not (toy / "runs" / "toy").exists()
    assert main(["sweep", "toy", "-p", "x=5", "--executor", "auto", "--partition", "gpu",
                 "--runs-dir", str(toy / "runs")]) == 0
    out, err = capsys.readouterr()
    assert "executor auto -> local (no SLURM here: 1 local worker(s); the slurm options are not used)" in err, err
    assert "finished" in out, out


def test_failing_sbatch_is_one_line_and_leaves_nothing(toy, monkeypatch, capsys):
    "sbatch refusing the job (a bad account, say): one line with sbatch's own words, exit 2, no submitit files left."
    from grok_nb.jobs import main
    bindir = toy / "bin"
    bindir.mkdir()
    (bindir / "sbatch").write_text("#!/bin/sh\necho 'sbatch: error: Batch job submission failed: Invalid account' >&2\n"
                                   "exit 1\n")
    (bindir / "srun").write_text("#!/bin/sh\nexit 0\n")
    for f in bindir.iterdir(): f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    rc = main(["sweep", "toy", "-p", "x=1,2", "--executor", "slurm", "--partition", "gpu", "--account", "nope",
               "--no-wait", "--runs-dir", str(toy / "runs")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err[-1].startswith("grok-nb: error: sweep toy: submitting 2 run(s) failed, nothing was submitted"), err
    assert "Invalid account" in err[-1], err
    left = [p for p in (toy / "runs" / "_submitit").rglob("*") if p.is_file()] if (toy / "runs" / "_submitit").exists() else []
    assert left == [], left


def _fake_slurm(toy, monkeypatch, states=None):
    """A stand-in SLURM on PATH: sbatch keeps each script and answers job ids 4242, 4243, ...; srun does nothing;
    sacct prints `states` ({job id: state}); returns (the folder of kept scripts, a function setting the states)."""
    from grok_nb.slurm import _fake_sacct
    rec = toy / "sbatch_scripts"
    rec.mkdir(exist_ok=True)
    bindir = _fake_sacct(toy, states or {})
    (bindir / "sbatch").write_text(FAKE_SBATCH)
    (bindir / "srun").write_text("#!/bin/sh\nexit 0\n")
    for f in ("sbatch", "srun"): (bindir / f).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_RECORD", str(rec))
    return rec, lambda st: _fake_sacct(toy, st)


def test_profile_on_slurm_states_no_double_submit_and_resubmit(toy, monkeypatch, capsys):
    """`grok-nb profile a-rank2 --executor slurm -p device='cuda' --no-wait` (a real profile, 4 runs of study A) on a
    stand-in SLURM: one job a run, named gnb-grokking-<run id> with the CPU runs' ids (device is execution); the same command while sacct says PENDING submits nothing; `grok-nb
    status` shows each job's SLURM state, and runs killed for time, memory, preemption or by a failure are shown so
    (not 'queued' forever) and make it exit 1; run again, the profile resubmits exactly those runs."""
    monkeypatch.delenv("GROK_NB_STUDIES_DIR")
    from grok_nb.jobs import main, profile_run_ids
    rec, states = _fake_slurm(toy, monkeypatch)
    runs = toy / "runs"
    ids = profile_run_ids("a-rank2")
    assert main(["profile", "a-rank2", "-p", "seed=3", "--runs-dir", str(runs)]) == 2      # not an execution parameter
    assert "['seed'] would change which runs these are" in capsys.readouterr().err
    rc = main(["profile", "a-rank2", "--executor", "slurm", "--partition", "gpu", "--time", "120", "--gpus", "1",
               "-p", "device='cuda'", "--no-wait", "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    assert rc == 0, (out, err)
    scripts = sorted(rec.iterdir(), key=lambda p: int(p.stem[3:]))
    assert len(scripts) == 4 and "4 of 4 runs are with SLURM (4242, 4243, 4244, 4245)" in out, out
    names = [next(l.split("=", 1)[1] for l in s.read_text().splitlines() if l.startswith("#SBATCH --job-name="))
             for s in scripts]
    assert names == [f"gnb-grokking-{i}" for i in ids], names
    assert all("#SBATCH --partition=gpu\n" in s.read_text() and "#SBATCH --time=120\n" in s.read_text()
               and "#SBATCH --gpus-per-node=1\n" in s.read_text() for s in scripts)
    states({str(4242 + k): "PENDING" for k in range(4)})
    assert main(["profile", "a-rank2", "--executor", "slurm", "--no-wait", "--runs-dir", str(runs)]) == 0
    assert len(list(rec.iterdir())) == 4, "a run SLURM still holds was submitted again"
    assert "4 of 4 runs are with SLURM" in capsys.readouterr().out
    lost = ["TIMEOUT", "OUT_OF_MEMORY", "PREEMPTED", "FAILED"]
    states({str(4242 + k): s for k, s in enumerate(lost)})
    assert main(["status", "grokking", "--runs-dir", str(runs)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    got = {l.split()[0]: l.split()[1:5] for l in out[1:-1]}
    assert got == {i: ["not", "run", str(4242 + k), lost[k]] for k, i in enumerate(ids)}, out
    assert out[-1].endswith("not run 4"), out
    assert main(["profile", "a-rank2", "--executor", "slurm", "--no-wait", "--runs-dir", str(runs)]) == 0
    assert len(list(rec.iterdir())) == 8 and "4 of 4 runs are with SLURM (4246, 4247, 4248, 4249)" in \
        capsys.readouterr().out


REQUEUE = '''import os, time, json
from grok_nb.core import save_json
ck = os.path.join(run_dir, "ckpt.json")
start = json.load(open(ck))["step"] if os.path.exists(ck) else 0
with open(os.path.join(run_dir, "starts.log"), "a") as f: f.write(f"{start}\\n")
for step in range(start, 120):
    time.sleep(1.0 if start == 0 else 0.0)
    json.dump({"step": step + 1}, open(ck, "w"))
save_json({"y": x, "resumed_from": start}, os.path.join(run_dir, "results.json"))'''


def test_timeout_requeues_and_resumes(toy, monkeypatch):
    """A submitit job (local executor, the same checkpoint/requeue path SLURM takes) reaching its time limit: the USR2
    before the limit stops the run's kernel, records the run interrupted, and requeues it; the requeued job resumes
    the run from its checkpoint and finishes it. 120 one-second steps in a 120 s limit signalled at 30 s cannot finish
    without the requeue."""
    import submitit
    from grok_nb.slurm import StudyJob
    from grok_nb.core import load_json
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("x = 1\nrun_dir = None"); p.metadata["tags"] = ["parameters"]
    nb.cells = [p, nbformat.v4.new_code_cell(REQUEUE)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    nbformat.write(nb, toy / "studies" / "slow.ipynb")
    ex = submitit.LocalExecutor(folder=str(toy / "subm"))
    ex.update_parameters(timeout_min=2, signal_delay_s=90)
    job = ex.submit(StudyJob(), "slow", {"x": 3}, str(toy / "runs"))
    try: rec = job.result()
    except Exception: raise AssertionError(f"{job.stderr()}\n{job.stdout()}") from None
    assert rec["status"] == "finished", rec
    run = Path(rec["path"])
    starts = [int(s) for s in (run / "starts.log").read_text().split()]
    res, st = load_json(run / "results.json"), load_json(run / "status.json")
    assert starts[0] == 0 and len(starts) >= 2 and res["resumed_from"] == starts[-1] > 0, (starts, res)
    assert any(a["status"] == "interrupted" and "SLURM stopped the job" in a.get("error", "") for a in st["attempts"]), st


def test_failed_run_fails_its_job(toy, monkeypatch):
    "A run that fails makes its submitit job fail (SLURM's accounting says FAILED), and the sweep's row says why."
    import submitit
    from grok_nb.sweep import sweep, grid, _write_toy_study
    from grok_nb.slurm import StudyJob
    _write_toy_study(toy / "studies")
    ex = submitit.AutoExecutor(folder=str(toy / "subm"), cluster="local")
    job = ex.submit(StudyJob(), "toy", {"x": 4, "fail": True}, str(toy / "runs"))
    with pytest.raises(submitit.core.utils.FailedJobError, match="asked to fail at x=4"): job.result()
    df = sweep("toy", grid({"x": 5, "fail": True}, x=[6]), executor="submitit", cluster="local",
               runs_dir=toy / "runs", progress=False)
    assert list(df["status"]) == ["finished", "failed"] and "asked to fail at x=5" in df["error"].iloc[1], df
