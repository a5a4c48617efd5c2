"""bench/gpu_check.sh: its FLOP count and peak table against hand-worked numbers, its throughput arithmetic, and the
whole script in its CPU dry run (tiny sizes, seconds): it must run end to end and print its one table."""
import importlib.util, json, os, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "bench" / "gpu_check.py")
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)


def test_flops_per_token_llama_by_hand():
    from grok_nb.models import build_model
    m = build_model("llama-tiny", vocab_size=100, d_model=32, n_heads=2, n_layers=1, d_ff=64, seq_len=16)
    # embedding 100*32 (a lookup: not counted); q k v o 4*32*32 = 4096; gate up down 3*32*64 = 6144; two norms 64,
    # final norm 32; LM head 100*32 = 3200 -> N = 13,536. Attention: 12 * 1 layer * 32 * T=16 = 6,144.
    assert gpu_check.matmul_params(m) == 4096 + 6144 + 64 + 32 + 3200 == 13536
    assert gpu_check.train_flops_per_token(m, 16) == 6 * 13536 + 12 * 1 * 32 * 16 == 87360


def test_flops_per_token_gpt2_by_hand():
    from grok_nb.models import build_model
    m = build_model("gpt-tiny", vocab_size=100, d_model=32, n_heads=2, n_layers=1, seq_len=16)
    # wte 3200 and wpe 16*32 are lookups; ln_1 64, c_attn 32*96+96, c_proj 32*32+32, ln_2 64, c_fc 32*128+128,
    # mlp c_proj 128*32+32, ln_f 64, untied lm_head 3200 (no bias)
    n = 64 + (32 * 96 + 96) + (32 * 32 + 32) + 64 + (32 * 128 + 128) + (128 * 32 + 32) + 64 + 3200
    assert n == 15968
    assert gpu_check.matmul_params(m) == n
    assert gpu_check.train_flops_per_token(m, 16) == 6 * n + 12 * 32 * 16


def test_peak_table():
    peak = lambda name, env={}: gpu_check.peak_bf16_flops(name, env)[0]
    assert peak("NVIDIA H100 80GB HBM3") == 989.4e12                 # SXM
    assert peak("NVIDIA H100 PCIe") == 756.0e12
    assert peak("NVIDIA H200") == 989.4e12
    assert peak("NVIDIA A100-SXM4-80GB") == 312.0e12
    assert peak("NVIDIA L40S") == pytest.approx(362.1e12)              # not the L4's
    assert peak("NVIDIA L4") == 121.0e12
    assert peak("NVIDIA A10G") == 70.0e12 and peak("NVIDIA A10") == 125.0e12
    assert peak("Tesla V100-SXM2-16GB") is None
    assert "GPU_PEAK_TFLOPS" in gpu_check.peak_bf16_flops("Tesla V100-SXM2-16GB", {})[1]
    assert peak("Tesla V100-SXM2-16GB", {"GPU_PEAK_TFLOPS": "125"}) == 125e12


def test_steady_steps_per_s_by_hand():
    # 100 targets a step; step 1 ends at 2.0 s (a slow first step), step 3 at 2.5 s, step 5 at 3.0 s:
    # train logs tokens_per_s = 100 k / t -> 50, 120, 166.67; after a warmup of 1 step: 4 steps in 1 s
    hist = [{"step": 1, "tokens_per_s": 100 / 2.0}, {"step": 3, "tokens_per_s": 300 / 2.5},
            {"step": 5, "tokens_per_s": 500 / 3.0}, {"step": 5, "event": "eval"}]
    assert gpu_check.step_end_s(hist[1], 100) == pytest.approx(2.5)
    assert gpu_check.steady_steps_per_s(hist, 1, 100) == pytest.approx(4.0)
    assert gpu_check.steady_steps_per_s(hist, 3, 100) == pytest.approx(4.0)


def test_dry_run(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1"}
    out = tmp_path / "table.json"
    r = subprocess.run(["bash", str(ROOT / "bench" / "gpu_check.sh"), "--dry-run", "--json", str(out)], env=env,
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "| check | model | setting | throughput | MFU | note |" in r.stdout
    rows = json.loads(out.read_text())["rows"]
    assert not [x for x in rows if "FAILED" in x.get("note", "")], rows
    train = [x for x in rows if x["check"] == "train" and x.get("rate")]
    assert {x["setting"] for x in train} == {"bf16 eager", "bf16 torchrun 2 CPU procs"}
    assert all(x["rate"] > 0 and x["unit"] == "tokens/s" for x in train)
    scoring = {x["setting"]: x for x in rows if x["check"] == "scoring"}
    assert set(scoring) == {"unbatched reference", "padded, batches of 256", "packed, 256 per pass"}
    for k in ("padded, batches of 256", "packed, 256 per pass"):           # the packed path equals the reference
        assert float(scoring[k]["note"].split()[-1]) < 1e-4
