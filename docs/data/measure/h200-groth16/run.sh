#!/usr/bin/env bash
# The H200 run behind docs/measure.md "The real Groth16 prover on the H200" and the
# load-balanced MSM rows of docs/performance.md, in one command from the repository root
# on the GPU machine:
#   bash docs/data/measure/h200-groth16/run.sh BINDIR OUTDIR [SIZE] [PARTS]
# BINDIR holds provesim and gpu_check built with CUDA (and libcudart.so.13 /
# libcupti.so.13 where the machine lacks them); .deps/ holds the Debian packages of
# libyaml, cJSON and GSL (shared/device/fetch-deps.sh). Steps, each time-boxed:
#  (a) gpu_check: skewed scalars (90% in {0,1}, all ones, all equal) at 2^16..2^20 on G1
#      and G2, then a quick regular set;
#  (b) prover-bench MSM rows (G1 2^20..2^22, G2 2^20; G1 2^18 with windows 10..14, which
#      a thread per bucket could not use);
#  (c) the Groth16 prover at SIZE constraints (default 2^20): one proof (keys into the
#      cache), then `measure` with mutex call / kernels x 1, 2, 4 workers, PARTS partitions
#      (default 12), warm-up 2, cool-down = workers.
# Everything goes to OUTDIR/log.txt and OUTDIR/results.tar.gz (refreshed after each step,
# so a run cut short still returns what it finished).
set -u
bindir=$(cd "$1" && pwd) out=$2 size=${3:-2^20} parts=${4:-12}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/h200-g16.XXXX)
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
pack() { tar czf "$out/results.tmp.tgz" -C "$work" . && mv "$out/results.tmp.tgz" "$out/results.tar.gz"; }
exec > >(tee -a "$out/log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$work/gpu.txt"
git rev-parse HEAD 2>/dev/null | tee "$work/commit.txt"

echo "== (a) gpu_check, skewed scalars, at $(el) s"
timeout ${CHECK_BOX:-240} "$bindir/gpu_check" --skew-only --skew-min 16 --skew-max 20 > "$work/gpu_check_skew.txt" 2>&1
echo "rc $?"; tail -32 "$work/gpu_check_skew.txt"
echo "== (a) gpu_check, quick regular set, at $(el) s"
timeout ${QUICK_BOX:-60} "$bindir/gpu_check" --quick --ntt-max 12 --g1-max 16 --g2-max 14 --skew-min 1 --skew-max 0 \
  > "$work/gpu_check_quick.txt" 2>&1
echo "rc $?"; grep -c " ok " "$work/gpu_check_quick.txt"; grep -E "FAIL|failed" "$work/gpu_check_quick.txt"
pack

echo "== (b) prover-bench msm, at $(el) s"
PSC_MSM_PROFILE=1 timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --sizes 20..22 --only msm-g1 --reps 3 \
  > "$work/bench_g1.txt" 2> "$work/bench_g1.err"; echo "rc $?"; cat "$work/bench_g1.txt"
PSC_MSM_PROFILE=1 timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --sizes 20..20 --only msm-g2 --reps 3 \
  > "$work/bench_g2.txt" 2> "$work/bench_g2.err"; echo "rc $?"; cat "$work/bench_g2.txt"
timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --sizes 18..18 --only msm-g1 --windows 10..14 --reps 3 \
  > "$work/bench_g1_windows.txt" 2> "$work/bench_g1_windows.err"; echo "rc $?"; cat "$work/bench_g1_windows.txt"
gzip -f "$work"/bench_*.err
pack

echo "== (c) groth16 at $size, at $(el) s"
cache=/tmp/provesim-keys
timeout ${PROVE_BOX:-90} "$bindir/provesim" prove --backend cuda --constraints "$size" --cache $cache --out "$work/proof" \
  2>&1 | tee "$work/prove.txt"
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
