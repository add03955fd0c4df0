#!/usr/bin/env bash
# The field's case at the field's size (docs/field.md), in one device call on an H200, from
# the repository root:
#   OUT=DIR bash docs/data/field/run.sh [BIN]
# BIN (default .devbin/provesim) is a CUDA build made on the development machine
# (-DPROVESIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90), carried with its CUDA libraries.
# 1. The 2^26 keys made once on the GPU (`prove --backend cuda --cache`, two calls), into
#    a temporary cache that every later run loads in about 5 s.
# 2. `measure` (groth16 executor, CUPTI and NVML) on the seed scenario
#    (configs/seed-coarse-mutex.yaml with the groth16 model, models/provesim-groth16.yaml):
#    a. one worker, mutex on the kernels, at the default thread policy and at 8 threads
#       (the calibration runs: calibrate fits the CPU phases' Amdahl laws);
#    b. two workers under the whole-call lock (the field's configuration);
#    c. two workers, the lock on the GPU phases (mutex: kernels);
#    d. the configuration provesim recommends: the model calibrated here from (a) is swept
#       over 1-3 workers per GPU and both lock scopes (`sweep`), and the point of highest
#       predicted throughput whose GPU memory fits (one key per GPU + the workers' buffers)
#       is measured (within 1% of the best, the fewer workers); skipped when it is (b) or (c).
# Each run writes OUT/runs/NAME.json (report), NAME.spans.jsonl.gz and NAME.sets (its
# overrides); OUT/log.txt has the machine and every run's summary; OUT/model.yaml and
# OUT/sweep.csv the calibration and the sweep behind (d); OUT/date.txt the run's date.
# docs/data/field/predict.sh then makes the predictions on any machine. A run that would pass the time
# budget (BUDGET seconds from the start, default 520) is skipped and said so. Exit 1 if a
# run failed.
# QUICK=1 BACKEND=cpu is the dry run that works anywhere: 2^10 constraints, fewer partitions;
# PICK="3 kernels" measures that configuration as (d) instead of the sweep's pick.
set -uo pipefail
bin=${1:-.devbin/provesim}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/runs"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$OUT/log.txt") 2>&1
. scripts/device_env.sh
backend=${BACKEND:-cuda} quick=${QUICK:-} budget=${BUDGET:-520} failed=0
size=2^26; [ -n "$quick" ] && size=2^10
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.free,clocks.max.sm --format=csv,noheader 2>/dev/null
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores online;" \
  "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB, " $7 " GiB available"}')"
echo "commit: ${COMMIT:-unknown}; size $size; backend $backend"
date +%s > "$OUT/date.txt" # the calibrated model's date (predict.sh: SOURCE_DATE_EPOCH)
# The key cache (36 GiB at 2^26) on a disk, not in memory (tmpfs): the runs need the RAM.
croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
echo "key cache in $cache ($(stat -f -c %T "$croot"))"
trap 'rm -rf "$cache"' EXIT
cores=$(nproc); [ "$cores" -gt 16 ] && cores=16
t2=8; [ "$cores" -le 8 ] && t2=$cores # the second thread count of the calibration

echo "== keys $size at $(el) s"
timeout 240 "$bin" prove --backend "$backend" --constraints "$size" --calls 2 --json --cache "$cache" \
  --out /tmp/field-proof > "$OUT/runs/keys.json" 2> "$OUT/runs/keys.err" ||
  { echo "keys FAILED: $(tail -3 "$OUT/runs/keys.err")"; exit 1; }
grep -E 'setup:|key cache' "$OUT/runs/keys.err"

# run NAME SECONDS_EXPECTED PARTITIONS OVERRIDES...: one measure run, skipped when its
# expected time would pass the budget.
run() {
  local name=$1 expect=$2 parts=$3; shift 3
  local w warm=2 sets=()
  [ -n "$quick" ] && parts=8 expect=5
  if [ $(( $(el) + expect )) -gt "$budget" ]; then
    echo "$name SKIPPED: $(el) s + about $expect s would pass the budget of $budget s"; return
  fi
  w=$(printf '%s\n' "$@" | sed -n 's/.*workers_per_gpu=\([0-9]*\).*/\1/p'); w=${w:-1}
  sets+=(--set model=models/provesim-groth16.yaml --set prover.constraints=$size --set system.cpu_cores=$cores
         --set workload.partitions=$parts --set run.warmup=$warm --set run.cooldown=$w --set run.replications=1)
  for x in "$@"; do sets+=(--set "$x"); done
  printf '%s\n' "${sets[@]}" | grep -v '^--set$' > "$OUT/runs/$name.sets"
  echo "== $name at $(el) s: $*"
  timeout -s INT $(( expect * 2 + 30 )) "$bin" measure configs/seed-coarse-mutex.yaml --backend "$backend" \
    --executor groth16 --cache "$cache" "${sets[@]}" --json -o "$OUT/runs/$name.json" \
    --spans "$OUT/runs/$name.spans.jsonl" 2> "$OUT/runs/$name.err" ||
    { echo "$name FAILED: $(tail -3 "$OUT/runs/$name.err")"; failed=1; }
  [ -f "$OUT/runs/$name.spans.jsonl" ] && gzip -f "$OUT/runs/$name.spans.jsonl"
  python3 - "$OUT/runs/$name.json" "$name" "$(el)" <<'PY'
import json, os, sys
p, name, t = sys.argv[1:4]
if os.path.exists(p):
    d = json.load(open(p)); m = d["metrics"]; pv = d["measurement"].get("prover", {})
    nv = (m.get("gpu_util_nvml") or [None])[0]
    st = pv.get("steady", {}); g = 2.0 ** 30
    print(f"{name:10s} util {m['gpu_util'][0]:.4f} nvml {nv if nv is None else round(nv, 4)} "
          f"parts/h {3600 * m['throughput_pps']:.0f} first call {pv.get('first_call', {}).get('wall_s')} "
          f"steady p50 {st.get('wall_p50_s')} GPU/call {st.get('gpu_p50_s')} "
          f"peak GPU {(pv.get('peak_gpu_bytes') or 0) / g:.2f} GiB host {(pv.get('peak_host_rss_bytes') or 0) / g:.2f} GiB "
          f"at {t} s")
PY
}

