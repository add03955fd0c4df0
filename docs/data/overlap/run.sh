#!/usr/bin/env bash
# The overlap run of calibrate --overlap with free workers and with their GPU phases forced
# to start together (measure --rendezvous), on one GPU, in one device call, from the
# repository root:
#   OUT=DIR [SIZE=2^22] [PAIRS=2] bash docs/data/overlap/run.sh BIN
# BIN is a CUDA build (-DCMAKE_CUDA_ARCHITECTURES=90) carried with its CUDA libraries.
# 1. The keys of SIZE constraints into a cache, and a warm-up of one worker (not kept).
# 2. One worker at the default thread policy and at 4 threads (the calibration runs a
#    scaling law needs), then PAIRS pairs of two workers without a mutex: free (ovl-N) and
#    with --rendezvous (rv-N), alternately, so that a host whose speed drifts moves both.
# Each run leaves OUT/runs/NAME.json (its report), NAME.spans.jsonl.gz and NAME.err; the
# fits are made afterwards on the development machine (docs/data/overlap/fit.sh).
# QUICK=1 BACKEND=cpu is the dry run that works anywhere (2^10 constraints).
set -uo pipefail
bin=${1:?usage: OUT=DIR bash $0 BIN}
OUT=${OUT:?OUT must name the output folder}; mkdir -p "$OUT/runs"
exec > >(tee -a "$OUT/log.txt") 2>&1
. scripts/device_env.sh
backend=${BACKEND:-cuda} cache=/tmp/provesim-keys size=${SIZE:-2^22} parts=30 failed=0
[ -n "${QUICK:-}" ] && size=2^10 parts=12
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null
echo "commit ${COMMIT:-unknown}; $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "== keys $size at $(el) s"
timeout 300 "$bin" prove --backend $backend --constraints "$size" --cache $cache --out /tmp/proof-ovl 2>&1 | tail -1
m() { # NAME ARGS...: one measure run
  local name=$1; shift
  timeout -s INT 150 "$bin" measure configs/measure-groth16.yaml --backend $backend --executor groth16 --cache $cache \
    --set prover.constraints=$size --set workload.partitions=$parts --set run.warmup=2 "$@" \
    --json -o "$OUT/runs/$name.json" --spans "$OUT/runs/$name.spans.jsonl" 2>"$OUT/runs/$name.err" \
    || { echo "$name FAILED: $(tail -3 "$OUT/runs/$name.err")"; failed=1; }
  [ -f "$OUT/runs/$name.spans.jsonl" ] && gzip -f "$OUT/runs/$name.spans.jsonl"
  python3 - "$OUT/runs/$name.json" "$name" "$(el)" <<'PY'
import json, sys
p, name, t = sys.argv[1:4]
try:
    m = json.load(open(p))["metrics"]
    print(f"{name}: {100 * m['gpu_util'][0]:.1f}% GPU, {m['throughput_pps']:.2f} partitions/s (at {t} s)")
except Exception as e:
    print(f"{name}: no report ({e})")
PY
}
echo "== warm-up at $(el) s (not kept)"
m warmup --set system.workers_per_gpu=1 --set system.mutex=kernels --set workload.partitions=$((2 * parts)); rm -f "$OUT"/runs/warmup.*
m solo-t15 --set system.workers_per_gpu=1 --set system.mutex=kernels --set run.cooldown=1
m solo-t4 --set system.workers_per_gpu=1 --set system.mutex=kernels --set system.threads.per_worker=4 --set run.cooldown=1
two=(--set system.workers_per_gpu=2 --set system.mutex=none --set run.cooldown=2)
for i in $(seq 1 "${PAIRS:-2}"); do
  m ovl-$i "${two[@]}"
  m rv-$i "${two[@]}" --rendezvous
done
echo "== done at $(el) s"
exit $failed
