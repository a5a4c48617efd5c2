"""Studies B and C at the papers' sizes on one GPU: a grid of study runs, each through `sweep.run_study` (the study
notebook, as `grok-nb run` does), with each phase's wall time, the training throughput and MFU, and the study's
headline (run it through `bash bench/paper_scale_b.sh` / `bash bench/paper_scale_c.sh`, which keep it to its own
budget; `--dry-run` runs the same code at tiny sizes on the CPU, tested by tests/test_paper_scale.py in `make test`).

- **b**: study B's synthetic linear map (`sparse_attention`) at the paper's context lengths, state size S = 64, 128,
  256 and 512 cells (sequences of 2S + 1 tokens), sparsity 2, one layer of 16 heads of width 8, 3 seeds each, up to
  2,000 steps of 64 sequences (stopping early once solved): the
  paper's claim B8 is that learning gets much harder as S grows, with long plateaus at S = 512. Headline: per S, how
  many seeds reached the success criterion and the median step they did (censored at the step budget).
- **c**: study C's compartment tax (`compartments`) at c = 1, 2, 4, 8 on the two smallest tiers the paper used,
  gpt-8-32 and gpt-8-64 (8 layers of width 32 / 64), seed 0, 1,000 steps of 32 x 256 tokens on the embedded default.
  Headline: per tier and c, the median steps to the validation-loss targets and the final within-copy loss; the tax
  is the ratio to c = 1.

The seeds of a setting run one after another (study B's multi-seed trainer, `grok_nb.seeds`, is not yet a study
parameter). MFU counts 6 N + 12 L H d T FLOPs a token (`bench/gpu_check.py`) against the GPU's dense bf16 peak.
Estimated, not yet measured on a GPU: about 6 min for b and 6 min for c on one H100 (the scripts' timeouts, 540 s,
are 1.5 x that).
"""
from __future__ import annotations
import argparse, json, os, statistics, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent

GRIDS = {
    "b": dict(study="sparse_attention",
              base=dict(task="linear_map", sparsity=2, n_layers=1, n_heads=16, d_head=8, steps=2000, batch_size=64,
                        lr=1e-3, eval_every=100, eval_batch=512, early_stop=True),
              axes=dict(n_cells=[64, 128, 256, 512]), seeds=[0, 1, 2]),
    "c": dict(study="compartments",
              base=dict(steps=1000, batch_size=32, seq_len=256, lr=2e-3, n_docs=20_000, eval_every=100,
                        weight_decay=0.1),
              axes=dict(size=["gpt-8-32", "gpt-8-64"], c=[1, 2, 4, 8]), seeds=[0]),
}
DRY = {
    "b": dict(base=dict(task="linear_map", sparsity=2, n_layers=1, n_heads=4, d_head=4, steps=30, batch_size=16,
                        eval_every=10, eval_batch=64), axes=dict(n_cells=[8, 16]), seeds=[0]),
    "c": dict(base=dict(steps=20, batch_size=8, seq_len=32, n_docs=300, eval_every=10, eval_batches=2),
              axes=dict(size=["gpt-tiny"], c=[1, 2]), seeds=[0]),
}


def runs_of(grid: dict) -> list[dict]:
    "The grid's runs: every combination of its axes (in order) x its seeds, each with the base parameters."
    from grok_nb.sweep import grid as product
    return [{**grid["base"], **p, "seed": s} for p in product(**grid["axes"]) for s in grid["seeds"]]


def throughput(run: Path) -> float | None:
    "Training tokens/s at the end of the loop, as `train` logs it (target tokens over the loop's time)."
    recs = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines() if line.strip()]
    tps = [r["tokens_per_s"] for r in recs if "tokens_per_s" in r]
    return tps[-1] if tps else None


def flops_per_token(study: str, p: dict, res: dict) -> float:
    "6 N + 12 L H d T: the matmul FLOPs of a training token (`bench/gpu_check.py`'s count, from the run's results)."
    if study == "sparse_attention":
        L, H, d, T = p["n_layers"], p["n_heads"], p["d_head"], res["seq_len"]
    else:
        from grok_nb.models import PRESETS
        cfg = PRESETS[p["size"]]
        L, H, d, T = cfg["n_layers"], cfg["n_heads"], cfg["d_model"] // cfg["n_heads"], p["seq_len"]
    return 6.0 * res["n_params"] + 12.0 * L * H * d * T


