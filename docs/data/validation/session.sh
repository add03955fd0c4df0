#!/usr/bin/env bash
# One device call of a validation session too long for one call (docs/validation-sessions.md, "The
# seventh session's protocol"), from the repository root:
#   [FIRST=1] [DONE=REGEX] [DEADLINE=S] bash docs/data/validation/session.sh BIN TSV...
# The same command, called again while the machine is warm, goes on where the last call
# stopped. The session's state (key cache aside) lives in STATE (default /tmp/provesim-val),
# which outlives a call as long as the machine does. Each call runs run.sh with RESUME=1
# over the TSV files in order: the rows without a report in STATE run, and none starts
# after DEADLINE seconds (default 540). So a call's rows are first what the last call
# left, then the next rows of the lists, as the protocol orders them.
# FIRST=1 marks the session's first call: it runs the warm-up (WARMUP, default 200
# partitions, not kept); it exits 2 when STATE already holds runs (another session's: a
# session of one call, docs/validation.md's seventeenth protocol, gives a fresh STATE).
# A later call that finds no STATE ran on a fresh machine (the last
# one went back): it stops at once with exit 3, and the caller calls again with DONE, an
# extended regex of the row names already measured (from the earlier calls' archives),
# and FIRST=1, since the new machine needs its warm-up too. That DONE holds for every later
# call on the new machine as well (STATE/done.txt): those calls need not repeat it.
# Each call leaves in $OUT one archive, call-UNIXTIME.tar: the runs it made
# (runs/NAME.{json,spans.jsonl.gz,sets,env,err,host}) and the log of the session so far.
# GATE=SHARE (the tenth session's protocol, docs/validation-sessions.md) runs the first TSV, the
# calibration, alone first. Once all its rows have run, the median over them of the
# spans headers' host_steal (the share of a run's cores' busy time the hypervisor gave to
# other guests; measure at 5cafe3c or later) must be at most SHARE. Above it the host was
# shared while the calibration ran: its runs move to STATE/rejected-K/runs (kept in the
# archive) and the calibration runs again, once (GATE_TRIES, default 2, tries in all);
# the last try is kept whatever its steal. The log says which. The gate's rows are those
# run.sh runs: ROWS and SKIP apply (validation.selected). GATE_EACH=1 (the eleventh
# session's protocol) gates every run instead of the median: the runs above SHARE move to
# rejected-K and only they run again (a run that alone sets a parameter, such as the
# batch multipliers' cal20-b2, passes a median gate however contended it was).
# A call stopped by SIGTERM or SIGINT (a device call past its time limit) stops its run,
# packs what it made so far into its archive and exits 1, so that the runs it finished
# come back; the next call runs the rest (give DEADLINE below the call's limit to end in
# time instead).
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: [FIRST=1] [DONE=REGEX] bash $0 BIN TSV..." >&2; exit 2; }
bin=$1; shift
STATE=${STATE:-/tmp/provesim-val} RET=${OUT:?OUT must name the folder that comes back}
if [ ! -d "$STATE/runs" ] && [ -z "${FIRST:-}" ]; then
  echo "no $STATE: this machine is fresh, and the session's earlier runs are not on it." >&2
  echo "Call again with FIRST=1 and DONE='name|name|...' (the rows already measured)." >&2
  exit 3
