#!/usr/bin/env bash
# The G2 bucket reduction's segment sums in more, shorter segments (issue #10's fifth
# validation session found g2_segment_sum, a thread per segment of 32 buckets, 2^14
# threads, taking 7.3 ms in some processes and 9.2 ms in others), and the prover's 2^26
# partition, in one device call from the repository root:
#   OUT=DIR bash docs/data/kernels/seg/run.sh
# .devseg/all.tar.xz holds head/provesim (the commit before the change) and seg/ (provesim
# and gpu_check with segments of 8 buckets at 16-bit windows: 2^12 segments a window
# instead of 2^10 of 32), built here (-arch=sm_90), with libcudart/libcupti.
# 1. gpu_check (seg): the quick set performance.md uses, G2 MSMs to 2^17.
# 2. prover-bench MSM G2 2^20..2^22, head and seg alternated twice, median of 3 each,
#    PSC_MSM_PROFILE=1.
# 3. 2^20: one worker, the validation's reference settings (24 partitions), head and seg
#    alternated three times, spans with CUPTI kernel records: g2_segment_sum per launch.
# 4. 2^26: keys made on the GPU into a disk cache, `prove --calls 3`, seg then head.
# A step that would pass BUDGET seconds (default 400) from the start is skipped and said so.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/runs"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$OUT/log.txt") 2>&1
budget=${BUDGET:-400}
mkdir -p .devseg && tar -xJf .devseg/all.tar.xz -C .devseg
bin=.devseg/seg/provesim
. scripts/device_env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT

echo "== gpu_check (seg) at $(el) s"
timeout 110 .devseg/seg/gpu_check --quick --ntt-max 20 --g1-max 21 --g2-max 17 --skew-min 16 --skew-max 18 \
  --sparse-max 17 --keygen-max 12 > "$OUT/gpu_check_seg.txt" 2>&1
echo "rc $?"; grep -E "FAIL|failed" "$OUT/gpu_check_seg.txt"
for v in head seg head seg; do
  fits 25 "bench $v" || continue
  echo "== bench $v msm-g2 at $(el) s"
  PSC_MSM_PROFILE=1 timeout 40 .devseg/$v/provesim prover-bench --backend cuda --only msm-g2 --sizes 20..22 \
    --reps 3 >> "$OUT/bench_$v.txt" 2>> "$OUT/bench_$v.err"; echo "rc $?"; grep msm "$OUT/bench_$v.txt" | tail -3
done
echo "== keys 2^20 at $(el) s"
timeout 60 .devseg/seg/provesim prove --backend cuda --constraints 2^20 --cache "$cache" --out /tmp/p20 2>&1 | tail -1
for name in head1 seg1 head2 seg2 head3 seg3; do
  fits 12 "$name" || continue
  v=${name%[0-9]}
  timeout -s INT 60 .devseg/$v/provesim measure configs/measure-groth16.yaml --backend cuda --executor groth16 \
    --cache "$cache" --set prover.constraints=2^20 --set workload.partitions=24 --set run.warmup=3 \
    --set run.cooldown=1 --set system.mutex=kernels --set system.workers_per_gpu=1 \
    --json -o "$OUT/runs/$name.json" --spans "$OUT/runs/$name.spans.jsonl" 2> "$OUT/runs/$name.err"
  echo "$name rc $? at $(el) s"; gzip -f "$OUT/runs/$name.spans.jsonl"
done
for v in seg head; do
  fits 70 "prove 2^26 $v" || continue
  echo "== prove 2^26 --calls 3 ($v) at $(el) s"
  timeout 120 .devseg/$v/provesim prove --backend cuda --constraints 2^26 --calls 3 --json --cache "$cache" \
    --out /tmp/p26-proof > "$OUT/prove26_$v.json" 2> "$OUT/prove26_$v.err"; echo "rc $?"; tail -2 "$OUT/prove26_$v.err"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("steady", d["steady"], "verified", d["verified"])' \
    "$OUT/prove26_$v.json" 2>&1 | cut -c1-300
done
echo "== done at $(el) s"
