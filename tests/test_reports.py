"""The Pythia report reads only the repository's samples (data/pythia_evals, data/blimp_results): with them it writes
its three figures and its summary; without them it fails, naming the missing file, instead of writing "no data" and
succeeding (which once let `make demo` drop the README's real-Pythia section without a word)."""
import json
from pathlib import Path

import papermill
import pytest

from grok_nb.sweep import _QUIET_KERNEL, report_notebooks

REPORT = report_notebooks()["pythia_blimp"]                # nbs/emergence/report_pythia_blimp.ipynb


def run(tmp_path: Path, **params):
    return papermill.execute_notebook(str(REPORT), str(tmp_path / "out.ipynb"), cwd=str(REPORT.parent),
                                      kernel_name="python3", progress_bar=False, extra_arguments=_QUIET_KERNEL,
                                      parameters={"runs_dir": str(tmp_path / "runs"),
                                                  "figures_dir": str(tmp_path / "figures"), **params})


def test_missing_input_fails_naming_the_path(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(papermill.PapermillExecutionError) as e:
        run(tmp_path, data_dir=str(tmp_path / "empty"))
    assert e.value.ename == "GrokError", e.value.ename
    missing = tmp_path / "empty" / "pythia_evals" / "pythia_v0_blimp_acc_by_step.csv"
    assert f"pythia_blimp: input not found: {missing}" in e.value.evalue, e.value.evalue
    assert not (tmp_path / "figures").exists() or not any((tmp_path / "figures").iterdir())


def test_the_repository_samples_give_every_figure(tmp_path):
    run(tmp_path)
    figures = sorted(p.name for p in (tmp_path / "figures").glob("*.png"))
    assert figures == ["pythia_blimp_dedup.png", "pythia_blimp_emergence.png", "pythia_blimp_spread.png"], figures
    summary = json.loads((tmp_path / "runs" / "_reports" / "pythia_blimp_summary.json").read_text())
    assert summary["lines"][0].startswith("threshold 0.8: 1072 curves"), summary["lines"][:1]   # 16 models x 67 UIDs
    assert not any("no data" in line for line in summary["lines"])
