"""Check the offline documentation site in headless Chromium, as a reader would use it (`make docs-check`).

Serves the built site (`make docs`, default `_docs/`) on 127.0.0.1 and drives Debian's Chromium through
chromedriver (selenium; no browser is downloaded: `apt-get install -y chromium chromium-driver`):

1. the index loads, and its navigation bar leads to a library section and from there to the `train` page;
2. that page has the API entry of `grok_nb.train.train` (its heading, signature and source link);
3. a search for a known name (`checkpoint_schedule`) from the search field lists the `train` page;
4. no page shows a `#|` directive, a stderr box or tqdm's `IProgress not found` warning, no page loads anything from
   outside the site, and formulas are typeset (MathJax ran).

Usage: python docs/check_site.py [--site _docs] [--shots DIR] [--chromium /usr/bin/chromium]
       [--chromedriver /usr/bin/chromedriver]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from _browser import Report, browser, wait  # docs/ is the script's folder, first on sys.path

ROOT = Path(__file__).resolve().parents[1]
API_NAME, API_PAGE, SEARCH_FOR = "train", "train.html", "checkpoint_schedule"

_API_ENTRY_JS = """
const name = arguments[0];
const heads = [...document.querySelectorAll('section > h2, section > h3, section > h4')]
  .filter(h => h.childNodes.length && h.childNodes[0].textContent.trim() === name);
for (const h of heads) {
  const pre = h.parentElement.querySelector('pre');
  const prev = h.parentElement.previousElementSibling || h.previousElementSibling;
  if (pre && pre.textContent.trim().startsWith('def ' + name + '(')) return {ok: true, id: h.parentElement.id,
      signature: pre.textContent.trim().split('\\n')[0]};
}
return {ok: false, headings: heads.length};
"""

_PAGE_JS = """
const text = document.body.innerText;
const origin = location.origin;
return {
  directive: text.includes('#|'),
  stderr: document.querySelectorAll('.output.stderr, div.stderr, .cell_output .stderr').length,
  tqdm: text.includes('IProgress not found') || text.includes('TqdmWarning'),
  external: performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith(origin)),
  math: document.querySelectorAll('.math').length,
  typeset: document.querySelectorAll('mjx-container').length,
};
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass


def serve(site: Path):
    "A static server for `site` on 127.0.0.1 (a free port), in a daemon thread; returns (server, base URL)."
    handler = functools.partial(_Quiet, directory=str(site))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/"


