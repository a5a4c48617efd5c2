"""Build the documentation site offline: nbdev's processed notebooks rendered by Sphinx (myst-nb, PyData theme).

`make docs` builds the nbdev/quarto site when a `quarto` binary exists. Without one (PyPI's `quarto-cli` downloads
its binary from GitHub, and Debian has no package) it runs this script, which builds the same site from the same
notebooks:

1. **Pages and navigation** come from `nbs/sidebar.yml`, quarto's sidebar: its top-level notebooks open the site,
   each `section` becomes a section of the navigation bar. Entries whose notebook does not exist (yet) are skipped
   with one warning line; notebooks the sidebar does not list go to a last section, "Other notebooks".
2. **Execution**: only the notebooks the API pages are made of, the library's (the toolkit's in `nbs/`, each study's
   in its folder, `nbs/grokking/`, `nbs/emergence/`, `nbs/compartments/`), are executed, each in a fresh kernel, from
   its own folder, as `nbdev_test` runs them (cells marked `#| eval: false` or with a test flag such as `#| slow` are
   skipped), `--jobs` of them at a time (default: one per core, at most 2), longest first by the last build's times.
   Study and report notebooks (`study_*.ipynb`, `report_*.ipynb` in a study's folder) and the tutorials are rendered
   as written: executing them trains models (a study's and a report's executed copies live in `runs/`).
   `--no-execute` renders every notebook as written.
   **Cache**: an executed copy is kept in `<build>/executed/` with the key it was made under: a hash of the
   notebook, the package's source (`grok_nb/*.py`), the real samples in `data/`, the test flags and the versions of
   Python and the main libraries. A later build reuses every copy whose key is unchanged and executes only the rest,
   so a build after editing one notebook executes one notebook (`--no-cache` executes all; `make clean` drops the
   cache).
   **Interrupts**: SIGINT, SIGTERM and SIGHUP stop the build: the executing workers are sent SIGTERM (nbclient then
   shuts their kernels down), killed if they have not exited after 10 s, and the build exits with 128 + the
   signal's number. `make docs` execs this script, so that a SIGTERM make forwards reaches it.
3. **nbdev processing**: each notebook goes through nbdev's own processors (`FilterDefaults`, the ones
   `nbdev_proc_nbs` applies for quarto): directives are stripped, `#| hide` and exported cells are hidden, each
   exported definition gets its `show_doc` API entry, backticked names become links to their entries, and the
   title cell becomes the page's title. One deviation: nbdev runs every cell that contains an import to build
   those entries, also cells that mix imports with example code, which then fail out of context; such a cell is
   not run (the definitions and pure import cells are), and a warning names it.
4. **Sphinx source**: quarto's cell options left by nbdev (`#| echo: false`, `#| output: asis`, ...) become
   myst-nb tags, progress-bar widgets become static bars drawn from their saved state, and the figures gallery,
   section pages and the index's table of contents are written.
5. **Sphinx** (`docs/conf.py`) renders the site into `--out` (default `_docs/`), with full-text search; links to
   API entries are made relative, so the site works from a file system or any static server.

Usage: python docs/build_site.py [--out _docs] [--build _docs_build] [--no-execute] [--no-cache] [--jobs N]
       [--timeout 600]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import hashlib
import inspect
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
DOCS = Path(__file__).resolve().parent
_DIRECTIVE = re.compile(r"^\s*#\|\s?(.*)$")
_SECTION_FILE = "section-{}.md"


def warn(msg: str):
    print(f"docs: warning: {msg}", file=sys.stderr, flush=True)


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


# ---------------------------------------------------------------------------------------------------------------
# 1. the sidebar


def _entries(items, where: str):
    "Flatten quarto sidebar `contents` into (section title or None, file) pairs; nested sections keep their own title."
    out = []
    for it in items or []:
        if isinstance(it, str): out.append((None, it))
        elif isinstance(it, dict) and "section" in it:
            for sec, f in _entries(it.get("contents"), where): out.append((sec or str(it["section"]), f))
        elif isinstance(it, dict) and ("href" in it or "file" in it): out.append((None, it.get("href") or it["file"]))
        else: raise ValueError(f"{where}: sidebar entry {it!r}: expected a file name or a `section` with `contents`")
    return out


def read_sidebar(path: Path = NBS / "sidebar.yml", nbs: Path = NBS) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The site's structure from quarto's sidebar file: (top-level notebooks, [(section title, notebooks)]), paths
    relative to `nbs`. Missing notebooks are skipped with one warning line; notebooks under `nbs` that the sidebar
    does not list are added as a last section, "Other notebooks" (folders starting with `_` or `.` are not pages)."""
    spec = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    contents = (spec.get("website") or {}).get("sidebar", {})
    contents = contents.get("contents") if isinstance(contents, dict) else None
    if not isinstance(contents, list): raise ValueError(f"{path}: expected website.sidebar.contents to be a list")
    top, sections, missing, seen = [], {}, [], set()
    for sec, f in _entries(contents, str(path)):
        f = str(f).strip()
        if not f.endswith(".ipynb"): continue  # quarto also lists pages that are not notebooks; the site has none
        if not (nbs / f).is_file():
            missing.append(f)
            continue
        if f in seen: continue
        seen.add(f)
        if sec is None: top.append(f)
        else: sections.setdefault(sec, []).append(f)
    if missing:
        warn(f"{path.name} lists {len(missing)} notebook(s) that do not exist (yet), skipped: {', '.join(missing)}")
    rest = sorted(
        str(p.relative_to(nbs)) for p in nbs.rglob("*.ipynb")
        if not any(part.startswith((".", "_")) for part in p.relative_to(nbs).parts)
    )
    rest = [f for f in rest if f not in seen]
    if rest:
        warn(f"{path.name} does not list {len(rest)} notebook(s), shown under 'Other notebooks': {', '.join(rest)}")
        sections.setdefault("Other notebooks", []).extend(rest)
    return top, list(sections.items())


