"""Training steps/s on study B's synthetic tasks: the full computation against the loss-position fast path
(`grok_nb.loss_positions.fast_loss_positions`), side by side on the same model, task, batches and steps.

Both run `grok_nb.train.train` as the sparse-attention study calls it (AdamW 1e-3, constant schedule, weight decay 0,
batch 64, a log record every step, no evaluation), on the study's transformer (`grok_nb.mixers`: GPT-2, 4 heads of
16, MLP 4x) and the blind sparse linear map with s = 2, at S = 8, 12, 16 and 32, plus a two-layer model and a run
under the attention-bias intervention. Runs alternate (full, fast, full, fast, ...) and each timing is the best of
`--repeats`; the two paths' losses must agree within 1e-4 (checked).
"""
import argparse, contextlib, copy, time
import torch
from grok_nb.attention import attention_bias
from grok_nb.loss_positions import fast_loss_positions
from grok_nb.mixers import build_mixer_model
from grok_nb.synthetic import SparseLinearMap, target_bias
from grok_nb.train import train

CONFIGS = [  # (n_cells, sparsity, n_layers, bias beta)
    (8, 2, 1, 0.0), (12, 2, 1, 0.0), (16, 2, 1, 0.0), (32, 2, 1, 0.0), (12, 2, 1, 8.0), (12, 2, 2, 0.0)]


def run(model, src, steps: int, bias: float) -> tuple[float, list[float]]:
    "Seconds for `steps` training steps, and the losses."
    inner = getattr(model, "module", model)
    ctx = attention_bias(inner, {0: target_bias(src.attn_target, bias)}) if bias else contextlib.nullcontext()
    with ctx:
        t = time.perf_counter()
        h = train(model, src, steps, lr=1e-3, weight_decay=0.0, warmup=0, schedule="constant", device="cpu", seed=0,
                  log_every=1, progress=False)["history"]
        dt = time.perf_counter() - t
    return dt, [r["loss"] for r in h if "loss" in r]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--configs", type=int, default=len(CONFIGS), help="run only the first N configurations")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    print(f"{a.steps} steps, best of {a.repeats}, {a.threads} thread(s); blind sparse linear map, batch 64, d 64, "
          "4 heads")
    print(f"{'cells':>5s} {'s':>2s} {'layers':>6s} {'bias':>5s} {'seq':>4s} {'loss pos':>8s} {'full steps/s':>13s} "
          f"{'fast steps/s':>13s} {'ratio':>6s} {'max |dloss|':>12s}")
    for S, s, L, beta in CONFIGS[:a.configs]:
        src = SparseLinearMap(S, s, batch_size=64, seed=0)
        model = build_mixer_model("transformer", src.vocab_size, d_model=64, n_layers=L, seq_len=src.seq_len,
                                  n_heads=4, seed=0)
        best = {"full": float("inf"), "fast": float("inf")}
        losses = {}
        for _ in range(a.repeats):
            for kind in ("full", "fast"):
                m = copy.deepcopy(model)
                dt, losses[kind] = run(fast_loss_positions(m, src) if kind == "fast" else m, src, a.steps, beta)
                best[kind] = min(best[kind], dt)
        diff = max(abs(x - y) for x, y in zip(losses["full"], losses["fast"]))
        assert diff < 1e-4, f"S={S}: fast and full losses differ by {diff}"
        n_pos = len(src.query_pos.flatten())
        print(f"{S:5d} {s:2d} {L:6d} {beta:5g} {src.seq_len:4d} {n_pos:8d} {a.steps / best['full']:13.1f} "
              f"{a.steps / best['fast']:13.1f} {best['full'] / best['fast']:5.2f}x {diff:12.1e}")


if __name__ == "__main__": main()
