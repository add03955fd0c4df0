"""The what-ifs of scripts/validation_misses.py: a session's rows predicted again with a
model other than the protocol's (another GPU sharing law, another CPU contention law, the
phase times measured in the row, the calibration without its contended runs or from one
end of the lease, the GPU phases holding two host threads), and the helpers they share
(a session's pass suffixes, verdicts side by side). Each table_* prints the numbered table
of validation_misses.py that its docstring names; they calibrate and predict with provesim
(BIN), so validation_misses.py runs them only when BIN exists. Only the standard library."""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from validation import scaled_model  # noqa: E402  (one model scaler)
from validation_store import (CPU, GPU, model_means, model_time, row_passes, run_model_time,  # noqa: E402
                              run_order, run_phase_ratio, runs, synth_beside)
from validation_probes import host_threads_probe  # noqa: E402


def table_gpu_law(data, binp):
    """x20-w2 (the one held-out row whose GPU phases overlap: its mutex leaves b_g2 out),
    each of its passes predicted as calibrated, under the law the model was calibrated with
    (shared: each of n phases at 1 / (1 + s (n - 1))); with the order of start that
    calibrate --gpu-order fits from the same overlap runs (the phase that started first at
    1 / (1 + s1 (n - 1))); and with an exclusive GPU (one phase at a time, first come first
    served). Laws fitted from the calibration runs, or a sensitivity (exclusive); nothing
    is fitted to the row."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tempfile
    import validation as V
    row = {r["name"]: r for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))}.get("x20-w2")
    model = os.path.join(data, "model-220.yaml")
    if not row or not os.path.exists(os.path.join(data, "runs", "x20-w2.sets")) or not os.path.exists(model):
        return
    calib = V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib.tsv"))
    ordered, tables = V.calibrate(binp, data, [r for r in calib if r["size"] == "2^20"], tempfile.mkdtemp(),
                                  extra=V.protocol_flags(data) + ["--gpu-order"])
    fit = re.search(r"started first ([0-9.]+), the other ([0-9.]+)", tables["2^20"])
    print("## 12. x20-w2 under three GPU sharing laws: shared with the fitted interference, shared by "
          "order of start, or exclusive\n")
    print("Order of start fitted from the session's overlap runs (`calibrate --gpu-order`): %s.\n" % (
        "the phase that started first s1 = %s, the other s = %s" % fit.groups() if fit else "not identified"))
    print("| pass | law | util predicted | measured | error | throughput pred / meas (p/s) | error |")
    print("|---|---|---|---|---|---|---|")
    laws = (("shared", {"2^20": model}, []), ("by order of start", ordered, []),
            ("exclusive", {"2^20": model}, ["system.gpu_sharing=exclusive"]))
    for name in ("x20-w2", "x20-w2-p2", "x20-w2-p3"):
        if not os.path.exists(os.path.join(data, "runs", name + ".sets")):
            continue
        for law, models, extra in laws:
            r = V.validate(binp, data, models, dict(row, name=name), extra=extra)
            print("| %s | %s | %.1f%% | %.1f%% | %+.1f pp | %.2f / %.2f | %+.1f%% |" % (
                name, law, 100 * r["gpu_util"]["predicted"], 100 * r["gpu_util"]["measured"],
                r["gpu_util"]["error_pp"], r["throughput_pps"]["predicted"], r["throughput_pps"]["measured"],
                r["throughput_pps"]["error_pct"]))
    print()


def table_contention_within(data, binp):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import argparse as ap
    import tempfile
    import validation as V
    name = os.path.basename(data)
    sess = [x for x in V.SESSIONS if x[0] == name]
    if not sess:
        return
    calib = V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib.tsv"))
    matrix = V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))
    verdict = lambda doc: (doc.get("mean_of_passes") or (doc.get("with_bracketing_references") or {}).get("rows")
                           or doc["rows"])
    docs, fits = [], []
    for how in ("across", "within"):
        tmp = tempfile.mkdtemp()
        a = ap.Namespace(bin=binp, check=True, extra=["--contention", how])
        models, tables, doc = V.session(a, calib, matrix, tmp, data, None, False, sess[0][6])
        docs.append({r["name"]: r for r in verdict(doc)})
        fits.append(", ".join("%s %s" % (k, m.group(1)) for k, t in sorted(tables.items())
                              for m in [re.search(r"slow by 1/\(1 \+ ([0-9.]+) m\)", t)] if m))
    print("## 14. The verdict with the cpu contention fitted across runs (the protocol's) or within each run\n")
    print("cpu_contention across runs: %s; within each run: %s. Rows whose verdict or utilization error "
          "moves by 0.3 pp or more.\n" % (fits[0], fits[1]))
    print("| row | across: util error, tput error | within: util error, tput error | within target (across / within) |")
    print("|---|---|---|---|")
    for k, r in docs[0].items():
        w = docs[1].get(k)
        if not w or (abs(w["gpu_util"]["error_pp"] - r["gpu_util"]["error_pp"]) < 0.3
                     and w["within_target"] == r["within_target"]):
            continue
        print("| %s | %+.1f pp, %+.1f%% | %+.1f pp, %+.1f%% | %s / %s |" % (
            k, r["gpu_util"]["error_pp"], r["throughput_pps"]["error_pct"], w["gpu_util"]["error_pp"],
            w["throughput_pps"]["error_pct"], "yes" if r["within_target"] else "no", "yes" if w["within_target"] else "no"))
    n = [sum(x["within_target"] for x in d.values()) for d in docs]
    print("\nWithin target: %d of %d across runs, %d of %d within each run.\n" % (n[0], len(docs[0]), n[1], len(docs[1])))


def table_own_reference(data, binp):
    """Probe 3's rounds read as the seventh session's protocol would: each locked run
    (two workers; three on 8 cores) predicted with the CPU phases scaled by the host factor
    its own one-worker run of the same round measured (one worker at the threads each of
    its workers gets, on its cores: p-one22-t7, p-one22-t2-c8), against the 2^22 model's
    CPU time per partition at those threads; with the session's model (contention fitted
    across runs) and with the contention fitted within each run."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tempfile
    import validation as V
    d = os.path.join(data, "probe-3")
    rd = os.path.join(d, "runs")
    model = os.path.join(data, "model-222.yaml")
    if not os.path.isdir(rd) or not os.path.exists(model) or os.path.basename(data) not in {x[0] for x in V.SESSIONS}:
        return
    calib = [r for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib.tsv")) if r["size"] == "2^22"]
    tmp = tempfile.mkdtemp()
    within, _ = V.calibrate(binp, data, calib, tmp, extra=V.protocol_flags(data) + ["--contention", "within"])
    models = (("across runs (the session's)", model), ("within each run", within["2^22"]))
    print("## 15. Probe 3 read with references of each run's own threads and cores (2^22)\n")
    print("Host factor f: the one-worker run's CPU time per partition in the same round over the model's at its "
          "threads. Error of the prediction with the CPU phases scaled by f.\n")
    print("| run | reference | f | contention | util pred / meas | error | throughput pred / meas | error |")
    print("|---|---|---|---|---|---|---|---|")
    errs = {}
    for kind, one in (("k22-w2", "one22-t7"), ("k22-w3-c8", "one22-t2-c8")):
        for r in (1, 2, 3):
            name, ref = "p-%s-%d" % (kind, r), "p-%s-%d" % (one, r)
            rp = os.path.join(rd, ref + ".spans.jsonl.gz")
            if not os.path.exists(os.path.join(rd, name + ".sets")) or not os.path.exists(rp):
                continue
            thr = json.load(open(os.path.join(rd, ref + ".json")))["scenario"]["system"]["threads"].get(
                "threads_per_worker") or 1
            for label, mp in models:
                mm = model_means(mp)
                f = V.cpu_per_partition(rp) / sum(model_time(mm[p], thr, 1) for p in CPU)
                text = open(mp).read()
                sp = os.path.join(tmp, "%s-%d.yaml" % (name, len(label)))
                open(sp, "w").write(scaled_model(text, {p: f for p in CPU}))
                v = V.validate(binp, d, {"2^22": sp}, {"name": name, "size": "2^22", "overrides": []})
                u, x = v["gpu_util"], v["throughput_pps"]
                errs.setdefault((kind, label), []).append((u["error_pp"], x["error_pct"]))
                print("| %s | %s | %.3f | %s | %.1f%% / %.1f%% | %+.1f pp | %.2f / %.2f | %+.1f%% |" % (
                    name, ref, f, label, 100 * u["predicted"], 100 * u["measured"], u["error_pp"], x["predicted"],
                    x["measured"], x["error_pct"]))
    print()
    for (kind, label), v in errs.items():
        print("- %s, contention %s: mean error %+.1f pp, %+.1f%% over %d rounds" % (
            kind, label, sum(a for a, _ in v) / len(v), sum(b for _, b in v) / len(v), len(v)))
    print()


def table_explained(data, models, binp, rows):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tempfile
    import validation as V
    print("## 7. The misses predicted again with the phase times measured in the row\n")
    print("| scenario | phases rescaled (measured / model) | util predicted, calibrated model | with the row's phase "
          "times | measured | throughput pred. / with / measured (p/s) |")
    print("|---|---|---|---|---|---|")
    rr = dict(runs(data))
    mats = {r["name"]: r for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))}
    tmp = tempfile.mkdtemp()
    for name in rows:
        if name not in rr or name not in mats:
            continue
        d, row = rr[name], mats[name]
        path = os.path.join(data, "model-%s.yaml" % row["size"].replace("^", ""))
        mm = model_means(path)
        ratios = {p: run_phase_ratio(d, p, mm[p]) for p in CPU + GPU}
        alt = os.path.join(tmp, "%s.yaml" % name)
        open(alt, "w").write(scaled_model(open(path).read(), ratios))
        base = V.validate(binp, data, {row["size"]: path}, row)
        new = V.validate(binp, data, {row["size"]: alt}, row)
        print("| %s | %s | %.1f%% (%+.1f pp) | %.1f%% (%+.1f pp) | %.1f%% | %.2f / %.2f / %.2f |" % (
            name, ", ".join("%s %.2f" % kv for kv in ratios.items()), 100 * base["gpu_util"]["predicted"],
            base["gpu_util"]["error_pp"], 100 * new["gpu_util"]["predicted"], new["gpu_util"]["error_pp"],
            100 * base["gpu_util"]["measured"], base["throughput_pps"]["predicted"],
            new["throughput_pps"]["predicted"], d["metrics"]["throughput_pps"]))
    print()


