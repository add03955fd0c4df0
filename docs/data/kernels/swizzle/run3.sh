#!/usr/bin/env bash
# The third call of "NTT and MSM: 16-byte loads" (docs/performance.md): the prover as
# committed at 1543c89 (the 16-byte moves alone, the variants of run.sh and run2.sh
# removed), against old, on a GPU machine, in one call:
#  1. prover-bench's field rates and NTT rows 2^16..2^27, two rounds alternated: new, old
#     (under PSC_NTT_TILES=1, dd4ab86's kernels);
#  2. G1 MSMs at 2^22..2^24 plain (median of 5), new and old; then on new only, the NTT
#     under other pass layouts (PSC_NTT_LOG_BLOCK / PSC_NTT_MAX_K 9/7, 10/8, 8/8, 9/9) and
#     two tiles a block, and G1 2^24 at windows 14..18;
#  3. gpu_check on new: every NTT to 2^26 (NTTs only), then G1 MSMs to 2^22 and G2 to
#     2^14 with the skewed and witness-like scalar sets;
#  4. `prove --constraints 2^26 --calls 3` new, old (keys made on the GPU into a disk cache
#     by the first; each proof verified).
# A step that would pass BUDGET seconds (default 420) is skipped and said so. From the
# repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check) and old/
# (provesim, libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/swizzle/run3.sh DIR
set -uo pipefail
dir=${1:?directory with new/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  bench new-r$r "$dir/new/provesim" field,ntt 16..27 7
  bench old-r$r "$dir/old/provesim" field,ntt 16..27 7 PSC_NTT_TILES=1
done
bench msm-new "$dir/new/provesim" msm-g1 22..24 5
bench msm-old "$dir/old/provesim" msm-g1 22..24 5
# With the 16-byte moves, do other pass layouts or G1 windows win now? (new only)
for lay in "9 7" "10 8" "8 8" "9 9"; do
  set -- $lay
  bench "layout-$1-$2" "$dir/new/provesim" ntt 18..27 7 PSC_NTT_LOG_BLOCK=$1 PSC_NTT_MAX_K=$2
done
bench tiles2 "$dir/new/provesim" ntt 18..27 7 PSC_NTT_TILES=2
bench msm-windows "$dir/new/provesim" msm-g1 24 3 --windows 14..18
check() { # NAME OPTIONS...
  local name=$1; shift
  timeout 150 "$dir/new/gpu_check" --quick "$@" > "$OUT/check-$name.txt" 2>&1
  echo "gpu_check $name: exit $?, $(grep -c FAIL "$OUT/check-$name.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-$name.txt") at $(el) s"
}
fits 120 "gpu_check ntt" && check ntt --ntt-max 26 --g1-max 0 --g2-max 0 --skew-max 0 --sparse-max 0 --keygen-max 0 --no-batch
fits 60 "gpu_check msm" && check msm --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
prove26 1 new "$dir/new/provesim"
prove26 2 old "$dir/old/provesim" PSC_NTT_TILES=1
echo "== done at $(el) s"
