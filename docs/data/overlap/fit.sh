#!/usr/bin/env bash
# The fits of docs/data/overlap/run.sh's runs, on any machine, from the repository root:
#   bash docs/data/overlap/fit.sh BIN DIR
# DIR holds runs/ (run.sh's). calibrate fits the model from the one-worker runs with the
# free runs as --overlap, then with the rendezvous runs, each pair's run alone; its lines
# on GPU overlap and CPU contention are printed for each, or its refusal.
set -uo pipefail
bin=${1:?usage: bash $0 BIN DIR} dir=${2:?usage: bash $0 BIN DIR}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") model=$PWD/models/provesim-groth16.yaml
cd "$dir/runs" || exit 2 # the runs are named as the archive names them
for f in ovl-*.spans.jsonl.gz rv-*.spans.jsonl.gz; do
  name=$(basename "$f" .spans.jsonl.gz)
  echo "== $name"
  "$bin" calibrate solo-t15.spans.jsonl.gz solo-t4.spans.jsonl.gz --model "$model" \
    --overlap "$f" -o "/tmp/overlap-fit-$name.yaml" 2>&1 | grep -E "^GPU overlap|^CPU contention|provesim calibrate:" || true
done