# ---------------------------------------------------------------------------------------------------------------
# 2. execution


def _option(text: str) -> tuple[str, str]:
    "One `#|` line's content as (name, value): quarto's `eval: false`, nbdev's `export` or `default_exp train`."
    m = re.match(r"([\w-]+)\s*:\s*(.*)$", text.strip())
    if m: return m.group(1), m.group(2).strip()
    k, _, v = text.strip().partition(" ")
    return k, v.strip()


def _directives(src: str) -> dict[str, str]:
    "The leading `#|` lines of a cell as {name: value}."
    out = {}
    for line in src.splitlines():
        m = _DIRECTIVE.match(line)
        if not m:
            if line.strip(): break
            continue
        k, v = _option(m.group(1))
        if k: out[k] = v
    return out


def _test_flags() -> set[str]:
    import configparser

    ini = configparser.ConfigParser()
    ini.read(ROOT / "settings.ini")
    return set(ini["DEFAULT"].get("tst_flags", "").split())


def quiet_kernels(build: Path):
    """The environment of the kernels that run the library notebooks, theirs and those they start (papermill's in
    `sweep`). Two kinds of messages would otherwise become stderr boxes on the pages without being about the code
    shown: ipykernel's log of its own life (at every start, that its loopback TCP sockets are not encrypted; when
    papermill stops the kernel of a failed run, `KeyboardInterrupt caught in kernel`), silenced by an IPython
    profile of the build's own; and `transformers` warning that optional CUDA kernels (mamba_ssm, causal_conv1d,
    flash-linear-attention) are absent and that `loss_type=None` is unrecognised (`TRANSFORMERS_VERBOSITY=error`;
    errors still show). Any other stderr output stays on its page, and the build names it."""
    prof = build / "ipython" / "profile_default"
    prof.mkdir(parents=True, exist_ok=True)
    (prof / "ipython_kernel_config.py").write_text(
        "# written by docs/build_site.py: the docs build's kernels, without ipykernel's start-up warnings\n"
        'c.IPKernelApp.log_level = "CRITICAL"\n', encoding="utf-8")
    os.environ["IPYTHONDIR"] = str(build / "ipython")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def _has_code(path: Path) -> bool:
    return any(c["cell_type"] == "code" and _source_text(c["source"]).strip()
               for c in json.loads(path.read_text(encoding="utf-8"))["cells"])


def execute(src: Path, dst: Path, timeout: int):
    "Run `src` in a fresh python3 kernel from its own folder, as nbdev_test does; write the executed copy to `dst`."
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(src, as_version=4)
    flags = _test_flags()
    for c in nb.cells:
        if c.cell_type != "code": continue
        d = _directives(c.source)
        if d.get("eval", "").lower() == "false" or flags & set(d):
            c.metadata.setdefault("tags", []).append("skip-execution")
    run_in = {"metadata": {"path": str(src.parent)}}
    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources=run_in).execute()
    for c in nb.cells:
        tags = c.metadata.get("tags", [])
        if "skip-execution" in tags: tags.remove("skip-execution")
        if not tags: c.metadata.pop("tags", None)
    dst.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dst)


_SAMPLES = ("blimp", "blimp_results", "english", "zh", "pythia_evals")  # the committed samples under data/
_LIBS = ("torch", "transformers", "tokenizers", "datasets", "numpy", "pandas", "matplotlib", "scikit-learn", "nbdev",
         "fastcore", "ipykernel", "nbclient")
_CACHE_FORMAT = "1"
_CHILDREN: list[subprocess.Popen] = []  # the processes this build started and may have to stop


