#!/usr/bin/env bash
# The fifth call of "G1's bucket sums: one copy of each product" (docs/performance.md),
# after the backend's device lock (two phases of one job on one handle take turns): on a
# GPU machine, gpu_check's keys at 2^12 and 2^16, each with a proof and four jobs of three
# partitions (b_g2 after msm, before it, beside ntt_h and beside msm on a second thread),
# the batches, and `prove --constraints 2^26 --calls 3`. From the repository root, with
# .deps/ carried and DIR holding new/ (provesim, gpu_check, libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/occ/run5.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
fits 60 "gpu_check keys" && check keys "$dir/new/gpu_check" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$dir/new/gpu_check" --batch-only --keygen-max 0
prove26 1 new "$dir/new/provesim"
echo "== done at $(el) s"
