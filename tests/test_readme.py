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


def test_committed_readme_matches_committed_summaries():
    summaries = rr.load_summaries(ROOT / "figures")
    index = "".join("".join(c["source"]) for c in json.loads((ROOT / "nbs" / "index.ipynb").read_text())["cells"]
                    if c["cell_type"] == "markdown")
    readme = (ROOT / "README.md").read_text()
    assert rr.markers(index), "nbs/index.ipynb cites no summary value"
    assert rr.markers(readme) == rr.markers(index), "README.md is not rendered from nbs/index.ipynb: run make readme"
    for name, text in (("nbs/index.ipynb", index), ("README.md", readme)):
        assert rr.fill(text, summaries)[1] == [], f"{name} disagrees with figures/summaries: run make readme"
