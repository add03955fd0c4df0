#!/usr/bin/env bash
# The Groth16 mutex comparison on the H200 behind docs/measure.md ("The window sums outside the lock"): the
# same steps as ../h200-g16-v3/run.sh (see there), run with this section's binaries:
#   bash docs/data/measure/h200-g16-v4/run.sh BINDIR OUTDIR [SIZE] [PARTS]
exec bash "$(dirname "$0")/../h200-g16-v3/run.sh" "$@"
