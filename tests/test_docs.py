"""The offline documentation site (docs/build_site.py) without a browser: the sidebar logic, the cell-option and
widget conversions, the execution cache and the stop on SIGTERM (on tiny notebooks of their own), and one whole build
without execution (about half a minute on one core) whose pages, navigation, API entries, search index and warnings
are checked. The browser check is `make docs-check` (docs/check_site.py)."""

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
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
    for f in ("index.ipynb", "00_core.ipynb", "a/study_a.ipynb", "99_extra.ipynb", "_hidden/x.ipynb"):
        _nb(nbs / f, ("markdown", "# t"))
    (nbs / "sidebar.yml").write_text(
        "website:\n  sidebar:\n    contents:\n      - index.ipynb\n      - sidebar.yml\n"
        "      - section: \"Library: foundation\"\n        contents:\n          - 00_core.ipynb\n"
        "          - 02a_blimp.ipynb\n      - section: Study A\n        contents:\n          - a/study_a.ipynb\n"
        "          - a/report_a.ipynb\n")
    top, sections = B.read_sidebar(nbs / "sidebar.yml", nbs)
    assert top == ["index.ipynb"]
    assert sections == [("Library: foundation", ["00_core.ipynb"]), ("Study A", ["a/study_a.ipynb"]),
                        ("Other notebooks", ["99_extra.ipynb"])]
    err = capsys.readouterr().err.splitlines()
    missing = [ln for ln in err if "do not exist" in ln]
    assert len(missing) == 1 and "02a_blimp.ipynb, a/report_a.ipynb" in missing[0]


def test_sidebar_of_the_repository_is_valid_quarto():
    """The sidebar lists every notebook (none falls to "Other notebooks"); each study's section holds its folder's
    notebooks, library, study and report ones, and nothing else."""
    top, sections = B.read_sidebar()
    assert top == ["index.ipynb"]
    names = [s for s, _ in sections]
    assert names[:1] == ["Library: foundation"] and "Other notebooks" not in names, names
    assert "04_train.ipynb" in dict(sections)["Library: foundation"]
    for sec, folder in (("Study A: grokking", "grokking"), ("Study B: emergence", "emergence"),
                        ("Study C: compartments", "compartments")):
        files = dict(sections)[sec]
        assert {Path(f).parent.as_posix() for f in files} == {folder}, (sec, files)
        kinds = [B.notebook_kind(f)[0] for f in files]
        assert kinds.count("") >= 1 and "study" in kinds and "report" in kinds, (sec, files)


def test_notebook_kinds():
    assert B.notebook_kind("grokking/study_grokking.ipynb") == ("study", "grokking")
    assert B.notebook_kind("emergence/report_pythia_blimp.ipynb") == ("report", "pythia_blimp")
    assert B.notebook_kind("grokking/10_exposure.ipynb") == ("", "10_exposure")
    assert B.is_library("grokking/10_exposure.ipynb") and B.is_library("04_train.ipynb")
    assert not B.is_library("tutorials/own_model.ipynb") and not B.is_library("emergence/study_emergence.ipynb")


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


def _code_nb(path: Path, *sources):
    _nb(path, *[("code", s) for s in sources])
    nb = json.loads(path.read_text())
    for i, c in enumerate(nb["cells"]): c.update(id=f"c{i}", outputs=[], execution_count=None)
    path.write_text(json.dumps(nb))


def test_execution_cache(tmp_path, monkeypatch):
    """Executed copies are reused while their key holds: a second build executes nothing, and after one notebook
    changes only that one runs again. The executed copies carry the cells' outputs."""
    nbs, build = tmp_path / "nbs", tmp_path / "build"
    _code_nb(nbs / "a.ipynb", "print(6 * 7)")
    _code_nb(nbs / "b.ipynb", "x = 'b'", "print(x * 3)")
    monkeypatch.setattr(B, "NBS", nbs)
    first = B.execute_all(["a.ipynb", "b.ipynb"], build, timeout=120, jobs=2)
    assert sorted(first) == ["a.ipynb", "b.ipynb"] and all(isinstance(v, float) for v in first.values()), first
    out = json.loads((build / "executed" / "b.ipynb").read_text())
    assert "".join(out["cells"][1]["outputs"][0]["text"]) == "bbb\n"
    assert B.execute_all(["a.ipynb", "b.ipynb"], build, timeout=120, jobs=2) == {"a.ipynb": "cached",
                                                                                 "b.ipynb": "cached"}
    _code_nb(nbs / "a.ipynb", "print(6 * 9)")
    again = B.execute_all(["a.ipynb", "b.ipynb"], build, timeout=120, jobs=1)
    assert again["b.ipynb"] == "cached" and isinstance(again["a.ipynb"], float), again
    assert "".join(json.loads((build / "executed" / "a.ipynb").read_text())["cells"][0]["outputs"][0]["text"]) == "54\n"
    assert isinstance(B.execute_all(["b.ipynb"], build, timeout=120, jobs=1, use_cache=False)["b.ipynb"], float)
    _code_nb(nbs / "c.ipynb", "raise ValueError('no good')")
    with pytest.raises(SystemExit, match=r"(?s)executing c.ipynb failed.*no good"):
        B.execute_all(["c.ipynb"], build, timeout=120, jobs=1)


def _alive(pid: int) -> bool:
    try: os.kill(pid, 0)
    except ProcessLookupError: return False
    return not Path(f"/proc/{pid}/status").exists() or "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()


