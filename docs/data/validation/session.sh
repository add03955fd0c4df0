#!/usr/bin/env bash
# One device call of a validation session too long for one call (docs/validation.md, "The
# seventh session's protocol"), from the repository root:
#   [FIRST=1] [DONE=REGEX] [DEADLINE=S] bash docs/data/validation/session.sh BIN TSV...
# The same command, called again while the machine is warm, goes on where the last call
# stopped. The session's state (key cache aside) lives in STATE (default /tmp/provesim-val),
# which outlives a call as long as the machine does. Each call runs run.sh with RESUME=1
# over the TSV files in order: the rows without a report in STATE run, and none starts
# after DEADLINE seconds (default 540). So a call's rows are first what the last call
# left, then the next rows of the lists, as the protocol orders them.
# FIRST=1 marks the session's first call: it runs the warm-up (WARMUP, default 200
# partitions, not kept). A later call that finds no STATE ran on a fresh machine (the last
# one went back): it stops at once with exit 3, and the caller calls again with DONE, an
# extended regex of the row names already measured (from the earlier calls' archives),
# and FIRST=1, since the new machine needs its warm-up too.
# Each call leaves in $OUT one archive, call-UNIXTIME.tar: the runs it made
# (runs/NAME.{json,spans.jsonl.gz,sets,env,err}) and the log of the session so far.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: [FIRST=1] [DONE=REGEX] bash $0 BIN TSV..." >&2; exit 2; }
bin=$1; shift
STATE=${STATE:-/tmp/provesim-val} RET=${OUT:?OUT must name the folder that comes back}
if [ ! -d "$STATE/runs" ] && [ -z "${FIRST:-}" ]; then
  echo "no $STATE: this machine is fresh, and the session's earlier runs are not on it." >&2
  echo "Call again with FIRST=1 and DONE='name|name|...' (the rows already measured)." >&2
  exit 3
fi
mkdir -p "$STATE/runs"; stamp=$(mktemp); touch "$stamp"
warm=; [ -n "${FIRST:-}" ] && warm=${WARMUP:-200}
OUT=$STATE RESUME=1 WARMUP=$warm DEADLINE=${DEADLINE:-540} bash docs/data/validation/run.sh "$bin" "$@"
rc=$?
(cd "$STATE" && find runs -type f -newer "$stamp" | sort | tar -cf "$RET/call-$(date +%s).tar" -T - log.txt)
echo "packed $(cd "$STATE" && find runs -name '*.json' -newer "$stamp" | wc -l) reports; $(ls "$STATE"/runs/*.json | wc -l) in all"
exit $rc
