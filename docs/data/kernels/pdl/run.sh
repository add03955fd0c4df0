#!/usr/bin/env bash
# The NTT's passes launched as programmatic dependents (PSC_NTT_LAUNCH=pdl: each pass after
# a transform's first may start its blocks while the pass before it finishes, and waits in
# the kernel before reading) against the default launches (docs/prover.md, PSC_NTT_LAUNCH),
# one binary, in one device call:
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets, orders) under pdl;
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^26
#    (medians of 7), alternated: the default, pdl.
# Outputs packed as $OUT/pdl.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/pdl/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=pdl
BUDGET=${BUDGET:-200}
. scripts/device_kernels.sh
fits 60 "gpu_check NTTs as dependents" && PSC_NTT_LAUNCH=pdl check pdl-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 20 "round $r" || break
  bench def-r$r "$bin" ntt 20..26 7
  bench pdl-r$r "$bin" ntt 20..26 7 PSC_NTT_LAUNCH=pdl
  echo "  round $r: default $(ntt_medians def-r$r)| pdl $(ntt_medians pdl-r$r)"
done
echo "== pdl/run.sh done at $(el) s"
pack_done