def headline(key: str, rows: list[dict], steps: int) -> dict:
    "The study's headline over the grid: per setting, seeds that succeeded and their median step (censored at `steps`)."
    out = {}
    if key == "b":
        for S in sorted({r["p"]["n_cells"] for r in rows}):
            got = [r["res"].get("success_step") for r in rows if r["p"]["n_cells"] == S]
            hit = [s for s in got if s is not None]
            out[f"S={S}"] = {"succeeded": f"{len(hit)} of {len(got)}",
                             "median_success_step": statistics.median(hit) if hit else f">{steps} (censored)"}
        return out
    for size in dict.fromkeys(r["p"]["size"] for r in rows):
        ref = None
        for c in sorted({r["p"]["c"] for r in rows if r["p"]["size"] == size}):
            hs = [r["res"]["headline"] for r in rows if r["p"]["size"] == size and r["p"]["c"] == c]
            within = statistics.median(h["final_val_within"] for h in hs)
            ref = within if c == 1 else ref
            out[f"{size} c={c}"] = {"final_val_within": round(within, 3),
                                    "lowest_target_reached": min(h["lowest_target_reached"] or 99 for h in hs),
                                    "tax_vs_c1": None if ref is None else round(within - ref, 3)}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", choices=sorted(GRIDS), help="b: sparse attention at the paper's context lengths; "
                    "c: the compartment tax on the two smallest tiers")
    ap.add_argument("--dry-run", action="store_true", help="the same code at tiny sizes on the CPU")
    ap.add_argument("--workdir", default=None, help="where the runs go (default: a temporary folder)")
    a = ap.parse_args(argv)
    grid = {**GRIDS[a.study], **(DRY[a.study] if a.dry_run else {})}
    work = Path(a.workdir or tempfile.mkdtemp(prefix=f"grok_nb_paper_{a.study}_")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ["GROK_NB_WORKSPACE"] = str(work)                    # caches (tokenizers, stores) and runs go here
    import torch
    from grok_nb.sweep import run_study
    cuda = torch.cuda.is_available() and not a.dry_run
    if not cuda and not a.dry_run:
        print(f"paper_scale_{a.study}: no CUDA device here; use --dry-run for the CPU check", file=sys.stderr)
        return 2
    sys.path.insert(0, str(HERE))
    from gpu_check import peak_bf16_flops
    peak, where = peak_bf16_flops(torch.cuda.get_device_name()) if cuda else (None, "no GPU: the dry run is on the CPU")
    runs, study = runs_of(grid), grid["study"]
    print(f"paper-scale study {a.study.upper()}{' (DRY RUN: tiny sizes on the CPU)' if a.dry_run else ''}: {study}, "
          f"{len(runs)} runs ({json.dumps(grid['axes'])} x seeds {grid['seeds']}), {json.dumps(grid['base'])}; "
          f"work folder {work}", flush=True)
    rows, t_all = [], time.perf_counter()
    for k, p in enumerate(runs):
        p = {**p, "device": "cuda" if cuda else "cpu"}
        t0 = time.perf_counter()
        rec = run_study(study, p, runs_dir=work / "runs", progress=False)
        wall = time.perf_counter() - t0
        if rec["status"] != "finished":
            print(f"paper_scale_{a.study}: run {k} {rec['status']}: {rec.get('error', '')[:2000]}", file=sys.stderr)
            return 1
        run = Path(rec["path"])
        res, tim = (json.loads((run / f).read_text()) for f in ("results.json", "timings.json"))
        tps, fpt = throughput(run), flops_per_token(study, p, res)
        train_s = tim.get("train_seconds", tim.get("train_s"))
        mfu = f"MFU {fpt * tps / peak:.1%}" if peak and tps else f"MFU n/a ({where})"
        setting = ", ".join(f"{ax}={p[ax]}" for ax in grid["axes"])
        print(f"  run {k + 1}/{len(runs)} ({setting}, seed {p['seed']}): {wall:.0f} s, of which training "
              f"{train_s:.0f} s; {tps or 0:,.0f} tokens/s; {fpt / 1e6:.2f} MFLOP/token; {mfu}", flush=True)
        rows.append(dict(p=p, res=res, wall=wall, train_s=train_s))
    total = time.perf_counter() - t_all
    train = sum(r["train_s"] for r in rows)
    print(f"total {total:.0f} s: training {train:.0f} s, the rest (kernels, data, evaluation, analysis) "
          f"{total - train:.0f} s")
    print(f"study {a.study.upper()} headline: {json.dumps(headline(a.study, rows, grid['base']['steps']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
