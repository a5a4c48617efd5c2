"""Study A at the paper's setting on one GPU (run it through `bash bench/paper_scale_a.sh`, which keeps it to its own
12-minute budget, 1.5 x the H200 measurement; `--dry-run` runs the same code at tiny sizes on the CPU in about a
minute, tested by tests/test_paper_scale.py in `make test`).

The paper's run: LLaMA-35M, 2,000 steps of 512 x 256 tokens (a 262M-token window, one pass), a checkpoint every 100
steps, scored on the minimal pairs of five phenomena. The corpus is the embedded grammar's (study A's design:
`jobs.GROKKING_DESIGN`, 1,500 nouns with a Zipf-1.2 tail), made on the machine's CPUs and built into a token store:

1. corpus: the exposure window — `embedded.make_embedded_default` over `--window-docs` documents, which holds the
   insertions of the exposed phrases (8 each) and the control sentences, and gives the BLiMP-format pairs — then the
   rest of the window's documents from the same grammar, free of every withheld phrase, in `--procs` processes (one
   random stream each); written as one .jsonl with the pairs beside it as a BLiMP folder;
2. tokenizer: the word-level tokenizer of the study (8,192 ids) trained on the exposure window's documents;
3. token store: `store.build_store` in `--procs` processes (the word-cached encoder), with the key study A uses, so
   that the study opens it;
4. study A: `grok-nb run grokking` with that corpus, pairs and tokenizer (the store's documents are shuffled by the
   study's seed, so the exposures fall anywhere in the window; study A finds each phrase's sightings in its own
   stream), `compile=True`, bf16 on CUDA.

It prints the wall time of each phase, the training throughput (tokens/s over the whole loop and in the steady state
after step 100) and its MFU against the GPU's dense bf16 peak (`bench/gpu_check.py`'s FLOP count and table), and
study A's headline. `--design a2` runs profile a2's grammar (varied word order, harder forms) instead, with
checkpoints every 10 steps to step 300 and every 50 after (the default's checkpoints, 100 steps apart, cannot show a
shorter delay). Measured on one H200 (bench/results/2026-12-04-h200/): 480 s in all, of which training 204 s at 1.5M
tokens/s, MFU 12.7%.
"""
from __future__ import annotations
import argparse, json, os, sys, tempfile, time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAPER = dict(preset="llama-35m", steps=2000, batch_size=512, seq_len=256, checkpoint_every=100, lr=1e-3,
             n_per_phenomenon=400, n_null=1000, n_boot=200, analysis_pairs=40, analysis_every=2, head_window=200)
DRY = dict(preset="llama-tiny", steps=20, batch_size=8, seq_len=32, checkpoint_every=10, lr=1e-3,
           n_per_phenomenon=20, n_null=50, n_boot=10, analysis_pairs=8, analysis_every=1, head_window=10)


# `--design a2`: profile a2's grammar (profiles/a2.yaml through `jobs.profile_jobs`: the varied word order and the
# harder forms on which the CPU-scale delays were measured) and, at paper scale, checkpoints every 10 steps (1.3M
# tokens) to step 300 and every 50 after, so that a delay shorter than the default's 100-step spacing can show
A2_SCHEDULE = dict(checkpoint_every=10, dense_until=300, late_every=50)


def grammar_of(name: str) -> dict:
    "The grammar switches of a design: {} for study A's defaults, profile a2's `order_share` and `hard_forms` for a2."
    if name == "default": return {}
    from grok_nb.jobs import profile_jobs
    _, params = profile_jobs("a2")[0]                    # the profile's resolved parameters (design, base, grid)
    return {k: params[k] for k in ("order_share", "hard_forms")}


def design(a) -> dict:
    """Study A's design: its phenomena and the grammar of `jobs.GROKKING_DESIGN` (the study's other defaults), with
    `--design`'s grammar switches."""
    from grok_nb.jobs import GROKKING_DESIGN
    from grok_nb.sweep import study_defaults
    s = study_defaults("grokking")
    return {**dict(seed=a.seed, n_nouns=GROKKING_DESIGN["n_nouns"], zipf=GROKKING_DESIGN["zipf"],
                   raising_share=s["raising_share"], order_share=s["order_share"], hard_forms=s["hard_forms"],
                   phenomena=s["phenomena"], n_per_phenomenon=a.run["n_per_phenomenon"]), **grammar_of(a.design)}


