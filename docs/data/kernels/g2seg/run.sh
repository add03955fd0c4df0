#!/usr/bin/env bash
# Whether G2's segment sums run in two modes a process (docs/validation-sessions.md, "A
# twenty-sixth session": in the validation runs `b_g2`'s segment_sum took 3.8-4.2 or
# 5.9-6.1 ms a call for a whole run, the slow mode more often on 4 cores), and whether
# the staged segment sums (PSC_MSM_SEGSUM=staged, prover/cuda/msm_seg.h: each step's
# buckets copied into shared memory by the block together) run in one mode, faster:
# 1. gpu_check --quick (MSMs of G1 and G2 among its checks) under PSC_MSM_SEGSUM=staged;
# 2. prover-bench's MSM G2 at 2^20 (medians of 5) in many separate processes, each with
#    PSC_MSM_PROFILE=1 (every MSM's phase times, "segments" among them), in rounds of
#    three: the default on all CPUs, the default under taskset on the first four, and
#    staged on all CPUs (only when step 1 found no failure).
# Outputs packed as $OUT/g2seg.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/g2seg/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim chk=$dir/new/gpu_check
BUDGET=${BUDGET:-420}
root=$OUT
OUT=$(mktemp -d /tmp/g2seg.XXXXXX)
. scripts/device_kernels.sh
staged=0
if fits 150 "gpu_check under staged segment sums"; then
  PSC_MSM_SEGSUM=staged check segsum "$chk" --ntt-max 12 --no-batch
  grep -q FAIL "$OUT/check-segsum.txt" || ! grep -q ' ok ' "$OUT/check-segsum.txt" || staged=1
fi
for i in $(seq 1 40); do
  for v in all 0-3 staged; do
    [ $v = staged ] && [ $staged = 0 ] && continue
    fits 12 "process $i, $v" || break 2
    pre=(); [ $v = 0-3 ] && pre=(taskset -c 0-3)
    seg=(); [ $v = staged ] && seg=(env PSC_MSM_SEGSUM=staged)
    PSC_MSM_PROFILE=1 "${seg[@]}" "${pre[@]}" timeout 60 "$bin" prover-bench --backend cuda --only msm-g2 --sizes 20 \
      --reps 5 > "$OUT/g2-$i-$v.txt" 2> "$OUT/g2-$i-$v.err"
    s=$(grep -o 'segments [0-9.]*' "$OUT/g2-$i-$v.err" | awk '{s = s " " $2} END {print s}')
    echo "process $i $v: $(awk '/^msm-g2 /{print $4 " ms"}' "$OUT/g2-$i-$v.txt"); segments$s at $(el) s"
  done
done
echo "== done at $(el) s"
cp "$OUT/log.txt" "$root/log.txt"
tar -C "$OUT" -cJf "$root/g2seg.tar.xz" .
