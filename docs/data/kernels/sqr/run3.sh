#!/usr/bin/env bash
# The third call of "Squares by their own sequence" (docs/performance.md): new2 is the
# prover as committed (the squares, G1's 17-bit window at 2^23 and 2^24, the NTT's scaling
# back in a pass of its own), new the first call's new binary (16 bits at 2^24):
#  1. G1 MSMs at 2^22..2^25 with the default windows (median of 5), two rounds alternated;
#  2. gpu_check on new2: G1 at 2^23 and 2^24 with the default windows against the CPU;
#  3. `prove --constraints 2^24 --calls 3` (the H MSM at 17 bits) and 2^26 on new2.
#   OUT=DIR bash docs/data/kernels/sqr/run3.sh DIR      (DIR: new2/, new/, old/ libraries)
set -uo pipefail
dir=${1:?directory with new2/, new/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  bench g1-new2-r$r "$dir/new2/provesim" msm-g1 22..25 5
  bench g1-new-r$r "$dir/new/provesim" msm-g1 22..25 5
done
fits 120 "gpu_check g1" && check g1 "$dir/new2/gpu_check" --ntt-max 0 --g1-min 23 --g1-max 24 --g2-max 0 \
  --skew-max 0 --sparse-max 0 --keygen-max 0 --no-batch
fits 60 "prove 2^24" && {
  c24=$(mktemp -d "$(device_cache_root)/provesim-keys.XXXXXX")
  timeout 120 "$dir/new2/provesim" prove --backend cuda --constraints 2^24 --calls 3 --json --cache "$c24" \
    --out /tmp/p24-proof > "$OUT/prove24-new2.json" 2> "$OUT/prove24-new2.err"
  echo "prove 2^24: rc $? at $(el) s"; rm -rf "$c24"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("steady", d["steady"], "verified", d["verified"])' \
    "$OUT/prove24-new2.json" 2>&1 | cut -c1-300
}
prove26 1 new2 "$dir/new2/provesim"
echo "== done at $(el) s"