def table_contention_law(data, binp):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tempfile
    import validation as V
    print("## 8. Could a CPU contention law 1/(1 + c m) cover the four-worker rows? (2^20)\n")
    print("Every held-out row predicted again with the 2^20 model's `cpu_contention` set to c "
          "(calibrated: 0; the 2^22 overlap run gives 0.1247). A sensitivity, not a fit.\n")
    # the rows this session measured (the sixth had one GPU: no k20-g2-w2)
    mat = [r for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))
           if os.path.exists(os.path.join(data, "runs", r["name"] + ".sets"))]
    show = [n for n in ("k20-g2-w2", "k20-w4", "k20-w2-c8", "k20-w2-c4") if n in {r["name"] for r in mat}]
    print("| c | rows within target | %s |" % " | ".join("%s util error" % n for n in show))
    print("|---|---|%s" % ("---|" * len(show)))
    path = os.path.join(data, "model-220.yaml")
    models = {"2^20": path, "2^22": os.path.join(data, "model-222.yaml")}
    text = re.sub(r"^cpu_contention: .*\n", "", open(path).read(), flags=re.M)
    tmp = tempfile.mkdtemp()
    for c in (0, 0.01, 0.02, 0.03, 0.05, 0.1247):
        alt = os.path.join(tmp, "c%g.yaml" % c)
        open(alt, "w").write(text.replace("\ngpu_overlap:", "\ncpu_contention: %g\ngpu_overlap:" % c, 1))
        rows = {r["name"]: V.validate(binp, data, dict(models, **{"2^20": alt}), r) for r in mat}
        print("| %g | %d of %d | %s |" % (c, sum(r["within_target"] for r in rows.values()), len(rows), " | ".join(
            "%+.1f pp%s" % (rows[n]["gpu_util"]["error_pp"], "" if rows[n]["within_target"] else " (miss)")
            for n in show)))
    print()


def table_gate_what_if(data, binp):
    """The protocol's model against the same calibration without the runs kept above the
    gate (their last try, session.sh GATE_EACH; where DATA/rejected-K exists) and with every
    run's cpu spans made quiet (calibrate --steal-exponent 1.26, probe 8's slope; where the
    spans headers record host_steal), each judged on the mean of the session's passes as
    calibrated (what-ifs: the protocol's verdict is the first column)."""
    import glob
    import tempfile
    import validation as V
    calib = V.protocol_calibration(data, V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib.tsv")))
    matrix = V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))
    runs = os.path.join(data, "runs")
    made = [r for r in calib if os.path.exists(os.path.join(runs, r["name"] + ".spans.jsonl.gz"))]
    steal = {r["name"]: V.header_steal(os.path.join(runs, r["name"] + ".spans.jsonl.gz")) for r in made}
    if not made or all(v is None for v in steal.values()):
        return
    above = [n for n, v in steal.items() if (v or 0) > 0.02]
    sufs = pass_suffixes(data)
    verdict = lambda models: passes_verdict(binp, data, models, matrix, sufs)
    flags = V.protocol_flags(data)
    cols = [("the protocol's (%d runs)" % len(made), V.calibrate(binp, data, calib, tempfile.mkdtemp(), extra=flags)[0])]
    if glob.glob(os.path.join(data, "rejected-*")):
        cols.append(("without the %d kept above the gate (%s)" % (len(above), ", ".join(above)),
                     V.calibrate(binp, data, [r for r in calib if r["name"] not in above], tempfile.mkdtemp(),
                                 extra=flags)[0]))
    cols.append(("cpu spans made quiet (--steal-exponent 1.26)",
                 V.calibrate(binp, data, calib, tempfile.mkdtemp(), extra=flags + ["--steal-exponent", "1.26"])[0]))
    print("## 22. The calibration's shared host: the passes' verdict with its runs left out or made quiet\n")
    print("What-ifs beside the protocol's model: the calibration runs kept above the gate left out, or every "
          "run's cpu spans taken as (1 - host_steal)^1.26 of their length (the slope probe 8 measured). Mean of "
          "the passes as calibrated, utilization error (pp) and throughput error (%) per row.\n")
    verdict_columns([(n, verdict(models)) for n, models in cols])


