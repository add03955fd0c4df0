"""validation.py --data on a session it does not list, as a new session is processed before
it is added (docs/validation.md, "Reproduce it"): the twelfth session's runs, copied as
their archive to a scratch folder, go through the newest protocol (both calibrations, the
steal flags, the ablation of a model with GPU rates by pairs, the passes as calibrated and
with each run's own steal) and give the twelfth session's committed verdict.
Usage: test_validation_data.py BIN"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
src = os.path.join(ROOT, "docs", "data", "validation", "h200-12")
failed = checks = 0
with tempfile.TemporaryDirectory() as d:
    for f in ("runs.tar.xz", "date.txt"):
        shutil.copy(os.path.join(src, f), d)
    passes = ",".join(["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 5)])
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validation.py"), "--bin", sys.argv[1],
                        "--data", d, "--passes", passes], capture_output=True, text=True)
    checks += 1
    if p.returncode:
        failed += 1
        print("FAIL validation.py --data exited %d:\n%s" % (p.returncode, p.stderr[-2000:]))
    else:
        doc = json.load(open(os.path.join(d, "validation.json")))
        ref = json.load(open(os.path.join(src, "validation.json")))
        checks += 3
        got = [(r["name"], r["within_target"]) for r in doc.get("mean_of_passes_as_calibrated", [])]
        want = [(r["name"], r["within_target"]) for r in ref["mean_of_passes_as_calibrated"]]
        if got != want or len(got) != 18:
            failed += 1
            print("FAIL the verdict differs from the committed one: %r" % got)
        own = doc.get("mean_of_passes_with_own_steal") or []
        if len(own) != 18 or sum(r["within_target"] for r in own) < sum(w for _, w in want):
            failed += 1
            print("FAIL the passes with their own steal: %d rows, %d within" % (len(own), sum(r["within_target"] for r in own)))
        if not any(v["variant"].startswith("no GPU overlap") for v in doc.get("ablation", [])):
            failed += 1
            print("FAIL no ablation without the GPU overlap")
print("%d of %d checks failed" % (failed, checks))
sys.exit(1 if failed else 0)