fi
# FIRST=1 starts a session: a STATE with runs already holds another (a warm machine's last
# session), and going on from it would mix two sessions' runs in one (a one-call session,
# docs/validation.md, "The seventeenth session's protocol", needs a fresh STATE)
if [ -n "${FIRST:-}" ] && ls "$STATE"/runs/*.json > /dev/null 2>&1; then
  echo "session.sh: FIRST=1, but $STATE already holds runs of a session; give a fresh STATE (e.g. STATE=/tmp/provesim-val-\$(date +%s))," >&2
  echo "or leave FIRST out to go on with that session" >&2
  exit 2
fi
mkdir -p "$STATE/runs"; stamp=$(mktemp); touch "$stamp"
# DONE outlives the call that gave it: every later call on this machine skips those rows too
# (their reports are on a machine that went back, not in this STATE). Without this, the
# fourteenth session's third call, on the machine its second call had started with DONE,
# ran 41 of the first machine's rows again.
[ -n "${DONE:-}" ] && { echo "$DONE" >> "$STATE/done.txt"
  echo "== rows measured on a machine that went back (DONE): $(tr '|' '\n' <<<"$DONE" | grep -c .)" >> "$STATE/log.txt"; }
[ -s "$STATE/done.txt" ] && { DONE=$(paste -sd'|' "$STATE/done.txt"); export DONE; }
warm=; [ -n "${FIRST:-}" ] && warm=${WARMUP:-200}
deadline=${DEADLINE:-540} t0=$(date +%s) rc=0
left() { echo $(( deadline - ($(date +%s) - t0) )); }
arc=$RET/call-$(date +%s).tar child=
# this call's runs (and the runs set aside) and the log, into $arc
pack() {
  # (not a spans file still under its temporary name: a run cut short)
  if ! (cd "$STATE" && find runs $(ls -d rejected-* 2>/dev/null) -type f -newer "$stamp" ! -name '*.tmp.*' | sort | tar -cf "$arc" -T - log.txt); then
    echo "session.sh: could not write $arc: this call's runs are only in $STATE" >&2
    rc=1
  fi
  echo "packed $(cd "$STATE" && find runs -name '*.json' -newer "$stamp" | wc -l) reports; $(ls "$STATE"/runs/*.json 2>/dev/null | wc -l) in all"
}
stopped() {
  echo "== session.sh: stopped by a signal at $(( $(date +%s) - t0 )) s; packing this call's runs" | tee -a "$STATE/log.txt"
  # run.sh, and whatever still writes into STATE/runs: the row's timeout and measure, which
  # GNU timeout puts in a process group of their own, so that a signal to this call's group
  # misses them. A run cut short writes no report, and the next call runs that row again.
  [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
  pkill -TERM -f -- "$STATE/runs/" 2>/dev/null
  for _ in $(seq 100); do pgrep -f -- "$STATE/runs/" > /dev/null || break; sleep 0.1; done
  # a run whose measure had ended, its spans not yet compressed by run.sh
  local f
  for f in "$STATE"/runs/*.spans.jsonl; do [ -f "$f" ] && [ -f "${f%.spans.jsonl}.json" ] && gzip -f "$f"; done
  rc=1
  pack
  exit 1
}
trap stopped TERM INT
# run.sh in the background and waited for, so that a signal reaches the trap at once
# (bash runs a trap only after a foreground command ends)
run_lists() {
  OUT=$STATE RESUME=1 WARMUP=$warm DEADLINE=$(left) bash docs/data/validation/run.sh "$bin" "$@" &
  child=$!
  wait "$child" || rc=1
  child=
}
if [ -n "${GATE:-}" ]; then
  calib=$1
  while :; do
    run_lists "$calib"
    warm=
    # the median host_steal of the calibration's runs and the runs above the gate, or
    # "incomplete" while some have not run
    read -r med over <<<"$(python3 -c '
import sys; sys.path.insert(0, "scripts")
from validation import calibration_steal
g = calibration_steal(sys.argv[1], sys.argv[2], float(sys.argv[3]))
print("incomplete" if g is None else "%.6f %s" % (g[0], " ".join(g[1])))' "$STATE/runs" "$calib" "$GATE")"
    [ "$med" = incomplete ] && break   # the next call goes on with it
    tries=$(( $(ls -d "$STATE"/rejected-* 2>/dev/null | wc -l) + 1 ))
    # GATE_EACH=1 (the eleventh session's protocol): every run at most the gate, and only
    # the runs above it run again; else the median decides and all of them run again
    if [ -n "${GATE_EACH:-}" ]; then ok=$([ -z "$over" ] && echo 1); what="runs above the gate: ${over:-none}"
    else ok=$(python3 -c "print(1 if float('$med') <= float('$GATE') else '')"); what="median host_steal $med"; fi
    if [ -n "$ok" ] || [ "$tries" -ge "${GATE_TRIES:-2}" ]; then
      echo "== calibration kept (try $tries): $what, gate $GATE (median $med)" | tee -a "$STATE/log.txt"
      break
    fi
    python3 -c '
import sys; sys.path.insert(0, "scripts")
from validation import set_aside
set_aside(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])' "$STATE" "$calib" "$tries" ${GATE_EACH:+$over}
    echo "== calibration rejected (try $tries): $what, gate $GATE; those runs in rejected-$tries, run again" | tee -a "$STATE/log.txt"
  done
fi
if [ "${med:-}" != incomplete ]; then
  run_lists "$@"
fi
pack
exit $rc
