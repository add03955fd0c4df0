#!/usr/bin/env bash
# Issue #12's next targets (a 2^26 Groth16 partition in at most 1.0 s of GPU kernels, MSM
# G1 2^24 plain in at most 130 ms) on the H200, in two device calls, from the repository
# root:
#   OUT=DIR bash docs/data/kernels/p26/run.sh explore|final
# .devmsm/old and .devmsm/new hold provesim and gpu_check built here (-arch=sm_90) before
# and after the change, with libcudart/libcupti; .deps/ the Debian packages of cJSON and GSL.
#  explore: gpu_check (new) on the new cases only (--batch-only: batches that share scalars,
#           windows 16..22); prover-bench MSM G1 2^24..2^26 at windows 16..22 and G2
#           2^22..2^23 at 16..20 (new), G1 2^24..2^26 at the default window (old); then the 2^26
#           keys made on the GPU into a disk cache and `prove --calls 2` (new) with the
#           prover's MSM window forced by PSC_MSM_WINDOW (16, 20, then 18 and 22 if time is
#           left), busy time per call; G2 windows between them.
#  final:   gpu_check (new) quick set and the new cases; prover-bench MSM G1 2^24 and G2 2^22
#           old and new (median of 3, PSC_MSM_PROFILE=1); the 2^26 keys and 3 proofs (new,
#           each verified); `measure` of docs/data/field/run.sh's cal-t15 (one worker, mutex
#           on the kernels) old, new, old, new, PARTS partitions (default 3) after 2 warm-up
#           and before 1 cool-down each, report and spans (CUPTI kernel records) in
#           OUT/NAME.json and OUT/NAME.spans.jsonl.gz; kernels.py reads the spans.
# The final call of 2026-12-01 (p26/final/) ran the measure step with
# workload.partitions=PARTS, which measure refuses (2 warm-up and 1 cool-down need 4 or
# more): its four runs exited 2 at once (final/old1.err). Fixed here; not run again.
# Its GPU time per 2^26 call is prove's (CUDA events, busy_median_s in final/prove.json).
# A step that would pass BUDGET seconds (default 245) from the start is skipped and said so
# (explore ran with BUDGET=200 and skipped its last three steps: p26/explore/log-explore.txt).
# The binaries travelled as .devmsm/devmsm.tar.xz (old/provesim, new/provesim, new/gpu_check
# and the CUDA libraries, 11 MB, to fit the device's 64 MiB carry beside the tree), unpacked
# with `tar xJf .devmsm/devmsm.tar.xz -C .devmsm` before this script.
set -uo pipefail
mode=${1:?explore or final}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$OUT/log-$mode.txt") 2>&1
budget=${BUDGET:-245} parts=${PARTS:-3}
bin=.devmsm/new/provesim
. scripts/device_env.sh
export LD_LIBRARY_PATH=$PWD/.devmsm/old:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT
cores=$(nproc); [ "$cores" -gt 16 ] && cores=16
busy() { # the busy time per call that prove --json reports
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' "$1" 2>&1 | cut -c1-400
}

