#!/usr/bin/env bash
# Which way of taking CUPTI's records during a run keeps `measure`'s host memory flat
# without moving what it measures (docs/reliability.md, "Soak on the H200"), on the H200:
#   OUT=DIR bash docs/data/reliability/cupti_flush.sh [BIN]
# The soak of soak.sh (2^18 constraints, two workers, lock on the GPU phases, PARTS
# partitions, default 1,500) under each PROVESIM_CUPTI_FLUSH in turn, twice, alternated:
# none (no flush while measuring), complete (CUPTI's default flush at every fold),
# period:500 (CUPTI's thread hands over full buffers every 500 ms). One line each: GPU
# utilization, throughput, resident memory growth per 1,000 partitions, late records.
set -uo pipefail
bin=${1:-.devbin/provesim}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
for round in 1 2; do
  for v in none complete period:500; do
    d="$OUT/${v%%:*}-$round"
    PROVESIM_CUPTI_FLUSH=$v FAULT=0 PARTS=${PARTS:-1500} OUT="$d" bash docs/data/reliability/soak.sh "$bin" \
      > /dev/null 2>&1
    echo "$v round $round: $(grep '^{' "$d/log.txt" | tail -1)"
  done
done | tee "$OUT/summary.txt"
