"""Exposure-index throughput: Aho-Corasick `exposure_table` against a naive per-phrase `str.find` loop.

Phrases: the critical phrases of the five study phenomena on real BLiMP (about 15k distinct). Text: the C4 +
WikiText samples in the repository's data/english, cut into ~1 KB (step, text) sequences like packed training
batches. Both methods count the same word-boundary matches on the same text (checked); the naive loop runs
on a prefix of the text (it is slow). Rates are MB of text per CPU second of the scanning process (per core;
immune to other load on a shared machine) and, beside them, per wall-clock second; the n_jobs row is wall-clock
only (its work happens in child processes). Targets: >= 100x the naive loop and >= 20 MB/s per core.

Run: .venv/bin/python bench/exposure_throughput.py [--mb 8] [--naive-kb 64]
"""
import argparse, gzip, json, os, sys, time

from grok_nb.core import data_dir
from grok_nb.exposure import critical_phrases, exposure_table


def load_phrases():
    pairs = [json.loads(l) for f in sorted(data_dir("blimp").glob("*.jsonl.gz"))
             for l in gzip.open(f, "rt", encoding="utf-8")]
    t = critical_phrases(pairs)
    return list(dict.fromkeys(t[t.phenomenon.notna() & t.phrase.notna()].phrase))


def load_texts(mb, seq_chars=1024):
    docs = [json.loads(l)["text"] for f in sorted(data_dir("english").glob("*.jsonl.gz"))
            for l in gzip.open(f, "rt", encoding="utf-8")]
    corpus = "\n".join(docs)
    while len(corpus) < mb * 1e6: corpus += "\n" + corpus
    corpus = corpus[: int(mb * 1e6)]
    return [(i // 32, corpus[i * seq_chars:(i + 1) * seq_chars]) for i in range((len(corpus) + seq_chars - 1) // seq_chars)]


def naive(phrases, items):
    "Per phrase, per text: str.find at every position with the same boundary rule."
    first, count = {}, {}
    for p in phrases:
        n, f, L = 0, None, len(p)
        for step, t in items:
            i = t.find(p)
            while i >= 0:
                j = i + L
                if (i == 0 or not t[i - 1].isalnum()) and (j == len(t) or not t[j].isalnum()):
                    n += 1; f = step if f is None else f
                i = t.find(p, i + 1)
        first[p], count[p] = f, n
    return first, count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=8.0, help="MB of text for exposure_table")
    ap.add_argument("--naive-kb", type=float, default=64.0, help="KB of text for the naive loop")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    t0 = time.perf_counter(); phrases = load_phrases(); t_phr = time.perf_counter() - t0
    items = load_texts(a.mb)
    mb = sum(len(t) for _, t in items) / 1e6
    print(f"{len(phrases):,} distinct critical phrases (study phenomena; extracted in {t_phr:.1f} s); {len(items):,} texts, {mb:.1f} MB")

    def timed(f):
        c, w = time.process_time(), time.perf_counter()
        r = f()
        return r, time.process_time() - c, time.perf_counter() - w

    ac, c_ac, w_ac = timed(lambda: exposure_table(phrases, items))
    ac2, _, w_ac2 = timed(lambda: exposure_table(phrases, items, n_jobs=a.jobs))
    assert ac["count"].tolist() == ac2["count"].tolist() and ac.first_step.equals(ac2.first_step)

    sub, acc = [], 0
    for it in items:
        if acc >= a.naive_kb * 1e3: break
        sub.append(it); acc += len(it[1])
    mb_sub = acc / 1e6
    (nf, nc), c_nv, w_nv = timed(lambda: naive(phrases, sub))
    ac_sub = exposure_table(phrases, sub)
    assert [nc[p] for p in ac_sub.phrase] == ac_sub["count"].tolist(), "naive and Aho-Corasick disagree"
    assert [nf[p] for p in ac_sub.phrase] == [None if f is None or f != f else int(f) for f in ac_sub.first_step.astype(object).where(ac_sub.first_step.notna(), None)]

    print(f"{'method':<34}{'text MB':>9}{'CPU s':>9}{'MB/s/core':>11}{'wall s':>9}{'MB/s wall':>11}")
    print(f"{'naive str.find loop (1 process)':<34}{mb_sub:>9.3f}{c_nv:>9.2f}{mb_sub / c_nv:>11.3f}{w_nv:>9.2f}{mb_sub / w_nv:>11.3f}")
    print(f"{'exposure_table (1 process)':<34}{mb:>9.2f}{c_ac:>9.2f}{mb / c_ac:>11.2f}{w_ac:>9.2f}{mb / w_ac:>11.2f}")
    print(f"{f'exposure_table (n_jobs={a.jobs})':<34}{mb:>9.2f}{'':>9}{'':>11}{w_ac2:>9.2f}{mb / w_ac2:>11.2f}")
    ratio = (mb / c_ac) / (mb_sub / c_nv)
    print(f"speed-up over the naive loop: {ratio:,.0f}x (CPU time, 1 process); {sum(ac['count']):,} matches of "
          f"{int((ac['count'] > 0).sum()):,} phrases; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    ok = ratio >= 100 and mb / c_ac >= 20
    print("targets (>= 100x, >= 20 MB/s per core):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
