#!/usr/bin/env python3
"""Re-run the commands shown in a Markdown page and put their real output back.

Every fenced block whose first line is `$ provesim ...` (continued with a trailing
backslash onto further lines) is a command; the rest of the block is replaced by what
build/provesim prints for it, run in a scratch folder that links the repository's
configs/, models/, tests/ and docs/ (so files the commands write stay out of the tree).

A comment on the line just before the opening fence says how to treat a block:
  <!-- regen: skip -->    a transcript (several commands, files edited by hand between
                          them): left alone, not run;
  <!-- regen: timing -->  output that depends on the machine's timing (measure on the
                          cpu backend): run by --check, which wants exit status 0, but
                          its text is not compared, and never rewritten; the page states
                          the range and the machine beside it.

    python3 scripts/regen_docs.py PAGE... [--bin build/provesim] [--check]

--check exits 1 (and changes nothing) when a block's output differs, apart from wall
times ("events in N s", "N simulations, N s"), and prints the difference.
"""
import argparse
import difflib
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALL = re.compile(r"(events in|simulations,) [0-9.]+ s")


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
    argv = shlex.split(text, comments=True)
    assert argv[0] == "provesim", text
    p = subprocess.run([str(Path(binary).resolve())] + argv[1:], cwd=scratch(), capture_output=True, text=True)
    out = p.stdout + p.stderr
    return (out if out.endswith("\n") or not out else out + "\n"), p.returncode


def page(path, binary, check):
    lines = Path(path).read_text().split("\n")
    out, i, changed = [], 0, 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if line.startswith("```") and i < len(lines) and lines[i].startswith("$ provesim"):
            mark = lines[i - 2].strip() if i >= 2 else ""
            start = i
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
            if mark == "<!-- regen: skip -->":
                out.extend(lines[start:i])
                continue
            text, rc = run(cmd, binary)
            new = text.rstrip("\n").split("\n")
            if mark == "<!-- regen: timing -->":
                if check and rc != 0:
                    changed += 1
                    print(f"{path}: {cmd[0]}: exit status {rc}\n{text}")
                out.extend(lines[start:i])
                continue
            if [WALL.sub("", l) for l in new] != [WALL.sub("", l) for l in old]:
                changed += 1
                if check:
                    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in old], [l + "\n" for l in new],
                                                               f"{path} (doc)", f"{path} (now)", n=1))
            out.extend(cmd)
            out.extend(new)
    if check:
        print(f"{path}: {changed} block(s) differ from the current output")
    else:
        Path(path).write_text("\n".join(out))
        print(f"{path}: {changed} block(s) updated")
    return changed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pages", nargs="+")
    ap.add_argument("--bin", default=str(ROOT / "build" / "provesim"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    changed = sum(page(p, a.bin, a.check) for p in a.pages)
    return 1 if a.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
