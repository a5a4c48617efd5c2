"""Minimal-pair scoring speed, side by side on the same model and the same real BLiMP pairs:

- the unbatched reference (one sentence per forward pass, no padding: the definition of the numbers);
- grok_nb's padded path (`token_logprobs_batched`: length-sorted, right-padded batches; what scoring did before);
- grok_nb's packed path for single sentences (`sequence_logprobs`: sentences packed into rows, no padding);
- grok_nb's packed pairs (`minimal_pair_scores`: each pair one token trie, its shared prefix computed once);
- minicons' `IncrementalLMScorer.sequence_score` (batches of `--batch` sentences), when minicons is importable.

Every grok_nb path must equal the reference within 1e-4 (checked; the run fails otherwise); minicons' difference is
printed too, so that the comparison is of the same numbers. Each timing is the best of `--repeats` runs, the methods
interleaved; at 1 and 2 torch threads. Target: packed pairs >= 3x minicons.
"""
import argparse, gzip, json, time
import numpy as np
import torch
from grok_nb.core import data_dir
from grok_nb.data import train_tokenizer, text_source
from grok_nb.models import build_model
from grok_nb.scoring import encode_texts, token_logprobs_batched, sequence_logprobs, minimal_pair_scores


def blimp_pairs(which: str, n: int) -> tuple[list[str], list[str]]:
    "The first `n` pairs of one paradigm, or (`which='all'`) the first ceil(n/67) of every paradigm."
    files = sorted(data_dir("blimp").glob("*.jsonl.gz"))
    if which != "all": files = [data_dir("blimp", f"{which}.jsonl.gz")]
    per = n if which != "all" else -(-n // len(files))
    rows = []
    for f in files:
        with gzip.open(f, "rt") as fh: rows += [json.loads(line) for _, line in zip(range(per), fh)]
    return [r["sentence_good"] for r in rows], [r["sentence_bad"] for r in rows]


@torch.no_grad()
def unbatched(model, tok, texts) -> np.ndarray:
    "The reference: one sentence per forward pass, BOS in front, every token after it scored."
    out = []
    for ids in encode_texts(tok, texts):
        lp = torch.log_softmax(model(torch.tensor([ids])).logits[0, :-1].float(), -1)
        out.append(lp.gather(-1, torch.tensor(ids[1:])[:, None]).sum().item())
    return np.array(out)


def methods(model, tok, good, bad, batch: int) -> dict:
    texts = good + bad
    seqs = encode_texts(tok, texts)
    pad = tok.pad_token_id
    m = {
        "unbatched reference": lambda: unbatched(model, tok, texts),
        "grok_nb padded (before)": lambda: np.array([x.sum() for x in token_logprobs_batched(model, seqs, batch, pad)]),
        "grok_nb packed sentences": lambda: sequence_logprobs(model, tok, texts, batch_size=batch),
        "grok_nb packed pairs": lambda: np.concatenate(
            [(r := minimal_pair_scores(model, tok, good, bad, batch_size=batch))["logp_good"], r["logp_bad"]]),
    }
    try:
        from minicons import scorer
    except ImportError:
        print("  minicons: not importable (install it with `pip install --no-deps minicons wonderwords accelerate`, "
              "which leaves torch and transformers alone) — its column is skipped")
        return m
    s = scorer.IncrementalLMScorer(model, "cpu", tokenizer=tok)
    def run_minicons():
        out = []
        for i in range(0, len(texts), batch):
            out += s.sequence_score(texts[i:i + batch], reduction=lambda x: x.sum(0).item(), bos_token=True)
        return np.array(out)
    m["minicons IncrementalLMScorer"] = run_minicons
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--sets", default="determiner_noun_agreement_1,all",
                    help="comma-separated BLiMP UIDs, or 'all' (pairs spread over the 67 paradigms)")
    ap.add_argument("--preset", default="llama-tiny")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch", type=int, default=128, help="sentences per forward pass (every method)")
    a = ap.parse_args()
    tok = train_tokenizer(list(text_source(data_dir("english", "c4_en_sample1000.jsonl.gz"), limit=300)), 1024)
    model = build_model(a.preset, vocab_size=len(tok), seed=0).eval()
    print(f"{a.preset} ({sum(p.numel() for p in model.parameters()):,} parameters), byte-level BPE of {len(tok)} "
          f"tokens, batches of {a.batch} sentences, best of {a.repeats}")
    table = []
    for which in a.sets.split(","):
        good, bad = blimp_pairs(which, a.pairs)
        seqs = encode_texts(tok, good + bad)
        print(f"\n== {which}: {len(good)} pairs, {np.mean([len(s) for s in seqs]):.1f} tokens per sentence with BOS")
        ms = methods(model, tok, good, bad, a.batch)
        ref = None
        for threads in [int(t) for t in a.threads.split(",")]:
            torch.set_num_threads(threads)
            best = {k: float("inf") for k in ms}
            out = {}
            for _ in range(a.repeats):
                for k, f in ms.items():
                    t = time.perf_counter()
                    out[k] = f()
                    best[k] = min(best[k], time.perf_counter() - t)
            ref = out["unbatched reference"] if ref is None else ref
            print(f"-- {threads} thread(s)")
            print(f"   {'method':30s} {'pairs/s':>9s} {'vs unbatched':>13s} {'vs minicons':>12s} {'max |diff|':>11s}")
            for k in ms:
                diff = float(np.abs(out[k] - ref).max())
                if k.startswith("grok_nb"): assert diff < 1e-4, f"{which}: {k} differs from the reference by {diff}"
                mc = best.get("minicons IncrementalLMScorer")
                vs_mc = f"{mc / best[k]:11.2f}x" if mc else f"{'-':>12s}"
                print(f"   {k:30s} {len(good) / best[k]:9.1f} {best['unbatched reference'] / best[k]:12.2f}x {vs_mc} "
                      f"{diff:11.1e}")
                table.append(dict(set=which, threads=threads, method=k, pairs_per_s=len(good) / best[k], max_diff=diff))
    mc = {(r["set"], r["threads"]): r["pairs_per_s"] for r in table if r["method"].startswith("minicons")}
    if mc:
        print("\npacked pairs / minicons:", ", ".join(
            f"{s} @{t}: {r['pairs_per_s'] / mc[(s, t)]:.2f}x" for r in table if r["method"] == "grok_nb packed pairs"
            for s, t in [(r["set"], r["threads"])]), "(target >= 3x)")


if __name__ == "__main__": main()
