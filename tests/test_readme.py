"""The README's numbers are the demo's: every marker in nbs/index.ipynb and README.md shows the value of the committed
summary it names (figures/summaries/, written by `make demo`), and `make readme` is what keeps them so."""
import importlib.util, json
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("render_readme", ROOT / "docs" / "render_readme.py")
rr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rr)


def test_fill_renders_and_reports_changes():
    s = {"grokking": {"p": 0.0123, "n": 3, "gone": None}, "profile-a/grokking": {"dt": 1234.0}}
    text = ("p = <!-- grokking: p | .3f -->0.5<!-- / --> over <!-- grokking: n -->3<!-- / --> seeds, "
            "<!-- profile-a/grokking: dt | ,.0f -->?<!-- / --> steps, <!-- grokking: gone | .2f -->1<!-- / -->")
    new, changed = rr.fill(text, s)
    assert new == ("p = <!-- grokking: p | .3f -->0.012<!-- / --> over <!-- grokking: n -->3<!-- / --> seeds, "
                   "<!-- profile-a/grokking: dt | ,.0f -->1,234<!-- / --> steps, <!-- grokking: gone | .2f -->n/a<!-- / -->")
    assert changed == ["grokking: p: '0.5' -> '0.012'", "profile-a/grokking: dt: '?' -> '1,234'",
                       "grokking: gone: '1' -> 'n/a'"]
    assert rr.fill(new, s)[1] == []                                         # rendering twice changes nothing
    with pytest.raises(KeyError, match="has no value 'q'"): rr.fill("<!-- grokking: q -->1<!-- / -->", s)
    with pytest.raises(KeyError, match="no summary 'emergence'"): rr.fill("<!-- emergence: q -->1<!-- / -->", s)


def test_load_summaries(tmp_path):
    (tmp_path / "summaries").mkdir()
    (tmp_path / "profile-b" / "summaries").mkdir(parents=True)
    (tmp_path / "summaries" / "grokking_summary.json").write_text(json.dumps({"values": {"a": 1}}))
    (tmp_path / "profile-b" / "summaries" / "emergence_summary.json").write_text(json.dumps({"values": {"b": 2}}))
    assert rr.load_summaries(tmp_path) == {"grokking": {"a": 1}, "profile-b/emergence": {"b": 2}}


def _index_text():
    return "".join("".join(c["source"]) for c in json.loads((ROOT / "nbs" / "index.ipynb").read_text())["cells"]
                   if c["cell_type"] == "markdown")


def test_committed_readme_matches_committed_summaries_and_ledger():
    summaries, ledger = rr.load_summaries(ROOT / "figures"), rr.load_ledger(ROOT / "figures")
    index, readme = _index_text(), (ROOT / "README.md").read_text()
    assert rr.BLOCK.search(index), "nbs/index.ipynb has no ledger table block"
    assert rr.markers(readme) == rr.markers(index), "README.md is not rendered from nbs/index.ipynb: run make readme"
    for name, text in (("nbs/index.ipynb", index), ("README.md", readme)):
        assert rr.fill(text, summaries)[1] == [], f"{name} disagrees with figures/summaries: run make readme"
        assert rr.fill_blocks(text, ledger, ROOT / "figures")[1] == [], f"{name} disagrees with the ledger: make readme"


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 180, f"README.md has {len(lines)} lines (at most 180: details go to docs/results/)"
    long = [(i + 1, len(l)) for i, l in enumerate(lines) if len(l) > 120]
    assert not long, f"README.md lines over 120 characters (line, length): {long}"


def test_committed_ledger_is_the_ledger_of_the_committed_run_tables():
    "figures/ledger.csv is what grok_nb.ledger computes from the committed run tables: verdicts, p-values, effects."
    import numpy as np
    from grok_nb.ledger import project_ledger
    fresh, committed = project_ledger(ROOT / "figures"), rr.load_ledger(ROOT / "figures")
    assert list(committed.id) == list(fresh.id)
    for col in ("source", "verdict", "here", "n", "budget", "alternatives", "flipped_by", "coded", "ran", "post_hoc",
                "earlier_verdict", "regime", "of_interest_source"):
        assert committed[col].fillna("").astype(str).tolist() == fresh[col].fillna("").astype(str).tolist(), col
    for col in ("p", "p_adjusted"):
        a, b = committed[col].astype(float).to_numpy(), fresh[col].astype(float).to_numpy()
        assert np.allclose(a, b, equal_nan=True), col


def test_readme_figures_exist_and_are_the_gallery():
    "Every image the README shows is a committed file under figures/, and the gallery (F1 ... F6) is what it shows."
    import re
    readme = (ROOT / "README.md").read_text()
    shown = re.findall(r"!\[[^\]]*\]\((figures/[^)]+)\)", readme)
    assert 1 <= len(shown) <= 6, f"the README shows {len(shown)} figures (1 to 6)"
    missing = [p for p in shown if not (ROOT / p).exists()]
    assert not missing, f"README.md shows figures that do not exist: {missing}"
    assert sorted(shown) == sorted(f"figures/{p}" for p in rr.README_FIGURES.values()), \
        "README.md's figures are not docs/render_readme.py's README_FIGURES"
