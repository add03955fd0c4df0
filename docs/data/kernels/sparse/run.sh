#!/usr/bin/env bash
# Witness-like MSM scalars (issue #12: a 2^26 partition in at most 1.5 s of GPU kernels) on
# the H200, in two device calls, from the repository root:
#   OUT=DIR bash docs/data/kernels/sparse/run.sh check|field
# .devmsm/old and .devmsm/new hold provesim and gpu_check built here (-arch=sm_90) before
# and after the change, with libcudart/libcupti; .deps/ the Debian packages of cJSON and GSL.
#  check: gpu_check (new) on witness-like scalar sets (--sparse-only --sparse-max 20), then
#         its quick set; prover-bench MSM G1 2^22..2^24 and G2 2^22..2^23 (random scalars), old and new,
#         with PSC_MSM_PROFILE=1 (phase times on stderr).
#  field: 2^26 keys made once on the GPU into a disk cache with the new binary (prove,
#         3 calls, each proof verified); then `measure` of docs/data/field/run.sh's cal-t15
#         (one worker, mutex on the kernels), 9 partitions after 2 warm-up, old and new
#         binaries alternated: old, new, old, new. Each run's report and spans (CUPTI
#         kernel records) go to OUT/NAME.json and OUT/NAME.spans.jsonl.gz.
# A step that would pass BUDGET seconds (default 285) from the start is skipped and said so
# (the runs here: BUDGET=150 for check, 245 for field, which skipped new2: field/log-field.txt).
# The binaries travelled as .devmsm/devmsm.tar.xz (old/provesim and new/, 20 MB, to fit the
# device's 64 MiB carry), unpacked with `tar xJf .devmsm/devmsm.tar.xz -C .devmsm` before
# this script; old/ has no libraries of its own, new/'s serve both.
set -uo pipefail
mode=${1:?check or field}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$OUT/log-$mode.txt") 2>&1
budget=${BUDGET:-285}
bin=.devmsm/new/provesim
. scripts/device_env.sh
export LD_LIBRARY_PATH=$PWD/.devmsm/old:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }

if [ "$mode" = check ]; then
  echo "== gpu_check sparse at $(el) s"
  timeout 70 .devmsm/new/gpu_check --sparse-only --sparse-max 20 --keygen-max 0 > "$OUT/gpu_check_sparse.txt" 2>&1
  echo "rc $?"; grep -E "FAIL|failed" "$OUT/gpu_check_sparse.txt"
  for v in old new; do
    for g in g1 g2; do
      hi=24; [ $g = g2 ] && hi=23
      fits 30 "bench $v $g" || continue
      echo "== bench $v msm-$g at $(el) s"
      PSC_MSM_PROFILE=1 timeout 45 .devmsm/$v/provesim prover-bench --backend cuda --only msm-$g --sizes 22..$hi \
        --reps 3 > "$OUT/bench_${v}_$g.txt" 2> "$OUT/bench_${v}_$g.err"; echo "rc $?"; grep -v '^#' "$OUT/bench_${v}_$g.txt"
    done
  done
  if fits 30 "gpu_check quick"; then
    echo "== gpu_check quick at $(el) s"
    timeout $(( budget - $(el) )) .devmsm/new/gpu_check --quick --ntt-max 20 --g1-max 21 --g2-max 17 --skew-min 16 \
      --skew-max 18 --sparse-max 0 --keygen-max 12 > "$OUT/gpu_check_quick.txt" 2>&1
    echo "rc $?"; grep -E "FAIL|failed" "$OUT/gpu_check_quick.txt"
  fi
  echo "== done at $(el) s"
  exit 0
fi

# field
croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT
cores=$(nproc); [ "$cores" -gt 16 ] && cores=16
echo "== keys 2^26 and 3 proofs (new) at $(el) s"
timeout 150 $bin prove --backend cuda --constraints 2^26 --calls 3 --json --cache "$cache" --out /tmp/sparse-proof \
  > "$OUT/prove.json" 2> "$OUT/prove.err"; echo "rc $?"; tail -5 "$OUT/prove.err"
for name in old1 new1 old2 new2; do
  fits 50 "$name" || continue
  v=${name%[0-9]}
  echo "== $name at $(el) s"
  timeout -s INT 90 .devmsm/$v/provesim measure configs/seed-coarse-mutex.yaml --backend cuda --executor groth16 \
    --cache "$cache" --set model=models/provesim-groth16.yaml --set prover.constraints=2^26 \
    --set system.cpu_cores=$cores --set workload.partitions=9 --set run.warmup=2 --set run.cooldown=1 \
    --set run.replications=1 --set system.mutex=kernels --set system.workers_per_gpu=1 \
    --json -o "$OUT/$name.json" --spans "$OUT/$name.spans.jsonl" 2> "$OUT/$name.err"; echo "rc $?"
  [ -f "$OUT/$name.spans.jsonl" ] && gzip -f "$OUT/$name.spans.jsonl"
  python3 - "$OUT/$name.json" <<'PY'
import json, os, sys
p = sys.argv[1]
if os.path.exists(p):
    d = json.load(open(p)); m = d["metrics"]; st = d["measurement"].get("prover", {}).get("steady", {})
    print(f"util {m['gpu_util'][0]:.4f} parts/h {3600 * m['throughput_pps']:.0f} steady p50 {st.get('wall_p50_s')} "
          f"GPU/call p50 {st.get('gpu_p50_s')}")
PY
done
echo "== done at $(el) s"
