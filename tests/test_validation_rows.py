"""The rows a validation session runs: validation.selected (session.sh's calibration gate)
must pick exactly the rows run.sh runs, whose filter is grep -E on the name (ROWS keeps a
match, SKIP leaves one out). The tenth session's first call stopped after its calibration
because the gate counted rows that SKIP had left out as not yet run."""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from validation import read_tsv, selected  # noqa: E402

tsvs = sorted(glob.glob(os.path.join(HERE, "..", "docs", "data", "validation", "*.tsv")))
filters = [{}, {"SKIP": "-(a|b)$|g2"}, {"ROWS": "^cal22"}, {"ROWS": "20", "SKIP": "-t[0-9]+$"}, {"SKIP": "p[2-4]"}]
failed = checks = 0
for tsv in tsvs:
    names = [r["name"] for r in read_tsv(tsv)]
    for env in filters:
        # run.sh's two lines, as it runs them, over the names
        sh = ('while read -r name; do '
              '[ -n "${ROWS:-}" ] && ! grep -Eq -e "$ROWS" <<<"$name" && continue; '
              '[ -n "${SKIP:-}" ] && grep -Eq -e "$SKIP" <<<"$name" && continue; echo "$name"; done')
        want = subprocess.run(["bash", "-c", sh], env=dict(env, PATH=os.environ["PATH"]), input="\n".join(names) + "\n",
                              capture_output=True, text=True, check=True).stdout.split()
        got = [n for n in names if selected(n, env)]
        checks += 1
        if got != want:
            failed += 1
            print("FAIL %s with %s: run.sh runs %s, selected gives %s" % (os.path.basename(tsv), env, want, got))
# The calibration gate (session.sh): the median steal over the rows run.sh runs, the runs
# above the gate in the list's order, None while one has not run; set_aside moves all the
# selected runs' files, or only the named ones.
import gzip, json, tempfile  # noqa: E402
from validation import calibration_steal, set_aside  # noqa: E402
with tempfile.TemporaryDirectory() as d:
    runs = os.path.join(d, "runs")
    os.makedirs(runs)
    tsv = os.path.join(d, "c.tsv")
    steal = {"a": 0.001, "b": 0.15, "c-a": 0.9, "d": None, "e": 0.03}  # c-a: SKIP leaves it out
    open(tsv, "w").write("".join("%s\t2^20\tsystem.workers_per_gpu=1\n" % n for n in steal))
    def put(n):
        open(os.path.join(runs, n + ".json"), "w").write("{}")
        h = {"schema": "provesim.spans/1"}
        if steal[n] is not None:
            h["host_steal"] = steal[n]
        with gzip.open(os.path.join(runs, n + ".spans.jsonl.gz"), "wt") as fh:
            fh.write(json.dumps(h) + "\n")
    for n in ("a", "b", "d"):
        put(n)
    env = {"SKIP": "-(a|b)$"}
    os.environ.update(env)
    got = [calibration_steal(runs, tsv, 0.02)]
    put("e")
    got.append(calibration_steal(runs, tsv, 0.02))
    want = [None, (0.0155, ["b", "e"])]  # a, b, d (0), e: the median of 0, 0.001, 0.03, 0.15
    checks += 1
    if got[0] is not None or got[1][1] != want[1][1] or abs(got[1][0] - want[1][0]) > 1e-12:
        failed += 1
        print("FAIL calibration_steal: got %r, expected %r" % (got, want))
    # DONE (a fresh machine in mid-session): the rows an earlier call measured and gated
    # are left out; with all of them in DONE the gate passes with nothing in RUNS, which a
    # call of the eleventh session did not (it read "incomplete" and ran nothing)
    empty = os.path.join(d, "empty")
    os.makedirs(empty)
    got = [calibration_steal(empty, tsv, 0.02, dict(env, DONE="a|b|d|e")),
           calibration_steal(empty, tsv, 0.02, dict(env, DONE="a|b")),
           calibration_steal(runs, tsv, 0.02, dict(env, DONE="b|e"))]
    checks += 1
    if got[0] != (0.0, []) or got[1] is not None or got[2] is None or got[2][1] != [] or abs(got[2][0] - 0.0005) > 1e-12:
        failed += 1
        print("FAIL calibration_steal with DONE: got %r" % (got,))
    set_aside(d, tsv, 1, ["b"])
    left, moved = sorted(os.listdir(runs)), sorted(os.listdir(os.path.join(d, "rejected-1", "runs")))
    set_aside(d, tsv, 2)
    left2 = sorted(os.listdir(runs))
    checks += 1
    if moved != ["b.json", "b.spans.jsonl.gz"] or "b.json" in left or left2:
        failed += 1
        print("FAIL set_aside: moved %r, left %r, then left %r" % (moved, left, left2))
    for k in env:
        del os.environ[k]
# The twelfth protocol's second calibration: calib-2.tsv is calib.tsv's rows that the
# sessions run (SKIP='-(a|b)$|g2'), each name with -c2, same size and overrides, every one
# of them run by the same SKIP; a twelfth session calibrates from both, leaving out the
# runs above the gate (--max-steal 0.02), and the eleventh from calib.tsv alone
from validation import protocol_calibration, protocol_flags  # noqa: E402
vd = os.path.join(HERE, "..", "docs", "data", "validation")
c1 = read_tsv(os.path.join(vd, "calib.tsv"))
c2 = read_tsv(os.path.join(vd, "calib-2.tsv"))
want = [dict(r, name=r["name"] + "-c2") for r in c1 if selected(r["name"], {"SKIP": "-(a|b)$|g2"})]
checks += 1
if c2 != want or not all(selected(r["name"], {"SKIP": "-(a|b)$|g2"}) for r in c2):
    failed += 1
    print("FAIL calib-2.tsv is not calib.tsv's selected rows with -c2")
