#!/usr/bin/env bash
# The second call of "G1 bucket sums: one copy of each product" (docs/performance.md):
# G1's field products, squares and y-coordinate sums as called functions (PSF_FP_CALL: one
# copy of each, values in and out) so that the bucket sums' loop fits the instruction
# cache (call), the same held to 6 blocks a multiprocessor (call6), against the build of
# the commit (base). On a GPU machine, in one call:
#  1. Nsight Compute's stall and pipe metrics for g1_bucket_chunks at 2^22, base and call;
#  2. prover-bench msm-g1 at 2^22..2^24 (median of 5), two rounds alternated, then one run
#     each at 2^24 under PSC_MSM_PROFILE=1 and over bases precomputed for window 22;
#  3. gpu_check's MSM set on call's gpu_check, when DIR has one.
# From the repository root, with .deps/ carried and DIR holding base/ (provesim, gpu_check,
# libcudart, libcupti), call/ and call6/ (provesim, and call/gpu_check optionally):
#   OUT=DIR bash docs/data/kernels/occ/run2.sh DIR
set -uo pipefail
dir=${1:?directory with base/ and the variants}
bin=$dir/base/provesim
. scripts/device_kernels.sh
vs=(base); for v in call call6; do [ -x "$dir/$v/provesim" ] && vs+=("$v"); done
echo "variants: ${vs[*]}"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum'
for v in base call; do
  [ -n "$NCU" ] && [ -x "$dir/$v/provesim" ] && fits 30 "ncu $v" || continue
  timeout 90 "$NCU" --clock-control none --kernel-name regex:g1_bucket_chunks --launch-count 1 --metrics "$M" \
    "$dir/$v/provesim" prover-bench --backend cuda --sizes 22 --only msm-g1 --reps 1 > "$OUT/ncu-$v-m.txt" 2>&1
  echo "ncu $v metrics: exit $? at $(el) s"
done
for r in 1 2; do
  for v in "${vs[@]}"; do bench g1-$v-r$r "$dir/$v/provesim" msm-g1 22..24 5; done
done
for v in "${vs[@]}"; do bench prof-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1; done
for v in "${vs[@]}"; do fits 40 "pre22 $v" && bench pre22-$v "$dir/$v/provesim" msm-g1 24 3 --precomp 22; done
[ -x "$dir/call/gpu_check" ] && fits 60 "gpu_check msm" &&
  check msm "$dir/call/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
echo "== done at $(el) s"
