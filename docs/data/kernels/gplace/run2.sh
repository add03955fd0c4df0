#!/usr/bin/env bash
# The second call of place-sh.patch (docs/performance.md, "Tried after the sort in two steps"): the
# build of run.sh's call (new/, old/) with narrower groups, so that the groups a block each
# that run at once cover less of the sorted array: prover-bench msm-g1 2^24 over bases
# precomputed for window 22 (median of 5) under PSC_MSM_LOG_GROUPS 10, 11 and 12 (groups of
# 2^11, 2^10 and 2^9 keys), each with PSC_MSM_PROFILE=1 after, and old between them.
#   OUT=DIR bash docs/data/kernels/gplace/run2.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/new/provesim
old=$dir/old/provesim
. scripts/device_kernels.sh
bench pre22-old "$old" msm-g1 24 5 --precomp 22
for lg in 10 11 12; do
  fits 25 "groups $lg" || break
  bench pre22-lg$lg "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_LOG_GROUPS=$lg
  bench pre22prof-lg$lg "$bin" msm-g1 24 3 --precomp 22 PSC_MSM_LOG_GROUPS=$lg PSC_MSM_PROFILE=1
done
fits 25 "global 11" && bench pre22prof-global-lg11 "$bin" msm-g1 24 3 --precomp 22 PSC_MSM_LOG_GROUPS=11 PSC_MSM_PLACE=global PSC_MSM_PROFILE=1
echo "== done at $(el) s"
