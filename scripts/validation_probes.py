"""The probes of docs/validation-sessions.md read from their runs (DATA/probe*/runs, each
from its runs.tar.xz on first use; what they share with validation_misses.py and
validation_whatif.py, the runs' and models' readers, is validation_store.py's). Each
table_* prints the numbered table of validation_misses.py that its docstring names, and
nothing when the session has no such probe; validation_misses.py runs them in its order.
Only the standard library."""
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from validation_store import (CPU, GPU, model_means, model_time, phase_per_partition,  # noqa: E402
                              read_spans, row_passes, run_order, run_phase_ratio, runs, runs_dir,
                              spans_per_partition, synth_beside)


def table_probe2(data):
    """The second probe (DATA/probe-2, docs/data/validation/probe-2.tsv): four rounds of one
    worker at 7 threads, two workers with the lock on the kernels and without a lock (7
    threads each), and a 2^20 reference; synthesis per partition (ms) and the two-worker
    runs over the one-worker run of the same round."""
    d = os.path.join(data, "probe-2")
    if not os.path.isdir(d):
        return
    print("## 10. Probe 2: two workers at 2^22 against one at the same threads, four rounds (DATA/probe-2)\n")
    print("| round | one worker, 7 threads | two, lock on the kernels | two, no lock | 2^20 reference | "
          "lock / one | no lock / one |")
    print("|---|---|---|---|---|---|---|")

    def synth(name):
        return 1e3 * phase_per_partition(os.path.join(d, name + ".spans.jsonl.gz"), "synth")
    rk, ro = [], []
    for i in range(1, 5):
        one, k, o, ref = (synth("q-%s-%d" % (n, i)) for n in ("cal22-t7", "k22-w2", "ovl22-w2", "ref"))
        rk.append(k / one), ro.append(o / one)
        print("| %d | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f |" % (i, one, k, o, ref, k / one, o / one))
    print("| mean | | | | | %.3f | %.3f |\n" % (sum(rk) / len(rk), sum(ro) / len(ro)))


def table_probe3(data):
    """The third probe (DATA/probe-3, docs/data/validation/probe-3.tsv): three rounds at 2^22
    of one worker at 7 threads, two workers locked and without a mutex, each with CUDA's
    default wait (spinning) and with blocked waiters (PSC_CUDA_SYNC=block), one worker at 2
    threads on 8 cores, and three workers on 8 cores, default and blocked: synthesis per
    partition (ms) over the one-worker run of the same threads and round, and throughput."""
    d = os.path.join(data, "probe-3")
    if not os.path.isdir(d):
        return
    rd = os.path.join(d, "runs")
    kinds = [("k22-w2", "one22-t7", "two locked"), ("k22-w2-block", "one22-t7", "two locked, blocked"),
             ("n22-w2", "one22-t7", "two, no mutex"), ("n22-w2-block", "one22-t7", "two, no mutex, blocked"),
             ("k22-w3-c8", "one22-t2-c8", "three on 8 cores"),
             ("k22-w3-c8-block", "one22-t2-c8", "three on 8 cores, blocked")]
    print("## 11. Probe 3: do spinning waiters slow the CPU phases? (2^22, three rounds, DATA/probe-3)\n")
    print("Synthesis per partition over one worker's at the same threads in the same round; throughput "
          "(partitions/s) and GPU utilization (CUPTI) beside.\n")
    print("| run | round 1 | round 2 | round 3 | mean | throughput | utilization |")
    print("|---|---|---|---|---|---|---|")

    def synth(name):
        return phase_per_partition(os.path.join(rd, name + ".spans.jsonl.gz"), "synth")

    def report(name):
        p = os.path.join(rd, name + ".json")
        return json.load(open(p))["metrics"] if os.path.exists(p) else None
    for kind, one, label in kinds:
        ratios, xs, us = [], [], []
        for r in (1, 2, 3):
            a, b = synth("p-%s-%d" % (kind, r)), synth("p-%s-%d" % (one, r))
            ratios.append(a / b if a and b else None)
            m = report("p-%s-%d" % (kind, r))
            if m:
                xs.append(m["throughput_pps"]), us.append(m["gpu_util"][0])
        ok = [x for x in ratios if x is not None]
        print("| %s | %s | %s | %s | %s |" % (label, " | ".join("%.3f" % x if x is not None else "-" for x in ratios),
              "%.3f" % (sum(ok) / len(ok)) if ok else "-", "%.2f" % (sum(xs) / len(xs)) if xs else "-",
              "%.1f%%" % (100 * sum(us) / len(us)) if us else "-"))
    print()
    model = os.path.join(data, "model-222.yaml")
    if not os.path.exists(model):
        return
    mm = model_means(model)
    print("Each phase's mean per partition over the 2^22 model's at the run's threads, mean of the rounds:\n")
    print("| run | threads | %s | throughput |" % " | ".join(CPU + GPU))
    print("|---|---|%s---|" % ("---|" * len(CPU + GPU)))
    for kind, label in [("one22-t7", "one worker, 7 threads"), ("one22-t2-c8", "one worker, 2 threads, 8 cores")] + \
            [(k, lab) for k, _, lab in kinds]:
        docs = [json.load(open(p)) for p in (os.path.join(rd, "p-%s-%d.json" % (kind, r)) for r in (1, 2, 3))
                if os.path.exists(p)]
        if not docs:
            continue
        thr = docs[0]["scenario"]["system"]["threads"].get("threads_per_worker") or 1
        ratio = [sum(x["metrics"]["phases_s"][p]["mean"] for x in docs) / len(docs) / model_time(mm[p], thr, 1)
                 for p in CPU + GPU]
        print("| %s | %d | %s | %.2f |" % (label, thr, " | ".join("%.2f" % v for v in ratio),
                                          sum(x["metrics"]["throughput_pps"] for x in docs) / len(docs)))
    print()


def table_probe(data):
    """The probe runs (DATA/probe/runs, docs/data/validation/probe.tsv): each setting
    twice in alternation; the CPU phases of several workers against one worker at the same
    threads in the same pass."""
    d = os.path.join(data, "probe", "runs")
    if not os.path.isdir(d):
        return
    print("## 9. Probe: several workers against one, same threads, alternated (DATA/probe)\n")
    print("Synthesis and prep per partition (ms), and over the single-worker run of the same pass "
          "and threads; pass a, then pass b (names ending -b).\n")
    print("| run | synth a | synth b | prep a | prep b | synth / one worker, a | b |")
    print("|---|---|---|---|---|---|---|")

    def per_part(name, ph):
        return 1e3 * phase_per_partition(os.path.join(d, name + ".spans.jsonl.gz"), ph)
    one = {"p-k20-w4": "p-cal20-t3", "p-ovl20-w4-t3": "p-cal20-t3", "p-k22-w2": "p-cal22-t7",
           "p-ovl22-w2": "p-cal22-t7", "p-k22-w2-t6": "p-cal22-t6"}
    for name in ("p-cal20-t3", "p-k20-w4", "p-ovl20-w4-t3", "p-cal22-t7", "p-k22-w2", "p-ovl22-w2",
                 "p-cal22-t6", "p-k22-w2-t6"):
        sa, sb = per_part(name, "synth"), per_part(name + "-b", "synth")
        pa, pb = per_part(name, "prep"), per_part(name + "-b", "prep")
        ra = rb = "-"
        if name in one:
            ra = "%.2f" % (sa / per_part(one[name], "synth"))
            rb = "%.2f" % (sb / per_part(one[name] + "-b", "synth"))
        print("| %s | %.1f | %.1f | %.1f | %.1f | %s | %s |" % (name, sa, sb, pa, pb, ra, rb))
    print()


def probe_bench(path):
    """A run's NAME.probe (run.sh PROBE=1): {"before"|"after": (Fr mults/s, NTT 2^18 ms)}."""
    out, cur, fr = {}, None, None
    for line in open(path):
        w = line.split()
        if line.startswith("== "):
            cur = w[1]
        elif w[:1] == ["Fr"]:
            fr = float(w[1])
        elif w[:1] == ["ntt"] and cur:
            out[cur] = (fr, float(w[3]))
    return out


PROBES = {  # a probe with PROBE=1's benchmark: its table's number and what it ran
    "probe-8": (23, "One worker at 2^20, the default policy, twelve runs back to back (`probe-8.tsv`)"),
    "probe-9": (25, "One worker at 2^20 on 4 cores at 3 threads (`cal20-c4-t3`'s setting), twenty runs back to "
                    "back (`probe-9.tsv`)"),
}


