#!/usr/bin/env bash
# The call of "One reduction for a sum of products" (docs/performance.md): the XYZZ
# formulas' y coordinate as one sum of two products with a single Montgomery reduction
# (fp_dot2_d / fp2_dot2_d, PSF_MONT_SUM) and Fp2's product as two such sums (new), against
# the prover before them (old); k is new with Fp2's product back on Karatsuba's three
# Fp products (only the y coordinates' sums new), when DIR has it. On a GPU machine, in
# one call:
#  1. prover-bench's field rates, G1 MSMs at 2^20..2^24 and G2 at 2^20..2^22 plain
#     (median of 5), two rounds alternated: new, (k,) old; one run of each at G1 2^24
#     and G2 2^22 under PSC_MSM_PROFILE=1; G1 2^24 over bases precomputed for windows of
#     16 and 22 bits, new and old;
#  2. gpu_check on new: G1 MSMs to 2^22, G2 to 2^14 with the skewed and witness-like
#     scalar sets and the key generation to 2^14;
#  3. `prove --constraints 2^26 --calls 3` new, old (, k) (keys made on the GPU into a
#     disk cache by the first; each proof verified), then new under PSC_MSM_PROFILE=1.
# A step that would pass BUDGET seconds (default 420) is skipped and said so. From the
# repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check), old/
# (provesim, libcudart, libcupti) and optionally k/ (provesim):
#   OUT=DIR bash docs/data/kernels/dot/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
vs=(new old); [ -x "$dir/k/provesim" ] && vs=(new k old)
for r in 1 2; do
  for v in "${vs[@]}"; do bench g1-$v-r$r "$dir/$v/provesim" field,msm-g1 20..24 5; done
done
for r in 1 2; do
  for v in "${vs[@]}"; do bench g2-$v-r$r "$dir/$v/provesim" msm-g2 20..22 5; done
done
for v in "${vs[@]}"; do
  bench prof-g1-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1
  bench prof-g2-$v "$dir/$v/provesim" msm-g2 22 3 PSC_MSM_PROFILE=1
done
for w in 16 22; do
  bench pre$w-new "$dir/new/provesim" msm-g1 24 3 --precomp $w
  bench pre$w-old "$dir/old/provesim" msm-g1 24 3 --precomp $w
done
fits 90 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 14 --no-batch
prove26 1 new "$dir/new/provesim"
prove26 2 old "$dir/old/provesim"
[ -x "$dir/k/provesim" ] && prove26 3 k "$dir/k/provesim"
prove26 4 new-profile "$dir/new/provesim" PSC_MSM_PROFILE=1
echo "== done at $(el) s"
