"""Tokens/s of grok_nb.train against a bare hand-written PyTorch loop on the same model and batches.

Both run the same steps on the same TokenStream batches with AdamW, clipping and a cosine schedule; runs alternate
(A B A B ...) so drift of the machine affects both. Target: ratio >= 0.95.
"""
import time, argparse, statistics, math
import torch, torch.nn.functional as F
from grok_nb.data import TokenStream, train_tokenizer, text_source
from grok_nb.models import build_model
from grok_nb.train import train, make_optimizer, lr_lambda
from grok_nb.core import data_dir

def bare_loop(model, stream, steps, lr=1e-3):
    opt = make_optimizer(model, lr, 0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(steps))
    model.train()
    for step in range(steps):
        x = stream.batch(step)["input_ids"]
        logits = model(input_ids=x).logits
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), x[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); sched.step(); opt.zero_grad(set_to_none=True)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="llama-tiny"); ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=3); ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    # grok_nb.train seeds and asks for deterministic algorithms on CPU (bit-identical resume); run the bare loop
    # under the same setting so that the ratio measures the loop, not the kernels.
    torch.use_deterministic_algorithms(True, warn_only=True)
    docs = list(text_source(data_dir("english", "c4_en_sample1000.jsonl.gz"), limit=300))
    tok = train_tokenizer(docs, 1024)
    stream = TokenStream(docs, tok, seq_len=64, batch_size=a.batch, seed=0)
    ntok = a.steps * stream.tokens_per_step
    res = {"grok_nb.train": [], "bare loop": []}
    for r in range(a.repeats):
        for name in res:
            model = build_model(a.preset, vocab_size=len(tok), seed=0)
            t = time.perf_counter()
            if name == "bare loop": bare_loop(model, stream, a.steps)
            else: train(model, stream, a.steps, progress=False, log_every=10)
            res[name].append(ntok / (time.perf_counter() - t))
    med = {k: statistics.median(v) for k, v in res.items()}
    print(f"preset {a.preset}, {a.steps} steps x {stream.tokens_per_step} tokens, {a.repeats} alternating repeats, {torch.get_num_threads()} threads")
    for k, v in med.items(): print(f"  {k:14s} {v:9.0f} tokens/s  (runs: {', '.join(f'{x:.0f}' for x in res[k])})")
    print(f"  ratio grok_nb.train / bare loop = {med['grok_nb.train'] / med['bare loop']:.3f}  (target >= 0.95)")

if __name__ == "__main__": main()
