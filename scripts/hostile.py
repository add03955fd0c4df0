#!/usr/bin/env python3
"""Runs the hostile-input corpus (tests/hostile/) against the provesim binary.

Every case is a malformed input for one reader: a scenario or model YAML file, a spans
JSON Lines file (plain or gzip), a daemon's timing log for infer (CSV or JSON Lines), a
Groth16 proof folder (proof.json, vk.json, public.json), or an argument list (args.txt). Each runs in a scratch folder of its own,
under a time limit and an address-space limit, and must give exit status 2 and exactly one
line on standard error that names the input file (and, for YAML and spans, the line where
there is one), leaving no file behind. Prints a table of the failures; exits 1 if any.

usage: hostile.py PROVESIM CORPUS_DIR [--sanitized] [-k SUBSTRING] [-v]

--sanitized: the binary was built with ASan/UBSan, so no address-space limit (ASan
reserves terabytes of shadow memory), a longer time limit, and any sanitizer report
counts as a failure. Standard library only.
"""
import argparse
import concurrent.futures
import gzip
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

TIME_LIMIT_S = 10
MEM_LIMIT = 2 << 30  # bytes of address space

# Cases where no line number applies: the problem is the file as a whole (empty, missing,
# a folder, too big, not text, not gzip) or a key that is absent, which has no line of its
# own. Each entry is the case name (without extension); the file name is still required.
NO_LINE = {
    # scenario and model YAML
    "scenario/empty-file", "scenario/only-comment", "scenario/model-is-folder",
    "scenario/model-is-dev-zero", "scenario/huge-file",
    "model/empty",
    # spans
    "spans/empty", "spans/folder", "spans/gz-empty", "spans/gz-not-gzip",
    "spans/gz-truncated", "spans/gz-garbage-after", "spans/header-only-blank-lines",
    # daemon logs (infer)
    "log/empty.csv", "log/empty.jsonl", "log/blank-lines.jsonl", "log/header-only.csv",
    "log/too-few-records.csv", "log/folder",
}

# Scenario cases whose problem lies in another file the scenario names: the message must
# name that file too (the scenario, with the line of its model: key, comes first).
NAMES_OTHER = {
    "scenario/model-is-folder": "emptydir",
    "scenario/model-file-missing": "no-such-model.yaml",
    "scenario/model-is-dev-zero": "/dev/zero",
}


# Cases allowed more than one line on stderr: `provesim` with no command prints the whole
# usage (the list of commands is the answer to "what can I type?"), still with exit 2.
MULTILINE_OK = {"args/no-command"}


class Case:
    def __init__(self, name, argv, named=None, want_line=False, setup=None):
        self.name = name          # e.g. scenario/tabs-indent
        self.argv = argv          # arguments after the binary, in the scratch folder
        # Texts the message must contain (the file first), or None; a string is one text.
        self.named = [named] if isinstance(named, str) else named
        self.want_line = want_line
        self.setup = setup        # function(scratch) that puts the case's input in place


def copy_into(src, dst):
    if os.path.isdir(src):
        shutil.copytree(src, dst)
    else:
        shutil.copyfile(src, dst)


def scenario_cases(corpus):
    d = os.path.join(corpus, "scenario")
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".yaml"):
            continue
        name = "scenario/" + f[:-5]
        src = os.path.join(d, f)
        out.append(Case(name, ["simulate", f, "--threads", "1"], [f] + ([NAMES_OTHER[name]] if name in NAMES_OTHER else []),
                        name not in NO_LINE, lambda s, src=src, f=f: copy_into(src, os.path.join(s, f))))

    def huge(s):  # a sparse scenario of 300 MB: the reader must refuse it by its size
        with open(os.path.join(s, "huge-file.yaml"), "wb") as fh:
            fh.write(b"scenario: huge\nmodel: model.yaml\n")
            fh.seek(300 << 20)
            fh.write(b"\n")

    out.append(Case("scenario/huge-file", ["simulate", "huge-file.yaml"], "huge-file.yaml", False, huge))

    def long_line(s):  # an 8 MiB scalar on line 2 (within the 16 MiB a file may have) that never closes its quote
        with open(os.path.join(s, "long-line.yaml"), "w") as fh:
            fh.write("scenario: long\ndescription: \"" + "a" * (8 << 20) + "\n")

    out.append(Case("scenario/long-line", ["simulate", "long-line.yaml"], "long-line.yaml", True, long_line))
    return out