def table_host_probe(data, probe="probe-8"):
    """Probes 8 and 9: does a CPU benchmark around a run track the run's CPU phase speed?"""
    import validation as V
    rd = runs_dir(os.path.join(data, probe))  # unpacked from its runs.tar.xz on first use
    if not os.path.isdir(rd):
        return
    names = sorted((f[:-len(".probe")] for f in os.listdir(rd) if f.endswith(".probe")), key=lambda n: int(n.rsplit("-", 1)[1]))
    rows = []
    for n in names:
        b = probe_bench(os.path.join(rd, n + ".probe"))
        if "before" not in b or "after" not in b:
            continue
        sp = os.path.join(rd, n + ".spans.jsonl.gz")
        rows.append((n, V.cpu_per_partition(sp), V.header_steal(sp) or 0.0, b["before"], b["after"]))
    if len(rows) < 3:
        return
    number, what = PROBES[probe]
    print("## %d. Probe %s: a CPU benchmark of the host around each run\n" % (number, probe.split("-")[1]))
    print("%s; before and after each, `prover-bench --backend cpu --only field,ntt --sizes 18..18` on all CPUs. "
          "CPU time: every CPU phase per partition (each worker's first two calls left out).\n" % what)
    print("| run | CPU time per partition (ms) | host_steal | NTT 2^18 before / after (ms) | Fr mults/s before / after |")
    print("|---|---|---|---|---|")
    for n, c, st, b, a in rows:
        print("| %s | %.1f | %.1f%% | %.1f / %.1f | %.3g / %.3g |" % (n, 1e3 * c, 100 * st, b[1], a[1], b[0], a[0]))

    def fit(xs, ys):
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
        syy = sum((y - my) ** 2 for y in ys)
        return sxy / sxx, sxy / math.sqrt(sxx * syy)
    y = [math.log(c) for _, c, _, _, _ in rows]
    preds = [("NTT time, mean of before and after (log)", [math.log((b[1] + a[1]) / 2) for _, _, _, b, a in rows]),
             ("NTT time before the run (log)", [math.log(b[1]) for _, _, _, b, _ in rows]),
             ("1 / Fr rate, mean (log)", [-math.log((b[0] + a[0]) / 2) for _, _, _, b, a in rows]),
             ("-log(1 - host_steal)", [-math.log(1 - st) for _, _, st, _, _ in rows])]
    sd = math.sqrt(sum((v - sum(y) / len(y)) ** 2 for v in y) / (len(y) - 1))
    print("\nThe runs' CPU time per partition spreads by %.1f%% (sd of its log). Each predictor against "
          "log CPU time: the slope (1: the run slows as much as the benchmark) and r.\n" % (100 * sd))
    print("| predictor | slope | r |")
    print("|---|---|---|")
    for name, x in preds:
        k, r = fit(x, y)
        print("| %s | %.2f | %.3f |" % (name, k, r))
    print()


def table_alternated(data, probe="probe-10"):
    """Probe 10: two settings alternated run by run (probe-10.tsv: p10-c-K, c20-w2-c4's
    setting, then p10-t-K, cal20-c4-t1's, for K = 1, 2, ...); each pair's CPU time per
    partition, the first over the second, and the reading fixed in probe-10.tsv: a median
    within 0.98-1.02 says the first setting runs as the second calibrates it, below 0.97
    in at least four of five pairs a bias the model does not hold."""
    import validation as V
    rd = runs_dir(os.path.join(data, probe))
    if not os.path.isdir(rd):
        return
    pairs = []
    for k in range(1, 100):
        a, b = (os.path.join(rd, "p10-%s-%d" % (x, k)) for x in "ct")
        if not (os.path.exists(a + ".json") and os.path.exists(b + ".json")):
            break
        ca, cb = (V.cpu_per_partition(x + ".spans.jsonl.gz") for x in (a, b))
        xa, xb = (json.load(open(x + ".json"))["metrics"]["throughput_pps"] for x in (a, b))
        sa, sb = (V.header_steal(x + ".spans.jsonl.gz") or 0.0 for x in (a, b))
        pairs.append((k, ca, cb, xa, xb, max(sa, sb)))
    if not pairs:
        return
    print("## 26. Probe 10: c20-w2-c4's setting and cal20-c4-t1's alternated, run by run\n")
    print("Two workers on 4 cores under the whole-call lock (one thread each) against one worker on 4 cores at one "
          "thread, which the model gives the same CPU phases. CPU time: every CPU phase per partition (each "
          "worker's first two calls left out).\n")
    print("| pair | CPU ms per partition, c20-w2-c4's / cal20-c4-t1's | ratio | partitions/s, c20-w2-c4's / cal20-c4-t1's | host_steal, the larger |")
    print("|---|---|---|---|---|")
    ratios = []
    for k, ca, cb, xa, xb, st in pairs:
        ratios.append(ca / cb)
        print("| %d | %.1f / %.1f | %.3f | %.3f / %.3f | %.2f%% |" % (k, 1e3 * ca, 1e3 * cb, ca / cb, xa, xb, 100 * st))
    med = statistics.median(ratios)
    low = sum(r < 0.97 for r in ratios)
    reading = ("the setting runs as calibrated: the miss is the host's" if 0.98 <= med <= 1.02 else
               "a bias of the setting that the model does not hold" if low >= 4 else "neither reading")
    print("\nMedian ratio %.3f (%.3f to %.3f), %d of %d pairs below 0.97: %s. c20-w2-c4's setting ran at %.3f "
          "partitions/s on average.\n" % (med, min(ratios), max(ratios), low, len(ratios), reading,
                                          sum(p[3] for p in pairs) / len(pairs)))


def host_threads_probe(data, probe="probe-11"):
    """Probe 11's rounds and reading from DATA/probe-11, or None where it did not run: one
    worker at a = 3 threads on 4 cores, b = 3 on 16, c = 3 on 5, d = 2 on 3, e = 2 on 16,
    alternated in rounds (p11-S-K); per round prep's time per partition over its reference's
    (a/b, c/b, d/e) and synth's a/b, their medians, the host threads they imply (a phase of k
    threads beside h host threads on c cores runs at min(1, c / (k + h)): h = c s - k) and
    the reading fixed in probe-11.tsv, with h when the reading is the law."""
    rd = runs_dir(os.path.join(data, probe))
    if not os.path.isdir(rd):
        return None
    rounds = []
    for k in range(1, 100):
        f = {s: os.path.join(rd, "p11-%s-%d.spans.jsonl.gz" % (s, k)) for s in "abcde"}
        if not all(os.path.exists(x) for x in f.values()):
            break
        prep = {s: phase_per_partition(x, "prep") for s, x in f.items()}
        synth = {s: phase_per_partition(x, "synth") for s, x in f.items()}
        rounds.append((k, prep, synth))
    if not rounds:
        return None
    sa = [p["a"] / p["b"] for _, p, _ in rounds]
    sc = [p["c"] / p["b"] for _, p, _ in rounds]
    sd = [p["d"] / p["e"] for _, p, _ in rounds]
    ss = [x["a"] / x["b"] for _, _, x in rounds]
    ma, mc, md, ms = (statistics.median(x) for x in (sa, sc, sd, ss))
    ha, hd = 4 * ma - 3, 3 * md - 2
    within = lambda x: 0.97 <= x <= 1.03
    h = None
    if within(mc) and within(ms) and abs(ha - hd) <= 0.3:
        h = (ha + hd) / 2
        reading = "a host-thread law, h = %.2f" % h
    elif mc > 1.03 or ms > 1.03:
        reading = "a core-set effect, not host threads"
    else:
        reading = "neither reading"
    return {"rounds": rounds, "ratios": (sa, sc, sd, ss), "medians": (ma, mc, md, ms), "h_a": ha, "h_d": hd,
            "reading": reading, "h": h}


def table_host_threads_probe(data, probe="probe-11"):
    """Table 31: host_threads_probe's rounds, medians and reading."""
    r = host_threads_probe(data, probe)
    if not r:
        return
    print("## 31. Probe 11: the host threads of a GPU phase, from cores that the threads fill\n")
    print("One worker under the kernels lock at five settings alternated run by run: a = 3 threads on 4 cores, "
          "b = 3 on 16, c = 3 on 5, d = 2 threads on 3 cores, e = 2 on 16. `prep` (beside `ntt_h`) and `synth` "
          "(beside no GPU phase) in ms per partition, each worker's first two calls left out.\n")
    print("| round | prep a / b / c (ms) | a/b | c/b | prep d / e (ms) | d/e | synth a / b (ms) | synth a/b |")
    print("|---|---|---|---|---|---|---|---|")
    sa, sc, sd, ss = r["ratios"]
    for i, (k, p, s) in enumerate(r["rounds"]):
        print("| %d | %.2f / %.2f / %.2f | %.3f | %.3f | %.2f / %.2f | %.3f | %.2f / %.2f | %.3f |" % (
            k, 1e3 * p["a"], 1e3 * p["b"], 1e3 * p["c"], sa[i], sc[i], 1e3 * p["d"], 1e3 * p["e"], sd[i],
            1e3 * s["a"], 1e3 * s["b"], ss[i]))
    ma, mc, md, ms = r["medians"]
    print("\nMedians over %d rounds: s_a %.3f, s_c %.3f, s_d %.3f, synth's a/b %.3f; host threads h_a = 4 s_a - 3 = "
          "%.2f, h_d = 3 s_d - 2 = %.2f. The reading fixed in probe-11.tsv: %s.\n" % (
              len(r["rounds"]), ma, mc, md, ms, r["h_a"], r["h_d"], r["reading"]))


