#!/usr/bin/env bash
# The passes launched as dependents as the default (docs/performance.md, "NTT passes
# launched as dependents"): the binary built with NTT_PDL 1, in one device call:
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets, orders) under the default;
# 2. Groth16 partitions of 2^22 constraints, `prove --calls 3` (every proof verified) under
#    the default, keys in a cache of the call;
# 3. three rounds of prover-bench's NTTs from 2^20 to 2^26 (medians of 7), alternated: the
#    default, PSC_NTT_LAUNCH=stream.
# Outputs packed as $OUT/default.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/pdl/default.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=default
BUDGET=${BUDGET:-150}
. scripts/device_kernels.sh
fits 60 "gpu_check NTTs under the default" && check default-ntt "$chk" --ntt-only --ntt-max 24
fits 20 "prove 2^22" && prove22 "$bin"
for r in 1 2 3; do
  fits 15 "round $r" || break
  bench def-r$r "$bin" ntt 20..26 7
  bench stream-r$r "$bin" ntt 20..26 7 PSC_NTT_LAUNCH=stream
  echo "  round $r: default $(ntt_medians def-r$r)| stream $(ntt_medians stream-r$r)"
done
echo "== pdl/default.sh done at $(el) s"
pack_done
