#!/usr/bin/env bash
# p4: the flat (divergence-free) bucket-chunk kernel of commit 8a4c102 on the H200:
# prover-bench MSM rows (PSC_MSM_PROFILE=1), gpu_check quick and skewed sets, then the
# previous run's provesim (.p4/old/, the dcbd341 kernel) re-timed. Run from the repository
# root as `timeout 280 bash .p4/run.sh`, with .p4/ (git-ignored) holding provesim and
# gpu_check built here (-arch=sm_90), libcudart.so.13 and libcupti.so.13, and .deps/ the
# Debian packages of cJSON and GSL; outputs go to $OUT as p4-*.
set -u
bindir=$(cd .p4 && pwd) out=${OUT:-/tmp/p4out}
mkdir -p "$out"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$out/p4-log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$bindir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$out/p4-gpu.txt"
echo "== bench new, at $(el) s"
PSC_MSM_PROFILE=1 timeout 40 "$bindir/provesim" prover-bench --backend cuda --sizes 20..22 --only msm-g1 --reps 3 > "$out/p4-bench_g1.txt" 2> "$out/p4-bench_g1.err"; echo "rc $?"; cat "$out/p4-bench_g1.txt"
PSC_MSM_PROFILE=1 timeout 40 "$bindir/provesim" prover-bench --backend cuda --sizes 20..20 --only msm-g2 --reps 3 > "$out/p4-bench_g2.txt" 2> "$out/p4-bench_g2.err"; echo "rc $?"; cat "$out/p4-bench_g2.txt"
grep "n=1048576 c=16 g1" "$out/p4-bench_g1.err" | tail -2; grep "g2" "$out/p4-bench_g2.err" | tail -2
echo "== quick gpu_check, at $(el) s"
timeout 40 "$bindir/gpu_check" --quick --ntt-max 12 --g1-max 16 --g2-max 14 --skew-min 1 --skew-max 0 > "$out/p4-gpu_check_quick.txt" 2>&1
echo "rc $?"; grep -c " ok " "$out/p4-gpu_check_quick.txt"; grep -E "FAIL|failed" "$out/p4-gpu_check_quick.txt"
echo "== skewed gpu_check, at $(el) s"
timeout 90 "$bindir/gpu_check" --skew-only --skew-min 16 --skew-max 20 > "$out/p4-gpu_check_skew.txt" 2>&1
echo "rc $?"; tail -32 "$out/p4-gpu_check_skew.txt"
echo "== bench old (.devbin binary of the previous run), at $(el) s"
timeout 30 "$bindir/old/provesim" prover-bench --backend cuda --sizes 20..22 --only msm-g1 --reps 3 > "$out/p4-old-bench_g1.txt" 2>&1; echo "rc $?"; cat "$out/p4-old-bench_g1.txt"
timeout 25 "$bindir/old/provesim" prover-bench --backend cuda --sizes 20..20 --only msm-g2 --reps 3 > "$out/p4-old-bench_g2.txt" 2>&1; echo "rc $?"; cat "$out/p4-old-bench_g2.txt"
echo "total $(el) s"
