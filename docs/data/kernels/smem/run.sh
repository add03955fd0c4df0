#!/usr/bin/env bash
# The radix-4 pass with one tile's shared memory a block where each block does one tile
# (the default PSC_NTT_TILES=1): 8 KB a block of 2^8 elements instead of 16 KB, the second
# room never used, so that the L1 cache keeps 80 KB more a multiprocessor at 10 blocks.
# Two binaries, in one device call (DIR/new: before, DIR/new2: after):
# 1. gpu_check's NTTs (every size to 2^24, both directions, cosets, orders) with new2, and
#    a Groth16 partition of 2^22 constraints, prove --calls 3 (every proof verified);
# 2. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^26
#    (medians of 7), alternated: new, new2, new2 with PSC_NTT_CARVEOUT=40 (about the 100 KB
#    configuration that ten blocks of 8 KB need) and with 100 (the most shared memory, the
#    least L1).
# Outputs packed as $OUT/smem.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/smem/run.sh DIR     (DIR holds new/ and new2/)
set -uo pipefail
dir=${1:?directory with new/ and new2/}
bin=$dir/new2/provesim
old=$dir/new/provesim
chk=$dir/new2/gpu_check
pack=smem
BUDGET=${BUDGET:-150}
. scripts/device_kernels.sh
fits 35 "gpu_check NTTs, one room" && check room1-ntt "$chk" --ntt-only --ntt-max 24
fits 20 "prove 2^22" && prove22 "$bin"
for r in 1 2 3; do
  fits 15 "round $r" || break
  bench old-r$r "$old" ntt 20..26 7
  bench new-r$r "$bin" ntt 20..26 7
  bench c40-r$r "$bin" ntt 20..26 7 PSC_NTT_CARVEOUT=40
  bench c100-r$r "$bin" ntt 20..26 7 PSC_NTT_CARVEOUT=100
  echo "  round $r: two rooms $(ntt_medians old-r$r)| one room $(ntt_medians new-r$r)| c40 $(ntt_medians c40-r$r)| c100 $(ntt_medians c100-r$r)"
done
echo "== smem/run.sh done at $(el) s"
pack_done