def _environment_hash() -> str:
    """What an executed library notebook depends on besides its own text: the package's source, the study and report
    notebooks (the sweep examples read their parameters), the real samples, the test flags, Python and the main
    libraries' versions."""
    from importlib import metadata

    h = hashlib.sha256(f"format {_CACHE_FORMAT}\npython {sys.version}\n".encode())
    for lib in _LIBS:
        try: v = metadata.version(lib)
        except metadata.PackageNotFoundError: v = "-"
        h.update(f"{lib} {v}\n".encode())
    h.update(("flags " + " ".join(sorted(_test_flags())) + "\n").encode())
    files = (sorted((ROOT / "grok_nb").glob("*.py")) + sorted(NBS.glob("*/study_*.ipynb"))
             + sorted(NBS.glob("*/report_*.ipynb"))
             + sorted(p for d in _SAMPLES for p in (ROOT / "data" / d).rglob("*") if p.is_file()))
    for p in files:
        h.update(str(p.relative_to(ROOT)).encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _key_file(dst: Path) -> Path:
    return dst.with_name(dst.name + ".key")


def _on_signal(signum, frame):
    raise KeyboardInterrupt(signum)


def _stop_children(grace: float = 10.0):
    "SIGTERM to every child still running (an executing worker then has nbclient shut its kernel down); SIGKILL later."
    live = [p for p in _CHILDREN if p.poll() is None]
    for p in live:
        with contextlib.suppress(ProcessLookupError): p.send_signal(signal.SIGTERM)
    deadline = time.time() + grace
    for p in live:
        try: p.wait(max(0.0, deadline - time.time()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError): p.kill()
            p.wait()


def execute_all(files: list[str], build: Path, timeout: int, jobs: int, use_cache: bool = True) -> dict:
    """Execute the notebooks `files` (paths relative to `nbs/`) into `build/executed/`, `jobs` worker processes at a
    time (each runs `execute` on one notebook), reusing every executed copy whose key is unchanged (see the module's
    docstring). Returns {notebook: seconds, or 'cached'}; a failed notebook stops the others and ends the build with
    the end of its log."""
    out, logs = build / "executed", build / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    times_file = build / "execution_times.json"
    times = json.loads(times_file.read_text(encoding="utf-8")) if times_file.exists() else {}
    env = _environment_hash()
    todo, done = [], {}
    for f in files:
        dst = out / f
        key = hashlib.sha256(env.encode() + b"\0" + (NBS / f).read_bytes()).hexdigest()
        if use_cache and dst.is_file() and _key_file(dst).is_file() and _key_file(dst).read_text() == key:
            done[f] = "cached"
            continue
        for p in (dst, _key_file(dst)): p.unlink(missing_ok=True)
        todo.append((f, key))
    if done:
        print(f"reusing {len(done)} executed notebook(s) from {out} (unchanged since they ran)", flush=True)
    todo.sort(key=lambda fk: -float(times.get(fk[0], 0)))  # longest first: two workers finish close together
    running: dict[subprocess.Popen, tuple] = {}
    while todo or running:
        while todo and len(running) < jobs:
            f, key = todo.pop(0)
            log_path = logs / (f.replace("/", "__") + ".log")
            log = open(log_path, "w", encoding="utf-8")
            cmd = [sys.executable, str(Path(__file__).resolve()), "--execute-one", str(NBS / f), str(out / f),
                   "--timeout", str(timeout)]
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            _CHILDREN.append(p)
            running[p] = (f, key, time.time(), log, log_path)
            print(f"executing {f}", flush=True)
        time.sleep(0.2)
        for p in [p for p in running if p.poll() is not None]:
            f, key, t0, log, log_path = running.pop(p)
            log.close()
            _CHILDREN.remove(p)
            if p.returncode != 0:
                _stop_children()
                tail = log_path.read_text(encoding="utf-8", errors="replace")[-4000:]
                raise SystemExit(f"docs: executing {f} failed (exit {p.returncode}); the end of {log_path}:\n{tail}")
            _key_file(out / f).write_text(key)
            done[f] = times[f] = round(time.time() - t0, 1)
            print(f"  {f}: {done[f]:.1f} s", flush=True)
            times_file.write_text(json.dumps(times, indent=1, sort_keys=True), encoding="utf-8")
    return done


# ---------------------------------------------------------------------------------------------------------------
# 3. nbdev processing


_CURRENT = ["?", -1]  # the notebook being processed and where its title cell was split, for warnings


def _patch_nbdev_eval():
    "Have nbdev run, for its API entries, definitions and pure import cells, not cells mixing imports with code."
    import warnings

    import nbdev.processors as P

    if getattr(P._do_eval, "_grok_nb", False): return
    orig = P._do_eval

    def _do_eval(cell):
        trees = cell.parsed_() if cell.cell_type == "code" and cell.source else None
        if not trees or not P._ast_contains(trees, (ast.Import, ast.ImportFrom)): return orig(cell)
        if cell.directives_.keys() & {"export", "exports", "exporti", "exec_doc"} or P._show_docs(trees):
            return orig(cell)
        if all(isinstance(t, (ast.Import, ast.ImportFrom)) for t in trees): return orig(cell)
        i = cell.idx_ - (cell.idx_ > _CURRENT[1] >= 0)  # the index in the notebook as written
        warn(f"{_CURRENT[0]} cell {i} (id {cell.get('id', '?')}) mixes imports with other code; not run for the API "
             "entries (nbdev_proc_nbs runs it out of context, where it can fail: put the import in its own cell)")
        return None

    _do_eval._grok_nb = True
    P._do_eval = _do_eval
    _patch_forward_refs()
    warnings.filterwarnings("ignore", message="Found cells containing imports and other code")


def _forgiving_signature(obj, *args, eval_str=False, **kwargs):
    "`inspect.signature`, falling back to unevaluated annotations when one names a type defined later in the notebook."
    try: return inspect.signature(obj, *args, eval_str=eval_str, **kwargs)
    except NameError:
        return inspect.signature(obj, *args, eval_str=False, **kwargs)


def _patch_forward_refs():
    """nbdev inserts `show_doc(X)` right after the cell defining `X`, and fastcore evaluates `X`'s annotations there.
    A dataclass whose field names a type defined a few cells later (the sentence tree's `NounPhrase.pp: PrepPhrase`,
    legal under `from __future__ import annotations`) then fails with a NameError; render the annotation as written."""
    import fastcore.docments as D

    D.signature = _forgiving_signature


def _split_title_cell(nb) -> str:
    """nbdev turns the first markdown cell into the title and the description (the first `>` line) and drops the rest
    of that cell. Keep the prose: split it into its own cell. Returns the whole `>` description."""
    for i, c in enumerate(nb.cells):
        if c.cell_type != "markdown": continue
        lines = c.source.splitlines()
        if not any(re.match(r"^#\s+\S", ln) for ln in lines): return ""
        head, rest, desc, in_head = [], [], [], True
        for ln in lines:
            if in_head and (re.match(r"^#\s+\S", ln) or ln.startswith(">") or (not ln.strip() and not rest)):
                head.append(ln)
                if ln.startswith(">"): desc.append(ln.lstrip("> ").rstrip())
            else:
                in_head = False
                rest.append(ln)
        if "\n".join(rest).strip():
            from execnb.nbio import mk_cell

            c.source = "\n".join(head).strip()
            new = mk_cell("\n".join(rest).strip(), "markdown", id=f"{c.get('id', 'title')}-prose")
            nb.cells.insert(i + 1, new)
            _CURRENT[1] = i
        return " ".join(desc).strip()
    return ""


def nbdev_process(src: Path, dst: Path, label: str = "") -> str:
    """nbdev's docs processing (FilterDefaults) of the notebook `src`; writes `dst`; returns the full description.
    `label` names the notebook in warnings (default: its file name)."""
    from execnb.nbio import read_nb, write_nb
    from nbdev.processors import FilterDefaults

    _patch_nbdev_eval()
    nb = read_nb(src)
    _CURRENT[1] = -1
    desc = _split_title_cell(nb)
    for i, c in enumerate(nb.cells): c.idx_ = i
    _CURRENT[0] = label or src.name
    old = os.environ.get("IN_TEST")
    os.environ["IN_TEST"] = "1"  # as nbdev_proc_nbs's worker does
    try: FilterDefaults()(nb)
    finally:
        if old is None: os.environ.pop("IN_TEST", None)
        else: os.environ["IN_TEST"] = old
    dst.parent.mkdir(parents=True, exist_ok=True)
    write_nb(nb, dst)
    return desc


# ---------------------------------------------------------------------------------------------------------------
# 4. Sphinx source

_QUARTO_TAGS = {("echo", "false"): "remove-input", ("output", "false"): "remove-output",
                ("include", "false"): "remove-cell"}


def _source_text(x) -> str:
    return "".join(x) if isinstance(x, list) else (x or "")


def _strip_directives(src: str) -> tuple[dict[str, str], str]:
    "Leading cell options as {key: value}; the source with every `#|` line removed."
    opts, keep = {}, []
    for line in src.splitlines():
        m = _DIRECTIVE.match(line)
        if m:
            k, v = _option(m.group(1))
            opts[k] = v
        else: keep.append(line)
    return opts, "\n".join(keep).strip("\n")


def _progress_html(view: dict, state: dict) -> str | None:
    "A tqdm bar (HBox of HTML, progress, HTML) as static HTML from the widget state nbclient saved; None otherwise."
    box = state.get(view.get("model_id", ""), {})
    kids = [state.get(str(k).removeprefix("IPY_MODEL_"), {}) for k in box.get("state", {}).get("children", [])]
    bar = next((k for k in kids if k.get("model_name") in ("FloatProgressModel", "IntProgressModel")), None)
    if box.get("model_name") != "HBoxModel" or bar is None: return None
    texts = [k.get("state", {}).get("value", "") for k in kids if k.get("model_name") == "HTMLModel"]
    left, right = (texts + ["", ""])[:2]
    b = bar.get("state", {})
    val, mx = float(b.get("value", 0) or 0), float(b.get("max", 100) or 100)
    style = b.get("bar_style", "")
    return (f'<div class="tqdm-static {html.escape(style)}"><span>{left}</span>'
            f'<progress value="{val:g}" max="{mx:g}"></progress><span>{right}</span></div>')


def _link_attrs(md: str) -> str:
    "show_doc's source link carries pandoc attributes (target, style); give it a class instead."
    return re.sub(r"\]\(([^)]*)\)\{target=\"_blank\"[^}]*\}", r"](\1){.nbdev-source}", md)


_NOTES = {
    "study": "Shown as written, without outputs: running this notebook trains models. `grok-nb run {name}` runs it "
             "(papermill; `-p name=value` sets a parameter), `make demo` runs the demo's runs of every study; each "
             "run keeps its executed copy as `runs/{name}/<run id>/run.ipynb`. The figures are in the "
             "[gallery](../figures.md).",
    "report": "Shown as written, without outputs: a report reads the finished runs in `runs/`. `make demo` executes "
              "it after the runs, into `runs/_reports/{name}.ipynb`, and it writes its figures to `figures/`: "
              "see the [gallery](../figures.md).",
}


def notebook_kind(f: str) -> tuple[str, str]:
    """A notebook's kind and name from its path relative to `nbs/`: a study's (`<folder>/study_<name>.ipynb`) is
    ('study', name), a report's (`<folder>/report_<name>.ipynb`) ('report', name), any other ('', its stem)."""
    stem = Path(f).stem
    for kind in _NOTES:
        if len(Path(f).parts) == 2 and stem.startswith(kind + "_"): return kind, stem.removeprefix(kind + "_")
    return "", stem


def is_library(f: str) -> bool:
    "A library notebook (executed for its page): neither a study's nor a report's notebook, nor a tutorial."
    return not notebook_kind(f)[0] and Path(f).parts[0] != "tutorials"


def to_sphinx(proc: Path, dst: Path, desc: str = "", label: str = "", note: str = ""):
    """Turn an nbdev-processed notebook into a myst-nb page: cell options to tags, title cell, static progress bars;
    `note` (markdown) goes right under the title."""
    nb = json.loads(proc.read_text(encoding="utf-8"))
    state = (nb.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
             .get("state", {}))
    nb.get("metadata", {}).pop("widgets", None)
    cells, title = [], proc.stem
    for c in nb["cells"]:
        src = _source_text(c.get("source"))
        if c["cell_type"] == "raw":
            fm = re.match(r"^---\s*\n(.*?)\n---\s*$", src.strip(), flags=re.S)
            if fm:  # nbdev's frontmatter: the page title and its description
                meta = yaml.safe_load(fm.group(1)) or {}
                title = str(meta.get("title", title))
                d = desc or str(meta.get("description", "") or "")
                cells.append({"cell_type": "markdown", "id": "page-title", "metadata": {},
                              "source": f"# {title}\n" + (f"\n{{.description}}\n{d}\n" if d else "")})
                if note: cells.append({"cell_type": "markdown", "id": "page-note", "metadata": {},
                                       "source": f"```{{note}}\n{note}\n```"})
            continue
        if c["cell_type"] == "markdown":
            if src.strip().startswith("<!-- WARNING: THIS FILE WAS AUTOGENERATED"): continue
            c["source"] = src
            c.pop("attachments", None) if not c.get("attachments") else None
            cells.append(c)
            continue
        opts, code = _strip_directives(src)
        tags = [t for (k, v), t in _QUARTO_TAGS.items() if opts.get(k, "").lower() == v]
        if "remove-cell" in tags: continue
        if opts.get("output") == "asis":  # quarto pastes such output into the page as markdown: show_doc's entries
            mds = [_source_text(o["data"]["text/markdown"]) for o in c.get("outputs", []) if "text/markdown" in
                   o.get("data", {})]
            for i, md in enumerate(mds):
                md = re.sub(r"\A\s*---\s*\n", "", _link_attrs(md))  # the rule above each entry is CSS here
                cells.append({"cell_type": "markdown", "id": f"{c.get('id', 'asis')}-{i}", "metadata": {},
                              "source": md})
            if "remove-input" in tags or not code.strip(): continue
            c["outputs"] = [o for o in c.get("outputs", []) if "text/markdown" not in o.get("data", {})]
        outs = []
        for o in c.get("outputs", []):
            data = o.get("data", {})
            if o.get("output_type") == "stream" and o.get("name") == "stderr":
                first = next((ln for ln in _source_text(o.get("text")).splitlines() if ln.strip()), "")
                warn(f"{label or proc.name}: a cell (id {c.get('id', '?')}) writes to stderr, shown on its page: "
                     + first[:100])
            if "application/vnd.jupyter.widget-view+json" in data:
                bar = _progress_html(data["application/vnd.jupyter.widget-view+json"], state)
                o = copy.deepcopy(o)
                o["data"] = {"text/html": bar} if bar else {k: v for k, v in data.items() if "widget" not in k}
                if not o["data"]: continue
            if "text/markdown" in data:
                o = copy.deepcopy(o)
                o["data"]["text/markdown"] = _link_attrs(_source_text(data["text/markdown"]))
            outs.append(o)
        if not code.strip() and not outs: continue
        if not code.strip(): tags.append("remove-input")
        c["source"], c["outputs"] = code, outs
        meta = {k: v for k, v in c.get("metadata", {}).items() if k not in ("tags",)}
        old_tags = [t for t in c.get("metadata", {}).get("tags", []) if t not in tags]
        if old_tags + tags: meta["tags"] = sorted(set(old_tags + tags))
        c["metadata"] = meta
        cells.append(c)
    nb["cells"] = cells
    nb["nbformat"], nb["nbformat_minor"] = 4, max(5, nb.get("nbformat_minor", 0))
    for i, c in enumerate(cells): c.setdefault("id", f"cell-{i}")
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    return title


def _page_name(proc: Path, rel: str) -> str:
    "Where nbdev (and so quarto) puts a notebook's page: its frontmatter's `output-file`, next to the notebook."
    nb = json.loads(proc.read_text(encoding="utf-8"))
    for c in nb["cells"]:
        if c["cell_type"] == "raw":
            m = re.search(r"^output-file:\s*(\S+)\s*$", _source_text(c["source"]), flags=re.M)
            if m: return str(Path(rel).parent / Path(m.group(1)).stem)
    return str(Path(rel).with_suffix(""))


def _md_link(doc: str, here: str = "") -> str:
    return os.path.relpath(doc, os.path.dirname(here) or ".") + ".ipynb" if not doc.endswith(".md") else doc


def _gallery(figs: Path, studies: list[tuple[str, str]], reports: dict[str, str] | None = None) -> str:
    """The figures page: every PNG in `figures/`, grouped by the study its name starts with, in the sidebar's order;
    a study's heading links to its report's page (`reports`: report name -> page)."""
    pngs = sorted(figs.glob("*.png")) if figs.is_dir() else []
    out = ["# Figures", "",
           "The figures in `figures/`, as the demo and the report notebooks last wrote them "
           "(`make demo`; each report renders its figures from `runs/`). Click a figure for full size.", ""]
    if not pngs:
        out.append("No figures yet: `make demo` writes them.")
        return "\n".join(out) + "\n"
    groups: dict[str, list[Path]] = {s: [] for s, _ in studies}
    for p in pngs:
        study = next((s for s, _ in sorted(studies, key=lambda x: -len(x[0])) if p.stem.startswith(s + "_")), "")
        groups.setdefault(study, []).append(p)
    titles = dict(studies)
    for study, ps in groups.items():
        if not ps: continue
        ref = f" ([report]({(reports or {})[study]}.ipynb))" if study in (reports or {}) else ""
        out += [f"## {titles.get(study, 'Other figures')}{ref}", "", "::::{container} gallery", ""]
        for p in ps:
            pdf = p.with_suffix(".pdf")
            cap = f"`{p.stem}`" + (f" · {{download}}`pdf <figures/{pdf.name}>`" if pdf.exists() else "")
            out += [f":::{{figure}} figures/{p.name}", f":alt: {p.stem}", f":target: _images/{p.name}", "",
                    cap, ":::", ""]
        out += ["::::", ""]
    return "\n".join(out)


def write_results(src: Path) -> list[str]:
    """The ledger's results pages (`docs/results/*.md`, generated by `make readme`) as pages of the site, under
    `results/`, each figure link shown as the figure (from the site's copy of `figures/`), and `results.md` listing
    them; returns their names (none: no page)."""
    pages = sorted((DOCS / "results").glob("*.md"))
    if not pages: return []
    (src / "results").mkdir(parents=True, exist_ok=True)
    for p in pages:
        text = re.sub(r"\[([^\]]*)\]\(\.\./\.\./figures/([^)]+\.png)\)", r"![\1](../figures/\2)",
                      p.read_text(encoding="utf-8"))
        (src / "results" / p.name).write_text(text, encoding="utf-8")
    body = ["# Results", "", "Every claim of the three papers as `grok_nb.ledger` codes and judges it: measure, unit, test, "
            "margin, effect of interest and its source, p, power, verdict, the alternative codings, the regime.", "",
            "```{toctree}", ":maxdepth: 1", ""] + [f"results/{p.stem}" for p in pages] + ["```", ""]
    (src / "results.md").write_text("\n".join(body), encoding="utf-8")
    return [p.stem for p in pages]


def write_guides(src: Path) -> list[tuple[str, str]]:
    """The hand-written guides (`docs/*.md`, e.g. `cluster.md`) as pages of the site, under `guides/`; returns their
    (name, title) pairs, the title being each page's first `# ` heading."""
    out = []
    for p in sorted(DOCS.glob("*.md")):
        text = p.read_text(encoding="utf-8")
        title = next((l[2:].strip() for l in text.splitlines() if l.startswith("# ")), p.stem)
        (src / "guides").mkdir(parents=True, exist_ok=True)
        (src / "guides" / p.name).write_text(text, encoding="utf-8")
        out.append((p.stem, title))
    return out


def write_sources(src: Path, pages: dict[str, dict], top: list[str], sections: list[tuple[str, list[str]]]):
    "Section pages, the gallery, and the index's table of contents (the root toctree gives the navigation bar)."
    figs = ROOT / "figures"
    if figs.is_dir(): shutil.copytree(figs, src / "figures", dirs_exist_ok=True)
    kinds = {f: notebook_kind(f) for f in pages}
    studies = [(kinds[f][1], p["title"]) for f, p in pages.items() if kinds[f][0] == "study"]
    reports = {kinds[f][1]: p["doc"] for f, p in pages.items() if kinds[f][0] == "report"}
    (src / "figures.md").write_text(_gallery(src / "figures", studies, reports), encoding="utf-8")
    names = []
    for title, files in sections:
        name = _SECTION_FILE.format(slug(title))
        items = [pages[f] for f in files]
        body = [f"# {title}", "", "```{toctree}", ":hidden:", ":maxdepth: 1", ""]
        body += [p["doc"] for p in items] + ["```", ""]
        body += [f"- [{p['title']}]({p['doc']}.ipynb)" + (f" — {p['desc']}" if p["desc"] else "") for p in items]
        (src / name).write_text("\n".join(body) + "\n", encoding="utf-8")
        names.append((title, name, items))
    index = next((pages[f] for f in top if pages[f]["doc"] == "index"), None)
    others = [pages[f] for f in top if pages[f]["doc"] != "index"]
    toc = ["## Contents", ""]
    for title, name, items in names:
        toc.append(f"- **[{title}]({name})**: " + ", ".join(f"[{p['title']}]({p['doc']}.ipynb)" for p in items))
    toc.append("- **[Figures](figures.md)**: the gallery of `figures/`")
    results = write_results(src)
    if results: toc.append("- **[Results](results.md)**: every claim in full, study by study (the ledger's pages)")
    guides = write_guides(src)
    toc += [f"- **[{title}](guides/{name}.md)**" for name, title in guides]
    toc += ["", "```{toctree}", ":hidden:", ":maxdepth: 2", ""]
    toc += [p["doc"] for p in others] + [n for _, n, _ in names] + ["figures"] + (["results"] if results else [])
    toc += [f"guides/{name}" for name, _ in guides]
    toc += ["```", ""]
    if index is None:
        (src / "index.md").write_text(f"# {ROOT.name}\n\n" + "\n".join(toc), encoding="utf-8")
        return
    path = src / "index.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "markdown", "id": "site-contents", "metadata": {}, "source": "\n".join(toc)})
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------------
# 5. Sphinx and links


def _doc_host() -> str:
    import configparser

    ini = configparser.ConfigParser()
    ini.read(ROOT / "settings.ini")
    d = ini["DEFAULT"]
    return d.get("doc_host", "").rstrip("/") + "/" + d.get("doc_baseurl", "/").strip("/")


_SECTION = re.compile(r'<section(?: class="[^"]*")? id="([^"]+)">\s*<h[1-6]>(.*?)<a class="headerlink" href="#\1"',
                      re.S)


def _entry_anchor(text: str) -> str:
    """An API entry named like its page (`train` on the train page) would get id `id1`, the title section having
    taken `train`; swap the two, so that nbdev's links (`train.html#train`) land on the entry."""
    from docutils.nodes import make_id

    secs = list(_SECTION.finditer(text))
    if len(secs) < 2: return text
    top = secs[0].group(1)
    for m in secs[1:]:
        if re.fullmatch(r"id\d+", m.group(1)) and make_id(re.sub(r"<[^>]+>", "", m.group(2))) == top:
            for fmt in ('id="{}"', 'href="#{}"'):
                a, b, tmp = fmt.format(top), fmt.format(m.group(1)), fmt.format("\0swap\0")
                text = text.replace(a, tmp).replace(b, a).replace(tmp, b)
            break
    return text


def postprocess(out: Path):
    """nbdev links names to `doc_host` URLs (`https://…/train.html#train`); point them into this site instead, with
    the fragment as Sphinx spells a heading's id, and give API entries named like their page the page's anchor."""
    from docutils.nodes import make_id

    host = _doc_host().rstrip("/") + "/"
    pat = re.compile(r'href="' + re.escape(host) + r'([^"#]*)(#[^"]*)?"')
    for page in out.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        up = "../" * (len(page.relative_to(out).parts) - 1)
        new = pat.sub(lambda m: f'href="{up}{m.group(1) or "index.html"}'
                                + (f'#{make_id(m.group(2)[1:])}' if m.group(2) else "") + '"', text)
        new = _entry_anchor(new)
        if new != text: page.write_text(new, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "_docs"), help="the site (replaced when the build succeeds)")
    ap.add_argument("--build", default=str(ROOT / "_docs_build"), help="intermediate files (executed, _proc, src)")
    ap.add_argument("--no-execute", action="store_true", help="render every notebook as written")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell when executing")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="notebooks executed at a time")
    ap.add_argument("--no-cache", action="store_true", help="execute every library notebook, cached or not")
    ap.add_argument("--execute-one", nargs=2, metavar=("SRC", "DST"), help=argparse.SUPPRESS)  # a worker's job
    a = ap.parse_args(argv)
    if a.execute_one:
        execute(Path(a.execute_one[0]), Path(a.execute_one[1]), a.timeout)
        return 0
    if a.jobs < 1: ap.error(f"--jobs must be >= 1, got {a.jobs}")
    return interruptible(_build, a)


def interruptible(fn, *args, **kwargs) -> int:
    """Run `fn(*args, **kwargs)`; its result if an int (an exit status), else 0. SIGINT, SIGTERM or SIGHUP stop it:
    every child process the build started is stopped (`_stop_children`) and the status is 128 + the signal's number."""
    for sig in (signal.SIGTERM, signal.SIGHUP): signal.signal(sig, _on_signal)
    try:
        r = fn(*args, **kwargs)
        return r if isinstance(r, int) else 0
    except KeyboardInterrupt as e:
        _stop_children()
        signum = e.args[0] if e.args and isinstance(e.args[0], int) else int(signal.SIGINT)
        print(f"docs: interrupted ({signal.Signals(signum).name}): the build and the processes it started are stopped",
              file=sys.stderr, flush=True)
        return 128 + signum


def _build(a) -> int:
    t0 = time.time()
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    out, build = Path(a.out).resolve(), Path(a.build).resolve()
    quiet_kernels(build)
    top, sections = read_sidebar()
    files = top + [f for _, fs in sections for f in fs]
    for sub in ("_proc", "src"): shutil.rmtree(build / sub, ignore_errors=True)  # executed/ is the cache
    src = build / "src"
    pages = {}
    to_run = [f for f in files if not a.no_execute and is_library(f) and _has_code(NBS / f)]
    t = time.time()
    ran = execute_all(to_run, build, a.timeout, a.jobs, use_cache=not a.no_cache) if to_run else {}
    n_ran = sum(1 for v in ran.values() if v != "cached")
    print(f"executed {n_ran} notebook(s) in {time.time() - t:.0f} s ({a.jobs} at a time), {len(ran) - n_ran} cached",
          flush=True)
    for f in files:
        nb = NBS / f
        run = f in ran
        print(f"rendering {f}", flush=True)
        proc = build / "_proc" / f
        desc = nbdev_process(build / "executed" / f if run else nb, proc, label=f)
        doc = _page_name(proc, f)
        kind, name = notebook_kind(f)
        note = _NOTES[kind].format(name=name) if kind and not run else ""
        title = to_sphinx(proc, src / (doc + ".ipynb"), desc, label=f, note=note)
        pages[f] = {"doc": doc, "title": title, "desc": desc}
    docs = [p["doc"] for p in pages.values()]
    dup = sorted({d for d in docs if docs.count(d) > 1})
    if dup: raise SystemExit(f"docs: two notebooks render to the same page: {dup} (see their titles / output-file)")
    write_sources(src, pages, top, sections)
    html_dir = build / "html"
    shutil.rmtree(html_dir, ignore_errors=True)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(DOCS), "-d", str(build / "doctrees"),
           str(src), str(html_dir)]
    print("sphinx: " + " ".join(cmd[3:]), flush=True)
    r = subprocess.Popen(cmd)
    _CHILDREN.append(r)
    if r.wait(): return r.returncode
    postprocess(html_dir)
    shutil.rmtree(out, ignore_errors=True)
    shutil.move(str(html_dir), str(out))
    n = sum(1 for p in out.rglob("*.html") if not p.relative_to(out).parts[0].startswith("_"))
    print(f"wrote {out / 'index.html'}: {len(pages)} notebook pages, {n} pages in all (with the section pages, the "
          f"gallery and search), {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    status = main()
    # nbdev's processing leaves one IPython shell per notebook in this process; their exit handlers (a namespace reset
    # and a garbage collection each) took 45-60 s for ~50 notebooks and do nothing the site needs: skip them
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
