#!/usr/bin/env bash
# 2^23's default passes of up to 8 stages (7 + 8 + 8; ntt_default_layout) with the head's
# binary, in one device call: gpu_check's NTTs (every size to 2^24) under the defaults, then
# three rounds of prover-bench's NTTs from 2^22 to 2^24 (medians of 7), alternated: the
# default, PSC_NTT_MAX_K=7 (2^23 in four passes, 5 + 5 + 5 + 8).
# Outputs packed as $OUT/k23.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/split/k23.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=k23
BUDGET=${BUDGET:-90}
. scripts/device_kernels.sh
fits 35 "gpu_check NTTs under the defaults" && check default-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 8 "round $r" || break
  bench def-r$r "$bin" ntt 22..24 7
  bench k7-r$r "$bin" ntt 22..24 7 PSC_NTT_MAX_K=7
  echo "  round $r: default $(ntt_medians def-r$r)| at most 7 $(ntt_medians k7-r$r)"
done
echo "== split/k23.sh done at $(el) s"
pack_done