def check(site: Path, chromium: str, chromedriver: str, shots: Path | None = None) -> Report:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    rep = Report()
    srv, base = serve(site)
    profile = tempfile.mkdtemp(prefix="grok_nb_chromium_")
    d = browser(chromium, chromedriver, profile)
    try:
        # 1. index -> navigation bar -> library section -> train page
        d.get(base + "index.html")
        rep("the index loads", "grok_nb" in d.title, f"title {d.title!r}")
        nav = [a for a in d.find_elements(By.CSS_SELECTOR, ".bd-header .navbar-nav a.nav-link") if a.text.strip()]
        names = [a.text.strip() for a in nav]
        lib = next((a for a in nav if a.text.strip().lower().startswith("library")), None)
        rep("the navigation bar lists the sidebar's sections", lib is not None and len(names) >= 3, ", ".join(names))
        if shots:
            d.set_window_size(1400, 1800)
            d.save_screenshot(str(shots / "index.png"))
            d.set_window_size(1400, 1000)
        if lib is not None:
            lib.click()
            wait(lambda: "section-" in d.current_url)
            link = wait(lambda: next((a for a in d.find_elements(By.CSS_SELECTOR, ".bd-sidebar-primary a")
                                       if a.text.strip() == API_NAME), None))
            if rep(f"the library section's navigation links to `{API_NAME}`", link is not None, d.current_url):
                link.click()
                wait(lambda: d.current_url.split("#")[0].endswith("/" + API_PAGE))
        ok = d.current_url.split("#")[0].endswith("/" + API_PAGE)
        if rep(f"following the navigation reaches {API_PAGE}", ok, d.current_url):
            # 2. the API entry
            r = d.execute_script(_API_ENTRY_JS, API_NAME)
            rep(f"{API_PAGE} has the API entry of grok_nb.train.{API_NAME}", bool(r.get("ok")),
                r.get("signature") or f"{r.get('headings')} heading(s) named {API_NAME}, none with its signature")
            src = d.find_elements(By.CSS_SELECTOR, "a.nbdev-source")
            rep("API entries link to their source", len(src) > 0, f"{len(src)} source links")
            if shots:
                d.set_window_size(1400, 1800)
                d.save_screenshot(str(shots / "train.png"))
                d.set_window_size(1400, 1000)
        # 3. search from the search field
        d.get(base + "index.html")
        btn = wait(lambda: next(b for b in d.find_elements(By.CSS_SELECTOR, "button.search-button-field,"
                                                             " button.search-button__button") if b.is_displayed()))
        if btn is not None: btn.click()
        box = wait(lambda: next(i for i in d.find_elements(By.CSS_SELECTOR, "input[name='q']") if i.is_displayed()))
        if rep("the search field opens", box is not None):
            box.send_keys(SEARCH_FOR, Keys.ENTER)
            hits = wait(lambda: d.find_elements(By.CSS_SELECTOR, "#search-results ul.search li a"), timeout=30)
            hrefs = [a.get_attribute("href") or "" for a in hits or []]
            rep(f"searching {SEARCH_FOR!r} finds the {API_PAGE} page",
                any(h.split("#")[0].endswith("/" + API_PAGE) for h in hrefs),
                f"{len(hrefs)} hits: " + ", ".join(h.removeprefix(base) for h in hrefs[:5]))
            if shots: d.save_screenshot(str(shots / "search.png"))
        # 4. every page
        pages = sorted(p for p in site.rglob("*.html") if not p.relative_to(site).parts[0].startswith("_"))
        bad = {"a `#|` directive": [], "a stderr box": [], "tqdm's IProgress warning": [],
               "requests outside the site": [], "formulas not typeset": []}
        for p in pages:
            rel = p.relative_to(site).as_posix()
            d.get(base + rel)
            r = d.execute_script(_PAGE_JS)
            if r["math"]:
                r2 = wait(lambda: (x := d.execute_script(_PAGE_JS))["typeset"] and x, timeout=20)
                r = r2 or r
            if r["directive"]: bad["a `#|` directive"].append(rel)
            if r["stderr"]: bad["a stderr box"].append(rel)
            if r["tqdm"]: bad["tqdm's IProgress warning"].append(rel)
            if r["external"]: bad["requests outside the site"].append(f"{rel} ({', '.join(r['external'][:3])})")
            if r["math"] and not r["typeset"]: bad["formulas not typeset"].append(rel)
        for what, where in bad.items():
            rep(f"no page shows {what}" if what != "formulas not typeset" else "every page's formulas are typeset",
                not where, f"{len(pages)} pages" if not where else ", ".join(where[:8]))
    finally:
        d.quit()
        srv.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    return rep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", default=str(ROOT / "_docs"))
    ap.add_argument("--shots", default=None, help="save screenshots of the index, the train page and a search here")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--chromedriver", default=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    a = ap.parse_args(argv)
    site = Path(a.site).resolve()
    if not (site / "index.html").is_file():
        print(f"docs-check: no site at {site}: run `make docs` first", file=sys.stderr)
        return 2
    if not (site / "searchindex.js").is_file():
        print(f"docs-check: {site} is not the offline (Sphinx) site this checks; build it with "
              "`make docs DOCS_ENGINE=sphinx`", file=sys.stderr)
        return 2
    for exe, pkg in ((a.chromium, "chromium"), (a.chromedriver, "chromium-driver")):
        if not (exe and os.access(exe, os.X_OK)):
            print(f"docs-check: {exe or pkg} not found: `apt-get install -y chromium chromium-driver`", file=sys.stderr)
            return 2
    shots = Path(a.shots) if a.shots else None
    if shots: shots.mkdir(parents=True, exist_ok=True)
    t = time.time()
    rep = check(site, a.chromium, a.chromedriver, shots)
    print(f"({time.time() - t:.0f} s)")
    print(f"docs-check: {rep.passed} passed, {rep.failed} failed")
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