run cal-t15 75 14 system.mutex=kernels system.workers_per_gpu=1
run cal-t$t2 85 14 system.mutex=kernels system.workers_per_gpu=1 system.threads.per_worker=$t2
run call-w2 85 18 system.mutex=call system.workers_per_gpu=2
run kern-w2 60 18 system.mutex=kernels system.workers_per_gpu=2

# (d): calibrate on the one-worker runs, sweep the calibrated model, measure the pick.
echo "== calibrate and sweep at $(el) s"
if "$bin" calibrate "$OUT/runs/cal-t15.spans.jsonl.gz" "$OUT/runs/cal-t$t2.spans.jsonl.gz" \
     --model models/provesim-groth16.yaml -o "$OUT/model.yaml" --skip-calls 2 \
     --name "provesim-groth16-h200-2^${size#2^}" > "$OUT/calibrate.txt" 2>&1 &&
   "$bin" sweep configs/seed-coarse-mutex.yaml --set model="$OUT/model.yaml" --set prover.constraints=$size \
     --set system.cpu_cores=$cores --set workload.partitions=400 --set run.warmup=20 --set run.replications=3 \
     --vary system.workers_per_gpu=1..3 --vary system.mutex=call,kernels --csv "$OUT/sweep.csv" -q \
     > "$OUT/sweep.txt" 2>&1; then
  cat "$OUT/calibrate.txt"
  pick=$(python3 - "$OUT/sweep.csv" "$OUT/runs/kern-w2.json" "$backend" <<'PY'
import csv, json, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pv = json.load(open(sys.argv[2]))["measurement"]["prover"]
free = float("inf")
if sys.argv[3] == "cuda":
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.split()
    free = float(out[0]) * 2 ** 20
def fits(r):
    w = int(r["workers_per_gpu"])
    return pv["key_gpu_bytes"] + w * pv["worker_gpu_bytes"] + w * 0.6 * 2 ** 30 <= free
ok = [r for r in rows if fits(r)]
best = max(float(r["throughput_pps"]) for r in ok)
good = [r for r in ok if float(r["throughput_pps"]) >= 0.99 * best]
good.sort(key=lambda r: (int(r["workers_per_gpu"]), r["mutex"] != "kernels"))
r = good[0]
sys.stderr.write("recommended: %s workers, mutex %s: %.0f parts/h predicted (best %.0f); fits %d of %d points\n" % (
    r["workers_per_gpu"], r["mutex"], 3600 * float(r["throughput_pps"]), 3600 * best, len(ok), len(rows)))
print(r["workers_per_gpu"], r["mutex"])
PY
)
  [ -n "${PICK:-}" ] && pick=$PICK # "WORKERS MUTEX": measure this instead (a check of the script)
  read -r pw pm <<<"$pick"
  echo "pick: ${pw:-none} workers, mutex ${pm:-none}"
  if [ -z "${pw:-}" ]; then echo "rec SKIPPED: no pick"
  elif [ "$pw" = 2 ] && [ "$pm" = call ]; then echo "rec: the recommendation is (b), call-w2"
  elif [ "$pw" = 2 ] && [ "$pm" = kernels ]; then echo "rec: the recommendation is (c), kern-w2"
  else run "rec-$pm-w$pw" 70 18 system.mutex=$pm system.workers_per_gpu=$pw
  fi
else
  echo "calibrate or sweep FAILED:"; tail -n 5 "$OUT/calibrate.txt" "$OUT/sweep.txt"; failed=1
fi
# 2^27 with one worker, if the budget leaves time: the keys on the GPU (no cache) and two
# calls; two workers cannot fit at 2^27 (docs/field.md), one may.
rm -rf "$cache" # its memory (page cache or tmpfs) for 2^27
left=$(( budget - $(el) ))
if [ -z "$quick" ] && [ "$left" -gt 120 ]; then
  echo "== 2^27, one worker (prove), at $(el) s, for at most $left s"
  timeout "$left" "$bin" prove --backend "$backend" --constraints 2^27 --calls 2 --json --out /tmp/field-proof27 \
    > "$OUT/runs/prove27.json" 2> "$OUT/runs/prove27.err" || echo "2^27 FAILED or cut: $(tail -3 "$OUT/runs/prove27.err")"
  grep -E 'setup:' "$OUT/runs/prove27.err"; cat "$OUT/runs/prove27.json"
else
  echo "2^27 SKIPPED: $left s left of the budget"
fi
echo "total $(el) s"
exit $failed
