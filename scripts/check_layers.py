#!/usr/bin/env python3
"""Checks the layering of docs/design.md ("Architecture"): every quoted #include of a
C/CUDA source resolves to a header of its own folder or of a folder beneath it.

    cli -> measure, sim, prover -> core -> common

CMake already refuses most violations (a layer's include path holds only the layers it
links); this catches the rest ("../" paths, headers found through a neighbour). Exit 1
with one line per violation: file:line: includes "x" from folder/, which folder/ may not.
"""
import os
import re
import sys

ALLOWED = {
    "common": {"common"},
    "core": {"core", "common"},
    "prover": {"prover", "common"},
    "sim": {"sim", "core", "common"},
    "measure": {"measure", "prover", "core", "common"},
    "cli": {"cli", "measure", "sim", "prover", "core", "common"},
}
EXT = (".c", ".h", ".cu", ".cuh", ".inc")


def main(root):
    headers = {}  # basename -> folders holding it (relative paths under prover/cuda too)
    files = []
    for layer in ALLOWED:
        for d, _, names in os.walk(os.path.join(root, layer)):
            for n in names:
                if n.endswith(EXT):
                    p = os.path.join(d, n)
                    files.append((layer, p))
                    rel = os.path.relpath(p, os.path.join(root, layer))
                    headers.setdefault(rel, set()).add(layer)
    bad = []
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for layer, p in files:
        here = os.path.dirname(p)
        with open(p, encoding="utf-8", errors="replace") as f:
            for ln, line in enumerate(f, 1):
                m = inc.match(line)
                if not m:
                    continue
                name = m.group(1)
                target = os.path.normpath(os.path.join(here, name))
                if os.path.exists(target):
                    tl = os.path.relpath(target, root).split(os.sep)[0]
                    if tl not in ALLOWED[layer]:
                        bad.append(f"{os.path.relpath(p, root)}:{ln}: includes \"{name}\" from {tl}/, "
                                   f"which {layer}/ may not (allowed: {', '.join(sorted(ALLOWED[layer]))})")
                    continue
                owners = headers.get(name)
                if not owners:
                    continue  # a system or generated header
                if not owners & ALLOWED[layer]:
                    bad.append(f"{os.path.relpath(p, root)}:{ln}: includes \"{name}\" from "
                               f"{'/, '.join(sorted(owners))}/, which {layer}/ may not "
                               f"(allowed: {', '.join(sorted(ALLOWED[layer]))})")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} include(s) break the layering (docs/design.md, \"Architecture\")", file=sys.stderr)
        return 1
    print(f"layers: {len(files)} files, every include within its layer or beneath it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
