#!/usr/bin/env bash
# The pass layout again, now that the passes reduce lazily and launch as dependents: the
# most stages a pre-pass takes (PSC_NTT_MAX_K; the default 7 gives 2^24 four passes, 8
# gives three) under PSC_NTT_LAUNCH=pdl, three rounds of prover-bench's NTTs from 2^20 to
# 2^26 (medians of 7), alternated: MAX_K 7 (the default), 8, 6. Outputs packed as
# $OUT/maxk.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/pdl/maxk.sh DIR     (DIR holds new/provesim)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
pack=maxk
BUDGET=${BUDGET:-120}
. scripts/device_kernels.sh
for r in 1 2 3; do
  fits 25 "round $r" || break
  bench k7-r$r "$bin" ntt 20..26 7 PSC_NTT_LAUNCH=pdl
  bench k8-r$r "$bin" ntt 20..26 7 PSC_NTT_LAUNCH=pdl PSC_NTT_MAX_K=8
  bench k6-r$r "$bin" ntt 20..26 7 PSC_NTT_LAUNCH=pdl PSC_NTT_MAX_K=6
  echo "  round $r: 7 $(ntt_medians k7-r$r)| 8 $(ntt_medians k8-r$r)| 6 $(ntt_medians k6-r$r)"
done
echo "== pdl/maxk.sh done at $(el) s"
pack_done
