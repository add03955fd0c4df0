#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (the scenario loader, the spans reader, the
# proof reader, the trace writer) with clang (ASan and UBSan on) and runs each
# for SECONDS (default 20), as many at once as there are cores, from a seed corpus: the hostile inputs of tests/hostile and the
# shipped configs, models and proofs. CI runs it; a longer run is the same command with a
# larger SECONDS. Any crash, leak, sanitizer report or abort fails it (exit 1), and the
# input that did it is left in build-fuzz/ as crash-*, leak-* or timeout-*.
#   bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
if ! command -v clang >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
  else
    echo "fuzz.sh: needs clang (apt-get install clang)" >&2
    exit 1
  fi
fi
out=build-fuzz
mkdir -p "$out"
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=gnu11 -Wno-macro-redefined
       -Icommon -Icore -Iprover -Isim -Itests/fuzz $(pkg-config --cflags yaml-0.1))
libs=(-lcjson -lz -lgsl -lgslcblas -lm -lpthread $(pkg-config --libs yaml-0.1))
common=(common/*.c)
core=(core/*.c)
prover=(prover/*.c)
build() { # name sources...
  local name=$1; shift
  [ "$out/$name" -nt scripts/fuzz.sh ] && [ -z "$(find common core prover sim/trace.c tests/fuzz -newer "$out/$name" -name '*.[ch]' -o -newer "$out/$name" -name '*.inc' | head -1)" ] && return
  clang "${flags[@]}" -o "$out/$name" "$@" "${libs[@]}"
}
build fuzz_spans tests/fuzz/fuzz_spans.c "${common[@]}"
build fuzz_scn tests/fuzz/fuzz_scn.c "${common[@]}" "${core[@]}"
build fuzz_proof tests/fuzz/fuzz_proof.c "${common[@]}" "${prover[@]}"
build fuzz_trace tests/fuzz/fuzz_trace.c "${common[@]}" sim/trace.c

seeds() { # name dirs...
  local d=$out/seeds-$1; shift
  rm -rf "$d"; mkdir -p "$d"
  for s in "$@"; do [ -e "$s" ] && find "$s" -maxdepth 2 -type f -size -1000k -exec cp -t "$d" {} + 2>/dev/null || true; done
  echo "$d"
}
sp=$(seeds spans tests/hostile/spans tests/data/scn/spans.jsonl)
sc=$(seeds scn tests/hostile/scenario tests/hostile/model configs models tests/data/scn)
pr=$out/seeds-proof; rm -rf "$pr"; mkdir -p "$pr"
for d in tests/hostile/support/proof tests/hostile/proof/*/; do
  [ -f "$d/proof.json" ] || continue
  n=$(echo "$d" | tr '/' '_')
  { cat "$d/proof.json"; printf '\0'; cat "$d/vk.json" 2>/dev/null || true; printf '\0'; cat "$d/public.json" 2>/dev/null || true; } > "$pr/$n"
done
rc=0
# The targets' scratch files go to a folder of this run's own, removed at the end, so that
# another fuzz run on the machine keeps its own.
PROVESIM_FUZZ_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pfz.XXXXXX")
export PROVESIM_FUZZ_TMP
trap 'rm -rf "$PROVESIM_FUZZ_TMP"' EXIT
# Each target runs on one core (libFuzzer is single-threaded), so as many run at once as the
# machine has cores: the same executions per target in less wall time.
jobs=$(nproc); [ "$jobs" -ge 1 ] || jobs=1
run_one() { # name seed-dir
  local name=$1 seed=$2 work=$out/corpus-${1#fuzz_} maxlen=65536
  mkdir -p "$work"
  # The loader's inputs stay under 4 KiB: libyaml parses deep nesting in quadratic time
  # before provesim's depth check sees it (a known limit, not a finding to fail CI on).
  [ "$name" = fuzz_scn ] && maxlen=4096
  (cd "$out" && ASAN_OPTIONS=detect_leaks=1 ./"$name" -max_total_time="$secs" -max_len=$maxlen -timeout=30 \
      -rss_limit_mb=2048 -print_final_stats=1 "../$work" "../$seed" 2>"../$out/$name.log")
}
heads=() pids=() logs=()
finish() { # waits for the oldest target still running and prints its lines
  wait "${pids[0]}" || rc=1
  echo "${heads[0]}"
  grep -E "^stat::number_of_executed_units|^Done|ERROR|SUMMARY" "${logs[0]}" | head -5
  heads=("${heads[@]:1}") pids=("${pids[@]:1}") logs=("${logs[@]:1}")
}
for t in spans:$sp scn:$sc proof:$pr trace:$sp; do
  name=fuzz_${t%%:*} seed=${t#*:}
  run_one "$name" "$seed" &
  heads+=("== $name, $secs s, seeds $(ls "$seed" | wc -l)") pids+=($!) logs+=("$out/$name.log")
  [ ${#pids[@]} -ge "$jobs" ] && finish
done
while [ ${#pids[@]} -gt 0 ]; do finish; done
exit $rc
