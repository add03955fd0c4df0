#!/usr/bin/env bash
# The H200 checks behind docs/record.md (from the repository root, one device call):
#   OUT=DIR bash docs/data/record/run.sh [BIN]
# BIN (default .devbin/provesim) is a CUDA build; libprovesim_record.so sits beside it.
# 1. `record` on `provesim prove` run as an ordinary process (2^20 constraints).
# 2. `record` on `provesim measure` (synthetic executor, CUDA events instead of CUPTI,
#    one and two workers): record's kernel-busy utilization over measure's window, beside
#    measure's own figure (compare.py).
# 3. `record` on a PyTorch program provesim did not write (torch_work.py: matrix products
#    and FFTs), and its overhead: the program's steps per second alone and recorded,
#    alternating, three pairs.
set -uo pipefail
bin=${1:-.devbin/provesim}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
if [ -d .deps ]; then
  mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$PWD/.devbin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
echo "== record prove at $(el) s"
timeout 200 "$bin" record -o "$OUT/prove.jsonl" -- "$bin" prove --backend cuda --constraints 2^20 --cache /tmp/k --out /tmp/p
scale=(--set phases.setup.time.mean=0.04375 --set phases.prep.time.mean=0.23875
       --set phases.ntt_h.time.mean=0.08625 --set phases.ntt_h.time.sd=0.00375
       --set phases.msm.time.mean=0.14125 --set phases.msm.time.sd=0.005
       --set phases.b_g2.time.min=0.05 --set phases.b_g2.time.max=0.0875
       --set phases.epilogue.time.value=0.015 --set workload.partitions=30 --set run.warmup=3)
for w in 1 2; do
  echo "== record measure (synthetic, events) w$w at $(el) s"
  timeout 200 "$bin" record -o "$OUT/meas-w$w.rec.jsonl" --json -- "$bin" measure configs/measure-seed.yaml \
    --executor synthetic --backend cuda --no-cupti "${scale[@]}" --set system.mutex=kernels \
    --set system.workers_per_gpu=$w --set run.cooldown=$w --spans "$OUT/meas-w$w.jsonl" --json -o "$OUT/meas-w$w.json" \
    > "$OUT/meas-w$w.record.json"
  python3 docs/data/record/compare.py "$OUT/meas-w$w.json" "$OUT/meas-w$w.jsonl" "$OUT/meas-w$w.rec.jsonl" \
    | tee "$OUT/meas-w$w.compare.json"
done
echo "== record torch at $(el) s"
timeout 120 "$bin" record -o "$OUT/torch.jsonl" --json -- python3 docs/data/record/torch_work.py 8 4 > "$OUT/torch.record.json"
cat "$OUT/torch.record.json"
echo "== overhead at $(el) s"
for i in 1 2 3; do
  python3 docs/data/record/torch_work.py 6 4 | sed "s/^/alone $i /"
  "$bin" record -o /tmp/ov.jsonl -- python3 docs/data/record/torch_work.py 6 4 | grep steps_per_s | sed "s/^/recorded $i /"
done
gzip -f "$OUT"/*.jsonl
echo "total $(el) s"
