"""Minimal-pair scoring speed: grok_nb.scoring (batched, length-sorted) vs the unbatched one-sentence-at-a-time
reference, and vs minicons' IncrementalLMScorer when minicons is importable. Same model, same pairs, side by side."""
import time, argparse, gzip, json
import numpy as np, torch
from grok_nb.core import PROJECT_ROOT
from grok_nb.data import train_tokenizer, text_source
from grok_nb.models import build_model
from grok_nb.scoring import sequence_logprobs

def unbatched(model, tok, texts):
    out = []
    with torch.no_grad():
        for t in texts:
            ids = [tok.bos_token_id] + tok(t, add_special_tokens=False)["input_ids"]
            lp = torch.log_softmax(model(torch.tensor([ids])).logits[0, :-1], -1)
            out.append(lp.gather(-1, torch.tensor(ids[1:])[:, None]).sum().item())
    return np.array(out)

def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--pairs", type=int, default=500); a = ap.parse_args()
    shared = PROJECT_ROOT.parent / "shared/data"
    pairs = [json.loads(l) for l in gzip.open(shared / "blimp/determiner_noun_agreement_1.jsonl.gz", "rt")][: a.pairs]
    texts = [p["sentence_good"] for p in pairs] + [p["sentence_bad"] for p in pairs]
    tok = train_tokenizer(list(text_source(shared / "english/c4_en_sample1000.jsonl.gz", limit=300)), 1024)
    model = build_model("llama-tiny", vocab_size=len(tok), seed=0).eval()
    t = time.perf_counter(); ref = unbatched(model, tok, texts); t_ref = time.perf_counter() - t
    t = time.perf_counter(); got = sequence_logprobs(model, tok, texts, batch_size=128); t_b = time.perf_counter() - t
    assert np.allclose(ref, got, atol=1e-3), np.abs(ref - got).max()
    print(f"{a.pairs} BLiMP pairs ({len(texts)} sentences), llama-tiny, {torch.get_num_threads()} threads")
    print(f"  unbatched reference  {a.pairs / t_ref:8.1f} pairs/s")
    print(f"  grok_nb.scoring      {a.pairs / t_b:8.1f} pairs/s   ratio {t_ref / t_b:.1f}x  (max |diff| {np.abs(ref - got).max():.2e})")
    try:
        from minicons import scorer
    except ImportError:
        print("  minicons: not installed (pip install minicons --no-deps; it must not replace torch) — comparison skipped")
        return
    import tempfile
    d = tempfile.mkdtemp(); model.save_pretrained(d); tok.save_pretrained(d)
    s = scorer.IncrementalLMScorer(d, "cpu")
    t = time.perf_counter()
    for i in range(0, len(texts), 128): s.sequence_score(texts[i:i + 128], reduction=lambda x: x.sum(0).item(), bos_token=True)
    t_m = time.perf_counter() - t
    print(f"  minicons             {a.pairs / t_m:8.1f} pairs/s   grok_nb / minicons = {t_m / t_b:.1f}x  (target >= 3x)")

if __name__ == "__main__": main()
