#!/usr/bin/env bash
# The radix-4 NTT pass (ntt_pass_r4, PSC_NTT_RADIX=4) on the H200: gpu_check NTTs 2^1..2^24
# against the CPU, then prover-bench NTT 2^20..2^26 with shared-memory blocks of 2^10..2^12
# elements. From the repository root: bash docs/data/kernels/ntt-bpt/r4-run.sh BINDIR OUTDIR
set -u
bindir=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PSC_NTT_RADIX=4 timeout 150 "$bindir/gpu_check" --quick --ntt-max 24 --g1-max 0 --g2-max 0 --skew-min 1 --skew-max 0 \
  > "$out/r4_gpu_check_ntt.txt" 2>&1
echo "gpu_check rc $?" >> "$out/r4_gpu_check_ntt.txt"
for lb in 10 11 12; do
  for mk in 8 $lb; do
    echo "-- PSC_NTT_RADIX=4 PSC_NTT_LOG_BLOCK=$lb PSC_NTT_MAX_K=$mk"
    PSC_NTT_RADIX=4 PSC_NTT_LOG_BLOCK=$lb PSC_NTT_MAX_K=$mk timeout 40 "$bindir/provesim" prover-bench --backend cuda \
      --only ntt --sizes 20..26 --reps 5 2>/dev/null | grep -E "^(ntt|intt)"
  done
done > "$out/r4_bench_ntt.txt" 2>&1
