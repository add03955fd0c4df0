#!/usr/bin/env python3
"""Make docs/data/diagnose/field-log.csv: a synthetic log in the field's shape.

Simulates field-truth.yaml (the hidden truth: setup and cleanup inside a lock over the
whole call, two workers, 1.5-2 s of GPU compute) with `provesim simulate --spans`, and
keeps only what the daemon in the field logged per call: when the prove call started
(prove_start_ms, epoch milliseconds), which worker made it, the partition, and gpu_ms,
the wall time of the call (the wait for the lock included, as the lock is taken inside
the call the daemon times). The first 24 calls are left out, as a log that begins
mid-run would.

    python3 docs/data/diagnose/make-field-log.py [build/provesim]
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EPOCH_MS = 1717430400000  # 2024-06-03T16:00:00Z, an arbitrary origin
SKIP = 24


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(HERE.parents[2] / "build" / "provesim")
    with tempfile.TemporaryDirectory() as tmp:
        spans = Path(tmp, "truth.jsonl")
        subprocess.run([binary, "simulate", str(HERE / "field-truth.yaml"), "--spans", str(spans)],
                       check=True, stdout=subprocess.DEVNULL)
        calls = {}
        for line in spans.read_text().splitlines()[1:]:
            s = json.loads(line)
            if s.get("phase") not in ("mutex_wait", "mutex_held"):
                continue
            c = calls.setdefault(s["call"], {"worker": s["worker"], "partition": s["partitions"][0]})
            if s["phase"] == "mutex_wait":
                c["start"], c["wait"] = s["t0"], s["t1"] - s["t0"]
            else:
                c["held"] = s["t1"] - s["t0"]
    rows = sorted((c for k, c in calls.items() if k >= SKIP), key=lambda c: c["start"])
    out = ["prove_start_ms,worker,partition,gpu_ms"]
    for c in rows:
        out.append("%d,w%d,%d,%d" % (EPOCH_MS + round(1000 * c["start"]), c["worker"], c["partition"],
                                     round(1000 * (c["wait"] + c["held"]))))
    (HERE / "field-log.csv").write_text("\n".join(out) + "\n")
    ms = [int(r.split(",")[3]) for r in out[1:]]
    print("%d calls, gpu_ms %d..%d, mean %.0f" % (len(ms), min(ms), max(ms), sum(ms) / len(ms)))


if __name__ == "__main__":
    main()
