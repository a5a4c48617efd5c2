"""A catalogue of bad parameter values across the four studies and the command line. Each must be refused up front —
by the one shared validator (each study's spec, grok_nb.sweep.study_rules, through resolve_params / study_params) — with an error that
names the parameter, the value and what is allowed, and with nothing written: no run folder, no cache."""
import contextlib, io, os, subprocess, sys
from pathlib import Path
import pytest
from grok_nb.core import GrokError
from grok_nb.sweep import run_study, study_notebooks
from grok_nb.jobs import main

ROOT = Path(__file__).resolve().parent.parent
NO = "/no/such/path/anywhere"
CATALOGUE = [
    # study A
    ("grokking", {"threshold": 1.5}, "'threshold' = 1.5 is not allowed: must be a number in (0, 1]"),
    ("grokking", {"threshold": 0}, "'threshold' = 0 is not allowed"),
    ("grokking", {"steps": 0}, "'steps' = 0 is not allowed: must be an int >= 1"),
    ("grokking", {"steps": -3}, "'steps' = -3"),
    ("grokking", {"steps": True}, "'steps' must be of type int"),
    ("grokking", {"checkpoint_every": 0}, "'checkpoint_every' = 0"),
    ("grokking", {"checkpoint_every": -5}, "'checkpoint_every' = -5"),
    ("grokking", {"n_null": 0}, "'n_null' = 0"),
    ("grokking", {"n_boot": -1}, "'n_boot' = -1 is not allowed: must be an int >= 0"),
    ("grokking", {"batch_size": 0}, "'batch_size' = 0"),
    ("grokking", {"seq_len": 1}, "'seq_len' = 1 is not allowed: must be an int >= 2"),
    ("grokking", {"lr": 0.0}, "'lr' = 0.0 is not allowed: must be a number > 0"),
    ("grokking", {"lr": -1e-3}, "'lr' = -0.001"),
    ("grokking", {"phenomena": "determiner_noun_agreement_1"}, "'phenomena' must be of type list"),
    ("grokking", {"phenomena": []}, "'phenomena' = [] is not allowed: must be a list of at least 1"),
    ("grokking", {"corpus": NO}, f"'corpus' = '{NO}' is not allowed: must be 'embedded', 'hf:<name>' or an existing"),
    ("grokking", {"pairs": "../no/such/blimp"}, "'pairs' = '"),
    ("grokking", {"corpus": str(ROOT / "data/english/c4_en_sample1000.jsonl.gz")},           # pairs: 'embedded'
     "'pairs' = 'embedded' is not allowed: must be 'embedded', 'hf:<name>' or an existing file or folder; 'embedded' "
     "only with corpus='embedded'"),
    ("grokking", {"tokenizer": "./no/such/tokenizer"}, "'tokenizer' = '"),
    ("grokking", {"preset": "llama-huge"}, "'preset' = 'llama-huge' is not allowed: must be one of"),
    ("grokking", {"vocab_size": 0}, "'vocab_size' = 0"),
    ("grokking", {"seed": -1}, "'seed' = -1 is not allowed: must be an int >= 0"),
    ("grokking", {"nproc": 0}, "'nproc' = 0"),
    ("grokking", {"device": "tpu"}, "'device' = 'tpu' is not allowed"),
    ("grokking", {"allow_repeats": 1}, "'allow_repeats' must be of type bool"),
    ("grokking", {"zipf": 0}, "'zipf' = 0"),
    ("grokking", {"max_tokens": 0}, "'max_tokens' = 0 is not allowed: must be None or an int >= 1"),
    ("grokking", {"stpes": 10}, "unknown parameter 'stpes'"),
    ("grokking", {"run_dir": "/tmp/x"}, "'run_dir' is set by the sweep"),
    # study B, suite
    ("emergence", {"pass_threshold": 1.5}, "'pass_threshold' = 1.5 is not allowed: must be a number in (0, 1]"),
    ("emergence", {"suite": "hub"}, "'suite' = 'hub' is not allowed: must be one of 'local', 'pythia', 'polypythia'"),
    ("emergence", {"sizes": "pythia-tiny"}, "'sizes' must be of type list"),
    ("emergence", {"sizes": ["pythia-huge"]}, "local-suite sizes among the pythia-* presets"),
    ("emergence", {"seeds": [-1]}, "'seeds' = [-1]"),
    ("emergence", {"seeds": [0, 0]}, "distinct"),
    ("emergence", {"tasks": {}}, "'tasks' = {} is not allowed"),
    ("emergence", {"tasks": {"no_such_task": {}}}, "'tasks' = {'no_such_task': {}}"),
    ("emergence", {"tasks": {"ioi": {"threshold": 1.5}}}, "task thresholds in (0, 1]"),
    ("emergence", {"tokenizer": "char"}, "'tokenizer' = 'char'"),
    ("emergence", {"p_base": 1.5}, "'p_base' = 1.5 is not allowed: must be a number in [0, 1]"),
    ("emergence", {"story_rates": {"p_repeat": 2.0}}, "'story_rates' ="),
    ("emergence", {"checkpoint_every": 0}, "'checkpoint_every' = 0 is not allowed: must be None or an int >= 1"),
    ("emergence", {"coarse": 0}, "'coarse' = 0"),
    ("emergence", {"hub_root": NO}, "'hub_root' ="),
    ("emergence", {"size_overrides": {"pythia-tiny": {"n_heds": 2}}}, "'size_overrides' = {'pythia-tiny': {'n_heds': 2}} "
     "is not allowed"),
    # study B, synthetic tasks
    ("sparse_attention", {"eval_every": 0}, "'eval_every' = 0 is not allowed: must be an int >= 1"),
    ("sparse_attention", {"n_heads": 0}, "'n_heads' = 0 is not allowed: must be an int >= 1"),
    ("sparse_attention", {"sparsity": 9}, "'sparsity' = 9 is not allowed: must be an int >= 1, and at most n_cells"),
    ("sparse_attention", {"window": 9}, "'window' = 9"),
    ("sparse_attention", {"n_rules": 3}, "'n_rules' = 3 is not allowed: must be an int >= 1, and 1 unless n_states > 2"),
    ("sparse_attention", {"arch": "lstm"}, "'arch' = 'lstm' is not allowed: must be one of 'transformer'"),
    ("sparse_attention", {"task": "parity"}, "'task' = 'parity'"),
    ("sparse_attention", {"bias_heads": 5}, "'bias_heads' = 5 is not allowed: must be None, 'all' or an int in [1, n_heads]"),
    ("sparse_attention", {"bias_strength": -1.0}, "'bias_strength' = -1.0"),
    ("sparse_attention", {"bias_strength": 8.0, "arch": "mlp_mixer"}, "0 unless arch is 'transformer' and nproc is 1"),
    ("sparse_attention", {"pretrain": "wiki"}, "'pretrain' = 'wiki'"),
    ("sparse_attention", {"early_stop": 1}, "'early_stop' must be of type bool"),
    ("sparse_attention", {"n_cells": 1}, "'n_cells' = 1 is not allowed: must be an int >= 2"),
    ("sparse_attention", {"eval_batch": 0}, "'eval_batch' = 0"),
    ("sparse_attention", {"d_head": 0}, "'d_head' = 0"),
    ("sparse_attention", {"steps": 0}, "'steps' = 0"),
    # study C
    ("compartments", {"c": 0}, "'c' = 0 is not allowed: must be an int >= 1"),
    ("compartments", {"c": True}, "'c' must be of type int"),
    ("compartments", {"init": "zeros"}, "'init' = 'zeros'"),
    ("compartments", {"case": "trilingual"}, "'case' = 'trilingual'"),
    ("compartments", {"translation_fraction": 1.0}, "'translation_fraction' = 1.0 is not allowed: must be a number in [0, 1)"),
    ("compartments", {"infonce_tau": 0.0}, "'infonce_tau' = 0.0"),
    ("compartments", {"infonce_weight": -0.1}, "'infonce_weight' = -0.1"),
    ("compartments", {"corpus": "zh"}, "for case 'bilingual' 'embedded' or 'zh'"),
    ("compartments", {"case": "bio_qa"}, "'corpus' = 'embedded' is not allowed"),
    ("compartments", {"corpus": NO}, f"'corpus' = '{NO}'"),
    ("compartments", {"proportions": [0.5]}, "'proportions' = [0.5] is not allowed: must be None or a list"),
    ("compartments", {"size": "gpt-huge"}, "'size' = 'gpt-huge'"),
    ("compartments", {"n_valid": 0}, "'n_valid' = 0"),
    ("compartments", {"tokenizer": "other"}, "'tokenizer' = 'other'"),
    ("compartments", {"eval_every": 0}, "'eval_every' = 0"),
    ("compartments", {"base_vocab": 0}, "'base_vocab' = 0"),
    ("compartments", {"pretrain_steps": 0}, "'pretrain_steps' = 0"),
    ("compartments", {"trans_half": 32}, "'trans_half' = 32 is not allowed: must be None or an int >= 1, and at most (seq_len - 2) // 2"),
    ("compartments", {"infonce_pairs": 0}, "'infonce_pairs' = 0 is not allowed: must be an int >= 1"),
    ("compartments", {"eval_batches": 0}, "'eval_batches' = 0"),
    ("compartments", {"max_tokens": 1000}, "'max_tokens' = 1000 is not allowed: must be None or an int >= 1, and set only for a real corpus"),
    ("compartments", {"case": "bilingual", "max_tokens": 1000}, "or the en/zh pair"),
    ("compartments", {"data_procs": 0}, "'data_procs' = 0"),
    ("compartments", {"c": 100_000}, "'c' = 100000 is not allowed: must be an int >= 1, and at most 2^20 tokens"),
    ("grokking", {"concept_layer": 99}, "'concept_layer' = 99 is not allowed: must be None or an int >= 0, and at most "
     "the preset's number of layers"),
]
try:
    import torch
    if not torch.cuda.is_available():                 # checked where the run executes, before its kernel starts
        CATALOGUE.append(("sparse_attention", {"device": "cuda"}, "device='cuda', but this machine has no CUDA device"))
