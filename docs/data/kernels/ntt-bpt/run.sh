#!/usr/bin/env bash
# The NTT with 4 butterflies per thread as the default (NTT_BPT), on the H200: gpu_check
# NTTs 2^1..2^24 against the CPU (quick set, no large MSMs), then prover-bench's NTT table
# 2^16..2^26. From the repository root: bash docs/data/kernels/ntt-bpt/run.sh BINDIR OUTDIR
set -u
bindir=$(cd "$1" && pwd) out=$2
mkdir -p "$out"
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > "$out/gpu.txt"
timeout 150 "$bindir/gpu_check" --quick --ntt-max 24 --g1-max 0 --g2-max 0 --skew-min 1 --skew-max 0 > "$out/gpu_check_ntt.txt" 2>&1
echo "gpu_check rc $?" >> "$out/gpu_check_ntt.txt"
timeout 60 "$bindir/provesim" prover-bench --backend cuda --only field,ntt --reps 5 > "$out/bench_ntt.txt" 2>/dev/null
echo "bench rc $?" >> "$out/bench_ntt.txt"
