"""The prepared GPU check (run it through `bash bench/gpu_check.sh`; `--dry-run` runs the same code on the CPU at tiny
sizes in seconds).

On one CUDA GPU, in under 5 minutes, it measures and prints as one table:
- llama-35m and llama-130m training through `grok_nb.train.train` in bf16 autocast at sequence length 256: tokens/s
  and MFU (model FLOPs utilisation), eager and under `torch.compile` (compile time reported apart);
- minimal-pair scoring (`grok_nb.scoring`): the packed path against the padded one and the unbatched reference;
- a 2-GPU torchrun run (`grok_nb.train.launch_train`, DDP over nccl) of llama-35m, if two GPUs are visible.

FLOPs per token = 6 N + 12 n_layers d_attn T (PaLM's count, Chowdhery et al. 2022, appendix B): N is every parameter
that multiplies an activation (all of them but the input token and position embeddings, which are lookups; the LM
head counts), d_attn = heads x head dim, T the sequence length, the attention term counted for the full T x T (not
halved for the causal mask). MFU = FLOPs per token x tokens/s / the GPU's dense bf16 peak, read from the table
`PEAK_BF16_TFLOPS` by the GPU's name (or from GPU_PEAK_TFLOPS in the environment, which wins).
"""
from __future__ import annotations
import argparse, contextlib, copy, gzip, json, os, sys, time
from pathlib import Path

# dense (non-sparse) bf16 tensor-core peaks from NVIDIA's data sheets, TFLOP/s; matched in order, first hit wins
PEAK_BF16_TFLOPS = [
    ("GH200", 989.4), ("H200", 989.4), ("H100 PCIe", 756.0), ("H100 NVL", 835.0), ("H100", 989.4), ("H800", 989.4),
    ("B200", 2250.0), ("A100", 312.0), ("A800", 312.0), ("L40S", 362.1), ("L40", 181.0), ("L4", 121.0),
    ("A10G", 70.0), ("A10", 125.0), ("RTX 4090", 165.2), ("RTX A6000", 154.8), ("A6000", 154.8),
]


def peak_bf16_flops(gpu_name: str, env: dict | None = None) -> tuple[float | None, str]:
    "(peak FLOP/s, where it came from) for a GPU name; (None, why) when unknown."
    env = os.environ if env is None else env
    if env.get("GPU_PEAK_TFLOPS"): return float(env["GPU_PEAK_TFLOPS"]) * 1e12, "GPU_PEAK_TFLOPS"
    for key, tf in PEAK_BF16_TFLOPS:
        if key.lower() in gpu_name.lower(): return tf * 1e12, f"table: {key}"
    return None, f"unknown GPU {gpu_name!r}: set GPU_PEAK_TFLOPS"


def matmul_params(model) -> int:
    "Parameters that multiply activations: all (each counted once) but the input token and position embeddings."
    import torch
    seen, n = set(), 0
    lookups = {id(p) for p in model.get_input_embeddings().parameters()}
    head = model.get_output_embeddings()
    lookups -= {id(p) for p in head.parameters()} if head is not None else set()    # a tied head is a matmul
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.Embedding) and name.endswith(("wpe", "embed_positions")):
            lookups |= {id(p) for p in mod.parameters()}
    for p in model.parameters():
        if id(p) in seen or id(p) in lookups: continue
        seen.add(id(p))
        n += p.numel()
    return n


def train_flops_per_token(model, seq_len: int) -> float:
    "Training FLOPs per token (forward + backward): 6 N + 12 n_layers d_attn T (see the module docstring)."
    cfg = model.config
    layers = getattr(cfg, "num_hidden_layers", None) or cfg.n_layer
    heads = getattr(cfg, "num_attention_heads", None) or cfg.n_head
    head_dim = getattr(cfg, "head_dim", None) or (getattr(cfg, "hidden_size", None) or cfg.n_embd) // heads
    return 6.0 * matmul_params(model) + 12.0 * layers * heads * head_dim * seq_len


def step_end_s(record: dict, targets_per_step: int) -> float:
    """Seconds from the start of `train`'s loop to the end of the record's step: `train` logs `tokens_per_s` as the
    target tokens so far over the time so far, so step k ended `k * targets_per_step / tokens_per_s` seconds in."""
    return record["step"] * targets_per_step / record["tokens_per_s"]


def steady_steps_per_s(history: list[dict], warmup: int, targets_per_step: int) -> float:
    "Steps per second after the first `warmup` steps, from `train`'s log (`log_every=1`, a constant targets count)."
    recs = sorted((r for r in history if "tokens_per_s" in r), key=lambda r: r["step"])
    a = next(r for r in recs if r["step"] == warmup)
    b = recs[-1]
    assert b["step"] > a["step"], f"need steps after the warmup {warmup}, got the last step {b['step']}"
    return (b["step"] - a["step"]) / (step_end_s(b, targets_per_step) - step_end_s(a, targets_per_step))


