#!/usr/bin/env bash
# The NTT's radix-4 passes with lazily reduced values (PSC_NTT_REDUCE=lazy: values below 2r
# within the transform, the products without their final subtraction, the last pass
# making them canonical) against the default full reduction (docs/performance.md,
# "Lazily reduced NTT passes"), one binary, in one device call:
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets, orders) under lazy;
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^26
#    (medians of 7), alternated: full, lazy.
# Outputs packed as $OUT/lazy.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/lazy/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=lazy
BUDGET=${BUDGET:-300}
. scripts/device_kernels.sh
fits 150 "gpu_check NTTs lazily reduced" && PSC_NTT_REDUCE=lazy check lazy-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 40 "round $r" || break
  bench full-r$r "$bin" ntt 20..26 7 PSC_NTT_REDUCE=full
  bench lazy-r$r "$bin" ntt 20..26 7 PSC_NTT_REDUCE=lazy
  echo "  round $r: full $(ntt_medians full-r$r)| lazy $(ntt_medians lazy-r$r)"
done
echo "== lazy/run.sh done at $(el) s"
pack_done
