#!/usr/bin/env bash
# The NTT's radix-4 passes with Fr's product on the FP64 pipe (prover/cuda/psf_fp64.h)
# against the default Montgomery product, one binary (docs/performance.md, "Fr's product
# on the FP64 pipe"):
# 1. gpu_check's NTTs under PSC_NTT_MUL=mixed at 128 registers a thread, the instance the
#    instruction counts favour (a radix-4 group's two products by w2 on the FP64 pipe);
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^24
#    (medians of 7), alternated: montgomery, mixed at 128 registers, mixed at 96, fp64
#    (every product) at 128, montgomery at 128;
# 3. gpu_check's NTTs under fp64 at 128 registers and under mixed at 96.
# Ran on the H200 on 2026-12-05 (docs/data/kernels/next/call/fp64/; gpu_check then ran its
# MSM checks too, until the 150 s limit cut them: --ntt-only came after); outputs in $OUT.
#   OUT=DIR bash docs/data/kernels/fp64/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 150 "gpu_check NTTs under mixed, 128 registers" &&
  PSC_NTT_MUL=mixed PSC_NTT_REGS=128 check mixed128-ntt "$chk" --ntt-only --ntt-max 24
for r in 1 2 3; do
  fits 65 "round $r" || break
  bench mont-r$r "$bin" ntt 20..24 7
  bench mixed128-r$r "$bin" ntt 20..24 7 PSC_NTT_MUL=mixed PSC_NTT_REGS=128
  bench mixed-r$r "$bin" ntt 20..24 7 PSC_NTT_MUL=mixed
  bench fp64128-r$r "$bin" ntt 20..24 7 PSC_NTT_MUL=fp64 PSC_NTT_REGS=128
  bench mont128-r$r "$bin" ntt 20..24 7 PSC_NTT_REGS=128
  echo "  round $r: montgomery $(ntt_medians mont-r$r)| mixed 128 $(ntt_medians mixed128-r$r)| mixed $(ntt_medians mixed-r$r)| fp64 128 $(ntt_medians fp64128-r$r)| montgomery 128 $(ntt_medians mont128-r$r)"
done
fits 150 "gpu_check NTTs under fp64, 128 registers" &&
  PSC_NTT_MUL=fp64 PSC_NTT_REGS=128 check fp64128-ntt "$chk" --ntt-only --ntt-max 24
fits 150 "gpu_check NTTs under mixed, 96 registers" && PSC_NTT_MUL=mixed check mixed-ntt "$chk" --ntt-only --ntt-max 24
echo "== done at $(el) s"
