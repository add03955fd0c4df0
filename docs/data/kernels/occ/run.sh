#!/usr/bin/env bash
# The first call of "G1's bucket sums: one copy of each product" (docs/performance.md):
# G1's bucket-sum kernel built for 7 blocks a multiprocessor (b7: launch bounds 64 x 7,
# 128 registers, some spilled), with the rare doubling of a mixed addition out of line
# (rare: 144 registers, the accumulator in local memory) and both (rare8: 64 x 8), against
# the build of the commit (base; 8c29ab6, whose kernels these are). The variants were
# built with -DMK_BUCKET_MINB=7 or 8 and a switch for the out-of-line doubling that is no
# longer in the code. On a GPU machine, in one call:
#  1. Nsight Compute (when the machine has it) on base's g1_bucket_chunks at 2^22 and two
#     radix-4 NTT passes at 2^24: speed of light, pipes, warp states, occupancy;
#  2. prover-bench msm-g1 at 2^22 and 2^24 (median of 5), two rounds alternated over the
#     variants present, then one run each at 2^24 under PSC_MSM_PROFILE=1;
#  3. base at 2^24 with PSC_MSM_WINDOW=17 and 18 (the window without the sampling);
#  4. the fastest variant over bases precomputed for window 22, and gpu_check's MSM set.
# From the repository root, with .deps/ carried and DIR holding base/ (provesim, gpu_check,
# libcudart, libcupti) and any of b7/ rare/ rare8/ (provesim):
#   OUT=DIR bash docs/data/kernels/occ/run.sh DIR
set -uo pipefail
dir=${1:?directory with base/ and the variants}
bin=$dir/base/provesim
. scripts/device_kernels.sh
vs=(base); for v in b7 rare rare8; do [ -x "$dir/$v/provesim" ] && vs+=("$v"); done
echo "variants: ${vs[*]}"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ] && fits 120 ncu; then
  timeout 120 "$NCU" --clock-control none --kernel-name regex:g1_bucket_chunks --launch-count 1 --set full \
    "$dir/base/provesim" prover-bench --backend cuda --sizes 22 --only msm-g1 --reps 1 > "$OUT/ncu-base.txt" 2>&1
  echo "ncu base: exit $? at $(el) s"
  M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active'
  timeout 90 "$NCU" --clock-control none --kernel-name regex:g1_bucket_chunks --launch-count 1 --metrics "$M" \
    "$dir/base/provesim" prover-bench --backend cuda --sizes 22 --only msm-g1 --reps 1 > "$OUT/ncu-base-m.txt" 2>&1
  echo "ncu base metrics: exit $? at $(el) s"
  timeout 90 "$NCU" --clock-control none --kernel-name regex:ntt_pass_r4 --launch-skip 8 --launch-count 2 --metrics "$M" \
    "$dir/base/provesim" prover-bench --backend cuda --sizes 24 --only ntt --reps 1 > "$OUT/ncu-ntt-m.txt" 2>&1
  echo "ncu ntt metrics: exit $? at $(el) s"
  timeout 120 "$NCU" --clock-control none --kernel-name regex:ntt_pass_r4 --launch-skip 8 --launch-count 2 --set full \
    "$dir/base/provesim" prover-bench --backend cuda --sizes 24 --only ntt --reps 1 > "$OUT/ncu-ntt.txt" 2>&1
  echo "ncu ntt: exit $? at $(el) s"
fi
for r in 1 2; do
  for v in "${vs[@]}"; do bench g1-$v-r$r "$dir/$v/provesim" msm-g1 22..24 5; done
done
for v in "${vs[@]}"; do bench prof-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1; done
for w in 17 18; do bench win$w-base "$dir/base/provesim" msm-g1 24 5 PSC_MSM_WINDOW=$w PSC_MSM_PROFILE=1; done
for v in "${vs[@]}"; do fits 40 "pre22 $v" && bench pre22-$v "$dir/$v/provesim" msm-g1 24 3 --precomp 22; done
fits 60 "gpu_check msm" && check msm "$dir/base/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
echo "== done at $(el) s"
