#!/usr/bin/env bash
# The fits of docs/data/overlap/run.sh's runs, on any machine, from the repository root:
#   bash docs/data/overlap/fit.sh BIN DIR
# DIR holds runs/ (run.sh's). calibrate fits the model from the one-worker runs with the
# free runs as --overlap, then with the rendezvous runs, each pair's run alone; its lines
# on GPU overlap and CPU contention are printed for each, or its refusal.
set -uo pipefail
bin=${1:?usage: bash $0 BIN DIR} dir=${2:?usage: bash $0 BIN DIR}
r=$dir/runs
for f in "$r"/ovl-*.spans.jsonl.gz "$r"/rv-*.spans.jsonl.gz; do
  name=$(basename "$f" .spans.jsonl.gz)
  echo "== $name"
  "$bin" calibrate "$r/solo-t15.spans.jsonl.gz" "$r/solo-t4.spans.jsonl.gz" --model models/provesim-groth16.yaml \
    --overlap "$f" -o "/tmp/overlap-fit-$name.yaml" 2>&1 | grep -E "^GPU overlap|^CPU contention|provesim calibrate:" || true
done
