#!/usr/bin/env python3
"""Re-run the commands shown in a Markdown page and put their real output back.

Every fenced block whose first line is `$ provesim ...` (continued with a trailing
backslash onto further lines) is a command; the rest of the block is replaced by what
build/provesim prints for it, run in a scratch folder that links the repository's
configs/, models/, tests/ and docs/ (so files the commands write stay out of the tree). Blocks whose command starts
with `$ time` are left alone (their wall times belong to the machine they were taken on).

    python3 scripts/regen_docs.py docs/whatif.md [--bin build/provesim] [--check]

--check exits 1 (and changes nothing) when a block's output differs, apart from the
"events in N s" wall time of the simulate table.
"""
import argparse
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALL = re.compile(r"events in [0-9.]+ s")


SCRATCH = None


def scratch():
    global SCRATCH
    if SCRATCH is None:
        SCRATCH = tempfile.mkdtemp(prefix="provesim-docs-")
        for d in ("configs", "models", "tests", "docs"):
            Path(SCRATCH, d).symlink_to(ROOT / d)
    return SCRATCH


def run(cmd_lines, binary):
    text = " ".join(l.rstrip("\\").strip() for l in cmd_lines)[2:]  # drop "$ "
    argv = shlex.split(text)
    assert argv[0] == "provesim", text
    p = subprocess.run([str(Path(binary).resolve())] + argv[1:], cwd=scratch(), capture_output=True, text=True)
    out = p.stdout + p.stderr
    return out if out.endswith("\n") or not out else out + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("--bin", default=str(ROOT / "build" / "provesim"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    lines = Path(a.page).read_text().split("\n")
    out, i, changed = [], 0, 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.startswith("```") and i < len(lines) and lines[i].startswith("$ provesim"):
            cmd = []
            while True:
                cmd.append(lines[i])
                i += 1
                if not cmd[-1].endswith("\\"):
                    break
            old = []
            while not lines[i].startswith("```"):
                old.append(lines[i])
                i += 1
            new = run(cmd, a.bin).rstrip("\n").split("\n")
            if [WALL.sub("", l) for l in new] != [WALL.sub("", l) for l in old]:
                changed += 1
            out.extend(cmd)
            out.extend(new)
    if a.check:
        print(f"{a.page}: {changed} block(s) differ from the current output")
        return 1 if changed else 0
    Path(a.page).write_text("\n".join(out))
    print(f"{a.page}: {changed} block(s) updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
