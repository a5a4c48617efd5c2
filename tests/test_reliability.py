"""The reliability gaps of issue 34, end to end through `grok-nb`: a run whose loss goes non-finite is `diverged`
(naming the step) and is not rerun without --retry-failed; bad task options, hub-suite sizes and data files are
refused in one line before any kernel starts, leaving no run folder."""
import json
from pathlib import Path
from types import SimpleNamespace
from grok_nb.jobs import main

ROOT = Path(__file__).resolve().parent.parent


def grok_nb(*args, runs, capsys):
    "`grok-nb ARGS --runs-dir RUNS` in this process: its exit code, stdout and stderr."
    rc = main([*args, "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=rc, stdout=out, stderr=err)


def test_diverged_run_is_diverged_not_finished(tmp_path, capsys):
    args = ("run", "sparse_attention", "-p", "lr=1e6", "-p", "steps=10", "-p", "eval_every=5", "-p", "eval_batch=64")
    r = grok_nb(*args, runs=tmp_path, capsys=capsys)
    assert r.returncode == 1, r.stdout + r.stderr
    rec = json.loads(r.stdout)
    st = json.loads((Path(rec["path"]) / "status.json").read_text())
    assert rec["status"] == st["status"] == "diverged", st
    assert st["error"].startswith("TrainingDiverged: train: the run diverged at step "), st["error"]
    assert not (Path(rec["path"]) / "results.json").exists()
    again = json.loads(grok_nb(*args, runs=tmp_path, capsys=capsys).stdout)             # the same parameters diverge again: skipped
    assert again["status"] == "diverged" and again["skipped"], again
    assert again["error"] and "--retry-failed" in again["note"], again                     # says why, and what to do


def test_bad_parameters_and_data_refused_before_the_kernel(tmp_path, capsys):
    cases = [
        (("run", "emergence", "-p", "tasks={'pattern_completion': {'perod': 2}}"),
         "parameter 'tasks' = {'pattern_completion': {'perod': 2}} is not allowed"),
        (("run", "emergence", "-p", "suite=pythia"), "parameter 'sizes' = ['pythia-tiny'] is not allowed"),
        (("run", "grokking", "-p", f"corpus={tmp_path / 'bad.jsonl'}", "-p", f"pairs={ROOT / 'data' / 'blimp'}"),
         f"parameter 'corpus' = '{tmp_path / 'bad.jsonl'}': {tmp_path / 'bad.jsonl'}:3: invalid JSON"),
    ]
    (tmp_path / "bad.jsonl").write_text('{"text": "a"}\n{"text": "b"}\n{"text": \n')
    for args, msg in cases:
        r = grok_nb(*args, runs=tmp_path / "runs", capsys=capsys)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and msg in r.stderr, (args, r.stderr)
    assert not (tmp_path / "runs").exists()                               # nothing written