class RandomTokens:
    "Batch source of uniform random token ids `[batch, seq_len]` (loss on every next token), a pure function of step."
    def __init__(self, vocab: int, seq_len: int, batch_size: int, seed: int = 0):
        self.vocab, self.seq_len, self.batch_size, self.seed = vocab, seq_len, batch_size, seed
        self.fingerprint = f"random-{vocab}-{seq_len}-{batch_size}-{seed}"

    def batch(self, step: int) -> dict:
        import torch
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + step)
        return {"input_ids": torch.randint(0, self.vocab, (self.batch_size, self.seq_len), generator=g)}


def train_row(preset, *, device, seq_len, batch, steps, warmup, compile=False, nproc=1, overrides=None) -> dict:
    "Train `preset` on random tokens; steady tokens/s (input tokens) and FLOPs per token."
    from grok_nb.models import build_model
    from grok_nb.train import train, launch_train
    model = build_model(preset, seed=0, seq_len=seq_len, **(overrides or {}))
    src = RandomTokens(model.config.vocab_size, seq_len, batch)
    kw = dict(lr=1e-4, weight_decay=0.1, warmup=0, schedule="constant", device=device,
              dtype="bf16", log_every=1, progress=False, compile=compile, seed=0)
    t0 = time.perf_counter()
    if nproc > 1: res = launch_train(model, src, warmup + steps, nproc=nproc, timeout=240, **kw)
    else: res = train(model.to(device), src, warmup + steps, **kw)
    wall = time.perf_counter() - t0
    hist = [r for r in res["history"] if "tokens_per_s" in r]
    targets = batch * (seq_len - 1)                                # every next token is a target
    sps = steady_steps_per_s(hist, warmup, targets)
    first = step_end_s(hist[0], targets)                          # seconds to the end of step 1 (compiling, if any)
    return dict(tokens_per_s=sps * batch * seq_len, flops_per_token=train_flops_per_token(model, seq_len),
                first_step_s=first, wall_s=wall, final_loss=hist[-1]["loss"], params=sum(p.numel() for p in
                model.parameters()))


