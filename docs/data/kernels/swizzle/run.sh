#!/usr/bin/env bash
# (A record of the call as it ran: the switches it sets, PSC_NTT_SWIZZLE, PSC_NTT_TW_COMPACT
# and PSC_MSM_OCC, were removed after it, at 1543c89; docs/performance.md says why.)
# Field elements moved 16 bytes at a time, the NTT's shared memory without bank conflicts,
# its compact twiddle table, and G1's bucket sums with capped registers, against the
# prover before them, on a GPU machine, in one call:
#  1. prover-bench's field rates and NTT rows 2^SIZES (default 16..27) in ROUNDS rounds
#     (default 3), alternated: new (its defaults), new with PSC_NTT_SWIZZLE=0, new with
#     PSC_NTT_TW_COMPACT=1, and old (under PSC_NTT_TILES=1, its kernel as on main);
#  2. G1 MSMs at 2^22..2^24, plain and over bases precomputed for window 16: new, new
#     with PSC_MSM_OCC=1, old (a second round last, if the time allows);
#  3. gpu_check on new: every NTT to 2^CHECK_MAX (default 26) and G1 to 2^22, G2 to 2^16;
#     NTTs to 2^22 under PSC_NTT_SWIZZLE=0 and under PSC_NTT_TW_COMPACT=1; G1 to 2^22
#     under PSC_MSM_OCC=1;
#  4. Nsight Compute on four radix-4 passes of a 2^24 transform (new and old) with the
#     shared-memory wavefronts and bank conflicts, and on G1's bucket sums at 2^24 with
#     PSC_MSM_OCC=1;
#  5. the 2^26 keys made on the GPU into a disk cache, then `prove --constraints 2^26
#     --calls 3` new, old, and new with PSC_MSM_OCC=1 (each proof verified).
# A step that would pass BUDGET seconds (default 520) is skipped and said so.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim,
# gpu_check) and old/ (provesim, libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/swizzle/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
bin=$dir/old/provesim
. scripts/device_env.sh
t0=$SECONDS
el() { echo $((SECONDS - t0)); }
budget=${BUDGET:-520}
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"

bench() { # NAME BIN WHAT SIZES [ENV...]
  local name=$1 b=$2 what=$3 sizes=$4; shift 4
  local extra=(); [ "$what" = msm-g1 ] && extra=(--precomp 16 --reps 5) || extra=(--reps 7)
  env "$@" timeout 150 "$b" prover-bench --backend cuda --sizes "$sizes" --only "$what" "${extra[@]}" \
    > "$OUT/bench-$name.txt" 2> "$OUT/bench-$name.err" || echo "bench $name failed: $(tail -1 "$OUT/bench-$name.err")"
  echo "bench $name at $(el) s"
}
for r in $(seq 1 "${ROUNDS:-3}"); do
  bench new-r$r "$dir/new/provesim" field,ntt "${SIZES:-16..27}"
  bench noswz-r$r "$dir/new/provesim" field,ntt "${SIZES:-16..27}" PSC_NTT_SWIZZLE=0
  bench compact-r$r "$dir/new/provesim" field,ntt "${SIZES:-16..27}" PSC_NTT_TW_COMPACT=1
  bench old-r$r "$dir/old/provesim" field,ntt "${SIZES:-16..27}" PSC_NTT_TILES=1
done
msm() { # ROUND
  fits 60 "msm round $1" || return
  bench msm-new-r$1 "$dir/new/provesim" msm-g1 22..24
  bench msm-occ-r$1 "$dir/new/provesim" msm-g1 22..24 PSC_MSM_OCC=1
  bench msm-old-r$1 "$dir/old/provesim" msm-g1 22..24
}
msm 1

check() { # NAME NTT G1 G2 [ENV...]
  local name=$1 nm=$2 g1=$3 g2=$4; shift 4
  env "$@" timeout 200 "$dir/new/gpu_check" --quick --ntt-max "$nm" --g1-max "$g1" --g2-max "$g2" \
    > "$OUT/check-$name.txt" 2>&1
  echo "gpu_check $name: exit $?, $(grep -c FAIL "$OUT/check-$name.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-$name.txt") at $(el) s"
}
fits 150 "gpu_check new" && check new "${CHECK_MAX:-26}" 22 16
fits 15 "gpu_check noswz" && check noswz 22 0 0 PSC_NTT_SWIZZLE=0
fits 15 "gpu_check compact" && check compact 22 0 0 PSC_NTT_TW_COMPACT=1
fits 30 "gpu_check occ" && check occ 12 22 0 PSC_MSM_OCC=1

ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
secs=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
  --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis)
shm=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for b in new old; do
  [ -n "$ncu" ] && fits 40 "ncu $b" || continue
  env PSC_NTT_TILES=1 timeout 120 "$ncu" --clock-control none --kernel-name regex:ntt_pass_r4 --launch-skip 4 \
    --launch-count 4 "${secs[@]}" --metrics "$shm" \
    "$dir/$b/provesim" prover-bench --backend cuda --sizes 24 --only ntt --reps 1 > "$OUT/ncu-$b.txt" 2>&1
  echo "ncu $b: exit $? at $(el) s"
done
[ -n "$ncu" ] && fits 60 "ncu msm occ" && {
  env PSC_MSM_OCC=1 timeout 150 "$ncu" --clock-control none --kernel-name regex:g1_bucket_chunks --launch-skip 1 \
    --launch-count 1 "${secs[@]}" \
    "$dir/new/provesim" prover-bench --backend cuda --sizes 24 --only msm-g1 --reps 1 > "$OUT/ncu-msm-occ.txt" 2>&1
  echo "ncu msm occ: exit $? at $(el) s"
}

croot=$(device_cache_root)
cache=$(mktemp -d "$croot/provesim-keys.XXXXXX")
trap 'rm -rf "$cache"' EXIT
busy() { # the GPU time per call that prove --json reports
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' "$1" 2>&1 | cut -c1-400
}
i=0
for run in new old occ; do
  i=$((i + 1))
  b=$run; envs=(); [ $run = occ ] && b=new envs=(PSC_MSM_OCC=1); [ $run = old ] && envs=(PSC_NTT_TILES=1)
  fits $([ $i = 1 ] && echo 75 || echo 40) "prove $run ($i)" || continue
  echo "== prove 2^26 --calls 3, $run, at $(el) s"
  env "${envs[@]}" timeout 150 "$dir/$b/provesim" prove --backend cuda --constraints 2^26 --calls 3 --json \
    --cache "$cache" --out /tmp/p26-proof > "$OUT/prove-$i-$run.json" 2> "$OUT/prove-$i-$run.err"
  echo "rc $?"; busy "$OUT/prove-$i-$run.json"
done
msm 2
echo "== done at $(el) s"
