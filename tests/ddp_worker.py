"""Run by tests/test_ddp.py: the same tiny training under torchrun (2 ranks, gloo) or in one process.
`random` trains on a source that hands out whole batches (each rank slices its rows); `stream` on a TokenStream,
whose `batch(step, rows=...)` lets each rank read only its own rows (the rows asked for are recorded)."""
import sys, json, torch
from grok_nb.models import build_model
from grok_nb.train import train
from grok_nb.data import TokenStream, train_tokenizer

class Source:
    fingerprint = "ddp-test"
    def batch(self, step):
        g = torch.Generator().manual_seed(7 + step)
        start = torch.randint(0, 64, (8, 1), generator=g)
        return {"input_ids": (start + torch.arange(16)) % 64}

class RecordingStream(TokenStream):
    "A TokenStream that records which rows each call asked for."
    asked = []
    def batch(self, step, rows=None):
        RecordingStream.asked.append(rows)
        return super().batch(step, rows=rows)

def stream_source():
    docs = [" ".join(f"w{(i * 7 + j) % 50}" for j in range(5 + i % 9)) for i in range(200)]
    tok = train_tokenizer(docs, 64, kind="word")
    return RecordingStream(docs, tok, seq_len=16, batch_size=8, seed=3)

if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    torch.set_num_threads(1)
    model = build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16)
    res = train(model, Source() if kind == "random" else stream_source(), 5, lr=3e-3, progress=False, log_every=1)
    import torch.distributed as dist
    rank = dist.get_rank() if dist.is_initialized() else 0
    with open(f"{out}.rows{rank}.json", "w") as f: json.dump(RecordingStream.asked, f)
    if rank == 0:
        torch.save({"state": res["model"].state_dict(), "losses": [r["loss"] for r in res["history"]]}, out)
    if dist.is_initialized(): dist.destroy_process_group()
