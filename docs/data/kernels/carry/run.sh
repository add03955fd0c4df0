#!/usr/bin/env bash
# Montgomery products with fewer instructions (prover/cuda/psf_mont.h): Fr's reduction step
# takes -m's low word as the sum it already has (m = -(p0 + q0) for r, so -m is that sum)
# instead of negating m, and every product row of Fr and Fp takes the carry of the limb it
# dropped as an add-with-carry of that limb and W - 1, instead of a compare, a select and
# an addition. Two binaries, in one device call (DIR/new: before, DIR/new2: after):
# 1. three rounds of prover-bench's forward, coset and inverse NTTs from 2^20 to 2^26
#    (medians of 7), alternated: new, new2;
# 2. three rounds of prover-bench's G1 MSMs from 2^22 to 2^24 (medians of 3), alternated;
# 3. a Groth16 partition of 2^22 constraints with new2, prove --calls 3 (every proof verified);
# 4. gpu_check --quick with new2, the whole suite (NTTs, key generation, G1 and G2 MSMs:
#    both fields' products changed).
# Outputs packed as $OUT/carry.tar.xz (and $OUT/log.txt).
#   OUT=DIR bash docs/data/kernels/carry/run.sh DIR     (DIR holds new/ and new2/)
set -uo pipefail
dir=${1:?directory with new/ and new2/}
bin=$dir/new2/provesim
old=$dir/new/provesim
chk=$dir/new2/gpu_check
pack=carry
BUDGET=${BUDGET:-330}
. scripts/device_kernels.sh
for r in 1 2 3; do
  fits 10 "NTT round $r" || break
  bench old-r$r "$old" ntt 20..26 7
  bench new-r$r "$bin" ntt 20..26 7
  echo "  round $r: before $(ntt_medians old-r$r)| after $(ntt_medians new-r$r)"
done
for r in 1 2 3; do
  fits 20 "MSM round $r" || break
  bench mold-r$r "$old" msm-g1 22..24 3
  bench mnew-r$r "$bin" msm-g1 22..24 3
  echo "  MSM round $r: before $(awk '/^msm-g1 /{printf "%s:%s ", $2, $4}' "$OUT/bench-mold-r$r.txt")| after $(awk '/^msm-g1 /{printf "%s:%s ", $2, $4}' "$OUT/bench-mnew-r$r.txt")"
done
fits 20 "prove 2^22" && prove22 "$bin"
if fits 170 "gpu_check --quick"; then
  timeout 215 "$chk" --quick > "$OUT/check-quick.txt" 2>&1
  echo "gpu_check --quick: exit $?, $(grep -c FAIL "$OUT/check-quick.txt") FAIL of $(grep -c -E ' (ok|FAIL) ' "$OUT/check-quick.txt") at $(el) s"
fi
echo "== carry/run.sh done at $(el) s"
pack_done
