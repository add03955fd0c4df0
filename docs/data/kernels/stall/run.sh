#!/usr/bin/env bash
# Where the NTT's radix-4 passes spend their cycles (docs/performance.md, "Twiddles staged
# with the tile"): Nsight Compute's sections on the passes of one forward NTT after the
# warm-up, by prover-bench, for each NAME:SIZE[:VAR=VALUE...] given after DIR, by default
#   def22:22   the default (Montgomery product, 96 registers) at 2^22,
#   def20:20   the same at 2^20,
#   mix22:22:PSC_NTT_MUL=mixed:PSC_NTT_REGS=128   the FP64 instance nearest the default,
# each with the speed of light, compute and memory workload, occupancy, launch, scheduler,
# warp state (the stall reasons), instruction and source (stalls by SASS instruction)
# sections, clocks left alone (--clock-control none). Each report is exported as the
# details page (text and CSV), the raw metrics (CSV) and the SASS source page (CSV).
#   OUT=DIR bash docs/data/kernels/stall/run.sh DIR [NAME:SIZE[:VAR=VALUE...]]...
#   (DIR holds new/provesim)
# Outputs: DIR/../stall/ packed as $OUT/stall.tar.xz, and $OUT/log.txt.
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
work=$(mktemp -d /tmp/stall.XXXXXX)/stall; mkdir -p "$work"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "no ncu on this machine"; exit 1; }
"$ncu" --version | tail -1
sections=(SpeedOfLight ComputeWorkloadAnalysis MemoryWorkloadAnalysis Occupancy LaunchStats SchedulerStats
  WarpStateStats InstructionStats SourceCounters)
sec=(); for s in "${sections[@]}"; do sec+=(--section "$s"); done
profile() { # NAME SIZE [VAR=VALUE]...
  local name=$1 size=$2; shift 2
  fits 90 "profile $name" || return 0
  # prover-bench's forward NTT: a warm-up transform, then the timed one; at 2^22 and 2^20
  # a transform is three passes (ntt_pass_layout: 7 + 7 + 8 and 6 + 6 + 8 stages), so
  # launches 4 to 6 of ntt_pass_r4 are the timed transform's
  env "$@" timeout 240 "$ncu" --clock-control none --kernel-name regex:ntt_pass_r4 --launch-skip 3 \
    --launch-count 3 "${sec[@]}" --import-source no -f -o "$work/$name" \
    "$bin" prover-bench --backend cuda --sizes "$size" --only ntt --reps 1 > "$work/$name.out" 2>&1
  echo "ncu $name: exit $? at $(el) s; $(grep -c '==PROF==' "$work/$name.out") profiler lines"
  [ -f "$work/$name.ncu-rep" ] || return 0
  "$ncu" -i "$work/$name.ncu-rep" --page details > "$work/$name-details.txt" 2>&1
  "$ncu" -i "$work/$name.ncu-rep" --page details --csv > "$work/$name-details.csv" 2>&1
  "$ncu" -i "$work/$name.ncu-rep" --page raw --csv > "$work/$name-raw.csv" 2>&1
  "$ncu" -i "$work/$name.ncu-rep" --page source --print-source sass --csv > "$work/$name-sass.csv" 2>&1 ||
    echo "source page of $name: exit $?: $(head -c 300 "$work/$name-sass.csv")"
  grep -E 'ntt_pass_r4|Duration|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|Registers Per' \
    "$work/$name-details.txt" | head -40
}
shift
[ $# -gt 0 ] || set -- def22:22 def20:20 mix22:22:PSC_NTT_MUL=mixed:PSC_NTT_REGS=128
for p in "$@"; do
  IFS=: read -r -a f <<<"$p"
  profile "${f[@]}"
done
cp "$OUT/log.txt" "$work/" 2>/dev/null
tar -C "$(dirname "$work")" -cJf "$OUT/stall.tar.xz" stall && ls -l "$OUT/stall.tar.xz"
echo "== done at $(el) s"
