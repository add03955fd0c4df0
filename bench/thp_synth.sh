#!/usr/bin/env bash
# Groth16's synth phase on this host with glibc's malloc on transparent huge pages and
# without (docs/validation-sessions.md, "Probe 17"): ROUNDS rounds, each one process of
# each setting in turn, a = as provesim runs, b = GLIBC_TUNABLES=glibc.malloc.hugetlb=1
# (malloc advises MADV_HUGEPAGE; it matters where THP is madvise-only). Each process's
# figure is prover-bench's median over REPS runs. Prints the rounds, then the median of
# b/a over the rounds and each setting's spread between processes (sd of ln). No GPU.
#   bash bench/thp_synth.sh BIN [SIZE] [THREADS] [ROUNDS] [REPS]      (defaults 20 1 16 5)
set -euo pipefail
bin=${1:?usage: bash bench/thp_synth.sh BIN [SIZE] [THREADS] [ROUNDS] [REPS]}
size=${2:-20} threads=${3:-1} rounds=${4:-16} reps=${5:-5}
one() { "$@" prover-bench --backend cpu --only synth --sizes "$size" --threads "$threads" --reps "$reps" 2>/dev/null |
          awk '$1 == "synth" { print $4; found = 1 } END { exit !found }'; }
echo "host: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); $(ldd --version | head -1)"
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "synth 2^$size on $threads threads, median of $reps runs a process, $rounds rounds"
echo "round a_ms b_ms b/a"
res=$(mktemp); trap 'rm -f "$res"' EXIT
for k in $(seq 1 "$rounds"); do
  a=$(one "$bin") || { echo "thp_synth.sh: $bin prover-bench failed" >&2; exit 1; }
  b=$(one env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$bin") || { echo "thp_synth.sh: $bin prover-bench failed" >&2; exit 1; }
  echo "$k $a $b" | tee -a "$res" | awk '{ printf "%s %s %s %.3f\n", $1, $2, $3, $3 / $2 }'
done
python3 - "$res" <<'PY'
import math, statistics as s, sys
rows = [tuple(map(float, l.split()[1:])) for l in open(sys.argv[1])]
r = [b / a for a, b in rows]
sd = [s.stdev(math.log(x[i]) for x in rows) if len(rows) > 1 else float("nan") for i in (0, 1)]
print("median b/a %.3f (b faster in %d of %d rounds); median a %.2f ms, b %.2f ms; spread (sd of ln) a %.4f, b %.4f"
      % (s.median(r), sum(x < 1 for x in r), len(r), s.median(a for a, _ in rows), s.median(b for _, b in rows), *sd))
PY