except ImportError: pass
CLI = [  # the command line: parsed, then the same validator; exit status 2 and one line on stderr
    (["run", "grokking", "-p", "threshold=1.5"], "'threshold' = 1.5"),
    (["run", "emergence", "-p", "pass_threshold=1.5"], "'pass_threshold' = 1.5"),
    (["run", "sparse_attention", "-p", "eval_every=0"], "'eval_every' = 0"),
    (["run", "compartments", "-p", "c=0"], "'c' = 0"),
    (["sweep", "sparse_attention", "-p", "eval_every=25,0"], "'eval_every' = 0"),   # one bad value stops the sweep
    (["sweep", "grokking", "-p", "seed=0,1", "-p", "steps=0"], "'steps' = 0"),
    (["run", "grokking", "-p", "steps"], "must look like key=value"),
    (["run", "no_such_study"], "unknown study 'no_such_study'"),
]
STUDIES = [s for s in ("grokking", "emergence", "sparse_attention", "compartments") if s in study_notebooks()]


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    "An empty workspace (caches) and runs folder: the test checks both stay empty."
    monkeypatch.setenv("GROK_NB_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.delenv("GROK_NB_STUDIES_DIR", raising=False)        # the repository's studies
    (tmp_path / "ws").mkdir()
    yield tmp_path
    assert not (tmp_path / "runs").exists(), sorted((tmp_path / "runs").rglob("*"))
    assert list((tmp_path / "ws").iterdir()) == [], sorted((tmp_path / "ws").rglob("*"))


def test_catalogue(nowhere):
    assert len(CATALOGUE) + len(CLI) >= 40 and {s for s, _, _ in CATALOGUE} == set(STUDIES)
    outcomes = []
    for study, bad, want in CATALOGUE:
        with pytest.raises(GrokError) as e: run_study(study, bad, runs_dir=nowhere / "runs")
        assert want in str(e.value), (study, bad, str(e.value))
        assert str(e.value).startswith(f"study {study!r}: "), str(e.value)
        outcomes.append("refused")
    for argv, want in CLI:
        err = io.StringIO()
        with contextlib.redirect_stderr(err): rc = main([*argv, "--runs-dir", str(nowhere / "runs")])
        assert rc == 2 and want in err.getvalue() and err.getvalue().count("\n") == 1, (argv, rc, err.getvalue())
        outcomes.append("refused")
    print(f"catalogue: {len(outcomes)} bad values, {outcomes.count('refused')} refused up front")


def test_cli_process(nowhere):
    "The installed command, in a process of its own: exit status 2, one line, nothing written."
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    r = subprocess.run([sys.executable, "-c", "from grok_nb.jobs import main; raise SystemExit(main())", "run",
                        "sparse_attention", "-p", "eval_every=0", "--runs-dir", str(nowhere / "runs")],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and r.stdout == "", (r.returncode, r.stdout, r.stderr)
    assert r.stderr.strip().splitlines() == ["grok-nb: error: study 'sparse_attention': parameter 'eval_every' = 0 is "
                                             "not allowed: must be an int >= 1"], r.stderr


BAD_IN_NOTEBOOK = {"grokking": {"threshold": 1.5}, "emergence": {"pass_threshold": 1.5},
                   "sparse_attention": {"eval_every": 0}, "compartments": {"c": 0}}

@pytest.mark.parametrize("study", STUDIES)
def test_notebook_refuses_before_any_work(study, nowhere):
    "Executed directly (not through run_study): the notebook's setup call (study_params) refuses the value."
    import papermill
    out, nb = nowhere / "out.ipynb", study_notebooks()[study]
    with pytest.raises(papermill.PapermillExecutionError) as e:
        papermill.execute_notebook(str(nb), str(out), parameters=BAD_IN_NOTEBOOK[study],
                                   cwd=str(nb.parent), kernel_name="python3", progress_bar=False,
                                   extra_arguments=["--IPKernelApp.log_level=ERROR"])
    name = next(iter(BAD_IN_NOTEBOOK[study]))
    assert e.value.ename == "GrokError" and f"parameter {name!r} = " in e.value.evalue, (e.value.ename, e.value.evalue)
    assert "study_params(" in e.value.source                              # the setup cell, before any data
    out.unlink()