def table_host_threads_calib(data):
    """Table 32: probe 11's pair among a session's calibration runs. Where DATA/runs holds
    one worker at 3 threads on 4 cores and on 16 (cal20-c4-t3 and cal20-c16-t3, and their
    second copies -c2, run in the same session but not alternated), each copy's prep and
    synth per partition, 4 cores over 16, and the host threads prep's ratio implies (h =
    4 s - 3), as probe 11 reads them; and with prep's ratio divided by synth's (what the
    core set did to a phase beside no GPU phase taken out)."""
    rd = runs_dir(data)
    rows = []
    for suf in ("", "-c2"):
        a, b = (os.path.join(rd, "cal20-%s-t3%s.spans.jsonl.gz" % (c, suf)) for c in ("c4", "c16"))
        if os.path.exists(a) and os.path.exists(b):
            pa, pb = phase_per_partition(a, "prep"), phase_per_partition(b, "prep")
            sa, sb = phase_per_partition(a, "synth"), phase_per_partition(b, "synth")
            rows.append((suf or "first", pa, pb, sa, sb))
    if not rows:
        return
    print("## 32. Probe 11's pair among the calibration runs: 3 threads on 4 cores against 16\n")
    print("One worker at 3 threads under the kernels lock (cal20-c4-t3 and cal20-c16-t3, each copy run in the same "
          "session, not alternated): `prep` (beside `ntt_h`) and `synth` (beside no GPU phase) in ms per "
          "partition, the ratios 4 cores over 16, and the host threads prep's ratio implies, h = 4 s - 3, as "
          "it is and with the ratio divided by synth's.\n")
    print("| copy | prep 4 / 16 cores (ms) | s | synth 4 / 16 (ms) | synth's ratio | h | h, synth's ratio taken out |")
    print("|---|---|---|---|---|---|---|")
    for suf, pa, pb, sa, sb in rows:
        print("| %s | %.2f / %.2f | %.3f | %.2f / %.2f | %.3f | %.2f | %.2f |" % (
            suf, 1e3 * pa, 1e3 * pb, pa / pb, 1e3 * sa, 1e3 * sb, sa / sb, 4 * pa / pb - 3, 4 * (pa / pb) / (sa / sb) - 3))
    print()


def host_threads_of(spans):
    """Each GPU phase's host threads in a run's phase spans: the median over its spans of
    cpu_s over the span's length; {} when the spans carry no cpu_s."""
    out = {}
    for r in spans:
        if r["phase"] in GPU and "cpu_s" in r and r["t1"] > r["t0"]:
            out.setdefault(r["phase"], []).append(r["cpu_s"] / (r["t1"] - r["t0"]))
    return {p: statistics.median(v) for p, v in out.items()}


def two_modes(values):
    """The threshold that splits VALUES in two classes with the most variance between them
    (Otsu's rule in one dimension): the middle of the gap at the best split of the sorted
    values; None for fewer than 4 values."""
    v = sorted(values)
    n = len(v)
    if n < 4:
        return None
    pre = [0.0]
    for x in v:
        pre.append(pre[-1] + x)
    best, at = -1.0, None
    for k in range(1, n):
        m0, m1 = pre[k] / k, (pre[n] - pre[k]) / (n - k)
        b = k * (n - k) * (m0 - m1) ** 2
        if b > best:
            best, at = b, k
    return (v[at - 1] + v[at]) / 2


def mode_summary(spans, cut, phase="epilogue"):
    """A phase's spans split at CUT (length in s): the share at or above it, each side's
    median length and (None where the spans carry none) median cpu_s, and the mean length."""
    sp = [r for r in spans if r["phase"] == phase]
    if not sp:
        return None
    fast = [r for r in sp if r["t1"] - r["t0"] < cut]
    slow = [r for r in sp if r["t1"] - r["t0"] >= cut]
    med = lambda L, f: statistics.median([f(r) for r in L]) if L else None  # noqa: E731
    cpu = lambda L: med(L, lambda r: r["cpu_s"]) if L and all("cpu_s" in r for r in L) else None  # noqa: E731
    return {"n": len(sp), "slow_share": len(slow) / len(sp), "fast": med(fast, lambda r: r["t1"] - r["t0"]),
            "slow": med(slow, lambda r: r["t1"] - r["t0"]), "fast_cpu": cpu(fast), "slow_cpu": cpu(slow),
            "mean": statistics.mean([r["t1"] - r["t0"] for r in sp])}


# table 35: the 2^20 batch-1 runs of a session by what ran beside their epilogue
MODE_GROUPS = (("one worker", re.compile(r"(cal20-|k20-w1-)")),
               ("2-4 workers, kernels' or custom lock", re.compile(r"(k20-w[234]|x20-)")),
               ("2-4 workers, whole-call lock", re.compile(r"c20-w")),
               ("overlap runs, no lock", re.compile(r"ovl20-")))


def epilogue_modes(data):
    """Table 35's figures for one session: the threshold between the epilogue's two modes
    (two_modes over every epilogue span of its 2^20 batch-1 runs, each worker's first two
    calls left out); per group of MODE_GROUPS, mode_summary over the group's spans and the
    range of its runs' shares of slow calls; and each run's share; None where the session
    has no such runs."""
    per, b2 = [], []
    for name, d in runs(data):
        sc = d["scenario"]
        if sc["prover"]["constraints"] != 1 << 20:
            continue
        if sc["system"]["batch"] == 2:
            f = os.path.join(runs_dir(data), name + ".spans.jsonl.gz")
            if os.path.exists(f):
                b2 += [r for r in read_spans(f)[0] if r["phase"] == "epilogue"]
            continue
        if sc["system"]["batch"] != 1:
            continue
        g = next((g for g, rx in MODE_GROUPS if rx.match(name)), None)
        f = os.path.join(runs_dir(data), name + ".spans.jsonl.gz")
        if g and os.path.exists(f):
            sp = read_spans(f)[0]
            ep = [r for r in sp if r["phase"] == "epilogue"]
            per.append((g, name, ep, [others_load(sp, r) for r in ep], sc["system"]["cpu_cores"]))
    cut = two_modes([r["t1"] - r["t0"] for _, _, sp, _, _ in per for r in sp])
    if cut is None:
        return None
    share = {n: mode_summary(sp, cut)["slow_share"] for _, n, sp, _, _ in per if sp}
    out = {"cut": cut, "groups": [], "runs": list(share.items()),
           "all": mode_summary([r for _, _, sp, _, _ in per for r in sp], cut), "b2": None}
    cut2 = two_modes([r["t1"] - r["t0"] for r in b2])
    if cut2 is not None:
        out["b2"] = (cut2, mode_summary(b2, cut2))
    for g, _ in MODE_GROUPS:
        mine = [(n, sp, ld, c) for gg, n, sp, ld, c in per if gg == g and sp]
        if mine:
            shares = [share[n] for n, _, _, _ in mine]
            # the others' busy threads per other core, averaged over the group's calls
            load = statistics.mean([x / (c - 1) for _, _, ld, c in mine for x in ld])
            out["groups"].append((g, len(mine), mode_summary([r for _, sp, _, _ in mine for r in sp], cut),
                                  min(shares), max(shares), load))
    return out


def others_load(spans, e):
    """The threads of the other workers' phases busy beside span E, averaged over its length:
    a CPU phase counts its threads, a GPU phase one (its launching and waiting thread)."""
    t = 0.0
    for r in spans:
        if r["worker"] == e["worker"] or r.get("resource") not in ("cpu", "gpu"):
            continue
        o = min(r["t1"], e["t1"]) - max(r["t0"], e["t0"])
        if o > 0:
            t += o * (r.get("threads", 1) if r["resource"] == "cpu" else 1)
    return t / (e["t1"] - e["t0"]) if e["t1"] > e["t0"] else 0.0


