"""Execute each study notebook end to end with papermill through grok_nb.sweep.run_study (small parameters),
and check the run layout: params.json, metrics.jsonl, checkpoints, results.json."""
import json
from pathlib import Path
import pytest
from grok_nb.core import data_dir
from grok_nb.sweep import run_study, load_runs, study_notebooks

# study A's end-to-end run (these checks, at steps=30) is the pair of runs in tests/test_reproducible.py
SMALL = {
    "compartments": dict(),
    "emergence": dict(seeds=[0], steps=40, checkpoint_every=10, n_docs=400, batch_size=4, seq_len=64, n_prompts=16,
                      tasks={"ioi": {}, "in_context_repetition": {"threshold": 0.1}}),   # 0.1: a diagnostic threshold that passes mid-run, so patching runs
    "sparse_attention": dict(steps=40, eval_every=20, eval_batch=64, pretrain="dyck", pretrain_steps=10, bias_strength=8.0, bias_heads=2),
}

C4 = data_dir("english", "c4_en_sample1000.jsonl.gz")

def test_grokking_on_real_c4_and_blimp(tmp_path):
    "The real path: the C4 sample as corpus (BPE trained on it), real BLiMP files for the five phenomena."
    rec = run_study("grokking", dict(corpus=str(C4), pairs=str(data_dir("blimp")),
                                     steps=20, checkpoint_every=10, batch_size=8, vocab_size=2048, n_null=100, n_boot=20),
                   runs_dir=tmp_path)   # 3 checkpoints, each scoring all 10,000 sentences (most of the test's time)
    assert rec["status"] == "finished", rec
    res = json.loads((Path(rec["path"]) / "results.json").read_text())
    assert len(res["phenomena"]) == 5
    n = {u: r["n_exposed"] + r["n_unexposed"] for u, r in res["phenomena"].items()}
    assert all(v == 1000 for v in n.values()), n                      # every real pair got a critical phrase
    # (20 steps of 8 x 64 C4 tokens contain none of BLiMP's critical phrases verbatim: all pairs are unexposed here)

@pytest.mark.parametrize("study", [s for s in SMALL if s in study_notebooks()])
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

def test_study_under_torchrun(tmp_path):
    "nproc=2 launches the study's training under torchrun (2 gloo ranks) from inside the notebook: same losses as nproc=1."
    base = dict(steps=30, eval_every=10, eval_batch=64, early_stop=False, seed=3)
    recs = {n: run_study("sparse_attention", {**base, "nproc": n}, runs_dir=tmp_path / str(n)) for n in (1, 2)}
    for n, rec in recs.items(): assert rec["status"] == "finished", (n, rec)
    assert recs[1]["run_id"] == recs[2]["run_id"]                      # how a run executes is not which run it is
    stored = {n: json.loads((Path(r["path"]) / "params.json").read_text()) for n, r in recs.items()}
    assert stored[1]["params"] == stored[2]["params"]
    assert [stored[n]["execution"]["nproc"] for n in (1, 2)] == [1, 2], stored[2]
    def losses(rec): return [r["loss"] for r in map(json.loads, (Path(rec["path"]) / "metrics.jsonl").read_text().splitlines()) if "loss" in r]
    l1, l2 = losses(recs[1]), losses(recs[2])
    assert len(l1) == len(l2) == 30 and l1[0] > 0.5
    assert max(abs(a - b) for a, b in zip(l1, l2)) < 1e-4, list(zip(l1, l2))

def test_bilingual_on_token_stores(tmp_path):
    """The real en/zh pair through one token store per language (max_tokens; `cases.bilingual_store`, whose
    equality with the in-memory stream is pinned in 30c_cases): each language's store holds its own file's first
    documents within max_tokens, in its own tokenizer (disjoint), the run trains on the documents after the 40
    validation ones, and it records both stores."""
    base = dict(case="bilingual", corpus="zh", tokenizer="disjoint", c=2, steps=6, eval_every=3, n_docs=200,
                n_valid=40, base_vocab=512, n_align=8, max_tokens=60_000)
    rec = run_study("compartments", base, runs_dir=tmp_path)
    assert rec["status"] == "finished", rec
    res = json.loads((Path(rec["path"]) / "results.json").read_text())
    stores = [json.loads((Path(p) / "manifest.json").read_text()) for p in res["store"]]
    assert len(stores) == 2 and stores[0]["tokenizer"] != stores[1]["tokenizer"], stores
    for m in stores: assert 40 < m["n_docs"] and m["n_tokens"] <= 60_000, m
    lines = (Path(rec["path"]) / "metrics.jsonl").read_text().splitlines()
    losses = [r["loss"] for r in map(json.loads, lines) if "loss" in r]
    assert len(losses) >= 2 and losses[-1] < losses[0], losses


def test_compartments_on_a_token_store(tmp_path):
    """Study C's real-corpus path through a token store (max_tokens) trains on exactly what the in-memory path does:
    the whole C4 sample in the store (1,000 documents; validation = the first 40), so both runs see documents 40..999
    with the same BPE — the same stream fingerprint and the same training losses, at c = 2 and after a post-hoc
    expansion; the store run records its store and the epochs its window made."""
    src = str(C4)
    base = dict(corpus=src, c=2, steps=8, eval_every=4, n_docs=960, n_valid=40, base_vocab=512, init="posthoc",
                pretrain_steps=4)
    recs = {k: run_study("compartments", {**base, **extra}, runs_dir=tmp_path)
            for k, extra in (("memory", {}), ("store", {"max_tokens": 10**9}))}
    for k, rec in recs.items(): assert rec["status"] == "finished", (k, rec)
    res = {k: json.loads((Path(r["path"]) / "results.json").read_text()) for k, r in recs.items()}
    assert res["memory"]["store"] is None and res["store"]["store"]
    manifest = json.loads((Path(res["store"]["store"]) / "manifest.json").read_text())
    assert manifest["n_docs"] == 1000, manifest["n_docs"]
    assert res["store"]["stream_fingerprint"] == res["memory"]["stream_fingerprint"]
    assert 0 < res["store"]["epochs"] == res["memory"]["epochs"] < 1
    def losses(rec, sub=""):
        lines = (Path(rec["path"]) / sub / "metrics.jsonl").read_text().splitlines()
        return [r["loss"] for r in map(json.loads, lines) if "loss" in r]
    for sub in ("pretrain", ""):
        assert losses(recs["store"], sub) == losses(recs["memory"], sub) and len(losses(recs["store"], sub)) >= 2, sub
    # the fixed sample of training rows (each compartment's first rows) is the same text on both paths
    fin = {k: r["metrics"]["final"] for k, r in res.items()}
    assert {k: v for k, v in fin["store"].items() if k.startswith("train_")} == \
        {k: v for k, v in fin["memory"].items() if k.startswith("train_")}, fin
    assert {"train_within_c0", "train_within_c1", "train_within"} <= set(fin["store"]), sorted(fin["store"])
