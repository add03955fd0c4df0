#!/usr/bin/env bash
# The lazily reduced NTT passes as the default (docs/performance.md, "Lazily reduced NTT
# passes"): the head's binary, built with NTT_LAZY 1, in one device call:
# 1. gpu_check --quick whole (NTTs, MSMs, keys, proofs) under the default;
# 2. Groth16 partitions of 2^26 constraints, `prove --calls 3` (every proof verified),
#    alternated: the default, PSC_NTT_REDUCE=full, the default; the steady calls' GPU time
#    is what the NTTs' 5-6% is worth to a partition;
# 3. two rounds of prover-bench's NTTs from 2^20 to 2^26 (medians of 7), the default then
#    full, to check that the default is the lazy passes.
# PROVE26=0 leaves step 2 out (a GPU without room for the 2^26 key's 64.5 GiB beside a
# proof's buffers). Outputs packed as $OUT/default.tar.xz (and $OUT/log.txt).
#   OUT=DIR [PROVE26=0] bash docs/data/kernels/lazy/default.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
pack=default
BUDGET=${BUDGET:-480}
. scripts/device_kernels.sh
fits 150 "gpu_check --quick under the default" && check default "$chk"
if [ "${PROVE26:-1}" != 0 ]; then
  prove26 1 lazy "$bin"
  prove26 2 full "$bin" PSC_NTT_REDUCE=full
  prove26 3 lazy "$bin"
fi
for r in 1 2; do
  fits 30 "round $r" || break
  bench def-r$r "$bin" ntt 20..26 7
  bench full-r$r "$bin" ntt 20..26 7 PSC_NTT_REDUCE=full
  echo "  round $r: default $(ntt_medians def-r$r)| full $(ntt_medians full-r$r)"
done
echo "== lazy/default.sh done at $(el) s"
pack_done
