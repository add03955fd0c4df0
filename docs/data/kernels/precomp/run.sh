#!/usr/bin/env bash
# One device call on the H200 behind docs/performance.md "Precomputed bases" and "NTT
# butterflies per thread", from the repository root:
#   bash docs/data/kernels/precomp/run.sh BINDIR OUTDIR
# BINDIR holds provesim and gpu_check built here with -arch=sm_90 (and libcudart.so.13,
# libcupti.so.13); .deps/ holds the Debian packages of cJSON and GSL. Steps, time-boxed:
#  (a) gpu_check --precomp-max 20: MSMs over precomputed bases == the CPU's plain MSMs
#      (small sizes with edge cases, windows 2..22, G1 2^12..2^20, G2 small);
#  (b) gpu_check at the issue's sizes (NTT to 2^24, G1 to 2^22, G2 to 2^18), quick set;
#      and the NTTs again with 2 butterflies per thread (PSC_NTT_BPT=2);
#  (c) prover-bench: NTT 2^20..2^26 with 1, 2, 4 butterflies per thread; MSM G1 2^20..2^24
#      with bases precomputed for windows 16, 20, 22 (and plain, for reference); G2 with
#      precomputed bases for window 16 at 2^20..2^22;
#  (d) on a machine with two GPUs, the groth16 executor on both (2 workers per GPU).
set -u
bindir=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$out/log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"

echo "== (a) gpu_check --precomp-max 20, at $(el) s"
timeout ${PRE_BOX:-90} "$bindir/gpu_check" --precomp-max 20 > "$out/gpu_check_precomp.txt" 2>&1
echo "rc $?"; grep -E "FAIL|failed" "$out/gpu_check_precomp.txt"; grep -E "2\^|n=1048576|n=262144" "$out/gpu_check_precomp.txt" | tail -4

echo "== (c) prover-bench, at $(el) s"
for b in 1 2 4; do
  echo "-- NTT with PSC_NTT_BPT=$b"
  PSC_NTT_BPT=$b timeout 40 "$bindir/provesim" prover-bench --backend cuda --only ntt --sizes 20..26 --reps 5 2>/dev/null \
    | tee "$out/bench_ntt_bpt$b.txt"
done
timeout 60 "$bindir/provesim" prover-bench --backend cuda --only field,msm-g1 --sizes 20..24 --reps 5 2>/dev/null \
  | tee "$out/bench_g1_plain.txt"
for c in 16 20 22; do
  PSC_MSM_PROFILE=1 timeout 90 "$bindir/provesim" prover-bench --backend cuda --only msm-g1 --sizes 20..24 --reps 5 --precomp $c \
    2> "$out/bench_g1_pre$c.err" | tee "$out/bench_g1_pre$c.txt"
done
timeout 90 "$bindir/provesim" prover-bench --backend cuda --only msm-g2 --sizes 20..22 --reps 3 --precomp 16 2>/dev/null \
  | tee "$out/bench_g2_pre16.txt"
gzip -f "$out"/*.err

echo "== (b) gpu_check at the issue's sizes, at $(el) s"
timeout ${CHECK_BOX:-200} "$bindir/gpu_check" --quick --ntt-max 24 --g1-max 22 --g2-max 18 --skew-min 16 --skew-max 16 \
  > "$out/gpu_check_full.txt" 2>&1
echo "rc $?"; grep -E "FAIL|failed" "$out/gpu_check_full.txt"; grep -E "2\^24|n=4194304|n=262144" "$out/gpu_check_full.txt" | tail -6
PSC_NTT_BPT=2 timeout 60 "$bindir/gpu_check" --quick --ntt-max 22 --g1-max 0 --g2-max 0 --skew-min 1 --skew-max 0 \
  > "$out/gpu_check_ntt_bpt2.txt" 2>&1
echo "rc $?"; grep -E "FAIL|failed" "$out/gpu_check_ntt_bpt2.txt"

# (d) with two GPUs: the groth16 executor on both (worker w of GPU g opens device g), the
# narrow and the whole-call lock, two workers per GPU, 2^20 constraints, 60 partitions.
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  echo "== (d) groth16 on 2 GPUs, at $(el) s"
  cache=/tmp/provesim-keys
  timeout 90 "$bindir/provesim" prove --backend cuda --constraints 2^20 --cache $cache --out /tmp/proof2 2>&1 | tail -2
  for mutex in kernels call; do
    name=g16x2-$mutex-w2
    timeout -s INT 60 "$bindir/provesim" measure configs/measure-groth16.yaml --executor groth16 --backend cuda \
      --cache $cache --set prover.constraints=2^20 --set system.gpus=2 --set system.mutex=$mutex \
      --set system.workers_per_gpu=2 --set workload.partitions=60 --set run.warmup=4 --set run.cooldown=4 \
      --json -o "$out/$name.json" --spans "$out/$name.spans.jsonl" 2> "$out/$name.err" || echo "$name failed: $(tail -3 "$out/$name.err")"
    gzip -f "$out/$name.spans.jsonl"
    python3 -c "import json; m=json.load(open('$out/$name.json'))['metrics']; print('$name', [round(u*100,2) for u in m['gpu_util']], [round(u*100,2) for u in m['gpu_util_nvml']], round(m['throughput_pps'],3))"
  done
fi
echo "total $(el) s"
