#!/usr/bin/env bash
# The call of "L over every variable" (docs/performance.md): new uploads L's bases with a
# head of npub + 1 copies of G1's generator, so that the L MSM takes every variable's
# scalar and shares one sort of the witness with A, B_G1 and B_G2 (the epilogue takes the
# head's part back out); prev is the prover before it (506b5cf, keptsort/call2). On a GPU
# machine, in one call:
#  1. gpu_check on new: keys at 2^12 against the CPU's and the proofs of two jobs of three
#     partitions made with them; the batches; G1 MSMs to 2^22, G2 to 2^14 with the skewed
#     and witness-like scalar sets;
#  2. `prove --constraints 2^26 --calls 3` prev, new, prev, new (one key cache);
#  3. gpu_check keys at 2^16 if the time allows.
#   OUT=DIR bash docs/data/kernels/lhead/run.sh DIR   (DIR: new/, prev/ with the libraries)
set -uo pipefail
dir=${1:?directory with new/ and prev/}
bin=$dir/prev/provesim
. scripts/device_kernels.sh
fits 60 "gpu_check keygen" && check keygen "$dir/new/gpu_check" --keygen-only --keygen-max 12
fits 60 "gpu_check batch" && check batch "$dir/new/gpu_check" --batch-only --keygen-max 0
fits 90 "gpu_check msm" && check msm "$dir/new/gpu_check" --ntt-max 8 --g1-max 22 --g2-max 14 --skew-max 18 --sparse-max 18 --keygen-max 0 --no-batch
prove26 1 prev "$dir/prev/provesim"
prove26 2 new "$dir/new/provesim"
prove26 3 prev "$dir/prev/provesim"
prove26 4 new "$dir/new/provesim"
fits 90 "gpu_check keygen 2^16" && check keygen16 "$dir/new/gpu_check" --keygen-only --keygen-max 16
echo "== done at $(el) s"
