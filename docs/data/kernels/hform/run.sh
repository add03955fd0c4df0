#!/usr/bin/env bash
# The call of "The H query in evaluation form" (docs/performance.md): new has the key's H
# bases as the Lagrange basis of the coset 7H at tau (ntt_h: 6 NTTs, no inverse NTT back
# to h's coefficients) and the XYZZ formulas' y coordinates through fp_mulsub_d /
# fp2_mulsub_d (a b - c d, one reduction, three negations in Fp2 instead of four) with
# G2's ZZ3 and ZZZ3 computed early (EC_ZZ_EARLY); h is new with the formulas of old; old
# is the prover before both (d15624e). On a GPU machine, in one call:
#  1. prover-bench's G1 MSMs at 2^22..2^24 and G2 at 2^20..2^22 (median of 5), two rounds
#     alternated: new, old; one run each of G2 2^22 under PSC_MSM_PROFILE=1;
#  2. gpu_check on new: G1 MSMs to 2^22, G2 to 2^14 with the skewed and witness-like
#     scalar sets, and the key generation to 2^14 with a proof made on the GPU;
#  3. `prove --constraints 2^26 --calls 3` old, new, h, new again (old's key cache is
#     version 2, new's and h's version 3: old's file goes before new's setup, since the
#     two do not fit the machine's disk together; call1/ ran out of space there).
# call1/ is the first call, with new's G2 mixed addition computing ZZ3 and ZZZ3 early
# (since taken out); call2/ the second, with the code as committed.
#   OUT=DIR bash docs/data/kernels/hform/run.sh DIR   (DIR: new/, h/, old/ with the libraries)
set -uo pipefail
dir=${1:?directory with new/, h/ and old/}
bin=$dir/old/provesim
. scripts/device_kernels.sh
for r in 1 2; do
  for v in new old; do bench g1-$v-r$r "$dir/$v/provesim" field,msm-g1 22..24 5; done
done
for r in 1 2; do
  for v in new old; do bench g2-$v-r$r "$dir/$v/provesim" msm-g2 20..22 5; done
done
for v in new old; do bench prof-g2-$v "$dir/$v/provesim" msm-g2 22 3 PSC_MSM_PROFILE=1; done
fits 90 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 14 --no-batch
prove26 1 old "$dir/old/provesim"
[ -n "${p26_cache:-}" ] && rm -f "$p26_cache"/*.keys
prove26 2 new "$dir/new/provesim"
[ -x "$dir/h/provesim" ] && prove26 3 h "$dir/h/provesim"
prove26 4 new "$dir/new/provesim"
echo "== done at $(el) s"