def pass_suffixes(data):
    """The suffixes of a session's passes ("" for the first), from its run lists in
    validation.py's SESSIONS (the newest protocol's for a session it does not list)."""
    import validation as V
    vdir = os.path.join(ROOT, "docs", "data", "validation")
    name = os.path.relpath(data, vdir)
    lists = next((x[6] for x in V.SESSIONS if x[0] == name), V.PASSES)
    return [V.pass_suffix(os.path.join(vdir, t)) for t in lists]


def passes_verdict(binp, data, models, matrix, sufs, steal=False, extra_of=lambda name: ()):
    """The mean of a session's passes (SUFS, pass_suffixes) predicted with MODELS: as
    calibrated (each run with the --set overrides extra_of(its name)), or with each run's
    CPU phases slowed by its own steal; None without passes."""
    import tempfile
    import validation as V
    tmp = tempfile.mkdtemp() if steal else None
    passes = [p for p in ((V.pass_with_own_steal(binp, data, models, matrix, suf, tmp) if steal else
                           V.pass_as_calibrated(binp, data, models, matrix, suf, extra_of)) for suf in sufs) if p]
    return V.mean_of_passes(passes[0], passes[1:]) if passes else None


def verdict_columns(cols):
    """Verdicts side by side (tables 22 and 24): (heading, rows of mean_of_passes) per column,
    each row's utilization and throughput errors, then the count within the target and the
    mean absolute errors."""
    print("| row | %s |" % " | ".join(n for n, _ in cols))
    print("|---|%s" % ("---|" * len(cols)))
    for i, r in enumerate(cols[0][1]):
        print("| %s | %s |" % (r["name"], " | ".join("%+.1f pp, %+.1f%%%s" % (
            x[i]["gpu_util"]["error_pp"], x[i]["throughput_pps"]["error_pct"], "" if x[i]["within_target"] else " (out)")
            for _, x in cols)))
    print("| within the target | %s |" % " | ".join("%d of %d" % (sum(r["within_target"] for r in x), len(x)) for _, x in cols))
    print("| mean absolute error | %s |" % " | ".join("%.2f pp, %.2f%%" % (
        sum(abs(r["gpu_util"]["error_pp"]) for r in x) / len(x), sum(abs(r["throughput_pps"]["error_pct"]) for r in x) / len(x))
        for _, x in cols))
    print()


def pooled_columns(named, arrivals):
    """verdict_columns' columns from sessions pooled as their protocol pools them: NAMED is
    (heading, [each session's mean of passes]) per column; a row's errors are the mean over
    the sessions (validation.pooled)."""
    import validation as V
    return [(label, [{"name": r["name"], "within_target": r["within_target"],
                      "gpu_util": {"error_pp": r["util_error_pp_mean"]},
                      "throughput_pps": {"error_pct": r["tput_error_pct_mean"]}} for r in V.pooled(sess, arrivals)])
            for label, sess in named]


