#!/usr/bin/env bash
# The MSM's sort in two steps, the code as committed (docs/performance.md, "The MSM's sort
# in two steps"): the grouped sort over precomputed bases, groups of 2^16 keys, the direct
# one over plain bases. On a GPU machine, in one call:
#  1. gpu_check: precomputed bases to 2^22, the MSM set, keys with their proofs and the
#     batches under the defaults; skewed scalars (2^20, 2^21) with the grouped sort forced;
#  2. prover-bench msm-g1 2^24 over bases precomputed for window 22 (median of 5), the
#     default and PSC_MSM_SORT=direct alternated in two rounds, then each under
#     PSC_MSM_PROFILE=1; msm-g1 2^20..2^24 and msm-g2 2^22 (plain bases: the default);
#  3. `prove --constraints 2^26 --calls 3` (each proof verified).
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/gsort/run4.sh DIR
# Outputs in call4/ (14:14 UTC), a build of the code as committed.
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
fits 40 "gpu_check msm" && check msm "$chk" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
fits 90 "gpu_check skew" && (export PSC_MSM_SORT=grouped; check skew "$chk" --skew-min 20 --skew-max 21 --skew-only)
fits 30 "gpu_check keys" && check keys "$chk" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$chk" --batch-only --keygen-max 0
for r in 1 2; do
  bench pre22-default-r$r "$bin" msm-g1 24 5 --precomp 22
  bench pre22-direct-r$r "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=direct
done
bench pre22prof-default "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PROFILE=1
bench pre22prof-direct "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=direct PSC_MSM_PROFILE=1
bench g1 "$bin" msm-g1 20..24 5
bench g2 "$bin" msm-g2 22 5
prove26 1 default "$bin"
echo "== done at $(el) s"
