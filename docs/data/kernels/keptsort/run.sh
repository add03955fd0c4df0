#!/usr/bin/env bash
# The call of "B_G2 takes A's sort" (docs/performance.md): new keeps the sort of the
# witness the msm phase made (A's digits, counts and sorted array, the last partition's)
# on the device for the b_g2 phase's G2 MSM over the same scalars (psc_dev.sort, keyed by
# the device vector's generation); prev is the prover before it (hform/call2's new,
# 3dd1516: the H query in evaluation form). On a GPU machine, in one call:
#  1. gpu_check on new: the batches that share scalars and the kept sorts (--batch-only),
#     then G1 MSMs to 2^22, G2 to 2^14 with the skewed and witness-like scalar sets and
#     the key generation to 2^14 with a proof made on the GPU;
#  2. `prove --constraints 2^26 --calls 3` prev, new, prev, new (one key cache, version
#     3, made by the first);
#  3. prover-bench's G2 MSMs at 2^20..2^22, new and prev (nothing there changed).
#   OUT=DIR bash docs/data/kernels/keptsort/run.sh DIR   (DIR: new/, prev/ with the libraries)
set -uo pipefail
dir=${1:?directory with new/ and prev/}
bin=$dir/prev/provesim
. scripts/device_kernels.sh
fits 120 "gpu_check batch" && check batch "$dir/new/gpu_check" --batch-only
fits 90 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 14 --no-batch
prove26 1 prev "$dir/prev/provesim"
prove26 2 new "$dir/new/provesim"
prove26 3 prev "$dir/prev/provesim"
prove26 4 new "$dir/new/provesim"
for v in new prev; do bench g2-$v "$dir/$v/provesim" msm-g2 20..22 5; done
echo "== done at $(el) s"
