#!/usr/bin/env bash
# One device call on the H200 behind docs/prover.md "Precomputed bases": the groth16
# executor at 2^22 constraints, one worker, the lock on the GPU phases, with
# prover.precompute off and at windows 20 and 22, alternated. From the repository root:
#   bin=.devpre/provesim bash docs/data/kernels/precompute-measure/run.sh OUTDIR
# .devpre holds provesim built here (build-cuda) with libcudart.so.13 and libcupti.so.13;
# .deps the Debian packages of cJSON, GSL and libyaml (scripts/device_env.sh). Steps,
# time-boxed so the whole call stays under 240 s:
#  (1) the keys on the GPU, and 3 proofs with the tables for window 20 built on the GPU,
#      each verified (prove --precompute 20 --calls 3);
#  (2) measure, 30 partitions (2 of warm-up), in the order off 20 22 off 20 22 (while
#      time is left), then once with auto.
set -u
: "${bin:=.devpre/provesim}"
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
source scripts/device_env.sh
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
echo "== (1) keys and proofs with tables (window 20), at $(el) s"
timeout 90 "$bin" prove --backend cuda --constraints 2^22 --cache /tmp/k --out /tmp/p --precompute 20 --calls 3 --json \
  > "$out/prove-pre20.json" 2> "$out/prove-pre20.err"
echo "rc $?"; grep -E '"verified"|"calls"|"wall_s"|"key_upload_s"|"busy_median_s"|table_bytes' "$out/prove-pre20.json"
"$bin" verify /tmp/p; echo "verify rc $?"
i=0
for c in off 20 22 off 20 22 auto; do
  if [ "$(el)" -gt 200 ]; then echo "== skipped $c (at $(el) s)"; continue; fi
  i=$((i + 1))
  echo "== (2) measure, prover.precompute=$c, run $i, at $(el) s"
  timeout 60 "$bin" measure configs/measure-groth16.yaml --backend cuda --executor groth16 --cache /tmp/k \
    --set prover.constraints=2^22 --set system.workers_per_gpu=1 --set system.mutex=kernels \
    --set workload.partitions=30 --set run.warmup=2 --set prover.precompute=$c --json \
    -o "$out/pre-$i-$c.json" 2> "$out/pre-$i-$c.err"
  echo "rc $?"
done
echo "== done at $(el) s"
