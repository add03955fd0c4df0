#!/usr/bin/env bash
# gpu_check at the sizes issue 4 asks for (NTT to 2^24, MSM G1 to 2^22; G2 to 2^18) and
# prover-bench's NTT 2^24 and MSM G1 2^23..2^24 rows, on the H200, with the binaries of
# commit 8a4c102 built here (-arch=sm_90) and carried in .p4/ (git-ignored) beside
# libcudart/libcupti, and .deps/ holding the Debian packages of cJSON and GSL.
# Run from the repository root: `timeout 230 bash docs/data/kernels/full-check-run.sh`.
set -u
bindir=$(cd .p4 && pwd) out=${OUT:-/tmp/fullout}
mkdir -p "$out"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$out/full-log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/full-gpu.txt"
echo "== bench, at $(el) s"
timeout 45 "$bindir/provesim" prover-bench --backend cuda --sizes 23..24 --only msm-g1 --reps 3 > "$out/full-bench-msm.txt" 2>/dev/null; echo "rc $?"; cat "$out/full-bench-msm.txt"
timeout 25 "$bindir/provesim" prover-bench --backend cuda --sizes 24..24 --only ntt --reps 5 > "$out/full-bench-ntt.txt" 2>/dev/null; echo "rc $?"; cat "$out/full-bench-ntt.txt"
echo "== gpu_check full sizes, at $(el) s"
timeout 150 "$bindir/gpu_check" --quick --ntt-max 24 --g1-max 22 --g2-max 18 --skew-min 1 --skew-max 0 > "$out/full-gpu_check.txt" 2>&1
echo "rc $?"; grep -E "2\^2[0-4]|n=(1048576|2097152|4194304|262144)|failed" "$out/full-gpu_check.txt" | tail -30
echo "total $(el) s"
