#!/usr/bin/env bash
# The third call of "G1 bucket sums: one copy of each product" (docs/performance.md): the
# called products at 6 blocks a multiprocessor (call6, the second call's fastest) against
# 7 (call7, 128 registers and spills) and the build of the commit (base); G2's products
# as called functions (g2call, PSF_FP2_CALL); call6 at window 17. On a GPU machine, in one
# call:
#  1. Nsight Compute's stall and pipe metrics for g2_bucket_chunks at 2^20, base and g2call;
#  2. prover-bench msm-g1 at 2^22..2^24 (base, call6, call7) and msm-g2 at 2^20..2^22
#     (base, g2call), median of 5, two rounds alternated; call6 at 2^24 under
#     PSC_MSM_WINDOW=17; G2 2^22 under PSC_MSM_PROFILE=1.
# From the repository root, with .deps/ carried and DIR holding base/ (provesim,
# libcudart, libcupti), call6/, call7/ and g2call/ (provesim):
#   OUT=DIR bash docs/data/kernels/occ/run3.sh DIR
set -uo pipefail
dir=${1:?directory with base/ and the variants}
bin=$dir/base/provesim
. scripts/device_kernels.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum'
for v in base g2call; do
  [ -n "$NCU" ] && fits 30 "ncu $v" || continue
  timeout 90 "$NCU" --clock-control none --kernel-name regex:g2_bucket_chunks --launch-count 1 --metrics "$M" \
    "$dir/$v/provesim" prover-bench --backend cuda --sizes 20 --only msm-g2 --reps 1 > "$OUT/ncu-g2-$v-m.txt" 2>&1
  echo "ncu g2 $v metrics: exit $? at $(el) s"
done
for r in 1 2; do
  for v in base call6 call7; do bench g1-$v-r$r "$dir/$v/provesim" msm-g1 22..24 5; done
  for v in base g2call; do bench g2-$v-r$r "$dir/$v/provesim" msm-g2 20..22 5; done
done
bench win17-call6 "$dir/call6/provesim" msm-g1 24 5 PSC_MSM_WINDOW=17 PSC_MSM_PROFILE=1
for v in base g2call; do bench prof-g2-$v "$dir/$v/provesim" msm-g2 22 3 PSC_MSM_PROFILE=1; done
echo "== done at $(el) s"
