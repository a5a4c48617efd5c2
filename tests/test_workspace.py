"""Where runs and caches go (core.workspace), path parameters resolved against the caller's folder, a quiet command
line, and a hub that cannot be reached failing fast."""
import json, os, subprocess, sys
from pathlib import Path
import nbformat, pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
       "OMP_NUM_THREADS": "1"}
for k in ("GROK_NB_WORKSPACE", "GROK_NB_HOME"): ENV.pop(k, None)
WHERE = '''from pathlib import Path
from grok_nb.core import cache_dir, save_json
from grok_nb.sweep import study_params, open_run
params = study_params("where", globals())
rd = open_run("where", params, run_dir)
save_json({"cache": str(cache_dir("tokenizers")), "corpus_exists": Path(corpus).exists()}, rd.results_file)'''

@pytest.fixture
def studies(tmp_path):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("x = 1\ncorpus = 'embedded'\nrun_dir = None")
    p.metadata["tags"] = ["parameters"]
    nb.cells = [p, nbformat.v4.new_code_cell(WHERE)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    (tmp_path / "studies").mkdir()
    nbformat.write(nb, tmp_path / "studies" / "where.ipynb")
    return tmp_path / "studies"

def grok_nb(args, cwd, studies, **env):
    "The command line, run from `cwd` (the console script where installed, else the same entry point)."
    exe = Path(sys.executable).parent / "grok-nb"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-c", "from grok_nb.jobs import main; raise SystemExit(main())"]
    r = subprocess.run(cmd + args, cwd=cwd, env={**ENV, "GROK_NB_STUDIES_DIR": str(studies), **env}, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r

def results(runs: Path, x: int) -> dict:
    "The results of the run with parameter x under `runs`."
    for f in runs.glob("where/*/results.json"):
        if json.loads((f.parent / "params.json").read_text())["params"]["x"] == x: return json.loads(f.read_text())
    raise AssertionError(f"no run x={x} under {runs}")


def test_runs_and_caches_go_where_the_user_works(tmp_path, studies):
    clone = tmp_path / "clone"
    if subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(clone)]).returncode != 0:
        clone.mkdir(exist_ok=True)                                              # not a git checkout: a project folder
        (clone / "nbs").mkdir(exist_ok=True)
        (clone / "settings.ini").write_text((ROOT / "settings.ini").read_text())
    mine = ROOT / "runs" / "where"
    before = sorted(mine.glob("*")) if mine.exists() else []
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    cache = lambda root: str(root.resolve() / "data" / "tokenizers")
    grok_nb(["run", "where", "-p", "x=2"], clone / "nbs", studies, GROK_NB_HOME=str(home))  # in a second clone: its
    assert results(clone / "runs", 2)["cache"] == cache(clone)                 # project (beats $GROK_NB_HOME)
    grok_nb(["run", "where", "-p", "x=3"], work, studies)                       # no project above: the folder itself
    assert results(work / "runs", 3)["cache"] == cache(work)
    grok_nb(["run", "where", "-p", "x=4"], work, studies, GROK_NB_HOME=str(home))   # no project: $GROK_NB_HOME
    assert results(home / "runs", 4)["cache"] == cache(home)
    grok_nb(["run", "where", "-p", "x=6", "--runs-dir", "elsewhere"], work, studies)  # --runs-dir, relative to cwd
    assert results(work / "elsewhere", 6)["cache"] == cache(work)
    assert (sorted(mine.glob("*")) if mine.exists() else []) == before             # nothing beside the package


def test_relative_paths_resolved_against_the_callers_folder(tmp_path, studies, monkeypatch):
    from grok_nb import sweep
    from grok_nb.params import PathSpec, StudySpec
    spec = StudySpec("where", {"corpus": PathSpec(specials=("embedded",))})
    monkeypatch.setitem(sweep.STUDY_SPECS, "where", spec)
    monkeypatch.setenv("GROK_NB_STUDIES_DIR", str(studies))
    monkeypatch.setenv("GROK_NB_WORKSPACE", str(tmp_path))
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "c.txt").write_text("a text")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    rec = sweep.run_study("where", {"corpus": "../data/c.txt"}, runs_dir=tmp_path / "runs")
    assert rec["status"] == "finished", rec
    run = Path(rec["path"])
    assert json.loads((run / "params.json").read_text())["params"]["corpus"] == str((tmp_path / "data" / "c.txt").resolve())
    assert json.loads((run / "results.json").read_text())["corpus_exists"]     # the kernel (another cwd) found it
    monkeypatch.chdir(tmp_path)
    again = sweep.run_study("where", {"corpus": "./data/../data/c.txt"}, runs_dir=tmp_path / "runs")
    assert again["run_id"] == rec["run_id"] and again.get("skipped")            # same file, same run
    with pytest.raises(Exception, match="'corpus' = "): sweep.run_study("where", {"corpus": "data/none.txt"})


def test_quiet_by_default(tmp_path):
    "A tiny training with checkpoints, loaded back: no transformers / hub progress bars, no warnings."
    code = """
import torch, sys
from grok_nb.models import build_model
from grok_nb.train import train, load_checkpoint
class Src:
    fingerprint = "q"
    def batch(self, step): return {"input_ids": torch.arange(16).repeat(4, 1) % 64}
m = build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16)
train(m, Src(), 6, run_dir=sys.argv[1], checkpoint_every=2, progress=False)
for s in (2, 4, 6): load_checkpoint(sys.argv[1] + f"/checkpoints/step_{s:06d}")
"""
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "r")], env=ENV, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert (r.stdout + r.stderr).strip() == "", r.stdout + r.stderr


def test_offline_hub_fails_with_one_line(tmp_path):
    """Every path that takes a hub name — a tokenizer, an `hf:` text source, BLiMP from the hub, a Pythia revision —
    fails, with a hub that cannot be reached, with the project's one-line GrokError and nothing on stderr. How fast
    it fails is measured by bench/offline_hub.py (a time asserted here would fail on a busy machine)."""
    code = """
import json
from grok_nb.core import GrokError
from grok_nb.data import load_tokenizer, text_source
from grok_nb.blimp import load_blimp
from grok_nb.emergence import HFPythiaSuite
calls = (lambda: load_tokenizer("grok-nb-test/no-such-tokenizer"), lambda: list(text_source("hf:nyu-mll/blimp")),
         lambda: load_blimp("hf:nyu-mll/blimp"), lambda: HFPythiaSuite().model("70m", 0, 1000))
for f in calls:
    try: f(); print(json.dumps(None))
    except Exception as e: print(json.dumps([type(e).__name__, str(e)]))
"""
    env = {**ENV, "HF_ENDPOINT": "http://127.0.0.1:9", "HF_HOME": str(tmp_path / "hf")}   # a hub nobody answers
    for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"): env.pop(k, None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    got = [json.loads(line) for line in r.stdout.strip().splitlines()]
    names = ["tokenizer 'grok-nb-test/no-such-tokenizer'", "dataset 'hf:nyu-mll/blimp'",
             "load_blimp: dataset 'hf:nyu-mll/blimp'", "HFPythiaSuite: checkpoint 'EleutherAI/pythia-70m@step1000'"]
    tail = (": not a local path, and the Hugging Face hub cannot be reached (offline): give a local path, or "
            "connect to the network")
    assert got == [["GrokError", name + tail] for name in names], r.stdout + r.stderr
    assert r.stderr.strip() == "", r.stderr
