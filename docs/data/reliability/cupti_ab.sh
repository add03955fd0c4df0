#!/usr/bin/env bash
# Paired soaks on the H200: how each way of taking CUPTI's records during a run moves
# `measure`'s host memory and what it measures (docs/reliability.md, "Soak on the H200"):
#   OUT=DIR [PARTS=N] [ROUNDS=N] [VARIANTS="A=x B=y ..."] bash docs/data/reliability/cupti_ab.sh [BIN]
# The soak of soak.sh (2^18 constraints, two workers, lock on the GPU phases, PARTS
# partitions, default 1,000) under each variant in turn, ROUNDS times (default 2),
# alternated. A variant is one environment assignment; the default pair is
# PROVESIM_CUPTI_BUFFERS=pool (the pool of reused 1 MiB buffers) and
# PROVESIM_CUPTI_BUFFERS=fresh (a fresh 8 MiB buffer per request, the way before it); the
# flush experiments were PROVESIM_CUPTI_FLUSH=none, =complete and =period:500. One line
# each: GPU utilization, throughput, resident memory growth per 1,000 partitions, notes.
set -uo pipefail
bin=${1:-.devbin/provesim}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
VARIANTS=${VARIANTS:-PROVESIM_CUPTI_BUFFERS=pool PROVESIM_CUPTI_BUFFERS=fresh}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in $VARIANTS; do
    d="$OUT/$(tr -c 'A-Za-z0-9\n' '_' <<<"${v#*=}")-$round"
    env "$v" FAULT=0 PARTS=${PARTS:-1000} OUT="$d" bash docs/data/reliability/soak.sh "$bin" > /dev/null 2>&1
    echo "$v round $round: $(grep '^{' "$d/log.txt" | tail -1)"
  done
done | tee "$OUT/summary.txt"
