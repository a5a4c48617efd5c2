"""Render the README's numbers from the demo's summaries: `make readme`.

`nbs/index.ipynb` holds the README's text. A number that a sentence reports is written between two HTML comments
that name a value of a report's summary (`grok_nb.sweep.save_summary(study, lines, runs_dir, values={...})`, which
`make demo` copies into `figures/summaries/<study>_summary.json`; a profile's go to
`figures/profile-<x>/summaries/`):

    the exposed split crosses 80% first (p = <!-- grokking: determiner_noun_agreement_1.median_p | .3f -->0.002<!-- / -->)

`<source>: <value name> | <format>`: the source is a study (`grokking`) or a profile's study (`profile-a/grokking`),
the format a Python format spec (optional; a missing value renders as `n/a`). Rendered on GitHub and on the docs
site the comments are invisible and the number between them shows.

The results table is a block: everything between `<!-- ledger: table -->` and `<!-- /ledger -->` is the claims
ledger (`figures/ledger.csv`, written by `grok_nb.ledger.write_ledger`) rendered by `grok_nb.ledger.readme_table`;
`<!-- ledger: run_sets -->` is the list of run sets the table cites, with their commands and measured wall times;
`<!-- ledger: regimes -->` the scale each study's verdicts were reached at, beside the paper's.

This script writes the summaries' current values and the ledger's blocks into `nbs/index.ipynb`, then converts it to
`README.md` with nbconvert. With `--check` it writes nothing and exits 1 if a marker or block of `nbs/index.ipynb` or
`README.md` shows something else than the summaries and the ledger (`tests/test_readme.py` runs that check).
"""
from __future__ import annotations
import json, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!--\s*(?P<src>[\w.-]+(?:/[\w.-]+)?)\s*:\s*(?P<key>[^|>]+?)\s*(?:\|\s*(?P<fmt>(?:(?!-->).)*?)\s*)?-->"
                    r"(?P<text>.*?)<!--\s*/\s*-->", re.S)


def load_summaries(figures: Path) -> dict[str, dict]:
    "`{source: values}` of every `<study>_summary.json` under `figures/summaries` and `figures/*/summaries`."
    out = {}
    for f in sorted(figures.glob("summaries/*_summary.json")) + sorted(figures.glob("*/summaries/*_summary.json")):
        study = f.name[: -len("_summary.json")]
        src = study if f.parent.parent == figures else f"{f.parent.parent.name}/{study}"
        out[src] = json.loads(f.read_text(encoding="utf-8")).get("values", {})
    return out


def render_value(value, fmt: str | None) -> str:
    "A summary value as the README shows it: `format(value, fmt)`, `n/a` for a missing (None) value."
    if value is None: return "n/a"
    return format(value, fmt) if fmt else str(value)


def fill(text: str, summaries: dict[str, dict]) -> tuple[str, list[str]]:
    """`text` with every marker's number replaced by its summary value, and the markers whose number changed
    (`source: key: old -> new`). A marker naming a source or value the summaries do not have is an error."""
    changed = []
    def sub(m):
        src, key, fmt, old = m["src"], m["key"].strip(), m["fmt"], m["text"]
        if src not in summaries:
            raise KeyError(f"marker {m.group(0)[:80]!r}: no summary {src!r} (have {sorted(summaries)})")
        if key not in summaries[src]:
            raise KeyError(f"marker {m.group(0)[:80]!r}: summary {src!r} has no value {key!r}")
        new = render_value(summaries[src][key], fmt)
        if new != old: changed.append(f"{src}: {key}: {old!r} -> {new!r}")
        return m.group(0)[: m.start("text") - m.start()] + new + m.group(0)[m.end("text") - m.start():]
    return MARKER.sub(sub, text), changed


BLOCK = re.compile(r"<!--\s*ledger:\s*(?P<name>\w+)\s*-->\n(?P<text>.*?)<!--\s*/ledger\s*-->", re.S)
README_FIGURES = {  # the README's gallery: key -> figure path under figures/ (the ledger cites them by key)
    "F1": "profile-a2b/grokking_accuracy_splits.png",
    "F2": "profile-b-heads/sparse_attention_vs_n_heads.png",
    "F3": "profile-b-heads/sparse_attention_vs_sparsity.png",
    "F4": "pythia_blimp_emergence.png",
    "F5": "profile-c-tiers/compartments_steps_to_loss.png",
    "F6": "profile-c-cases/compartments_bio_qa.png",
}


def load_ledger(figures: Path):
    "The committed ledger (figures/ledger.csv) as a DataFrame, or None."
    import pandas as pd
    p = figures / "ledger.csv"
    return pd.read_csv(p, keep_default_na=False, na_values=[""]) if p.exists() else None


def render_block(name: str, ledger, figures: Path) -> str:
    "The text of block `name` from the ledger."
    from grok_nb.ledger import readme_table, RUN_SETS, run_set_time, regime_lines
    if ledger is None: raise KeyError(f"block {name!r}: no figures/ledger.csv (run make readme)")
    ledger = ledger.astype(object).where(ledger.notna(), None)
    if name == "table": return readme_table(ledger, {v: k for k, v in README_FIGURES.items()}) + "\n"
    if name == "run_sets":
        lines = []
        for rs in dict.fromkeys(s.split("/")[0] for s in ledger.source):
            cmd = RUN_SETS.get(rs, ("?", ""))[0]
            lines.append(f"- `{rs.removeprefix('profile-')}`: `{cmd}` ({run_set_time(rs, figures)})")
        return "\n".join(lines) + "\n"
    if name == "regimes": return regime_lines(ledger) + "\n"
    raise KeyError(f"unknown ledger block {name!r}")


def fill_blocks(text: str, ledger, figures: Path) -> tuple[str, list[str]]:
    "`text` with every ledger block re-rendered, and the names of the blocks that changed."
    changed = []
    def sub(m):
        new = render_block(m["name"], ledger, figures)
        if new != m["text"]: changed.append(f"ledger block {m['name']}")
        return m.group(0)[: m.start("text") - m.start()] + new + m.group(0)[m.end("text") - m.start():]
    return BLOCK.sub(sub, text), changed


def markers(text: str) -> list[tuple[str, str, str]]:
    "`(source, key, shown text)` of every marker in `text`."
    return [(m["src"], m["key"].strip(), m["text"]) for m in MARKER.finditer(text)]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    index, readme = ROOT / "nbs" / "index.ipynb", ROOT / "README.md"
    summaries, ledger = load_summaries(ROOT / "figures"), load_ledger(ROOT / "figures")
    nb = json.loads(index.read_text(encoding="utf-8"))
    changed = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown": continue
        new, ch = fill("".join(cell["source"]), summaries)
        new, chb = fill_blocks(new, ledger, ROOT / "figures")
        changed += ch + chb
        cell["source"] = new.splitlines(keepends=True)
    if check:                                   # (the old README is only compared: its markers may name gone values)
        stale = (fill(readme.read_text(encoding="utf-8"), summaries)[1]
                 + fill_blocks(readme.read_text(encoding="utf-8"), ledger, ROOT / "figures")[1]
                 if readme.exists() else ["README.md missing"])
        for c in changed: print(f"nbs/index.ipynb: {c}")
        for c in stale: print(f"README.md: {c}")
        return int(bool(changed or stale))
    if changed: index.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "nbconvert", "--to", "markdown", str(index), "--output-dir", str(ROOT),
                    "--output", "README", "--log-level", "ERROR"], check=True)
    print(f"README.md rendered; {len(changed)} value(s) updated in nbs/index.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
