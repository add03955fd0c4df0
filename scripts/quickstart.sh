#!/usr/bin/env bash
# Quick start: install what is missing, configure, build, and run the built-in example:
# the case from the field (two workers, one GPU, a mutex over the whole prove call)
# beside the same scenario with the lock narrowed to the kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/cuda-flag.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPROVESIM_CUDA="$PROVESIM_CUDA" >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
for scope in call kernels; do
  echo "=== configs/seed-coarse-mutex.yaml with system.mutex=$scope"
  ./build/provesim simulate configs/seed-coarse-mutex.yaml --set system.mutex=$scope
  echo
done
