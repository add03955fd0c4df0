#!/usr/bin/env bash
# What run.sh left for ad904f3's Montgomery product (DIR/new2), on the H200: a Groth16
# partition of 2^26 constraints (prove --calls 3, every proof verified: the product at the
# field's scale), then gpu_check without --quick (the whole suite at its default sizes:
# every NTT order and direction up to 2^12, the common ones to 2^24, G1 MSMs to 2^22, G2 to
# 2^20, windows 2..20, key generation to 2^16, the skewed and witness-like sets).
# Outputs packed as $OUT/carry2.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/carry/run2.sh DIR     (DIR holds new2/)
set -uo pipefail
dir=${1:?directory with new2/}
bin=$dir/new2/provesim
chk=$dir/new2/gpu_check
pack=carry2
BUDGET=${BUDGET:-560}
. scripts/device_kernels.sh
prove26 1 new2 "$bin"
if fits 200 "gpu_check"; then
  timeout $((budget - $(el))) "$chk" > "$OUT/check-full.txt" 2>&1
  echo "gpu_check: exit $?, $(grep -c FAIL "$OUT/check-full.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-full.txt") at $(el) s"
  tail -1 "$OUT/check-full.txt"
fi
echo "== carry/run2.sh done at $(el) s"
pack_done
