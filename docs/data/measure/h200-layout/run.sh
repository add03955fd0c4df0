#!/usr/bin/env bash
# The H200 check behind the re-layering (common/core/prover/sim/measure/cli) and the fixes
# of 2026-11-30, with binaries built on the development machine (-DPROVESIM_CUDA=ON
# -DCMAKE_CUDA_ARCHITECTURES=90; compiling the CUDA kernels takes longer than one device
# call) and carried in .devbin/: provesim, gpu_check, test_window, test_backend.
#   OUT=DIR bash docs/data/measure/h200-layout/run.sh
# 1. The Groth16 mutex comparison of ../h200-g16-v3/run.sh at 2^20 with 1, 2 and 4 workers
#    (compare with ../h200-g16-v5, the layout before).
# 2. gpu_check --quick (the CUDA backend against the CPU, bit for bit), which runs the NTT
#    from several threads after the change to its settings' initialisation.
# 3. test_window with the CUDA build: simulate, measure (cpu backend) and validate agree.
# 4. measure --backend cuda on two workers with no mutex, the case of the NTT settings race.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
exec > >(tee -a "$OUT/log.txt") 2>&1
mkdir -p /tmp/deps && for f in .deps/*.deb; do dpkg -x "$f" /tmp/deps; done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$PWD/.devbin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
bin=.devbin
echo "== groth16 measure at $(el) s"
MEASURE_BOX=50 bash docs/data/measure/h200-g16-v3/run.sh $bin "$OUT/g16" 2^20 40 > /dev/null 2>&1
tail -9 "$OUT/g16/log.txt"
echo "== gpu_check --quick at $(el) s"
timeout 200 $bin/gpu_check --quick > "$OUT/gpu_check.txt" 2>&1; echo "gpu_check rc=$?"; tail -2 "$OUT/gpu_check.txt"
echo "== test_window, test_backend at $(el) s"
PROVESIM_SRC=$PWD PROVESIM_BIN=$PWD/$bin/provesim timeout 120 $bin/test_window 2>&1 | tail -3
PROVESIM_SRC=$PWD PROVESIM_BIN=$PWD/$bin/provesim timeout 120 $bin/test_backend 2>&1 | tail -3
echo "== no mutex, two workers, synthetic and groth16 on cuda at $(el) s"
timeout 60 $bin/provesim measure configs/measure-seed.yaml --backend cuda --executor synthetic --set system.mutex=none \
  --set system.workers_per_gpu=2 --set workload.partitions=12 --set run.warmup=2 --set run.cooldown=2 \
  --set phases.prep.time.mean=0.02 --set phases.ntt_h.time.mean=0.01 --set phases.msm.time.mean=0.02 \
  --json -o "$OUT/none-synth.json" 2>&1 | tail -2; echo "rc=$?"
timeout 120 $bin/provesim measure configs/measure-groth16.yaml --backend cuda --set prover.constraints=2^16 \
  --set system.mutex=none --set system.workers_per_gpu=4 --set workload.partitions=24 --set run.warmup=2 \
  --set run.cooldown=4 --cache /tmp/provesim-keys --json -o "$OUT/none-g16.json" 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]}"
python3 - "$OUT" <<'PY'
import json, sys, os
for n in ("none-synth", "none-g16"):
    p = os.path.join(sys.argv[1], n + ".json")
    if os.path.exists(p):
        m = json.load(open(p))["metrics"]
        print(n, "util %.4f" % m["gpu_util"][0], "pps %.3f" % m["throughput_pps"])
PY
echo "total $(el) s"
