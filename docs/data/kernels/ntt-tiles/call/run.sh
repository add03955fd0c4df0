#!/usr/bin/env bash
# The radix-4 NTT pass with two tiles of shared memory a block (the next tile's loads
# beside the current tile's arithmetic, ntt_pass_r4) against the binaries before it, on a
# GPU machine, in one call:
#  1. prover-bench's field rates and NTT rows 2^SIZES (default 16..27) in ROUNDS rounds
#     (default 3), alternated: db (the new binary, its default tiles a block), db under
#     PSC_NTT_TILES = each of TILES (default "1 4 0"), prev (Fr's new product, one tile a
#     block) and old (the prover before both);
#  2. gpu_check's NTTs (every size to 2^CHECK_MAX, default 26, against the CPU) on db, and
#     to 2^22 under each PSC_NTT_TILES of TILES;
#  3. Nsight Compute's sections on four radix-4 passes of a 2^24 transform, db and prev,
#     and on one launch of G1's bucket sums at 2^24 (db);
#  4. the 2^26 keys made on the GPU by db into a disk cache, then
#     `prove --constraints 2^26 --calls 3` db, prev, db (each proof verified).
# A step that would pass BUDGET seconds (default 520) is skipped and said so.
# From the repository root, with .deps/ carried and DIR holding db/ (provesim, gpu_check),
# prev/ and old/ (provesim; old/ also libcudart and libcupti):
#   OUT=DIR bash docs/data/kernels/ntt-tiles/run.sh DIR
set -uo pipefail
dir=${1:?directory with db/, prev/ and old/}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
bin=$dir/old/provesim
. scripts/device_env.sh
t0=$SECONDS
el() { echo $((SECONDS - t0)); }
budget=${BUDGET:-520}
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"
tiles=${TILES:-1 4 0}

bench() { # NAME BIN [ENV...]
  local name=$1 b=$2; shift 2
  env "$@" timeout 120 "$b" prover-bench --backend cuda --sizes "${SIZES:-16..27}" --only field,ntt --reps 7 \
    > "$OUT/bench-$name.txt" 2> "$OUT/bench-$name.err" || echo "bench $name failed: $(tail -1 "$OUT/bench-$name.err")"
  echo "bench $name at $(el) s"
}
for r in $(seq 1 "${ROUNDS:-3}"); do
  bench db-r$r "$dir/db/provesim"
  for t in $tiles; do bench "tiles$t-r$r" "$dir/db/provesim" PSC_NTT_TILES=$t; done
  bench prev-r$r "$dir/prev/provesim"
  bench old-r$r "$dir/old/provesim"
done

check() { # NAME MAX [ENV...]
  local name=$1 max=$2; shift 2
  env "$@" timeout 200 "$dir/db/gpu_check" --quick --ntt-max "$max" --g1-max 0 --g2-max 0 --skew-max 0 \
    --sparse-max 0 --keygen-max 0 --no-batch > "$OUT/check-$name.txt" 2>&1
  echo "gpu_check $name: exit $?, $(grep -c FAIL "$OUT/check-$name.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-$name.txt") at $(el) s"
}
fits 120 "gpu_check db" && check db "${CHECK_MAX:-26}"
for t in $tiles; do fits 15 "gpu_check tiles$t" && check "tiles$t" 22 PSC_NTT_TILES=$t; done

# Nsight Compute on four launches of the radix-4 pass (the passes of one forward 2^24
# transform after the warm-up's), db and prev: where the warps wait, and the pipes' use.
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for b in db prev; do
  [ -n "$ncu" ] && fits 40 "ncu $b" || continue
  timeout 120 "$ncu" --clock-control none --kernel-name regex:ntt_pass_r4 --launch-skip 4 --launch-count 4 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    "$dir/$b/provesim" prover-bench --backend cuda --sizes 24 --only ntt --reps 1 > "$OUT/ncu-$b.txt" 2>&1
  echo "ncu $b: exit $? at $(el) s"
done

# The same sections on one launch of G1's bucket sums at 2^24 (the MSM that issue #12's
# 130 ms is about), db only.
[ -n "$ncu" ] && fits 60 "ncu msm" && {
  timeout 150 "$ncu" --clock-control none --kernel-name regex:g1_bucket_chunks --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    "$dir/db/provesim" prover-bench --backend cuda --sizes 24 --only msm-g1 --reps 1 > "$OUT/ncu-msm.txt" 2>&1
  echo "ncu msm: exit $? at $(el) s"
}

croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT
busy() { # the GPU time per call that prove --json reports
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' "$1" 2>&1 | cut -c1-400
}
i=0
for b in db prev db; do
  i=$((i + 1))
  fits $([ $i = 1 ] && echo 75 || echo 40) "prove $b ($i)" || continue
  echo "== prove 2^26 --calls 3, $b, at $(el) s"
  timeout 150 "$dir/$b/provesim" prove --backend cuda --constraints 2^26 --calls 3 --json --cache "$cache" \
    --out /tmp/p26-proof > "$OUT/prove-$i-$b.json" 2> "$OUT/prove-$i-$b.err"
  echo "rc $?"; busy "$OUT/prove-$i-$b.json"
done
echo "== done at $(el) s"
