"""bench/paper_scale_a.sh --dry-run --design a2: the paper-scale study A script (corpus on the CPUs, token store, study
A with compile=True through Dynamo and AOTAutograd) on profile a2's grammar (varied order and harder forms in the
window and the background documents: the default's code path with two switches on) runs end to end at tiny sizes on
the CPU and prints what the GPU run will: each phase's wall time, training tokens/s and MFU, and study A's headline.
(~1 min on 2 busy cores)"""
import json, os, subprocess
import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def test_paper_scale_a_dry_run(tmp_path):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run(["bash", str(ROOT / "bench" / "paper_scale_a.sh"), "--dry-run", "--design", "a2",
                        "--workdir", str(tmp_path)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = r.stdout
    for line in ("  corpus (embedded grammar): ", "  tokenizer (word-level, 8,192): ", "  token store (",
                 "  study A kernel: ", "total ", "training: ", "MFU n/a (no GPU: the dry run is on the CPU)"):
        assert line in out, (line, out)
    assert "NOT the bench one" not in out, out                             # the study opened the bench's store
    head = json.loads(out.split("study A headline: ", 1)[1].splitlines()[0])
    assert head["n_phenomena"] == 5 and 0 <= head["final_accuracy"] <= 1, head
    (run,) = (tmp_path / "runs" / "grokking").iterdir()
    stored = json.loads((run / "params.json").read_text())
    params = stored["params"]
    assert (stored["execution"]["compile"], params["preset"], params["steps"]) == (True, "llama-tiny", 20), stored
    assert (params["order_share"], params["hard_forms"]) == (0.5, True), params            # profile a2's grammar
    assert 'design a2 {"order_share": 0.5, "hard_forms": true}' in out, out
    assert json.loads((run / "results.json").read_text())["steps"] == [0, 10, 20]


@pytest.mark.parametrize("study", ["b", "c"])
def test_paper_scale_bc_dry_run(tmp_path, study):
    """bench/paper_scale_{b,c}.sh --dry-run: the one-GPU scripts of studies B and C run their grid end to end at tiny
    sizes on the CPU (each run a real study notebook) and print each run's wall time, tokens/s and MFU line, and a
    headline that agrees with the runs' own results.json (~1 min each on 2 busy cores)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    r = subprocess.run(["bash", str(ROOT / "bench" / f"paper_scale_{study}.sh"), "--dry-run", "--workdir",
                        str(tmp_path)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = r.stdout
    assert out.count("MFU n/a (no GPU: the dry run is on the CPU)") == 2 and "total " in out, out
    head = json.loads(out.split(f"study {study.upper()} headline: ", 1)[1].splitlines()[0])
    name = "sparse_attention" if study == "b" else "compartments"
    runs = [json.loads((d / "results.json").read_text()) | {"p": json.loads((d / "params.json").read_text())["params"]}
            for d in sorted((tmp_path / "runs" / name).iterdir())]
    assert len(runs) == 2, runs
    if study == "b":
        for res in runs:
            S, hit = res["p"]["n_cells"], res["success_step"] is not None
            assert head[f"S={S}"]["succeeded"] == f"{int(hit)} of 1", (head, res["success_step"])
    else:
        w = {r["p"]["c"]: r["headline"]["final_val_within"] for r in runs}
        assert head["gpt-tiny c=2"]["tax_vs_c1"] == round(w[2] - w[1], 3), (head, w)
