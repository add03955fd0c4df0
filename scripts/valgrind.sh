#!/usr/bin/env bash
# The simulator's suites under valgrind memcheck (CI runs it after the README's test
# command, on the build it made): any invalid read or write, use of an uninitialised
# value, or definite leak fails it (exit 1). In-process suites only (the end-to-end ones
# run the provesim binary, which the ASan build covers).
#   bash scripts/valgrind.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
if ! command -v valgrind >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
  else
    echo "valgrind.sh: needs valgrind (apt-get install valgrind)" >&2
    exit 1
  fi
fi
# The suites run side by side, as many at once as there are cores (the longest first);
# their verdicts are printed in this order once all have run.
suites="test_pipe test_scn test_spans test_analytic"
for t in $suites; do
  [ -x "$b/tests/$t" ] || { echo "valgrind.sh: $b/tests/$t is not built" >&2; exit 1; }
done
one() {
  local t=$1 start
  start=$(date +%s)
  if PROVESIM_SRC=$PWD CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
       "$b/tests/$t" > "$b/valgrind-$t.log" 2>&1; then
    echo "$t: clean under memcheck ($(( $(date +%s) - start )) s)" > "$b/valgrind-$t.verdict"
  else
    echo "$t: FAILED under memcheck (log: $b/valgrind-$t.log)" > "$b/valgrind-$t.verdict"
  fi
}
export -f one
export b
rm -f "$b"/valgrind-*.verdict
printf '%s\n' $suites | xargs -P "$(nproc)" -I{} bash -c 'one {}'
rc=0
for t in $suites; do
  if [ -f "$b/valgrind-$t.verdict" ]; then cat "$b/valgrind-$t.verdict"; else echo "$t: no verdict (memcheck did not finish)"; rc=1; fi
  if ! grep -q ': clean under memcheck' "$b/valgrind-$t.verdict" 2>/dev/null; then tail -20 "$b/valgrind-$t.log"; rc=1; fi
done
exit $rc
