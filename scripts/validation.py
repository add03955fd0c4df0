#!/usr/bin/env python3
"""The held-out validation of docs/validation.md and docs/validation-sessions.md, regenerated
without a GPU.

    scripts/validation.py [--bin build/provesim] [--data DIR] [--check]

For each device session of SESSIONS (docs/data/validation/h200, h200-2, ...), from its
runs in SESSION/runs (made by docs/data/validation/run.sh):
1. calibrate: for each circuit size, the single-worker runs of calib.tsv (several thread
   counts and cores; from the twelfth session also calib-2.tsv's second copy) give
   SESSION/model-SIZE.yaml (`provesim calibrate` with the flags the session's protocol
   fixed, protocol_flags: Amdahl's law per CPU phase), and its runs without a mutex (two
   and four workers) the GPU phases' interference and the CPU phases' contention
   (--overlap, repeated);
2. predict and compare: every row of matrix.tsv goes through `provesim validate --json`
   with that model and the overrides the run was measured with (SESSION/runs/NAME.sets),
   for each of the session's passes, and the passes' mean is the protocol's verdict (from
   the fifth session); where the session has reference runs (ref-NAME), again with the
   CPU phases scaled by the host speed they measured;
3. write the session's validation.json, its tables between the markers in
   docs/validation.md (the first session) or docs/validation-sessions.md (the others), and
   (first session) docs/validation.svg;
4. beside each row, its measurement from the session before, when there is one: the noise
   floor of a single measurement.
--data DIR does steps 1-2 for the runs in DIR alone (a new session, its passes the newest
protocol's unless --passes names others) and writes only DIR/validation.json and
DIR/model-SIZE.yaml, printing the tables: the first pass, the mean of the passes, and that
mean pooled with the sessions of NEXT_POOLED (the twenty-ninth protocol's three sessions,
read with the twenty-seventh protocol's model), or of --pool NAMES (h200-17,h200-18,h200-19: the
reading against the seventeenth protocol's three one-call sessions). A listed session in POOLED gets the pooled verdict too
(validation.json "pooled"), and one in POOLED_BESIDE a second pooled reading
("pooled_beside"). Runs of more than one machine (DIR/machines.tsv, --import) give no verdict, and
--data says so. --check writes nothing and exits 1 when any committed output would change
(CI runs it).

The models' provenance carries the date of the runs (SESSION/date.txt, as
SOURCE_DATE_EPOCH) and the commit provesim was built from; --check ignores the commit.
"""
import argparse
import concurrent.futures
import glob
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tempfile

from validation_store import MACHINES, import_calls, machines, pack_runs, read_spans, runs_dir

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = {"util_pp": 2.0, "tput_pct": 3.0, "p99_pct": 10.0}


def within_target(util_pp, tput_pct, p99_pct=None):
    """The target's rule for one row's errors: utilization in pp, throughput in %, and p99
    latency in % when given (the arrivals row's; None: not judged)."""
    return (abs(util_pp) <= TARGET["util_pp"] and abs(tput_pct) <= TARGET["tput_pct"] and
            (p99_pct is None or abs(p99_pct) <= TARGET["p99_pct"]))
INTERLEAVED = os.path.join(ROOT, "docs", "data", "validation", "interleaved.tsv")


MANY_MACHINES = ("the session's runs ran on %d machines, and a verdict comes only from one machine's runs "
                 "(docs/validation.md, \"The fifteenth session's protocol\"): these tables are no verdict")


def read_tsv(path):
    rows = []
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        # a fourth column, the run's environment (run.sh), is not needed here
        name, size, ov = line.rstrip("\n").split("\t")[:3]
        rows.append({"name": name, "size": size, "overrides": [x.strip() for x in ov.split(";") if x.strip()]})
    return rows


def interleave_rows(lists):
    """The rows of several run lists as one, each list's rows spread evenly over it in their
    own order: row j of a list of n is due at (j + 1/2) / n of the whole, and the rows go
    in the order they are due (ties: the earlier list first). The thirteenth session's
    protocol runs its calibration and its passes this way (interleaved-13.tsv), so that both
    meet the host of every part of the lease alike."""
    due = [((j + 0.5) / len(rows), i, j) for i, rows in enumerate(lists) for j in range(len(rows))]
    return [lists[i][j] for _, i, j in sorted(due)]


def selected(name, env=os.environ):
    """Whether run.sh runs the row NAME: its name matches ROWS (when set) and not SKIP
    (when set), extended regexes searched anywhere in the name, as run.sh's grep -E."""
    rows, skip = env.get("ROWS"), env.get("SKIP")
    return (not rows or re.search(rows, name) is not None) and not (skip and re.search(skip, name))


def header_steal(spans):
    """A spans file's header host_steal (measure's share of the run's cores' busy time
    given to other guests), or None when the header does not record it."""
    with gzip.open(spans, "rt") if spans.endswith(".gz") else open(spans) as fh:
        return json.loads(fh.readline()).get("host_steal")


def calibration_steal(runs, tsv, gate, env=os.environ):
    """The calibration gate's reading (session.sh): over the rows of TSV that run.sh runs
    (selected), the median of their spans headers' host_steal (a header without it counts
    0) and the names of the runs above GATE, in the TSV's order; None while a row has no
    report or spans in RUNS yet (0 and none when no row is selected). Rows whose whole name
    matches DONE (run.sh's list of rows an earlier call measured, given when a call finds a
    fresh machine) were gated by that call and are left out: with every calibration row in
    DONE the gate passes, and the call goes on to the other lists."""
    v, over = [], []
    done = env.get("DONE")
    for r in read_tsv(tsv):
        n = r["name"]
        if not selected(n, env) or (done and re.fullmatch(done, n)):
            continue
        p = os.path.join(runs, n + ".spans.jsonl.gz")
        if not os.path.exists(os.path.join(runs, n + ".json")) or not os.path.exists(p):
            return None
        s = header_steal(p)
        v.append(s if s is not None else 0.0)
        if v[-1] > gate:
            over.append(n)
    if not v:
        return 0.0, []  # no calibration rows selected: nothing to hold the session back
    v.sort()
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2, over


def set_aside(state, tsv, k, only=()):
    """Moves the files of the calibration's runs (the rows of TSV that run.sh runs, or only
    those named in ONLY) from STATE/runs to STATE/rejected-K/runs, touched so that the
    device call packs them whichever call made them; run.sh then runs them again."""
    dest = os.path.join(state, "rejected-%s" % k, "runs")
    os.makedirs(dest, exist_ok=True)
    only = set(only)
    files = sorted(os.listdir(os.path.join(state, "runs")))
    for r in read_tsv(tsv):
        if not selected(r["name"]) or (only and r["name"] not in only):
            continue
        for f in files:
            if f.startswith(r["name"] + "."):
                to = os.path.join(dest, f)
                os.rename(os.path.join(state, "runs", f), to)
                os.utime(to)


