#!/usr/bin/env bash
# The second call of "Squares by their own sequence" (docs/performance.md): with the new
# prover only (run.sh's new/), does a 17-bit window beat the default 16 for G1 at 2^23 and
# 2^24, or 15 or 17 for G2 at 2^21 and 2^22? Three rounds alternated, median of 5 each.
#   OUT=DIR bash docs/data/kernels/sqr/run2.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2 3; do
  bench g1-w-r$r "$dir/new/provesim" msm-g1 23..24 5 --windows 16..17
  bench g2-w-r$r "$dir/new/provesim" msm-g2 21..22 5 --windows 15..17
done
echo "== done at $(el) s"
