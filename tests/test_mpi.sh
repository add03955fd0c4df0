#!/usr/bin/env bash
# test_mpi (ctest, -DPROVESIM_MPI=ON builds only): `mpirun -n 2 --oversubscribe provesim
# sweep|plan` against one process, byte for byte (CSV, JSON, table; plan's text less its
# wall-time line), and a rank that fails: rank 1 runs where the scenario is not, so its
# points are reported and the checkpoint lacks them; --resume completes it to the bytes
# of an uninterrupted run. Last, a rank killed midway: the checkpoint survives the job and
# resumes to the same bytes.
# usage: test_mpi.sh PROVESIM SOURCE_DIR [MPIRUN]
set -euo pipefail
bin=$1 src=$2 mpirun=${3:-mpirun}
t=$(mktemp -d /tmp/provesim-mpi-XXXXXX)
trap 'rm -rf "$t"' EXIT
cd "$t"
fail() { echo "test_mpi: $*" >&2; exit 1; }
same() { cmp "$1" "$2" || fail "$1 and $2 differ"; }

# A sweep: 45 points, with both outputs and the table.
sweep=(sweep "$src/configs/seed-coarse-mutex.yaml" --set run.replications=3 --set workload.partitions=1000
       --vary system.workers_per_gpu=1..3 --vary 'system.mutex=call;kernels;{from: prep, to: msm}' --vary run.seed=1..5)
"$bin" "${sweep[@]}" --csv one.csv --json one.json >one.out
"$mpirun" -n 2 --oversubscribe "$bin" "${sweep[@]}" --csv two.csv --json two.json >two.out
same one.csv two.csv
same one.json two.json
same one.out two.out
[ "$(wc -l <two.csv)" = 46 ] || fail "two.csv: expected 46 lines"
[ ! -e two.csv.partial ] || fail "a finished run left its checkpoint"

# A plan: the same plan and CSV; line 3 of the text says how long the search took.
plan=(plan "$src/configs/capacity-8gpu.yaml" --target proofs_per_hour=600 --max p99_latency_s=120
      --set run.replications=2 --max-workers 4)
"$bin" "${plan[@]}" --csv p1.csv >p1.out
"$mpirun" -n 2 --oversubscribe "$bin" "${plan[@]}" --csv p2.csv >p2.out
same p1.csv p2.csv
diff <(sed 3d p1.out) <(sed 3d p2.out) >/dev/null || fail "plan's text differs under mpirun"
grep -q '^cheapest: ' p2.out || fail "plan printed no cheapest configuration"

# A rank that fails: rank 1's folder has no s.yaml. Its points (every other one) are
# reported; the others are kept in the checkpoint and --resume completes the sweep.
mkdir a b
sed "s#^model: \.\./#model: $src/#" "$src/configs/seed-coarse-mutex.yaml" >a/s.yaml
grid=(sweep s.yaml --set run.replications=2 --set workload.partitions=1000 --vary system.workers_per_gpu=1..4
      --vary system.mutex=call,kernels -q)
rc=0
"$mpirun" --oversubscribe -n 1 --wdir "$t/a" "$bin" "${grid[@]}" --csv "$t/f.csv" : \
          -n 1 --wdir "$t/b" "$bin" "${grid[@]}" --csv "$t/f.csv" 2>err || rc=$?
[ "$rc" = 2 ] || fail "a failed rank: exit $rc, expected 2"
grep -q '^provesim sweep: 4 of 8 points failed; the first: rank 1 (.*): s.yaml: ' err || fail "$(cat err)"
grep -q '^provesim sweep: failed points: 1, 3, 5, 7$' err || fail "$(cat err)"
grep -q "the 4 points done are in $t/f.csv.partial" err || fail "$(cat err)"
[ ! -e f.csv ] || fail "a failed run left its output"
[ "$(wc -l <f.csv.partial)" = 5 ] || fail "f.csv.partial: expected a header and 4 points"
(cd a && "$bin" "${grid[@]}" --csv "$t/f.csv" --resume "$t/f.csv.partial")
(cd a && "$bin" "${grid[@]}" --csv "$t/g.csv")
same f.csv g.csv
[ ! -e f.csv.partial ] || fail "a resumed run left its checkpoint"
# A rank that dies: one is killed (SIGKILL) midway; mpirun ends the job, the outputs'
# temporaries go with it, the checkpoint stays, and --resume under mpirun completes it.
# 4,000 points (about 5 s on 2 cores): with 800 the sweep could end, on a loaded machine,
# before the loop below saw its twentieth point and found a rank to kill.
kgrid=(sweep "$src/configs/seed-coarse-mutex.yaml" --set run.replications=3 --vary run.seed=1..2000
       --vary system.mutex=call,kernels -q)
"$bin" "${kgrid[@]}" --csv k1.csv
"$mpirun" -n 2 --oversubscribe "$bin" "${kgrid[@]}" --jobs 1 --csv k2.csv >/dev/null 2>&1 &
mp=$!
for _ in $(seq 3000); do
  [ -e k2.csv.partial ] && [ "$(wc -l <k2.csv.partial)" -ge 21 ] && break
  sleep 0.01
done
victim=$(ps -eo pid=,ppid= | awk -v p="$mp" '$2 == p {print $1}' | sort -n | tail -1)
[ -n "$victim" ] || fail "no rank of mpirun $mp to kill (did the sweep end first?)"
kill -KILL "$victim"
rc=0
wait "$mp" || rc=$?
[ "$rc" != 0 ] || fail "mpirun exited 0 after a rank was killed"
[ ! -e k2.csv ] || fail "a killed run left its output"
if ls | grep -q '\.tmp\.'; then fail "a killed run left a temporary: $(ls)"; fi
n=$(($(wc -l <k2.csv.partial) - 1))
[ "$n" -ge 20 ] && [ "$n" -lt 4000 ] || fail "k2.csv.partial: $n points, expected some of 4000"
"$mpirun" -n 2 --oversubscribe "$bin" "${kgrid[@]}" --jobs 1 --csv k2.csv --resume k2.csv.partial
same k1.csv k2.csv
echo "test_mpi: sweep (45 points) and plan give the same bytes on 2 ranks; a failed rank's points resume;"
echo "          a sweep whose rank was killed after $n points resumes to the same bytes"