def table_lease_drift(data, binp):
    """Table 24: the host's drift between the calibrations at the two ends of the lease, and
    the passes' verdict by either calibration alone and with the runs' own steal."""
    import tempfile
    import validation as V
    vdir = os.path.join(ROOT, "docs", "data", "validation")
    cal1, cal2 = V.read_tsv(os.path.join(vdir, "calib.tsv")), V.read_tsv(os.path.join(vdir, "calib-2.tsv"))
    runs = os.path.join(data, "runs")
    sp = lambda n: os.path.join(runs, n + ".spans.jsonl.gz")
    pairs = [(r["name"], r["name"] + "-c2") for r in cal1 if os.path.exists(sp(r["name"])) and os.path.exists(sp(r["name"] + "-c2"))]
    if not pairs:
        return
    print("## 24. The lease's drift: the calibration at each end, and the runs' own steal\n")
    print("Each setting of the calibration run at both ends of the lease, where both runs lost at most 2% of their "
          "cores' busy time to steal: CPU time per partition (every CPU phase, each worker's first two calls left "
          "out), first over second.\n")
    print("| run | host_steal, first / second | CPU ms per partition, first / second | ratio |")
    print("|---|---|---|---|")
    ratios = []
    for a, b in pairs:
        sa, sb = V.header_steal(sp(a)) or 0.0, V.header_steal(sp(b)) or 0.0
        if sa > 0.02 or sb > 0.02:
            continue
        x, y = V.cpu_per_partition(sp(a)), V.cpu_per_partition(sp(b))
        ratios.append(x / y)
        print("| %s | %.1f%% / %.1f%% | %.1f / %.1f | %.3f |" % (a, 100 * sa, 100 * sb, 1e3 * x, 1e3 * y, x / y))
    ratios.sort()
    n = len(ratios)
    if n:
        print("\n%d quiet pairs: median ratio %.3f, range %.3f to %.3f; %d of %d above 1.03.\n" % (
            n, ratios[n // 2] if n % 2 else (ratios[n // 2 - 1] + ratios[n // 2]) / 2, ratios[0], ratios[-1],
            sum(x > 1.03 for x in ratios), n))
    else:
        print("\nNo quiet pair: in each of the %d pairs one run or both lost more than 2%% of its cores' busy time "
              "to steal.\n" % len(pairs))
    # the verdict by either calibration alone needs the second one at every size the first
    # has (the twelfth protocol's; the twenty-fourth repeats only a few 2^20 runs)
    sizes = lambda cal: {r["size"] for r in cal if os.path.exists(sp(r["name"]))}
    if sizes(cal2) != sizes(cal1):
        print("The second calibration ran at %s only, against %s for the first: no verdict by either alone.\n" % (
            ", ".join(sorted(sizes(cal2))) or "no size", ", ".join(sorted(sizes(cal1)))))
        return
    # and, at each size, its one-worker runs at two thread counts or more, or calibrate cannot
    # fit the scaling laws from it (a session cut short in its second calibration)
    threads = lambda cal, size: {tuple(o for o in r["overrides"] if "threads" in o) for r in cal
                                 if r["size"] == size and os.path.exists(sp(r["name"]))
                                 and "system.workers_per_gpu=1" in r["overrides"]
                                 and not any("batch" in o for o in r["overrides"])}
    short = sorted(s for s in sizes(cal2) if len(threads(cal2, s)) < 2)
    if short:
        print("The second calibration ran one thread count only at %s: no verdict by either alone.\n" %
              ", ".join(short))
        return
    matrix = V.read_tsv(os.path.join(vdir, "matrix.tsv"))
    sufs = pass_suffixes(data)
    flags = V.protocol_flags(data)

    verdict = lambda models, steal=False: passes_verdict(binp, data, models, matrix, sufs, steal)
    both = V.calibrate(binp, data, cal1 + cal2, tempfile.mkdtemp(), extra=flags)[0]
    cols = [("both calibrations (the protocol's)", verdict(both)),
            ("the first alone", verdict(V.calibrate(binp, data, cal1, tempfile.mkdtemp(), extra=flags)[0])),
            ("the second alone", verdict(V.calibrate(binp, data, cal2, tempfile.mkdtemp(), extra=flags)[0])),
            ("the protocol's, each run slowed by its own steal", verdict(both, steal=True))]
    print("The mean of the passes as calibrated, utilization error (pp) and throughput error (%) per row "
          "(what-ifs; the protocol's verdict is the first column):\n")
    verdict_columns(cols)


# The session whose probe 11 gives table 30's measured host threads (docs/validation-sessions.md,
# "A nineteenth session").
PROBE11 = os.path.join(ROOT, "docs", "data", "validation", "h200-19")


def table_host_threads(data, binp, rows=None):
    """Table 30: the session's passes as calibrated, with the protocol's model and with the
    same model's GPU phases holding the host threads probe 11 measured (PROBE11's reading,
    to two decimals; the engine keeps 64ths of a thread) or two instead of one (what-ifs:
    the model's other parameters stay as fitted); ROWS, when given, only those rows (a
    test's)."""
    import tempfile
    import validation as V
    calib = V.protocol_calibration(data, V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "calib.tsv")))
    matrix = [r for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))
              if rows is None or r["name"] in rows]
    sufs = pass_suffixes(data)
    models = V.calibrate(binp, data, calib, tempfile.mkdtemp(), extra=V.protocol_flags(data))[0]
    def with_host_threads(h):
        out, d = {}, tempfile.mkdtemp()
        for size, path in models.items():
            out[size] = os.path.join(d, os.path.basename(path))
            with open(path) as src, open(out[size], "w") as dst:
                # every GPU phase's host_threads, whether the template's 1 or fitted from cpu_s
                dst.write(re.sub(r"(?m)^(\s*host_threads: )[0-9.eE+-]+$", r"\g<1>" + h, src.read()))
        return out
    probe = host_threads_probe(PROBE11)
    cols = [("host_threads: 1 (the protocol's)", passes_verdict(binp, data, models, matrix, sufs))]
    if probe and probe["h"] is not None:
        h = "%.2f" % probe["h"]
        cols.append(("host_threads: %s (probe 11)" % h, passes_verdict(binp, data, with_host_threads(h), matrix, sufs)))
    cols.append(("host_threads: 2", passes_verdict(binp, data, with_host_threads("2"), matrix, sufs)))
    if not cols[0][1]:
        return
    print("## 30. The GPU phases' host threads: the passes' verdict with one, as probe 11 measured, or two\n")
    print("The mean of the passes as calibrated, utilization error (pp) and throughput error (%) per row: the "
          "protocol's model, whose GPU phases each hold one host thread (or what calibrate fitted from their cpu_s), and the same model with the host threads "
          "probe 11 measured (the nineteenth session's probe, table 31) and with two (the other parameters as "
          "fitted). What-ifs, not fits.\n")
    verdict_columns(cols)


def pooled_sessions(datas, rows=None):
    """What tables 37-40 share: the held-out rows (matrix.tsv's, only ROWS when given), the
    arrivals rows among them, and per session of DATAS with a validation.json its folder,
    its protocol's calibration runs and its passes' suffixes."""
    import validation as V
    vdir = os.path.join(ROOT, "docs", "data", "validation")
    matrix = [r for r in V.read_tsv(os.path.join(vdir, "matrix.tsv")) if rows is None or r["name"] in rows]
    arrivals = [r["name"] for r in matrix if any("arrivals" in o for o in r["overrides"])]
    sessions = [(d, V.protocol_calibration(d, V.read_tsv(os.path.join(vdir, "calib.tsv"))), pass_suffixes(d))
                for d in datas if os.path.exists(os.path.join(d, "validation.json"))]
    return matrix, arrivals, sessions


# calibrate's options that the twenty-ninth protocol adds to its sessions' (docs/validation.md)
PROTOCOL_29 = ["--mutex-overhead", "fit", "--host-threads", "load"]


def protocol_models(binp, d, calib, extra=()):
    """Session D's models calibrated from CALIB (its runs) as the thirtieth protocol's
    sessions are: its own protocol's flags and the twenty-ninth protocol's (PROTOCOL_29),
    then EXTRA."""
    import tempfile
    import validation as V
    return V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=V.protocol_flags(d) + PROTOCOL_29 + list(extra))[0]


def table_mutex_overhead(datas, binp, rows=None):
    """Table 37: the sessions of DATAS pooled as their protocol pools them (each session's
    model predicts its own passes, a row's errors the mean over the sessions), with the
    protocol's model, with the mutex's own time in a hold fitted from the same calibration
    runs (calibrate --mutex-overhead holds, table 36's pre and post), and with a handover's
    wake too, taken as the acquire's (--mutex-overhead fit); each session's fitted values.
    ROWS, when given, only those rows (a test's)."""
    import tempfile
    import validation as V
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    base, holds, fit, fitted = [], [], [], []
    for d, calib, sufs in sessions:
        m0 = V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=V.protocol_flags(d))[0]
        m1, tables = V.calibrate(binp, d, calib, tempfile.mkdtemp(),
                                 extra=V.protocol_flags(d) + ["--mutex-overhead", "holds"])
        m2 = V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=V.protocol_flags(d) + ["--mutex-overhead", "fit"])[0]
        a, b, c = (passes_verdict(binp, d, m, matrix, sufs) for m in (m0, m1, m2))
        if not a or not b or not c:
            continue
        base.append(a), holds.append(b), fit.append(c)
        got = re.search(r"acquire to the first phase ([0-9.]+) us, the last phase to the release ([0-9.]+) us",
                        tables.get("2^20", ""))
        fitted.append("%s: %s" % (os.path.basename(os.path.normpath(d)),
                                  "acquire %s us, release %s us" % got.groups() if got else "none"))
    if not base:
        return
    print("## 37. The mutex's own time fitted: the sessions pooled, with and without it\n")
    print("The sessions pooled as their protocol pools them (each session's model predicts its own passes; a row's "
          "errors are the mean over the sessions), with the protocol's model, with the mutex's own time in a hold "
          "fitted from the same one-worker calibration runs (`calibrate --mutex-overhead holds`, the medians of "
          "table 36's pre and post), and with a handover's wake too, taken as the acquire's (`--mutex-overhead fit`, "
          "calibrate's default), everything else as fitted. A reading, not a verdict: the protocols so far fixed "
          "their models without it. Fitted at 2^20: %s.\n" % "; ".join(fitted))
    verdict_columns(pooled_columns((("the protocol's model", base), ("with the mutex's own time", holds),
                                    ("and a handover's wake", fit)), arrivals))


