#!/usr/bin/env python3
"""prover-bench's NTT runs as tables, without a GPU: for each prover-bench output
bench-NAME-rK.txt of a folder, the median over the rounds K of each NTT row (forward, coset,
inverse) by size, one line per NAME, and each line over a reference's; and the field rates
(Fr, Fp multiplications per second) where the runs printed them.

    python3 docs/data/kernels/ntt-split/summary.py FOLDER [--ref NAME]

run.sh wrote sweep/ (names LOG_BLOCK-MAX_K), verify.sh verify-1/ and verify-2/ (new, old,
and the variants); ../fr-r1/run.sh and ../ntt-tiles/run.sh their call/ folders. Only the
standard library."""
import argparse
import collections
import glob
import os
import re
import statistics

KERNELS = ("ntt", "ntt-coset", "intt")
FIELDS = ("Fr", "Fp")


def read(folder):
    """{kernel: {name: {size: [ms per round]}}} from FOLDER/bench-NAME-rK.txt."""
    t = {k: collections.defaultdict(lambda: collections.defaultdict(list)) for k in KERNELS + FIELDS}
    for f in sorted(glob.glob(os.path.join(folder, "bench-*-r[0-9].txt"))):
        name = re.match(r"bench-(.+)-r\d+\.txt$", os.path.basename(f)).group(1)
        for line in open(f):
            p = line.split()
            if len(p) >= 4 and p[0] in KERNELS and p[1].startswith("2^"):
                t[p[0]][name][int(p[1][2:])].append(float(p[3]))
            elif len(p) == 2 and p[0] in FIELDS:
                t[p[0]][name][0].append(float(p[1]))
    return t


def main():
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("folder")
    a.add_argument("--ref", help="the line the others are divided by (default: old, else the first)")
    o = a.parse_args()
    t = read(o.folder)
    names = sorted(t["Fr"])
    if names:
        print("field multiplications per second (median of the rounds; best of 3 runs each)")
        print("| binary | Fr | Fp |")
        print("|---|---|---|")
        for n in names:
            print("| %s | %s |" % (n, " | ".join("%.3e" % statistics.median(t[f][n][0]) if t[f][n][0] else "-"
                                                for f in FIELDS)))
        print()
    for kern in KERNELS:
        names = sorted(t[kern])
        if not names:
            continue
        sizes = sorted({s for n in names for s in t[kern][n]})
        ref = o.ref or ("old" if "old" in names else names[0])
        med = {n: {s: statistics.median(t[kern][n][s]) for s in t[kern][n]} for n in names}
        print("%s, ms (median of the rounds' medians of 7)" % kern)
        print("| layout | " + " | ".join("2^%d" % s for s in sizes) + " |")
        print("|---|" + "---|" * len(sizes))
        for n in names:
            print("| %s | " % n + " | ".join("%.3f" % med[n][s] if s in med[n] else "-" for s in sizes) + " |")
        for n in names:
            if n != ref:
                print("| %s / %s | " % (n, ref) + " | ".join(
                    "%.3f" % (med[n][s] / med[ref][s]) if s in med[n] and s in med[ref] else "-" for s in sizes) + " |")
        print()


if __name__ == "__main__":
    main()
