"""Check JupyterLab in headless Chromium, as a researcher works in it (`make lab-check`).

Starts JupyterLab from this venv on 127.0.0.1 with a random token, in a temporary folder that holds a byte-identical
copy of `nbs/emergence/study_sparse_attention.ipynb` (the fastest study, at its defaults) and of `settings.ini`, with
the configuration `make lab` uses (.jupyter/jupyter_server_config.py, so the save hook acts as it does in the
repository); runs go to that folder (GROK_NB_WORKSPACE), so nothing
in the repository changes. Then it drives Debian's Chromium through chromedriver (selenium; no browser is downloaded:
`apt-get install -y chromium chromium-driver`):

1. the notebook opens and its kernel starts; Run > Run All Cells from Lab's menu bar;
2. while it runs, a tqdm progress widget shows (the training bar), and it ends full (the run stops early);
3. when every cell has run: each figure the run saved under `runs/sparse_attention/<id>/figures/` is shown as an
   image output with the same PNG bytes, and no output is an error or stderr box and no dialog is open;
4. File > Save Notebook writes the notebook as the repository stores it (`make lab`'s hook,
   grok_nb.notebooks.lab_pre_save): no outputs, no execution counts, byte for byte the committed file, so a save
   leaves the tree clean.

Screenshots go to --shots (default: a temporary folder): `lab_training.png` while the bar moves, `lab_study.png` at the
end (after the save; file browser and code collapsed, scrolled to the training cell's bar with the first figure below
it). Exits 1 when a check fails; then Lab's log and the run stay in the temporary folder it names.

Usage: python docs/lab_check.py [--shots DIR] [--timeout 600] [--chromium /usr/bin/chromium]
       [--chromedriver /usr/bin/chromedriver]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _browser import Report, browser, wait  # docs/ is the script's folder, first on sys.path

ROOT = Path(__file__).resolve().parents[1]
STUDY = "sparse_attention"
NB_REL = f"nbs/emergence/study_{STUDY}.ipynb"
HOOK_FILE = Path.home() / ".jupyter" / "jupyter_server_config.py"
LAB_CONFIG = ROOT / ".jupyter" / "jupyter_server_config.py"     # what `make lab` starts Lab with
# Lab's own settings for the check: every cell kept in the DOM (no windowing), no news or update requests
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                          "checkForUpdates": False},
}

_STATE_JS = """
const nb = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
if (!nb) return null;
const prompts = [...nb.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')].map(p => p.textContent.trim());
const bars = [...nb.querySelectorAll('.widget-hprogress, .widget-vprogress')].map(b => {
  const box = b.closest('.widget-hbox') || b.parentElement;
  return box ? box.innerText.replace(/\\s+/g, ' ').trim() : '';
});
const fills = [...nb.querySelectorAll('.widget-hprogress, .widget-vprogress')].map(b => {
  const pb = b.querySelector('.progress-bar');
  return pb ? parseFloat(pb.style.width || pb.style.height) : null;
});
const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
return {
  prompts: prompts,
  bars: bars,
  fills: fills,
  status: ind ? ind.getAttribute('data-status') : null,
  images: [...nb.querySelectorAll('.jp-OutputArea-output img')].map(i => i.getAttribute('src') || ''),
  stderr: [...nb.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
            .map(e => e.innerText.slice(0, 400)),
  dialogs: [...document.querySelectorAll('.jp-Dialog')].map(e => e.innerText.slice(0, 300)),
  dirty: !!document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty'),
  kernel: (document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Toolbar-kernelName') || {}).innerText,
};
"""

# the training cell (the one with the progress bar, or whose output says it trained) scrolled to the top
_SCROLL_JS = """
const cells = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')];
const c = cells.find(c => c.querySelector('.widget-hprogress')) ||
          cells.find(c => /trained \\d+ steps/.test(c.innerText)) || cells[0];
c.scrollIntoView({block: 'start'});
"""

# the progress bar in the middle of the window, while it moves
_BAR_JS = "document.querySelector('.jp-Notebook .widget-hprogress')?.scrollIntoView({block: 'center'})"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(tmp: Path) -> Path:
    "The Lab root: copies of the study notebook and settings.ini, and Lab's settings for the check."
    root = tmp / "root"
    (root / NB_REL).parent.mkdir(parents=True)
    shutil.copy2(ROOT / NB_REL, root / NB_REL)
    shutil.copy2(ROOT / "settings.ini", root / "settings.ini")
    for rel, obj in LAB_SETTINGS.items():
        f = tmp / "lab-settings" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(obj))
    (tmp / "lab-workspaces").mkdir()
    return root


def start_lab(tmp: Path, root: Path, port: int, token: str) -> subprocess.Popen:
    jupyter = Path(sys.executable).parent / "jupyter"
    cmd = [str(jupyter), "lab", f"--config={LAB_CONFIG}", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.user_settings_dir={tmp / 'lab-settings'}", f"--LabApp.workspaces_dir={tmp / 'lab-workspaces'}"]
    if os.geteuid() == 0: cmd.append("--allow-root")
    env = {**os.environ, "GROK_NB_WORKSPACE": str(root), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    log = open(tmp / "lab.log", "wb")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    up = wait(lambda: proc.poll() is None and urllib.request.urlopen(url, timeout=2).status == 200, 90)
    if not up:
        stop_lab(proc)
        tail = (tmp / "lab.log").read_text(errors="replace")[-2000:]
        raise SystemExit(f"lab_check: JupyterLab did not answer on 127.0.0.1:{port} within 90 s; its log:\n{tail}")
    return proc


def stop_lab(proc: subprocess.Popen):
    "SIGTERM to Lab's process group (the server and its kernels), SIGKILL after 20 s."
    if proc.poll() is not None: return
    os.killpg(proc.pid, signal.SIGTERM)
    try: proc.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def menu(d, top: str, item: str):
    "Click `top` in Lab's menu bar, then `item` in the menu it opens."
    from selenium.webdriver.common.by import By

    bar = wait(lambda: [e for e in d.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel") if e.text == top], 30)
    if not bar: raise RuntimeError(f"no {top!r} menu in Lab's menu bar")
    bar[0].click()
    it = wait(lambda: [e for e in d.find_elements(By.CSS_SELECTOR, ".lm-Menu-itemLabel") if e.text == item], 10)
    if not it: raise RuntimeError(f"no {item!r} item in Lab's {top!r} menu")
    it[0].click()


def saved_pngs(root: Path) -> list[bytes]:
    runs = sorted((root / "runs" / STUDY).glob("*/figures/*.png"))
    return [p.read_bytes() for p in runs]


def clean_check(root: Path, rep: Report):
    """The saved notebook: no outputs, no execution counts, byte for byte the committed file (a save leaves the tree
    clean), and unchanged by nbdev_clean (make test's sync check)."""
    saved = root / NB_REL
    nb = json.loads(saved.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    n_out = sum(len(c.get("outputs", [])) for c in code)
    rep("the saved notebook holds no outputs (make lab's hook)", n_out == 0,
        f"{n_out} outputs in {saved.name}: was Lab started with {LAB_CONFIG}?" if n_out else "")
    counts = [c.get("execution_count") for c in code if c.get("execution_count") is not None]
    rep("no execution counts", not counts, f"{len(counts)} cells keep a count" if counts else "")
    rep("the saved notebook is the committed file byte for byte", saved.read_bytes() == (ROOT / NB_REL).read_bytes())
    twin = saved.with_name("clean_twin.ipynb")
    shutil.copy2(saved, twin)
    nbdev_clean = Path(sys.executable).parent / "nbdev_clean"
    subprocess.run([str(nbdev_clean), "--fname", str(twin)], cwd=root, check=True)
    rep("nbdev_clean leaves the saved notebook unchanged", twin.read_bytes() == saved.read_bytes())


def check(root: Path, base: str, token: str, chromium: str, chromedriver: str, shots: Path, timeout: float,
          rep: Report):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    profile = tempfile.mkdtemp(prefix="grok_nb_chromium_")
    d = browser(chromium, chromedriver, profile, window="1400,1100", page_timeout=90)
    try:
        t0 = time.time()
        d.get(f"{base}lab/tree/{NB_REL}?token={token}")
        state = lambda: d.execute_script(_STATE_JS)  # noqa: E731
        nb = json.loads((root / NB_REL).read_text())
        n_cells, answered = sum(c["cell_type"] == "code" for c in nb["cells"]), []

        def ready():
            s = state()
            if not s: return None
            if any(t.startswith("Select Kernel") for t in s["dialogs"]):   # Lab may ask; a user takes the default
                ok = d.find_elements(By.CSS_SELECTOR, ".jp-Dialog .jp-Dialog-button.jp-mod-accept")
                if ok:
                    ok[0].click()
                    answered.append(s["dialogs"][0].splitlines()[0])
                return None
            kernel_up = s["status"] == "idle" and "Python" in (s["kernel"] or "") and not s["dialogs"]
            return s if kernel_up and len(s["prompts"]) == n_cells else None

        ready = wait(ready, 120)
        if answered: print(f"     answered Lab's {answered[0]!r} dialog with its default, as a user would")
        if not rep("the notebook opens and its kernel starts", bool(ready),
                   f"{time.time() - t0:.0f} s, kernel {ready['kernel']!r}, {n_cells} code cells" if ready else
                   f"after {time.time() - t0:.0f} s: {state()}"):
            d.save_screenshot(str(shots / "lab_open_failed.png"))
            return
        ActionChains(d).key_down(Keys.CONTROL).send_keys("b").key_up(Keys.CONTROL).perform()   # hide the file browser
        menu(d, "Run", "Run All Cells")
        t_run, bars, shot_bar = time.time(), [], False
        while True:
            s = state() or {}
            if s.get("bars"):
                bars.append(s["bars"][0])
                if not shot_bar and any(ch.isdigit() and ch != "0" for ch in s["bars"][0].split("%")[0]):
                    d.execute_script(_BAR_JS)
                    d.save_screenshot(str(shots / "lab_training.png"))
                    shot_bar = True
            done = s.get("status") == "idle" and len(s.get("prompts", [])) == n_cells and all(
                p not in ("[ ]:", "[*]:") and p.startswith("[") for p in s["prompts"])
            if done or s.get("stderr") or s.get("dialogs") or time.time() - t_run > timeout: break
            time.sleep(0.5)
        run_s = time.time() - t_run
        rep("Run All Cells finishes", done, f"{run_s:.0f} s" + ("" if done else f"; prompts {s.get('prompts')}"))
        rep("a progress widget shows while it runs", bool(bars),
            f"first {bars[0]!r}, last {bars[-1]!r}" if bars else "no progress widget (.widget-hprogress) appeared")
        rep("no error or stderr box", not s.get("stderr"), " | ".join(s.get("stderr", [])))
        rep("no dialog is open", not s.get("dialogs"), " | ".join(s.get("dialogs", [])))
        want = saved_pngs(root)
        shown = [base64.b64decode(src.split(",", 1)[1]) for src in s.get("images", []) if src.startswith("data:")]
        rep("the run saved its figures", len(want) > 0, f"{len(want)} PNGs under runs/{STUDY}/<id>/figures/")
        rep("each saved figure is shown as an image output, the same PNG bytes",
            len(want) > 0 and sorted(shown) == sorted(want), f"{len(shown)} images shown, {len(want)} saved")
        if s.get("bars"): print(f"     the bar stays on screen: {s['bars'][0]!r}")
        fill = (s.get("fills") or [None])[0]
        rep("the training bar ends full (an early stop is a finish)", fill is not None and fill >= 99.9,
            f"{fill}% of its width filled")
        # the picture: code collapsed, the training cell's bar at the top, the first figure below it
        menu(d, "View", "Collapse All Code")
        d.execute_script(_SCROLL_JS)
        menu(d, "File", "Save Notebook")
        saved = wait(lambda: not state()["dirty"] and not d.find_elements(By.CSS_SELECTOR, ".jp-Dialog"), 30)
        rep("File > Save Notebook saves it", bool(saved))
        time.sleep(1.0)
        d.save_screenshot(str(shots / "lab_study.png"))
        if saved: clean_check(root, rep)
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", type=Path, default=None, help="folder for screenshots (default: a temporary one)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds Run All Cells may take")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    a = ap.parse_args()
    for exe, pkg in ((a.chromium, "chromium"), (a.chromedriver, "chromium-driver")):
        if not Path(exe).exists(): sys.exit(f"lab_check: {exe} not found (apt-get install -y {pkg})")
    if "nbdev_clean_jupyter" not in (HOOK_FILE.read_text() if HOOK_FILE.exists() else ""):
        sys.exit(f"lab_check: nbdev's clean-on-save hook is not in {HOOK_FILE}; run `make install`")
    t0 = time.time()
    tmp = Path(tempfile.mkdtemp(prefix="grok_nb_lab_check_"))
    shots = a.shots or Path(tempfile.mkdtemp(prefix="grok_nb_lab_shots_"))
    shots.mkdir(parents=True, exist_ok=True)
    rep = Report()
    root = prepare(tmp)
    port, token = _free_port(), secrets.token_hex(16)
    lab = start_lab(tmp, root, port, token)
    try: check(root, f"http://127.0.0.1:{port}/", token, a.chromium, a.chromedriver, shots, a.timeout, rep)
    except Exception as e: rep("the check ran to its end", False, f"{type(e).__name__}: {str(e).splitlines()[0]}")
    finally: stop_lab(lab)
    print(f"{rep.passed} passed, {rep.failed} failed in {time.time() - t0:.0f} s; screenshots in {shots}")
    if rep.failed: print(f"Lab's log and the run: {tmp}")
    else: shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if rep.failed else 0)


if __name__ == "__main__":
    main()