def table_host_load(datas, binp, rows=None):
    """Table 38: the sessions of DATAS pooled as table 37 pools them, calibrated with the
    mutex's own time (calibrate's default), with the GPU phases' host threads as fitted from
    the spans' cpu_s (the launching thread's own CPU time) and with the host load calibrate
    fits from the calibration's runs on fewer and more cores (--host-threads load: how much
    slower prep, which runs beside ntt_h, ran at 3 threads on 4 cores than on 16); each
    session's fitted load at 2^20. ROWS, when given, only those rows (a test's)."""
    import tempfile
    import validation as V
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    base, loaded, fitted = [], [], []
    for d, calib, sufs in sessions:
        flags = V.protocol_flags(d) + ["--mutex-overhead", "fit"]
        m0 = V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=flags)[0]
        m1, tables = V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=flags + ["--host-threads", "load"])
        got = re.search(r"host load of the GPU phases: ([0-9.]+) threads \((.*?); ", tables.get("2^20", ""))
        if not got:
            continue
        a, b = passes_verdict(binp, d, m0, matrix, sufs), passes_verdict(binp, d, m1, matrix, sufs)
        if not a or not b:
            continue
        base.append(a), loaded.append(b)
        fitted.append("%s: %s threads (%s)" % (os.path.basename(os.path.normpath(d)), got.group(1), got.group(2)))
    if not base:
        return
    print("## 38. The GPU phases' host load fitted from the runs on fewer cores: the sessions pooled\n")
    print("The sessions pooled as table 37 pools them, each calibrated with the mutex's own time (calibrate's "
          "default), with the GPU phases' host threads as fitted from the spans' `cpu_s` (the launching thread's own "
          "CPU time, 1.00) and with the host load `calibrate --host-threads load` fits from the calibration's runs at "
          "the same threads on fewer and more cores (at 2^20 prep, which runs beside ntt_h, at 3 threads on 4 cores, "
          "`cal20-c4-t3`, and on 16, `cal20-c16-t3`): the host threads of every GPU phase that make the model's ratio "
          "of the two equal the runs'. A reading, not a verdict. Fitted at 2^20: %s.\n" % "; ".join(fitted))
    verdict_columns(pooled_columns((("host threads from cpu_s", base), ("host load from the runs on fewer cores", loaded)),
                                   arrivals))


def table_contention_significant(datas, binp, rows=None):
    """Table 39: the sessions of DATAS pooled as table 37 pools them, with the twenty-ninth
    protocol's model (table 38's last column: the mutex's own time and the host load) and
    with the same model whose cpu contention counts only when the fit within each overlap
    run lies two standard errors or more from 0 (calibrate --contention significant); each
    session's fits at each size. ROWS, when given, only those rows (a test's)."""
    import tempfile
    import validation as V
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    base, signif, fits = [], [], []
    for d, calib, sufs in sessions:
        flags = V.protocol_flags(d) + PROTOCOL_29
        m0 = V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=flags)[0]
        m1, tables = V.calibrate(binp, d, calib, tempfile.mkdtemp(), extra=flags + ["--contention", "significant"])
        a, b = passes_verdict(binp, d, m0, matrix, sufs), passes_verdict(binp, d, m1, matrix, sufs)
        if not a or not b:
            continue
        base.append(a), signif.append(b)
        per = []
        for size in sorted(tables):
            got = re.search(r"CPU contention within each run: ([0-9.]+) \(.*?standard error ([0-9.a-z]+)\).*?"
                            r"the model takes (within|0)", tables[size])
            if got:
                per.append("%s %s (standard error %s, %s)" % (size, got.group(1), got.group(2),
                                                             "kept" if got.group(3) == "within" else "taken as 0"))
        fits.append("%s: %s" % (os.path.basename(os.path.normpath(d)), ", ".join(per) or "no fit within the runs"))
    if not base:
        return
    print("## 39. The cpu contention only where the overlap runs resolve it: the sessions pooled\n")
    print("The sessions pooled as table 37 pools them, each calibrated with the twenty-ninth protocol's model (the "
          "mutex's own time and the GPU phases' host load: table 38's last column) and with the same model whose cpu "
          "contention, fitted within each overlap run, counts only when it lies two standard errors or more from 0 "
          "(`calibrate --contention significant`; otherwise 0). A reading, not a verdict. The fits within the runs: "
          "%s.\n" % "; ".join(fits))
    verdict_columns(pooled_columns((("the twenty-ninth protocol's model", base),
                                    ("contention only where resolved", signif)), arrivals))


def calibration_median_steal(d, calib):
    """The median steal of session D's calibration runs (CALIB, those it made) and how many
    runs gave one: (None, 0) when none did."""
    import statistics
    import validation as V
    spans = [os.path.join(d, "runs", r["name"] + ".spans.jsonl.gz") for r in calib]
    steals = [s for s in (V.header_steal(p) for p in spans if os.path.exists(p)) if s is not None]
    return (statistics.median(steals) if steals else None), len(steals)


def steal_set(s, k=1.26):
    """The --set override of system.host_steal at share S (clamped to [0, 0.9]), exponent K."""
    return ["system.host_steal={share: %.6f, exponent: %g}" % (min(max(s, 0.0), 0.9), k)]


