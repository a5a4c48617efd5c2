#!/usr/bin/env bash
# Fails when the exported package or the notebooks change under nbdev_export / nbdev_clean:
# the notebooks are the source of truth, and they are kept clean.
set -euo pipefail
snap() { find grok_nb nbs -type f \( -name '*.py' -o -name '*.ipynb' \) -not -path '*/.ipynb_checkpoints/*' -print0 | sort -z | xargs -0 sha256sum; }
before=$(snap)
.venv/bin/nbdev_export
.venv/bin/nbdev_clean
after=$(snap)
if [ "$before" != "$after" ]; then
  echo "nbdev_export/nbdev_clean changed files: notebooks and grok_nb/ are out of sync or notebooks are not clean:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "export and notebooks in sync and clean"