if [ "$mode" = explore ]; then
  echo "== gpu_check batch at $(el) s"
  timeout 75 .devmsm/new/gpu_check --batch-only --keygen-max 0 > "$OUT/gpu_check_batch.txt" 2>&1
  echo "rc $?"; grep -E "FAIL|failed" "$OUT/gpu_check_batch.txt"
  fits 80 "bench new g1" && { echo "== bench new msm-g1 at $(el) s"
    PSC_MSM_PROFILE=1 timeout 100 .devmsm/new/provesim prover-bench --backend cuda --only msm-g1 --sizes 24..26 \
      --windows 16..22 --reps 3 > "$OUT/bench_new_g1_win.txt" 2> "$OUT/bench_new_g1_win.err"
    echo "rc $?"; grep -v '^#' "$OUT/bench_new_g1_win.txt" | grep msm; }
  fits 25 "bench old g1" && { echo "== bench old msm-g1 at $(el) s"
    PSC_MSM_PROFILE=1 timeout 40 .devmsm/old/provesim prover-bench --backend cuda --only msm-g1 --sizes 24..26 \
      --reps 3 > "$OUT/bench_old_g1.txt" 2> "$OUT/bench_old_g1.err"; echo "rc $?"; grep msm "$OUT/bench_old_g1.txt"; }
  fits 60 "prove w16" && { echo "== keys 2^26 and prove --calls 2, PSC_MSM_WINDOW=16, at $(el) s"
    PSC_MSM_WINDOW=16 timeout 120 $bin prove --backend cuda --constraints 2^26 --calls 2 --json --cache "$cache" \
      --out /tmp/p26-proof > "$OUT/prove_w16.json" 2> "$OUT/prove_w16.err"; echo "rc $?"; busy "$OUT/prove_w16.json"; }
  for w in 20 g2 18 22; do
    if [ $w = g2 ]; then
      fits 40 "bench new g2" && { echo "== bench new msm-g2 at $(el) s"
        timeout 60 .devmsm/new/provesim prover-bench --backend cuda --only msm-g2 --sizes 22..23 --windows 16..20 \
          --reps 3 > "$OUT/bench_new_g2_win.txt" 2> "$OUT/bench_new_g2_win.err"; echo "rc $?"
        grep msm "$OUT/bench_new_g2_win.txt"; }
      continue
    fi
    fits 32 "prove w$w" || continue
    echo "== prove --calls 2, PSC_MSM_WINDOW=$w, at $(el) s"
    PSC_MSM_WINDOW=$w timeout 60 $bin prove --backend cuda --constraints 2^26 --calls 2 --json --cache "$cache" \
      --out /tmp/p26-proof > "$OUT/prove_w$w.json" 2> "$OUT/prove_w$w.err"; echo "rc $?"; busy "$OUT/prove_w$w.json"
  done
  echo "== done at $(el) s"
  exit 0
fi

# final
echo "== gpu_check new cases and quick set at $(el) s"
timeout 110 .devmsm/new/gpu_check --quick --ntt-max 20 --g1-max 21 --g2-max 17 --skew-min 16 --skew-max 18 \
  --sparse-max 17 --keygen-max 12 > "$OUT/gpu_check.txt" 2>&1
echo "rc $?"; grep -E "FAIL|failed" "$OUT/gpu_check.txt"
for v in old new; do
  for g in g1 g2; do
    sz=24; [ $g = g2 ] && sz=22
    fits 20 "bench $v $g" || continue
    echo "== bench $v msm-$g 2^$sz at $(el) s"
    PSC_MSM_PROFILE=1 timeout 30 .devmsm/$v/provesim prover-bench --backend cuda --only msm-$g --sizes $sz..$sz \
      --reps 3 > "$OUT/bench_${v}_$g.txt" 2> "$OUT/bench_${v}_$g.err"; echo "rc $?"; grep msm "$OUT/bench_${v}_$g.txt"
  done
done
echo "== keys 2^26 and 3 proofs (new) at $(el) s"
timeout 120 $bin prove --backend cuda --constraints 2^26 --calls 3 --json --cache "$cache" --out /tmp/p26-proof \
  > "$OUT/prove.json" 2> "$OUT/prove.err"; echo "rc $?"; tail -4 "$OUT/prove.err"; busy "$OUT/prove.json"
for name in old1 new1 old2 new2; do
  fits $(( 4 * (parts + 3) + 14 )) "$name" || continue
  v=${name%[0-9]}
  echo "== $name at $(el) s"
  timeout -s INT 80 .devmsm/$v/provesim measure configs/seed-coarse-mutex.yaml --backend cuda --executor groth16 \
    --cache "$cache" --set model=models/provesim-groth16.yaml --set prover.constraints=2^26 \
    --set system.cpu_cores=$cores --set workload.partitions=$(( parts + 3 )) --set run.warmup=2 --set run.cooldown=1 \
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
