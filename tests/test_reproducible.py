"""Bit-reproducibility: the same parameters, seed and thread count give a byte-identical results.json — study A, whose
results carry a matched random null and item bootstraps (seeded from the run's seed), executed twice in two kernels
(the second reusing the tokenizer cache the first wrote); params.json records the thread count and the device.
The same two runs are study A's end-to-end check (tests/test_studies.py runs the other studies): the run layout,
`load_runs`, and a finished run skipped when asked again."""
import json
from pathlib import Path
from grok_nb.sweep import run_study, study_notebooks, load_runs
import pytest

SMALL = dict(steps=30, checkpoint_every=5, n_docs=1500, n_per_phenomenon=40, n_null=100, n_boot=20)

def json_differences(a, b, path="") -> list[str]:
    "Every JSON path where `a` and `b` differ, with both values: a failure says what differed, not only that it did."
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in (json_differences(a.get(k), b.get(k), f"{path}.{k}") if k in a and k in b
                          else [f"{path}.{k}: only in {'first' if k in a else 'second'}"])]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in json_differences(x, y, f"{path}[{i}]")]
    return [] if a == b or (a != a and b != b) else [f"{path}: {a!r} != {b!r}"]

def test_json_differences():
    a = {"x": 1, "y": [1.0, 2.0, {"z": "s"}], "n": float("nan"), "only": 0}
    b = {"x": 1, "y": [1.0, 2.5, {"z": "t"}], "n": float("nan"), "new": 0}
    assert json_differences(a, a) == []
    assert json_differences(a, b) == [".new: only in second", ".only: only in first", ".y[1]: 2.0 != 2.5",
                                      ".y[2].z: 's' != 't'"]
    assert json_differences([1, 2], [1]) == [": [1, 2] != [1]"]

@pytest.mark.skipif("grokking" not in study_notebooks(), reason="no study A notebook")
def test_grokking_results_are_byte_identical(tmp_path, monkeypatch):
    monkeypatch.setenv("GROK_NB_WORKSPACE", str(tmp_path / "ws"))
    recs = [run_study("grokking", SMALL, runs_dir=tmp_path / f"runs{i}") for i in (1, 2)]
    for r in recs: assert r["status"] == "finished", r
    a, b = (Path(r["path"]) / "results.json" for r in recs)
    res = json.loads(a.read_text())
    assert a.read_bytes() == b.read_bytes(), json_differences(res, json.loads(b.read_text()))[:20]
    assert any("logistic" in p and len(p["logistic"]["boot"]) == SMALL["n_boot"] for p in res["phenomena"].values())
    assert res["steps"] == [0, 5, 10, 15, 20, 25, 30], res["steps"]
    # the concept measures keep their checkpoint steps, and the run table keeps each series (the ledger re-reads a
    # window of it, e.g. one that leaves out initialisation): the table's series equals results.json's
    from grok_nb.phenomena import phenomenon_table
    analysed = [p for p in res["phenomena"].values() if p.get("concepts")]
    assert analysed and all(p["concepts"]["steps"][0] == 0 and
                            len(p["concepts"]["steps"]) == len(p["concepts"]["effective_rank"]) for p in analysed)
    t = phenomenon_table([("r", 0, 30, res)])
    row = t[t.erank_series.notna()].iloc[0]
    assert json.loads(row.erank_series) == res["phenomena"][row.phenomenon]["concepts"]["effective_rank"]
    assert json.loads(row.concept_steps) == res["phenomena"][row.phenomenon]["concepts"]["steps"]
    run = Path(recs[0]["path"])
    rt = json.loads((run / "params.json").read_text())["runtime"]
    assert rt["device"] == "cpu" and rt["torch_threads"] >= 1 and rt["python_hash_seed"] is not None, rt
    assert (run / "timings.json").exists()                                   # wall times kept apart
    for f in ("metrics.jsonl", "run.ipynb"): assert (run / f).exists(), f
    assert list(load_runs("grokking", tmp_path / "runs1")["status"]) == ["finished"]
    assert run_study("grokking", SMALL, runs_dir=tmp_path / "runs1").get("skipped")   # a finished run is skipped
