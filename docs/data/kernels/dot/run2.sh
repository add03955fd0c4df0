#!/usr/bin/env bash
# The second call of "One reduction for a sum of products" (docs/performance.md): new is
# the first call's new binary (e803def); k the same with Fp2's product back on
# Karatsuba's three Fp products; kara the Fp product and the y coordinate's sum of two
# products through a one-level Karatsuba product (PSF_MUL_KARA: 108 wide multiplies for
# the 24-limb product instead of 144) and the reduction alone (PSF_MONT_REDC); kara5 the
# same with G1's bucket sums held to 5 blocks of 64 threads a multiprocessor
# (__launch_bounds__(64, 5)). On a GPU machine, in one call:
#  1. prover-bench's field rates and G1 MSMs at 2^22..2^24 (median of 5), two rounds
#     alternated: new, kara, kara5; G2 at 2^20..2^22: new, k, kara; one run each at G1
#     2^24 under PSC_MSM_PROFILE=1; G1 2^24 over bases precomputed for window 22;
#  2. gpu_check on kara: G1 MSMs to 2^22, G2 to 2^14 with the skewed and witness-like
#     scalar sets and the key generation to 2^14;
#  3. `prove --constraints 2^26 --calls 3` new, kara, kara5, k.
#   OUT=DIR bash docs/data/kernels/dot/run2.sh DIR   (DIR: new/, k/, kara/, kara5/, old/ libraries)
set -uo pipefail
dir=${1:?directory with new/, k/, kara/ and kara5/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  for v in new kara kara5; do bench g1-$v-r$r "$dir/$v/provesim" field,msm-g1 22..24 5; done
done
for r in 1 2; do
  for v in new k kara; do bench g2-$v-r$r "$dir/$v/provesim" msm-g2 20..22 5; done
done
for v in new kara kara5; do bench prof-g1-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1; done
for v in new kara kara5; do bench pre22-$v "$dir/$v/provesim" msm-g1 24 3 --precomp 22; done
fits 90 "gpu_check msm" && check msm "$dir/kara/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 14 --no-batch
prove26 1 new "$dir/new/provesim"
prove26 2 kara "$dir/kara/provesim"
prove26 3 kara5 "$dir/kara5/provesim"
prove26 4 k "$dir/k/provesim"
echo "== done at $(el) s"
