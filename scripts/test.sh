#!/usr/bin/env bash
# Builds provesim and runs every test suite (Check suites and end-to-end CLI tests) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/cuda-flag.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPROVESIM_CUDA="$PROVESIM_CUDA" -DPROVESIM_MPI="${PROVESIM_MPI:-OFF}" >/dev/null
cmake --build build -j"$(nproc)"
cd build && ctest --output-on-failure -j"$(nproc)"
