#!/usr/bin/env bash
# The MSM's sort in two steps (docs/performance.md, "The MSM's sort in two steps"): the
# grouped sort (the default, prover/cuda/msm_group.h) against the sort straight from the
# digits (PSC_MSM_SORT=direct), in one build. On a GPU machine, in one call:
#  1. gpu_check (grouped): the MSM set (G1 to 2^22, G2 to 2^14, skewed and witness-like
#     scalars), precomputed bases to 2^22, skewed scalars at 2^20 and 2^21 and witness-like
#     ones to 2^20 + 3 (host scalars in 8 pieces), keys at 2^12 and 2^16 with their proofs,
#     the batches;
#  2. prover-bench msm-g1 over bases precomputed for window 22 at 2^24, and plain at 2^20 to
#     2^24, msm-g2 at 2^22 (median of 5), grouped and direct alternated in two rounds;
#     each at 2^24 under PSC_MSM_PROFILE=1; 2^9 and 2^11 groups (PSC_MSM_LOG_GROUPS);
#  3. `prove --constraints 2^26 --calls 3` grouped, direct, grouped (each proof verified).
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/gsort/run.sh DIR
# Outputs in call1/ (2026-12-04 09:59 UTC), a build of the first version: groups of 2^14
# keys and more (PSC_MSM_LOG_GROUPS 7), the grouped sort the default everywhere.
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 60 "gpu_check msm" && check msm "$chk" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
fits 60 "gpu_check skew" && check skew "$chk" --skew-min 20 --skew-max 21 --skew-only
fits 60 "gpu_check sparse" && check sparse "$chk" --sparse-max 20 --sparse-only
fits 30 "gpu_check keys" && check keys "$chk" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$chk" --batch-only --keygen-max 0
for r in 1 2; do
  for v in grouped direct; do bench pre22-$v-r$r "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=$v; done
  for v in grouped direct; do bench g1-$v-r$r "$bin" msm-g1 20..24 5 PSC_MSM_SORT=$v; done
  for v in grouped direct; do bench g2-$v-r$r "$bin" msm-g2 22 5 PSC_MSM_SORT=$v; done
done
for v in grouped direct; do
  bench pre22prof-$v "$bin" msm-g1 24 3 --precomp 22 PSC_MSM_SORT=$v PSC_MSM_PROFILE=1
  bench prof-$v "$bin" msm-g1 24 3 PSC_MSM_SORT=$v PSC_MSM_PROFILE=1
done
for lg in 9 11; do
  bench pre22prof-lg$lg "$bin" msm-g1 24 3 --precomp 22 PSC_MSM_LOG_GROUPS=$lg PSC_MSM_PROFILE=1
  bench prof-lg$lg "$bin" msm-g1 24 3 PSC_MSM_LOG_GROUPS=$lg PSC_MSM_PROFILE=1
done
prove26 1 grouped "$bin"
prove26 2 direct "$bin" PSC_MSM_SORT=direct
prove26 3 grouped "$bin"
echo "== done at $(el) s"
