"""Per-run overhead of executing a study through papermill (grok_nb.sweep.run_study: kernel start, parameter
injection, writing run.ipynb) against running the same code in-process, side by side. Reported as seconds per run
and next to the length of a tiny real run (the sparse-attention study at its defaults)."""
import os, time, tempfile, statistics
from pathlib import Path
import nbformat

BODY = "import time\nfrom grok_nb.core import save_json\ntime.sleep(sleep)\nsave_json({'y': x * x}, run_dir + '/results.json')"

def main(n=5, sleep=0.0):
    tmp = Path(tempfile.mkdtemp())
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell("x = 2\nsleep = 0.0\nrun_dir = None"); p.metadata["tags"] = ["parameters"]
    nb.cells = [p, nbformat.v4.new_code_cell(BODY)]; nb.metadata["kernelspec"] = {"name": "python3", "display_name": "python3", "language": "python"}
    (tmp / "studies").mkdir(); nbformat.write(nb, tmp / "studies" / "toy.ipynb")
    os.environ["GROK_NB_STUDIES_DIR"] = str(tmp / "studies")
    from grok_nb.sweep import run_study
    pm, inproc = [], []
    for i in range(n):
        t = time.perf_counter(); rec = run_study("toy", {"x": i}, runs_dir=tmp / "runs"); pm.append(time.perf_counter() - t)
        assert rec["status"] == "finished", rec
        d = tmp / "inproc" / str(i); d.mkdir(parents=True)
        t = time.perf_counter(); exec(BODY, {"x": i, "sleep": sleep, "run_dir": str(d)}); inproc.append(time.perf_counter() - t)
    a, b = statistics.median(pm), statistics.median(inproc)
    print(f"{n} runs of a trivial study, alternating")
    print(f"  papermill (run_study)  {a:7.3f} s/run")
    print(f"  in-process             {b:7.3f} s/run")
    print(f"  overhead               {a - b:7.3f} s/run; next to a default sparse-attention run (~26 s on 1 thread) that is {100 * (a - b) / 26:.0f}%")

if __name__ == "__main__": main()
