"""validation.pooled, the fourteenth session's pooled verdict (docs/validation.md, "The
fourteenth session's protocol"), on rows made by hand: each row's errors are the mean of
the sessions' errors, judged against the target (2 pp, 3%, and 10% of p99 for the arrivals
rows), and a row that a session lacks is not pooled; then the committed nineteenth
session's verdict (POOLED) and the reading beside it (POOLED_BESIDE) against the means of
the listed sessions' committed errors. Usage: test_validation_pooled.py"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from validation import POOLED, POOLED_BESIDE, pooled, pooled_table  # noqa: E402
from pychecks import check, done  # noqa: E402


def row(name, pp, pct, p99=None, passes=6):
    return {"name": name, "constraints": "2^20", "passes": passes, "gpu_util": {"error_pp": pp},
            "throughput_pps": {"error_pct": pct}, "latency_p99_s": {"error_pct": p99} if p99 is not None else None}


s1 = [row("a", 1.5, 4.0), row("b", -2.5, 0.0), row("c", 0.0, 0.0), row("q", 0.0, 0.0, 15.0, 1), row("r", 0.0, 0.0, 15.0, 1)]
s2 = [row("a", 0.5, 1.0), row("b", -1.0, -3.4), row("q", 0.0, 0.0, 3.0, 1), row("r", 0.0, 0.0, 7.0, 1)]
got = {r["name"]: r for r in pooled([s1, s2], arrivals={"q", "r"})}

check(sorted(got) == ["a", "b", "q", "r"], "rows pooled: %s (c is in one session only)" % sorted(got))
a, b, q, r = (got[k] for k in "abqr")
check(abs(a["util_error_pp_mean"] - 1.0) < 1e-12 and abs(a["tput_error_pct_mean"] - 2.5) < 1e-12 and a["within_target"],
      "a: +1.5/+0.5 pp and +4/+1%% pool to +1.0 pp, +2.5%%, within: %r" % a)
check(abs(b["util_error_pp_mean"] + 1.75) < 1e-12 and abs(b["tput_error_pct_mean"] + 1.7) < 1e-12 and b["within_target"],
      "b: -1.75 pp, -1.7%%, within: %r" % b)
check(q["within_target"] and abs(q["p99_error_pct_mean"] - 9.0) < 1e-12, "q: p99 +15/+3%% pools to +9%%, within: %r" % q)
check(not r["within_target"] and abs(r["p99_error_pct_mean"] - 11.0) < 1e-12, "r: p99 +15/+7%% pools to +11%%, out: %r" % r)
check(a["passes"] == [6, 6] and a["util_error_pp"] == [1.5, 0.5], "a keeps each session's passes and errors: %r" % a)
out = {x["name"]: x for x in pooled([s1, s2])}
check(out["r"]["within_target"], "without ARRIVALS, p99 is not judged: %r" % out["r"])
t = pooled_table(pooled([s1, s2], arrivals={"q", "r"}), ["s1", "s2"])
check("3 of 4 held-out scenarios within the target" in t and "| r | 1, 1 |" in t and "p99 +11.0%" in t, t)

# The committed verdicts: each pooled row's mean is the mean of the listed sessions' own
# errors (mean_of_passes_as_calibrated), the last session being the one that holds them.
vdir = os.path.join(HERE, "..", "docs", "data", "validation")
for key, lists in (("pooled", POOLED), ("pooled_beside", POOLED_BESIDE)):
    for name, earlier in lists.items():
        doc = json.load(open(os.path.join(vdir, name, "validation.json")))
        got = doc.get(key) or {}
        check(got.get("sessions") == earlier + [name], "%s %s: sessions %r" % (name, key, got.get("sessions")))
        own = [{r["name"]: r for r in json.load(open(os.path.join(vdir, e, "validation.json")))["mean_of_passes_as_calibrated"]}
               for e in earlier + [name]]
        rows = got.get("rows") or []
        check(len(rows) == 18, "%s %s: %d rows" % (name, key, len(rows)))
        for r in rows:
            u = sum(o[r["name"]]["gpu_util"]["error_pp"] for o in own) / len(own)
            x = sum(o[r["name"]]["throughput_pps"]["error_pct"] for o in own) / len(own)
            check(abs(r["util_error_pp_mean"] - u) < 1e-9 and abs(r["tput_error_pct_mean"] - x) < 1e-9 and
                  r["within_target"] == (abs(u) <= 2 and abs(x) <= 3 and (r.get("p99_error_pct_mean") is None or
                                                                          abs(r["p99_error_pct_mean"]) <= 10)),
                  "%s %s %s: %r against %.4f pp, %.4f%%" % (name, key, r["name"], r, u, x))
sys.exit(done())
