#!/usr/bin/env bash
# The MSM sort's second step a block a group, its cursors in shared memory (not kept: docs/performance.md,
# "Tried after the sort in two steps"): new, the patch place-sh.patch on 4cc976a (groups of 2^14 keys,
# msm_group_place_sh); old, the build of 4cc976a (groups of 2^16, a thread
# a point on global cursors). On a GPU machine, in one call:
#  1. gpu_check on new: precomputed bases to 2^22, the MSM set, keys with their proofs and
#     the batches under the defaults; skewed scalars (2^20, 2^21) with the grouped sort
#     forced (plain bases: a set of buckets per window, witness-like scalars);
#  2. prover-bench msm-g1 2^24 over bases precomputed for window 22 (median of 5): new,
#     old and new with PSC_MSM_PLACE=global PSC_MSM_LOG_GROUPS=5 (old's groups and step)
#     alternated in three rounds; new with groups of 2^15, 2^13 and 2^12 keys
#     (PSC_MSM_LOG_GROUPS 6, 8, 9); new and old under PSC_MSM_PROFILE=1;
#  3. `prove --constraints 2^26 --calls 3` on new (each proof verified).
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti) and old/ (provesim):
#   OUT=DIR bash docs/data/kernels/gplace/run.sh DIR
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
  bench pre22-old-r$r "$old" msm-g1 24 5 --precomp 22
  bench pre22-global16-r$r "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PLACE=global PSC_MSM_LOG_GROUPS=5
done
for lg in 6 8 9; do
  fits 15 "groups $lg" && bench pre22-lg$lg "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_LOG_GROUPS=$lg
done
fits 15 profile && bench pre22prof-new "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PROFILE=1
fits 15 profile && bench pre22prof-old "$old" msm-g1 24 5 --precomp 22 PSC_MSM_PROFILE=1
prove26 1 new "$bin"
echo "== done at $(el) s"
