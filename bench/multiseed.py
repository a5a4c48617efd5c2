"""Many seeds at once (`grok_nb.seeds.train_seeds`) against one seed at a time (`task_eval.train_task`), on b-heads'
configurations: the linear map, d_model 64, one layer, H heads of 64/H, S cells, sparsity 2, batch 64, lr 1e-3,
evaluations of 512 rows every 25 steps (with attention alignment), as study B's runs.

Both sides run the same seeds for the same number of steps (no early stop, so that the work is equal) in two worker
processes of one thread each, as a profile runs on 2 cores: one at a time, each worker trains its half of the seeds in
turn; batched, each worker trains its half as one stack. Reported per configuration: seeds per hour (at `--steps`
steps a seed), the ratio batched / one at a time, and the peak resident memory of a worker (ru_maxrss). Today's
profile runs pay more per seed than the baseline here (a papermill kernel, figures and files per run), so the ratio
is the training's alone. Before timing, one seed is trained both ways and their losses are checked to be equal.

Run: .venv/bin/python bench/multiseed.py [--steps 100] [--seeds 8 32] [--heads 1 4 16] [--cells 8 12] [--out FILE]
"""
import argparse, json, multiprocessing as mp, os, platform, resource, sys, time
from functools import partial


def _setup(S, H, seed, rows=64):
    from grok_nb.synthetic import make_task
    from grok_nb.mixers import build_mixer_model
    from grok_nb.task_eval import evaluate_task
    kw = dict(n_states=2, sparsity=2, task_seed=seed)
    src = make_task("linear_map", S, batch_size=rows, seed=seed, **kw)
    ev = make_task("linear_map", S, batch_size=512, seed=seed, **kw).batch(10**9)
    model = build_mixer_model("transformer", src.vocab_size, d_model=64, n_layers=1, seq_len=src.seq_len, n_heads=H,
                              seed=seed)
    return model, src, partial(evaluate_task, batch=ev, n_cells=S, bias_tensors=[], attention=True)


KW = dict(lr=1e-3, weight_decay=0.0, schedule="constant", log_every=1, progress=False)


def _worker(mode, S, H, seeds, steps, q):
    import torch
    torch.set_num_threads(1)
    from grok_nb.task_eval import train_task
    from grok_nb.seeds import train_seeds
    t0 = time.perf_counter()
    if mode == "alone":
        for s in seeds:
            m, src, ev = _setup(S, H, s)
            train_task(m, src, steps, ev, 25, None, False, device="cpu", seed=s, nproc=1, grad_accum=1, compile=False,
                       warmup=0, **KW)
    else:
        parts = [_setup(S, H, s) for s in seeds]
        train_seeds([p[0] for p in parts], [p[1] for p in parts], steps, eval_fns=[p[2] for p in parts], eval_every=25,
                    **KW)
    q.put((time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def run(mode, S, H, n, steps):
    """Seconds for n seeds on two single-thread workers (the slower worker's, from its first model to its last step:
    process start and imports are not counted), and the larger worker's peak RSS (MiB)."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    halves = [list(range(n))[: n // 2], list(range(n))[n // 2:]]
    ps = [ctx.Process(target=_worker, args=(mode, S, H, h, steps, q)) for h in halves]
    for p in ps: p.start()
    out = [q.get() for _ in ps]
    for p in ps: p.join()
    return max(o[0] for o in out), max(o[1] for o in out)


def check_equal(S, H, steps=30):
    "One seed both ways: every logged loss equal (the bench compares the same computation)."
    import torch
    from grok_nb.task_eval import train_task
    from grok_nb.seeds import train_seeds
    m, src, ev = _setup(S, H, 0)
    a, _ = train_task(m, src, steps, ev, 25, None, False, device="cpu", seed=0, nproc=1, grad_accum=1, compile=False,
                      warmup=0, **KW)
    m, src, ev = _setup(S, H, 0)
    b = train_seeds([m], [src], steps, eval_fns=[ev], eval_every=25, **KW)[0]["history"]
    la, lb = [r["loss"] for r in a if "loss" in r], [r["loss"] for r in b if "loss" in r]
    assert la == lb, f"losses differ at S {S}, H {H}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--seeds", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--heads", type=int, nargs="+", default=[1, 4, 16])
    ap.add_argument("--cells", type=int, nargs="+", default=[8, 12])
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rows = []
    print(f"{'S':>3} {'H':>3} {'seeds':>5} | {'alone s':>8} {'batched s':>9} | {'alone/h':>8} {'batched/h':>9} | "
          f"{'ratio':>5} | peak MiB alone / batched", flush=True)
    for S in a.cells:
        for H in a.heads:
            check_equal(S, H)
            for n in a.seeds:
                (ta, ma), (tb, mb) = run("alone", S, H, n, a.steps), run("batched", S, H, n, a.steps)
                r = dict(S=S, H=H, seeds=n, steps=a.steps, alone_s=round(ta, 2), batched_s=round(tb, 2),
                         alone_seeds_per_h=round(n / ta * 3600), batched_seeds_per_h=round(n / tb * 3600),
                         ratio=round(ta / tb, 2), alone_peak_mib=round(ma), batched_peak_mib=round(mb))
                rows.append(r)
                print(f"{S:>3} {H:>3} {n:>5} | {ta:>8.1f} {tb:>9.1f} | {r['alone_seeds_per_h']:>8} "
                      f"{r['batched_seeds_per_h']:>9} | {r['ratio']:>5.2f} | {ma:.0f} / {mb:.0f}", flush=True)
    info = dict(date=time.strftime("%Y-%m-%d"), cores=os.cpu_count(), machine=platform.machine(),
                python=sys.version.split()[0], rows=rows)
    if a.out:
        with open(a.out, "w") as f: json.dump(info, f, indent=1)
        print("wrote", a.out)


if __name__ == "__main__":
    main()