def model_cases(corpus):
    d = os.path.join(corpus, "model")
    out = []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".yaml"):
            continue
        name = "model/" + f[:-5]
        src = os.path.join(d, f)

        def setup(s, src=src, f=f):
            copy_into(src, os.path.join(s, f))
            with open(os.path.join(s, "scn.yaml")) as fh:
                t = fh.read().replace("model: model.yaml", "model: " + f)
            with open(os.path.join(s, "scn-" + f), "w") as fh:
                fh.write(t)
        # The scenario copy is an input too, not an output: it is made before the snapshot.
        out.append(Case(name, ["simulate", "scn-" + f, "--threads", "1"], f, name not in NO_LINE, setup))
    return out


def spans_cases(corpus):
    d = os.path.join(corpus, "spans")
    out = []
    entries = sorted(os.listdir(d))

    def long_line(s):  # 16 MiB on line 2, a string that never closes
        with open(os.path.join(s, "long-line.jsonl"), "w") as fh:
            fh.write('{"schema":"provesim.spans/1","source":"prover","scenario":"x","t_unit":"s"}\n')
            fh.write('{"rep":0,"gpu":0,"phase":"' + "a" * (16 << 20) + "\n")

    def long_line_gz(s):  # the same, gzipped: 16 MiB inflated from a few kB
        body = ('{"schema":"provesim.spans/1","source":"prover","scenario":"x","t_unit":"s"}\n' +
                '{"rep":0,"gpu":0,"phase":"' + "a" * (16 << 20) + "\n").encode()
        with open(os.path.join(s, "long-line.jsonl.gz"), "wb") as fh:
            fh.write(gzip.compress(body, 9))

    items = [(f, None) for f in entries if f.endswith(".jsonl") or f.endswith(".jsonl.gz")]
    items += [("long-line.jsonl", long_line), ("long-line.jsonl.gz", long_line_gz)]
    for f, gen in items:
        base = f[:-9] if f.endswith(".jsonl.gz") else f[:-6]
        name = "spans/" + base + (".gz" if f.endswith(".gz") and not base.startswith("gz-") else "")
        src = os.path.join(d, f)
        setup = gen or (lambda s, src=src, f=f: copy_into(src, os.path.join(s, f)))
        want = name not in NO_LINE
        # Each spans file goes through two readers' callers: trace and calibrate.
        out.append(Case(name + "[trace]", ["trace", f, "-o", "out.json"], f, want, setup))
        out.append(Case(name + "[calibrate]", ["calibrate", f, "--model", "model.yaml", "-o", "m.yaml"],
                        f, want, setup))
    return out


def log_cases(corpus):
    """A daemon's timing logs, CSV or JSON Lines, through infer."""
    d = os.path.join(corpus, "log")
    cmd = ["--call-col", "gpu_ms", "--start-col", "start_ms", "--worker-col", "worker", "--workers", "2",
           "--gpu-time", "1.5", "-o", "m.yaml", "--boot", "0", "--threads", "1"]
    out = []
    for f in sorted(os.listdir(d)):
        src = os.path.join(d, f)
        name = "log/" + f
        out.append(Case(name, ["infer", f] + cmd, f, name not in NO_LINE,
                        lambda s, src=src, f=f: copy_into(src, os.path.join(s, f))))

    def long_line(s):  # 2 MiB on line 3, over the reader's 1 MiB a line
        with open(os.path.join(s, "long-line.csv"), "w") as fh:
            fh.write("start_ms,worker,gpu_ms\n1000,w0,7000\n2000,w1," + "7" * (2 << 20) + "\n")

    out.append(Case("log/long-line.csv", ["infer", "long-line.csv"] + cmd, "long-line.csv", True, long_line))
    out.append(Case("log/folder", ["infer", "emptydir"] + cmd, "emptydir", False, None))
    return out


def proof_cases(corpus):
    d = os.path.join(corpus, "proof")
    good = os.path.join(corpus, "support", "proof")
    out = []
    for c in sorted(os.listdir(d)):
        src = os.path.join(d, c)
        # The files that differ from the good proof (or are missing) are the ones to name.
        bad = []
        for n in ("proof.json", "vk.json", "public.json"):
            p = os.path.join(src, n)
            if not os.path.exists(p) or open(p, "rb").read() != open(os.path.join(good, n), "rb").read():
                bad.append(n)
        assert bad, "proof case %s changes nothing" % c
        out.append(Case("proof/" + c, ["verify", c], bad[0], False,
                        lambda s, src=src, c=c: copy_into(src, os.path.join(s, c))))
    return out


def args_cases(corpus):
    subst = {"{scn}": "scn.yaml", "{model}": "model.yaml", "{spans}": "spans.jsonl",
             "{spans_unsorted}": "spans-unsorted.jsonl", "{spans_mixed}": "spans-mixed.jsonl", "{proof}": "proof",
             "{dir}": "emptydir"}
    out = []
    with open(os.path.join(corpus, "args.txt")) as fh:
        for line in fh:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.rstrip("\n").split("|")]
            name, args = parts[0], parts[1]
            named = parts[2] if len(parts) > 2 and parts[2] else None
            argv = [subst.get(a, a) for a in shlex.split(args)]
            if named:
                named = subst.get(named, named)
            out.append(Case("args/" + name, argv, named, False, None))
    return out


