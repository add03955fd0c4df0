#!/usr/bin/env bash
# The NTT's radix-4 passes with each tile's twiddles staged in shared memory beside its data
# (PSC_NTT_TW=shared) against the default, which reads each group's twiddles from the
# table in global memory (docs/performance.md, "Twiddles staged with the tile"), one
# binary, in one device call:
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets) under PSC_NTT_TW=shared;
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^24
#    (medians of 7), alternated: default, shared;
# 3. Nsight Compute on one forward NTT's passes (docs/data/kernels/stall/run.sh): the
#    default and shared at 2^22, the default at 2^20.
# Outputs packed as $OUT/tws.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/tws/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=tws
BUDGET=${BUDGET:-560}
. scripts/device_kernels.sh
fits 150 "gpu_check NTTs with staged twiddles" && PSC_NTT_TW=shared check tws-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 45 "round $r" || break
  bench def-r$r "$bin" ntt 20..24 7
  bench tws-r$r "$bin" ntt 20..24 7 PSC_NTT_TW=shared
  echo "  round $r: default $(ntt_medians def-r$r)| shared $(ntt_medians tws-r$r)"
done
OUT=$OUT/stall BUDGET=$((budget - $(el))) bash docs/data/kernels/stall/run.sh "$dir" def22:22 \
  tws22:22:PSC_NTT_TW=shared def20:20
echo "== tws/run.sh done at $(el) s"
pack_done