checks += 1
if (protocol_calibration(os.path.join(vd, "h200-12"), c1) != c1 + c2 or protocol_calibration(os.path.join(vd, "h200-11"), c1) != c1
        or "--max-steal" not in protocol_flags(os.path.join(vd, "h200-12")) or "--max-steal" in protocol_flags(os.path.join(vd, "h200-11"))
        or "--steal-exponent" not in protocol_flags(os.path.join(vd, "h200-12"))):
    failed += 1
    print("FAIL the twelfth protocol's calibration rows or flags")
# The thirteenth protocol's one run list: its calibration and its passes interleaved run by
# run (validation.interleave_rows: row j of n due at (j + 1/2) / n, ties to the earlier list)
from validation import interleave_rows  # noqa: E402
checks += 1
got = [x for x in interleave_rows([["a", "b"], ["x", "y", "z", "w"], []])]
if got != ["x", "a", "y", "z", "b", "w"]:
    failed += 1
    print("FAIL interleave_rows: %r" % got)
skip = {"SKIP": "-(a|b)$|g2"}
cal = [r for r in c1 if selected(r["name"], skip)] + c2
passes = [r for t in ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 7)]
          for r in read_tsv(os.path.join(vd, t))]
i13 = read_tsv(os.path.join(vd, "interleaved-13.tsv"))
checks += 1
if i13 != interleave_rows([cal, passes]) or len(i13) != len({r["name"] for r in i13}) or not all(selected(r["name"], skip) for r in i13):
    failed += 1
    print("FAIL interleaved-13.tsv is not the calibration (calib.tsv as run, calib-2.tsv) and the six passes interleaved")
# The twenty-fourth protocol's run list: interleaved-13.tsv's rows, the eleven 2^20 single-
# worker calibration runs on 16 cores and probe 11's pair spread through the first 45 rows
# (what one call of 450 s ran), the rest after them in interleaved-13.tsv's order
S = ["cal20-t15", "cal20-t6", "cal20-t2", "cal20-c16-t3", "cal20-c4-t3", "cal20-t2-r", "cal20-t6-r", "cal20-t15-r",
     "cal20-t2-c2", "cal20-t6-c2", "cal20-t15-c2"]
by = {r["name"]: r for r in i13}
i24 = read_tsv(os.path.join(vd, "interleaved-24.tsv"))
want = interleave_rows([[by[n] for n in S], [r for r in i13[:45] if r["name"] not in S]]) + \
    [r for r in i13[45:] if r["name"] not in S]
checks += 1
if i24 != want or sorted(r["name"] for r in i24) != sorted(r["name"] for r in i13):
    failed += 1
    print("FAIL interleaved-24.tsv is not interleaved-13.tsv's rows with S spread through its first 45")
# and in it every 2^20 held-out row of the first 45 has one of S within three rows of it
pos = {r["name"]: i for i, r in enumerate(i24)}
far = [r["name"] for r in i24[:45] if r["size"] == "2^20" and not r["name"].startswith(("cal", "ovl"))
       and min(abs(pos[n] - pos[r["name"]]) for n in S) > 3]
checks += 1
if far:
    failed += 1
    print("FAIL interleaved-24.tsv: rows with no single-worker calibration run within three rows: %s" % far)
# The fortieth protocol's run list: interleaved-24.tsv's rows with calib.tsv's cal20-b2-t6-a
# right after cal20-b2, none of them left out by the sessions' SKIP
i40 = read_tsv(os.path.join(vd, "interleaved-40.tsv"))
at = [r["name"] for r in i24].index("cal20-b2") + 1
b6 = [r for r in c1 if r["name"] == "cal20-b2-t6-a"]
checks += 1
if i40 != i24[:at] + b6 + i24[at:] or len(b6) != 1 or not all(selected(r["name"], {"SKIP": "g2"}) for r in i40):
    failed += 1
    print("FAIL interleaved-40.tsv is not interleaved-24.tsv with cal20-b2-t6-a after cal20-b2")
# The forty-first protocol's: interleaved-40.tsv's rows with calib.tsv's cal20-b2-t15-a,
# cal20-b2-t6-b and cal20-b2-t15-b right after k20-w4, k20-w1-c4 and c20-w2-c4, all in the
# first 45 rows, none left out by the sessions' SKIP
i41 = read_tsv(os.path.join(vd, "interleaved-41.tsv"))
after = {"k20-w4": "cal20-b2-t15-a", "k20-w1-c4": "cal20-b2-t6-b", "c20-w2-c4": "cal20-b2-t15-b"}
cal = {r["name"]: r for r in c1}
want = [x for r in i40 for x in ([r] + ([cal[after[r["name"]]]] if r["name"] in after else []))]
checks += 1
if (i41 != want or not all(n in cal for n in after.values()) or max(
        [r["name"] for r in i41].index(n) for n in after.values()) >= 45
        or not all(selected(r["name"], {"SKIP": "g2"}) for r in i41)):
    failed += 1
    print("FAIL interleaved-41.tsv is not interleaved-40.tsv with three more calls-of-2 calibration runs")
if checks < 20 or not any(selected(n, {"SKIP": "-(a|b)$|g2"}) != selected(n, {})
                          for t in tsvs for n in (r["name"] for r in read_tsv(t))):
    print("FAIL the run lists changed: no row that SKIP leaves out, or fewer than 20 checks")
    failed += 1
print("%d of %d checks failed" % (failed, checks))
sys.exit(1 if failed else 0)