def snapshot(root):
    seen = set()
    for dp, dns, fns in os.walk(root):
        for n in dns + fns:
            seen.add(os.path.relpath(os.path.join(dp, n), root))
    return seen


def limits(sanitized):
    def f():
        if not sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return f


def run_case(binary, corpus, case, sanitized):
    """Returns (case, [problems], seconds)."""
    scratch = tempfile.mkdtemp(prefix="hostile.")
    problems = []
    t = time.monotonic()
    try:
        for n in ("scn.yaml", "model.yaml", "spans.jsonl", "spans-unsorted.jsonl", "emptydir", "proof"):
            copy_into(os.path.join(corpus, "support", n), os.path.join(scratch, n))
        os.remove(os.path.join(scratch, "emptydir", ".keep"))
        if case.setup:
            case.setup(scratch)
        before = snapshot(scratch)
        env = dict(os.environ, HOME=scratch, XDG_CACHE_HOME=os.path.join(scratch, ".cache"),
                   LC_ALL="C", TMPDIR=scratch)
        if sanitized:
            env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:halt_on_error=1"
            env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        limit = TIME_LIMIT_S * (6 if sanitized else 1)
        try:
            p = subprocess.run([binary] + case.argv, cwd=scratch, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=limit,
                               preexec_fn=limits(sanitized))
        except subprocess.TimeoutExpired:
            problems.append("timeout (> %d s)" % limit)
            return case, problems, time.monotonic() - t
        err = p.stderr.decode("utf-8", "replace")
        lines = err.rstrip("\n").split("\n") if err.strip() else []
        first = lines[0][:160] if lines else ""
        if p.returncode < 0 or p.returncode in (134, 139):
            problems.append("crash (status %d)" % p.returncode)
        elif p.returncode != 2:
            problems.append("exit %d" % p.returncode)
        if "Sanitizer" in err or "runtime error:" in err:
            problems.append("sanitizer: " + next(l for l in lines if "Sanitizer" in l or "runtime error:" in l)[:160])
        if len(lines) != 1 and not (case.name in MULTILINE_OK and lines):
            problems.append("%d lines on stderr%s" % (len(lines), (": " + first) if first else ""))
        if lines and not lines[0].strip():
            problems.append("empty message")
        for want in case.named or []:
            if lines and want not in lines[0]:
                problems.append("message does not name %s: %s" % (want, first))
        if lines and case.want_line and case.named:
            if not re.search(re.escape(case.named[0]) + r":\d+", lines[0]):
                problems.append("no line number: " + first)
        left = sorted(snapshot(scratch) - before)
        if left:
            problems.append("left behind: " + ", ".join(left[:4]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return case, problems, time.monotonic() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("corpus")
    ap.add_argument("--sanitized", action="store_true")
    ap.add_argument("-k", default="", help="run only cases whose name contains this")
    ap.add_argument("-v", action="store_true", help="print every case's message")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    corpus = os.path.abspath(a.corpus)
    groups = [("scenario", scenario_cases), ("model", model_cases), ("spans", spans_cases),
              ("log", log_cases), ("proof", proof_cases), ("args", args_cases)]
    cases = []
    for _, g in groups:
        cases += [c for c in g(corpus) if a.k in c.name]
    t0 = time.monotonic()
    jobs = min(8, os.cpu_count() or 2)
    results = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for r in ex.map(lambda c: run_case(binary, corpus, c, a.sanitized), cases):
            results.append(r)
    failed = [(c, p) for c, p, _ in results if p]
    if a.v:
        for c, p, s in results:
            print("%-48s %5.2fs %s" % (c.name, s, "; ".join(p) or "ok"))
    counts = {}
    for c, _, _ in results:
        counts[c.name.split("/")[0]] = counts.get(c.name.split("/")[0], 0) + 1
    if failed:
        print("%-48s %s" % ("CASE", "PROBLEM"))
        for c, p in failed:
            print("%-48s %s" % (c.name, "; ".join(p)))
    slowest = max(results, key=lambda r: r[2]) if results else None
    print("hostile: %d runs (%s), %d failed, %.1f s%s" %
          (len(results), ", ".join("%s %d" % kv for kv in counts.items()), len(failed),
           time.monotonic() - t0,
           ("; slowest %s %.2f s" % (slowest[0].name, slowest[2])) if slowest else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
