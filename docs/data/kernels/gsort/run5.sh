#!/usr/bin/env bash
# The MSM over precomputed bases, fifth call (docs/performance.md, "The MSM's sort in two
# steps"): the reduction's segments (PSC_MSM_LOG_SEGMENTS, 2^16 by default over precomputed
# bases) and the upload's pieces (PSC_MSM_PIECES, 8), switches of the build tried. On a
# GPU machine, in one call:
#  1. gpu_check: precomputed bases to 2^22 at 2^18 segments and 16 pieces;
#  2. prover-bench msm-g1 2^24 over bases precomputed for window 22 (median of 5): the
#     defaults, 2^17 and 2^18 segments, 16 pieces, 2^18 segments with 16 pieces; msm-g1
#     2^20..2^24 (plain bases) in 8 and 16 pieces.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/gsort/run5.sh DIR
# Outputs in call5/ (14:39 UTC), a build of a9b822f with the two switches, neither kept.
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 60 "gpu_check pre" && (export PSC_MSM_LOG_SEGMENTS=18 PSC_MSM_PIECES=16; check pre "$chk" --precomp-max 22)
P=PSC_MSM_PROFILE=1
bench pre22-default "$bin" msm-g1 24 5 --precomp 22 $P
bench pre22-s17 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_LOG_SEGMENTS=17 $P
bench pre22-s18 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_LOG_SEGMENTS=18 $P
bench pre22-p16 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_PIECES=16 $P
bench pre22-s18-p16 "$bin" msm-g1 24 5 --precomp 22 PSC_MSM_LOG_SEGMENTS=18 PSC_MSM_PIECES=16 $P
fits 10 g1-p8 && bench g1-p8 "$bin" msm-g1 20..24 5
fits 10 g1-p16 && bench g1-p16 "$bin" msm-g1 20..24 5 PSC_MSM_PIECES=16
echo "== done at $(el) s"
