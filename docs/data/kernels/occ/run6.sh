#!/usr/bin/env bash
# The sixth call of "G1's bucket sums: one copy of each product" (docs/performance.md):
# prover-bench msm-g1 at 2^25 and 2^26 (20-bit windows), new (the code as committed at
# fec5218) and old (8c29ab6's kernels), median of 3, two rounds alternated. From the
# repository root, with .deps/ carried and DIR holding new/ (provesim, libcudart, libcupti)
# and old/ (provesim):
#   OUT=DIR bash docs/data/kernels/occ/run6.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  for v in new old; do fits 60 "g1 25..26 $v" && bench g1big-$v-r$r "$dir/$v/provesim" msm-g1 25..26 3; done
done
echo "== done at $(el) s"
