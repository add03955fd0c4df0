#!/usr/bin/env bash
# The MSM sort's second step a block at a time (docs/performance.md, "The sort's second step
# a block at a time"): the code as committed (msm_group_place_agg, chosen by
# PSC_MSM_PLACE=agg; the default, a point at a time on the global cursors, is 4cc976a's).
# On a GPU machine, in one call (outputs in call/, 16:54 UTC):
#  1. gpu_check under PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=12: precomputed bases to 2^22;
#     skewed scalars (2^20, 2^21) with the grouped sort forced;
#  2. prover-bench msm-g1 2^24 over bases precomputed for window 22 (median of 5): the
#     default and agg with 2^12 groups (2^9 keys each) alternated in three rounds; agg with
#     2^11 and 2^10 groups; the default and agg with 2^12 groups under PSC_MSM_PROFILE=1.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/agg/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 60 "gpu_check pre" && (export PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=12; check pre "$chk" --precomp-max 22)
fits 110 "gpu_check skew" && (export PSC_MSM_SORT=grouped PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=12; check skew "$chk" --skew-min 20 --skew-max 21 --skew-only)
for r in 1 2 3; do
  fits 25 "round $r" || break
  bench pre22-default-r$r "$bin" msm-g1 24 5 --precomp 22
  bench pre22-agg12-r$r "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=12
done
for lg in 11 10; do fits 12 "agg $lg" && bench pre22-agg$lg "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=$lg; done
fits 12 profile && bench pre22prof-default "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PROFILE=1
fits 12 profile && bench pre22prof-agg12 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PLACE=agg PSC_MSM_LOG_GROUPS=12 PSC_MSM_PROFILE=1
echo "== done at $(el) s"
