#!/usr/bin/env bash
# Fr's Montgomery product with r's two low limbs folded in (PSF_MONT_BODY_R1, psf_mont.h)
# against the binary before it, on a GPU machine, in one call:
#  1. prover-bench's field rates and NTT rows 2^SIZES (default 16..27), new and old
#     alternated in ROUNDS rounds (default 3), and beside them the new binary under the NTT
#     layouts VARIANTS names (';' between variants, ',' between settings) and the binaries
#     that EXTRA names (subfolders of DIR: the new code built with other launch bounds);
#  2. gpu_check's quick set with NTTs to 2^CHECK_MAX (default 26) on the new binary;
#  3. MSM G1 2^24 plain, new and old (its scalars leave Montgomery form through Fr);
#  4. the 2^26 keys made on the GPU by the new binary into a disk cache, then
#     `prove --constraints 2^26 --calls 3` new, old, new on those keys (each proof verified;
#     the old binary verifying proofs made with the new binary's keys checks the keys too).
# A step that would pass BUDGET seconds (default 520) is skipped and said so.
# From the repository root, with .deps/ carried and the binaries unpacked in $DIR (old/ and
# new/ with provesim, new/gpu_check, and libcudart/libcupti in old/):
#   OUT=DIR bash docs/data/kernels/fr-r1/run.sh DIR
set -uo pipefail
dir=${1:?directory with old/ and new/}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
new=$dir/new/provesim old=$dir/old/provesim chk=$dir/new/gpu_check bin=$old
. scripts/device_env.sh
t0=$SECONDS
el() { echo $((SECONDS - t0)); }
budget=${BUDGET:-520}
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"

bench() { # NAME BIN [ENV...]
  local name=$1 b=$2; shift 2
  env "$@" timeout 120 "$b" prover-bench --backend cuda --sizes "${SIZES:-16..27}" --only field,ntt --reps 7 \
    > "$OUT/bench-$name.txt" 2> "$OUT/bench-$name.err" || echo "bench $name failed: $(tail -1 "$OUT/bench-$name.err")"
  echo "bench $name at $(el) s"
}
for r in $(seq 1 "${ROUNDS:-3}"); do
  bench new-r$r "$new"
  bench old-r$r "$old"
  for x in ${EXTRA:-}; do bench "$x-r$r" "$dir/$x/provesim"; done
  IFS=';' read -ra vs <<<"${VARIANTS:-PSC_NTT_LOG_BLOCK=9,PSC_NTT_MAX_K=7}"
  for v in "${vs[@]}"; do
    IFS=',' read -ra kv <<<"$v"
    bench "$(tr -d ' ' <<<"${v//PSC_NTT_/}" | tr '=,' '-_')-r$r" "$new" "${kv[@]}"
  done
done

fits 150 "gpu_check" && {
  timeout 200 "$chk" --quick --ntt-max "${CHECK_MAX:-26}" > "$OUT/gpu_check.txt" 2>&1
  echo "gpu_check: exit $?, $(grep -c FAIL "$OUT/gpu_check.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/gpu_check.txt") at $(el) s"
}

for b in new old; do
  fits 10 "msm $b" || continue
  timeout 40 "$dir/$b/provesim" prover-bench --backend cuda --only msm-g1 --sizes 24 --reps 3 \
    > "$OUT/msm-$b.txt" 2> "$OUT/msm-$b.err"
  echo "msm $b: exit $?, $(grep msm-g1 "$OUT/msm-$b.txt")"
done

croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT
busy() { # the GPU time per call that prove --json reports
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' "$1" 2>&1 | cut -c1-400
}
i=0
for b in new old new; do
  i=$((i + 1))
  fits $([ $i = 1 ] && echo 75 || echo 40) "prove $b ($i)" || continue
  echo "== prove 2^26 --calls 3, $b, at $(el) s"
  timeout 150 "$dir/$b/provesim" prove --backend cuda --constraints 2^26 --calls 3 --json --cache "$cache" \
    --out /tmp/p26-proof > "$OUT/prove-$i-$b.json" 2> "$OUT/prove-$i-$b.err"
  echo "rc $?"; busy "$OUT/prove-$i-$b.json"
done
echo "== done at $(el) s"
