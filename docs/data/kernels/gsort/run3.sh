#!/usr/bin/env bash
# The MSM's sort in two steps, third call (docs/performance.md, "The MSM's sort in two
# steps"): host scalars in rounds (each round sorted and summed into the buckets while the
# later rounds' scalars go up), and groups as wide as 16-bit low keys allow. On a GPU
# machine, in one call:
#  1. gpu_check: precomputed bases to 2^22, keys with their proofs and the batches under
#     the defaults (grouped sort in 2 rounds over precomputed bases); the MSM set, skewed
#     (2^20, 2^21) and witness-like scalars (to 2^20 + 3) with the grouped sort forced;
#  2. prover-bench msm-g1 2^24 (median of 5, PSC_MSM_PROFILE=1) over bases precomputed for
#     window 22: 2 rounds (default), 1, 4, 4 rounds of 16 pieces, direct; plain (window
#     17): direct (default), grouped in 1, 2 and 4 rounds; then msm-g1 2^20..2^24 direct
#     and grouped (2 rounds) alternated;
#  3. `prove --constraints 2^26 --calls 3` under the defaults and with the grouped sort
#     forced (device scalars: one round), each proof verified.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/gsort/run3.sh DIR
# Outputs in call3/ (13:53 UTC), a build with host scalars taken in rounds
# (PSC_MSM_ROUNDS, 2 by default, and PSC_MSM_PIECES), not kept: docs/performance.md says why.
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
fits 90 "gpu_check skew" && (export PSC_MSM_SORT=grouped; check skew "$chk" --skew-min 20 --skew-max 21 --skew-only)
fits 60 "gpu_check msm" && (export PSC_MSM_SORT=grouped; check msm "$chk" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch)
fits 50 "gpu_check sparse" && (export PSC_MSM_SORT=grouped; check sparse "$chk" --sparse-max 20 --sparse-only)
fits 30 "gpu_check keys" && check keys "$chk" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$chk" --batch-only --keygen-max 0
P=PSC_MSM_PROFILE=1
bench pre22-r2 "$bin" msm-g1 24 5 --precomp 22 $P
bench pre22-r1 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_ROUNDS=1 $P
bench pre22-r4 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_ROUNDS=4 $P
bench pre22-r4-p16 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_ROUNDS=4 PSC_MSM_PIECES=16 $P
bench pre22-direct "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=direct $P
bench g1-direct "$bin" msm-g1 24 5 $P
for r in 1 2 4; do bench g1-grouped-r$r "$bin" msm-g1 24 5 PSC_MSM_SORT=grouped PSC_MSM_ROUNDS=$r $P; done
for v in direct grouped; do fits 15 "g1s-$v" && bench g1s-$v "$bin" msm-g1 20..24 5 PSC_MSM_SORT=$v; done
prove26 1 default "$bin"
prove26 2 grouped "$bin" PSC_MSM_SORT=grouped
echo "== done at $(el) s"
