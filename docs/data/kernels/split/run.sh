#!/usr/bin/env bash
# Pre-passes of even lengths (PSC_NTT_SPLIT=even: the same number of passes, each an even
# number of stages where the sum allows, so that fewer passes end in a radix-2 stage, its
# own round trip through shared memory; 2^24: 4 + 6 + 6 + 8 stages instead of 5 + 5 + 6 + 8,
# 2^22 with PSC_NTT_MAX_K=8: 6 + 8 + 8 instead of 7 + 7 + 8) against the default split.
# One binary, in one device call:
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets, orders) under the even
#    split, and under the even split with pre-passes of at most 8 stages;
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^26
#    (medians of 7), alternated: the default, even, even with at most 8.
# Outputs packed as $OUT/split.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/split/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=split
BUDGET=${BUDGET:-200}
. scripts/device_kernels.sh
fits 50 "gpu_check NTTs, even split" && PSC_NTT_SPLIT=even check even-ntt "$chk" --ntt-only --ntt-max 24
fits 50 "gpu_check NTTs, even split, at most 8" &&
  PSC_NTT_SPLIT=even PSC_NTT_MAX_K=8 check even8-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 20 "round $r" || break
  bench def-r$r "$bin" ntt 20..26 7
  bench even-r$r "$bin" ntt 20..26 7 PSC_NTT_SPLIT=even
  bench even8-r$r "$bin" ntt 20..26 7 PSC_NTT_SPLIT=even PSC_NTT_MAX_K=8
  echo "  round $r: default $(ntt_medians def-r$r)| even $(ntt_medians even-r$r)| even8 $(ntt_medians even8-r$r)"
done
echo "== split/run.sh done at $(el) s"
pack_done
