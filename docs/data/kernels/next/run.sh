#!/usr/bin/env bash
# What is left to run on the GPU for issue #12 and the checks of 2026-12-04, in one device
# call after the validation session's (docs/validation.md, "The twenty-fourth session's
# protocol"), with the binary staged in DIR/new (provesim, gpu_check,
# libprovesim_record.so and CUDA's libraries beside them):
# 1. the NTT with Fr's product on the FP64 pipe, checked and timed against the default
#    (docs/data/kernels/fp64/run.sh, within 360 s);
# 2. record's clock line: `provesim record` around `prover-bench --only ntt` at 2^20, as
#    a table and as --json (gpus[].clock);
# 3. prove's check of the tuning variables (docs/data/kernels/tune/run.sh, PROVE_ONLY=1);
# 4. the Karatsuba instances timed and checked (docs/data/kernels/kara/run.sh), within
#    what is left of 540 s.
# Outputs in $OUT: log.txt, and a folder a part.
#   OUT=DIR bash docs/data/kernels/next/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
root=$OUT
mkdir -p "$root/fp64" "$root/tune" "$root/record" "$root/kara"
OUT=$root/fp64 BUDGET=360 bash docs/data/kernels/fp64/run.sh "$dir"
for form in table json; do
  args=(); [ $form = json ] && args=(--json)
  PROVESIM_RECORD_LIB=$dir/new/libprovesim_record.so timeout 120 "$bin" record "${args[@]}" \
    -o "$root/record/ntt-$form.jsonl" -- "$bin" prover-bench --backend cuda --sizes 20 --only ntt --reps 3 \
    > "$root/record/$form.out" 2> "$root/record/$form.err"
  echo "record ($form): exit $?, $(grep -c . "$root/record/$form.out") lines; $(grep -i -m1 clock "$root/record/$form.out" | cut -c1-160)"
done
fits 60 "prove's tuning variables" && OUT=$root/tune PROVE_ONLY=1 bash docs/data/kernels/tune/run.sh "$dir"
OUT=$root/kara BUDGET=$((540 - $(el))) bash docs/data/kernels/kara/run.sh "$dir"
echo "== next/run.sh done at $(el) s"
