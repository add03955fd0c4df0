#!/usr/bin/env python3
"""g2_segment_sum per launch and the b_g2 phase's kernel time per partition in the runs of
docs/data/kernels/seg/run.sh (runs/head1..3, seg1..3: one worker, 2^20 constraints), from
their spans' CUPTI kernel records. Runs anywhere:  python3 docs/data/kernels/seg/segsum.py"""
import bisect, gzip, json, os, statistics as st

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs")
print("run     g2_segment_sum ms: mean   sd    min    max  | b_g2 kernels ms per partition: mean   sd")
for name in ("head1", "seg1", "head2", "seg2", "head3", "seg3"):
    seg, ks, spans = [], [], []
    for line in gzip.open(os.path.join(here, name + ".spans.jsonl.gz"), "rt"):
        r = json.loads(line)
        if r.get("kind") == "kernel":
            ks.append(r)
            if "g2_segment_sum" in r["name"]:
                seg.append(1e3 * (r["t1"] - r["t0"]))
        elif r.get("phase") == "b_g2" and r["call"] >= 2:
            spans.append(r)
    ks.sort(key=lambda k: k["t0"])
    t0 = [k["t0"] for k in ks]
    busy = []
    for s in spans:
        i, b = bisect.bisect_left(t0, s["t0"]), 0.0
        while i < len(ks) and ks[i]["t0"] < s["t1"]:
            b += min(ks[i]["t1"], s["t1"]) - ks[i]["t0"]
            i += 1
        busy.append(1e3 * b)
    print("%-6s %25.2f %5.2f %6.2f %6.2f  | %38.2f %4.2f" % (name, st.mean(seg), st.pstdev(seg), min(seg), max(seg),
                                                           st.mean(busy), st.pstdev(busy)))
