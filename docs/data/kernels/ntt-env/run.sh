#!/usr/bin/env bash
# The NTT's tuning variables refused when out of range (docs/CHANGELOG.md, 2026-12-04), on
# a GPU machine in one call: prover-bench ntt 2^20 (median of 7) under the defaults and
# under PSC_NTT_LOG_BLOCK=9 (both must run), then under PSC_NTT_TILES=abc,
# PSC_NTT_LOG_BLOCK=7, PSC_NTT_RADIX=3 and PSC_NTT_MAX_K=13 (each must exit 2 with a
# message naming the variable, and print no table row); gpu_check --quick --ntt-max 22
# (NTTs only) under the defaults.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/ntt-env/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
bench default "$bin" ntt 20 7
bench lb9 "$bin" ntt 20 7 PSC_NTT_LOG_BLOCK=9
for v in PSC_NTT_TILES=abc PSC_NTT_LOG_BLOCK=7 PSC_NTT_RADIX=3 PSC_NTT_MAX_K=13; do
  env "$v" "$bin" prover-bench --backend cuda --sizes 20 --only ntt --reps 3 > "$OUT/bad-${v%%=*}.txt" 2>&1
  echo "$v: exit $?: $(grep -c '^ntt ' "$OUT/bad-${v%%=*}.txt") rows: $(tail -1 "$OUT/bad-${v%%=*}.txt")"
done
fits 60 "gpu_check ntt" && check ntt "$chk" --ntt-max 22 --g1-max 0 --g2-max 0 --keygen-max 0 --no-batch
echo "== done at $(el) s"
