#!/usr/bin/env bash
# Checks PROVESIM_CUDA=AUTO (the default): configuring in a scratch folder turns the CUDA
# backend on exactly when nvcc is found and a GPU answers `nvidia-smi -L`, and on when
# CMAKE_CUDA_ARCHITECTURES is given with nvcc found. Configure only: nothing is compiled.
#   bash scripts/check_cuda_auto.sh [SOURCE_DIR]
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
have_nvcc=0; command -v nvcc >/dev/null 2>&1 && have_nvcc=1
have_gpu=0; nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
line() { grep -o 'provesim: CUDA backend [A-Z]*' "$1" | awk '{print $4}'; }
cmake -S "$src" -B "$tmp/a" -DPROVESIM_TESTS=OFF >"$tmp/a.log" 2>&1 || { cat "$tmp/a.log"; exit 1; }
want=OFF; [ $have_nvcc = 1 ] && [ $have_gpu = 1 ] && want=ON
got=$(line "$tmp/a.log")
[ "$got" = "$want" ] || { echo "AUTO without CMAKE_CUDA_ARCHITECTURES: CUDA $got, expected $want (nvcc: $have_nvcc, GPU: $have_gpu)"; exit 1; }
echo "AUTO: CUDA $got (nvcc: $have_nvcc, GPU: $have_gpu)"
if [ $have_nvcc = 1 ]; then
  cmake -S "$src" -B "$tmp/b" -DPROVESIM_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 >"$tmp/b.log" 2>&1 || { cat "$tmp/b.log"; exit 1; }
  got=$(line "$tmp/b.log")
  [ "$got" = ON ] || { echo "AUTO with CMAKE_CUDA_ARCHITECTURES=90: CUDA $got, expected ON"; exit 1; }
  echo "AUTO with CMAKE_CUDA_ARCHITECTURES=90: CUDA ON"
fi