def scoring_pairs(n: int, dry: bool):
    "BLiMP pairs from the repository's data/blimp when present (a BPE trained on them), else random token pairs."
    from grok_nb.core import data_dir
    blimp = data_dir("blimp", must_exist=False)
    files = sorted(blimp.glob("*.jsonl.gz")) if blimp.exists() else []
    if files and not dry:
        from grok_nb.data import train_tokenizer
        from grok_nb.scoring import encode_texts
        rows = []
        for f in files:
            with gzip.open(f, "rt") as fh: rows += [json.loads(line) for _, line in zip(range(-(-n // len(files))), fh)]
        texts = [r["sentence_good"] for r in rows] + [r["sentence_bad"] for r in rows]
        tok = train_tokenizer(texts, 1024)
        return encode_texts(tok, texts), f"{len(rows)} BLiMP pairs (67 paradigms)"
    import random
    rng, seqs = random.Random(0), []
    for _ in range(n):
        s = [1] + [rng.randrange(2, 1000) for _ in range(rng.randrange(8, 20))]
        i = rng.randrange(1, len(s))
        seqs.append((s, s[:i] + [rng.randrange(2, 1000)] + s[i + 1:]))
    return [g for g, _ in seqs] + [b for _, b in seqs], f"{n} random-token pairs (no BLiMP data)"


def scoring_rows(device, dry: bool) -> list[dict]:
    "Pairs/s of the unbatched reference (on a subset), the padded and the packed path; fp32, max |diff|."
    import numpy as np, torch
    from grok_nb.models import build_model
    from grok_nb.scoring import packed_token_logprobs, token_logprobs_batched
    seqs, what = scoring_pairs(16 if dry else 2000, dry)
    n_pairs = len(seqs) // 2
    kw = dict(d_model=32, n_layers=1, n_heads=2, d_ff=64, vocab_size=1024) if dry else dict(vocab_size=1024)
    model = build_model("llama-35m", seed=0, **kw).to(device).eval()
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    def timed(f):
        f()
        sync()
        t = time.perf_counter()
        out = f()
        sync()
        return out, time.perf_counter() - t
    sub = seqs[: min(len(seqs), 400)]
    def one(s):
        lp = torch.log_softmax(model(torch.tensor([s], device=device)).logits[0, :-1].float(), -1)
        return lp.gather(-1, torch.tensor(s[1:], device=device)[:, None]).sum().item()
    with torch.no_grad(): ref, t_ref = timed(lambda: [one(s) for s in sub])
    ref = np.array(ref)
    out = [dict(check="scoring", model="llama-35m fp32", setting="unbatched reference", rate=len(sub) / 2 / t_ref,
                unit="pairs/s", note=what)]
    for name, f in [("padded, batches of 256", lambda: token_logprobs_batched(model, seqs, 256)),
                    ("packed, 256 per pass", lambda: packed_token_logprobs(model, seqs, 256))]:
        lps, t = timed(f)
        diff = float(np.abs(np.array([x.sum() for x in lps[:len(sub)]]) - ref).max())
        out.append(dict(check="scoring", model="llama-35m fp32", setting=name, rate=n_pairs / t, unit="pairs/s",
                        note=f"max |diff| vs unbatched {diff:.1e}"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes, seconds: checks the code, not the GPU")
    ap.add_argument("--budget", type=float, default=270.0, help="seconds; rows that would not fit are skipped")
    ap.add_argument("--json", default=None, help="also write the table here")
    a = ap.parse_args(argv)
    import torch, transformers
    dry = a.dry_run
    if not dry and not torch.cuda.is_available():
        print("gpu_check: no CUDA device is visible; running the CPU dry run instead (bash bench/gpu_check.sh on a GPU "
              "machine measures the GPU)")
        dry = True
    t_start = time.perf_counter()
    left = lambda: a.budget - (time.perf_counter() - t_start)
    device = "cpu" if dry else "cuda"
    n_gpu = torch.cuda.device_count() if not dry else 0
    name = torch.cuda.get_device_name(0) if not dry else "CPU (dry run)"
    peak, peak_src = (None, "dry run: no peak") if dry else peak_bf16_flops(name)
    if not dry and not torch.cuda.is_bf16_supported():
        print(f"gpu_check: {name} has no bf16 support; the training rows need bf16")
    print(f"gpu_check: {name} x{max(n_gpu, 1)}, torch {torch.__version__} (CUDA {torch.version.cuda}), transformers "
          f"{transformers.__version__}; bf16 peak {'n/a' if peak is None else f'{peak / 1e12:.1f} TFLOP/s'} "
          f"({peak_src}); budget {a.budget:.0f} s", flush=True)
    if dry:
        sizes = dict(seq_len=16, batch=4, steps=2, warmup=2, overrides=dict(d_model=32, n_layers=1, n_heads=2, d_ff=64,
                                                                            vocab_size=128))
        presets = ["llama-35m"]
    else:
        sizes = dict(seq_len=256, batch=64, steps=30, warmup=10, overrides=None)
        presets = ["llama-35m", "llama-130m"]
    rows = []
    def rate(row): return "" if row.get("rate") is None else f"{row['rate']:,.0f} {row['unit']}"
    def add(row):
        rows.append(row)
        print(f"  {row['check']:8s} {row['model']:18s} {row['setting']:26s} {rate(row):>18s} {row.get('note', '')}",
              flush=True)
    def train_check(preset, setting, need_s, **kw):
        label = preset + ("" if not dry else " (tiny)")
        if left() < need_s:
            add(dict(check="train", model=label, setting=setting, note=f"skipped: {left():.0f} s of the budget left"))
            return
        try:
            r = train_row(preset, device=device, **sizes, **kw)
        except Exception as e:                                     # one failing row must not lose the table
            add(dict(check="train", model=label, setting=setting, note=f"FAILED: {type(e).__name__}: {e}"[:200]))
            return
        flops = r["flops_per_token"] * r["tokens_per_s"]
        add(dict(check="train", model=label, setting=setting, rate=r["tokens_per_s"], unit="tokens/s",
                 mfu=flops / peak if peak else None,
                 note=f"{flops / 1e12:.3g} TFLOP/s, {r['flops_per_token'] / 1e6:.1f} MFLOP/token, "
                      f"first step {r['first_step_s']:.1f} s, loss {r['final_loss']:.2f}"))
    for p in presets: train_check(p, "bf16 eager", 20)
    if left() > 20:
        try:
            for r in scoring_rows(device, dry): add(r)
        except Exception as e:
            add(dict(check="scoring", model="llama-35m", setting="", note=f"FAILED: {type(e).__name__}: {e}"[:200]))
    for p in presets:
        if dry: add(dict(check="train", model=p + " (tiny)", setting="bf16 torch.compile",
                         note="skipped in the dry run (compiling takes minutes on a CPU)"))
        else: train_check(p, "bf16 torch.compile", 100 if p == "llama-130m" else 70, compile=True)
    if n_gpu >= 2 or dry:
        train_check(presets[0], "bf16 torchrun 2 " + ("CPU procs" if dry else "GPUs"), 40, nproc=2)
    else:
        add(dict(check="train", model=presets[0], setting="bf16 torchrun 2 GPUs", note=f"skipped: {n_gpu} GPU visible"))
    print("\n| check | model | setting | throughput | MFU | note |\n|---|---|---|---|---|---|")
    for r in rows:
        mfu = "" if r.get("mfu") is None else f"{r['mfu']:.1%}"
        print(f"| {r['check']} | {r['model']} | {r['setting']} | {rate(r)} | {mfu} | {r.get('note', '')} |")
    print(f"\n{name}; bf16 peak {'n/a' if peak is None else f'{peak / 1e12:.1f} TFLOP/s'} ({peak_src}); "
          f"{time.perf_counter() - t_start:.0f} s in all")
    if a.json:
        Path(a.json).write_text(json.dumps(dict(gpu=name, peak_flops=peak, peak_source=peak_src, rows=rows), indent=1))
    return rows


if __name__ == "__main__":
    sys.exit(1 if any("FAILED" in r.get("note", "") for r in main()) else 0)