def table_host_steal(datas, binp, rows=None, k=1.26):
    """Table 40: the sessions of DATAS pooled as table 37 pools them, predicted with the
    twenty-ninth protocol's model (a quiet host: its calibration runs made quiet) and with
    the scenario key system.host_steal: at the median steal of the session's calibration
    runs and at the steal of the run just before the row in the session's log (the median
    for the log's first run; both known before a row runs), and at each held-out run's own steal (its spans header; the
    protocol's second figure, now through the key), all with the protocol's exponent K.
    ROWS, when given, only those rows (a test's)."""
    import validation as V
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    cols, medians = ([], [], [], []), []
    at = lambda s: steal_set(s, k)
    for d, calib, sufs in sessions:
        spans = lambda n: os.path.join(d, "runs", n + ".spans.jsonl.gz")
        med, nsteal = calibration_median_steal(d, calib)
        if med is None:
            continue
        models = protocol_models(binp, d, calib)
        # the run just before each one in the session's log (its steal known before the run)
        order = run_order(d)
        before = {b: a for a, b in zip(order, order[1:])}
        got = [passes_verdict(binp, d, models, matrix, sufs, extra_of=f) for f in (
            lambda n: [], lambda n: at(med),
            lambda n: at(V.header_steal(spans(before[n])) or 0.0
                         if n in before and os.path.exists(spans(before[n])) else med),
            lambda n: at(V.header_steal(spans(n)) or 0.0))]
        if not all(got):
            continue
        for c, g in zip(cols, got):
            c.append(g)
        medians.append("%s %.2f%% (%d runs)" % (os.path.basename(os.path.normpath(d)), 100 * med, nsteal))
    if not cols[0]:
        return
    print("## 40. The host's steal in the scenario: the sessions pooled\n")
    print("The sessions pooled as table 37 pools them, each predicted with the twenty-ninth protocol's model (table 38's "
          "last column: a quiet host, the calibration's runs made quiet), and the same model with `system.host_steal: "
          "{share: S, exponent: %g}`: S the median steal of the session's calibration runs, every one of them, or "
          "the steal of the run just before the row in the session's log (the median for its first run; both known "
          "before the row runs), or each "
          "held-out run's own. A reading, not a verdict. The calibration runs' median steal (of their cores' busy "
          "time): %s.\n" % (k, "; ".join(medians)))
    verdict_columns(pooled_columns((("a quiet host (the protocol's)", cols[0]),
                                    ("the calibration's median steal", cols[1]),
                                    ("the run before's steal", cols[2]),
                                    ("each run's own steal", cols[3])), arrivals))
    table_verdict_noise(V.pooled(cols[1], arrivals), arrivals, "table 40's column \"the calibration's median steal\"")


def table_verdict_noise(rows, arrivals, what):
    """Table 48: how much of a pooled verdict (V.pooled's ROWS, WHAT names them) the noise
    between its sessions allows (V.verdict_noise): per row its mean error and standard error
    over the sessions, whether a row out of the target is out beyond that noise, and how
    often a model without error would be within; then the count within such a model would
    get, with verdicts of more sessions."""
    import validation as V
    draws = 10000
    per, by_m = V.verdict_noise(rows, arrivals, draws=draws)
    if not per:
        return
    n = per[0]["n"]
    print("## 48. The verdict against its sessions' noise\n")
    print("%s, %d sessions. Each row's errors over the sessions: their mean and its standard error (the sessions' sd / "
          "sqrt(%d)); \"out beyond the noise\": the row is out of the target by more than t(0.975, %d) = %.2f standard "
          "errors; \"off zero beyond the noise\": the errors whose mean is more than as many standard errors from "
          "zero (an error of the model, within the target or not). \"A model without error\": the share of %d "
          "verdicts drawn with the row's spread between these "
          "sessions and no error of its own that fall within the target (rows drawn independently; the spread of "
          "%d sessions is a rough estimate of its own).\n" % (what, n, n, n - 1, V.t975(n - 1), draws, n))
    print("| row | utilization error, mean ± se | throughput error, mean ± se | target | out beyond the noise | "
          "off zero beyond the noise | a model without error: within |")
    print("|---|---|---|---|---|---|---|")
    for p in per:
        q = "; p99 %+.1f%% ± %.1f" % (p["means"][2], p["se"][2]) if len(p["means"]) > 2 else ""
        off = ", ".join(k for k, o in zip(("utilization", "throughput", "p99"), p["off_zero"]) if o) or "-"
        print("| %s | %+.1f ± %.1f pp | %+.1f ± %.1f%%%s | %s | %s | %s | %.2f |" % (
            p["name"], p["means"][0], p["se"][0], p["means"][1], p["se"][1], q, "yes" if p["within"] else "**no**",
            "-" if p["within"] else ("**yes**" if p["beyond"] else "no"), off, p["p_within"]))
    out = [p for p in per if not p["within"]]
    print("\n%d of %d within; of the %d out, %d out beyond the noise (%s).\n" % (
        len(per) - len(out), len(per), len(out), sum(p["beyond"] for p in out),
        ", ".join(p["name"] for p in out if p["beyond"]) or "none"))
    print("| sessions in the verdict | a model without error: rows within, mean | 5th-95th percentile | every row within |")
    print("|---|---|---|---|")
    for m, (mean, lo, hi, allw, _) in sorted(by_m.items()):
        print("| %d%s | %.1f of %d | %d-%d | %.3f |" % (m, " (these)" if m == n else "", mean, len(per), lo, hi, allw))
    print("\nA model without error has %d or fewer rows within in %.3f of the draws of %d sessions.\n" % (
        len(per) - len(out), by_m[n][4], n))


def repeat_pairs(data):
    """Table 41's pairs in one session: {row: [NAME, NAME-p2]} for each held-out row of
    matrix.tsv that the session ran twice or more (its first two passes)."""
    import validation as V
    mats = {r["name"] for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))}
    return {b: [n for _, n, _ in l[:2]] for b, l in row_passes(data, mats).items() if len(l) >= 2}


def cpu_ratio(d, mm):
    """A run's CPU phases together per partition over the model's at its threads and batch."""
    meas = sum(d["metrics"]["phases_s"][p]["mean"] / d["scenario"]["system"]["batch"] for p in CPU)
    return meas / sum(run_model_time(d, mm[p]) for p in CPU)


