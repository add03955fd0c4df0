"""docs/data/kernels/stall/summary.py (performance.md's stall table) on a source page made by
hand, as Nsight Compute 2025.3 writes it: two launches, each block written twice. The copies
are skipped (2 launches, each sample counted once), the reasons and classes are shared out
as counted, and a missing file or a CSV that is not a source page exits 2."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from pychecks import check, done  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(HERE), "docs", "data", "kernels", "stall", "summary.py")
HEAD = ['"Address"', '"Source"', '"Warp Stall Sampling (All Samples)"', '"stall_math"', '"stall_wait"',
        '"stall_long_sb"', '"stall_math (Not Issued)"']


def block(rows):
    out = ['"Kernel Name","void k(int)",', ",".join(HEAD)]
    for addr, src, math, wait, long_sb in rows:
        out.append('"%s","%s","%d","%d","%d","%d","%d"' % (addr, src, math + wait + long_sb, math, wait, long_sb, 99))
    return out


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as d:
    l1 = block([("0x0", "IMAD.WIDE.U32 R2, R4, R5, RZ", 6, 2, 0), ("0x10", "IADD3 R8, P1, R2, R6, RZ", 0, 2, 0)])
    l2 = block([("0x0", "IMAD.WIDE.U32 R2, R4, R5, RZ", 4, 2, 0), ("0x10", "@!P0 IMAD.U32 R3, RZ, RZ, UR6", 0, 0, 4)])
    with open(os.path.join(d, "x-sass.csv"), "w") as f:
        f.write("\n".join(l1 + l1 + l2 + l2) + "\n")
    rc, out, err = run(d)
    check(rc == 0, "exit 0 on a source page: %d %s" % (rc, err))
    check("== x: 2 launches, 20 samples" in out, "each launch once, 20 samples: %s" % out)
    check("math 50.0%" in out and "wait 30.0%" in out and "long_sb 20.0%" in out, "reasons shared out: %s" % out)
    check("| IMAD.WIDE | 14 | 70.0% | math 71%, wait 29% |" in out, "the wide multiplies' row: %s" % out)
    check("| IMAD.U32 | 4 | 20.0% | long_sb 100% |" in out, "a predicated IMAD's class: %s" % out)
    check("(Not Issued)" not in out and "99" not in out, "the not-issued columns left out: %s" % out)
    rc, out, err = run(d, "y")
    check(rc == 2 and "no such file" in err and not out, "a missing profile: exit 2, nothing printed: %d %r" % (rc, out))
    with open(os.path.join(d, "z-sass.csv"), "w") as f:
        f.write('"Kernel Name","void k(int)",\n"Address","Metric"\n"0x0","1"\n')
    rc, out, err = run(d, "z")
    check(rc == 2 and "not a source page" in err, "a CSV that is not a source page: exit 2: %d %s" % (rc, err))
    rc, out, err = run(os.path.join(d, "empty-folder-that-is-not-there"))
    check(rc == 2 and "no *-sass.csv" in err, "a folder without profiles: exit 2: %d %s" % (rc, err))
sys.exit(done())
