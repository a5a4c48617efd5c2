"""Offline documentation site for grok_nb when the quarto binary is not available.

`make docs` builds the nbdev/quarto site when `quarto` is on PATH (or when `pip install quarto-cli` can fetch its
binary, which needs GitHub). Without it, this script renders the same notebooks to a static HTML site in `_docs/`
with nbconvert: the library notebooks are executed first (they run in seconds on CPU, so the pages show real
outputs and the tests' numbers), study and report notebooks are rendered as written (executing them trains models;
their executed copies live in `runs/<study>/<run-id>/run.ipynb` and `runs/_reports/`).

Usage: python docs/build_offline.py [--out _docs] [--no-execute]
"""
import argparse, html, os, shutil, sys, tempfile
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter
from nbconvert.preprocessors import ExecutePreprocessor

ROOT = Path(__file__).resolve().parents[1]


def title_of(nb, fallback: str) -> str:
    for c in nb.cells:
        if c.cell_type == "markdown":
            for line in c.source.splitlines():
                if line.startswith("# "): return line[2:].strip()
    return fallback


def render(src: Path, out_dir: Path, execute: bool, timeout: int) -> tuple[str, str]:
    nb = nbformat.read(src, as_version=4)
    if execute:
        ExecutePreprocessor(timeout=timeout, kernel_name="python3").preprocess(nb, {"metadata": {"path": str(src.parent)}})
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    rel = src.relative_to(ROOT / "nbs").with_suffix(".html")
    dst = out_dir / rel
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dst.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f: f.write(body)
    os.replace(tmp, dst)
    return str(rel), title_of(nb, src.stem)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "_docs")); ap.add_argument("--no-execute", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args(argv)
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    sections = {"Library": sorted((ROOT / "nbs").glob("[0-9]*.ipynb")),
                "Studies (one run each; papermill parameters in the first code cell)": sorted((ROOT / "nbs" / "studies").glob("*.ipynb")),
                "Reports (figures across runs)": sorted((ROOT / "nbs" / "reports").glob("*.ipynb"))}
    links = {}
    for name, nbs in sections.items():
        links[name] = []
        for nb in nbs:
            ex = (not a.no_execute) and name == "Library"
            print(f"{'executing' if ex else 'rendering'} {nb.relative_to(ROOT)}", flush=True)
            links[name].append(render(nb, out, ex, a.timeout))
    intro, _ = HTMLExporter(template_name="lab").from_notebook_node(nbformat.read(ROOT / "nbs" / "index.ipynb", as_version=4))
    toc = "".join(f"<h2>{html.escape(k)}</h2><ul>" + "".join(f'<li><a href="{h}">{html.escape(t)}</a> <code>{h}</code></li>' for h, t in v) + "</ul>"
                  for k, v in links.items())
    marker = "</body>"
    index = intro.replace(marker, f'<div style="margin:2em">{toc}</div>{marker}', 1) if marker in intro else intro + toc
    (out / "index.html").write_text(index, encoding="utf-8")
    if (ROOT / "figures").exists(): shutil.copytree(ROOT / "figures", out / "figures", dirs_exist_ok=True)
    print(f"wrote {out / 'index.html'} ({sum(map(len, links.values()))} notebook pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
