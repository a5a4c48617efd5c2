"""bench/paper_scale_a.sh --dry-run --design a2: the paper-scale study A script (corpus on the CPUs, token store, study
A with compile=True through Dynamo and AOTAutograd) on profile a2's grammar (varied order and harder forms in the
window and the background documents: the default's code path with two switches on) runs end to end at tiny sizes on
the CPU and prints what the GPU run will: each phase's wall time, training tokens/s and MFU, and study A's headline.
(~1 min on 2 busy cores)"""
import json, os, subprocess
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
