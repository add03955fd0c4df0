#!/usr/bin/env bash
# The H200 runs behind docs/validation.md, in one device call (from the repository root):
#   OUT=DIR [ROWS=REGEX] [SKIP=REGEX] [WARMUP=N] [PARTS20=N] [PARTS22=N] [DEADLINE=S] bash docs/data/validation/run.sh [BIN [TSV...]]
# BIN (default .devbin/provesim) is a CUDA build made on the development machine
# (-DPROVESIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90), carried with its CUDA libraries.
# 1. Keys for 2^20 and 2^22 constraints, made once into a cache.
# 2. The calibration runs of calib.tsv (one worker, three thread counts per size), then
#    the held-out scenarios of matrix.tsv (or the TSV files given; ROWS keeps only the rows
#    whose name matches the extended regex, SKIP leaves out those that match one); `measure`
#    only: every prediction is made on
#    the development machine afterwards (scripts/validation.py), from the calibration runs.
# A row's optional fourth column is environment for its run (e.g. PSC_CUDA_SYNC=block),
# kept in NAME.env; CPUS=LIST there runs it under taskset -c LIST.
# Each run writes OUT/runs/NAME.json (its report), NAME.spans.jsonl.gz and NAME.sets (the
# overrides it ran with, one per line, for the predictions) and NAME.host (the cpu lines of
# /proc/stat before and after it: the summary line gives the hypervisor's steal over the
# CPUs the run was confined to, as a share of their time, and in brackets the spans
# header's host_steal, a share of their busy time, which the gate reads); PARTS20 and PARTS22 (default 60
# and 30) are the partitions of a closed run at 2^20 and 2^22 constraints; OUT/log.txt
# has the machine (GPU, driver, CPU and its topology) and every run's summary line. WARMUP=N
# first runs N partitions of the reference settings (one worker, 2^20, the default policy)
# and keeps nothing of it: the host's first minute runs CPU phases slower (docs/validation-sessions.md,
# "A fourth session"). DEADLINE=S starts no run after S seconds from the script's start (the
# rows left are named in the log), so that a device call ends in time to pack its outputs.
# RESUME=1 skips the rows that already have a report in OUT/runs, or whose name DONE (an
# extended regex matched against the whole name) covers: session.sh runs a session over
# several device calls with it.
# PROBE=1 also runs a short CPU benchmark of the host (prover-bench, CPU backend: Fr
# multiplications and NTTs of 2^18 on all CPUs, about a second) just before and just after
# each run, into NAME.probe (probe 8).
# Exit 1 if a run failed.
# QUICK=1 BACKEND=cpu is the dry run that works anywhere: 2^10 and 2^11 constraints, fewer
# partitions.
set -uo pipefail
bin=${1:-.devbin/provesim}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/runs"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$OUT/log.txt") 2>&1
. scripts/device_env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores online"
# which CPUs share a core (SMT siblings) and a node: measure confines a run to the first cpu_cores CPUs
echo "cpu topology (cpu: core siblings; node): $(for c in /sys/devices/system/cpu/cpu[0-9]*; do
  printf '%s:%s;%s ' "${c##*cpu}" "$(cat $c/topology/thread_siblings_list 2>/dev/null)" \
    "$(ls -d $c/node* 2>/dev/null | sed 's/.*node//' | head -1)"; done | tr ' ' '\n' | sort -n | tr '\n' ' ')"
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null); governor: $(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo none)"
echo "commit: ${COMMIT:-unknown}; partitions per closed run: ${PARTS20:-60} (2^20), ${PARTS22:-30} (2^22)"
cache=/tmp/provesim-keys failed=0 backend=${BACKEND:-cuda} quick=${QUICK:-}
ROWS=${ROWS:-} SKIP=${SKIP:-}
real() { if [ -n "$quick" ]; then [ "$1" = 2^20 ] && echo 2^10 || echo 2^11; else echo "$1"; fi; }
for size in $(real 2^20) $(real 2^22); do
  echo "== keys $size at $(el) s"
  timeout 300 "$bin" prove --backend $backend --constraints "$size" --cache $cache --out "/tmp/proof-$size" 2>&1 | tail -2
done
if [ -n "${WARMUP:-}" ]; then
  echo "== warm-up: $WARMUP partitions at $(el) s (not kept)"
  timeout -s INT 150 "$bin" measure configs/measure-groth16.yaml --backend $backend --executor groth16 --cache $cache \
    --set prover.constraints=$(real 2^20) --set workload.partitions=$WARMUP --set system.mutex=kernels \
    --set system.workers_per_gpu=1 --json -o /tmp/warmup.json 2>/tmp/warmup.err || echo "warm-up FAILED: $(tail -3 /tmp/warmup.err)"
