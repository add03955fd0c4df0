#!/usr/bin/env bash
# The H200 soak and fault checks of docs/reliability.md (from the repository root):
#   OUT=DIR bash docs/data/reliability/soak.sh [BIN]
# 1. Soak: `measure` with the groth16 executor on the cuda backend, 2^18 constraints, two
#    workers, the lock on the GPU phases, PARTS partitions (default 2,000), its spans
#    written (to /tmp: only their size comes back); every second the process's resident
#    memory (ps) and its GPU memory (nvidia-smi) into soak.csv. The summary gives the
#    first and last tenth and the growth per 1,000 partitions (least squares over the
#    second half of the run).
# 2. A fault on the real path: the same run with PROVESIM_FAULT=1:40:msm (worker 1's call
#    40 fails in its MSM phase): it must exit 1 naming the phase, write no report, and leave
#    spans that parse.
set -uo pipefail
bin=${1:-.devbin/provesim}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
. scripts/device_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sets=(--backend cuda --executor groth16 --cache /tmp/k --set prover.constraints=2^18 --set system.mutex=kernels
      --set system.workers_per_gpu=2 --set run.warmup=10 --set run.cooldown=2)
"$bin" prove --backend cuda --constraints 2^18 --cache /tmp/k --out /tmp/p | tail -1
echo "t_s,rss_kib,gpu_mib" > "$OUT/soak.csv"
t0=$(date +%s.%N)
PARTS=${PARTS:-2000}
"$bin" measure configs/measure-groth16.yaml "${sets[@]}" --set workload.partitions=$PARTS --json -o "$OUT/soak.json" \
  --spans /tmp/soak.jsonl &
pid=$!
while kill -0 $pid 2>/dev/null; do
  rss=$(ps -o rss= -p $pid 2>/dev/null | tr -d ' ')
  gpu=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null | awk -F', ' -v p=$pid '$1==p {print $2}')
  [ -n "$rss" ] && echo "$(awk -v a="$(date +%s.%N)" -v b="$t0" "BEGIN{printf \"%.1f\", a - b}"),$rss,${gpu:-}" >> "$OUT/soak.csv"
  sleep 1
done
wait $pid; echo "soak exit $?"
ls -l /tmp/soak.jsonl; wc -l < /tmp/soak.jsonl
python3 - "$OUT/soak.json" "$OUT/soak.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1])); m = d["metrics"]
rows = [r for r in csv.DictReader(open(sys.argv[2]))]
def mean(xs): return sum(xs) / len(xs) if xs else float("nan")
n = len(rows); k = max(1, n // 10)
rss = [float(r["rss_kib"]) / 1024 for r in rows]
gpu = [float(r["gpu_mib"]) for r in rows if r["gpu_mib"]]
# RSS against time over the second half (the first holds the start-up), in KiB per 1,000
# partitions at the run's throughput.
h = [(float(r["t_s"]), float(r["rss_kib"])) for r in rows[n // 2:]]
tm = mean([t for t, _ in h]); rm = mean([x for _, x in h])
slope = sum((t - tm) * (x - rm) for t, x in h) / max(1e-9, sum((t - tm) ** 2 for t, _ in h))
growth = slope / m["throughput_pps"] * 1000
print(json.dumps({"partitions_per_s": m["throughput_pps"], "gpu_util": m["gpu_util"][0], "samples": n,
                  "rss_mib_first_tenth": mean(rss[1:k + 1]), "rss_mib_last_tenth": mean(rss[-k:]), "rss_mib_max": max(rss),
                  "gpu_mib_first_tenth": mean(gpu[1:k + 1]), "gpu_mib_last_tenth": mean(gpu[-k:]),
                  "gpu_mib_max": max(gpu) if gpu else None,
                  "rss_kib_per_1000_partitions": growth, "notes": d["measurement"]["notes"]}))
PY
[ "${FAULT:-1}" = 0 ] && exit 0 # FAULT=0: the soak alone (cupti_flush.sh)
echo "== fault"
PROVESIM_FAULT=1:40:msm "$bin" measure configs/measure-groth16.yaml "${sets[@]}" --set workload.partitions=200 \
  --spans "$OUT/fault.jsonl" -o "$OUT/fault.txt"; echo "fault exit $?"
[ -e "$OUT/fault.txt" ] && echo "a report was written" || echo "no report"
"$bin" calibrate "$OUT/fault.jsonl" --model models/provesim-groth16.yaml -o /tmp/fault-model.yaml >/dev/null 2>&1
"$bin" trace "$OUT/fault.jsonl" -o /tmp/fault-trace.json && echo "the spans parse (trace wrote them)"
gzip -f "$OUT/fault.jsonl"
