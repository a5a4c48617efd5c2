"""Run by tests/test_ddp.py: the same tiny training under torchrun (2 ranks, gloo) or in one process."""
import sys, torch
from grok_nb.models import build_model
from grok_nb.train import train

class Source:
    fingerprint = "ddp-test"
    def batch(self, step):
        g = torch.Generator().manual_seed(7 + step)
        start = torch.randint(0, 64, (8, 1), generator=g)
        return {"input_ids": (start + torch.arange(16)) % 64}

if __name__ == "__main__":
    out = sys.argv[1]
    torch.set_num_threads(1)
    model = build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16)
    res = train(model, Source(), 5, lr=3e-3, progress=False, log_every=1)
    import torch.distributed as dist
    if not dist.is_initialized() or dist.get_rank() == 0:
        torch.save({"state": res["model"].state_dict(), "losses": [r["loss"] for r in res["history"]]}, out)
    if dist.is_initialized(): dist.destroy_process_group()
