#!/usr/bin/env bash
# Key generation on the GPU, checked and timed on the GPU machine (the lead runs it on the
# H200; about 6 minutes there): gpu_check's key generation checks (fixed-base products and
# whole Groth16 keys made on the GPU against the CPUs', byte for byte, at 2^12 and 2^16),
# then `provesim prove --backend cuda` at each size twice with --cache in a temporary
# folder: the setup on the GPU and the cache written, then the cache read; a table of the
# stage times at the end. Logs go under $OUT. Run from the repository root, with .deps/
# carried for "build" (as for device_run.sh), or with DEVBIN (default .devbin) holding
# provesim and gpu_check built here for "prebuilt".
#   prover/cuda/keygen_check.sh build|prebuilt [SIZES, default "20 22 24 26"]
set -uo pipefail
how=${1:-build}; sizes=${2:-20 22 24 26}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
if [ "$how" = build ]; then
  mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
  # cJSON's CMake package names its files by absolute paths under /usr.
  sed -i 's#"/usr#"/tmp/deps/usr#g' /tmp/deps/usr/lib/x86_64-linux-gnu/cmake/cJSON/*.cmake
  export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PKG_CONFIG_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu/pkgconfig:/tmp/deps/usr/share/pkgconfig
  export PKG_CONFIG_SYSROOT_DIR=/tmp/deps
  cmake -S . -B build-dev -DCMAKE_CUDA_ARCHITECTURES=90 -DPROVESIM_TESTS=ON \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
  cmake --build build-dev -j16 --target provesim gpu_check >> "$OUT/build.log" 2>&1 ||
    { tail -30 "$OUT/build.log"; exit 1; }
  bin=build-dev/provesim; chk=build-dev/tests/gpu_check
else
  d=${DEVBIN:-.devbin}; bin=$d/provesim; chk=$d/gpu_check
  [ -d .deps ] && mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done &&
    export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
rc=0
timeout 200 "$chk" --keygen-only --keygen-max 16 2>&1 | tee "$OUT/keygen_check.txt" || rc=1

# One field of a stage line: the seconds before " s" at the end of the first line matching $2.
secs() { grep -m1 "$2" "$1" | sed -E 's/.* ([0-9.]+) s(,.*)?$/\1/'; }
tmp=$(mktemp -d /tmp/keygen_check.XXXXXX)
printf '%-6s %9s %9s %9s %10s %10s %11s %11s %10s %10s\n' size qap_s g1_s g2_s write_s load_s \
  first_call_s steady_s gpu_call_s peak_gpu > "$OUT/table.txt"
for k in $sizes; do
  cache=$tmp/cache; rm -rf "$cache"
  for pass in setup load; do
    timeout 420 "$bin" prove --backend cuda --constraints "2^$k" --calls 3 --cache "$cache" --out "$tmp/p" \
      > "$OUT/prove_${k}_$pass.txt" 2> "$OUT/prove_${k}_$pass.err" || { rc=1; tail -3 "$OUT/prove_${k}_$pass.err"; }
    cat "$OUT/prove_${k}_$pass.err" "$OUT/prove_${k}_$pass.txt"
  done
  s=$OUT/prove_${k}_setup.err; l=$OUT/prove_${k}_load.err; t=$OUT/prove_${k}_load.txt
  first=$(grep -m1 -o 'first call [0-9.]* s' "$t" | grep -o '[0-9.]*')
  steady=$(grep -m1 -o 'median [0-9.]* s' "$t" | grep -o '[0-9.]*')
  gcall=$(grep -m1 -o 'steady median [0-9.]* s' "$t" | grep -o '[0-9.]*')
  peak=$(grep -m1 -o 'GPU [0-9.]* [GM]iB' "$t" | sed 's/GPU //; s/ //')
  printf '2^%-4s %9s %9s %9s %10s %10s %11s %11s %10s %10s\n' "$k" "$(secs "$s" 'setup: toxic')" \
    "$(secs "$s" 'setup: G1')" "$(secs "$s" 'setup: G2')" "$(grep -m1 'key cache: wrote' "$s" | sed -E 's/.*\) ([0-9.]+) s,.*/\1/')" \
    "$(grep -m1 'key cache: loaded' "$l" | sed -E 's/.*\) ([0-9.]+) s,.*/\1/')" "$first" "$steady" "$gcall" "$peak" >> "$OUT/table.txt"
  rm -rf "$cache"
done
rm -rf "$tmp"
echo; cat "$OUT/table.txt"
exit $rc
