"""validation.calibrate's fallback (docs/validation-sessions.md, "The twelfth session's
protocol"): when --max-steal leaves a law without the runs it needs (calibrate exits 2 and
says --max-steal), the model is fitted from every run, and the table says so. Another exit
2 is not the fallback's: the script stops. A stand-in for `provesim calibrate` (a shell
script) plays both, so the test needs no spans. Usage: test_validation_fallback.py"""
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from validation import calibrate  # noqa: E402
from pychecks import check, done  # noqa: E402

tmp = tempfile.mkdtemp()
data = os.path.join(tmp, "h200-99")
os.makedirs(os.path.join(data, "runs"))
calib = [{"name": "cal20-t2", "size": "2^20", "overrides": ["workers_per_gpu=1"]},
         {"name": "ovl20-w2", "size": "2^20", "overrides": ["workers_per_gpu=2", "mutex=none"]}]
for r in calib:
    open(os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz"), "w").close()
log = os.path.join(tmp, "calls")


def stand_in(body):
    """A calibrate that logs its arguments, then runs BODY (sh; $out is -o's file)."""
    path = os.path.join(tmp, "provesim")
    with open(path, "w") as fh:
        fh.write('#!/bin/sh\necho "$*" >> %s\nout=\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n%s\n'
                 % (log, body))
    os.chmod(path, stat.S_IRWXU)
    return path


steal = ('case "$(tail -1 %s)" in *--max-steal*) echo "provesim calibrate: --max-steal 0.02: every --overlap file lost '
         'more than that share" >&2; exit 2;; esac\necho "model: x" > "$out"; echo "fitted"' % log)
models, tables = calibrate(stand_in(steal), data, calib, tmp, extra=["--max-steal", "0.02"])
calls = open(log).read().splitlines()
check(len(calls) == 2 and "--max-steal" in calls[0] and "--max-steal" not in calls[1], "called twice, then without --max-steal: %s" % calls)
check("--overlap" in calls[1] and "cal20-t2" in calls[1], "the second call keeps every run: %s" % calls[1])
check(tables["2^20"].startswith("(--max-steal left too few runs: provesim calibrate: --max-steal 0.02: every --overlap file")
      and "calibrated from every run)" in tables["2^20"] and "fitted" in tables["2^20"], "the table says so: %r" % tables["2^20"])
check(os.path.exists(models["2^20"]), "the model written")

# an exit 2 that is not --max-steal's: no fallback, the script stops with calibrate's message
os.remove(log)
p = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); from validation import calibrate; "
                    "calibrate(%r, %r, %r, %r, extra=['--max-steal', '0.02'])" % (
                        os.path.join(HERE, "..", "scripts"), stand_in('echo "provesim calibrate: bad.yaml:3: bad key" >&2; exit 2'),
                        data, calib, tmp)], capture_output=True, text=True)
check(p.returncode != 0 and "bad.yaml:3: bad key" in p.stderr, "other exit 2: stops (%d) %s" % (p.returncode, p.stderr))
check(len(open(log).read().splitlines()) == 1, "other exit 2: no second call")
sys.exit(done())
