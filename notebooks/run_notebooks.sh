#!/usr/bin/env bash
# Executes provesim's notebooks on a small sweep, failing when a cell fails, and runs the
# tests of their shared loading code. Usage: notebooks/run_notebooks.sh [PROVESIM_BINARY]
# (or PROVESIM_BIN in the environment). Installs jupyter, nbconvert, matplotlib, pandas and
# pytest from PyPI into a virtual environment (reused between runs: PROVESIM_NB_VENV,
# default ~/.cache/provesim-nb-venv).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:-${PROVESIM_BIN:-}}"
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "run_notebooks.sh: expected the provesim binary as \$1 or PROVESIM_BIN, got '${bin}'" >&2
  exit 2
fi
export PROVESIM_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
venv="${PROVESIM_NB_VENV:-$HOME/.cache/provesim-nb-venv}"
if [ ! -x "$venv/bin/jupyter" ] || [ ! -x "$venv/bin/pytest" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check jupyter nbconvert ipykernel matplotlib pandas pytest
fi
export PROVESIM_NB_SMALL=1
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$here"
"$venv/bin/pytest" -q -p no:cacheprovider test_provesim_nb.py
for nbk in "$here"/*.ipynb; do
  # --execute stops at the first cell that raises, and nbconvert exits non-zero.
  "$venv/bin/jupyter" nbconvert --to notebook --execute --ExecutePreprocessor.timeout=300 \
    --ExecutePreprocessor.kernel_name=python3 --output-dir "$out" "$nbk"
done
echo "notebooks: all cells ran"
