#!/usr/bin/env bash
# The Groth16 mutex comparison on the H200 behind docs/measure.md ("Cores for the lock
# holder"), from the repository root:
#   bash docs/data/measure/h200-g16-v5/run.sh BINDIR OUTDIR [SIZE] [PARTS]
# BINDIR holds provesim and gpu_check built here with -arch=sm_90 (and libcudart.so.13,
# libcupti.so.13); .deps/ holds the Debian packages of libyaml, cJSON and GSL
# (shared/device/fetch-deps.sh). Time-boxed (override with the *_BOX vars):
#  (c) Groth16 at SIZE (default 2^20): one proof (keys into the cache) that must verify,
#      then `measure` with mutex call / kernels x 1, 2, 4 workers, PARTS partitions
#      (default 40), warm-up 2, cool-down = workers, spans kept.
# Everything goes to OUTDIR/log.txt and OUTDIR/results.tar.gz (refreshed after each step).
set -u
bindir=$(cd "$1" && pwd) out=$2 size=${3:-2^20} parts=${4:-40}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/h200-g16v5.XXXX)
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
pack() { tar czf "$out/results.tmp.tgz" -C "$work" . && mv "$out/results.tmp.tgz" "$out/results.tar.gz"; }
exec > >(tee -a "$out/log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$work/gpu.txt"
git rev-parse HEAD 2>/dev/null | tee "$work/commit.txt"

echo "== (c) groth16 at $size, at $(el) s"
cache=/tmp/provesim-keys
timeout ${PROVE_BOX:-90} "$bindir/provesim" prove --backend cuda --constraints "$size" --cache $cache --out "$work/proof" \
  2>&1 | tee "$work/prove.txt"
timeout 60 "$bindir/provesim" verify "$work/proof" 2>&1 | tee "$work/verify.txt"
for w in 1 2 4; do
  for mutex in call kernels; do
    name=g16-$mutex-w$w
    timeout -s INT ${MEASURE_BOX:-60} "$bindir/provesim" measure configs/measure-groth16.yaml --executor groth16 \
      --backend cuda --cache $cache --set prover.constraints=$size --set system.mutex=$mutex \
      --set system.workers_per_gpu=$w --set workload.partitions=$parts --set run.warmup=2 --set run.cooldown=$w \
      --json -o "$work/$name.json" --spans "$work/$name.spans.jsonl" 2> "$work/$name.err" || echo "$name failed: $(tail -3 "$work/$name.err")"
    gzip -f "$work/$name.spans.jsonl"
    echo "$name done at $(el) s"
    pack
  done
done
python3 - "$work" <<'PY'
import json, glob, os, sys
print(f"{'run':18s} {'util':>7s} {'nvml':>7s} {'pps':>8s} {'held_s':>7s} {'wait_s':>7s} timing")
for f in sorted(glob.glob(os.path.join(sys.argv[1], 'g16-*.json'))):
    try:
        d = json.load(open(f)); m = d['metrics']
    except Exception as ex:
        print(f, ex); continue
    nv = m['gpu_util_nvml'][0]
    print(f"{os.path.basename(f)[:-5]:18s} {m['gpu_util'][0]*100:6.2f}% {(nv*100 if nv is not None else float('nan')):6.2f}% "
          f"{m['throughput_pps']:8.3f} {m['mutex_held_s']['mean']:7.3f} {m['mutex_wait_s']['mean']:7.3f} {d['measurement']['gpu_timing']}")
PY
pack
echo "total $(el) s"
