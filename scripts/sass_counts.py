#!/usr/bin/env python3
"""Counts the machine instructions of CUDA kernels by the pipe they issue to, without a GPU:
how docs/performance.md weighs a change to a kernel's arithmetic before it is timed.

    scripts/sass_counts.py [--kernel REGEX] [--arch sm_90] [--nvdisasm PATH] FILE.cu|FILE.cubin

A .cu file is compiled here first (nvcc -cubin, -O3, the prover's include folders, ptxas's
report of each kernel's registers and spills); a .cubin is read as it is. For each kernel
whose mangled name matches REGEX (default: every kernel), one row:
- registers and spill stores/loads in bytes (ptxas -v; .cu input only);
- IMAD.WIDE: the wide multiplies, which take the FMA-heavy pipe twice as long as its other
  instructions on sm_90 (docs/performance.md, "Where the NTT's last 8% would come from");
- other IMAD: IMAD, IMAD.MOV, IMAD.X, IMAD.IADD, IMAD.HI, IMUL (the rest of that pipe);
- FMA-heavy load: 2 x IMAD.WIDE + other IMAD, in the units of the one above;
- ALU: IADD3, SEL, ISETP, LOP3, SHF, LEA, PLOP3, IABS, IMNMX and VIMNMX (sm_90's integer min/max);
- VIADD: sm_90's integer add, apart: ptxas places it as it places the FMA-heavy pipe's
  additions (docs/performance.md, "What the compiler leaves on the busiest pipe"), but
  its pipe is not documented;
- FP64: DFMA, DADD, DMUL, DSETP, DMNMX, the FP64 pipe's (as wide as the integer
  multiplier's on an H100/H200: each takes it as long as an IMAD takes the FMA-heavy
  pipe; docs/performance.md, "Fr's product on the FP64 pipe");
- STL/LDL: local-memory stores and loads (spills);
- all: every instruction.
nvdisasm comes from PATH, $NVDISASM or --nvdisasm (the pip wheel nvidia-cuda-nvdisasm has
one). Exit 2 on bad input (a file that is neither, no nvdisasm, a kernel pattern that
matches nothing), 1 when nvcc or nvdisasm fails. Only the standard library."""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALU = {"IADD3", "SEL", "ISETP", "LOP3", "SHF", "LEA", "PLOP3", "IABS", "IMNMX", "VIMNMX"}
FP64 = {"DFMA", "DADD", "DMUL", "DSETP", "DMNMX"}
INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")


def fail(code, msg):
    print("sass_counts.py: " + msg, file=sys.stderr)
    sys.exit(code)


def compile_cu(src, arch, out):
    """nvcc -cubin of SRC into OUT; ptxas's report as {kernel: (registers, spill stores, spill loads)}."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cmd = [nvcc, "-O3", "-DNDEBUG", "-DPROVESIM_HAVE_CUDA=1", "-I" + os.path.join(ROOT, "prover"),
           "-I" + os.path.join(ROOT, "common"), "-arch=" + arch, "-cubin", "-o", out, src, "-Xptxas", "-v"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        fail(1, "%s: %s" % (nvcc, e))
    if p.returncode:
        fail(1, "nvcc failed on %s:\n%s" % (src, p.stderr[-3000:]))
    info, cur = {}, None
    for line in p.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur:
            info.setdefault(cur, [0, 0, 0])[1:] = [int(m.group(1)), int(m.group(2))]
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            info.setdefault(cur, [0, 0, 0])[0] = int(m.group(1))
    return info


def kernels(cubin, nvdisasm):
    """{kernel: Counter of opcodes (IMAD.WIDE kept apart from the other IMADs)} from nvdisasm."""
    try:
        p = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
    except OSError as e:
        fail(1, "%s: %s" % (nvdisasm, e))
    if p.returncode:
        fail(1, "nvdisasm failed on %s:\n%s" % (cubin, p.stderr[-2000:]))
    parts = re.split(r"\n\s*\.text\.(\S+):", p.stdout)
    out = {}
    for i in range(1, len(parts), 2):
        c = collections.Counter()
        for op in INSN.findall(parts[i + 1]):
            c["IMAD.WIDE" if op.startswith("IMAD.WIDE") else op.split(".")[0]] += 1
        out[parts[i]] = c
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="a .cu file (compiled here) or a .cubin")
    ap.add_argument("--kernel", default="", help="a regular expression searched in the kernels' mangled names")
    ap.add_argument("--arch", default="sm_90", help="the architecture a .cu is compiled for (default sm_90)")
    ap.add_argument("--nvdisasm", default=os.environ.get("NVDISASM") or shutil.which("nvdisasm"),
                    help="nvdisasm's path (default: $NVDISASM, then PATH)")
    a = ap.parse_args()
    if not a.nvdisasm:
        fail(2, "no nvdisasm: give --nvdisasm PATH or $NVDISASM (pip install nvidia-cuda-nvdisasm has one)")
    if not os.path.isfile(a.file) or not a.file.endswith((".cu", ".cubin")):
        fail(2, "%s: expected an existing .cu or .cubin file" % a.file)
    try:
        pat = re.compile(a.kernel)
    except re.error as e:
        fail(2, "--kernel %r: not a regular expression (%s)" % (a.kernel, e))
    info = {}
    with tempfile.TemporaryDirectory() as d:
        cubin = a.file
        if a.file.endswith(".cu"):
            cubin = os.path.join(d, "k.cubin")
            info = compile_cu(a.file, a.arch, cubin)
        ks = {k: c for k, c in kernels(cubin, a.nvdisasm).items() if pat.search(k)}
    if not ks:
        fail(2, "no kernel of %s matches --kernel %r" % (a.file, a.kernel))
    print("| kernel | registers | spills (bytes, st/ld) | IMAD.WIDE | other IMAD | FMA-heavy load | ALU | VIADD | FP64 "
          "| STL/LDL | all |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k in sorted(ks):
        c = ks[k]
        wide, imad = c["IMAD.WIDE"], c["IMAD"] + c["IMUL"]
        alu = sum(c[x] for x in ALU)
        r = info.get(k)
        print("| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d/%d | %d |" % (
            k, r[0] if r else "-", "%d/%d" % (r[1], r[2]) if r else "-", wide, imad, 2 * wide + imad, alu,
            c["VIADD"], sum(c[x] for x in FP64), c["STL"], c["LDL"], sum(c.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
