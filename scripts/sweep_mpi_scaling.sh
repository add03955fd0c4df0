#!/usr/bin/env bash
# A sweep on 1 and on 2 MPI ranks, paired in one invocation: wall and CPU seconds (user +
# system of every process) and peak memory of each, and whether the two CSV and JSON
# outputs are the same bytes. The grid is the seed scenario cut short (200 partitions, 2
# replications per point) over run.seed x workers per GPU (1..10) x mutex (call, kernels):
# 20 x SEEDS points, 10^5 with the default 5000. Each rank simulates one point at a time
# (--jobs 1), so 2 ranks on 2 cores is the scaling from one core to two. The pair runs
# REPEATS times, alternating, so that a change of the machine's load shows as spread.
# usage: scripts/sweep_mpi_scaling.sh [BUILD_DIR (a -DPROVESIM_MPI=ON build; default build)] [SEEDS] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build}")/provesim
seeds=${2:-5000}
repeats=${3:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t=$(mktemp -d /tmp/provesim-scaling-XXXXXX)
trap 'rm -rf "$t"' EXIT
grid=(sweep "$PWD/configs/seed-coarse-mutex.yaml" --set workload.partitions=200 --set run.warmup=20
      --set run.replications=2 --vary "run.seed=1..$seeds" --vary system.workers_per_gpu=1..10
      --vary system.mutex=call,kernels --jobs 1 -q)
npts=$((seeds * 20))
echo "points: $npts; machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-6s %9s %9s %10s %9s %14s %s\n' run ranks wall_s cpu_s cpu_ms/pt speedup peak_MiB/rank load
same=yes
for r in $(seq 1 "$repeats"); do
  for n in 1 2; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$t/time" mpirun -n "$n" --oversubscribe "$bin" "${grid[@]}" \
      --csv "$t/r$n.csv" --json "$t/r$n.json"
    read -r wall user sys kib <"$t/time"
    cpu=$(echo "$user + $sys" | bc -l)
    [ "$n" = 2 ] || w1=$wall
    printf '%-6s %-6s %9.1f %9.1f %10.3f %9.2f %14.1f %s\n' "$r" "$n" "$wall" "$cpu" "$(echo "1000 * $cpu / $npts" | bc -l)" \
      "$(echo "$w1 / $wall" | bc -l)" "$(echo "$kib / 1024" | bc -l)" "$load"
  done
  cmp -s "$t/r1.csv" "$t/r2.csv" && cmp -s "$t/r1.json" "$t/r2.json" || same=no
done
echo "same bytes on 1 and 2 ranks, every run: $same (CSV $(wc -l <"$t/r1.csv") lines, $(stat -c %s "$t/r1.csv") bytes; JSON $(stat -c %s "$t/r1.json") bytes)"
[ "$same" = yes ] || exit 1
