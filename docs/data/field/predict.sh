#!/usr/bin/env bash
# The predictions of docs/field.md, on any machine (no GPU), from the H200 runs that
# docs/data/field/run.sh left (default docs/data/field/h200), from the repository root:
#   bash docs/data/field/predict.sh [BIN] [DATA]
# 1. calibrate: the one-worker runs (cal-t*: two thread counts) give DATA/model.yaml
#    (Amdahl's law per CPU phase; each worker's first 2 calls left out); DATA/date.txt, when
#    present, fixes the provenance date (SOURCE_DATE_EPOCH), so the file is reproducible.
#    NO_KERNELS=1 calibrates from the phase spans alone (kernel and memcpy records left
#    out, written to DATA/runs/cal-t*.phases.jsonl.gz; every GPU phase then counts as
#    busy: busy 1): for runs whose kernel records are
#    incomplete (the first H200 run of 2026-12-01, h200/log-first-run.txt, lost most of them).
# 2. validate: every other run (call-w2, kern-w2, rec-*) predicted by that model with the
#    overrides it was measured with (NAME.sets), beside the measurement: DATA/validate.txt
#    (tables) and DATA/NAME.validate.json.
# 3. sweep: the calibrated model over 1-4 workers per GPU and both lock scopes (what
#    provesim recommends, (d) of run.sh): DATA/sweep.txt.
set -euo pipefail
bin=${1:-build/provesim}; data=${2:-docs/data/field/h200}
[ -f "$data/date.txt" ] && export SOURCE_DATE_EPOCH=$(cat "$data/date.txt")
cal=$(ls "$data"/runs/cal-t*.spans.jsonl.gz)
if [ -n "${NO_KERNELS:-}" ]; then # the phase spans alone, kept beside the runs (NAME.phases.jsonl.gz)
  for f in $cal; do
    zcat "$f" | grep -v '"kind":"kernel"\|"kind":"memcpy"' | gzip -n > "${f%.spans.jsonl.gz}.phases.jsonl.gz"
  done
  cal=$(ls "$data"/runs/cal-t*.phases.jsonl.gz)
fi
# shellcheck disable=SC2086
"$bin" calibrate $cal --model models/provesim-groth16.yaml -o "$data/model.yaml" --skip-calls 2 \
  --name provesim-groth16-h200-2^26 | sed '/^wrote /d' > "$data/calibrate.txt"
cat "$data/calibrate.txt"
: > "$data/validate.txt"
for rep in "$data"/runs/*.json; do
  name=$(basename "$rep" .json)
  case "$name" in cal-*|keys|prove27) continue ;; esac
  sets=()
  while read -r kv; do case "$kv" in model=*) ;; ?*) sets+=(--set "$kv") ;; esac; done < "$data/runs/$name.sets"
  sets+=(--set "model=$data/model.yaml")
  { echo "== $name"; "$bin" validate configs/seed-coarse-mutex.yaml --measured "$rep" "${sets[@]}"; echo; } \
    >> "$data/validate.txt"
  "$bin" validate configs/seed-coarse-mutex.yaml --measured "$rep" "${sets[@]}" --json -o "$data/$name.validate.json"
done
cat "$data/validate.txt"
"$bin" sweep configs/seed-coarse-mutex.yaml --set "model=$data/model.yaml" --set prover.constraints=2^26 \
  --set system.cpu_cores=16 --set workload.partitions=400 --set run.warmup=20 --set run.replications=3 \
  --vary system.workers_per_gpu=1..4 --vary system.mutex=call,kernels --jobs 1 > "$data/sweep.txt"
cat "$data/sweep.txt"
