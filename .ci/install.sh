#!/usr/bin/env bash
# The install behind both README commands (`make demo`, `make test`): the project, editable, with its dev extras, into
# the virtual environment at $1 (default .venv), which must exist.
# uv (from PyPI) does it in under a minute where pip takes about a minute and a half. It is handed this machine's pip
# configuration (find-links: where the local torch CPU wheel lies; constraints), so it resolves the same packages, and
# it compiles bytecode at install time as pip does: where PYTHONDONTWRITEBYTECODE is set nothing is cached later, and
# every notebook kernel would compile torch and transformers again. If uv cannot be had or fails, pip does the install.
set -euo pipefail
venv=${1:-.venv}
py=$venv/bin/python
test -x "$py" || { echo "install: no python at $py (create the venv first)" >&2; exit 2; }
declare -A seen=()
args=()
while IFS= read -r line; do
  key=${line%%=*}
  val=${line#*=}
  val=${val#\'}
  val=${val%\'}
  case $key in
    *.find-links) opt=--find-links ;;
    *.constraint) opt=--constraint ;;
    *) continue ;;
  esac
  for v in $val; do
    [[ -n ${seen[$opt $v]:-} ]] && continue
    seen[$opt $v]=1
    args+=("$opt" "$v")
  done
done < <("$py" -m pip config list 2>/dev/null || true)
if "$py" -m pip install -q uv 2>/dev/null \
   && "$venv/bin/uv" pip install -q --compile-bytecode --python "$py" "${args[@]}" -e '.[dev]'; then
  exit 0
fi
echo "install: uv did not install the project; installing with pip" >&2
"$py" -m pip install -q --upgrade pip
"$py" -m pip install -q -e '.[dev]'
