#!/usr/bin/env bash
# Blocks of 2^7 elements (PSC_NTT_LOG_BLOCK=7: one warp a block, up to 21 blocks a
# multiprocessor at 96 registers, against 10 blocks of two warps with 2^8) against the
# default blocks of 2^8. At 2^20 a pass of the default has 4,096 tiles for the 1,320 blocks
# an H100 or H200 holds at once (3.1 rounds, the last a tenth full); with 2^7 it has 8,192
# for about 2,772 (2.96 rounds). One binary, in one device call:
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets, orders) under
#    PSC_NTT_LOG_BLOCK=7 PSC_NTT_MAX_K=7;
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^18 to 2^24
#    (medians of 7), alternated: the default, blocks of 2^7 with pre-passes of at most 7
#    stages, and of at most 6.
# Outputs packed as $OUT/lb7.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/lb7/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=lb7
BUDGET=${BUDGET:-150}
. scripts/device_kernels.sh
fits 60 "gpu_check NTTs with blocks of 2^7" &&
  PSC_NTT_LOG_BLOCK=7 PSC_NTT_MAX_K=7 check lb7-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 15 "round $r" || break
  bench def-r$r "$bin" ntt 18..24 7
  bench lb7k7-r$r "$bin" ntt 18..24 7 PSC_NTT_LOG_BLOCK=7 PSC_NTT_MAX_K=7
  bench lb7k6-r$r "$bin" ntt 18..24 7 PSC_NTT_LOG_BLOCK=7 PSC_NTT_MAX_K=6
  echo "  round $r: default $(ntt_medians def-r$r)| lb7k7 $(ntt_medians lb7k7-r$r)| lb7k6 $(ntt_medians lb7k6-r$r)"
done
echo "== lb7/run.sh done at $(el) s"
pack_done
