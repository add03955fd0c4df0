#!/usr/bin/env python3
"""Every option a command's parser accepts is in that command's --help.

    tests/test_cli_help.py PROVESIM

For each cli/*.c, the options its parser compares an argument with (cli_is_opt(a, "--x")
or strcmp(a, "--x")) must appear in the --help of the commands whose usage text the file
holds ("usage: provesim CMD"). A parser that learns an option without the help learning it
fails here (calibrate's --contention and --gpu-order were found that way)."""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPT = re.compile(r'(?:cli_is_opt|strcmp)\(\s*\w+\s*,\s*"(--[a-z0-9-]+)"\)')


def main():
    binp = sys.argv[1]
    gaps, checked = [], 0
    for f in sorted(glob.glob(os.path.join(ROOT, "cli", "*.c"))):
        src = open(f).read()
        opts = set(OPT.findall(src)) - {"--help"}
        cmds = sorted(set(re.findall(r"usage: provesim ([a-z-]+)", src)))
        if not opts:
            continue
        if not cmds:
            gaps.append("%s: parses %s but holds no usage text" % (os.path.relpath(f, ROOT), ", ".join(sorted(opts))))
            continue
        text = ""
        for c in cmds:
            p = subprocess.run([binp, c, "--help"], capture_output=True, text=True)
            if p.returncode != 0 or "usage: provesim " + c not in p.stdout:
                gaps.append("provesim %s --help: exit %d, no usage line" % (c, p.returncode))
            text += p.stdout
        for o in sorted(opts):
            checked += 1
            if not re.search(re.escape(o) + r"(?![a-z0-9-])", text):
                gaps.append("%s: %s is parsed but not in the --help of %s" % (os.path.relpath(f, ROOT), o, ", ".join(cmds)))
    if checked == 0:
        gaps.append("no options found in cli/*.c: the pattern no longer matches the parsers")
    for g in gaps:
        print("test_cli_help: " + g)
    print("test_cli_help: %d options checked, %d gaps" % (checked, len(gaps)))
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())
