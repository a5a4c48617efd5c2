"""DDP under torchrun (2 CPU processes, gloo) matches the single-process run of the same global batch, for a source
that hands out whole batches and for a TokenStream from which each rank reads only its own rows."""
import os, sys, json, subprocess
from pathlib import Path
import pytest, torch

HERE = Path(__file__).parent

@pytest.mark.parametrize("kind", ["random", "stream"])
def test_ddp_two_processes_match_single(tmp_path, kind):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1"}
    single, ddp = tmp_path / "single.pt", tmp_path / "ddp.pt"
    subprocess.run([sys.executable, str(HERE / "ddp_worker.py"), kind, str(single)], check=True, env=env, timeout=300)
    torchrun = Path(sys.executable).parent / "torchrun"
    subprocess.run([str(torchrun), "--standalone", "--nproc_per_node", "2", str(HERE / "ddp_worker.py"), kind, str(ddp)],
                   check=True, env=env, timeout=300)
    a, b = torch.load(single), torch.load(ddp)
    assert len(a["losses"]) == len(b["losses"]) == 5
    for x, y in zip(a["losses"], b["losses"]):
        assert abs(x - y) < 1e-4, (a["losses"], b["losses"])
    for k in a["state"]:
        torch.testing.assert_close(a["state"][k], b["state"][k], atol=1e-5, rtol=1e-4)
    # and training actually moved the weights
    from grok_nb.models import build_model
    fresh = build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16).state_dict()
    assert max((fresh[k] - a["state"][k]).abs().max().item() for k in fresh) > 1e-3
    if kind == "stream":                                               # each rank read only its half of every batch
        rows = [json.loads(Path(f"{ddp}.rows{r}.json").read_text()) for r in (0, 1)]
        assert rows[0] == [[0, 4]] * 5 and rows[1] == [[4, 8]] * 5, rows
        assert json.loads(Path(f"{single}.rows0.json").read_text()) == [None] * 5
