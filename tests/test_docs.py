"""The offline documentation site (docs/build_site.py) without a browser: the sidebar logic, the cell-option and
widget conversions, and one whole build without execution (about half a minute on one core) whose pages, navigation,
API entries and search index are checked. The browser check is `make docs-check` (docs/check_site.py)."""

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import build_site as B  # noqa: E402


def _nb(path: Path, *cells):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [{"cell_type": t, "metadata": {}, "source": s} for t, s in cells],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def test_sidebar_skips_missing_and_keeps_unlisted(tmp_path, capsys):
    nbs = tmp_path / "nbs"
    for f in ("index.ipynb", "00_core.ipynb", "studies/a.ipynb", "99_extra.ipynb", "_hidden/x.ipynb"):
        _nb(nbs / f, ("markdown", "# t"))
    (nbs / "sidebar.yml").write_text(
        "website:\n  sidebar:\n    contents:\n      - index.ipynb\n      - sidebar.yml\n"
        "      - section: \"Library: foundation\"\n        contents:\n          - 00_core.ipynb\n"
        "          - 02a_blimp.ipynb\n      - section: Studies\n        contents:\n          - studies/a.ipynb\n"
        "          - studies/b.ipynb\n")
    top, sections = B.read_sidebar(nbs / "sidebar.yml", nbs)
    assert top == ["index.ipynb"]
    assert sections == [("Library: foundation", ["00_core.ipynb"]), ("Studies", ["studies/a.ipynb"]),
                        ("Other notebooks", ["99_extra.ipynb"])]
    err = capsys.readouterr().err.splitlines()
    missing = [ln for ln in err if "do not exist" in ln]
    assert len(missing) == 1 and "02a_blimp.ipynb, studies/b.ipynb" in missing[0]


def test_sidebar_of_the_repository_is_valid_quarto():
    top, sections = B.read_sidebar()
    assert top == ["index.ipynb"]
    names = [s for s, _ in sections]
    assert names[:1] == ["Library: foundation"] and names[-2:] == ["Studies", "Reports"]
    assert "04_train.ipynb" in dict(sections)["Library: foundation"]


def test_cell_options():
    assert B._option("export") == ("export", "")
    assert B._option("default_exp train") == ("default_exp", "train")
    assert B._option(" eval: false") == ("eval", "false")
    assert B._directives("#| hide\n#| eval: false\nx = 1\n#| export") == {"hide": "", "eval": "false"}
    opts, code = B._strip_directives("#| echo: false\n#| output: asis\nshow_doc(f)")
    assert opts == {"echo": "false", "output": "asis"} and code == "show_doc(f)"


def test_progress_bar_from_widget_state():
    state = {"box": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_l", "IPY_MODEL_p", "IPY_MODEL_r"]}},
             "l": {"model_name": "HTMLModel", "state": {"value": "steps: 100%"}},
             "p": {"model_name": "FloatProgressModel", "state": {"value": 20, "max": 20, "bar_style": "success"}},
             "r": {"model_name": "HTMLModel", "state": {"value": " 20/20 [00:01&lt;00:00]"}}}
    out = B._progress_html({"model_id": "box"}, state)
    assert '<progress value="20" max="20">' in out and "steps: 100%" in out and "20/20" in out
    assert B._progress_html({"model_id": "nope"}, state) is None


def _text(page: Path) -> str:
    s = page.read_text(encoding="utf-8")
    s = re.sub(r"<(script|style)\b.*?</\1>", "", s, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", s))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("docs")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(ROOT / "docs" / "build_site.py"), "--no-execute", "--out", str(tmp / "site"),
           "--build", str(tmp / "build")]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return tmp / "site"


def test_site_pages_and_navigation(site):
    top, sections = B.read_sidebar()
    for f in top + [f for _, fs in sections for f in fs]:
        page = Path(f).parent / re.sub(r"^\d+[a-zA-Z0-9]*_", "", Path(f).stem.lower())
        assert (site / page.with_suffix(".html")).is_file(), page
    for p in ("index.html", "search.html", "searchindex.js", "figures.html"): assert (site / p).is_file(), p
    index = (site / "index.html").read_text(encoding="utf-8")
    nav = re.search(r'<ul class="[^"]*navbar-nav[^"]*">.*?</ul>', index, flags=re.S).group(0)  # the header's bar
    hrefs = re.findall(r'href="(section-[^"]+)\.html"', nav)
    assert hrefs == [B._SECTION_FILE.format(B.slug(s)).removesuffix(".md") for s, _ in sections]
    sec = (site / "section-library-foundation.html").read_text(encoding="utf-8")
    assert 'href="train.html"' in sec


def test_api_entry_and_search_index(site):
    train = (site / "train.html").read_text(encoding="utf-8")
    assert re.search(r"<h[234][^>]*>train<a class=\"headerlink\"", train), "no `train` API heading"
    assert re.search(r'def</span>.{0,40}?<span class="nf">train</span>', train), "no signature of train"
    assert 'class="nbdev-source' in train
    assert re.search(r'<section id="train">\s*<h3>train<', train), "the entry, not the title, has the anchor #train"
    assert 'href="train.html#train"' in (site / "synthetic.html").read_text(encoding="utf-8"), "nbdev's link to train"
    index = (site / "searchindex.js").read_text(encoding="utf-8")
    assert '"checkpoint_schedule"' in index and '"train"' in index


def test_no_directives_no_remote_assets_and_local_links(site):
    pages = [p for p in site.rglob("*.html") if not p.relative_to(site).parts[0].startswith("_")]
    assert len(pages) > 20
    host = B._doc_host().rstrip("/")
    for p in pages:
        assert "#|" not in _text(p), p
        s = p.read_text(encoding="utf-8")
        assert not re.search(r'<(script|link|img)\b[^>]*(src|href)="(https?:)?//', s), f"{p}: a remote asset"
        assert host + "/" not in s, f"{p}: a link to {host}"
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
