#!/usr/bin/env bash
# The fourth call of "Squares by their own sequence" (docs/performance.md): new3 has the
# mixed addition's independent products written next to each other and G1's bucket sums
# held to 6 blocks a multiprocessor (__launch_bounds__(64, 6); the change is in
# call4-reorder.diff beside this script, not in the code: it was slower); against it, new (the first
# call's prover: its MSMs are the committed ones) and new2 (the third call's: its 2^26
# partition is the committed one):
#  1. G1 MSMs at 2^22..2^24 and G2 at 2^20..2^22 (median of 5), two rounds alternated,
#     new3 and new; one run of each at G1 2^24 and G2 2^22 under PSC_MSM_PROFILE=1;
#  2. gpu_check on new3: G1 MSMs to 2^22, G2 to 2^14, the skewed and witness-like sets,
#     key generation to 2^14;
#  3. `prove --constraints 2^26 --calls 3`, new3 then new2 (each proof verified).
#   OUT=DIR bash docs/data/kernels/sqr/run4.sh DIR   (DIR: new3/, new2/, new/, old/ libraries)
set -uo pipefail
dir=${1:?directory with new3/, new2/, new/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  bench g1-new3-r$r "$dir/new3/provesim" msm-g1 22..24 5
  bench g1-new-r$r "$dir/new/provesim" msm-g1 22..24 5
  bench g2-new3-r$r "$dir/new3/provesim" msm-g2 20..22 5
  bench g2-new-r$r "$dir/new/provesim" msm-g2 20..22 5
done
for v in new3 new; do
  bench prof-g1-$v "$dir/$v/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1
  bench prof-g2-$v "$dir/$v/provesim" msm-g2 22 3 PSC_MSM_PROFILE=1
done
fits 90 "gpu_check msm" && check msm "$dir/new3/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 \
  --sparse-max 18 --keygen-max 14 --no-batch
prove26 1 new3 "$dir/new3/provesim"
prove26 2 new2 "$dir/new2/provesim"
echo "== done at $(el) s"
