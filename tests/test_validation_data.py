"""validation.py --data on a session it does not list, as a new session is processed before
it is added (docs/validation.md, "Reproduce it"): the twelfth session's runs, copied as
their archive to a scratch folder, go through the newest protocol (both calibrations, the
steal flags, the ablation of a model with GPU rates by pairs, the passes as calibrated and
with each run's own steal, the verdict pooled with NEXT_POOLED's sessions) and give the
twelfth session's committed verdict; with a machines.tsv that puts two runs on two
machines, --data says that the tables are no verdict; --pool names the sessions it is
pooled with instead.
Usage: test_validation_data.py BIN"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from validation import NEXT_POOLED  # noqa: E402
src = os.path.join(ROOT, "docs", "data", "validation", "h200-12")
failed = checks = 0
with tempfile.TemporaryDirectory() as d:
    for f in ("runs.tar.xz", "date.txt"):
        shutil.copy(os.path.join(src, f), d)
    # as if two of its runs had run on two machines (validation.py --import's machines.tsv)
    with open(os.path.join(d, "machines.tsv"), "w") as fh:
        fh.write("# made by the test\nruns/k20-w2\t1\nruns/c20-w2\t2\n")
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
        # a session not yet listed pools with the newest protocol's earlier sessions,
        # NEXT_POOLED (after the seventeenth session's protocol's verdict: the three one-call
        # sessions' committed rows), each session's errors weighing alike
        checks += 1
        pool = doc.get("pooled") or {}
        errs = [{r["name"]: r for r in json.load(open(os.path.join(ROOT, "docs", "data", "validation", e, "validation.json")))[
            "mean_of_passes_as_calibrated"]}["k20-w1-c4"]["throughput_pps"]["error_pct"] for e in NEXT_POOLED]
        errs.append({r["name"]: r for r in doc["mean_of_passes_as_calibrated"]}["k20-w1-c4"]["throughput_pps"]["error_pct"])
        r0 = {r["name"]: r for r in pool.get("rows", [])}.get("k20-w1-c4")
        if (pool.get("sessions", [None])[:-1] != NEXT_POOLED or len(pool.get("rows", [])) != 18 or not r0 or
                abs(r0["tput_error_pct_mean"] - sum(errs) / len(errs)) > 1e-9):
            failed += 1
            print("FAIL the pooled verdict with %s: %r" % (NEXT_POOLED, {k: pool.get(k) for k in ("sessions",)}))
        if "Pooled with %s" % NEXT_POOLED[0] not in p.stdout:
            failed += 1
            print("FAIL --data does not print the pooled verdict")
        # runs on two machines: the fifteenth session's protocol gives no verdict, and says so
        checks += 1
        if (doc.get("machines") != {"1": 1, "2": 1} or "2 machines" not in pool.get("no_verdict", "") or
                not p.stdout.startswith("Note: the session's runs ran on 2 machines")):
            failed += 1
            print("FAIL two machines: %r, %r, %r" % (doc.get("machines"), pool.get("no_verdict"), p.stdout[:200]))
    # --pool NAMES: the verdict pooled with the sessions named instead (the twenty-fourth
    # protocol's later sessions with its earlier ones); a name without a committed
    # validation.json is bad input, exit 2 before any work
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validation.py"), "--bin", sys.argv[1],
                        "--data", d, "--passes", passes, "--pool", "h200-19"], capture_output=True, text=True)
    checks += 1
    pool = json.load(open(os.path.join(d, "validation.json"))).get("pooled") or {}
    if p.returncode or pool.get("sessions") != ["h200-19", os.path.basename(d)] or "Pooled with h200-19 (" not in p.stdout:
        failed += 1
        print("FAIL --pool h200-19: exit %d, sessions %r" % (p.returncode, pool.get("sessions")))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "validation.py"), "--bin", sys.argv[1],
                        "--data", d, "--pool", "h200-99"], capture_output=True, text=True)
    checks += 1
    if p.returncode != 2 or "--pool h200-99: no docs/data/validation/h200-99/validation.json" not in p.stderr or p.stdout:
        failed += 1
        print("FAIL --pool h200-99: exit %d, %r" % (p.returncode, p.stderr[-300:]))
print("%d of %d checks failed" % (failed, checks))
sys.exit(1 if failed else 0)
