#!/usr/bin/env bash
# docs/data/validation/session.sh stopped by a signal in the middle of a call (a device call
# past its time limit) packs the runs it finished, and the next call runs the rest: every
# row of the list is in exactly one call's archive, with its report and its spans, and no
# run cut short is in any; validation.py --import makes the session's folder from them. A
# fresh machine told DONE once skips those rows in every later call, and --import sets aside
# a row run twice. FIRST=1 on a STATE with runs is refused. The CPU backend at 2^10 and
# 2^11 constraints (QUICK=1), about 20 s.
# (The call also stops the row's measure at once rather than wait for it, which matters for
# the GPU's long rows; these rows are too short for a test to tell.)
# Usage: tests/test_session.sh BIN
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."
d=$(mktemp -d); trap '[ -n "${KEEP:-}" ] || rm -rf "$d"' EXIT
list=docs/data/validation/interleaved-13.tsv
export OUT=$d/out STATE=$d/state QUICK=1 BACKEND=cpu WARMUP=6
export ROWS='^(k20-w2|cal20-t15|c20-w2|cal20-t6|k20-w3|cal20-t2|k20-w4|cal22-t15)$'
mkdir -p "$OUT"
# the first call in a process group of its own, stopped as a device call's time limit stops
# one (SIGTERM to the whole group) once two of its runs have reports: six are left
FIRST=1 setsid bash docs/data/validation/session.sh "$bin" $list > "$d/call1.txt" 2>&1 &
pid=$!
for _ in $(seq 1200); do [ "$(ls "$STATE"/runs/*.json 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done
kill -TERM -- -$pid
wait $pid; rc1=$?
bash docs/data/validation/session.sh "$bin" $list > "$d/call2.txt" 2>&1; rc2=$?
fail() { echo "FAIL $*"; tail -n 5 "$d/call1.txt" "$d/call2.txt"; exit 1; }
[ $rc1 -eq 1 ] && grep -q "stopped by a signal" "$d/call1.txt" || fail "the first call was not stopped by the signal (exit $rc1)"
[ $rc2 -eq 0 ] || fail "the second call exited $rc2"
[ "$(ls "$OUT"/call-*.tar | wc -l)" -eq 2 ] || fail "expected two archives: $(ls "$OUT")"
# FIRST=1 on a STATE that holds a session's runs is refused (exit 2), and makes no archive
FIRST=1 bash docs/data/validation/session.sh "$bin" $list > "$d/again.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "already holds runs of a session; give a fresh STATE" "$d/again.txt" &&
  [ "$(ls "$OUT"/call-*.tar | wc -l)" -eq 2 ] || fail "FIRST=1 on a used STATE: exit $rc, $(cat "$d/again.txt")"
want=$(grep -v '^#' $list | cut -f1 | grep -E "$ROWS" | sort)
got=$(for t in "$OUT"/call-*.tar; do tar -tf "$t" | sed -n 's|^runs/\(.*\)\.json$|\1|p'; done | sort)
[ "$got" = "$want" ] || fail "the archives' reports are not the list's rows once each: got $(echo $got), want $(echo $want)"
for t in "$OUT"/call-*.tar; do
  members=$(tar -tf "$t")  # (not piped into grep -q: under pipefail tar's SIGPIPE would fail it)
  grep -q '\.tmp\.' <<<"$members" && fail "$t holds a run cut short"
  for n in $(sed -n 's|^runs/\(.*\)\.json$|\1|p' <<<"$members"); do
    grep -qx "runs/$n.spans.jsonl.gz" <<<"$members" || fail "$t: $n has a report and no spans"
  done
done
# validation.py --import makes the session's folder from the two archives: date.txt the first
# call's time, the whole log, runs.tar.xz with every row's report; a member outside runs/ is
# refused with exit 2 and nothing written
first=$(ls "$OUT"/call-*.tar | head -1)
python3 scripts/validation.py --import "$d/session" "$OUT"/call-*.tar > "$d/import.txt" 2>&1 || fail "--import: $(cat "$d/import.txt")"
[ "$(cat "$d/session/date.txt")" = "$(basename "$first" .tar | cut -d- -f2)" ] || fail "--import: date.txt is not the first call's time"
grep -q "stopped by a signal" "$d/session/log.txt" || fail "--import: log.txt is not the whole session's log"
packed=$(tar -tJf "$d/session/runs.tar.xz" | sed -n 's|^runs/\(.*\)\.json$|\1|p' | sort)
[ "$packed" = "$want" ] || fail "--import: runs.tar.xz holds $(echo $packed)"
mkdir -p "$d/evil/runs" && echo x > "$d/evil/runs/a.json" && tar -cf "$d/call-7.tar" -C "$d/evil" runs/a.json -C "$d" call1.txt
python3 scripts/validation.py --import "$d/bad" "$d/call-7.tar" > "$d/bad.txt" 2>&1; rc=$?
[ $rc -eq 2 ] && [ ! -e "$d/bad" ] && grep -q "unexpected member 'call1.txt'" "$d/bad.txt" || fail "--import took a stray member (exit $rc)"
# A machine that went back: the next call starts a fresh one (a new STATE) with FIRST=1 and
# DONE, the rows the first machine measured, and is stopped after one run; the call after it,
# on the same machine and without DONE, must not run those rows again (STATE/done.txt).
done_rows=$(sed -n 's|^runs/\(.*\)\.json$|\1|p' <<<"$(tar -tf "$first")" | paste -sd'|')
before=$(tr '|' '\n' <<<"$done_rows" | grep -c .)
rm -rf "$OUT" && mkdir -p "$OUT" && export STATE=$d/state2
FIRST=1 DONE=$done_rows setsid bash docs/data/validation/session.sh "$bin" $list > "$d/call3.txt" 2>&1 &
pid=$!
for _ in $(seq 1200); do [ "$(ls "$STATE"/runs/*.json 2>/dev/null | wc -l)" -ge 1 ] && break; sleep 0.1; done
kill -TERM -- -$pid
wait $pid
bash docs/data/validation/session.sh "$bin" $list > "$d/call4.txt" 2>&1 || fail "the call after the fresh machine's first exited $?"
got2=$(for t in "$OUT"/call-*.tar; do tar -tf "$t" | sed -n 's|^runs/\(.*\)\.json$|\1|p'; done | sort)
want2=$(grep -vxE "$done_rows" <<<"$want")
[ "$got2" = "$want2" ] || fail "after a fresh machine: got $(echo $got2), want the rows not in DONE once each: $(echo $want2)"
# --import of calls that ran a row twice (a fresh machine not told DONE): runs/ keep the first
# run, repeats/runs the second; a row run again on the same machine (a gate's) replaces it;
# each machine's last log is kept, in order; machines.tsv says which machine each run ran on
# (the third call's log goes on from the second's)
mkdir -p "$d/m/1/runs" "$d/m/2/runs" "$d/m/3/runs"
echo first > "$d/m/1/runs/a.json"; echo L1 > "$d/m/1/log.txt"
echo second > "$d/m/2/runs/a.json"; echo b > "$d/m/2/runs/b.json"; echo M1 > "$d/m/2/log.txt"
echo c > "$d/m/3/runs/c.json"; echo b2 > "$d/m/3/runs/b.json"; printf 'M1\nM2\n' > "$d/m/3/log.txt"
for k in 1 2 3; do (cd "$d/m/$k" && tar -cf "$d/call-$k.tar" runs/* log.txt); done
python3 scripts/validation.py --import "$d/rep" "$d"/call-{1,2,3}.tar > "$d/rep.txt" 2>&1 || fail "--import of repeats: $(cat "$d/rep.txt")"
[ "$(cat "$d/rep/runs/a.json")" = first ] && [ "$(cat "$d/rep/repeats/runs/a.json")" = second ] &&
  [ "$(cat "$d/rep/runs/b.json")" = b2 ] && [ -f "$d/rep/runs/c.json" ] && [ -f "$d/rep/repeats/runs.tar.xz" ] &&
  [ ! -e "$d/rep/repeats/runs/b.json" ] &&
  [ "$(cat "$d/rep/log.txt")" = "$(printf 'L1\n== the session went on on a fresh machine (the last one went back)\nM1\nM2')" ] &&
  [ "$(grep -v '^#' "$d/rep/machines.tsv")" = "$(printf 'repeats/runs/a\t2\nruns/a\t1\nruns/b\t2\nruns/c\t2')" ] ||
  fail "--import of repeats: runs/a.json '$(cat "$d/rep/runs/a.json")', log: $(cat "$d/rep/log.txt")"
echo "ok: $(echo $got | wc -w) rows, $before of them before the signal; imported and packed;" \
  "a fresh machine ran the other $(echo $got2 | wc -w) once; repeats set aside"
