"""Execute each study notebook end to end with papermill through grok_nb.sweep.run_study (small parameters),
and check the run layout: params.json, metrics.jsonl, checkpoints, results.json."""
import json
from pathlib import Path
import pytest
from grok_nb.sweep import run_study, load_runs, STUDIES_DIR

SMALL = {
    "grokking": dict(steps=30, checkpoint_every=5, n_docs=1500, n_per_phenomenon=40, n_null=100, n_boot=20),
    "compartments": dict(),
    "emergence": dict(seeds=[0], steps=40, checkpoint_every=10, n_docs=400, batch_size=4, seq_len=64, n_prompts=16,
                      tasks={"ioi": {}, "in_context_repetition": {"threshold": 0.1}}),   # 0.1: a diagnostic threshold that passes mid-run, so patching runs
    "sparse_attention": dict(steps=40, eval_every=20, eval_batch=64, pretrain="dyck", pretrain_steps=10, bias_strength=8.0, bias_heads=2),
}

@pytest.mark.parametrize("study", [s for s in SMALL if (STUDIES_DIR / f"{s}.ipynb").exists()])
def test_study_runs(study, tmp_path):
    rec = run_study(study, SMALL[study], runs_dir=tmp_path)
    assert rec["status"] == "finished", rec
    run = Path(rec["path"])
    for f in ("params.json", "results.json", "run.ipynb"):
        assert (run / f).exists(), f
    res = json.loads((run / "results.json").read_text())
    assert isinstance(res, dict) and res
    df = load_runs(study, tmp_path)
    assert list(df["status"]) == ["finished"]
    again = run_study(study, SMALL[study], runs_dir=tmp_path)          # a finished run is skipped
    assert again.get("skipped")
