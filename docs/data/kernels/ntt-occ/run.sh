#!/usr/bin/env bash
# NTT blocks a multiprocessor (not kept: docs/performance.md, "Tried after the sort in two
# steps"): a build of per-sm.patch on 4cc976a, with PSC_NTT_PER_SM (the radix-4 pass's dynamic shared memory padded so that at most that
# many blocks fit a multiprocessor; unset, the build is 4cc976a's). At 2^20 the 4,096
# tiles of a pass make 3.1 rounds of the 1,320 blocks the H200 holds at once (10 a
# multiprocessor), so the last round keeps a tenth of the GPU busy. On a GPU machine, in
# one call:
#  1. gpu_check --quick --ntt-max 24 (NTTs only) under PSC_NTT_PER_SM=8;
#  2. prover-bench ntt 2^18..2^26 (median of 7) under the default and PSC_NTT_PER_SM 9, 8,
#     7 and 6, alternated in three rounds.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/ntt-occ/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
fits 60 "gpu_check ntt" && (export PSC_NTT_PER_SM=8; check ntt8 "$chk" --ntt-max 24 --g1-max 0 --g2-max 0 --keygen-max 0 --no-batch)
for r in 1 2 3; do
  fits 60 "round $r" || break
  bench ntt-default-r$r "$bin" ntt 18..26 7
  for p in 9 8 7 6; do bench ntt-p$p-r$r "$bin" ntt 18..26 7 PSC_NTT_PER_SM=$p; done
done
echo "== done at $(el) s"