def run(cmd, env=None, ok=(0, 1)):
    """CMD's process, from the repository root; an exit status outside OK ends the script."""
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if p.returncode not in ok:
        sys.exit("validation.py: %s failed (%d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p


def size_tag(size):
    return size.replace("^", "")


def calibrate(binp, data, calib, out_dir, extra=()):
    """The session's models (calibrate, with `extra` options after the protocol's), and
    calibrate's tables, by size. The models reach OUT_DIR only when every size calibrated
    (each written as NAME.part, renamed at the end): a session that calibrate refuses
    leaves no model of it behind."""
    env = dict(os.environ)
    date = os.path.join(data, "date.txt")
    if os.path.exists(date):
        env["SOURCE_DATE_EPOCH"] = open(date).read().strip()
    models, tables = {}, {}
    try:
        # the card, from the session's folder (h200-13, h100-14, ...): the models' names
        card = (re.findall(r"/(h\d+)(?:-\d+)?(?=/|$)", os.path.abspath(data)) or ["h200"])[-1]
        for size in sorted({r["size"] for r in calib}):
            # the calibration runs of calib.tsv that this session made (a later session added some)
            spans = lambda r: os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz")
            files = [os.path.relpath(spans(r), ROOT) for r in calib if r["size"] == size and os.path.exists(spans(r))
                     and "workers_per_gpu=1" in " ".join(r["overrides"])]
            overlap = [os.path.relpath(spans(r), ROOT) for r in calib if r["size"] == size and os.path.exists(spans(r))
                       and "mutex=none" in " ".join(r["overrides"])]
            model = os.path.join(out_dir, "model-%s.yaml.part" % size_tag(size))
            cmd = [binp, "calibrate", *files, *[x for o in overlap for x in ("--overlap", o)],
                   "--model", "models/provesim-groth16.yaml", "-o", model,
                   "--skip-calls", "2", "--name", "provesim-groth16-%s-%s" % (card, size_tag(size)),
                   # the mutex's own time, calibrate's default since the twenty-seventh protocol was
                   # fixed, is left out by every protocol so far (their models as fixed before their
                   # runs); `extra` (--calibrate-extra "--mutex-overhead fit") brings it back. So is
                   # a GPU phase's run_mode (calibrate's default since 2026-12-07, after the
                   # fortieth protocol was fixed): `extra` "--run-modes fit" brings it back
                   "--mutex-overhead", "none", "--run-modes", "none", *extra]
            # (exit 2 from --max-steal, every run of a list left out, is the fallback's below)
            gated = "--max-steal" in cmd
            p, note = run(cmd, env, ok=(0, 1, 2) if gated else (0, 1)), ""
            # batch multipliers need a run with calls of 2 partitions among those kept
            batch = any("batch=2" in " ".join(r["overrides"]) for r in calib if r["size"] == size and os.path.exists(spans(r)))
            lost = p.returncode == 0 and batch and "\n    batch:" not in open(model).read()
            if gated and (p.returncode == 2 and "--max-steal" in p.stderr or lost):
                # the protocol's fallback (docs/validation-sessions.md, "The twelfth session's protocol"):
                # when the runs left out leave a law without the runs it needs, keep them all
                i = cmd.index("--max-steal")
                why = p.stderr.strip().splitlines()[-1] if p.returncode else "no run with calls of 2 partitions was left"
                note = "(--max-steal left too few runs: %s; calibrated from every run)\n" % why
                p = run(cmd[:i] + cmd[i + 2:], env)
            if p.returncode:
                sys.exit("validation.py: calibrate failed:\n" + p.stderr)
            models[size], tables[size] = model, note + re.sub(r"wrote .*\n", "", p.stdout)
        for size, m in models.items():
            models[size] = m[:-len(".part")]
            os.replace(m, models[size])
    finally:
        for size in {r["size"] for r in calib}:
            part = os.path.join(out_dir, "model-%s.yaml.part" % size_tag(size))
            if os.path.exists(part):
                os.unlink(part)
    return models, tables


def metric(doc, name):
    for m in doc["metrics"]:
        if m["metric"] == name:
            return m
    return None


def validate(binp, data, models, row, extra=()):
    """Row predicted by `provesim validate` with the overrides it ran with (and `extra`
    after them) against its measurement."""
    name = row["name"]
    sets = [l.strip() for l in open(os.path.join(data, "runs", name + ".sets")) if l.strip()] + list(extra)
    report = os.path.join(data, "runs", name + ".json")
    # The measured metrics are recomputed from the run's spans (every kernel record CUPTI
    # delivered, whenever it came) with the window rule; the report gives nvidia-smi's figure.
    spans = os.path.join(data, "runs", name + ".spans.jsonl.gz")
    measured = spans if os.path.exists(spans) else report
    cmd = [binp, "validate", "configs/measure-groth16.yaml", "--measured", os.path.relpath(measured, ROOT),
           "--set", "model=" + os.path.relpath(models[row["size"]], ROOT), "--json"]
    for s in sets:
        cmd += ["--set", s]
    doc = json.loads(run(cmd).stdout)
    meas = json.load(open(report))
    u, x = metric(doc, "gpu_util"), metric(doc, "throughput")
    p50, p99 = metric(doc, "latency_p50"), metric(doc, "latency_p99")
    if p99 is None and measured != report:
        # Proof latency needs the arrival times, which spans do not hold: against the
        # report (kernel records, late or not, do not move it).
        cmd[cmd.index("--measured") + 1] = os.path.relpath(report, ROOT)
        rdoc = json.loads(run(cmd).stdout)
        p50, p99 = metric(rdoc, "latency_p50"), metric(rdoc, "latency_p99")
    poisson = any("arrivals" in s for s in sets)

    def rel(m):
        return None if m is None or not m["measured"] else 100.0 * (m["predicted"] - m["measured"]) / m["measured"]

    r = {
        "name": name, "constraints": row["size"], "overrides": row["overrides"],
        "gpu_util": {"predicted": u["predicted"], "pi": [u["pi_low"], u["pi_high"]], "measured": u["measured"],
                     "nvidia_smi": u.get("measured_nvml") or (meas["metrics"].get("gpu_util_nvml") or [None])[0],
                     "error_pp": 100.0 * (u["predicted"] - u["measured"])},
        "throughput_pps": {"predicted": x["predicted"], "pi": [x["pi_low"], x["pi_high"]], "measured": x["measured"],
                           "error_pct": rel(x)},
        "latency_p50_s": p50 and {"predicted": p50["predicted"], "measured": p50["measured"], "error_pct": rel(p50)},
        "latency_p99_s": p99 and {"predicted": p99["predicted"], "pi": [p99["pi_low"], p99["pi_high"]],
                                  "measured": p99["measured"], "error_pct": rel(p99)},
        "device": meas.get("device"),
    }
    for key, name in (("mutex_wait_s", "mutex_wait_mean"), ("call_s", "call_mean")):
        m = metric(doc, name)
        if m is not None and m["measured"] is not None:
            r[key] = {"predicted": m["predicted"], "measured": m["measured"], "error_pct": rel(m)}
    q = r["latency_p99_s"]["error_pct"] if poisson and r["latency_p99_s"] else None
    r["within_target"] = within_target(r["gpu_util"]["error_pp"], r["throughput_pps"]["error_pct"], q)
    r["inside_pi"] = {"gpu_util": u["verdict"] == "inside", "throughput": x["verdict"] == "inside"}
    return r


def ablation(binp, data, models, matrix, calib, tmp):
    """Each mechanism taken out of the calibrated models in turn, every row predicted again:
    how many rows stay within the target and how large the errors get."""
    def strip(text, pattern):
        return re.sub(pattern, "", text, flags=re.M)
    variants = [
        ("all mechanisms", lambda t: t),
        ("no CPU contention", lambda t: strip(t, r"^cpu_contention: .*\n")),
        # (the rates by pairs go with the law they refine, which a model with them must have)
        ("no GPU overlap (exclusive GPU)", lambda t: strip(t, r"^gpu_(overlap|pairs): .*\n")),
        ("no host threads", lambda t: strip(t, r"^    host_threads: .*\n")),
    ]
    out = []
    for label, fn in variants:
        vm = {}
        for size, path in models.items():
            vp = os.path.join(tmp, "abl-%d-%s.yaml" % (len(out), size_tag(size)))
            open(vp, "w").write(fn(open(path).read()))
            vm[size] = vp
        out.append((label, vm))
    # Without scaling laws: the protocol before them, a law-less template (threads: 1, the
    # time as measured) calibrated from the runs at the default thread policy only.
    tmpl = re.sub(r"threads: all\n    scaling: \{serial: [0-9.]+\}\n", "threads: 1\n",
                  open(os.path.join(ROOT, "models", "provesim-groth16.yaml")).read())
    tp = os.path.join(tmp, "nolaw-template.yaml")
    open(tp, "w").write(tmpl)
    vm = {}
    for size in models:
        files = [os.path.relpath(os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz"), ROOT) for r in calib
                 if r["size"] == size and "workers_per_gpu=1" in " ".join(r["overrides"])
                 and "per_worker" not in " ".join(r["overrides"])
                 and os.path.exists(os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz"))]
        mp = os.path.join(tmp, "nolaw-%s.yaml" % size_tag(size))
        p = run([binp, "calibrate", *files, "--model", tp, "-o", mp, "--skip-calls", "2", "--mutex-overhead", "none",
                 "--run-modes", "none"])
        if p.returncode:
            sys.exit("validation.py: calibrate (no law) failed:\n" + p.stderr)
        vm[size] = mp
    out.insert(1, ("no scaling laws (threads fixed, one thread count)", vm))
    res = []
    for label, vm in out:
        rows = [validate(binp, data, vm, r) for r in matrix]
        eu = [abs(r["gpu_util"]["error_pp"]) for r in rows]
        ex = [abs(r["throughput_pps"]["error_pct"]) for r in rows]
        worst = max(rows, key=lambda r: abs(r["gpu_util"]["error_pp"]))
        res.append({"variant": label, "within_target": sum(r["within_target"] for r in rows), "rows": len(rows),
                    "util_error_mean_pp": sum(eu) / len(eu), "util_error_max_pp": max(eu),
                    "tput_error_mean_pct": sum(ex) / len(ex), "worst": worst["name"],
                    "worst_error_pp": worst["gpu_util"]["error_pp"]})
    return res


def ablation_table(res):
    out = ["| model | rows within target | mean abs. utilization error | largest | at | mean abs. throughput error |",
           "|---|---|---|---|---|---|"]
    for r in res:
        out.append("| %s | %d of %d | %.1f pp | %.1f pp | %s | %.1f%% |" % (
            r["variant"], r["within_target"], r["rows"], r["util_error_mean_pp"], r["util_error_max_pp"], r["worst"],
            r["tput_error_mean_pct"]))
    return "\n".join(out) + "\n"


def table(rows, host=False, passes=False):
    out = ["| scenario |%s 2^n |%s util predicted | util measured (CUPTI) | nvidia-smi | error | throughput pred / meas (p/s) | error | p99 pred / meas (s) | target |" % (
               " passes |" if passes else "", " host factor |" if host else ""),
           "|---|---|%s%s---|---|---|---|---|---|---|---|" % ("---|" if passes else "", "---|" if host else "")]
    for r in rows:
        if passes:
            r = dict(r, name="%s | %d" % (r["name"], r["passes"]))
        elif r.get("bracketed") is False:
            r = dict(r, name=r["name"] + " (reference before only)")
        u, x, q = r["gpu_util"], r["throughput_pps"], r["latency_p99_s"]
        nv = "%.1f%%" % (100 * u["nvidia_smi"]) if u["nvidia_smi"] is not None else "-"
        p99 = "%.3f / %.3f" % (q["predicted"], q["measured"]) if q and q["measured"] is not None else "-"
        out.append("| %s | %s |%s %.1f%% | %.1f%% | %s | %+.1f pp | %.2f / %.2f | %+.1f%% | %s | %s |" % (
            r["name"], r["constraints"].split("^")[1], " %.3f |" % r["host_factor"] if host else "", 100 * u["predicted"], 100 * u["measured"], nv, u["error_pp"],
            x["predicted"], x["measured"], x["error_pct"], p99, "yes" if r["within_target"] else "**no**"))
    n = sum(r["within_target"] for r in rows)
    waits = [abs(r["mutex_wait_s"]["error_pct"]) for r in rows
             if "mutex_wait_s" in r and r["mutex_wait_s"]["error_pct"] is not None and r["mutex_wait_s"]["measured"] > 0.005]
    calls = [abs(r["call_s"]["error_pct"]) for r in rows if "call_s" in r and r["call_s"]["error_pct"] is not None]
    out.append("")
    if waits:
        out.append("Mean time waiting for the mutex: predicted within %.1f%% on average (largest %.1f%%) over the %d rows "
                   "that wait more than 5 ms; time inside the call: within %.1f%% on average (largest %.1f%%)." % (
                       sum(waits) / len(waits), max(waits), len(waits), sum(calls) / len(calls), max(calls)))
    out.append("")
    out.append("%d of %d held-out scenarios within the target (2 pp of utilization, 3%% of throughput, 10%% of p99 "
               "latency under arrivals)." % (n, len(rows)))
    return "\n".join(out) + "\n"


def repeat_table(reps):
    out = ["| scenario | util, earlier session | util, this session | difference | throughput, earlier / this (p/s) | difference | predicted util |",
           "|---|---|---|---|---|---|---|"]
    for r in reps:
        out.append("| %s | %.1f%% | %.1f%% | %+.1f pp | %.2f / %.2f | %+.1f%% | %.1f%% |" % (
            r["of"], 100 * r["gpu_util"][0], 100 * r["gpu_util"][1], r["util_diff_pp"], r["throughput_pps"][0],
            r["throughput_pps"][1], r["tput_diff_pct"], 100 * r["predicted_util"]))
    return "\n".join(out) + "\n"


def svg(rows):
    """Predicted against measured utilization, one dot per scenario, with the 2 pp band."""
    W, H, M = 420, 420, 50
    lo, hi = 0.3, 1.0
    def X(v): return M + (v - lo) / (hi - lo) * (W - 2 * M)
    def Y(v): return H - M - (v - lo) / (hi - lo) * (H - 2 * M)
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>']
    band = [(lo, lo + 0.02), (hi - 0.02, hi), (hi, hi - 0.02), (lo + 0.02, lo)]
    s.append('<polygon points="%s" fill="#dde8f5"/>' % " ".join("%.1f,%.1f" % (X(a), Y(b)) for a, b in band))
    s.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888"/>' % (X(lo), Y(lo), X(hi), Y(hi)))
    for t in range(3, 11):
        v = t / 10
        s.append('<text x="%.1f" y="%d" text-anchor="middle">%d%%</text>' % (X(v), H - M + 16, t * 10))
        s.append('<text x="%d" y="%.1f" text-anchor="end">%d%%</text>' % (M - 6, Y(v) + 4, t * 10))
    s.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>' % (M, M, W - 2 * M, H - 2 * M))
    s.append('<text x="%d" y="%d" text-anchor="middle">measured GPU utilization (CUPTI)</text>' % (W // 2, H - 12))
    s.append('<text x="14" y="%d" text-anchor="middle" transform="rotate(-90 14 %d)">predicted</text>' % (H // 2, H // 2))
    for r in rows:
        u = r["gpu_util"]
        c = "#1f77b4" if r["within_target"] else "#d62728"
        s.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s: %.1f%% predicted, %.1f%% measured</title></circle>' % (
            X(u["measured"]), Y(u["predicted"]), c, r["name"], 100 * u["predicted"], 100 * u["measured"]))
    s.append('<text x="%d" y="%d">blue: within target; red: outside; band: 2 pp</text>' % (M, M - 10))
    s.append("</svg>")
    return "\n".join(s) + "\n"


# The device sessions: data folder, the JSON written, the plot (or None), the suffix of
# the markers in docs/validation.md, whether to run the ablation, the earlier session whose
# measurements of the same rows give the noise floor (or None), and the run lists of its
# passes over the held-out rows with reference runs (docs/data/validation/NAME; the first
# pass's rows are NAME, a later pass K's NAME-pK).
SESSIONS = [
    ("h200", "docs/data/validation.json", "docs/validation.svg", "", True, None, []),
    ("h200-2", "docs/data/validation/h200-2/validation.json", None, "-2", False, "h200", []),
    ("h200-3", "docs/data/validation/h200-3/validation.json", None, "-3", False, "h200-2", ["interleaved.tsv"]),
    ("h200-4", "docs/data/validation/h200-4/validation.json", None, "-4", False, "h200-3", ["interleaved.tsv"]),
    ("h200-5", "docs/data/validation/h200-5/validation.json", None, "-5", False, "h200-4",
     ["interleaved.tsv", "interleaved-2.tsv"]),
    ("h200-6", "docs/data/validation/h200-6/validation.json", None, "-6", False, "h200-5",
     ["interleaved-6.tsv", "interleaved-6-p2.tsv", "interleaved-6-p3.tsv"]),
    ("h200-7", "docs/data/validation/h200-7/validation.json", None, "-7", False, "h200-6",
     ["interleaved-7.tsv", "interleaved-7-p2.tsv", "interleaved-7-p3.tsv"]),
    ("h200-8", "docs/data/validation/h200-8/validation.json", None, "-8", False, "h200-7",
     ["interleaved-7.tsv", "interleaved-7-p2.tsv", "interleaved-7-p3.tsv"]),
    ("h200-9", "docs/data/validation/h200-9/validation.json", None, "-9", False, "h200-8",
     ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 7)]),
    ("h200-9/recal", "docs/data/validation/h200-9/recal/validation.json", None, "-9r", False, None,
     ["interleaved-9-p7.tsv"]),
    ("h200-10", "docs/data/validation/h200-10/validation.json", None, "-10", False, "h200-9",
     ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 7)]),
    ("h200-11", "docs/data/validation/h200-11/validation.json", None, "-11", False, "h200-10",
     ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 7)]),
    ("h200-12", "docs/data/validation/h200-12/validation.json", None, "-12", False, "h200-11",
     ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 5)]),
    ("h200-13", "docs/data/validation/h200-13/validation.json", None, "-13", False, "h200-12",
     ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 7)]),
    # cut short, on two H100 machines (docs/validation-sessions.md, "A fourteenth session"):
    # no earlier session on its card, and no pooled verdict
    ("h100-14", "docs/data/validation/h100-14/validation.json", None, "-14", False, None,
     ["interleaved-9.tsv"] + ["interleaved-9-p%d.tsv" % k for k in range(2, 7)]),
    # one-call sessions (docs/validation.md, "The seventeenth session's protocol"): each the
    # first part of interleaved-13.tsv on one machine, passes 1 and 2 (some of pass 2)
    ("h200-17", "docs/data/validation/h200-17/validation.json", None, "-17", False, "h200-13",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-18", "docs/data/validation/h200-18/validation.json", None, "-18", False, "h200-17",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-19", "docs/data/validation/h200-19/validation.json", None, "-19", False, "h200-18",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the first one-call session after the verdict, with the prover of e803def (faster MSMs)
    ("h200-20", "docs/data/validation/h200-20/validation.json", None, "-20", False, "h200-19",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the second, with the prover of 2aad909 (the grouped sort's new defaults, faster NTTs)
    ("h200-21", "docs/data/validation/h200-21/validation.json", None, "-21", False, "h200-20",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the third, whose runs record the GPU's SM clock (measure from 0de1de6)
    ("h200-22", "docs/data/validation/h200-22/validation.json", None, "-22", False, "h200-21",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the twenty-fourth protocol's (interleaved-24.tsv: the calibration spread through the
    # call), its first two sessions, one call each on one machine after the other
    ("h200-24", "docs/data/validation/h200-24/validation.json", None, "-24", False, "h200-22",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-25", "docs/data/validation/h200-25/validation.json", None, "-25", False, "h200-24",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # its third, on a fresh machine: with the first two, the protocol's verdict
    ("h200-26", "docs/data/validation/h200-26/validation.json", None, "-26", False, "h200-25",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the twenty-seventh protocol's (the same runs; calibrate keeps each phase's mean and fits
    # the GPU phases' host threads), its first two sessions, one call each on one machine
    # after probe 13 there
    ("h200-27", "docs/data/validation/h200-27/validation.json", None, "-27", False, "h200-26",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-28", "docs/data/validation/h200-28/validation.json", None, "-28", False, "h200-27",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # its third (the protocol's verdict) and two more, one call each on one machine after
    # probe 13 there, a host other than 27-28's; the same three are the twenty-ninth
    # protocol's first three (its verdict: validation_misses.py's table 38)
    ("h200-29", "docs/data/validation/h200-29/validation.json", None, "-29", False, "h200-28",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-30", "docs/data/validation/h200-30/validation.json", None, "-30", False, "h200-29",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-31", "docs/data/validation/h200-31/validation.json", None, "-31", False, "h200-30",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the thirtieth protocol's (the same runs; each row predicted at the calibration's median
    # steal: validation_misses.py's table 40), one call each on one quiet H200 machine after
    # probe 13 there (h200-32/probe-13). The thirty-second session is not listed: its two
    # overlap runs at 2^22 overlapped for 4.2% and 4.6% of their GPU time, and calibrate
    # refuses them. The thirty-third ran whole; the thirty-fourth stopped at 315 s, before
    # c22-w2 and k22-w3-c8, so it does not count.
    ("h200-33", "docs/data/validation/h200-33/validation.json", None, "-33", False, "h200-31",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-34", "docs/data/validation/h200-34/validation.json", None, "-34", False, "h200-33",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # its second and third sessions that count, on another H200 machine (2026-12-06 20:17 and
    # 20:25 UTC), one call each in a fresh state, without probe 13 before them: with the
    # thirty-third, the thirtieth protocol's verdict (validation_misses.py's table 40)
    ("h200-38", "docs/data/validation/h200-38/validation.json", None, "-38", False, "h200-33",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    ("h200-39", "docs/data/validation/h200-39/validation.json", None, "-39", False, "h200-38",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the thirtieth protocol's runs on a one-GPU H100 machine (docs/validation-sessions.md, "The
    # thirtieth protocol's runs on an H100"), when no H200 could be started: one call, no probe
    # 13 before it; another card, so no earlier session gives its noise floor, and it counts for
    # no H200 verdict
    ("h100-36", "docs/data/validation/h100-36/validation.json", None, "-36", False, None,
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the same on another one-GPU H100 machine, in two calls on it (no H200 could be started);
    # the thirty-sixth's measurements of the same rows give its noise floor
    ("h100-37", "docs/data/validation/h100-37/validation.json", None, "-37", False, "h100-36",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
    # the fortieth protocol's runs (interleaved-40.tsv: the thirtieth's and cal20-b2-t6-a, so that
    # the calls of 2 partitions ran at two thread counts and calibrate fits their own law,
    # batch.serial) on a one-GPU H100 machine (2026-12-07), when no H200 could be started: one
    # call; another card, so it counts for no H200 verdict; the H100 sessions before it give its
    # noise floor
    ("h100-41", "docs/data/validation/h100-41/validation.json", None, "-41", False, "h100-37",
     ["interleaved-9.tsv", "interleaved-9-p2.tsv"]),
]
# the run lists of the newest protocol's passes (the thirteenth session's), --data's default
PASSES = SESSIONS[-1][6]
# A session's model judged on another session's passes as well (its runs, its run lists):
# the ninth session's second calibration, made on a quiet host, on the ninth session's
# passes 2-6, which ran on a quiet host (docs/validation-sessions.md, "A ninth session").
ALSO = {"h200-9/recal": ("h200-9", ["interleaved-9-p%d.tsv" % k for k in range(2, 7)])}
# A session judged also on the mean of its errors and earlier sessions' of the same protocol
# (pooled(); the fourteenth session's protocol, docs/validation.md): session -> the earlier
# sessions (their rows from this run, else their committed validation.json). A session that
# SESSIONS does not list yet (--data) pools with NEXT_POOLED. The fourteenth session ran on
# two machines and not to its end, so it gives no verdict and is not pooled; the next session
# that runs the protocol whole is judged with the thirteenth (docs/validation.md, "The
# fifteenth session's protocol"); its folder is named for its card. Under the seventeenth
# session's protocol (one-call sessions), the third one-call session that counts (the
# nineteenth) is judged with the thirteenth, seventeenth and eighteenth: the protocol's
# verdict. Reported beside it (POOLED_BESIDE, not a verdict): the three one-call sessions
# pooled without the thirteenth. The twentieth to twenty-second sessions are readings
# against the three one-call sessions, not verdicts. The twenty-fourth protocol's sessions
# (docs/validation.md) are read so too, and the twenty-fifth beside it with the
# twenty-fourth; its verdict is the mean of its first three sessions: the twenty-sixth
# pooled with those two, and beside it the twenty-sixth read against the one-call sessions.
# The twenty-seventh protocol's sessions: the twenty-seventh read against the twenty-fourth
# protocol's three; the twenty-eighth pooled with the twenty-seventh (its protocol's two so
# far) and, beside it, read against the twenty-fourth protocol's three. The twenty-ninth is
# its third: pooled with those two, the protocol's verdict. The thirtieth and thirty-first
# (the same protocol's runs, the same machine as the twenty-ninth) are read with the
# twenty-ninth: the thirty-first pooled with 29 and 30 is this model's reading of the
# twenty-ninth protocol's three sessions. The thirtieth protocol's first session that counts,
# the thirty-third, is read alone (its protocol's first). The thirty-fourth, cut short
# before any second pass, has no mean of passes to pool (validation_misses.py's table 40
# pools it with the thirty-third). Its second and third that count, the thirty-eighth and
# thirty-ninth, are pooled with it and the thirty-eighth: the reading of validation.py's
# model, beside the protocol's verdict (table 40). A session not yet listed is read with
# those three (NEXT_POOLED).
POOLED = {"h200-19": ["h200-13", "h200-17", "h200-18"], "h200-20": ["h200-17", "h200-18", "h200-19"],
          "h200-21": ["h200-17", "h200-18", "h200-19"], "h200-22": ["h200-17", "h200-18", "h200-19"],
          "h200-24": ["h200-17", "h200-18", "h200-19"], "h200-25": ["h200-17", "h200-18", "h200-19"],
          "h200-26": ["h200-24", "h200-25"], "h200-27": ["h200-24", "h200-25", "h200-26"],
          "h200-28": ["h200-27"], "h200-29": ["h200-27", "h200-28"], "h200-30": ["h200-29"],
          "h200-31": ["h200-29", "h200-30"], "h200-38": ["h200-33"], "h200-39": ["h200-33", "h200-38"]}
POOLED_BESIDE = {"h200-19": ["h200-17", "h200-18"], "h200-25": ["h200-24"],
                 "h200-26": ["h200-17", "h200-18", "h200-19"], "h200-28": ["h200-24", "h200-25", "h200-26"]}
NEXT_POOLED = ["h200-33", "h200-38", "h200-39"]


TIMES = ("mean", "sd", "min", "max", "value", "scale")


def scaled_model(text, ratios):
    """The calibrated model's text with phase p's time multiplied by ratios[p]."""
    out, cur = [], None
    for line in text.splitlines(True):
        m = re.match(r"  - name: (\w+)", line)
        if m:
            cur = m.group(1)
        m = re.match(r"(    time: \{dist: )(\w+), (.*)\}", line)
        if m and cur in ratios:
            r, d = ratios[cur], m.group(2)
            p = [(k.strip(), float(v)) for k, v in (x.split(":") for x in m.group(3).split(","))]
            # times scale by r; mu moves by log r; cv, sigma and shape stay
            p = [(k, val + math.log(r) if k == "mu" else val * r if k in TIMES else val) for k, val in p]
            line = "%s%s, %s}\n" % (m.group(1), d, ", ".join("%s: %.10g" % kv for kv in p))
        out.append(line)
    return "".join(out)


def cpu_per_partition(path, skip=2):
    """Mean time per partition of a run's CPU phases together (each worker's first `skip`
    calls left out), from its spans."""
    spans = [r for r in read_spans(path, skip)[0] if r.get("resource") == "cpu"]
    calls = {(r["rep"], r["gpu"], r["worker"], r["call"]): len(r.get("partitions") or [0]) for r in spans}
    return sum(r["t1"] - r["t0"] for r in spans) / max(1, sum(calls.values()))


def retries(data):
    """The calibration runs a gate set aside (DATA/rejected-K/runs, session.sh) beside the
    run with the same name that was kept (DATA/runs): each one's spans header host_steal and
    its CPU phases' time per partition, in name order then K; [] when none was set aside."""
    out = []
    for rej in sorted(glob.glob(os.path.join(data, "rejected-*"))):
        rd = runs_dir(rej)
        if not os.path.isdir(rd):
            continue
        for f in sorted(os.listdir(rd)):
            kept = os.path.join(data, "runs", f)
            if not f.endswith(".spans.jsonl.gz") or not os.path.exists(kept):
                continue
            aside = os.path.join(rd, f)
            out.append({"name": f[:-len(".spans.jsonl.gz")], "set_aside": os.path.basename(rej),
                        "host_steal": [header_steal(aside) or 0.0, header_steal(kept) or 0.0],
                        "cpu_s_per_partition": [cpu_per_partition(aside), cpu_per_partition(kept)]})
    return out


def retries_table(rows):
    s = ["| run | host_steal, set aside / kept | CPU time per partition, set aside / kept (ms) | ratio |",
         "|---|---|---|---|"]
    for r in rows:
        (a, b), (x, y) = r["host_steal"], r["cpu_s_per_partition"]
        s.append("| %s | %.1f%% / %.1f%% | %.1f / %.1f | %.3f |" % (r["name"], 100 * a, 100 * b, 1e3 * x, 1e3 * y, x / y))
    return "\n".join(s) + "\n"


def simulated_cpu_per_partition(binp, model, ref, tmp):
    """What the model predicts for cpu_per_partition of the reference run `ref` (its
    spans file): the same scenario simulated with the run's settings, from its spans."""
    sets = [l.strip() for l in open(ref.replace(".spans.jsonl.gz", ".sets")) if l.strip()]
    out = os.path.join(tmp, os.path.basename(ref).replace(".spans.jsonl.gz", ".sim.spans.jsonl"))
    cmd = [binp, "simulate", "configs/measure-groth16.yaml", "--set", "model=" + os.path.relpath(model, ROOT),
           "--spans", out, "--threads", "1"]
    for s in sets:
        cmd += ["--set", s]
    if run(cmd).returncode:
        sys.exit("validation.py: %s failed" % " ".join(cmd))
    return cpu_per_partition(out)


def host_scaled(models, f, tmp, stem):
    """The models (by size) with every CPU phase's time multiplied by f, the host's speed
    of the moment, written to TMP/STEM-SIZE.yaml: {size: path}."""
    out = {}
    for size, path in models.items():
        text = open(path).read()
        cpu = re.findall(r"  - name: (\w+)\n    resource: cpu", text)
        out[size] = os.path.join(tmp, "%s-%s.yaml" % (stem, size_tag(size)))
        open(out[size], "w").write(scaled_model(text, {p: f for p in cpu}))
    return out


def with_reference(a, data, calib, matrix, models, tmp, bracket=False, suffix="", tsv=INTERLEAVED):
    """Each held-out row predicted again with the model's CPU phases scaled by the host's
    speed of the moment: f = the CPU phases' time per partition in the row's reference
    run (ref-NAME, listed in tsv with its size: one worker at the default thread policy,
    or at the row's own cores and threads, just before the row) over their mean in the
    session's calibration runs of the same size and settings. With bracket, the reference
    is the mean of that run and the next reference run of the same size and settings made
    after it (ref-end or ref-end22 after the last row of a size; from the seventh session
    ref-NAME-after), as the fourth session's protocol planned; rows without a later
    reference are left out, unless suffix is given: a later pass (row NAME-pK, its
    reference ref-NAME-pK, in the order of tsv) whose last row keeps its one reference
    ("bracketed": false). None when the session has no reference runs."""
    refs = {r["name"]: os.path.join(data, "runs", "ref-%s%s.spans.jsonl.gz" % (r["name"], suffix)) for r in matrix}
    if not any(os.path.exists(p) for p in refs.values()):
        return None
    listed = [r for r in read_tsv(tsv) if r["name"].startswith("ref-")]
    size_of = {os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz"): r["size"] for r in listed}
    # the reference runs in the order they ran, for the one after a row
    order = [p for p in (os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz") for r in listed) if os.path.exists(p)]
    same_sets = lambda path: [l.strip() for l in open(path) if l.strip()
                              and not l.startswith(("workload.partitions", "run.warmup", "run.cooldown"))]
    # each reference's size and settings (one worker, batch 1; the default policy, or from
    # the seventh session on the row's own cores and threads), and per such key the
    # calibration runs with those settings and their CPU time per partition
    key = {p: (size_of[p], tuple(same_sets(p.replace(".spans.jsonl.gz", ".sets")))) for p in order}
    base, same = {}, {}
    for k in sorted(set(key.values())):
        size, ref_sets = k[0], list(k[1])
        same[k] = [r for r in calib if r["size"] == size
                   and os.path.exists(os.path.join(data, "runs", r["name"] + ".sets"))
                   and same_sets(os.path.join(data, "runs", r["name"] + ".sets")) == ref_sets]
        if not same[k]:
            sys.exit("validation.py: %s: no calibration run at %s has the settings of the references (%s)"
                     % (data, size, "; ".join(ref_sets)))
        if getattr(a, "host_base", "calibration") == "model":
            first_ref = next(p for p in order if key[p] == k)
            base[k] = simulated_cpu_per_partition(a.bin, models[size], first_ref, tmp)
        else:
            base[k] = sum(cpu_per_partition(os.path.join(data, "runs", r["name"] + ".spans.jsonl.gz"))
                          for r in same[k]) / len(same[k])
    rows = []
    for r in matrix:
        r = dict(r, name=r["name"] + suffix, of=r["name"])
        if not os.path.exists(refs[r["of"]]) or not os.path.exists(os.path.join(data, "runs", r["name"] + ".json")):
            continue
        k = key[refs[r["of"]]]
        f, both = cpu_per_partition(refs[r["of"]]), False
        if bracket:
            i = order.index(refs[r["of"]])
            later = [p for p in order[i + 1:] if key[p] == k]
            if later:
                f, both = (f + cpu_per_partition(later[0])) / 2, True
            elif not suffix:
                continue
        f /= base[k]
        row = validate(a.bin, data, host_scaled(models, f, tmp, "ref-" + r["name"]), r)
        row["host_factor"] = f
        if suffix:
            row["of"], row["bracketed"] = r["of"], both
        rows.append(row)
    like = [r["name"] for k in sorted(same) for r in same[k]]
    return {"calibration_like_reference": like, "rows": rows}


def pass_as_calibrated(binp, data, models, matrix, suf, extra_of=lambda name: ()):
    """One pass of the held-out rows (runs NAME + suf in DATA) predicted by the models as
    calibrated, without a host factor, each run with the --set overrides extra_of(its name)
    after its own; the rows it has."""
    return [dict(validate(binp, data, models, dict(r, name=r["name"] + suf), extra_of(r["name"] + suf)),
                 of=r["name"], host_factor=1.0)
            for r in matrix if os.path.exists(os.path.join(data, "runs", r["name"] + suf + ".json"))]


def pass_with_own_steal(binp, data, models, matrix, suf, tmp, k=1.26):
    """One pass as pass_as_calibrated, but each run predicted with the models' CPU phases
    slowed by that run's own host steal (its spans header): times (1 - steal)^-k. The
    thirteenth session's protocol reports it beside the verdict (and validation_misses.py
    table 24 for the twelfth)."""
    rows = []
    for r in matrix:
        name = r["name"] + suf
        spans = os.path.join(data, "runs", name + ".spans.jsonl.gz")
        if not os.path.exists(os.path.join(data, "runs", name + ".json")):
            continue
        f = (1.0 - (header_steal(spans) or 0.0)) ** -k
        vm = host_scaled(models, f, tmp, "steal-" + name)
        rows.append(dict(validate(binp, data, vm, dict(r, name=name)), of=r["name"], host_factor=f))
    return rows


def protocol_own_steal(data):
    """Whether a session's protocol reports, beside its verdict, the mean of its passes with
    each run's CPU phases slowed by its own steal (from the thirteenth session on)."""
    return not before_session(data, 13)


def mean_of_passes(first, later):
    """Each row's passes (bracketed predictions) as one: the mean prediction against the
    mean measurement, judged against the target as one row is (the fifth session's
    verdict, over two passes; the sixth's, over three). A row keeps the passes it has
    ("passes": how many)."""
    by = [{r["of"]: r for r in rows} for rows in later]
    rows = []
    for r in first:
        base = r.get("of", r["name"])
        runs = [r] + [b[base] for b in by if base in b]
        mean = lambda f: sum(f(x) for x in runs) / len(runs)
        u = {k: mean(lambda x: x["gpu_util"][k]) for k in ("predicted", "measured")}
        nv = [x["gpu_util"]["nvidia_smi"] for x in runs if x["gpu_util"]["nvidia_smi"] is not None]
        u["nvidia_smi"] = sum(nv) / len(nv) if nv else None
        u["error_pp"] = 100.0 * (u["predicted"] - u["measured"])
        x = {k: mean(lambda y: y["throughput_pps"][k]) for k in ("predicted", "measured")}
        x["error_pct"] = 100.0 * (x["predicted"] - x["measured"]) / x["measured"]
        q99 = r["latency_p99_s"]
        if q99 and q99["measured"] is not None and all(y["latency_p99_s"] and y["latency_p99_s"]["measured"] is not None for y in runs):
            q99 = {k: mean(lambda y: y["latency_p99_s"][k]) for k in ("predicted", "measured")}
            q99["error_pct"] = 100.0 * (q99["predicted"] - q99["measured"]) / q99["measured"]
        ok = within_target(u["error_pp"], x["error_pct"],
                           q99.get("error_pct") if any("arrivals" in o for o in r["overrides"]) and q99 else None)
        row = {"name": base, "constraints": r["constraints"], "passes": len(runs),
               "host_factor": mean(lambda y: y["host_factor"]), "gpu_util": u, "throughput_pps": x,
               "latency_p99_s": q99, "within_target": ok}
        for key in ("mutex_wait_s", "call_s"):
            if all(key in y for y in runs):
                m = {k: mean(lambda y: y[key][k]) for k in ("predicted", "measured")}
                m["error_pct"] = 100.0 * (m["predicted"] - m["measured"]) / m["measured"] if m["measured"] else None
                row[key] = m
        rows.append(row)
    return rows


def pooled(sessions_rows, arrivals=()):
    """The verdict over several sessions of one protocol (the fourteenth session's protocol,
    fixed before its runs, pools it with the thirteenth): each session's own model predicts
    its own passes (its mean_of_passes_as_calibrated rows), and a row's errors are the mean
    over the sessions of that session's errors (utilization in pp, throughput and, for the
    rows in ARRIVALS, p99 latency in %), judged against the target as one row is. Only the
    rows that every session has are pooled."""
    by = [{r["name"]: r for r in rows} for rows in sessions_rows]
    out = []
    for r in sessions_rows[0]:
        rs = [b[r["name"]] for b in by if r["name"] in b]
        if len(rs) < len(by):
            continue
        mean = lambda f: sum(f(x) for x in rs) / len(rs)
        row = {"name": r["name"], "constraints": r["constraints"], "passes": [x["passes"] for x in rs],
               "util_error_pp": [x["gpu_util"]["error_pp"] for x in rs],
               "tput_error_pct": [x["throughput_pps"]["error_pct"] for x in rs]}
        row["util_error_pp_mean"] = mean(lambda x: x["gpu_util"]["error_pp"])
        row["tput_error_pct_mean"] = mean(lambda x: x["throughput_pps"]["error_pct"])
        q99 = None
        if r["name"] in arrivals:
            q = [x["latency_p99_s"] and x["latency_p99_s"].get("error_pct") for x in rs]
            if all(v is not None for v in q):
                row["p99_error_pct"] = q
            q99 = row["p99_error_pct_mean"] = sum(q) / len(q) if all(v is not None for v in q) else None
        # an arrivals row without its p99 in every session is not within
        row["within_target"] = (r["name"] not in arrivals or q99 is not None) and within_target(
            row["util_error_pp_mean"], row["tput_error_pct_mean"], q99)
        out.append(row)
    return out


# Student's t at 0.975 by degrees of freedom, 1 to 10 (published tables); 2.2 beyond
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def t975(df):
    """Student's t at 0.975 for DF (>= 1) degrees of freedom: T975's, 2.2 beyond it."""
    return T975[df - 1] if df <= len(T975) else 2.2


def verdict_noise(rows, arrivals=(), draws=10000, seed=48, sessions=(3, 6, 12, 24, 48)):
    """What the noise between sessions allows a pooled verdict (pooled()'s ROWS: each row's
    errors in every session, their mean judged against the target). Per row: its errors'
    mean and standard error over the n sessions (sd / sqrt(n), the sd with n - 1 degrees of
    freedom); whether a row out of the target is out beyond that noise (for utilization,
    throughput or, in ARRIVALS, p99: |mean| - the target's bound > t(0.975, n - 1) x its
    standard error); which of its errors are off zero beyond it (|mean| > t x standard
    error: an error of the model, within the target or not); and how often a model without error would be within, its verdict's
    errors drawn as the sessions' spread gives them (the sum of n standard normals times the
    sessions' deviations from the row's mean, over sqrt((n - 1) m) for a verdict of m
    sessions: the sample covariance / m, utilization, throughput and p99 drawn jointly; rows
    drawn independently, DRAWS times, SEED). Returns (per row dicts, {m: (mean rows within,
    5th and 95th percentile of that count, share of draws with every row within)} for m in
    SESSIONS and n, and the share of draws with no more rows within than ROWS have)."""
    import random
    keys = [("util_error_pp", TARGET["util_pp"]), ("tput_error_pct", TARGET["tput_pct"])]
    per = []
    for r in rows:
        ks = keys + ([("p99_error_pct", TARGET["p99_pct"])] if r["name"] in arrivals else [])
        if r["name"] in arrivals and "p99_error_pct" not in r:
            continue
        vals = [r[k] for k, _ in ks]
        n = len(vals[0])
        if n < 2:
            return [], {}
        t = t975(n - 1)
        means = [sum(v) / n for v in vals]
        devs = [[x - m for x in v] for v, m in zip(vals, means)]
        se = [math.sqrt(sum(d * d for d in dv) / (n - 1) / n) for dv in devs]
        beyond = any(abs(m) - b > t * e for m, e, (_, b) in zip(means, se, ks))
        per.append({"name": r["name"], "n": n, "means": means, "se": se, "bounds": [b for _, b in ks],
                    "devs": devs, "within": r["within_target"], "beyond": (not r["within_target"]) and beyond,
                    "off_zero": [abs(m) > t * e for m, e in zip(means, se)]})
    if not per:
        return [], {}
    n = per[0]["n"]
    rng = random.Random(seed)
    ms = sorted(set(sessions) | {n})
    counts, hits = {m: [] for m in ms}, [0] * len(per)
    for _ in range(draws):
        # a row is within a verdict of m sessions when its largest |error| / bound, drawn
        # for one session's spread, is at most sqrt(m)
        worst = []
        for p in per:
            z = [rng.gauss(0.0, 1.0) for _ in range(n)]
            worst.append(max(abs(sum(zi * di for zi, di in zip(z, dv))) / math.sqrt(n - 1) / b
                             for dv, b in zip(p["devs"], p["bounds"])))
        for m in ms:
            counts[m].append(sum(w <= math.sqrt(m) for w in worst))
        for i, w in enumerate(worst):
            hits[i] += w <= math.sqrt(n)
    out = {}
    for m in ms:
        c = sorted(counts[m])
        out[m] = (sum(c) / draws, c[int(0.05 * draws)], c[int(0.95 * draws)], sum(x == len(per) for x in c) / draws,
                  sum(x <= sum(p["within"] for p in per) for x in c) / draws)
    for p, h in zip(per, hits):
        p["p_within"] = h / draws
    return per, out


def pooled_table(rows, labels):
    """pooled()'s rows: each session's errors and their mean, and the verdict."""
    out = ["| scenario | passes (%s) | util error (%s) | mean | throughput error (%s) | mean | target |" % ((", ".join(labels),) * 3),
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        p99 = "; p99 %+.1f%%" % r["p99_error_pct_mean"] if r.get("p99_error_pct_mean") is not None else ""
        out.append("| %s | %s | %s | %+.1f pp | %s | %+.1f%%%s | %s |" % (
            r["name"], ", ".join(str(p) for p in r["passes"]), ", ".join("%+.1f" % v for v in r["util_error_pp"]),
            r["util_error_pp_mean"], ", ".join("%+.1f" % v for v in r["tput_error_pct"]), r["tput_error_pct_mean"],
            p99, "yes" if r["within_target"] else "**no**"))
    n = len(rows)
    out.append("")
    out.append("%d of %d held-out scenarios within the target on the mean of the sessions' errors (mean absolute "
               "errors %.2f pp, %.2f%%)." % (sum(r["within_target"] for r in rows), n,
                                            sum(abs(r["util_error_pp_mean"]) for r in rows) / max(n, 1),
                                            sum(abs(r["tput_error_pct_mean"]) for r in rows) / max(n, 1)))
    return "\n".join(out) + "\n"


def references_summary(sessions, results):
    """Per session with several passes: the mean of the passes judged with the references'
    host factor and as calibrated, side by side (a markdown table)."""
    def judged(rows):
        n = len(rows)
        return "%d of %d, %.1f pp, %.1f%%" % (sum(r["within_target"] for r in rows), n,
                                              sum(abs(r["gpu_util"]["error_pp"]) for r in rows) / n,
                                              sum(abs(r["throughput_pps"]["error_pct"]) for r in rows) / n)
    out = ["| session | passes | with the references' host factor | as calibrated |", "|---|---|---|---|"]
    for x, (_, _, doc) in zip(sessions, results):
        plain = doc.get("mean_of_passes_as_calibrated")
        if not plain:
            continue
        refs = doc.get("mean_of_passes")
        out.append("| %s | %d | %s | %s |" % (x[0], max(r["passes"] for r in plain),
                                               judged(refs) if refs else "(no references)", judged(plain)))
    return "\n".join(out) + "\n"


def before_session(data, k):
    """Whether DATA is one of the first k sessions of SESSIONS (a later or unlisted folder
    follows the newest protocol)."""
    name = os.path.relpath(os.path.normpath(os.path.abspath(data)), os.path.join(ROOT, "docs", "data", "validation"))
    return name in {s[0] for s in SESSIONS[:k]}


def protocol_flags(data):
    """calibrate's options that a session's protocol fixed before its runs: sessions 1-6
    fit the cpu contention across runs (calibrate's default until then), later sessions
    within each run (docs/validation.md, "Where it misses"); from the eighth session on
    the GPU phases' interference depends on their order of start (--gpu-order), from the
    eleventh on GPU phases two at once run at rates by pairs (--gpu-pairs), and from the
    twelfth on the runs whose host lost more than 2% to steal are left out (--max-steal)
    and the others' cpu spans made quiet by probe 8's slope (--steal-exponent 1.26)."""
    if before_session(data, 6):
        return ["--contention", "across"]
    return (["--contention", "within"] + ([] if before_session(data, 7) else ["--gpu-order"]) +
            ([] if before_session(data, 11) else ["--gpu-pairs"]) + ([] if before_session(data, 12) else ["--max-steal", "0.02", "--steal-exponent", "1.26"]))


def protocol_calibration(data, calib):
    """The calibration rows of a session: calib.tsv's, and from the twelfth session on also
    calib-2.tsv's (the same runs again at the end of the lease, names with -c2)."""
    if before_session(data, 12):
        return calib
    return calib + read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib-2.tsv"))


def pass_suffix(tsv):
    """The suffix a pass's run list gives the held-out rows' names ("-p3" for NAME-p3; ""
    for the first pass, whose runs keep the rows' names)."""
    m = re.search(r"-p\d+$", read_tsv(tsv)[0]["name"])
    return m.group(0) if m else ""


def session(a, calib, matrix, tmp, data, earlier, ablate, passes, also=None):
    """Calibrates from DATA's calibration runs and predicts its held-out rows: (models,
    calibrate tables, validation document). ALSO, (runs folder, run lists): another
    session's passes, predicted by this model as calibrated ("other_passes")."""
    out_dir = os.path.join(tmp, os.path.basename(data)) if a.check else data
    os.makedirs(out_dir, exist_ok=True)
    calib = protocol_calibration(data, calib)
    models, tables = calibrate(a.bin, data, calib, out_dir, extra=protocol_flags(data) + list(getattr(a, "extra", ())))
    have = lambda r: os.path.exists(os.path.join(data, "runs", r["name"] + ".json"))
    rows = [validate(a.bin, data, models, r) for r in matrix if have(r)]
    # The same scenarios measured in an earlier device session (not predicted from this
    # model): how far two measurements of one scenario are apart.
    reps = []
    if earlier:
        runs_dir(earlier)
    for r in rows if earlier else []:
        p = os.path.join(earlier, "runs", r["name"] + ".json")
        if not os.path.exists(p):
            continue
        m = json.load(open(p))["metrics"]
        u0, x0 = m["gpu_util"][0], m["throughput_pps"]
        u1, x1 = r["gpu_util"]["measured"], r["throughput_pps"]["measured"]
        reps.append({"name": r["name"], "of": r["name"], "gpu_util": [u0, u1], "throughput_pps": [x0, x1],
                     "predicted_util": r["gpu_util"]["predicted"], "util_diff_pp": 100 * (u1 - u0),
                     "tput_diff_pct": 100 * (x1 / x0 - 1)})
    # the session's own scratch folder: sessions run side by side (main), and their
    # reference models have the same names
    scratch = os.path.join(tmp, "work-" + os.path.basename(data))
    os.makedirs(scratch, exist_ok=True)
    abl = ablation(a.bin, data, models, [r for r in matrix if have(r)], calib, scratch) if ablate and rows else []
    tsvs = [os.path.join(ROOT, "docs", "data", "validation", t) for t in passes] or [INTERLEAVED]
    ref = with_reference(a, data, calib, matrix, models, scratch, tsv=tsvs[0])
    brk = with_reference(a, data, calib, matrix, models, scratch, bracket=True, tsv=tsvs[0])
    later = [with_reference(a, data, calib, matrix, models, scratch, bracket=True, suffix="-p%d" % (k + 2), tsv=t)
             for k, t in enumerate(tsvs[1:])]
    later = [x for x in later if x]
    ran = [r["name"] for r in calib if os.path.exists(os.path.join(data, "runs", r["name"] + ".json"))]
    doc = {"schema": "provesim.validation/1", "target": TARGET, "calibration": ran,
           "models": {k: os.path.relpath(os.path.join(data, os.path.basename(v)), ROOT) for k, v in models.items()},
           "rows": rows, "repeats": reps, "ablation": abl}
    ret = retries(data)
    if ret:
        doc["calibration_retries"] = ret
    if ref:
        doc["with_reference"] = ref
    if brk:
        doc["with_bracketing_references"] = brk
    if brk and later:
        doc["later_passes"] = later
        doc["mean_of_passes"] = mean_of_passes(brk["rows"], [x["rows"] for x in later])
    # The passes predicted by the model as calibrated, without the references' host factor:
    # the verdict of a session without references (the ninth's protocol), and beside the
    # references' verdict what they add (docs/validation-sessions.md, "An eighth session").
    def plain(suf, where=data):
        return pass_as_calibrated(a.bin, where, models, matrix, suf)
    sufs = [pass_suffix(t) for t in tsvs]
    # the first pass without a suffix is the rows validated above
    as_calibrated = [x for x in ([dict(r, of=r["name"], host_factor=1.0) for r in rows] if not suf else plain(suf)
                                 for suf in sufs) if x]
    if len(as_calibrated) > 1 or (as_calibrated and sufs[0]):
        doc["mean_of_passes_as_calibrated"] = mean_of_passes(as_calibrated[0], as_calibrated[1:])
        if protocol_own_steal(data):
            own = [x for x in (pass_with_own_steal(a.bin, data, models, matrix, suf, scratch) for suf in sufs) if x]
            doc["mean_of_passes_with_own_steal"] = mean_of_passes(own[0], own[1:])
    if also:
        where, lists = also
        other = [x for x in (plain(pass_suffix(os.path.join(ROOT, "docs", "data", "validation", t)), where)
                             for t in lists) if x]
        doc["other_passes"] = {"runs": os.path.relpath(where, ROOT), "passes": lists,
                               "mean_of_passes_as_calibrated": mean_of_passes(other[0], other[1:])}
    return models, tables, doc


PAGE_BREAK = "\n<!-- validation.py: next page -->\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "provesim"),
                    help="the provesim that calibrates and validates (default: build/provesim)")
    ap.add_argument("--data", help="one session's runs (default: every committed session, docs/data/validation/h200*)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a committed output (validation.json, the two pages' tables, "
                         "the models) would change")
    ap.add_argument("--pack", metavar="DIR", help="pack DIR/runs into DIR/runs.tar.xz (what the repository keeps of a "
                    "session) and exit")
    ap.add_argument("--import", dest="import_calls", nargs="+", metavar="DIR CALL.tar",
                    help="a new session's device calls (session.sh's call-TIME.tar, in the order they ran) "
                         "unpacked into DIR, with DIR/date.txt, DIR/machines.tsv (the machine each run ran "
                         "on) and DIR/repeats/runs (a row a fresh machine ran again), then packed as --pack "
                         "does; and exit")
    ap.add_argument("--passes", default=",".join(PASSES),
                    help="with --data: the run lists of the session's passes, in docs/data/validation "
                         "(default: the newest session's, %(default)s)")
    ap.add_argument("--host-base", choices=("calibration", "model"), default="calibration",
                    help="with --data: what a reference's CPU time is divided by for the host factor: the "
                         "calibration runs of its settings (sessions 3-7) or the model's own prediction of the "
                         "reference run")
    ap.add_argument("--calibrate-extra", default="", help="with --data: more calibrate options (space-separated)")
    ap.add_argument("--pool", default=",".join(NEXT_POOLED), metavar="NAMES",
                    help="with --data: the committed sessions (folders of docs/data/validation, comma-separated; "
                         "empty: none) the session's verdict is pooled with (default: %(default)s, the "
                         "twenty-ninth protocol's three sessions; h200-17,h200-18,h200-19 reads it "
                         "against the seventeenth protocol's one-call sessions)")
    a = ap.parse_args()
    a.extra = a.calibrate_extra.split()
    a.pool_names = [x for x in a.pool.split(",") if x]
    for x in a.pool_names:
        if not os.path.exists(os.path.join(ROOT, "docs", "data", "validation", x, "validation.json")):
            ap.error("--pool %s: no docs/data/validation/%s/validation.json (a committed session's folder)" % (x, x))
    if a.import_calls:
        if len(a.import_calls) < 2:
            ap.error("--import DIR CALL.tar...: give the folder and at least one call archive")
        for arc in import_calls(os.path.abspath(a.import_calls[0]), a.import_calls[1:]):
            print("validation.py: wrote %s" % os.path.relpath(arc, ROOT))
        return 0
    if a.pack:
        print("validation.py: wrote %s" % os.path.relpath(pack_runs(os.path.abspath(a.pack)), ROOT))
        return 0
    calib = read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib.tsv"))
    matrix = read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))
    tmp = tempfile.mkdtemp()
    # --data DIR: that session only, its validation.json written into DIR, the docs untouched
    sessions = SESSIONS if not a.data else [(os.path.abspath(a.data), os.path.join(os.path.abspath(a.data), "validation.json"),
                                             None, "", True, None, a.passes.split(","))]
    vdir = os.path.join(ROOT, "docs", "data", "validation")
    # the pages whose marked tables this fills: the summary and the sessions' log, worked on
    # as one text (each marker is in one of them) and written back page by page
    mds = [os.path.join(ROOT, "docs", x) for x in ("validation.md", "validation-sessions.md")]
    text = PAGE_BREAK.join(open(md).read() for md in mds) if all(map(os.path.exists, mds)) and not a.data else None
    outputs, committed_models, first_rows = {}, [], None
    dirs = [os.path.join(vdir, x[0]) if not os.path.isabs(x[0]) else x[0] for x in sessions]
    # The sessions are independent: unpacked, then calibrated and predicted, side by side
    # (each in a process of its own, as many as the cores); the docs are put together in
    # the sessions' order below, so the outputs do not depend on which finished first.
    with concurrent.futures.ProcessPoolExecutor(max_workers=min(len(dirs), os.cpu_count() or 1)) as pool:
        for data in pool.map(runs_dir, dirs):
            if not os.path.isdir(data):
                sys.exit("validation.py: %s: no runs (make them with docs/data/validation/run.sh)" % data)
        done = [pool.submit(session, a, calib, matrix, tmp, data, x[5] and os.path.join(vdir, x[5]), x[4], x[6],
                            x[0] in ALSO and (os.path.join(vdir, ALSO[x[0]][0]), ALSO[x[0]][1]))
                for data, x in zip(dirs, sessions)]
        results = [f.result() for f in done]
    by_name = {}
    arrivals = {r["name"] for r in matrix if any("arrivals" in o for o in r["overrides"])}

    def rows_of(e):  # an earlier session's verdict rows: from this run, else as committed
        if e not in by_name:
            path = os.path.join(vdir, e, "validation.json")
            by_name[e] = json.load(open(path)) if os.path.exists(path) else {}
        return by_name[e].get("mean_of_passes_as_calibrated")
    for (name, json_out, svg_out, suffix, ablate, earlier, passes), data, (models, tables, doc) in zip(
            sessions, dirs, results):
        by_name[name] = doc
        # the fifteenth session's protocol gives a verdict only on one machine's runs
        ran_on = machines(data)
        if ran_on:
            doc["machines"] = {str(k): len(v) for k, v in sorted(ran_on.items())}
        # the verdict pooled with earlier sessions (POOLED, or NEXT_POOLED for --data), and
        # the reading beside it (POOLED_BESIDE)
        for key, pool in (("pooled", POOLED.get(name) or (a.pool_names if a.data else [])),
                          ("pooled_beside", POOLED_BESIDE.get(name) or [])):
            pool = [e for e in pool if e != os.path.basename(name)]
            if pool and doc.get("mean_of_passes_as_calibrated") and all(rows_of(e) for e in pool):
                doc[key] = {"sessions": pool + [os.path.basename(name)], "rows": pooled(
                    [rows_of(e) for e in pool] + [doc["mean_of_passes_as_calibrated"]], arrivals)}
                if len(ran_on) > 1:
                    doc[key]["no_verdict"] = MANY_MACHINES % len(ran_on)
        committed_models += [(m, os.path.join(data, os.path.basename(m))) for m in models.values()]
        outputs[os.path.join(ROOT, json_out)] = json.dumps(doc, indent=1) + "\n"
        if svg_out:
            outputs[os.path.join(ROOT, svg_out)] = svg(doc["rows"])
        if first_rows is None:
            first_rows = doc["rows"]
        if text is not None:
            def put(marker, body, t):
                return re.sub(r"(<!-- %s -->\n).*?(<!-- /%s -->)" % (marker, marker),
                              lambda m: m.group(1) + body + m.group(2), t, flags=re.S)
            text = put("validation-table" + suffix, table(doc["rows"]), text)
            if doc["repeats"]:
                text = put("repeat-table" + suffix, repeat_table(doc["repeats"]), text)
            if ablate:
                text = put("ablation-table" + suffix, ablation_table(doc["ablation"]), text)
            if doc.get("with_reference"):
                text = put("reference-table" + suffix, table(doc["with_reference"]["rows"], host=True), text)
            if doc.get("with_bracketing_references"):
                text = put("bracket-table" + suffix, table(doc["with_bracketing_references"]["rows"], host=True), text)
            if doc.get("calibration_retries"):
                text = put("retries-table" + suffix, retries_table(doc["calibration_retries"]), text)
            if doc.get("mean_of_passes_as_calibrated"):
                text = put("passes-calibrated-table" + suffix, table(doc["mean_of_passes_as_calibrated"], passes=True), text)
            if doc.get("mean_of_passes_with_own_steal"):
                text = put("passes-own-steal-table" + suffix, table(doc["mean_of_passes_with_own_steal"], passes=True), text)
            for key, marker in (("pooled", "pooled-table"), ("pooled_beside", "pooled-beside-table")):
                if doc.get(key):
                    text = put(marker + suffix, pooled_table(doc[key]["rows"], doc[key]["sessions"]), text)
            if doc.get("other_passes"):
                text = put("other-passes-table" + suffix,
                           table(doc["other_passes"]["mean_of_passes_as_calibrated"], passes=True), text)
            if doc.get("mean_of_passes"):
                for k, x in enumerate(doc["later_passes"]):
                    text = put("bracket-table%s-p%d" % (suffix, k + 2), table(x["rows"], host=True), text)
                text = put("passes-table" + suffix, table(doc["mean_of_passes"], host=True, passes=True), text)
            for size, t in tables.items():
                text = re.sub(r"(<!-- calibrate-%s -->\n```\n).*?(```)" % re.escape(size_tag(size) + suffix),
                              lambda m: m.group(1) + t.replace(tmp + "/", "") + m.group(2), text, flags=re.S)
    if text is not None:
        text = re.sub(r"(<!-- references-summary -->\n).*?(<!-- /references-summary -->)",
                      lambda m: m.group(1) + references_summary(sessions, results) + m.group(2), text, flags=re.S)
        for md, page in zip(mds, text.split(PAGE_BREAK)):
            outputs[md] = page
    if a.check:
        def norm(t):
            return re.sub(r'commit: "[^"]*"', "commit", t)
        stale = [p for p, t in outputs.items() if not os.path.exists(p) or open(p).read() != t]
        for made, committed in committed_models:
            if not os.path.exists(committed) or norm(open(committed).read()) != norm(open(made).read()):
                stale.append(committed)
        if stale:
            print("validation.py: out of date: %s (run scripts/validation.py)" % ", ".join(os.path.relpath(p, ROOT) for p in stale))
            return 1
        print("validation.py: docs/data/validation.json, docs/validation.md, docs/validation-sessions.md and the models are current")
        return 0
    for p, t in outputs.items():
        open(p, "w").write(t)
    if a.data and len(results[0][2].get("machines") or {}) > 1:
        print("Note: " + MANY_MACHINES % len(results[0][2]["machines"]) + " (%s, runs per machine: %s).\n" % (
            MACHINES, ", ".join("%s: %d" % kv for kv in results[0][2]["machines"].items())))
    print(table(first_rows), end="")
    if a.data:  # a new session: its verdict too, the mean of its passes
        doc = results[0][2]
        verdict = doc.get("mean_of_passes") or doc.get("mean_of_passes_as_calibrated")
        if verdict:
            print("\nThe mean of the passes (%s):\n" % ("with the references" if doc.get("mean_of_passes") else "as calibrated"))
            print(table(verdict, passes=True), end="")
        if doc.get("mean_of_passes_with_own_steal"):
            print("\nBeside it, each run's CPU phases slowed by its own steal (the protocol's second figure):\n")
            print(table(doc["mean_of_passes_with_own_steal"], passes=True), end="")
        if doc.get("pooled"):
            print("\nPooled with %s (each row's errors averaged over the sessions%s):\n" % (
                ", ".join(doc["pooled"]["sessions"][:-1]), "; no verdict: " + doc["pooled"]["no_verdict"]
                if doc["pooled"].get("no_verdict") else ""))
            print(pooled_table(doc["pooled"]["rows"], doc["pooled"]["sessions"]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