def background(args) -> int:
    """Write `n` documents of the grammar of `design`, free of the withheld phrases, from random stream `part`, to
    `path` (.jsonl); returns how many."""
    d, part, n, path = args
    from grok_nb.grammar import Grammar, Banned, generate_docs, rng_for, detokenize
    from grok_nb.blimp import design_pairs
    from grok_nb.embedded import HARD_FORMS
    g = Grammar(d["n_nouns"], d["zipf"], d["raising_share"], d["order_share"], d["hard_forms"])
    withheld = design_pairs(g, d["seed"], d["n_per_phenomenon"], d["phenomena"], "uniform", "phrase",
                            HARD_FORMS if d["hard_forms"] else {})
    docs, *_ = generate_docs(g, n, rng_for(d["seed"], f"paper-scale-background-{part}"),
                             Banned(ng for *_, w in withheld for ng in w))
    with open(path, "w") as f:
        for doc in docs: f.write(json.dumps({"text": " ".join(detokenize(s) for s in doc)}) + "\n")
    return len(docs)


def make_corpus(a, work: Path) -> tuple[Path, Path, list[str]]:
    """The corpus folder (`part_0000.jsonl`, the exposure window, then the rest, one file per process: read in name
    order) and the pairs folder; returns them and the window's documents."""
    from grok_nb.embedded import make_embedded_default, docs_for_tokens
    from grok_nb.blimp import write_synthetic_blimp
    d = design(a)
    r = a.run
    window = r["steps"] * r["batch_size"] * r["seq_len"]
    n_docs = docs_for_tokens(window + window // 20 + r["seq_len"]) + 1      # the study's store bound, one pass
    ed = make_embedded_default(seed=d["seed"], n_docs=a.window_docs, window_docs=a.window_docs,
                               n_per_phenomenon=d["n_per_phenomenon"], zipf=d["zipf"], n_nouns=d["n_nouns"],
                               phenomena=d["phenomena"], raising_share=d["raising_share"], n_exposures=8,
                               order_share=d["order_share"], hard_forms=d["hard_forms"], control_exposures=True)
    rest = max(0, n_docs - a.window_docs)
    corpus = work / "corpus"
    corpus.mkdir()
    parts = [(d, k, rest // a.procs + (k < rest % a.procs), corpus / f"part_{k + 1:04d}.jsonl") for k in range(a.procs)]
    with open(corpus / "part_0000.jsonl", "w") as f:
        for doc in ed.docs: f.write(json.dumps({"text": doc}) + "\n")
    with ProcessPoolExecutor(a.procs) as ex: n_rest = sum(ex.map(background, [p for p in parts if p[2]]))
    assert a.window_docs + n_rest >= n_docs, (a.window_docs, n_rest, n_docs)
    write_synthetic_blimp(work / "pairs", pairs=ed.pairs)
    return corpus, work / "pairs", ed.docs


def throughput(run: Path, batch: int, seq_len: int, after: int) -> tuple[float, float | None]:
    "Training tokens/s over the whole loop, and in the steady state after step `after` (from metrics.jsonl)."
    recs = [json.loads(l) for l in (run / "metrics.jsonl").read_text().splitlines() if l.strip()]
    recs = sorted((r for r in recs if "tokens_per_s" in r), key=lambda r: r["step"])
    targets = batch * (seq_len - 1)                           # train's tokens_per_s counts target tokens
    end = lambda r: r["step"] * targets / r["tokens_per_s"]   # noqa: E731 -- seconds into the loop at its step's end
    overall = recs[-1]["step"] * batch * seq_len / end(recs[-1])
    a = next((r for r in recs if r["step"] >= after and r is not recs[-1]), None)
    steady = None if a is None else (recs[-1]["step"] - a["step"]) * batch * seq_len / (end(recs[-1]) - end(a))
    return overall, steady


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true", help="the same code at tiny sizes on the CPU")
    ap.add_argument("--procs", type=int, default=None, help="CPU processes for the corpus and the store "
                    "(default: all cores; 2 in the dry run)")
    ap.add_argument("--window-docs", type=int, default=None, help="documents of the exposure window (default 20,000; "
                    "300 in the dry run)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=None, help="where the corpus, store and run go (default: a temporary folder)")
    ap.add_argument("--no-compile", action="store_true", help="train without torch.compile")
    ap.add_argument("--design", choices=("default", "a2"), default="default",
                    help="study A's default grammar, or profile a2's (varied order, harder forms) with checkpoints "
                    "every 10 steps to 300 (see A2_SCHEDULE)")
    a = ap.parse_args(argv)
    a.run = DRY if a.dry_run else {**PAPER, **(A2_SCHEDULE if a.design == "a2" else {})}
    a.procs = a.procs or (2 if a.dry_run else os.cpu_count() or 1)
    a.window_docs = a.window_docs or (300 if a.dry_run else 20_000)
    work = Path(a.workdir or tempfile.mkdtemp(prefix="grok_nb_paper_a_")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ["GROK_NB_WORKSPACE"] = str(work)                    # caches (tokenizers, stores) and runs go here
    if a.dry_run: os.environ.setdefault("GROK_NB_COMPILE_BACKEND", "aot_eager")   # Dynamo + AOTAutograd, no C++
    import torch
    from grok_nb.core import cache_dir
    from grok_nb.data import train_tokenizer, load_tokenizer
    from grok_nb.store import build_store
    from grok_nb.sweep import run_study
    cuda = torch.cuda.is_available() and not a.dry_run
    if not cuda and not a.dry_run:
        print("paper_scale_a: no CUDA device here; use --dry-run for the CPU check", file=sys.stderr)
        return 2
    r, phases, t_all = a.run, {}, time.perf_counter()
    print(f"paper-scale study A{' (DRY RUN: tiny sizes on the CPU)' if a.dry_run else ''}: {r['preset']}, "
          f"{r['steps']} steps of {r['batch_size']} x {r['seq_len']} tokens, a checkpoint every {r['checkpoint_every']}"
          f"; design {a.design}{' ' + json.dumps(grammar_of(a.design)) if a.design != 'default' else ''}"
          f"; {a.procs} CPU processes; work folder {work}", flush=True)

    t0 = time.perf_counter()
    corpus, pairs, window_docs = make_corpus(a, work)
    phases["corpus (embedded grammar)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    train_tokenizer(window_docs, 8192, kind="word").save_pretrained(work / "tokenizer")
    tok = load_tokenizer(str(work / "tokenizer"))                  # as the study loads it (the store key's fingerprint)
    phases["tokenizer (word-level, 8,192)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    window = r["steps"] * r["batch_size"] * r["seq_len"]
    store = build_store(str(corpus), tok, cache_dir("stores"), n_proc=a.procs, progress=False,
                        max_tokens=window + window // 20 + r["seq_len"])    # the study's bound: it opens this store
    phases[f"token store ({store.n_tokens:,} tokens, {store.n_docs:,} documents)"] = time.perf_counter() - t0
    print("".join(f"  {k}: {v:.0f} s\n" for k, v in phases.items()), end="", flush=True)

    params = dict(corpus=str(corpus), pairs=str(pairs), tokenizer=str(work / "tokenizer"), data_procs=a.procs,
                  device="cuda" if cuda else "cpu", compile=not a.no_compile, seed=a.seed,
                  **{k: v for k, v in r.items()}, **grammar_of(a.design))
    t0 = time.perf_counter()
    rec = run_study("grokking", params, runs_dir=work / "runs", progress=False, log_output=False)
    phases["study A kernel"] = time.perf_counter() - t0
    if rec["status"] != "finished":
        print(f"paper_scale_a: study A {rec['status']}: {rec.get('error', '')[:2000]}", file=sys.stderr)
        return 1
    run = Path(rec["path"])
    res, tim = (json.loads((run / f).read_text()) for f in ("results.json", "timings.json"))
    after = min(100, r["steps"] // 2)
    overall, steady = throughput(run, r["batch_size"], r["seq_len"], after=after)
    sys.path.insert(0, str(HERE))
    from gpu_check import train_flops_per_token, peak_bf16_flops
    from grok_nb.models import build_model
    fpt = train_flops_per_token(build_model(r["preset"], vocab_size=len(tok), seq_len=r["seq_len"]), r["seq_len"])
    peak, where = peak_bf16_flops(torch.cuda.get_device_name()) if cuda else (None, "no GPU: the dry run is on the CPU")
    tps = steady or overall
    phases_total = time.perf_counter() - t_all
    stores = [p.name for p in cache_dir("stores").iterdir() if p.is_dir()]
    other = "" if stores == [store.path.name] else f" (NOT the bench one: {stores})"
    print(f"  study A kernel: {phases['study A kernel']:.0f} s, of which training {tim['train_seconds']:.0f} s "
          f"(the rest: the store opened{other}, the exposure scan, scoring {len(res['steps'])} checkpoints, "
          "the analysis)")
    print(f"total {phases_total:.0f} s")
    print(f"training: {overall:,.0f} tokens/s over the loop, {tps:,.0f} tokens/s "
          f"{f'after step {after}' if steady else '(too few steps for a steady state)'}; {fpt / 1e6:.1f} MFLOP/token; "
          + (f"MFU {fpt * tps / peak:.1%} of {peak / 1e12:.0f} TFLOP/s ({where})" if peak else f"MFU n/a ({where})"))
    print(f"final loss {res['final_loss']:.3f}; study A headline: {json.dumps(res['headline'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
