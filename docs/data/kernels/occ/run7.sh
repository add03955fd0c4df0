#!/usr/bin/env bash
# An NTT experiment (docs/performance.md, "NTT: pre-passes of an even length"): the
# pre-passes' stage counts set by PSC_NTT_SPLIT (a switch of this experiment's build only),
# so that no pass ends with a lone radix-2 stage, against the default split (5, 5, 6 at
# 2^24; 7, 7 at 2^22). On a GPU machine, in one call: prover-bench ntt at 2^22 and 2^24
# (median of 7), the splits alternated in two rounds; gpu_check's NTTs to 2^24 under the
# two alternatives that fit. From the repository root, with .deps/ carried and DIR holding
# split/ (provesim, gpu_check, libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/occ/run7.sh DIR
set -uo pipefail
dir=${1:?directory with split/}
bin=$dir/split/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  bench n22-def-r$r "$bin" ntt 22 7
  for s in 6,8 8,6 4,4,6; do bench n22-$s-r$r "$bin" ntt 22 7 PSC_NTT_SPLIT=$s; done
  bench n24-def-r$r "$bin" ntt 24 7
  for s in 4,6,6 6,4,6 6,6,4 8,8 4,4,4,4; do bench n24-$s-r$r "$bin" ntt 24 7 PSC_NTT_SPLIT=$s; done
done
for s in 4,6,6 8,8; do
  fits 60 "gpu_check ntt $s" || continue
  export PSC_NTT_SPLIT=$s
  check ntt-$s "$dir/split/gpu_check" --ntt-max 24 --g1-min 12 --g1-max 12 --g2-max 8 --skew-max 0 --sparse-max 0 --keygen-max 0 --no-batch
  unset PSC_NTT_SPLIT
done
echo "== done at $(el) s"