def table_repeat_explained(datas, binp, rows=None):
    """Table 42: table 41's identical runs, each predicted again with its own phase times
    (table 7's model: every phase's time scaled by the run's measured mean over the model's).
    Per pair, the measured difference in utilization between the first and second pass, the
    difference those predictions make, and the CPU phases' speed ratio between the passes;
    pooled, the run-to-run sd (sqrt(sum d^2 / 2n)) of what was measured, of what the phase
    times explain and of the rest, beside the sd of the CPU speed between the passes and the
    sessions' host_speed sd (calibrate's, from the one-worker repeats). ROWS, when given, only
    those rows (a test's)."""
    import math
    import tempfile
    import validation as V
    mats = {r["name"]: r for r in V.read_tsv(os.path.join(ROOT, "docs", "data", "validation", "matrix.tsv"))}
    tmp, lines, du, de, dc, hs = tempfile.mkdtemp(), [], [], [], [], []
    for data in datas:
        sess = os.path.basename(os.path.normpath(data))
        rr = dict(runs(data))
        for size in ("220", "222"):
            path = os.path.join(data, "model-%s.yaml" % size)
            m = os.path.exists(path) and re.search(r"(?m)^host_speed: \{sd: ([0-9.]+)\}", open(path).read())
            if m:
                hs.append((sess, size, float(m.group(1))))
        for base, pair in sorted(repeat_pairs(data).items()):
            if rows and base not in rows:
                continue
            row = mats[base]
            path = os.path.join(data, "model-%s.yaml" % row["size"].replace("^", ""))
            mm = model_means(path)
            got = []
            for n in pair:
                d = rr[n]
                ratios = {p: run_phase_ratio(d, p, mm[p]) for p in CPU + GPU}
                alt = os.path.join(tmp, "%s-%s.yaml" % (sess, n))
                open(alt, "w").write(scaled_model(open(path).read(), ratios))
                r = V.validate(binp, data, {row["size"]: alt}, dict(row, name=n))
                got.append((r["gpu_util"]["measured"], r["gpu_util"]["predicted"], cpu_ratio(d, mm),
                            synth_beside(os.path.join(data, "runs", n + ".spans.jsonl.gz"))))
            (m1, p1, c1, b1), (m2, p2, c2, b2) = got
            du.append(m1 - m2)
            de.append(p1 - p2)
            dc.append(math.log(c1 / c2))
            lines.append("| %s | %s | %.1f%% / %.1f%% | %+.2f pp | %+.2f pp | %+.2f pp | %.3f | %.2f / %.2f |" % (
                sess, base, 100 * m1, 100 * m2, 100 * (m1 - m2), 100 * (p1 - p2), 100 * ((m1 - m2) - (p1 - p2)),
                c1 / c2, b1, b2))
    if not du:
        return
    sd = lambda v: math.sqrt(sum(x * x for x in v) / (2 * len(v)))
    print("## 42. What moves identical runs apart: each run predicted with its own phase times\n")
    print("Table 41's pairs (a held-out row's first and second pass in one session), each run predicted again "
          "with every phase's time scaled to the run's own measured mean (table 7's model, the session's "
          "committed model otherwise). Measured: the passes' difference in utilization (CUPTI); explained: the "
          "difference those two predictions make; the rest: measured less explained. CPU speed: the CPU phases' "
          "time per partition in the first pass over the second's, each against the model at its threads. Synth "
          "beside another worker's CPU phase: the mean share of its spans, each pass.\n")
    print("| session | row | utilization, pass 1 / pass 2 | measured difference | explained by the phase times | "
          "the rest | CPU time, pass 1 / pass 2 | synth beside another worker's CPU phase |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    n = len(du)
    mu, me = sum(du) / n, sum(de) / n
    cov = sum((a - mu) * (b - me) for a, b in zip(du, de))
    var_u, var_e = sum((a - mu) ** 2 for a in du), sum((b - me) ** 2 for b in de)
    corr = cov / math.sqrt(var_u * var_e) if var_u > 0 and var_e > 0 else float("nan")
    print("\nPooled over the %d pairs: run-to-run sd of utilization %.2f pp measured, %.2f pp explained by the "
          "phase times, %.2f pp the rest (correlation of measured and explained %.2f); the CPU phases' speed from "
          "one pass to the other, sd %.1f%% a run, against the sessions' host_speed sd of %s.\n" % (
              n, 100 * sd(du), 100 * sd(de), 100 * sd([a - b for a, b in zip(du, de)]), corr, 100 * sd(dc),
              ", ".join("%.1f%% (%s at 2^%s)" % (100 * s, ss, z[1:]) for ss, z, s in hs) or "none"))


# probe 15's session (docs/validation-sessions.md, "Probe 15 on an H200"): table 46's multipliers
PROBE15 = os.path.join(ROOT, "docs", "data", "validation", "h200-40")
BATCH_ROWS = ("k20-w2", "c20-w2", "k20-w2-b2", "c20-w2-b2")


def with_batch_multipliers(text, mults):
    """A calibrated model's text with each CPU phase of MULTS given its call of 2 partitions
    as 2 x the multiplier (batch: {scale: [1, 2m]}); the phases without a batch line, and the
    others, as they were."""
    for p, m in mults.items():
        text = re.sub(r"(?m)(^  - name: %s\n(?:    .*\n)*?    batch: \{scale: \[1, )[0-9.e+-]+" % re.escape(p),
                      lambda g: g.group(1) + "%.6g" % (2 * m), text, count=1)
    return text


def table_batch_what_if(datas, binp, probe=PROBE15, rows=BATCH_ROWS):
    """Table 46: the batch-2 rows and their batch-1 twins, the sessions of DATAS pooled as
    table 40 pools them (each row at its calibration's median steal), with each session's
    calibrated batch multipliers (one run, cal20-b2, at 15 threads) and with probe 15's per
    CPU phase instead (the median of four alternated rounds, one worker: at 15 threads, and
    at 7, the rows' threads). How much of the batch-2 rows' miss the calibration run's own
    multiplier makes; nothing is fitted to the rows. A session whose model has the batch's
    own law (batch.serial, one-core multipliers) is left out."""
    from validation_probes import batch_probe
    r = batch_probe(probe) if os.path.isdir(os.path.join(probe, "probe-15")) else None
    if not r or "phases" not in r:
        return
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    cols = ([], [], [])
    for d, calib, sufs in sessions:
        med = calibration_median_steal(d, calib)[0]
        if med is None:
            continue
        models = protocol_models(binp, d, calib)
        # a model with the batch's own law (batch.serial) has one-core multipliers, not probe 15's kind
        if "2^20" not in models or re.search(r"batch: \{scale: \[[^]]*\], serial:", open(models["2^20"]).read()):
            continue
        got = [passes_verdict(binp, d, models, matrix, sufs, extra_of=lambda n: steal_set(med))]
        for k in (1, 0):  # probe 15's d/c (15 threads), then b/a (7)
            alt = models["2^20"][:-len(".yaml")] + "-probe15-%d.yaml" % k
            open(alt, "w").write(with_batch_multipliers(open(models["2^20"]).read(),
                                                        {p: v[k] for p, v in r["phases"].items()}))
            got.append(passes_verdict(binp, d, dict(models, **{"2^20": alt}), matrix, sufs,
                                      extra_of=lambda n: steal_set(med)))
        if not all(got):
            continue
        for c, g in zip(cols, got):
            c.append(g)
    if not cols[0]:
        return
    print("## 46. The batch-2 rows with probe 15's batch multipliers: the sessions pooled\n")
    print("The batch-2 rows and their batch-1 twins, the sessions pooled as table 40 pools them (its column \"the "
          "calibration's median steal\"), with each session's batch multipliers as calibrated (one run, `cal20-b2`, "
          "at 15 threads) and with probe 15's instead (the median of four alternated rounds of one worker, %s: "
          "at 15 threads, %s; at 7, the rows' threads, %s). A reading, not a verdict: nothing is fitted to the "
          "rows.\n" % (os.path.relpath(os.path.join(probe, "probe-15"), ROOT),
                       ", ".join("%s %.3f" % (p, v[1]) for p, v in r["phases"].items()),
                       ", ".join("%s %.3f" % (p, v[0]) for p, v in r["phases"].items())))
    verdict_columns(pooled_columns((("as calibrated", cols[0]), ("probe 15's at 15 threads", cols[1]),
                                    ("probe 15's at 7 threads", cols[2])), arrivals))


def without_runs_columns(datas, binp, rows, drop):
    """The sessions of DATAS whose calibration ran every run of DROP, pooled as table 40
    pools them (each row at its calibration's median steal), with the model calibrate fits
    from every calibration run and from the same runs without DROP: (the sessions' names,
    the two columns, the arrivals rows), or None where no session ran them. ROWS, when given,
    only those rows (a test's)."""
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    cols, names = ([], []), []
    for d, calib, sufs in sessions:
        med = calibration_median_steal(d, calib)[0]
        if med is None or not all(os.path.exists(os.path.join(d, "runs", r + ".spans.jsonl.gz")) for r in drop):
            continue
        got = []
        for cal in (calib, [r for r in calib if r["name"] not in drop]):
            models = protocol_models(binp, d, cal)
            got.append(passes_verdict(binp, d, models, matrix, sufs, extra_of=lambda n: steal_set(med)))
        if not all(got):
            continue
        for c, g in zip(cols, got):
            c.append(g)
        names.append(os.path.basename(os.path.normpath(d)))
    return (names, cols, arrivals) if cols[0] else None


def table_batch_law_what_if(datas, binp, rows=None, run="cal20-b2-t6-a"):
    """Table 47: the sessions of DATAS whose calibration ran RUN (the fortieth protocol's
    calls of 2 partitions at 6 threads), with the model calibrate fits from every run (the
    batch's own law, batch.serial) and from the same runs without RUN (one multiplier a
    phase, the thirtieth protocol's model): how far the batch's own law moves the rows
    (without_runs_columns)."""
    got = without_runs_columns(datas, binp, rows, (run,))
    if not got:
        return
    names, cols, arrivals = got
    print("## 47. The batch's own law: the sessions that ran %s, with and without it\n" % run)
    print("%s pooled as table 40 pools them (each row at its calibration's median steal), with the model calibrate "
          "fits from every calibration run (the calls of 2 partitions at 15 threads and, in `%s`, at 6: each CPU "
          "phase's batch gets its own law, `batch.serial`) and from the same runs without `%s` (one multiplier a "
          "phase, the thirtieth protocol's model). A reading, not a verdict.\n" % (", ".join(names), run, run))
    verdict_columns(pooled_columns((("with the batch's own law", cols[0]), ("without %s" % run, cols[1])), arrivals))


# the forty-first protocol's repeats of the runs of calls of 2 partitions (interleaved-41.tsv)
BATCH_REPEATS = ("cal20-b2-t15-a", "cal20-b2-t6-b", "cal20-b2-t15-b")


def table_batch_repeats_what_if(datas, binp, rows=None):
    """Table 53: the sessions of DATAS whose calibration ran BATCH_REPEATS (the
    forty-first protocol's), with the model calibrate fits from every run (each batch
    multiplier over five runs of calls of 2) and from the same runs without the repeats
    (the fortieth protocol's model, over two): how far the repeats move the rows
    (without_runs_columns)."""
    got = without_runs_columns(datas, binp, rows, BATCH_REPEATS)
    if not got:
        return
    names, cols, arrivals = got
    print("## 53. The batch runs' repeats: the sessions that ran %s, with and without them\n" % ", ".join(BATCH_REPEATS))
    print("%s pooled as table 40 pools them (each row at its calibration's median steal), with the model calibrate "
          "fits from every calibration run (each CPU and GPU phase's multiplier for calls of 2 partitions over five "
          "runs: `cal20-b2`, `cal20-b2-t6-a` and the three) and from the same runs without the three (the fortieth "
          "protocol's model). A reading, not a verdict.\n" % ", ".join(names))
    verdict_columns(pooled_columns((("with the repeats", cols[0]), ("without them", cols[1])), arrivals))


def table_run_modes(datas, binp, rows=None):
    """Table 50: the sessions of DATAS pooled as table 40 pools them (each row at its
    calibration's median steal, the twenty-ninth protocol's model), with the protocol's model
    and with its GPU phases' modes by run (calibrate --run-modes fit: run_mode on each GPU
    phase calibrate finds in two modes): the verdict, and how many held-out runs (every pass)
    fall inside validate's 95% prediction intervals. ROWS, when given, only those rows (a
    test's)."""
    import validation as V
    matrix, arrivals, sessions = pooled_sessions(datas, rows)
    cols, inside, modes, names = ([], []), [[0, 0, 0], [0, 0, 0]], [], []
    for d, calib, sufs in sessions:
        med = calibration_median_steal(d, calib)[0]
        if med is None:
            continue
        got = []
        for c, extra in enumerate(([], ["--run-modes", "fit"])):
            models = protocol_models(binp, d, calib, extra)
            passes = [p for p in (V.pass_as_calibrated(binp, d, models, matrix, suf, lambda n: steal_set(med))
                                  for suf in sufs) if p]
            if not passes:
                break
            for p in passes:
                for r in p:
                    inside[c][0] += 1
                    inside[c][1] += r["inside_pi"]["gpu_util"]
                    inside[c][2] += r["inside_pi"]["throughput"]
            got.append(V.mean_of_passes(passes[0], passes[1:]))
            if c:
                for s in sorted(models):
                    modes += ["%s %s at %s: share %.4f, scale %.4f" % (os.path.basename(os.path.normpath(d)), p, s,
                                                                         *ph["run_mode"])
                              for p, ph in model_means(models[s]).items() if "run_mode" in ph]
        if len(got) < 2:
            continue
        for c, g in zip(cols, got):
            c.append(g)
        names.append(os.path.basename(os.path.normpath(d)))
    if not cols[0]:
        return
    print("## 50. A GPU phase's mode by run in the model: the sessions pooled, with and without it\n")
    print("%s pooled as table 40 pools them (each row at its calibration's median steal), with the twenty-ninth "
          "protocol's model and with the GPU phases calibrate finds in two modes by run given `run_mode` "
          "(`calibrate --run-modes fit`: each simulated run takes the slow mode with the calibration runs' share, "
          "the phase's mean over runs unchanged). A reading, not a verdict. The modes: %s.\n" % (
              ", ".join(names), "; ".join(modes) or "none"))
    verdict_columns(pooled_columns((("the protocol's model", cols[0]), ("with the modes by run", cols[1])), arrivals))
    print("| held-out runs (every pass) | the protocol's model | with the modes by run |")
    print("|---|---|---|")
    print("| inside validate's 95%% utilization interval | %d of %d | %d of %d |" % (
        inside[0][1], inside[0][0], inside[1][1], inside[1][0]))
    print("| inside its throughput interval | %d of %d | %d of %d |\n" % (
        inside[0][2], inside[0][0], inside[1][2], inside[1][0]))
