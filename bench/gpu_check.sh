#!/usr/bin/env bash
# The prepared GPU check: one command, under 5 minutes on one CUDA GPU after a fresh `make install`. It prints one
# table: llama-35m / llama-130m training tokens/s and MFU in bf16 at sequence length 256 (eager and torch.compile),
# minimal-pair scoring throughput, and a 2-GPU torchrun run when two GPUs are visible (see bench/gpu_check.py).
#   bash bench/gpu_check.sh              # on the GPU machine
#   bash bench/gpu_check.sh --dry-run    # the same code on the CPU at tiny sizes, in seconds (tests/test_gpu_check.py)
#   GPU_PEAK_TFLOPS=989 bash bench/gpu_check.sh --json gpu_check.json   # a peak for a GPU the table does not know
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=.venv/bin/python
[ -x "$PY" ] || PY=$(command -v python3)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1
# the script keeps to its own 270 s budget (rows that would not fit are skipped); this is the backstop
exec timeout -k 10 300 "$PY" bench/gpu_check.py "$@"
