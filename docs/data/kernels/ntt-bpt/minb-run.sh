#!/usr/bin/env bash
# The radix-4 NTT pass with 3 blocks per SM as the default (NTT_R4MINB) on the H200:
# gpu_check NTTs 2^1..2^24, prover-bench NTT 2^16..2^26 with the default, and 2^22..2^26
# with 4 blocks per SM and with the derived twiddle (PSC_NTT_R4TW=1).
# From the repository root: bash docs/data/kernels/ntt-bpt/minb-run.sh BINDIR OUTDIR
set -u
bindir=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
timeout 120 "$bindir/gpu_check" --quick --ntt-max 24 --g1-max 0 --g2-max 0 --skew-min 1 --skew-max 0 \
  > "$out/minb3_gpu_check.txt" 2>&1
echo "gpu_check rc $?" >> "$out/minb3_gpu_check.txt"
timeout 60 "$bindir/provesim" prover-bench --backend cuda --only field,ntt --reps 5 > "$out/minb3_bench_ntt.txt" 2>/dev/null
for v in "PSC_NTT_R4MINB=4" "PSC_NTT_R4MINB=4 PSC_NTT_R4TW=1" "PSC_NTT_R4TW=1"; do
  echo "-- $v"
  env $v timeout 40 "$bindir/provesim" prover-bench --backend cuda --only ntt --sizes 22..26 --reps 5 2>/dev/null \
    | grep -E "^(ntt|intt)"
done > "$out/minb_variants.txt" 2>&1
