#!/usr/bin/env bash
# The head's NTT defaults (lazily reduced passes launched as dependents, one tile's shared
# memory a block) over a whole proof, in one device call with DIR/new2's binary:
# 1. gpu_check --quick whole (NTTs, keys, the G1 and G2 MSMs, proofs);
# 2. Groth16 partitions of 2^26 constraints, `prove --calls 3` (every proof verified),
#    alternated: the defaults, the passes before them (PSC_NTT_REDUCE=full
#    PSC_NTT_LAUNCH=stream), the defaults; keys in a disk cache shared by the calls. One
#    worker's key (36 GiB) and buffers (27.5 GiB) fit an 80 GB H100.
# Outputs packed as $OUT/default26.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/smem/default26.sh DIR     (DIR holds new2/provesim, new2/gpu_check)
set -uo pipefail
dir=${1:?directory with new2/}
bin=$dir/new2/provesim
chk=$dir/new2/gpu_check
pack=default26
BUDGET=${BUDGET:-420}
. scripts/device_kernels.sh
prove26 1 default "$bin"
prove26 2 before "$bin" PSC_NTT_REDUCE=full PSC_NTT_LAUNCH=stream
prove26 3 default "$bin"
fits 150 "gpu_check --quick under the defaults" && check default "$chk"
echo "== smem/default26.sh done at $(el) s"
pack_done
