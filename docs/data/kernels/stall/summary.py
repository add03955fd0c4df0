#!/usr/bin/env python3
"""Reads Nsight Compute's SASS source pages of the NTT's radix-4 passes
(docs/data/kernels/stall/run.sh: NAME-sass.csv, one block a profiled launch) and prints,
for each profile, where the warps' stall samples fall: by stall reason, by instruction
class (the opcode's first word), and the instructions with the most samples.

    python3 docs/data/kernels/stall/summary.py DIR [NAME...]

DIR holds NAME-sass.csv (the call's stall/ folder, unpacked); NAME defaults to every such
file. Only the standard library. Exit 2 when a file is missing or not a source page."""
import collections
import csv
import glob
import os
import re
import sys

OPC = re.compile(r"^\s*(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")


def launches(path):
    """Yields (kernel name, header, rows) for each launch block of a source page CSV. ncu
    2025.3 writes each launch's block twice in a row; the copy is skipped."""
    blocks = []
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if r and r[0] == "Kernel Name":
                blocks.append([r[1], None, []])
            elif r and r[0] == "Address" and blocks:
                blocks[-1][1] = r
            elif blocks and blocks[-1][1] and r:
                blocks[-1][2].append(r)
    prev = None
    for b in blocks:
        if b[1] and b != prev:
            yield tuple(b)
        prev = b


def opclass(src):
    m = OPC.match(src)
    if not m:
        return "?"
    op, mods = m.group(1), m.group(2)
    if op == "IMAD" and ".WIDE" in mods:
        return "IMAD.WIDE"
    if op == "IMAD" and mods:
        return "IMAD." + mods.split(".")[1]
    return op


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    d, names = argv[0], argv[1:]
    if not names:
        names = sorted(os.path.basename(p)[: -len("-sass.csv")] for p in glob.glob(os.path.join(d, "*-sass.csv")))
    if not names:
        print(f"summary.py: no *-sass.csv in {d}", file=sys.stderr)
        return 2
    for name in names:
        path = os.path.join(d, name + "-sass.csv")
        if not os.path.exists(path):
            print(f"summary.py: {path}: no such file", file=sys.stderr)
            return 2
        reasons = collections.Counter()
        by_class = collections.defaultdict(collections.Counter)
        top = collections.Counter()
        total = nl = 0
        for kname, h, rows in launches(path):
            nl += 1
            try:
                isrc, isamp = h.index("Source"), h.index("Warp Stall Sampling (All Samples)")
            except ValueError:
                print(f"summary.py: {path}: not a source page", file=sys.stderr)
                return 2
            cols = [(i, c[len("stall_"):]) for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
            for r in rows:
                s = int(r[isamp] or 0)
                if not s:
                    continue
                total += s
                cl = opclass(r[isrc])
                top[r[isrc].strip()[:60]] += s
                for i, reason in cols:
                    v = int(r[i] or 0)
                    if v:
                        reasons[reason] += v
                        by_class[cl][reason] += v
        print(f"== {name}: {nl} launches, {total} samples")
        print("stall reasons (share of samples): " +
              ", ".join(f"{k} {v / total:.1%}" for k, v in reasons.most_common(9)))
        print("| class | samples | share | top reasons |")
        print("|---|---|---|---|")
        for cl, c in sorted(by_class.items(), key=lambda kv: -sum(kv[1].values()))[:10]:
            n = sum(c.values())
            print(f"| {cl} | {n} | {n / total:.1%} | " + ", ".join(f"{k} {v / n:.0%}" for k, v in c.most_common(3)) + " |")
        print("top instructions: " + "; ".join(f"`{k}` {v / total:.1%}" for k, v in top.most_common(6)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
