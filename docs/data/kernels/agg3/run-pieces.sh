#!/usr/bin/env bash
# Host scalars in 16 pieces or 8 below 2^23 points (docs/performance.md, "The second step
# in bigger blocks"): with the block-at-a-time defaults of agg3/run.sh's binary, MSM G1
# 2^20 over bases precomputed for window 16 and plain bases 2^20..2^22 (prover-bench,
# median of 5) at PSC_MSM_PIECES=8 and 16 alternated in three rounds; outputs in
# call-pieces/.
#   OUT=DIR bash docs/data/kernels/agg3/run-pieces.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
med() { awk '/^msm-g1/ {printf "%s ", $4}' "$OUT/bench-$1.txt" 2>/dev/null; }
for r in 1 2 3; do
  for p in 8 16; do
    fits 15 "round $r p$p" || break 2
    bench pre16-p$p-r$r "$bin" msm-g1 20 5 --precomp 16 PSC_MSM_PIECES=$p; echo "  pre16 2^20 p$p r$r: $(med pre16-p$p-r$r)"
    bench plain-p$p-r$r "$bin" msm-g1 20..22 5 PSC_MSM_PIECES=$p; echo "  plain 2^20..22 p$p r$r: $(med plain-p$p-r$r)"
  done
done
echo "== done at $(el) s"