def test_sigterm_stops_the_build_and_its_kernels(tmp_path):
    """SIGTERM to the build (what `make` forwards when it is stopped) ends it with 143, and neither the worker that
    executes a notebook nor that notebook's kernel outlives it: the notebook would run for ten minutes."""
    nbs, mark = tmp_path / "nbs", tmp_path / "pids.json"
    _code_nb(nbs / "slow.ipynb",
             f"import json, os, time\njson.dump([os.getpid(), os.getppid()], open({str(mark)!r}, 'w'))",
             "time.sleep(600)")
    script = (f"import sys; sys.path.insert(0, {str(ROOT / 'docs')!r})\nimport build_site as B\n"
              f"from pathlib import Path\nB.NBS = Path({str(nbs)!r})\n"
              f"sys.exit(B.interruptible(B.execute_all, ['slow.ipynb'], Path({str(tmp_path / 'build')!r}), 900, 1))")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(1200):                                            # until the notebook's first cell has run
            if mark.exists() and mark.read_text().endswith("]") or proc.poll() is not None: break
            time.sleep(0.25)
        assert proc.poll() is None and mark.exists(), proc.communicate()
        kernel, worker = json.loads(mark.read_text())
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)                         # far less than the notebook's ten minutes
    finally:
        if proc.poll() is None: proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, out, err)
    assert "interrupted (SIGTERM)" in err, err
    for _ in range(100):                                                  # the kernel's shutdown may lag by a moment
        if not _alive(kernel) and not _alive(worker): break
        time.sleep(0.2)
    assert not _alive(worker) and not _alive(kernel), (worker, kernel)


def _text(page: Path) -> str:
    s = page.read_text(encoding="utf-8")
    s = re.sub(r"<(script|style)\b.*?</\1>", "", s, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", s))


BUILD = {}  # the no-execute build's output, for test_build_warnings


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("docs")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, str(ROOT / "docs" / "build_site.py"), "--no-execute", "--out", str(tmp / "site"),
           "--build", str(tmp / "build")]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    BUILD.update(stdout=r.stdout, stderr=r.stderr)
    return tmp / "site"


def test_build_warnings(site):
    """The build warns only about what a user can fix; today there is nothing to warn about (no notebook mixes imports
    with code, the sidebar lists every notebook, Sphinx has no complaint)."""
    warnings = [ln for ln in BUILD["stderr"].splitlines() if re.search(r"warning|WARNING|ERROR", ln)]
    assert warnings == [], "\n".join(warnings)


def test_site_pages_and_navigation(site):
    top, sections = B.read_sidebar()
    for f in top + [f for _, fs in sections for f in fs]:
        page = Path(f).parent / re.sub(r"^\d+[a-zA-Z0-9]*_", "", Path(f).stem.lower())
        assert (site / page.with_suffix(".html")).is_file(), page
    for p in ("index.html", "search.html", "searchindex.js", "figures.html"): assert (site / p).is_file(), p
    for study in "ABC":                                       # the ledger's results pages, their figures shown
        page = (site / "results" / f"{study}.html").read_text(encoding="utf-8")
        assert f"Results — study {study}" in page and re.search(r'<img alt="[^"]+" src="\.\./_images/', page), study
    assert 'href="results/C.html"' in (site / "results.html").read_text(encoding="utf-8")
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="guides/cluster.html"' in index and "--executor slurm" in _text(site / "guides" / "cluster.html")
    nav = re.search(r'<ul class="[^"]*navbar-nav[^"]*">.*?</ul>', index, flags=re.S).group(0)  # the header's bar
    hrefs = re.findall(r'href="(section-[^"]+)\.html"', nav)
    assert hrefs == [B._SECTION_FILE.format(B.slug(s)).removesuffix(".md") for s, _ in sections]
    sec = (site / "section-library-foundation.html").read_text(encoding="utf-8")
    assert 'href="train.html"' in sec
    study = _text(site / "emergence" / "study_sparse_attention.html")   # shown as written, with the note
    assert "grok-nb run sparse_attention" in study and "runs/sparse_attention/<run id>/run.ipynb" in study
    assert "runs/_reports/pythia_blimp.ipynb" in _text(site / "emergence" / "report_pythia_blimp.html")
    if list((ROOT / "figures").glob("grokking_*.png")):                       # the gallery links a study's report
        assert 'href="grokking/report_grokking.html"' in (site / "figures.html").read_text(encoding="utf-8")


def test_api_entry_and_search_index(site):
    train = (site / "train.html").read_text(encoding="utf-8")
    assert re.search(r"<h[234][^>]*>train<a class=\"headerlink\"", train), "no `train` API heading"
    assert re.search(r'def</span>.{0,40}?<span class="nf">train</span>', train), "no signature of train"
    assert 'class="nbdev-source' in train
    assert re.search(r'<section id="train">\s*<h3>train<', train), "the entry, not the title, has the anchor #train"
    synthetic = (site / "emergence" / "synthetic.html").read_text(encoding="utf-8")     # a page in a study's folder
    assert 'href="../train.html#train"' in synthetic, "nbdev's link to train"
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


def test_kernel_sensitive_notebooks_pass_in_a_real_kernel():
    """The docs build executes the library notebooks in a real Jupyter kernel, where `plots.in_notebook()` is True;
    `nbdev_test` is not a kernel. Every library notebook that tests kernel-dependent behaviour (it calls
    `in_notebook()` or `get_ipython()`) is executed here in a kernel as well, so that `make docs` cannot fail on a test
    that only held outside one (91_plots asserted `in_notebook() == False`, and the site was never built)."""
    import nbformat
    from nbclient import NotebookClient
    nbs = sorted(p for p in (ROOT / "nbs").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
                 and not p.name.startswith(("study_", "report_"))
                 and re.search(r"in_notebook\(\)|get_ipython\(\)", p.read_text()))
    assert ROOT / "nbs" / "91_plots.ipynb" in nbs
    for p in nbs:
        nb = nbformat.read(p, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(p.parent)}}).execute()
