#!/usr/bin/env bash
# The binary of 2aad909 as committed (the block-at-a-time second step by default, 16
# pieces from 2^23 points): gpu_check over precomputed bases to 2^22, MSM G1 2^24
# precomputed for window 22 (median of 5, three runs), a 2^26 partition (`prove --calls
# 3`). Outputs in call-final/.
#   OUT=DIR bash docs/data/kernels/agg3/run-final.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
med() { awk '/^msm-g1/ {printf "%s ", $4}' "$OUT/bench-$1.txt" 2>/dev/null; }
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
for r in 1 2 3; do fits 12 "pre22 $r" && { bench pre22-r$r "$bin" msm-g1 24 5 --precomp 22; echo "  pre22 r$r: $(med pre22-r$r)"; }; done
prove26 1 new "$bin"
echo "== done at $(el) s"
