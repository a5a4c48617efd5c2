"""The execution parameters every study has — nproc, grad_accum, compile — validated up front, and study C (which
called `train` directly) training under torchrun: 2 gloo processes, each in 2 micro-batches, give the losses of one
process within 1e-5, under the same run id (how a run executes is not what it computes; params.json records it as
`execution`), and the one-process run keeps its pre-existing run id."""
import json
from pathlib import Path
import pytest
from grok_nb.core import GrokError
from grok_nb.sweep import run_study, resolve_params


def losses(rec) -> list[tuple]:
    "(step, training loss) of the logged steps, and (step, validation loss) of the evaluations."
    lines = (Path(rec["path"]) / "metrics.jsonl").read_text().splitlines()
    return [(r["step"], r["loss"] if r.get("event") is None else r["val_loss"]) for r in map(json.loads, lines)
            if "loss" in r or r.get("event") == "eval"]


def test_compartments_under_torchrun_with_accumulation(tmp_path):
    base = dict(steps=6, eval_every=3, n_docs=200, n_valid=40, eval_batches=1, n_align=8, c=2, seed=1)
    one = run_study("compartments", base, runs_dir=tmp_path)
    two = run_study("compartments", {**base, "nproc": 2, "grad_accum": 2, "device": "cpu"}, runs_dir=tmp_path / "b")
    assert one["status"] == two["status"] == "finished", (one, two)
    assert one["run_id"] == two["run_id"]                              # the same run, executed otherwise
    again = run_study("compartments", {**base, "nproc": 2, "grad_accum": 2, "device": "cpu"}, runs_dir=tmp_path)
    assert again.get("skipped") and again["path"] == one["path"], again     # already done here: not run twice
    l1, l2 = losses(one), losses(two)
    assert [s for s, _ in l1] == [s for s, _ in l2] and len(l1) >= 5, (l1, l2)          # steps 1, 6; evals 0, 3, 6
    assert max(abs(a - b) for (_, a), (_, b) in zip(l1, l2)) < 1e-5, list(zip(l1, l2))
    res = json.loads((Path(two["path"]) / "results.json").read_text())
    assert res["launch"] == {"launcher": "torchrun", "nproc_per_node": 2, "backend": "gloo"}, res["launch"]
    params = json.loads((Path(one["path"]) / "params.json").read_text())["params"]
    assert not {"nproc", "grad_accum", "compile"} & set(params)       # the neutral values are no part of the identity
    stored = json.loads((Path(two["path"]) / "params.json").read_text())
    assert stored["params"] == params, (stored["params"], params)
    assert {k: stored["execution"][k] for k in ("device", "nproc", "grad_accum")} == \
        {"device": "cpu", "nproc": 2, "grad_accum": 2}, stored["execution"]


@pytest.mark.parametrize("study,bad,msg", [
    ("compartments", {"grad_accum": 3}, "'grad_accum' = 3 is not allowed: must be an int >= 1, and a divisor of"),
    ("grokking", {"compile": 1}, "parameter 'compile' must be of type bool"),
    ("sparse_attention", {"nproc": 0}, "'nproc' = 0 is not allowed"),
    ("emergence", {"grad_accum": 0}, "'grad_accum' = 0 is not allowed"),
])
def test_execution_parameters_are_validated(study, bad, msg):
    with pytest.raises(GrokError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        resolve_params(study, bad)
