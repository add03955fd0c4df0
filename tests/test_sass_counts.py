"""scripts/sass_counts.py on a cubin it cannot tell from a real one, with a stand-in nvdisasm
that prints two kernels' code (CI has no nvdisasm): the counts by class of each kernel, the
--kernel filter, and exit 2 on bad input (no nvdisasm, a file that is neither .cu nor
.cubin, a pattern that matches nothing) with no table printed."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from pychecks import check, done  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(HERE), "scripts", "sass_counts.py")
SASS = """
	.text._Z3fooPj:
        /*0000*/                   IMAD.WIDE.U32 R2, R4, R5, RZ ;
        /*0010*/                   IMAD.WIDE.U32 R6, R4, R7, R2 ;
        /*0020*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;
        /*0030*/               @P0 IADD3 R8, P1, R2, R6, RZ ;
        /*0040*/                   SEL R9, R8, RZ, P1 ;
        /*0050*/                   STL [R1], R9 ;
        /*0060*/                   LDL R10, [R1] ;
        /*0070*/                   VIADD R11, R10, 0x1 ;
        /*0080*/                   DFMA.RZ R12, R14, R16, R18 ;
        /*0090*/                   DADD R12, -R12, c[0x3][0x8] ;
        /*00a0*/                   EXIT ;
	.text._Z3barPj:
        /*0000*/                   IMUL R2, R4, R5 ;
        /*0010*/              @!P2 LOP3.LUT R3, R2, 0xff, RZ, 0xc0, !PT ;
        /*0020*/                   EXIT ;
"""


def run(*args, env=None):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


with tempfile.TemporaryDirectory() as d:
    fake = os.path.join(d, "nvdisasm")
    with open(os.path.join(d, "sass.txt"), "w") as f:
        f.write(SASS)
    with open(fake, "w") as f:
        f.write("#!/bin/sh\ncat %s\n" % os.path.join(d, "sass.txt"))
    os.chmod(fake, 0o755)
    cubin = os.path.join(d, "k.cubin")
    open(cubin, "wb").write(b"\x7fELF")
    p = run("--nvdisasm", fake, cubin)
    check(p.returncode == 0, "a cubin with a stand-in nvdisasm: exit %d, %s" % (p.returncode, p.stderr))
    # foo: 2 wide, IMAD.MOV 1 other, load 2*2+1 = 5, ALU IADD3 + SEL = 2, 1 VIADD, DFMA.RZ
    # and DADD 2 FP64, 1/1 local, 11 in all
    check("| _Z3fooPj | - | - | 2 | 1 | 5 | 2 | 1 | 2 | 1/1 | 11 |" in p.stdout, "foo's row:\n" + p.stdout)
    # bar: IMUL is of the FMA-heavy pipe's other instructions, LOP3 of the ALU's
    check("| _Z3barPj | - | - | 0 | 1 | 1 | 1 | 0 | 0 | 0/0 | 3 |" in p.stdout, "bar's row:\n" + p.stdout)
    p = run("--nvdisasm", fake, "--kernel", "bar", cubin)
    check(p.returncode == 0 and "_Z3barPj" in p.stdout and "_Z3fooPj" not in p.stdout, "--kernel bar:\n" + p.stdout)
    for args, env, what in ((["--kernel", "baz", cubin], {}, "no kernel of"),
                            ([os.path.join(d, "sass.txt")], {}, "expected an existing .cu or .cubin"),
                            ([os.path.join(d, "none.cubin")], {}, "expected an existing .cu or .cubin"),
                            (["--kernel", "(", cubin], {}, "not a regular expression")):
        p = run("--nvdisasm", fake, *args, env=env)
        check(p.returncode == 2 and what in p.stderr and not p.stdout, "%s: exit %d, %r" % (what, p.returncode, p.stderr))
    p = run(cubin, env={"NVDISASM": "", "PATH": d + "/nothing"})
    check(p.returncode == 2 and "no nvdisasm" in p.stderr and not p.stdout, "no nvdisasm: exit %d, %r" % (p.returncode, p.stderr))
sys.exit(done())
