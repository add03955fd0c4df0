#!/usr/bin/env bash
# On the GPU, 27d2fd7's tuning variables checked when the GPU is opened: each bad value
# must make prove, prover-bench and measure exit 2 with a message naming it and print
# nothing on stdout; the same commands without one must run (exit 0). Then measure at
# 2^16 prints and reports the SM clock NVML read (measurement.gpu_clocks). Outputs in
# $OUT (tune.txt: one line a case; the commands' stdout and stderr). The call in call/
# (2026-12-04, H200, the binary of 0de1de6) ran this script before prove was given --out:
# its three prove cases stopped at the missing option, so prove's check of the variables
# has not run on a GPU. PROVE_ONLY=1 runs the prove cases alone.
#   OUT=DIR bash docs/data/kernels/tune/run.sh DIR
set -uo pipefail
dir=${1:?directory with new/}
bin=$dir/new/provesim
. scripts/device_kernels.sh
cfg=configs/measure-groth16.yaml
case_() { # NAME EXPECT VAR=VALUE|- COMMAND...
  local name=$1 want=$2 v=$3; shift 3
  local envs=(); [ "$v" != - ] && envs=("$v")
  env "${envs[@]}" timeout 120 "$bin" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  echo "$name: $v: exit $rc (want $want), stdout $(wc -c < "$OUT/$name.out") bytes, $(tail -1 "$OUT/$name.err" | cut -c1-200)" |
    tee -a "$OUT/tune.txt"
}
p=/tmp/tune-proof
case_ prove-radix 2 PSC_NTT_RADIX=3 prove --backend cuda --constraints 2^12 --calls 1 --out $p
case_ prove-sync 2 PSC_CUDA_SYNC=7 prove --backend cuda --constraints 2^12 --calls 1 --out $p
case_ prove-ok 0 - prove --backend cuda --constraints 2^12 --calls 1 --out $p
[ -n "${PROVE_ONLY:-}" ] && { echo "== done at $(el) s"; exit 0; }
case_ bench-tiles 2 PSC_NTT_TILES=-3 prover-bench --backend cuda --sizes 12 --only ntt --reps 1
case_ bench-pieces 2 PSC_MSM_PIECES=0 prover-bench --backend cuda --sizes 12 --only msm-g1 --reps 1
case_ bench-ok 0 - prover-bench --backend cuda --sizes 12 --only ntt --reps 1
case_ measure-agg 2 PSC_MSM_AGG_THREADS=300 measure "$cfg" --backend cuda --json
case_ measure-gpus - - measure "$cfg" --backend cuda --json --set system.gpus=2
case_ measure-ok 0 - measure "$cfg" --backend cuda
case_ measure-ok-json 0 - measure "$cfg" --backend cuda --json --set system.mutex=kernels
grep -h "SM clock" "$OUT/measure-ok.out" | tee -a "$OUT/tune.txt"
python3 -c 'import json,sys; print("gpu_clocks", json.dumps(json.load(open(sys.argv[1]))["measurement"]["gpu_clocks"]))' \
  "$OUT/measure-ok-json.out" 2>&1 | tee -a "$OUT/tune.txt"
echo "== done at $(el) s"
