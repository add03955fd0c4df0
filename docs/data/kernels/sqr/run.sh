#!/usr/bin/env bash
# The call of "Squares by their own sequence, the NTT's scaling in its passes"
# (docs/performance.md): the XYZZ formulas squaring through the field's sqr (Fp:
# PSF_MONT_SQR, the off-diagonal products once; Fp2: two Fp products instead of three) and
# the coset shift and 1/n applied in the NTT's first or last pass, against the prover
# before them (old), on a GPU machine, in one call:
#  1. prover-bench's field rates (new prints the Fp squaring rate too) and NTTs at
#     2^20..2^26 (forward, coset, inverse), two rounds alternated: new, old;
#  2. G1 MSMs at 2^20..2^24 plain (median of 5), two rounds alternated: new, old; G2 at
#     2^20..2^22 likewise, with b (new, G2's squares as products: -DPSC_G2_SQR_BY_MUL)
#     beside them; one run of each at G1 2^24 and G2 2^22 under PSC_MSM_PROFILE=1; G1
#     2^24 over bases precomputed for window 16, new and old;
#  3. gpu_check on new: G1 MSMs to 2^22, G2 to 2^14 with the skewed and witness-like
#     scalar sets and the key generation to 2^14; every NTT variant to 2^24;
#  4. `prove --constraints 2^26 --calls 3` new, old, b (keys made on the GPU into a disk
#     cache by the first; each proof verified), then new under PSC_MSM_PROFILE=1 (the
#     MSMs' phases a call, on stderr).
# A step that would pass BUDGET seconds (default 420) is skipped and said so. From the
# repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check), b/
# (provesim) and old/ (provesim, libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/sqr/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/, b/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  bench ntt-new-r$r "$dir/new/provesim" field,ntt 20..26 7
  bench ntt-old-r$r "$dir/old/provesim" field,ntt 20..26 7
done
for r in 1 2; do
  bench g1-new-r$r "$dir/new/provesim" msm-g1 20..24 5
  bench g1-old-r$r "$dir/old/provesim" msm-g1 20..24 5
done
for r in 1 2; do
  bench g2-new-r$r "$dir/new/provesim" msm-g2 20..22 5
  bench g2-b-r$r "$dir/b/provesim" msm-g2 20..22 5
  bench g2-old-r$r "$dir/old/provesim" msm-g2 20..22 5
done
for v in new old b; do
  bench prof-g1-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1
  bench prof-g2-$v "$dir/$v/provesim" msm-g2 22 3 PSC_MSM_PROFILE=1
done
bench pre16-new "$dir/new/provesim" msm-g1 24 3 --precomp 16
bench pre16-old "$dir/old/provesim" msm-g1 24 3 --precomp 16
fits 90 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 14 --no-batch
fits 60 "gpu_check ntt" && check ntt "$dir/new/gpu_check" --ntt-max 24 --g1-max 0 --g2-max 0 --skew-max 0 --sparse-max 0 --keygen-max 0 --no-batch
prove26 1 new "$dir/new/provesim"
prove26 2 old "$dir/old/provesim"
prove26 3 b "$dir/b/provesim"
prove26 4 new-profile "$dir/new/provesim" PSC_MSM_PROFILE=1
echo "== done at $(el) s"
