"""Sweep reliability: submitit's local executor, an interrupted sweep resumed without duplicates, two sweeps on one
folder never running the same run twice."""
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
    from grok_nb.sweep import sweep, grid, load_runs
    df = sweep("toy", grid(x=[1, 2]), executor="submitit", cluster="local", runs_dir=toy / "runs", progress=False)
    assert list(df.status) == ["finished", "finished"]
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
