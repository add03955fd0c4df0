#!/usr/bin/env bash
# Whether G2's segment sums run in two modes a process (docs/validation-sessions.md, "A
# twenty-sixth session": in the validation runs `b_g2`'s segment_sum took 3.8-4.2 or
# 5.9-6.1 ms a call for a whole run, the slow mode more often on 4 cores): prover-bench's
# MSM G2 at 2^20 (medians of 5) in many separate processes, each with PSC_MSM_PROFILE=1
# (every MSM's phase times, "segments" among them), alternately on all CPUs and under
# taskset on the first four. Outputs packed as $OUT/g2seg.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/g2seg/run.sh DIR     (DIR holds new/provesim)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
BUDGET=${BUDGET:-240}
root=$OUT
OUT=$(mktemp -d /tmp/g2seg.XXXXXX)
. scripts/device_kernels.sh
for i in $(seq 1 40); do
  for cpus in all 0-3; do
    fits 12 "process $i on $cpus" || break 2
    pre=(); [ $cpus = all ] || pre=(taskset -c $cpus)
    PSC_MSM_PROFILE=1 "${pre[@]}" timeout 60 "$bin" prover-bench --backend cuda --only msm-g2 --sizes 20 --reps 5 \
      > "$OUT/g2-$i-$cpus.txt" 2> "$OUT/g2-$i-$cpus.err"
    seg=$(grep -o 'segments [0-9.]*' "$OUT/g2-$i-$cpus.err" | awk '{s = s " " $2} END {print s}')
    echo "process $i cpus $cpus: $(awk '/^msm-g2 /{print $4 " ms"}' "$OUT/g2-$i-$cpus.txt"); segments$seg at $(el) s"
  done
done
echo "== done at $(el) s"
cp "$OUT/log.txt" "$root/log.txt"
tar -C "$OUT" -cJf "$root/g2seg.tar.xz" .
