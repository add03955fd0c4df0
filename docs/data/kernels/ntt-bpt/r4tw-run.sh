#!/usr/bin/env bash
# Radix-4 NTT pass variants on the H200: how the twiddles are had (PSC_NTT_R4TW 0: three
# loads, 1: one derived by a multiplication, 2: two derived) and the blocks per SM the
# registers allow (PSC_NTT_R4MINB 2, 3); gpu_check of the derived-twiddle variants.
# From the repository root: bash docs/data/kernels/ntt-bpt/r4tw-run.sh BINDIR OUTDIR
set -u
bindir=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
for tw in 0 1 2; do
  for mb in 2 3; do
    echo "-- PSC_NTT_R4TW=$tw PSC_NTT_R4MINB=$mb"
    PSC_NTT_R4TW=$tw PSC_NTT_R4MINB=$mb timeout 40 "$bindir/provesim" prover-bench --backend cuda --only ntt \
      --sizes 22..26 --reps 5 2>/dev/null | grep -E "^(ntt|intt)"
  done
done > "$out/r4tw_bench.txt" 2>&1
for tw in 1 2; do
  PSC_NTT_R4TW=$tw timeout 120 "$bindir/gpu_check" --quick --ntt-max 24 --g1-max 0 --g2-max 0 --skew-min 1 --skew-max 0 \
    > "$out/r4tw${tw}_gpu_check.txt" 2>&1
  echo "gpu_check rc $?" >> "$out/r4tw${tw}_gpu_check.txt"
done
