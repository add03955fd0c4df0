#!/usr/bin/env bash
# The sort's second step a block at a time, with bigger blocks (docs/performance.md, "The
# second step in bigger blocks"): PSC_MSM_AGG_THREADS (256, 512, 1024 threads: 4,096,
# 8,192, 16,384 positions a block) and PSC_MSM_PIECES (the pieces host scalars go up in).
# On a GPU machine, in one call (outputs in call/):
#  1. prover-bench msm-g1 2^24 over bases precomputed for window 22 (median of 5): the
#     default and five block-at-a-time settings alternated in three rounds;
#  2. the default and the two best settings with 16 pieces instead of 8, two rounds;
#  3. the best setting (lowest median over the rounds) under PSC_MSM_PROFILE=1, then
#     gpu_check under it: precomputed bases to 2^22; skewed scalars (2^20, 2^21) with the
#     grouped sort forced.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/agg2/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
declare -A cfg=(
  [default]=""
  [a256-lg10]="PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=10"
  [a512-lg10]="PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=10 PSC_MSM_AGG_THREADS=512"
  [a1024-lg10]="PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=10 PSC_MSM_AGG_THREADS=1024"
  [a512-lg9]="PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=9 PSC_MSM_AGG_THREADS=512"
  [a1024-lg9]="PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=9 PSC_MSM_AGG_THREADS=1024"
)
order=(default a256-lg10 a512-lg10 a1024-lg10 a512-lg9 a1024-lg9)
med() { awk '/^msm-g1-pre/ {print $4}' "$OUT/bench-$1.txt" 2>/dev/null; }
for r in 1 2 3; do
  fits 65 "round $r" || break
  for k in "${order[@]}"; do bench "$k-r$r" "$bin" msm-g1 24 5 --precomp 22 ${cfg[$k]}; echo "  $k r$r: $(med "$k-r$r") ms"; done
done
# The mean over the rounds of each agg setting, lowest first.
rank=$(for k in "${order[@]:1}"; do
  printf '%s %s\n' "$k" "$(for r in 1 2 3; do med "$k-r$r"; done | awk '{s+=$1; n++} END {if (n) printf "%.3f", s/n; else print 999}')"
done | sort -k2 -n)
echo "$rank"
best=$(echo "$rank" | awk 'NR==1 {print $1}'); second=$(echo "$rank" | awk 'NR==2 {print $1}')
for r in 1 2; do
  fits 35 "pieces round $r" || break
  for k in default "$best" "$second"; do
    bench "$k-p16-r$r" "$bin" msm-g1 24 5 --precomp 22 ${cfg[$k]} PSC_MSM_PIECES=16; echo "  $k p16 r$r: $(med "$k-p16-r$r") ms"
  done
done
fits 12 profile && bench "prof-$best" "$bin" msm-g1 24 5 --precomp 22 ${cfg[$best]} PSC_MSM_PROFILE=1
fits 60 "gpu_check pre" && (export ${cfg[$best]}; check "pre-$best" "$chk" --precomp-max 22)
fits 90 "gpu_check skew" && (export PSC_MSM_SORT=grouped ${cfg[$best]}; check "skew-$best" "$chk" --skew-min 20 --skew-max 21 --skew-only)
echo "== done at $(el) s"
