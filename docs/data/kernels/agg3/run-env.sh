#!/usr/bin/env bash
# The new tuning variables out of range (2aad909's binary): prover-bench msm-g1 2^20 over
# bases precomputed for window 16 under PSC_MSM_AGG_THREADS=300, PSC_MSM_PIECES=0 and 65
# (each must exit 2 with a message naming the variable and print no row), then with
# PSC_MSM_AGG_THREADS=1024 and PSC_MSM_PIECES=64 (in range: a row). Outputs in call-env/.
#   OUT=DIR bash docs/data/kernels/agg3/run-env.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
for v in PSC_MSM_AGG_THREADS=300 PSC_MSM_PIECES=0 PSC_MSM_PIECES=65 PSC_MSM_AGG_THREADS=1024 PSC_MSM_PIECES=64; do
  env "$v" timeout 60 "$bin" prover-bench --backend cuda --sizes 20 --only msm-g1 --reps 3 --precomp 16 \
    > "$OUT/env-$v.txt" 2> "$OUT/env-$v.err"
  echo "$v: exit $?, rows $(grep -c '^msm-g1' "$OUT/env-$v.txt"), $(grep -h -i "PSC_MSM" "$OUT/env-$v.err" | tail -1)"
done
echo "== done at $(el) s"
