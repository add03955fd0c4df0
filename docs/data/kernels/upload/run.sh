#!/usr/bin/env bash
# The call of "Host scalars in pieces" (docs/performance.md): new uploads an MSM's host
# scalars in 8 pieces on the copy stream and runs each piece's digits as soon as it has
# landed; prev is the prover before it (d800f3a). On a GPU machine, in one call:
#  1. prover-bench's G1 MSMs at 2^22..2^24 (median of 5), two rounds alternated: new, prev;
#     one run of new at G1 2^24 under PSC_MSM_PROFILE=1;
#  2. gpu_check on new: G1 MSMs to 2^22, G2 to 2^14 with the skewed and witness-like
#     scalar sets.
#   OUT=DIR bash docs/data/kernels/upload/run.sh DIR   (DIR: new/, prev/ with the libraries)
set -uo pipefail
dir=${1:?directory with new/ and prev/}
bin=$dir/prev/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  for v in new prev; do bench g1-$v-r$r "$dir/$v/provesim" msm-g1 22..24 5; done
done
bench prof-g1-new "$dir/new/provesim" msm-g1 24 3 PSC_MSM_PROFILE=1
fits 60 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
echo "== done at $(el) s"
