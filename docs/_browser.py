"""What the two browser checks share (docs/check_site.py: the built docs site; docs/lab_check.py: a study notebook in
JupyterLab): headless Chromium through selenium with the system's chromedriver, never fetching anything, a waiting
helper and a pass/fail tally."""
from __future__ import annotations

import os
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def browser(chromium: str, chromedriver: str, profile: str, window: str = "1400,1000", page_timeout: float = 60):
    "A headless Chromium (`chromium`, driven by `chromedriver`) with its own profile folder `profile`."
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # selenium must never try to fetch a driver or a browser
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for f in FLAGS + [f"--user-data-dir={profile}", f"--window-size={window}"]: opts.add_argument(f)
    d = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    d.set_page_load_timeout(page_timeout)
    return d


def wait(fn, timeout: float = 15.0, every: float = 0.2):
    "fn() until it returns something truthy (exceptions count as not yet); None after `timeout` seconds."
    t = time.time()
    while True:
        try:
            r = fn()
            if r: return r
        except Exception:
            pass
        if time.time() - t > timeout: return None
        time.sleep(every)


class Report:
    "Counts and prints each check: `rep(what, ok, detail)` returns `ok`."
    def __init__(self): self.passed, self.failed = 0, 0

    def __call__(self, what: str, ok: bool, detail: str = ""):
        if ok: self.passed += 1
        else: self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else ""), flush=True)
        return ok
