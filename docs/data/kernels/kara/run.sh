#!/usr/bin/env bash
# The NTT's radix-4 passes with Karatsuba's product (PSC_NTT_MUL=karatsuba) against the
# default Montgomery product, each at the default 96 registers a thread and at 128
# (PSC_NTT_REGS=128: 8 blocks a multiprocessor, no spills), one binary: prover-bench's
# forward, coset and inverse NTTs from 2^20 to 2^24 (medians of 7), three rounds of the
# four alternated; then gpu_check's NTTs under karatsuba at each register budget. Ran on
# the H200 on 2026-12-05 (docs/data/kernels/next/call/kara/, before gpu_check's --ntt-only;
# docs/performance.md, "Fr's product on the FP64 pipe"); outputs in $OUT.
#   OUT=DIR bash docs/data/kernels/kara/run.sh DIR     (DIR holds new/provesim, new/gpu_check)
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
for r in 1 2 3; do
  fits 50 "round $r" || break
  bench mont-r$r "$bin" ntt 20..24 7
  bench kara-r$r "$bin" ntt 20..24 7 PSC_NTT_MUL=karatsuba
  bench mont128-r$r "$bin" ntt 20..24 7 PSC_NTT_REGS=128
  bench kara128-r$r "$bin" ntt 20..24 7 PSC_NTT_MUL=karatsuba PSC_NTT_REGS=128
  echo "  round $r: montgomery $(ntt_medians mont-r$r)| karatsuba $(ntt_medians kara-r$r)| montgomery 128 $(ntt_medians mont128-r$r)| karatsuba 128 $(ntt_medians kara128-r$r)"
done
fits 150 "gpu_check NTTs under karatsuba" && PSC_NTT_MUL=karatsuba check kara-ntt "$chk" --ntt-only --ntt-max 24
fits 150 "gpu_check NTTs under karatsuba, 128 registers" &&
  PSC_NTT_MUL=karatsuba PSC_NTT_REGS=128 check kara128-ntt "$chk" --ntt-only --ntt-max 24
echo "== done at $(el) s"
