#!/usr/bin/env bash
# (A record of the call as it ran: the switches it sets, PSC_NTT_SWIZZLE, PSC_NTT_TW_COMPACT
# and PSC_MSM_OCC, were removed after it, at 1543c89; docs/performance.md says why.)
# The second call of "NTT: 16-byte loads" (docs/performance.md), after the first
# (run.sh, call/) chose whole elements in shared memory (PSC_NTT_SWIZZLE=0) as the default
# and found G1's bucket sums at 167 registers uncapped: on a GPU machine, in one call,
#  1. prover-bench's field rates and NTT rows 2^SIZES (default 16..27) in ROUNDS rounds
#     (default 2), alternated: new (its defaults), new with PSC_NTT_TW_COMPACT=1, and old
#     (under PSC_NTT_TILES=1, its kernel as on main before);
#  2. G1 MSMs at 2^22..2^24, plain and over bases precomputed for window 16 (two runs):
#     new, new with PSC_MSM_OCC=1 (128 registers, 4 warps a scheduler), old;
#  3. gpu_check on new: every NTT to 2^CHECK_MAX (default 26), and G1 to 2^20 with
#     PSC_MSM_OCC=1 (with skewed scalars to 2^18);
#  4. the 2^26 keys made on the GPU into a disk cache, then `prove --constraints 2^26
#     --calls 3` new, old, and new with PSC_MSM_OCC=1 (each proof verified).
# A step that would pass BUDGET seconds (default 480) is skipped and said so.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim,
# gpu_check) and old/ (provesim, libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/swizzle/run2.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
bin=$dir/old/provesim
. scripts/device_env.sh
t0=$SECONDS
el() { echo $((SECONDS - t0)); }
budget=${BUDGET:-480}
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"

bench() { # NAME BIN WHAT SIZES REPS [ENV...] (extra prover-bench options in $XB)
  local name=$1 b=$2 what=$3 sizes=$4 reps=$5; shift 5
  env "$@" timeout 150 "$b" prover-bench --backend cuda --sizes "$sizes" --only "$what" --reps "$reps" ${XB:-} \
    > "$OUT/bench-$name.txt" 2> "$OUT/bench-$name.err" || echo "bench $name failed: $(tail -1 "$OUT/bench-$name.err")"
  echo "bench $name at $(el) s"
}
for r in $(seq 1 "${ROUNDS:-2}"); do
  bench new-r$r "$dir/new/provesim" field,ntt "${SIZES:-16..27}" 7
  bench compact-r$r "$dir/new/provesim" field,ntt "${SIZES:-16..27}" 7 PSC_NTT_TW_COMPACT=1
  bench old-r$r "$dir/old/provesim" field,ntt "${SIZES:-16..27}" 7 PSC_NTT_TILES=1
done
for v in new occ old; do
  b=$dir/$([ $v = old ] && echo old || echo new)/provesim
  bench msm-$v "$b" msm-g1 22..24 5 $([ $v = occ ] && echo PSC_MSM_OCC=1)
  XB="--precomp 16" bench msm-pre-$v "$b" msm-g1 22..24 5 $([ $v = occ ] && echo PSC_MSM_OCC=1)
done

check() { # NAME [ENV...] (gpu_check options in $CK)
  local name=$1; shift
  env "$@" timeout 200 "$dir/new/gpu_check" --quick $CK > "$OUT/check-$name.txt" 2>&1
  echo "gpu_check $name: exit $?, $(grep -c FAIL "$OUT/check-$name.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-$name.txt") at $(el) s"
}
fits 120 "gpu_check new" && CK="--ntt-max ${CHECK_MAX:-26} --g1-max 0 --g2-max 0 --skew-max 0 --sparse-max 0 --keygen-max 0 --no-batch" check new
fits 40 "gpu_check occ" && CK="--ntt-max 8 --g1-max 20 --g2-max 0 --skew-max 18 --sparse-max 0 --keygen-max 0 --no-batch" check occ PSC_MSM_OCC=1

croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT
busy() { # the GPU time per call that prove --json reports
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' "$1" 2>&1 | cut -c1-400
}
i=0
for run in new old occ; do
  i=$((i + 1))
  b=$run; envs=(); [ $run = occ ] && b=new envs=(PSC_MSM_OCC=1); [ $run = old ] && envs=(PSC_NTT_TILES=1)
  fits $([ $i = 1 ] && echo 75 || echo 40) "prove $run ($i)" || continue
  echo "== prove 2^26 --calls 3, $run, at $(el) s"
  env "${envs[@]}" timeout 150 "$dir/$b/provesim" prove --backend cuda --constraints 2^26 --calls 3 --json \
    --cache "$cache" --out /tmp/p26-proof > "$OUT/prove-$i-$run.json" 2> "$OUT/prove-$i-$run.err"
  echo "rc $?"; busy "$OUT/prove-$i-$run.json"
done
echo "== done at $(el) s"
