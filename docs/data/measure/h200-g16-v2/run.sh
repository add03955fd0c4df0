#!/usr/bin/env bash
# One device call on the H200 behind docs/performance.md (even/odd Montgomery
# multiplication) and docs/measure.md ("The prover after the fixes"): correctness,
# kernel timings, and the Groth16 mutex comparison, from the repository root:
#   bash docs/data/measure/h200-g16-v2/run.sh BINDIR OUTDIR [SIZE] [PARTS]
# BINDIR holds provesim and gpu_check built here with -arch=sm_90 (and libcudart.so.13,
# libcupti.so.13); .deps/ holds the Debian packages of libyaml, cJSON and GSL
# (shared/device/fetch-deps.sh). Steps, each time-boxed (override with the *_BOX vars):
#  (a) gpu_check: a quick regular set (NTT to 2^22, G1 to 2^20, G2 to 2^16) and skewed
#      scalars at 2^16..2^18: GPU == CPU bit for bit;
#  (b) prover-bench: field rates, NTT 2^16..2^26 (and 2^24..2^26 with shared-memory blocks
#      of 2^10..2^12 elements), MSM G1 2^16..2^24, G2 2^16..2^22, and
#      MSM G1 at 2^20, 2^22, 2^24 with windows 12..21 (to re-tune the window table);
#  (c) Groth16 at SIZE (default 2^20): one proof (keys into the cache) that must verify,
#      then `measure` with mutex call / kernels x 1, 2, 4 workers, PARTS partitions
#      (default 40), warm-up 2, cool-down = workers, spans kept.
# Everything goes to OUTDIR/log.txt and OUTDIR/results.tar.gz (refreshed after each step).
set -u
bindir=$(cd "$1" && pwd) out=$2 size=${3:-2^20} parts=${4:-40}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/h200-g16v2.XXXX)
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
pack() { tar czf "$out/results.tmp.tgz" -C "$work" . && mv "$out/results.tmp.tgz" "$out/results.tar.gz"; }
exec > >(tee -a "$out/log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$work/gpu.txt"
git rev-parse HEAD 2>/dev/null | tee "$work/commit.txt"

echo "== (a) gpu_check, at $(el) s"
timeout ${CHECK_BOX:-120} "$bindir/gpu_check" --quick --ntt-max 22 --g1-max 20 --g2-max 16 --skew-min 16 --skew-max 18 \
  > "$work/gpu_check.txt" 2>&1
echo "rc $?"; echo "ok lines: $(grep -c " ok " "$work/gpu_check.txt")"; grep -E "FAIL|failed|mismatch" "$work/gpu_check.txt" | head; tail -3 "$work/gpu_check.txt"
pack

echo "== (b) prover-bench, at $(el) s"
timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --only field,ntt --reps 5 > "$work/bench_ntt.txt" 2>&1
echo "rc $?"; cat "$work/bench_ntt.txt"
PSC_MSM_PROFILE=1 timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --only msm-g1 --reps 3 \
  > "$work/bench_g1.txt" 2> "$work/bench_g1.err"; echo "rc $?"; cat "$work/bench_g1.txt"
timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --only msm-g2 --reps 3 > "$work/bench_g2.txt" 2>&1
echo "rc $?"; cat "$work/bench_g2.txt"
for lb in 10 11 12; do
  for mk in 8 $lb; do
    echo "-- NTT 2^24 and 2^26 with PSC_NTT_LOG_BLOCK=$lb PSC_NTT_MAX_K=$mk"
    PSC_NTT_LOG_BLOCK=$lb PSC_NTT_MAX_K=$mk timeout 30 "$bindir/provesim" prover-bench --backend cuda --only ntt \
      --sizes 24..26 --reps 5 2>&1 | tee -a "$work/bench_ntt_blocks.txt"
  done
done
echo "-- MSM G1 with the bucket kernel's registers capped (PSC_MSM_REGCAP=1)"
PSC_MSM_REGCAP=1 timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --only msm-g1 --sizes 20..24 --reps 3 \
  > "$work/bench_g1_regcap.txt" 2>&1; echo "rc $?"; cat "$work/bench_g1_regcap.txt"
for k in 20 22 24; do
  timeout ${BENCH_BOX:-60} "$bindir/provesim" prover-bench --backend cuda --only msm-g1 --sizes $k --windows 12..21 --reps 3 \
    > "$work/bench_g1_windows_$k.txt" 2>&1; echo "rc $?"; cat "$work/bench_g1_windows_$k.txt"
done
gzip -f "$work"/*.err
pack

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
