#!/usr/bin/env bash
# Batch-affine bucket sums for G1 (prover/cuda/msm_affine.h) against the XYZZ bucket sums,
# in one device call from the repository root:
#   OUT=DIR bash docs/data/kernels/affine/run.sh
# .devmsm/b.tar.xz holds provesim and gpu_check built here (-arch=sm_90) from branch
# msm-affine, with libcudart and libcupti. PSC_MSM_AFFINE picks the bucket sums in the
# same binary: 0 XYZZ (the code before), 1 batch-affine for every G1 MSM over plain
# bases, 2 batch-affine for those whose scalars are mostly other than 0 and 1.
# 1. gpu_check with PSC_MSM_AFFINE=1: the quick set (G1 to 2^22, skewed and witness-like
#    scalars, batches that share a sort, windows 2..8), then G1 2^24 alone; and the
#    switch's error for a bad value.
# 2. prover-bench MSM G1 2^20..2^26 (random scalars), =0 and =1 alternated, median of 3,
#    PSC_MSM_PROFILE=1 (per-phase times in bench_*.err).
# 3. The 2^26 partition: keys made on the GPU into a disk cache, `prove --calls 3` with
#    =0, =2 and =1.
# 4. prover-bench again, =0 and =1, when time is left.
# Everything lands in $OUT/affine.tar.gz (re-packed after each step). A step that would
# pass BUDGET seconds (default 395) from the start is skipped and said so.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
R=/tmp/affine-res; mkdir -p "$R"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$R/log.txt") 2>&1
pack() { tar -czf "$OUT/affine.tar.gz" -C "$R" . 2>/dev/null; }
budget=${BUDGET:-395}
mkdir -p /tmp/aff && tar -xJf .devmsm/b.tar.xz -C /tmp/aff
bin=/tmp/aff/provesim
. scripts/device_env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"; pack' EXIT

echo "== PSC_MSM_AFFINE=abc (must be refused)"
PSC_MSM_AFFINE=abc timeout 20 $bin prover-bench --backend cuda --only msm-g1 --sizes 12..12 --reps 1 > "$R/bad_env.txt" 2>&1
echo "rc $?"; tail -2 "$R/bad_env.txt"

echo "== gpu_check quick, PSC_MSM_AFFINE=1, at $(el) s"
PSC_MSM_AFFINE=1 timeout 120 /tmp/aff/gpu_check --quick --ntt-max 12 --g1-max 22 --g2-max 14 --skew-min 16 \
  --skew-max 18 --sparse-max 17 --keygen-max 0 > "$R/gpu_check_quick.txt" 2>&1
echo "rc $?"; grep -E "FAIL|failed" "$R/gpu_check_quick.txt" | tail -12; pack

if fits 70 "gpu_check 2^24"; then
  echo "== gpu_check G1 2^24, PSC_MSM_AFFINE=1, at $(el) s"
  PSC_MSM_AFFINE=1 timeout 110 /tmp/aff/gpu_check --quick --keygen-max 0 --no-batch --sparse-max 0 --skew-min 30 \
    --skew-max 0 --ntt-max 0 --g1-min 24 --g1-max 24 --g2-max 0 > "$R/gpu_check_24.txt" 2>&1
  echo "rc $?"; grep -E "FAIL|n=16777216|failed" "$R/gpu_check_24.txt"; pack
fi

bench() { # $1 = PSC_MSM_AFFINE, $2 = round
  fits 45 "bench affine=$1 round $2" || return
  echo "== bench msm-g1 PSC_MSM_AFFINE=$1 (round $2) at $(el) s"
  PSC_MSM_AFFINE=$1 PSC_MSM_PROFILE=1 timeout 100 $bin prover-bench --backend cuda --only msm-g1 --sizes 20..26 \
    --reps 3 > "$R/bench_a$1_r$2.txt" 2> "$R/bench_a$1_r$2.err"
  echo "rc $?"; grep msm "$R/bench_a$1_r$2.txt"; pack
}
bench 0 1
bench 1 1

prove() { # $1 = PSC_MSM_AFFINE, $2 = seconds it needs
  fits "$2" "prove 2^26 affine=$1" || return
  echo "== prove 2^26 --calls 3, PSC_MSM_AFFINE=$1, at $(el) s"
  PSC_MSM_AFFINE=$1 timeout $(( $2 + 40 )) $bin prove --backend cuda --constraints 2^26 --calls 3 --json \
    --cache "$cache" --out /tmp/p26-proof > "$R/prove26_a$1.json" 2> "$R/prove26_a$1.err"
  echo "rc $?"; tail -2 "$R/prove26_a$1.err"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "peak_gpu", d["peak_gpu_bytes"], "verified", d["verified"])' \
    "$R/prove26_a$1.json" 2>&1 | cut -c1-400
  pack
}
prove 0 100
prove 2 35
prove 1 35

bench 0 2
bench 1 2
echo "== summary at $(el) s"
grep -h "checks failed" "$R"/gpu_check_*.txt
for f in "$R"/bench_a*_r*.txt; do echo "$(basename $f)"; grep msm "$f"; done
echo "== done at $(el) s"
