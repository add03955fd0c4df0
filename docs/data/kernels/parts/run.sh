#!/usr/bin/env bash
# The MSM sort's second step in parts beside the bucket sums (not kept: docs/performance.md,
# "Tried after the sort in two steps"): new, parts.patch on 4cc976a (4 parts, the
# places on a stream of the highest priority, each part's bucket sums once it is placed);
# old, the build of 4cc976a. On a GPU machine, in one call:
#  1. gpu_check on new: precomputed bases to 2^22, the MSM set, keys with their proofs and
#     the batches under the defaults; skewed scalars (2^20, 2^21) with the grouped sort
#     forced (witness-like scalars put most points in one part);
#  2. prover-bench msm-g1 2^24 over bases precomputed for window 22 (median of 5): new,
#     new with PSC_MSM_PARTS=1 (no parts) and old, alternated in three rounds; new with 2
#     and 8 parts; new under PSC_MSM_PROFILE=1;
#  3. plain bases (the bucket sums' kernel is a loop now): msm-g1 2^20..2^24 and msm-g2
#     2^22 on new and old;
#  4. `prove --constraints 2^26 --calls 3` on new (each proof verified).
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti) and old/ (provesim):
#   OUT=DIR bash docs/data/kernels/parts/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
old=$dir/old/provesim
. scripts/device_kernels.sh
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
fits 40 "gpu_check msm" && check msm "$chk" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
fits 110 "gpu_check skew" && (export PSC_MSM_SORT=grouped; check skew "$chk" --skew-min 20 --skew-max 21 --skew-only)
fits 30 "gpu_check keys" && check keys "$chk" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$chk" --batch-only --keygen-max 0
for r in 1 2 3; do
  fits 40 "round $r" || break
  bench pre22-new-r$r "$bin" msm-g1 24 5 --precomp 22
  bench pre22-parts1-r$r "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PARTS=1
  bench pre22-old-r$r "$old" msm-g1 24 5 --precomp 22
done
for p in 2 8; do fits 15 "parts $p" && bench pre22-parts$p "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PARTS=$p; done
fits 15 profile && bench pre22prof-new "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PROFILE=1
fits 25 "g1 new" && bench g1-new "$bin" msm-g1 20..24 5
fits 25 "g1 old" && bench g1-old "$old" msm-g1 20..24 5
fits 15 "g2 new" && bench g2-new "$bin" msm-g2 22 5
fits 15 "g2 old" && bench g2-old "$old" msm-g2 22 5
prove26 1 new "$bin"
echo "== done at $(el) s"
