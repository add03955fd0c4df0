#!/usr/bin/env bash
# The H200 measurements of docs/measure.md, in one command (run from the repository root):
#   bash docs/data/measure/h200-run.sh PROVESIM OUTDIR [BACKEND] [QUICK]
# 1. The seed comparison with the synthetic executor: models/seed-field.yaml with every
#    phase scaled by 1/8 (one partition's GPU work 0.23 s), mutex call vs kernels x 1, 2
#    and 4 workers, and the kernels x 2 case again with CUDA events instead of CUPTI.
# 2. The groth16 executor at the size given by G16_SIZES (first that proves within the
#    time box), mutex call vs kernels x 1 and 2 workers.
# Reports (JSON) and spans (gzip) go to OUTDIR; a summary table is printed last.
# QUICK (any word, e.g. "quick") is the check that runs anywhere: phases 10x shorter, fewer
# partitions, Groth16 at 2^10; about 30 s on a 2-core machine with BACKEND cpu. Any run
# that fails or is cut short makes the script exit 1, after the others.
set -u
bin=$1 out=$2 backend=${3:-cuda} quick=${4:-}
mkdir -p "$out"
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
parts=30 gparts=12 f=1 sizes=${G16_SIZES:-2^18} box=${G16_BOX:-420}
[ -n "$quick" ] && parts=10 gparts=6 f=0.1 sizes=${G16_SIZES:-2^10} box=${G16_BOX:-60}
failed=0
fail() { echo "$1"; failed=1; }
t() { awk -v x="$1" -v f="$f" 'BEGIN { printf "%.6g", x * f }'; }
scale=(--set phases.setup.time.mean=$(t 0.04375) --set phases.prep.time.mean=$(t 0.23875)
       --set phases.ntt_h.time.mean=$(t 0.08625) --set phases.ntt_h.time.sd=$(t 0.00375)
       --set phases.msm.time.mean=$(t 0.14125) --set phases.msm.time.sd=$(t 0.005)
       --set phases.b_g2.time.min=$(t 0.05) --set phases.b_g2.time.max=$(t 0.0875)
       --set phases.epilogue.time.value=$(t 0.015) --set workload.partitions=$parts --set run.warmup=3)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
for mutex in call kernels; do
  for w in 1 2 4; do
    name=seed-$mutex-w$w
    "$bin" measure configs/measure-seed.yaml --executor synthetic --backend "$backend" "${scale[@]}" \
      --set system.mutex=$mutex --set system.workers_per_gpu=$w --set run.cooldown=$w \
      --json -o "$out/$name.json" --spans "$out/$name.spans.jsonl" 2>"$out/$name.err" \
      || fail "$name failed: $(cat "$out/$name.err")"
    echo "$name done at $(elapsed) s"
  done
done
name=seed-kernels-w2-events
"$bin" measure configs/measure-seed.yaml --executor synthetic --backend "$backend" --no-cupti "${scale[@]}" \
  --set system.mutex=kernels --set system.workers_per_gpu=2 --set run.cooldown=2 \
  --json -o "$out/$name.json" --spans "$out/$name.spans.jsonl" 2>"$out/$name.err" || fail "$name failed: $(cat "$out/$name.err")"
echo "$name done at $(elapsed) s"

# Groth16: keys made once per size in a cache; the first size whose setup and a proof fit
# the time box is measured.
cache=/tmp/provesim-keys
g16=
for size in $sizes; do
  left=$(( box - $(elapsed) ))
  [ -n "$quick" ] && left=$box
  [ $left -lt 20 ] && { fail "no time left for groth16 at $size"; break; }
  if timeout $left "$bin" prove --backend "$backend" --constraints "$size" --cache $cache --out /tmp/proof-$size; then
    g16=$size
  else
    fail "prove at $size did not finish in ${left} s"; break
  fi
done
if [ -n "$g16" ]; then
  for mutex in call kernels; do
    for w in 1 2; do
      left=$(( box + 60 - $(elapsed) ))
      [ -n "$quick" ] && left=$box
      [ $left -lt 10 ] && { fail "no time left for groth16 $mutex x $w"; continue; }
      name=g16-$mutex-w$w
      timeout -s INT $left "$bin" measure configs/measure-groth16.yaml --executor groth16 --backend "$backend" --cache $cache \
        --set prover.constraints=$g16 --set system.mutex=$mutex --set system.workers_per_gpu=$w \
        --set workload.partitions=$gparts --set run.warmup=2 --set run.cooldown=$w \
        --json -o "$out/$name.json" --spans "$out/$name.spans.jsonl" 2>"$out/$name.err" \
        || fail "$name failed: $(cat "$out/$name.err")"
      echo "$name done at $(elapsed) s"
    done
  done
fi
gzip -f "$out"/*.spans.jsonl
python3 - "$out" <<'PY'
import json, glob, os, sys
print(f"{'run':26s} {'util':>7s} {'nvml':>7s} {'pps':>8s} {'held_s':>7s} {'wait_s':>7s} timing")
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    d = json.load(open(f)); m = d['metrics']
    nv = m['gpu_util_nvml'][0]
    print(f"{os.path.basename(f)[:-5]:26s} {m['gpu_util'][0]*100:6.2f}% {(nv*100 if nv is not None else float('nan')):6.2f}% "
          f"{m['throughput_pps']:8.3f} {m['mutex_held_s']['mean']:7.3f} {m['mutex_wait_s']['mean']:7.3f} {d['measurement']['gpu_timing']}")
PY
echo "total $(elapsed) s"
[ $failed = 0 ] || { echo "some runs failed (above)" >&2; exit 1; }
