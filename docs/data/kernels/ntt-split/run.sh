#!/usr/bin/env bash
# The NTT's pass split by size on a GPU machine: prover-bench's NTT rows (2^16..2^26) for
# each (PSC_NTT_LOG_BLOCK, PSC_NTT_MAX_K), the settings alternated in rounds so that a drift
# of the machine falls on all of them alike, then gpu_check's NTTs (every size to 2^24,
# against the CPU) for each setting. MAX_K 0 is the default (8 for blocks of 2^10, else
# LOG_BLOCK - 2); MAX_K = LOG_BLOCK lets a transform of 2^(2 LOG_BLOCK) run as two passes.
# From the repository root, with .deps/ carried:
#   OUT=DIR bash docs/data/kernels/ntt-split/run.sh PROVESIM GPU_CHECK
set -uo pipefail
bin=$1 chk=$2 OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$(dirname "$bin")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
settings=${SETTINGS:-"10:0 10:10 11:0 11:11 12:0 12:12 9:0 9:9"}
t0=$SECONDS
for round in 1 2; do
  for c in $settings; do
    lb=${c%:*} mk=${c#*:}
    PSC_NTT_LOG_BLOCK=$lb PSC_NTT_MAX_K=$mk timeout 120 "$bin" prover-bench --backend cuda --sizes 16..26 \
      --only ntt --reps 7 > "$OUT/bench-$lb-$mk-r$round.txt" 2> "$OUT/bench-$lb-$mk-r$round.err" ||
      echo "bench $c round $round failed: $(tail -1 "$OUT/bench-$lb-$mk-r$round.err")"
    echo "bench $c round $round at $((SECONDS - t0)) s"
  done
done
for c in $settings; do
  lb=${c%:*} mk=${c#*:}
  PSC_NTT_LOG_BLOCK=$lb PSC_NTT_MAX_K=$mk timeout 120 "$chk" --quick --ntt-max 24 --g1-max 0 --g2-max 0 \
    --skew-max 0 --sparse-max 0 --keygen-max 0 --no-batch > "$OUT/check-$lb-$mk.txt" 2>&1
  echo "gpu_check $c: exit $?, $(grep -c FAIL "$OUT/check-$lb-$mk.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-$lb-$mk.txt") at $((SECONDS - t0)) s"
done
