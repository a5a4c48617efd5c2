"""How fast the hub paths fail when the Hugging Face hub cannot be reached, side by side with a baseline.

Four paths take a hub name: `data.load_tokenizer`, `data.text_source('hf:...')`, `blimp.load_blimp('hf:...')` and
`emergence.HFPythiaSuite(...).model(...)` (a Pythia revision). Offline, each must fail with the project's one-line
`GrokError` (`core.hub_error`) within seconds; the libraries' own retries took 34-38 s and ended in a raw
`ConnectionError` / `OSError`. Each path runs in a fresh process (the hub check is decided once per process), with an
empty `HF_HOME` and `HF_ENDPOINT` pointing at a hub that cannot be reached: `refused` (a closed local port) and
`unresolved` (a host name that no DNS resolves, `.invalid`: what a machine without a network sees for
huggingface.co).

Reported per path: the seconds of the failing call itself (after its imports), the seconds the same process took to
import the module (the baseline, measured side by side, so that a loaded machine slows both), and their ratio; the
median over `--repeats` processes. The target, `call <= 5 s` with the one-line message, is printed as met or not;
the run fails only when the message is wrong (a time is not asserted: it depends on the machine's load).

Run: .venv/bin/python bench/offline_hub.py [--repeats 2] [--endpoints refused,unresolved]
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENDPOINTS = {"refused": "http://127.0.0.1:9", "unresolved": "https://huggingface.invalid"}
CASES = {   # name: (module to import, the call that must fail, the start of its message)
    "load_tokenizer": ("grok_nb.data", "m.load_tokenizer('grok-nb-bench/no-such-tokenizer')", "tokenizer "),
    "text_source": ("grok_nb.data", "list(m.text_source('hf:nyu-mll/blimp'))", "dataset 'hf:"),
    "load_blimp": ("grok_nb.blimp", "m.load_blimp('hf:nyu-mll/blimp')", "load_blimp: dataset 'hf:"),
    "pythia_revision": ("grok_nb.emergence", "m.HFPythiaSuite().model('70m', 0, 1000)", "HFPythiaSuite: checkpoint "),
}
CHILD = """
import importlib, json, sys, time
t0 = time.perf_counter()
m = importlib.import_module(sys.argv[1])
t1 = time.perf_counter()
out = {"import_s": t1 - t0}
try:
    eval(sys.argv[2])
    out["error"] = None
except BaseException as e:
    out.update(error=type(e).__name__, message=str(e))
out["call_s"] = time.perf_counter() - t1
print("@@" + json.dumps(out))
"""
MESSAGE = "the Hugging Face hub cannot be reached (offline): give a local path, or connect to the network"


def run_case(module: str, call: str, endpoint: str, home: Path) -> dict:
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HOME": str(home), "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"): env.pop(k, None)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", CHILD, module, call], env=env, capture_output=True, text=True,
                       timeout=600)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("@@")), None)
    if line is None:
        raise SystemExit(f"offline_hub: {module}: the child failed (rc {r.returncode}):\n{r.stderr[-2000:]}")
    return {**json.loads(line[2:]), "process_s": time.perf_counter() - t, "stderr": r.stderr.strip()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--endpoints", default=",".join(ENDPOINTS), help=f"among {sorted(ENDPOINTS)}")
    a = ap.parse_args(argv)
    bad, slow = [], []
    print(f"{'path':16} {'hub':9} {'call s':>7} {'import s':>8} {'call/import':>11}  error")
    with tempfile.TemporaryDirectory() as tmp:
        for ep in a.endpoints.split(","):
            for name, (module, call, start) in CASES.items():
                runs = [run_case(module, call, ENDPOINTS[ep], Path(tmp) / f"hf-{ep}-{name}-{i}")
                        for i in range(a.repeats)]
                call_s = statistics.median(r["call_s"] for r in runs)
                imp_s = statistics.median(r["import_s"] for r in runs)
                r = runs[0]
                ok = (all(x["error"] == "GrokError" for x in runs) and r["message"].startswith(start)
                      and MESSAGE in r["message"] and "\n" not in r["message"])
                if not ok: bad.append(f"{name} ({ep}): {r['error']}: {str(r.get('message'))[:300]}")
                if call_s > 5: slow.append(f"{name} ({ep}) {call_s:.1f} s")
                print(f"{name:16} {ep:9} {call_s:7.2f} {imp_s:8.2f} {call_s / imp_s:11.2f}  "
                      f"{r['error']}{'' if ok else ' (NOT the one-line message)'}")
    print("target (every call <= 5 s with the one-line message):",
          "met" if not bad and not slow else "NOT met: " + "; ".join(bad + slow))
    if bad: print("wrong errors:\n" + "\n".join(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
