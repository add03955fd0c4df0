#!/usr/bin/env bash
# docs/data/validation/session.sh stopped by a signal in the middle of a call (a device call
# past its time limit) packs the runs it finished, and the next call runs the rest: every
# row of the list is in exactly one call's archive, with its report and its spans, and no
# run cut short is in any; validation.py --import makes the session's folder from them. The
# CPU backend at 2^10 and 2^11 constraints (QUICK=1), about
# 15 s. (The call also stops the row's measure at once rather than wait for it, which
# matters for the GPU's long rows; these rows are too short for a test to tell.)
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
echo "ok: $(echo $got | wc -w) rows, $(tar -tf "$first" | grep -c '\.json$') of them before the signal; imported and packed"
