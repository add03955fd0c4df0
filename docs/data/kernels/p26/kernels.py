#!/usr/bin/env python3
"""GPU kernel time per steady call of `measure` runs, by kernel and by GPU phase, from the
spans' CUPTI kernel records ({"kind": "kernel", "name", "t0", "t1"}) that lie inside each
call's mutex_held span. The first WARM calls (default 2, the runs' warm-up) are left out;
each figure is the median over the other calls. Usage:
  python3 docs/data/kernels/p26/kernels.py [--warm N] RUN.spans.jsonl.gz ...
"""
import argparse, collections, gzip, json, re, statistics


def base(name):
    """The kernel's own name: C++ mangling (_Z<length><name>...) and arguments dropped."""
    m = re.match(r"_Z(\d+)(\w+)", name)
    if m:
        return m.group(2)[: int(m.group(1))]
    return name.split("(")[0].split("<")[0]


def group(name):
    name = base(name)
    for key in ("bucket_chunks", "bucket_combine", "bucket_finish", "bucket_init", "segment_sum",
                "segment_merge", "msm_digits", "msm_scatter", "msm_sample", "scan_"):
        if key in name:
            return ("g2_" if name.startswith("g2_") else "g1_" if name.startswith("g1_") else "") + key
    return name


def calls(path, warm):
    spans, kernels = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            d = json.loads(line)
            if d.get("kind") == "kernel":
                kernels.append(d)
            elif d.get("phase") in ("mutex_held", "ntt_h", "msm", "b_g2"):
                spans.append(d)
    held = sorted((s for s in spans if s["phase"] == "mutex_held"), key=lambda s: s["t0"])[warm:]
    out = []
    for h in held:
        by, ph = collections.Counter(), collections.Counter()
        inside = [k for k in kernels if k["t0"] >= h["t0"] and k["t1"] <= h["t1"]]
        for k in inside:
            by[group(k["name"])] += k["t1"] - k["t0"]
        for s in spans:
            if s["phase"] != "mutex_held" and s.get("call") == h.get("call") and s.get("worker") == h.get("worker"):
                ph[s["phase"]] += sum(k["t1"] - k["t0"] for k in inside if k["t0"] >= s["t0"] and k["t1"] <= s["t1"])
        out.append((sum(by.values()), by, ph))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warm", type=int, default=2)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    for path in a.runs:
        cs = calls(path, a.warm)
        if not cs:
            print(f"{path}: no steady calls")
            continue
        med = lambda xs: statistics.median(xs) * 1e3
        print(f"{path}: {len(cs)} steady calls, kernels per call {med([c[0] for c in cs]):.1f} ms "
              f"(min {min(c[0] for c in cs) * 1e3:.1f}, max {max(c[0] for c in cs) * 1e3:.1f})")
        for p in ("ntt_h", "msm", "b_g2"):
            print(f"  phase {p:<8} {med([c[2][p] for c in cs]):8.1f} ms")
        names = sorted({n for c in cs for n in c[1]}, key=lambda n: -sum(c[1][n] for c in cs))
        for n in names:
            print(f"  {n:<34} {med([c[1][n] for c in cs]):8.1f} ms")


if __name__ == "__main__":
    main()
