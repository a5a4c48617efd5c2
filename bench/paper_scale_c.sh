#!/usr/bin/env bash
# Study C's compartment tax on one GPU: c = 1, 2, 4, 8 on the two smallest paper tiers (gpt-8-32, gpt-8-64),
# 2 seeds each; prints each run's wall time, tokens/s and MFU, and the study's headline (see
# bench/paper_scale_grid.py). Its own budget: 9 minutes (1.5 x the estimate).
#   bash bench/paper_scale_c.sh              # on the GPU machine, after `make install`
#   bash bench/paper_scale_c.sh --dry-run    # the same code at tiny sizes on the CPU (tests/test_paper_scale.py)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=.venv/bin/python
[ -x "$PY" ] || PY=$(command -v python3)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
exec timeout -k 10 540 "$PY" bench/paper_scale_grid.py c "$@"