fi
probe() { # PROBE=1: the host's CPU benchmark around a run (above)
  [ -n "${PROBE:-}" ] || return 0
  { echo "== $1"; "$bin" prover-bench --backend cpu --only field,ntt --sizes 18..18 --reps 3 2>/dev/null; } >> "$OUT/runs/$name.probe"
}
run_tsv() {
  while IFS=$'\t' read -r name size ov run_env; do
    case "$name" in ''|'#'*) continue ;; esac
    [ -n "${ROWS:-}" ] && ! grep -Eq -e "$ROWS" <<<"$name" && continue
    [ -n "${SKIP:-}" ] && grep -Eq -e "$SKIP" <<<"$name" && continue
    if [ -n "${RESUME:-}" ] && { [ -f "$OUT/runs/$name.json" ] || { [ -n "${DONE:-}" ] && grep -Eqx -e "$DONE" <<<"$name"; }; }; then continue; fi
    if [ -n "${DEADLINE:-}" ] && [ "$(el)" -ge "$DEADLINE" ]; then echo "$name not run: past DEADLINE=$DEADLINE s"; continue; fi
    local w parts=${PARTS20:-60} warm=3 sets=()
    [ "$size" = 2^22 ] && parts=${PARTS22:-30} warm=2
    [ -n "$quick" ] && parts=12 warm=2
    size=$(real "$size")
    w=$(sed -n 's/.*workers_per_gpu=\([0-9]*\).*/\1/p' <<<"$ov"); w=${w:-1}
    sets+=(--set prover.constraints=$size --set workload.partitions=$parts --set run.warmup=$warm --set run.cooldown=$w)
    IFS=';' read -ra kv <<<"$ov"
    for x in "${kv[@]}"; do x=$(sed 's/^ *//; s/ *$//' <<<"$x"); [ -n "$x" ] && sets+=(--set "$x"); done
    printf '%s\n' "${sets[@]}" | grep -v '^--set$' > "$OUT/runs/$name.sets"
    [ -n "${run_env:-}" ] && printf '%s\n' "$run_env" > "$OUT/runs/$name.env"
    { echo before; grep '^cpu' /proc/stat; } > "$OUT/runs/$name.host" 2>/dev/null
    probe before
    # CPUS=LIST in a row's environment runs it under taskset -c LIST (measure confines a run
    # on c cores to the first c CPUs it may use: these)
    pre=(); cpus=$(sed -n 's/.*CPUS=\([^ ]*\).*/\1/p' <<<"${run_env:-}"); [ -n "$cpus" ] && pre=(taskset -c "$cpus")
    env ${run_env:-} "${pre[@]}" timeout -s INT 150 "$bin" measure configs/measure-groth16.yaml --backend $backend --executor groth16 --cache $cache \
      "${sets[@]}" --json -o "$OUT/runs/$name.json" --spans "$OUT/runs/$name.spans.jsonl" 2>"$OUT/runs/$name.err" \
      || { echo "$name FAILED: $(tail -3 "$OUT/runs/$name.err")"; failed=1; }
    { echo after; grep '^cpu' /proc/stat; } >> "$OUT/runs/$name.host" 2>/dev/null
    probe after
    [ -f "$OUT/runs/$name.spans.jsonl" ] && gzip -f "$OUT/runs/$name.spans.jsonl"
    python3 - "$OUT/runs/$name.json" "$name" "$(el)" "$OUT/runs/$name.host" "$(sed -n 's/.*cpu_cores=\([0-9]*\).*/\1/p' <<<"$ov")" <<'PY'
import json, sys, os
p, name, t, host, cores = sys.argv[1:6]
# the hypervisor's steal over the run's CPUs (the first cpu_cores, which measure confines it
# to): scripts/validation_misses.py's reader, the one that tables it later
steal = ""
try:
    sys.path.insert(0, "scripts")
    from validation_misses import host_steal
    st = host_steal(host, int(cores) if cores else None)
    steal = "" if st is None else " steal %.2f%%" % (100 * st)
except (ImportError, OSError, KeyError, IndexError, ValueError):
    pass
# and the spans header's host_steal (measure's reading: a share of the run's cores' busy
# time, what calibrate warns about and session.sh's gate reads), when recorded
try:
    from validation import header_steal
    hs = header_steal(p[:-len(".json")] + ".spans.jsonl.gz")
    if hs is not None:
        steal += " (%.2f%% of its cores' busy time)" % (100 * hs)
except (ImportError, OSError, ValueError):
    pass
if os.path.exists(p):
    d = json.load(open(p))
    m = d["metrics"]
    nv = (m.get("gpu_util_nvml") or [None])[0]
    # the SM clock NVML read in the window (measure from 0de1de6), when it did
    ck = ((d.get("measurement") or {}).get("gpu_clocks") or [None])[0]
    clk = "" if not ck else " clock %.0f MHz (min %.0f, held down %.0f%%)" % (
        ck["mean_mhz"], ck["min_mhz"], 100 * ck["slowed_share"])
    print(f"{name:16s} util {m['gpu_util'][0]:.4f} nvml {nv if nv is None else round(nv, 4)} "
          f"pps {m['throughput_pps']:.3f}{steal}{clk} at {t} s")
PY
  done < "$1"
}
shift 2>/dev/null
tsvs=("$@"); [ ${#tsvs[@]} -eq 0 ] && tsvs=(docs/data/validation/calib.tsv docs/data/validation/matrix.tsv)
for t in "${tsvs[@]}"; do echo "== $t at $(el) s"; run_tsv "$t"; done
echo "total $(el) s"
exit $failed
