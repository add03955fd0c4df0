#!/usr/bin/env bash
# Writes the outputs that must not change when code moves without a change of behaviour:
# every shipped config's `simulate --json` report (with spans), a sweep CSV and JSON, the
# `estimate --json` document, a `calibrate` model and a `validate` report from spans.
#
#   bash scripts/same_outputs.sh write BIN DIR            # write DIR/* with provesim BIN
#   bash scripts/same_outputs.sh compare BIN_A BIN_B|DIR  # diff them (exit 1 on any byte)
#
# The run lengths are cut (--set run.partitions=...) so it takes seconds without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
gen() {
  local bin=$1 out=$2
  mkdir -p "$out"
  local short=(--set run.replications=3 --set workload.partitions=300 --set run.warmup=20 --set run.cooldown=0)
  for c in configs/*.yaml tests/data/whatif/*.yaml; do
    local n; n=$(basename "$c" .yaml)
    case "$n" in measure-*) continue ;; esac
    "$bin" simulate "$c" "${short[@]}" --threads 2 --json --spans "$out/$n.spans.jsonl" >"$out/$n.report.json"
    "$bin" estimate "$c" "${short[@]}" --threads 2 --json >"$out/$n.estimate.json"
  done
  "$bin" sweep configs/seed-coarse-mutex.yaml "${short[@]}" --vary system.workers_per_gpu=1..3 \
    --vary system.mutex=call,kernels --jobs 2 -q --csv "$out/sweep.csv" --json "$out/sweep.json"
  "$bin" calibrate "$out/seed-coarse-mutex.spans.jsonl" --model models/seed-field.yaml -o "$out/calibrated.yaml" >"$out/calibrate.txt"
  "$bin" validate configs/seed-coarse-mutex.yaml "${short[@]}" --threads 2 \
    --measured "$out/seed-coarse-mutex.spans.jsonl" >"$out/validate.txt" || true
  "$bin" trace "$out/seed-coarse-mutex.spans.jsonl" -o "$out/trace.json"
  # The outputs that name their input file: the same name whatever OUTDIR is.
  sed -i "s|$out/|OUTDIR/|g" "$out/calibrate.txt" "$out/calibrated.yaml" "$out/validate.txt"
}
usage() { echo "usage: $0 write BIN DIR | $0 compare BIN_A BIN_B|DIR" >&2; exit 2; }
[ $# -eq 3 ] || usage
case "$1" in
write) gen "$2" "$3"; exit 0 ;;
compare) ;;
*) usage ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
a=$tmp/a
gen "$2" "$a"
if [ -d "$3" ]; then b=$3; else b=$tmp/b; gen "$3" "$b"; fi
if diff -r "$a" "$b" >/dev/null; then
  echo "same outputs: $(ls "$a" | wc -l) files byte-identical"
else
  diff -r "$a" "$b" | head -40
  echo "outputs differ" >&2
  exit 1
fi
