#!/usr/bin/env bash
# The second call of "B_G2 takes A's sort" (docs/performance.md), with the binary of the
# final code (the held sort cleared before an MSM's slots are touched, not after they are
# allocated; gpu_check's keys check proving jobs of three partitions, b_g2 after msm and
# then before it): gpu_check --keygen-only (keys at 2^12 against the CPU's, byte for byte,
# and the proofs of prove_jobs; then at 2^16 if the time allows), --batch-only, then one
# `prove --constraints 2^26 --calls 3`.
#   OUT=DIR bash docs/data/kernels/keptsort/run2.sh DIR   (DIR: new/ with the libraries)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
fits 60 "gpu_check keygen" && check keygen "$dir/new/gpu_check" --keygen-only --keygen-max 12
fits 60 "gpu_check batch" && check batch "$dir/new/gpu_check" --batch-only --keygen-max 0
prove26 1 new "$dir/new/provesim"
fits 150 "gpu_check keygen 2^16" && check keygen16 "$dir/new/gpu_check" --keygen-only --keygen-max 16
echo "== done at $(el) s"
