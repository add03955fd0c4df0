#!/usr/bin/env bash
# The fourth call of "G1's bucket sums: one copy of each product" (docs/performance.md):
# the commit's build (new: G1's products called, 6 blocks a multiprocessor, window 17 at
# 2^24 with a short host sample, host scalars uploaded in 8 pieces) against 8c29ab6's
# kernels (old). On a GPU machine, in one call:
#  1. prover-bench msm-g1 at 2^20..2^24 and msm-g2 at 2^22 (median of 5), two rounds
#     alternated; each at 2^24 under PSC_MSM_PROFILE=1; new at 2^23 under PSC_MSM_WINDOW=17;
#     G1 2^24 over bases precomputed for windows 16 and 22, new and old, and new's profile
#     at 22 and 24;
#  2. gpu_check on new: the MSM set (G1 to 2^22, G2 to 2^14, skewed and witness-like
#     scalars), then keys at 2^12 and 2^16 with their proofs, then the batches;
#  3. `prove --constraints 2^26 --calls 3` new (keys made on the GPU into a disk cache),
#     old, new (each proof verified).
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti) and old/ (provesim):
#   OUT=DIR bash docs/data/kernels/occ/run4.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  for v in new old; do bench g1-$v-r$r "$dir/$v/provesim" msm-g1 20..24 5; done
  for v in new old; do bench g2-$v-r$r "$dir/$v/provesim" msm-g2 22 5; done
done
for v in new old; do bench prof-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1; done
bench win17-23-new "$dir/new/provesim" msm-g1 23 5 PSC_MSM_WINDOW=17
for w in 16 22; do
  for v in new old; do bench pre$w-$v "$dir/$v/provesim" msm-g1 24 3 --precomp $w; done
done
bench pre22prof-new "$dir/new/provesim" msm-g1 24 3 --precomp 22 PSC_MSM_PROFILE=1
bench pre24prof-new "$dir/new/provesim" msm-g1 24 3 --precomp 24 PSC_MSM_PROFILE=1
fits 60 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
fits 60 "gpu_check keys" && check keys "$dir/new/gpu_check" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$dir/new/gpu_check" --batch-only --keygen-max 0
prove26 1 new "$dir/new/provesim"
prove26 2 old "$dir/old/provesim"
prove26 3 new "$dir/new/provesim"
echo "== done at $(el) s"
