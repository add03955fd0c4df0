# Sourced by the kernel device scripts (docs/data/kernels/*/run*.sh) after they set $dir
# (the directory holding the binaries) and $bin (the binary whose directory carries
# libcudart and libcupti): output under $OUT (log.txt, gpu.txt), the carried libraries,
# the clock and the time budget, and the steps every such call runs. It stops the call
# (exit 1, saying why) when $bin cannot start, as when .deps was not carried.
#   el                        seconds since the script started
#   fits SECONDS WHAT         true when a step of about SECONDS stays within $BUDGET;
#                             else says it is skipped
#   bench NAME BIN WHAT SIZES REPS [VAR=VALUE | OPTION]...
#                             prover-bench --only WHAT --sizes SIZES to bench-NAME.txt,
#                             the VAR=VALUE in its environment, other words its options
#   check NAME GPU_CHECK OPTION...
#                             gpu_check --quick OPTION... to check-NAME.txt (150 s at
#                             most), then its exit status and failures
#   ntt_medians NAME          "SIZE:MEDIAN " for each forward NTT row of bench-NAME.txt
#   prove26 I NAME BIN [ENV...]
#                             prove --constraints 2^26 --calls 3 --json to prove-I-NAME.json
#                             (keys in a disk cache shared by the calls), then its first
#                             and steady GPU times and the proofs verified
#   prove22 BIN               prove --constraints 2^22 --calls 3 --json to prove22.json (keys
#                             in a cache of its own, removed after), then the same summary
#   proof_summary FILE        the first and steady calls and the proofs verified of a
#                             prove --json output
#   pack_done                 with $pack set before sourcing (a packed call: the outputs go
#                             to a folder $pack in /tmp, and only the archive and the log
#                             come back): $OUT/$pack.tar.xz of that folder and $OUT/log.txt
OUT=${OUT:-/tmp/out}
if [ -n "${pack:-}" ]; then
  pack_root=$OUT
  OUT=$(mktemp -d "/tmp/$pack.XXXXXX")/$pack
fi
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
. scripts/device_env.sh
t0=$SECONDS
el() { echo $((SECONDS - t0)); }
budget=${BUDGET:-420}
fits() { [ $(( $(el) + $1 )) -le "$budget" ] || { echo "SKIPPED $2: $(el) s + about $1 s would pass $budget s"; return 1; }; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
echo "commit: ${COMMIT:-unknown}; cores $(nproc); $(date -u +%FT%TZ)"
# A binary that cannot start (one carried without .deps, whose host libraries it needs)
# would fail every step of the call: stop at once and say why.
if ! bin_err=$("$bin" --version 2>&1 >/dev/null); then
  echo "cannot run $bin: ${bin_err:-no message}; carry .deps (the host libraries) beside the binaries"
  exit 1
fi
bench() {
  local name=$1 b=$2 what=$3 sizes=$4 reps=$5 a envs=() opts=(); shift 5
  for a in "$@"; do [[ $a == [A-Z]*=* ]] && envs+=("$a") || opts+=("$a"); done
  env "${envs[@]}" timeout 150 "$b" prover-bench --backend cuda --sizes "$sizes" --only "$what" --reps "$reps" \
    "${opts[@]}" > "$OUT/bench-$name.txt" 2> "$OUT/bench-$name.err" ||
    echo "bench $name failed: $(tail -1 "$OUT/bench-$name.err")"
  echo "bench $name at $(el) s"
}
check() {
  local name=$1 b=$2; shift 2
  timeout 150 "$b" --quick "$@" > "$OUT/check-$name.txt" 2>&1
  echo "gpu_check $name: exit $?, $(grep -c FAIL "$OUT/check-$name.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-$name.txt") at $(el) s"
}
ntt_medians() { awk '/^ntt /{printf "%s:%s ", $2, $4}' "$OUT/bench-$1.txt" 2>/dev/null; }
prove26() {
  local i=$1 name=$2 b=$3; shift 3
  [ -n "${p26_cache:-}" ] || { p26_cache=$(mktemp -d "$(device_cache_root)/provesim-keys.XXXXXX"); trap 'rm -rf "$p26_cache"' EXIT; }
  fits $([ "$i" = 1 ] && echo 75 || echo 40) "prove $name ($i)" || return 0
  echo "== prove 2^26 --calls 3, $name, at $(el) s"
  env "$@" timeout 150 "$b" prove --backend cuda --constraints 2^26 --calls 3 --json --cache "$p26_cache" \
    --out /tmp/p26-proof > "$OUT/prove-$i-$name.json" 2> "$OUT/prove-$i-$name.err"
  echo "rc $?"
  proof_summary "$OUT/prove-$i-$name.json"
}
proof_summary() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' \
    "$1" 2>&1 | cut -c1-400
}
prove22() {
  timeout 60 "$1" prove --backend cuda --constraints 2^22 --calls 3 --json --cache "$OUT/k22" \
    --out /tmp/p22-proof > "$OUT/prove22.json" 2> "$OUT/prove22.err"
  echo "prove 2^22: rc $?"
  rm -rf "$OUT/k22"
  proof_summary "$OUT/prove22.json"
}
pack_done() {
  cp "$OUT/log.txt" "$pack_root/log.txt"
  tar -C "$(dirname "$OUT")" -cJf "$pack_root/$pack.tar.xz" "$pack" && ls -l "$pack_root/$pack.tar.xz"
}