def table_epilogue_modes(datas):
    """Table 35: the epilogue's two modes in each session of DATAS, by what ran beside it."""
    rows = [(os.path.basename(os.path.normpath(d)), epilogue_modes(d)) for d in datas]
    rows = [(n, r) for n, r in rows if r]
    if not rows:
        return
    print("## 35. The epilogue's two modes, by what ran beside it\n")
    print("Every epilogue span of the session's 2^20 batch-1 runs (each worker's first two calls left out), "
          "split where the variance between the two classes is largest (Otsu's rule); per group of runs the "
          "share of calls in the slow mode (pooled, and the range over the runs), each mode's median and "
          "the mean, in ms; the other workers' busy threads beside each epilogue (a CPU phase its threads, a "
          "GPU phase one) per other core, averaged over the calls; and the share a slow mode would have if a "
          "call were slow when the core it runs on is busy with other work, each other core busy with the "
          "others' load: s1 + (1 - s1) x load, s1 the one-worker runs' share.\n")
    print("| session | split (ms) | runs | group | calls | slow share | range over runs | fast | slow | mean | "
          "others' load | share as siblings |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for n, r in rows:
        base = r["groups"][0][2]["slow_share"] if r["groups"] and r["groups"][0][0] == MODE_GROUPS[0][0] else None
        for g, k, m, lo, hi, load in r["groups"]:
            ms = lambda x: "%.2f" % (1e3 * x) if x is not None else "-"  # noqa: E731
            print("| %s | %.2f | %d | %s | %d | %.2f | %.2f-%.2f | %s | %s | %s | %.2f | %s |" % (
                n, 1e3 * r["cut"], k, g, m["n"], m["slow_share"], lo, hi, ms(m["fast"]), ms(m["slow"]),
                ms(m["mean"]), load, "%.2f" % (base + (1 - base) * load) if base is not None else "-"))
    print("\nThe slow mode against the fast one, a call of one partition and a call of two (the session's "
          "2^20 batch-2 runs, split on their own): %s.\n" % "; ".join(
              "%s: batch 1 %.2f / %.2f ms = %.2f%s" % (
                  n, 1e3 * r["all"]["slow"], 1e3 * r["all"]["fast"], r["all"]["slow"] / r["all"]["fast"],
                  ", batch 2 %.2f / %.2f ms = %.2f" % (1e3 * r["b2"][1]["slow"], 1e3 * r["b2"][1]["fast"],
                                                       r["b2"][1]["slow"] / r["b2"][1]["fast"])
                  if r["b2"] and r["b2"][1]["slow"] and r["b2"][1]["fast"] else "") for n, r in rows))
    print("Each run's share of slow calls:\n")
    for n, r in rows:
        print("- %s: %s" % (n, ", ".join("%s %.2f" % x for x in r["runs"])))
    print()


def cpu_time_probe(data, probe="probe-13"):
    """Probe 13's rounds and reading from DATA/probe-13, or None where it did not run: a =
    two workers under the kernels lock, b = two under the whole-call lock, c = one worker,
    all at 7 threads on 16 cores, alternated in rounds (p13-S-K). Per run, synth + prep +
    epilogue per partition, wall time W and CPU time C (cpu_s); per round a/c and b/c of
    each; their medians and the reading fixed in probe-13.tsv; each GPU phase's host
    threads (cpu_s over length) per setting, the median over its runs."""
    rd = runs_dir(os.path.join(data, probe))
    if not os.path.isdir(rd):
        return None
    rounds, ht, epi = [], {}, {x: [] for x in "abc"}
    for k in range(1, 100):
        f = {x: os.path.join(rd, "p13-%s-%d.spans.jsonl.gz" % (x, k)) for x in "abc"}
        if not all(os.path.exists(v) for v in f.values()):
            break
        sp = {x: read_spans(v)[0] for x, v in f.items()}  # each run read once
        W = {x: [spans_per_partition(sp[x], p) for p in CPU] for x in "abc"}
        C = {x: [spans_per_partition(sp[x], p, "cpu_s") for p in CPU] for x in "abc"}
        if any(None in W[x] + C[x] for x in "abc"):
            return {"missing": "p13-*-%d: a CPU phase without spans or without cpu_s (a binary before 16a6451)" % k}
        rounds.append((k, {x: sum(W[x]) for x in "abc"}, {x: sum(C[x]) for x in "abc"}))
        for x in "abc":
            for p, h in host_threads_of(sp[x]).items():
                ht.setdefault(x, {}).setdefault(p, []).append(h)
            epi[x] += [r for r in sp[x] if r["phase"] == "epilogue"]
    if not rounds:
        return None
    med = lambda L: statistics.median(L)
    w_a, c_a = med([W["a"] / W["c"] for _, W, _ in rounds]), med([C["a"] / C["c"] for _, _, C in rounds])
    w_b, c_b = med([W["b"] / W["c"] for _, W, _ in rounds]), med([C["b"] / C["c"] for _, _, C in rounds])
    if w_a < 1.03:
        reading = "no slowdown in this probe"
    elif c_a >= w_a - 0.02 and c_b < 1.02:
        reading = "a slower core when workers compute at once"
    elif c_a < 1.02:
        reading = "waiting for cores when workers compute at once"
    else:
        reading = "both"
    return {"rounds": rounds, "w_a": w_a, "c_a": c_a, "w_b": w_b, "c_b": c_b, "reading": reading,
            "host_threads": {x: {p: med(v) for p, v in d.items()} for x, d in ht.items()},
            "modes": probe_modes(epi)}


def probe_modes(sp):
    """Probe 13's epilogue spans (SP: setting -> its runs' spans) in their two modes, split as
    table 35 splits, over every run of the probe: per setting mode_summary; and the reading fixed before its runs, from the pooled
    spans, of what the slow calls are: with r_w the slow mode's median length over the fast
    mode's and r_c the same of their cpu_s, "the slow calls ran slower (their CPU time grew
    with their length)" when r_c - 1 >= 0.7 (r_w - 1), "the slow calls waited (their CPU
    time is the fast calls')" when r_c - 1 <= 0.3 (r_w - 1), otherwise "the slow calls
    partly waited"; None without two modes."""
    cut = two_modes([r["t1"] - r["t0"] for x in "abc" for r in sp[x]])
    if cut is None:
        return None
    allm = mode_summary([r for x in "abc" for r in sp[x]], cut)
    if not allm["fast"] or not allm["slow"] or not allm["fast_cpu"] or not allm["slow_cpu"]:
        return None
    r_w, r_c = allm["slow"] / allm["fast"], allm["slow_cpu"] / allm["fast_cpu"]
    if r_c - 1 >= 0.7 * (r_w - 1):
        reading = "the slow calls ran slower (their CPU time grew with their length)"
    elif r_c - 1 <= 0.3 * (r_w - 1):
        reading = "the slow calls waited (their CPU time is the fast calls')"
    else:
        reading = "the slow calls partly waited"
    return {"cut": cut, "all": allm, "r_w": r_w, "r_c": r_c, "reading": reading,
            "per": {x: mode_summary(sp[x], cut) for x in "abc" if sp[x]}}


def probe_heading(r, heading):
    """A probe table's start: nothing where the probe did not run (R None), else HEADING
    and, where its runs could not be read, why. Whether the table goes on."""
    if not r:
        return False
    print(heading + "\n")
    if "missing" in r:
        print("Not read: %s.\n" % r["missing"])
        return False
    return True


def table_cpu_time_probe(data, probe="probe-13"):
    """Table 34: cpu_time_probe's rounds, medians, reading and host threads."""
    r = cpu_time_probe(data, probe)
    if not probe_heading(r, "## 34. Probe 13: CPU phases where workers compute at once, by wall time and by CPU time"):
        return
    print("Three settings alternated run by run, 2^20 on 16 cores, 7 threads a worker: a = two workers under the "
          "kernels lock, b = two under the whole-call lock, c = one worker. synth + prep + epilogue in ms per "
          "partition, wall time (the spans' lengths) and CPU time (their cpu_s), each worker's first two calls "
          "left out.\n")
    print("| round | wall a / b / c (ms) | a/c | b/c | CPU a / b / c (ms) | a/c | b/c |")
    print("|---|---|---|---|---|---|---|")
    for k, W, C in r["rounds"]:
        print("| %d | %.2f / %.2f / %.2f | %.3f | %.3f | %.2f / %.2f / %.2f | %.3f | %.3f |" % (
            k, 1e3 * W["a"], 1e3 * W["b"], 1e3 * W["c"], W["a"] / W["c"], W["b"] / W["c"],
            1e3 * C["a"], 1e3 * C["b"], 1e3 * C["c"], C["a"] / C["c"], C["b"] / C["c"]))
    print("\nMedians over %d rounds: wall a/c %.3f, b/c %.3f; CPU a/c %.3f, b/c %.3f. The reading fixed in "
          "probe-13.tsv: %s." % (len(r["rounds"]), r["w_a"], r["w_b"], r["c_a"], r["c_b"], r["reading"]))
    ht = r["host_threads"]
    if ht:
        print("\nHost threads of each GPU phase (cpu_s over its length, the median over the setting's runs): %s." % (
            "; ".join("%s: %s" % (x, ", ".join("%s %.2f" % (p, ht[x][p]) for p in GPU if p in ht[x]))
                      for x in "abc" if x in ht)))
    m = r["modes"]
    if m:
        print("\nThe epilogue's two modes (split as table 35 splits, at %.2f ms over the probe's runs): share of slow calls "
              "and each mode's median length / CPU time in ms, %s. Pooled, the slow mode is %.3f times the fast "
              "one's length and %.3f times its CPU time; the reading fixed in probe-13.tsv: %s." % (
                  1e3 * m["cut"], "; ".join("%s %.2f, fast %s, slow %s" % (
                      x, v["slow_share"], *("%.2f / %.2f" % (1e3 * v[k], 1e3 * v[k + "_cpu"])
                                           if v[k] and v[k + "_cpu"] else "-" for k in ("fast", "slow")))
                      for x, v in sorted(m["per"].items())), m["r_w"], m["r_c"], m["reading"]))
    print()


def drift_probe(data, probe="probe-14"):
    """Probe 14's rounds and reading from DATA/probe-14, or None where it did not run: a =
    two workers on 8 cores and b = four on 16 (kernels lock, 3 threads a worker), c and d one
    worker at 3 threads on 8 and on 16 cores, their references, alternated in rounds
    (p14-S-K). Per run W = synth + prep + epilogue per partition (span lengths); per round
    q_a = W_a / W_c, q_b = W_b / W_d; per pair the sd over the rounds of ln q against that
    of ln W of the reference, the reading fixed in probe-14.tsv, the slope of ln q over the
    rounds, the median of q; and the correlation over the rounds of ln q_a with a's synth
    beside the other worker's CPU phase (synth_beside)."""
    rd = runs_dir(os.path.join(data, probe))
    if not os.path.isdir(rd):
        return None
    rounds = []
    for k in range(1, 1000):
        f = {x: os.path.join(rd, "p14-%s-%d.spans.jsonl.gz" % (x, k)) for x in "abcd"}
        if not all(os.path.exists(v) for v in f.values()):
            break
        sp = {x: read_spans(v)[0] for x, v in f.items()}
        W = {x: [spans_per_partition(sp[x], p) for p in CPU] for x in "abcd"}
        if any(None in W[x] for x in "abcd"):
            return {"missing": "p14-*-%d: a CPU phase without spans" % k}
        rounds.append((k, {x: sum(W[x]) for x in "abcd"}, synth_beside(f["a"])))
    out = {"rounds": rounds, "pairs": {}}
    for x, ref in (("a", "c"), ("b", "d")):
        lq = [math.log(W[x] / W[ref]) for _, W, _ in rounds]
        lr = [math.log(W[ref]) for _, W, _ in rounds]
        if len(rounds) < 4:
            out["pairs"][x] = {"reading": "too few rounds"}
            continue
        s_q, s_r = statistics.stdev(lq), statistics.stdev(lr)
        reading = ("moves with its reference" if s_q <= 0.5 * s_r else
                   "moves on its own" if s_q >= s_r else "partly on its own")
        ks = [k for k, _, _ in rounds]
        mk, mq = statistics.mean(ks), statistics.mean(lq)
        slope = sum((k - mk) * (q - mq) for k, q in zip(ks, lq)) / sum((k - mk) ** 2 for k in ks)
        out["pairs"][x] = {"s_q": s_q, "s_r": s_r, "reading": reading, "slope": slope,
                           "median_q": statistics.median(math.exp(q) for q in lq)}
    if len(rounds) >= 3:
        lq = [math.log(W["a"] / W["c"]) for _, W, _ in rounds]
        sb = [b for _, _, b in rounds]
        mq, mb = statistics.mean(lq), statistics.mean(sb)
        vq, vb = sum((q - mq) ** 2 for q in lq), sum((b - mb) ** 2 for b in sb)
        out["corr_beside"] = (sum((q - mq) * (b - mb) for q, b in zip(lq, sb)) / math.sqrt(vq * vb)
                              if vq > 1e-12 and vb > 1e-12 else None)
    return out


def table_drift_probe(data, probe="probe-14"):
    """Table 43: drift_probe's rounds, spreads, readings and the share beside."""
    r = drift_probe(data, probe)
    if not probe_heading(r, "## 43. Probe 14: does the CPU speed of several workers move with one worker's?"):
        return
    print("Four settings alternated run by run, 2^20, kernels lock, 3 threads a worker: a = two workers on 8 cores, "
          "c = one worker on 8 cores (a's reference), b = four workers on 16 cores, d = one worker on 16 (b's "
          "reference). synth + prep + epilogue in ms per partition (the spans' lengths, each worker's first two "
          "calls left out); a's synth beside the other worker's CPU phase, the mean share of its spans.\n")
    print("| round | a | c | a/c | b | d | b/d | a's synth beside |")
    print("|---|---|---|---|---|---|---|---|")
    for k, W, sb in r["rounds"]:
        print("| %d | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.2f |" % (
            k, 1e3 * W["a"], 1e3 * W["c"], W["a"] / W["c"], 1e3 * W["b"], 1e3 * W["d"], W["b"] / W["d"], sb))
    print()
    for x, ref, what in (("a", "c", "two workers on 8 cores"), ("b", "d", "four workers on 16 cores")):
        p = r["pairs"].get(x)
        if not p:
            continue
        if "s_q" not in p:
            print("%s: %s." % (what[0].upper() + what[1:], p["reading"]))
            continue
        print("%s (%s/%s): median %.3f; sd over the rounds of ln %s/%s %.1f%% against %.1f%% of ln %s; slope %+.2f%% "
              "a round. The reading fixed in probe-14.tsv: %s." % (
                  what[0].upper() + what[1:], x, ref, p["median_q"], x, ref, 100 * p["s_q"], 100 * p["s_r"], ref,
                  100 * p["slope"], p["reading"]))
    if r.get("corr_beside") is not None:
        print("Correlation over the rounds of ln a/c with a's synth beside the other worker's CPU phase: %.2f." %
              r["corr_beside"])
    print()


def cpu_rounds(folder, prefix, settings):
    """A probe's rounds of alternated settings from FOLDER/runs (PREFIX-S-K, S in SETTINGS,
    K from 1 until a round is incomplete): [(K, {S: {phase: its mean per partition}},
    {S: their sum W})] over the CPU phases (spans_per_partition); None where FOLDER has no
    runs, {"missing": why} where a run lacks a CPU phase."""
    rd = runs_dir(folder)
    if not os.path.isdir(rd):
        return None
    rounds = []
    for k in range(1, 1000):
        f = {x: os.path.join(rd, "%s-%s-%d.spans.jsonl.gz" % (prefix, x, k)) for x in settings}
        if not all(os.path.exists(v) for v in f.values()):
            break
        ph = {x: {p: spans_per_partition(read_spans(v)[0], p) for p in CPU} for x, v in f.items()}
        if any(v is None for x in settings for v in ph[x].values()):
            return {"missing": "%s-*-%d: a CPU phase without spans" % (prefix, k)}
        rounds.append((k, ph, {x: sum(ph[x].values()) for x in settings}))
    return rounds


def batch_probe(data, probe="probe-15"):
    """Probe 15's rounds and reading from DATA/probe-15, or None where it did not run: one
    worker at 2^20 on 16 cores, a = 7 threads batch 1, b = 7 threads batch 2, c = 15 threads
    batch 1, d = 15 threads batch 2, alternated in rounds (p15-S-K). Per run and CPU phase
    its length per partition (spans_per_partition) and W = their sum; per round r7 = W_b /
    W_a, r15 = W_d / W_c and q = r7 / r15; the medians over the rounds, each phase's b/a
    and d/c, and the reading fixed in probe-15.tsv."""
    rounds = cpu_rounds(os.path.join(data, probe), "p15", "abcd")
    if not isinstance(rounds, list):
        return rounds
    out = {"rounds": rounds}
    if len(rounds) < 3:
        out["reading"] = "too few rounds"
        return out
    q = [(w["b"] / w["a"]) / (w["d"] / w["c"]) for _, _, w in rounds]
    out["r7"] = statistics.median(w["b"] / w["a"] for _, _, w in rounds)
    out["r15"] = statistics.median(w["d"] / w["c"] for _, _, w in rounds)
    out["q"] = statistics.median(q)
    out["phases"] = {p: (statistics.median(ph["b"][p] / ph["a"][p] for _, ph, _ in rounds),
                         statistics.median(ph["d"][p] / ph["c"][p] for _, ph, _ in rounds)) for p in CPU}
    lq = abs(math.log(out["q"]))
    one_side = all(x > 1 for x in q) or all(x < 1 for x in q)
    out["reading"] = ("the batch multiplier depends on the threads" if lq >= 0.03 and one_side else
                      "one multiplier fits both" if lq < 0.015 else "unresolved")
    return out


def table_batch_probe(data, probe="probe-15"):
    """Table 44: batch_probe's rounds, medians and reading."""
    r = batch_probe(data, probe)
    if not probe_heading(r, "## 44. Probe 15: a batch-2 partition's CPU phases against batch 1's, at 7 threads and at 15"):
        return
    print("Four settings alternated run by run, 2^20 on 16 cores, one worker, kernels lock: a = 7 threads batch 1, "
          "b = 7 threads batch 2, c = 15 threads batch 1, d = 15 threads batch 2. synth + prep + epilogue in ms per "
          "partition (the spans' lengths, each worker's first two calls left out).\n")
    print("| round | a | b | b/a | c | d | d/c | (b/a) / (d/c) |")
    print("|---|---|---|---|---|---|---|---|")
    for k, _, w in r["rounds"]:
        print("| %d | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.3f |" % (
            k, 1e3 * w["a"], 1e3 * w["b"], w["b"] / w["a"], 1e3 * w["c"], 1e3 * w["d"], w["d"] / w["c"],
            (w["b"] / w["a"]) / (w["d"] / w["c"])))
    print()
    if "q" not in r:
        print("The reading fixed in probe-15.tsv: %s.\n" % r["reading"])
        return
    print("Medians over %d rounds: b/a %.3f, d/c %.3f, (b/a) / (d/c) %.3f; by phase, b/a against d/c: %s. The reading "
          "fixed in probe-15.tsv: %s.\n" % (
              len(r["rounds"]), r["r7"], r["r15"], r["q"],
              ", ".join("%s %.3f / %.3f" % (p, *r["phases"][p]) for p in CPU), r["reading"]))


# probe 16 (probe-16.tsv): a run's b_g2 at or above this (s a partition) is in the slow mode,
# between the H200 sessions' two (17.0 and 19.3 ms)
LMEM_SLOW = 0.0182
LMEM_SETTINGS = (("a", "lazy"), ("b", "early"), ("c", "max"))


def lmem_probe(data, probe="probe-16"):
    """Probe 16's runs and reading from DATA/probe-16, or None where it did not run: one
    worker at 2^20 on 4 cores, a = PSC_CUDA_LMEM unset (lazy), b = early, c = max,
    alternated in rounds (p16-S-K). Per setting: its runs' b_g2 per partition
    (spans_per_partition, the worker's first two calls left out), those at LMEM_SLOW or
    more, and the medians of b_g2 and of ntt_h + msm; the reading fixed in probe-16.tsv."""
    rd = runs_dir(os.path.join(data, probe))
    if not os.path.isdir(rd):
        return None
    got = {x: [] for x, _ in LMEM_SETTINGS}
    for x, _ in LMEM_SETTINGS:
        for k in range(1, 1000):
            f = os.path.join(rd, "p16-%s-%d.spans.jsonl.gz" % (x, k))
            if not os.path.exists(f):
                break
            sp = read_spans(f)[0]
            g = [spans_per_partition(sp, p) for p in GPU]
            if None in g:
                return {"missing": "p16-%s-%d: a GPU phase without spans" % (x, k)}
            got[x].append((k, g[2], g[0] + g[1]))
    slow = {x: sum(b >= LMEM_SLOW for _, b, _ in v) for x, v in got.items()}
    out = {"runs": got, "slow": slow,
           "median": {x: (statistics.median(b for _, b, _ in v), statistics.median(o for _, _, o in v))
                      for x, v in got.items() if v}}
    if min(len(v) for v in got.values()) < 3:
        out["reading"] = "too few runs"
    elif slow["a"] < 3:
        out["reading"] = "no slow mode here"
    elif slow["b"] == 0 or slow["c"] == 0:
        out["reading"] = "the local memory's placement decides the mode"
    elif slow["b"] >= slow["a"] - 2 and slow["c"] >= slow["a"] - 2:
        out["reading"] = "not the local memory"
    else:
        out["reading"] = "unresolved"
    return out


def table_lmem_probe(data, probe="probe-16"):
    """Table 51: lmem_probe's runs, counts and reading."""
    r = lmem_probe(data, probe)
    if not probe_heading(r, "## 51. Probe 16: b_g2's mode by where the local memory lands"):
        return
    print("Three settings alternated run by run, 2^20, one worker under the kernels lock on 4 cores at 3 threads: "
          "a = PSC_CUDA_LMEM unset (lazy), b = early, c = max. b_g2 in ms per partition (the worker's first two calls "
          "left out); a run is slow at %.1f ms or more.\n" % (1e3 * LMEM_SLOW))
    print("| setting | runs | slow | b_g2 by run (ms) | median b_g2 | median ntt_h + msm |")
    print("|---|---|---|---|---|---|")
    for x, name in LMEM_SETTINGS:
        v = r["runs"][x]
        if not v:
            print("| %s (%s) | 0 | - | - | - | - |" % (x, name))
            continue
        b, o = r["median"][x]
        print("| %s (%s) | %d | %d | %s | %.2f | %.2f |" % (x, name, len(v), r["slow"][x],
                                                         ", ".join("%.2f" % (1e3 * g) for _, g, _ in v), 1e3 * b, 1e3 * o))
    print("\nThe reading fixed in probe-16.tsv: %s.\n" % r["reading"])


def thp_probe(data, probe="probe-17"):
    """Probe 17's rounds and readings from DATA/probe-17, or None where it did not run: one
    worker at 2^20 on 16 cores at 6 threads, a = as the protocols run, b = glibc's malloc on
    transparent huge pages, alternated in rounds (p17-S-K). Per run W = synth + prep +
    epilogue, each its mean per partition (spans_per_partition); per round r = W_b / W_a;
    s_a, s_b the standard deviations of ln W over each setting's runs; the two readings
    fixed in probe-17.tsv."""
    rounds = cpu_rounds(os.path.join(data, probe), "p17", "ab")
    if not isinstance(rounds, list):
        return rounds
    rounds = [(k, w) for k, _, w in rounds]
    out = {"rounds": rounds}
    if len(rounds) < 3:
        out["speed"] = out["spread"] = "too few rounds"
        return out
    r = [w["b"] / w["a"] for _, w in rounds]
    out["r"] = statistics.median(r)
    out["faster"] = sum(x < 1 for x in r)
    out["sd"] = {x: statistics.stdev(math.log(w[x]) for _, w in rounds) for x in "ab"}
    out["speed"] = ("huge pages speed the CPU phases up" if out["r"] <= 0.98 and 5 * out["faster"] >= 4 * len(r)
                    else "no faster" if out["r"] >= 0.995 else "unresolved")
    sa, sb = out["sd"]["a"], out["sd"]["b"]
    out["spread"] = ("huge pages narrow the spread" if sb <= sa / 1.5 else
                     "the same spread" if sb >= sa / 1.2 else "unresolved")
    return out


def table_thp_probe(data, probe="probe-17"):
    """Table 52: thp_probe's rounds, medians and readings."""
    r = thp_probe(data, probe)
    if not probe_heading(r, "## 52. Probe 17: the CPU phases with the host's memory on transparent huge pages"):
        return
    print("Two settings alternated run by run, 2^20, one worker under the kernels lock on 16 cores at 6 threads: a = as "
          "the protocols run, b = GLIBC_TUNABLES=glibc.malloc.hugetlb=1. synth + prep + epilogue in ms per partition "
          "(the spans' lengths, the worker's first two calls left out).\n")
    print("| round | a | b | b/a |")
    print("|---|---|---|---|")
    for k, w in r["rounds"]:
        print("| %d | %.2f | %.2f | %.3f |" % (k, 1e3 * w["a"], 1e3 * w["b"], w["b"] / w["a"]))
    print()
    if "r" not in r:
        print("The readings fixed in probe-17.tsv: %s.\n" % r["speed"])
        return
    print("Median b/a over %d rounds %.3f, b faster in %d; run-to-run spread (sd of ln W) a %.4f, b %.4f. The readings "
          "fixed in probe-17.tsv: %s; %s.\n" % (len(r["rounds"]), r["r"], r["faster"], r["sd"]["a"], r["sd"]["b"],
                                                 r["speed"], r["spread"]))


def batch_law(path, threads=(7, 15)):
    """The batch's own law of each CPU phase of a calibrated model that has one
    (batch.serial): phase -> (batch 1's serial share, batch 2's, batch 2's one-core
    multiplier, the multiplier alone at each of THREADS: model_time's call of two against
    its call of one). {} when no phase has one."""
    out = {}
    for p, ph in model_means(path).items():
        if p in CPU and "bserial" in ph and len(ph["scale"]) >= 2:
            out[p] = (ph["serial"], ph["bserial"][1], ph["scale"][1],
                      [2 * model_time(ph, t, 2) / model_time(ph, t, 1) for t in threads])
    return out


def table_batch_law(datas):
    """Table 45: the batch's own law that each session's calibration fitted, at 2^20."""
    rows = [(os.path.basename(os.path.normpath(d)), batch_law(os.path.join(d, "model-220.yaml")))
            for d in datas if os.path.exists(os.path.join(d, "model-220.yaml"))]
    rows = [(n, r) for n, r in rows if r]
    if not rows:
        return
    print("## 45. The batch's own law, as each session's calibration fitted it at 2^20\n")
    print("Where a session's one-worker calls of 2 partitions ran at two thread counts (the fortieth protocol: "
          "cal20-b2 at 15 threads, cal20-b2-t6-a at 6), calibrate fits them a law of their own (batch.serial). Per CPU "
          "phase: the serial share of a call of one partition and of two, the one-core multiplier of two, and the "
          "multiplier alone at 7 threads (the batch-2 rows' workers) and at 15 (the calibration's default).\n")
    print("| session | phase | serial, batch 1 | serial, batch 2 | one-core multiplier | at 7 threads | at 15 | "
          "7 against 15 |")
    print("|---|---|---|---|---|---|---|---|")
    for n, r in rows:
        for p in CPU:
            if p in r:
                s1, s2, sc, (m7, m15) = r[p]
                print("| %s | %s | %.4f | %.4f | %.3f | %.3f | %.3f | %.3f |" % (n, p, s1, s2, sc, m7, m15, m7 / m15))
    print()


def gpu_phase_modes(data, phase="b_g2"):
    """A GPU phase's two modes in one session's 2^20 batch-1 runs whose GPU phases take
    turns (the overlap runs and x20-w2, whose phases run side by side, left out): each
    call's length (each worker's first two calls left out), split by Otsu's rule
    (two_modes) over the session's calls. Per run: (name, calibration run or held-out, its
    calls, share of slow calls, mean length, mean GPU time per partition: ntt_h + msm +
    b_g2, per worker whether most of its calls were slow, and the constraints of the run
    that ran just before it in the session, None for the first). Returns (cut, [run, ...])
    or None."""
    runs_, all_ = [], dict(runs(data))
    order = run_order(data)
    before = {b: all_[a]["scenario"]["prover"]["constraints"] for a, b in zip(order, order[1:]) if a in all_}
    for n, d in all_.items():
        sc = d["scenario"]
        if (sc["prover"]["constraints"] != 2 ** 20 or sc["system"]["batch"] != 1 or n.startswith("ovl")
                or n.startswith("x20")):
            continue
        path = os.path.join(data, "runs", n + ".spans.jsonl.gz")
        if not os.path.exists(path):
            continue
        sp = read_spans(path)[0]
        v = [r["t1"] - r["t0"] for r in sp if r["phase"] == phase]
        by = {}
        for r in sp:
            if r["phase"] == phase:
                by.setdefault(r["worker"], []).append(r["t1"] - r["t0"])
        gpu = [spans_per_partition(sp, g) for g in GPU]
        if v and None not in gpu:
            runs_.append((n, n.startswith("cal"), v, sum(gpu), list(by.values())))
    cut = two_modes([x for r in runs_ for x in r[2]])
    if cut is None:
        return None
    return cut, [(n, cal, len(v), sum(x >= cut for x in v) / len(v), sum(v) / len(v), g,
                  [sum(x >= cut for x in w) / len(w) > 0.5 for w in ws], before.get(n))
                 for n, cal, v, g, ws in runs_]


def fisher_exact(a, b, c, d):
    """Fisher's exact test, two-sided, of the 2x2 table [[a, b], [c, d]]: the chance, with
    the margins fixed, of a table no more likely than this one (hypergeometric)."""
    n, r1, c1 = a + b + c + d, a + b, a + c
    p = lambda x: math.comb(r1, x) * math.comb(n - r1, c1 - x) / math.comb(n, c1)  # noqa: E731
    here = p(a)
    return min(1.0, sum(q for q in (p(x) for x in range(max(0, c1 + r1 - n), min(r1, c1) + 1))
                        if q <= here * (1 + 1e-9)))


def table_gpu_phase_modes(datas, phase="b_g2"):
    """Table 49: a GPU phase's two modes in the calibration runs and in the held-out runs
    of each session of DATAS (gpu_phase_modes), and what the difference does to the GPU
    time a partition that the model draws."""
    rows = [(os.path.basename(os.path.normpath(d)), gpu_phase_modes(d, phase)) for d in datas]
    rows = [(n, r) for n, r in rows if r]
    if not rows:
        return
    print("## 49. %s's two modes: the calibration runs against the held-out runs\n" % phase)
    print("Every %s call of the session's 2^20 batch-1 runs whose GPU phases take turns (overlap runs and "
          "x20-w2 left out; each worker's first two calls left out), split where the variance between the two "
          "classes is largest (Otsu's rule). Per group: its runs, those mostly (over half their calls) in the slow "
          "mode, and over its runs (each weighing one) the share of slow calls and the mean length in ms; then the calibration's mean over the held-out "
          "runs', and that difference as a share of the held-out runs' GPU time a partition (ntt_h + msm + b_g2): "
          "how much busier a partition the model's GPU is, where its %s comes from the calibration runs.\n"
          % (phase, phase))
    print("| session | split (ms) | calibration runs | slow | slow calls | mean (ms) | held-out runs | slow | slow calls "
          "| mean (ms) | calibration / held-out | of the GPU time a partition |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    pooled = {True: [], False: []}
    for n, (cut, rr) in rows:
        cells = []
        for cal in (True, False):
            g = [r for r in rr if r[1] == cal]
            pooled[cal] += g
            cells.append((len(g), sum(r[3] > 0.5 for r in g), sum(r[3] for r in g) / len(g),
                          sum(r[4] for r in g) / len(g), sum(r[5] for r in g) / len(g)))
        (nc, sc, shc, mc, _), (nh, sh, shh, mh, gh) = cells
        print("| %s | %.2f | %d | %d | %.2f | %.2f | %d | %d | %.2f | %.2f | %.3f | %+.1f%% |" % (
            n, 1e3 * cut, nc, sc, shc, 1e3 * mc, nh, sh, shh, 1e3 * mh, mc / mh, 100 * (mc - mh) / gh))
    if len(rows) > 1:
        c, h = pooled[True], pooled[False]
        mean = lambda g: sum(r[4] for r in g) / len(g)  # noqa: E731
        print("\nPooled: %d of %d calibration runs mostly slow, %d of %d held-out runs; %s a call %.2f ms in the "
              "calibration runs, %.2f in the held-out ones (%.3f)." % (
                  sum(r[3] > 0.5 for r in c), len(c), sum(r[3] > 0.5 for r in h), len(h), phase, 1e3 * mean(c),
                  1e3 * mean(h), mean(c) / mean(h)))
        many = [r for r in c + h if len(r[6]) > 1 and any(r[6])]
        print("By process: of the runs of two workers or more, %d had a worker with most of its calls slow, and in "
              "%d of them every worker had." % (len(many), sum(all(r[6]) for r in many)))
        # each split: its line, the runs it reads (the first run of a session has no run
        # before it), and which of them are the line's group
        for what, g, split in (("By workers: runs of one worker", c + h, lambda r: len(r[6]) == 1),
                               ("By the run before: runs after a run of 2^22 constraints or more",
                                [r for r in c + h if r[7] is not None], lambda r: r[7] >= 1 << 22)):
            yes, no = [r for r in g if split(r)], [r for r in g if not split(r)]
            a, b = sum(r[3] > 0.5 for r in yes), sum(r[3] > 0.5 for r in no)
            print("%s: %d of %d mostly slow, the others %d of %d (Fisher's exact test, two-sided, p = %.3f)." % (
                what, a, len(yes), b, len(no), fisher_exact(a, len(yes) - a, b, len(no) - b)))
        print()
    else:
        print()


NEIGHBOUR_S = 60  # table 33: a calibration run this close in time (s) is a neighbour
NEIGHBOURS = re.compile(r"cal20-t(2|6|15)(-r)?$")  # the 16-core single-worker runs at 2^20


def call_times(data):
    """When each run of a one-call session ended (s into the call, DATA/log.txt's "at N s"),
    or {} when the log holds more than one run list (several calls, whose clocks restart)."""
    log = os.path.join(data, "log.txt")
    if not os.path.exists(log):
        return {}
    text = open(log).read()
    if len(re.findall(r"^== .*\.tsv at ", text, re.M)) != 1:
        return {}
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+util .* at (\d+) s$", text, re.M)}


def synth_ratios(data):
    """Each 2^20 batch-1 run of a one-call session: name -> (end s, cores, workers, threads,
    synth's measured mean over the session's model at the run's threads, table 1's ratio)."""
    t, mp = call_times(data), os.path.join(data, "model-220.yaml")
    if not t or not os.path.exists(mp):
        return {}
    mm, out = model_means(mp), {}
    for name, d in runs(data):
        sc = d["scenario"]
        s = sc["system"]
        if sc["prover"]["constraints"] != 1 << 20 or name not in t or s["batch"] != 1:
            continue
        out[name] = (t[name], s["cpu_cores"], s["workers_per_gpu"], s["threads"].get("threads_per_worker") or 1,
                     run_phase_ratio(d, "synth", mm["synth"]))
    return out


def table_time_neighbours(datas):
    """Table 33: the host's speed through one call, and each held-out row against its
    neighbours in time. For each one-call session among DATAS (log.txt with one run list):
    `synth`'s measured mean over the model's (table 1) for the 2^20 calibration runs on 16
    cores with one worker (cal20-t2, -t6, -t15 and their -r copies) by when they ended, and
    each held-out 2^20 row at batch 1 over the mean of those that ended within
    NEIGHBOUR_S seconds of it (runs take 5-10 s, the Poisson row 100 s): what is left of a
    row's slowness once the host's speed of the moment is taken out. With several
    sessions, each row's ratios pooled (median, range)."""
    per, pooled = [], {}
    for data in datas:
        r = synth_ratios(data)
        cal = sorted((v[0], v[4], n) for n, v in r.items() if NEIGHBOURS.match(n))
        if not cal:
            continue
        rows = []
        for n, v in sorted(r.items(), key=lambda kv: kv[1][0]):
            if n.startswith(("cal", "ovl")):
                continue
            nb = [x for t, x, _ in cal if abs(t - v[0]) <= NEIGHBOUR_S]
            if nb:
                rel = v[4] / statistics.mean(nb)
                rows.append((n, v, len(nb), rel))
                pooled.setdefault(re.sub(r"-p\d+$", "", n), []).append((rel, v[1]))
        per.append((os.path.basename(os.path.normpath(data)), cal, rows))
    if not per:
        return
    print("## 33. The host's speed through one call, and each row against its neighbours in time\n")
    print("`synth`'s measured mean over the model's at the run's threads (table 1), in one-call sessions. The "
          "calibration runs on 16 cores with one worker by when they ended; then each held-out 2^20 row at "
          "batch 1 over the mean of those calibration runs that ended within %d s of it (how many in "
          "brackets): above 1, the row ran slower than the host's speed of the moment.\n" % NEIGHBOUR_S)
    for name, cal, rows in per:
        print("%s: calibration %s" % (name, ", ".join("%s %.2f at %d s" % (n, x, t) for t, x, n in cal)))
        print("  rows: %s\n" % ", ".join("%s %.2f (%d)" % (n, rel, k) for n, v, k, rel in rows))
    if len(per) > 1:
        print("Pooled over %d sessions (every pass of each row):\n" % len(per))
        print("| row | cores | runs | median | range |")
        print("|---|---|---|---|---|")
        for n, L in sorted(pooled.items(), key=lambda kv: (kv[1][0][1], kv[0])):
            x = [a for a, _ in L]
            print("| %s | %d | %d | %.3f | %.2f to %.2f |" % (n, L[0][1], len(x), statistics.median(x), min(x), max(x)))
        few = [a for L in pooled.values() for a, c in L if c < 16]
        full = [a for L in pooled.values() for a, c in L if c == 16]
        print("\nRows on 4 or 8 cores: median %.3f over %d runs; on 16 cores: %.3f over %d.\n" % (
            statistics.median(few), len(few), statistics.median(full), len(full)))


def lock_times(spans):
    """The mutex's own time in a run's spans, per hold that covered GPU phases: from the
    acquire to the first GPU phase in it (pre) and from the last to the release (post), the
    GPU phases' time in it; and per handover (a worker that waited from before the release
    to after it) the wake, from the release to that worker's acquire. Lists of seconds:
    (pre, post, gpu, wake)."""
    gpu = {}
    for r in spans:
        if r.get("resource") == "gpu":
            gpu.setdefault((r["worker"], r["call"]), []).append(r)
    held = [r for r in spans if r["phase"] == "mutex_held"]
    waits = [r for r in spans if r["phase"] == "mutex_wait"]
    pre, post, busy, wake = [], [], [], []
    for h in held:
        g = [r for r in gpu.get((h["worker"], h["call"]), ()) if r["t0"] >= h["t0"] and r["t1"] <= h["t1"]]
        if not g:
            continue
        pre.append(min(r["t0"] for r in g) - h["t0"])
        post.append(h["t1"] - max(r["t1"] for r in g))
        busy.append(sum(r["t1"] - r["t0"] for r in g))
        w = [x["t1"] for x in waits if x["worker"] != h["worker"] and x["t0"] < h["t1"] <= x["t1"]]
        if w:
            wake.append(min(w) - h["t1"])
    return pre, post, busy, wake


# table 36: the one-worker runs of the calibration at 6 threads or more (the GPU phases do
# not wait there for prep) and the held-out rows under the kernels' lock at 2^20, batch 1,
# 16 cores
LOCK_GROUPS = (("one worker (calibration)", re.compile(r"cal20-t(6|15)(-|$)")),
               ("k20-w2", re.compile(r"k20-w2(-p\d+)?$")), ("k20-w3", re.compile(r"k20-w3(-p\d+)?$")),
               ("k20-w4", re.compile(r"k20-w4(-p\d+)?$")), ("k20-w2-all", re.compile(r"k20-w2-all(-p\d+)?$")),
               ("k20-w2-nokeep", re.compile(r"k20-w2-nokeep(-p\d+)?$")))


def table_lock_time(datas):
    """Table 36: the mutex's own time, which the model does not have (it starts a holder's
    first GPU phase at the acquire, releases at the end of its last, and hands the mutex to
    a waiting worker at once), in each session of DATAS."""
    rows = []
    for d in datas:
        rd = runs_dir(d)
        if not os.path.isdir(rd):
            continue
        err = {}
        vj = os.path.join(d, "validation.json")
        if os.path.exists(vj):
            doc = json.load(open(vj))
            err = {r["name"]: r["gpu_util"]["error_pp"] for r in doc.get("mean_of_passes_as_calibrated") or doc["rows"]}
        for g, rx in LOCK_GROUPS:
            pre, post, busy, wake = [], [], [], []
            for f in sorted(os.listdir(rd)):
                if f.endswith(".spans.jsonl.gz") and rx.match(f[:-len(".spans.jsonl.gz")]):
                    for acc, v in zip((pre, post, busy, wake), lock_times(read_spans(os.path.join(rd, f))[0])):
                        acc += v
            if pre:
                rows.append((os.path.basename(os.path.normpath(d)), g, pre, post, busy, wake, err.get(g)))
    if not rows:
        return
    med = statistics.median
    print("## 36. The mutex's own time: acquire to the first GPU phase, the last to the release, the handover\n")
    print("Every hold of the kernels' lock in the group's runs (all passes; each worker's first two calls left out): "
          "the medians of its time before the first GPU phase (pre) and after the last (post), in us; the GPU "
          "phases' time in it (ms, median); the handovers (a worker waiting from before the release to after it) "
          "and the median wake, release to that worker's acquire (us). The model has none of the three. Where "
          "every hold is handed over, the GPU stands idle for about pre + post + wake a call: the last column, as a "
          "share of (GPU phases + pre + post + wake), beside the row's utilization error (the mean of its passes "
          "as calibrated).\n")
    print("| session | runs | holds | pre (us) | post (us) | GPU phases (ms) | handovers | wake (us) | idle share "
          "if saturated | util error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, g, pre, post, busy, wake, e in rows:
        w = med(wake) if wake else 0.0
        idle = med(pre) + med(post) + w
        print("| %s | %s | %d | %.0f | %.0f | %.2f | %d | %s | %s | %s |" % (
            n, g, len(pre), 1e6 * med(pre), 1e6 * med(post), 1e3 * med(busy), len(wake),
            "%.0f" % (1e6 * w) if wake else "-", "%.2f%%" % (100 * idle / (med(busy) + idle)) if wake else "-",
            "%+.2f pp" % e if e is not None else "-"))
    print()


def table_repeat_spread(datas):
    """Table 41: held-out rows run twice or more in one session (its passes: NAME, NAME-p2,
    ...), the spread of those identical runs against the spread validate's prediction
    intervals assume. Each run's utilization (CUPTI) and throughput, against the interval of
    the session's validation.json row (95%, simulated windows of the run's length); per row
    the run-to-run standard deviation from the pairs within a session, sqrt(sum d^2 / 2n)
    over the n pairs of first and second pass (throughput's as log ratios), beside the
    interval's implied one, its width / 3.92."""
    per_row, runs_in, n_runs, t_in = {}, 0, 0, 0
    names = []
    for data in datas:
        vj = os.path.join(data, "validation.json")
        if not os.path.exists(vj):
            continue
        names.append(os.path.basename(os.path.normpath(data)))
        rows = {r["name"]: r for r in json.load(open(vj))["rows"] if "pi" in r["gpu_util"]}
        meas = {b: [(k, d["metrics"]["gpu_util_mean"], d["metrics"]["throughput_pps"]) for k, _, d in l]
                for b, l in row_passes(data, rows).items()}
        for base, l in meas.items():
            (lo, hi), (tlo, thi) = rows[base]["gpu_util"]["pi"], rows[base]["throughput_pps"]["pi"]
            for _, u, x in l:
                n_runs += 1
                runs_in += lo <= u <= hi
                t_in += tlo <= x <= thi
            r = per_row.setdefault(base, {"du": [], "dx": [], "pu": [], "px": []})
            r["pu"].append((hi - lo) / 3.92)
            r["px"].append(math.log(thi / tlo) / 3.92)
            if len(l) >= 2:
                r["du"].append(l[0][1] - l[1][1])
                r["dx"].append(math.log(l[0][2] / l[1][2]))
    if not n_runs:
        return
    print("## 41. Identical held-out runs in one session against validate's intervals\n")
    print("Sessions %s: each held-out row's runs in a session (its first pass, and its second where "
          "the session ran one), against the 95%% prediction interval of the session's validation.json "
          "row. Run-to-run sd: from the pairs of first and second pass within a session, "
          "sqrt(sum d^2 / 2n); the interval's sd: its width / 3.92, averaged over the sessions.\n" % ", ".join(names))
    print("| row | pairs | utilization: run-to-run sd (pp) | interval's sd (pp) | ratio | throughput: run-to-run sd | "
          "interval's sd | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    big, all_du, all_pu = 0, [], []
    for base in sorted(per_row):
        r = per_row[base]
        pu, px = 100 * statistics.mean(r["pu"]), 100 * statistics.mean(r["px"])
        if not r["du"]:
            print("| %s | 0 | - | %.2f | - | - | %.2f%% | - |" % (base, pu, px))
            continue
        su = 100 * math.sqrt(sum(d * d for d in r["du"]) / (2 * len(r["du"])))
        sx = 100 * math.sqrt(sum(d * d for d in r["dx"]) / (2 * len(r["dx"])))
        big += su > 2 * pu
        all_du += r["du"]
        all_pu += [x for x in r["pu"]]
        print("| %s | %d | %.2f | %.2f | %.1f | %.2f%% | %.2f%% | %.1f |" %
              (base, len(r["du"]), su, pu, su / pu if pu else float("inf"), sx, px, sx / px if px else float("inf")))
    print("\n%d of %d runs inside their utilization interval, %d inside their throughput interval; "
          "%d rows whose identical runs spread more than twice what the interval assumes." % (runs_in, n_runs, t_in, big))
    if all_du:
        su = 100 * math.sqrt(sum(d * d for d in all_du) / (2 * len(all_du)))
        pu = 100 * math.sqrt(statistics.mean(x * x for x in all_pu))
        print("Pooled over the %d pairs: utilization's run-to-run sd %.2f pp against the intervals' %.2f pp "
              "(root mean square over the same rows' sessions).\n" % (len(all_du), su, pu))
    else:
        print()
