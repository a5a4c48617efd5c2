#!/usr/bin/env bash
# Study B at the paper's context lengths on one GPU: the synthetic linear map at S = 64-512 cells, 16
# heads, 3 seeds each; prints each run's wall time, tokens/s and MFU, and the study's headline (see
# bench/paper_scale_grid.py). Its own budget: 9 minutes (1.5 x the estimate).
#   bash bench/paper_scale_b.sh              # on the GPU machine, after `make install`
#   bash bench/paper_scale_b.sh --dry-run    # the same code at tiny sizes on the CPU (tests/test_paper_scale.py)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=.venv/bin/python
[ -x "$PY" ] || PY=$(command -v python3)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
exec timeout -k 10 540 "$PY" bench/paper_scale_grid.py b "$@"
