#!/usr/bin/env bash
# The grouped sort's new defaults as committed (docs/performance.md, "The second step in
# bigger blocks"): the second step a block of 512 threads at a time, groups of 2^12 keys,
# host scalars in 16 pieces. "old" is the same binary under PSC_MSM_PLACE=point
# PSC_MSM_PIECES=8 (the defaults before). On a GPU machine, in one call (outputs in call/):
#  1. gpu_check with the defaults: precomputed bases to 2^22; the MSM set; skewed scalars
#     (2^20, 2^21) with the grouped sort forced;
#  2. prover-bench msm-g1 (median of 5), new and old alternated: 2^24 precomputed for
#     window 22 (three rounds), 2^20 for window 16 and 2^22 for window 20 (two rounds),
#     plain bases 2^20..2^24 (one round);
#  3. prove 2^22 --precompute 20 and 22 --calls 3, new and old: GPU time per steady call,
#     every proof verified.
# From the repository root, with .deps/ carried and DIR holding new/ (provesim, gpu_check,
# libcudart, libcupti):
#   OUT=DIR bash docs/data/kernels/agg3/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
chk=$dir/new/gpu_check
. scripts/device_kernels.sh
old=(PSC_MSM_PLACE=point PSC_MSM_PIECES=8)
med() { awk '/^msm-g1/ {printf "%s ", $4}' "$OUT/bench-$1.txt" 2>/dev/null; }
fits 60 "gpu_check pre" && check pre "$chk" --precomp-max 22
fits 40 "gpu_check msm" && check msm "$chk" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
fits 90 "gpu_check skew" && (export PSC_MSM_SORT=grouped; check skew "$chk" --skew-min 20 --skew-max 21 --skew-only)
for r in 1 2 3; do
  fits 22 "round $r" || break
  bench pre22-new-r$r "$bin" msm-g1 24 5 --precomp 22; echo "  pre22 new r$r: $(med pre22-new-r$r)"
  bench pre22-old-r$r "$bin" msm-g1 24 5 --precomp 22 "${old[@]}"; echo "  pre22 old r$r: $(med pre22-old-r$r)"
done
for r in 1 2; do
  fits 30 "small round $r" || break
  for v in new old; do
    e=(); [ $v = old ] && e=("${old[@]}")
    bench pre16-$v-r$r "$bin" msm-g1 20 5 --precomp 16 "${e[@]}"; echo "  pre16 2^20 $v r$r: $(med pre16-$v-r$r)"
    bench pre20-$v-r$r "$bin" msm-g1 22 5 --precomp 20 "${e[@]}"; echo "  pre20 2^22 $v r$r: $(med pre20-$v-r$r)"
  done
done
for v in new old; do
  e=(); [ $v = old ] && e=("${old[@]}")
  fits 30 "plain $v" && { bench plain-$v "$bin" msm-g1 20..24 5 "${e[@]}"; echo "  plain $v: $(med plain-$v)"; }
done
cache=$(mktemp -d /tmp/keys22.XXXXXX)
for w in 20 22; do
  for v in new old; do
    e=(); [ $v = old ] && e=("${old[@]}")
    fits 40 "prove 2^22 w$w $v" || continue
    env "${e[@]}" timeout 120 "$bin" prove --backend cuda --constraints 2^22 --calls 3 --precompute $w --json --cache "$cache" \
      --out /tmp/p22 > "$OUT/prove22-w$w-$v.json" 2> "$OUT/prove22-w$w-$v.err"
    echo "prove 2^22 w$w $v: rc $? at $(el) s"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("  first", d["first_call"], "steady", d["steady"], "verified", d["verified"])' \
      "$OUT/prove22-w$w-$v.json" 2>&1 | cut -c1-400
  done
done
echo "== done at $(el) s"
