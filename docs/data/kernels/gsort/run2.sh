#!/usr/bin/env bash
# The MSM's sort in two steps, second call (docs/performance.md, "The MSM's sort in two
# steps"): the second step searching its run once a block, and the grouped sort's
# settings. On a GPU machine, in one call:
#  1. gpu_check: the MSM set, skewed (2^20, 2^21) and witness-like scalars (to 2^20 + 3)
#     with the grouped sort forced on plain bases, 1024-thread first-step blocks and 16
#     upload pieces; precomputed bases to 2^22, keys with their proofs and the batches
#     under the defaults (grouped over precomputed bases, direct over plain ones);
#  2. prover-bench msm-g1 2^24 (median of 5, PSC_MSM_PROFILE=1) over bases precomputed
#     for window 22: direct, and grouped at 2^5, 2^6, 2^7 groups with 256- and 1024-thread
#     first-step blocks, and at 16 pieces; window 24, grouped at 2^7 and 2^8 groups; plain
#     (window 17): direct, grouped at 2^4, 2^5 and 2^7 groups;
#  3. `prove --constraints 2^26 --calls 3` under the defaults (each proof verified).
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/gsort/run2.sh DIR
# Outputs in call2/ (13:31 UTC), a build with switches for the first step's block size
# (PSC_MSM_STAGE_THREADS) and the upload's pieces (PSC_MSM_PIECES), neither kept; the
# grouped sort the default over precomputed bases only.
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
forced=(PSC_MSM_SORT=grouped PSC_MSM_STAGE_THREADS=1024 PSC_MSM_PIECES=16)
fits 60 "gpu_check msm" && (export "${forced[@]}"; check msm "$chk" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch)
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
fits 90 "gpu_check skew" && (export "${forced[@]}"; check skew "$chk" --skew-min 20 --skew-max 21 --skew-only)
fits 40 "gpu_check sparse" && (export "${forced[@]}"; check sparse "$chk" --sparse-max 20 --sparse-only)
fits 30 "gpu_check keys" && check keys "$chk" --keygen-only --keygen-max 16
fits 40 "gpu_check batch" && check batch "$chk" --batch-only --keygen-max 0
P=PSC_MSM_PROFILE=1
bench pre22-direct "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=direct $P
for st in 256 1024; do
  for lg in 5 6 7; do
    bench pre22-lg$lg-st$st "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=grouped PSC_MSM_LOG_GROUPS=$lg PSC_MSM_STAGE_THREADS=$st $P
  done
done
for lg in 6 7; do
  bench pre22-lg$lg-st1024-p16 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_SORT=grouped PSC_MSM_LOG_GROUPS=$lg PSC_MSM_STAGE_THREADS=1024 PSC_MSM_PIECES=16 $P
done
bench g1-direct "$bin" msm-g1 24 5 PSC_MSM_SORT=direct $P
for lg in 4 5 7; do bench g1-lg$lg "$bin" msm-g1 24 5 PSC_MSM_SORT=grouped PSC_MSM_LOG_GROUPS=$lg PSC_MSM_STAGE_THREADS=1024 $P; done
for lg in 7 8; do
  fits 30 "pre24-lg$lg" && bench pre24-lg$lg "$bin" msm-g1 24 5 --precomp 24 PSC_MSM_SORT=grouped PSC_MSM_LOG_GROUPS=$lg PSC_MSM_STAGE_THREADS=1024 $P
done
prove26 1 default "$bin"
echo "== done at $(el) s"
