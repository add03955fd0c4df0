"""Record's kernel-busy utilization over measure's own window, beside measure's figure
(docs/data/record/run.sh). measure's spans carry its kernels (CUDA events) on its clock;
the recording carries the same kernels (CUPTI) on its own; the offset between the clocks
is the median difference of matched kernel starts. Prints one JSON line.
    python3 compare.py MEASURE.json MEASURE.spans.jsonl RECORD.jsonl"""
import json
import statistics
import sys


def lines(path):
    with open(path) as f:
        next(f)
        for l in f:
            yield json.loads(l)


rep = json.load(open(sys.argv[1]))
sc = rep["scenario"]
warm, cool, n = sc["run"]["warmup"], sc["run"]["cooldown"], sc["workload"]["partitions"]
mk, done = [], {}
for o in lines(sys.argv[2]):
    if o.get("kind") == "kernel" and o["gpu"] == 0:
        mk.append((o["t0"], o["t1"]))
    elif "phase" in o:
        key = (o["worker"], o["call"])
        done[key] = max(done.get(key, 0), o["t1"])
        o["n"] = len(o.get("partitions", [1]))
comp = sorted(t for t in done.values())  # one partition per call (batch 1)
w0 = comp[warm - 1] if warm > 0 else 0.0
w1 = comp[n - cool - 1]
rk = sorted((o["t0"], o["t1"]) for o in lines(sys.argv[3]) if o.get("kind") == "kernel" and o["gpu"] == 0)
mk.sort()
best = None
for skip in range(0, max(1, len(rk) - len(mk) + 1)):
    d = [rk[skip + i][0] - mk[i][0] for i in range(min(len(mk), len(rk) - skip))]
    if not d:
        break
    off = statistics.median(d)
    spread = statistics.median(abs(x - off) for x in d)
    if best is None or spread < best[1]:
        best = (off, spread, skip)
off = best[0]


def busy(iv, a, b):
    tot, end = 0.0, -1e18
    for s, e in sorted(iv):
        s, e = max(s, a, end), min(e, b)
        if e > s:
            tot += e - s
        end = max(end, min(e, b))
    return tot


u_rec = busy([(s - off, e - off) for s, e in rk], w0, w1) / (w1 - w0)
u_meas = rep["metrics"]["gpu_util"][0]
print(json.dumps({"measure_util": u_meas, "record_util": u_rec, "diff_pp": 100 * (u_rec - u_meas),
                  "window_s": w1 - w0, "kernels_measure": len(mk), "kernels_record": len(rk),
                  "clock_offset_s": off, "match_spread_s": best[1]}))
