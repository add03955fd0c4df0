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
rc=0
for t in test_pipe test_scn test_analytic test_spans; do
  [ -x "$b/tests/$t" ] || { echo "valgrind.sh: $b/tests/$t is not built" >&2; exit 1; }
  start=$(date +%s)
  if PROVESIM_SRC=$PWD CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
       "$b/tests/$t" > "$b/valgrind-$t.log" 2>&1; then
    echo "$t: clean under memcheck ($(( $(date +%s) - start )) s)"
  else
    echo "$t: FAILED under memcheck (log: $b/valgrind-$t.log)"; tail -20 "$b/valgrind-$t.log"; rc=1
  fi
done
exit $rc
