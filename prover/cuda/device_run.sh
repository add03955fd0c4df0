#!/usr/bin/env bash
# Builds (or takes prebuilt binaries), checks and times the CUDA backend on the GPU
# machine, writing logs under $OUT. Run from the repository root there, with .deps/
# carried (shared/device/fetch-deps.sh fills it) and, for "prebuilt", .devbin/ holding
# provesim and gpu_check built here (same glibc or older).
#   prover/cuda/device_run.sh build|prebuilt [check|bench|all] [extra prover-bench args]
set -uo pipefail
how=${1:-build}; what=${2:-all}; shift 2 || true
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,power.draw --format=csv | tee "$OUT/gpu.txt"
if [ "$how" = build ]; then
  export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig:/tmp/deps/usr/share/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=/tmp/deps
  cmake -S . -B build-dev -DCMAKE_CUDA_ARCHITECTURES=90 -DPROVESIM_TESTS=ON \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
  cmake --build build-dev -j16 --target provesim gpu_check >> "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  bin=build-dev/provesim; chk=build-dev/tests/gpu_check
else
  bin=.devbin/provesim; chk=.devbin/gpu_check
fi
rc=0
if [ "$what" = check ] || [ "$what" = all ]; then
  timeout 300 "$chk" ${GPU_CHECK_ARGS:-} 2>&1 | tee "$OUT/gpu_check.txt" || rc=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout ${BENCH_TIMEOUT:-400} "$bin" prover-bench --backend cuda "$@" 2> "$OUT/bench.err" | tee "$OUT/bench.txt" || rc=1
  tail -5 "$OUT/bench.err"
fi
exit $rc
