"""Study A's exposure scan over a token store: it matches a brute-force scan of the decoded stream and the in-memory
stream over the same documents exactly, with 1 and 2 worker processes; a window beyond one pass is refused."""
import re
from pathlib import Path
import pytest
from grok_nb.data import TokenStream, text_source, train_tokenizer
from grok_nb.store import build_store
from grok_nb.exposure import exposure_from_stream, stream_texts
from grok_nb.core import GrokError, data_dir

C4 = data_dir("english", "c4_en_sample1000.jsonl.gz")
PHRASES = ["of the", "in the", "the first", "New York", "it is", "I am", "for a", "per cent", "x y z never"]


def brute(phrases, items):
    "Word-boundary occurrences of each phrase in (step, text) items: first step and count."
    out = {}
    for p in phrases:
        first, n = None, 0
        for step, t in items:
            k = len(re.findall(rf"(?<![^\W_])(?={re.escape(p)}(?![^\W_]))", t))
            if k:
                n += k
                first = step if first is None else min(first, step)
        out[p] = (first, n)
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    docs = list(text_source(C4, limit=300))
    tok = train_tokenizer(docs, 1024)
    store = build_store(docs, tok, tmp_path_factory.mktemp("stores"), n_proc=2, chunk_docs=32, shard_tokens=20_000,
                        progress=False)
    return docs, tok, store


def table(df):
    import pandas as pd
    return {p: (None if pd.isna(f) else int(f), int(c)) for p, f, c in zip(df.phrase, df.first_step, df["count"])}


def test_exposure_over_store_matches_brute_force_and_memory(corpus):
    docs, tok, store = corpus
    disk = store.stream(128, 8, seed=1)
    mem = TokenStream(docs, tok, seq_len=128, batch_size=8, seed=1)
    window = int(disk.steps_per_epoch) - 1
    items = list(stream_texts(disk, window))
    assert items == list(stream_texts(mem, window))
    ref = brute(PHRASES, items)
    assert sum(c for _, c in ref.values()) > 100 and ref["x y z never"] == (None, 0)
    for n_jobs in (1, 2):
        assert table(exposure_from_stream(PHRASES, disk, window_step=window, n_jobs=n_jobs)) == ref
    assert table(exposure_from_stream(PHRASES, mem, window_step=window)) == ref


def test_window_beyond_one_pass_is_refused(corpus):
    _, _, store = corpus
    s = store.stream(128, 8)
    with pytest.raises(GrokError, match="more than one pass"):
        s.window(int(s.steps_per_epoch) + 2)
    assert s.window(int(s.steps_per_epoch) + 2, allow_repeats=True)["epochs"] > 1
