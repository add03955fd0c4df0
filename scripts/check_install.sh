#!/usr/bin/env bash
# Checks what `cmake --install` puts in place, from a build folder: the binary, the models
# and configs, the bash completion (and that it completes commands and options), and a
# manual page per command when help2man made them.
#   bash scripts/check_install.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
cmake --install "$build" --prefix "$dest" >/dev/null
p=$dest/bin/provesim
[ -x "$p" ] || { echo "no bin/provesim"; exit 1; }
[ -f "$dest/share/provesim/configs/seed-coarse-mutex.yaml" ] || { echo "no configs"; exit 1; }
comp=$dest/share/bash-completion/completions/provesim
[ -f "$comp" ] || { echo "no bash completion"; exit 1; }
. "$comp"
t() { COMP_WORDS=("$p" "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _provesim; echo "${COMPREPLY[*]}"; }
[ "$(t sim)" = simulate ] || { echo "completion of 'sim': '$(t sim)'"; exit 1; }
[ "$(t simulate --thr)" = --threads ] || { echo "completion of 'simulate --thr': '$(t simulate --thr)'"; exit 1; }
[ "$(t help prover-b)" = prover-bench ] || { echo "completion of 'help prover-b': '$(t help prover-b)'"; exit 1; }
if command -v help2man >/dev/null; then
  n=0
  for c in "" -simulate -sweep -plan -estimate -sensitivity -calibrate -validate -infer -report -trace -measure -record -prove -verify -prover-bench; do
    f=$dest/share/man/man1/provesim$c.1
    grep -q '^\.SH' "$f" || { echo "manual page $f missing or empty"; exit 1; }
    n=$((n + 1))
  done
  grep -q -- 'provesim simulate SCENARIO' "$dest/share/man/man1/provesim-simulate.1" || { echo "provesim-simulate.1 is not simulate's help"; exit 1; }
  echo "install: binary, configs, bash completion, $n manual pages"
else
  echo "install: binary, configs, bash completion (no help2man: no manual pages)"
fi
