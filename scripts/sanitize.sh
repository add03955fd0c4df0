#!/usr/bin/env bash
# Builds provesim with AddressSanitizer and UndefinedBehaviorSanitizer (undefined behaviour
# stops the program, like a crash: -fno-sanitize-recover) and runs the test suites under
# them. CI runs it after the README's test command. The slowest suite (test_groth16, about
# 2 minutes under ASan) and the ones that only check scripts, docs and committed data are
# left out (validation: the H200 sessions' models and tables are current, 2 minutes under
# ASan; validation_data: a session through validation.py --data, 3 to 4 minutes under ASan
# against its 5-minute limit, over it on a loaded machine; validation_misses: the
# sessions' tables, 1.5 to 2 minutes under ASan; the calibrate, simulate and validate code
# they run is in test_calib, test_pipe and test_validate), and so are the test cases tagged
# "slow" (below).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROVESIM_CUDA=OFF -DPROVESIM_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Test cases tagged "slow" repeat, for their statistics, code that faster cases in the same
# suite already run (test_infer's recovery over ten seeds: 2 minutes under ASan)
export CK_EXCLUDE_TAGS=slow
cd build-asan && ctest --output-on-failure -j"$(nproc)" -E 'notebooks|cuda_auto|install|docs|measure_quick|test_groth16|^validation$|^validation_data$|^validation_misses$'
