#!/usr/bin/env bash
# The Groth16 mutex comparison on the H200 behind docs/measure.md ("Cores for the lock holder"): the
# same steps as ../h200-g16-v3/run.sh (see there), run with this section's binaries:
#   bash docs/data/measure/h200-g16-v5/run.sh BINDIR OUTDIR [SIZE] [PARTS]
exec bash "$(dirname "$0")/../h200-g16-v3/run.sh" "$@"
