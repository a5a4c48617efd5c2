#!/usr/bin/env bash
# Study A at the paper's setting on one GPU — LLaMA-35M, 2,000 steps of 512 x 256 tokens, a checkpoint every 100 — on
# the embedded grammar's corpus, built into a token store on this machine's CPUs; prints each phase's wall time, the
# training tokens/s and MFU, and study A's headline (see bench/paper_scale_a.py). Its own budget: 12 minutes, 1.5 x
# the 8 min measured on one H200 (bench/results/2026-12-04-h200/).
#   bash bench/paper_scale_a.sh              # on the GPU machine, after `make install`
#   bash bench/paper_scale_a.sh --dry-run    # the same code at tiny sizes on the CPU (tests/test_paper_scale.py)
#   bash bench/paper_scale_a.sh --design a2  # profile a2's grammar (varied order, harder forms), denser checkpoints
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=.venv/bin/python
[ -x "$PY" ] || PY=$(command -v python3)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
exec timeout -k 10 720 "$PY" bench/paper_scale_a.py "$@"
