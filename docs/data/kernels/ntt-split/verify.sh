#!/usr/bin/env bash
# The NTT's default layout (ntt_r4.h's ntt_default_layout) against the binary before it
# (blocks of 2^10, passes of at most 8 stages), alternated in three rounds: prover-bench's
# NTT rows 2^SIZES (default 16..26), and beside them the new binary under the layouts that
# VARIANTS names (environment settings, ';' between variants, ',' between settings); then
# gpu_check's NTTs (every size to 2^CHECK_MAX, default 24, against the CPU) with the new
# defaults. From the repository root, with .deps/ carried:
#   OUT=DIR bash docs/data/kernels/ntt-split/verify.sh NEW_PROVESIM OLD_PROVESIM NEW_GPU_CHECK
set -uo pipefail
new=$1 old=$2 chk=$3 OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$(dirname "$old")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
t0=$SECONDS
bench() { # NAME BIN [ENV...]
  local name=$1 bin=$2; shift 2
  env "$@" timeout 120 "$bin" prover-bench --backend cuda --sizes "${SIZES:-16..26}" --only ntt --reps 7 \
    > "$OUT/bench-$name.txt" 2> "$OUT/bench-$name.err" || echo "bench $name failed: $(tail -1 "$OUT/bench-$name.err")"
  echo "bench $name at $((SECONDS - t0)) s"
}
for r in 1 2 3; do
  bench new-r$r "$new"
  bench old-r$r "$old"
  IFS=';' read -ra vs <<<"${VARIANTS:-PSC_NTT_LOG_BLOCK=8;PSC_NTT_LOG_BLOCK=8,PSC_NTT_MAX_K=8}"
  for v in "${vs[@]}"; do
    IFS=',' read -ra kv <<<"$v"
    bench "$(tr -d ' ' <<<"${v//PSC_NTT_/}" | tr '=,' '-_')-r$r" "$new" "${kv[@]}"
  done
done
timeout 300 "$chk" --quick --ntt-max "${CHECK_MAX:-24}" --g1-max 0 --g2-max 0 --skew-max 0 --sparse-max 0 --keygen-max 0 \
  --no-batch > "$OUT/check-new.txt" 2>&1
echo "gpu_check (new defaults): exit $?, $(grep -c FAIL "$OUT/check-new.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-new.txt") at $((SECONDS - t0)) s"
