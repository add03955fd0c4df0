#!/usr/bin/env python3
"""Why held-out rows of docs/validation.md miss: the measured phase times against what the
calibrated model draws, probes of the host, and what-ifs, from the committed H200 runs of
one session, without a GPU.

    scripts/validation_misses.py [--bin build/provesim] [--data docs/data/validation/h200-13]

Prints the numbered tables below that the session's data allows (docs/validation.md and
docs/validation-sessions.md quote them):
1. every run: each phase's measured mean per partition against the calibrated model's mean
   at the run's thread count and batch (model-SIZE.yaml: Amdahl's law, batch.scale), with
   the run's session (log.txt or log-2.txt), workers on the host, and how many workers can
   compute at once (one under the whole-call lock);
2. the two-worker overlap runs (calibration): each CPU phase's duration, relative to the
   mean of its kind, by what else ran beside it (the other worker's CPU phase, any GPU
   phase, any copy between host and GPU), with a least-squares fit
   y = a + b * (share of the span beside the other worker's CPU phase);
3. the same scenario measured in the two sessions: how far the CPU phases moved;
4. the batch multipliers: measured per-partition ratio of batch 2 to batch 1 at each
   thread count where both were measured, in the same session or not;
6. the CPU phases (measured / model) grouped by how many workers of the host can compute at
   once (one under the whole-call lock), the condition the misses point to;
7. how much of each miss the phase times explain: the row predicted again (`provesim
   validate`, as scripts/validation.py does) with the model's phase times multiplied by the
   ratios of table 1 measured in that very row. This is a diagnosis, not a model: the
   ratios come from the held-out row itself;
8. every held-out row predicted again with the 2^20 model's cpu_contention set to a few
   values: whether any linear contention law could cover the four-worker rows without
   breaking the two-worker ones (a sensitivity, not a fit);
9. where DATA/probe/runs exists (docs/data/validation/probe.tsv, the fourth session): several
   workers against one at the same threads, each setting twice in alternation;
10. where DATA/probe-2 exists (the fifth session): two workers at 2^22 against one, four rounds;
11. where DATA/probe-3 exists (the sixth session): spinning against blocked waiters at 2^22;
12. x20-w2, whose GPU phases overlap, under the GPU sharing law calibrated (shared, with the
    fitted interference), shared by order of start (calibrate --gpu-order) and under an
    exclusive GPU: which law its measurement follows;
13. the kernels of the runs where GPU phases of two workers overlap, and of a one-worker
    run: the sum of their times against the time at least one ran (their union), per
    partition: whether kernels running at once get more done;
14. every held-out row judged as scripts/validation.py judges it (the verdict: the mean of
    the passes, or the bracketing references, or the rows), with the session's cpu
    contention fitted across runs (the protocol's) and within each run (calibrate's
    default since): the rows that change;
15. where DATA/probe-3 exists: its locked 2^22 runs predicted with the host factor of the
    one-worker run of their own threads and cores in the same round (the seventh session's
    references), with either contention fit;
16. single-worker runs at 2^20 by threads and cores: the CPU phases on fewer cores;
17. where DATA/probe-4 or DATA/probe-5 exists (the seventh and eighth sessions): one worker
    at 3 threads on 4 and on 16 cores, with CUDA's waiters spinning and blocked, round by
    round: each run's prep over its own synth (which the host's speed of the moment moves
    alike), 4 cores against 16;
18. where DATA/probe-6 exists (the eighth session): one setting run back to back, with the
    hypervisor's steal over each run (NAME.host): the spread of identical runs;
19. where the held-out rows ran in passes (the ninth session): each pass's throughput
    against the row's later passes, beside the steal on the run's cores, and the
    calibration's steal (and a second calibration's, DATA/recal);
20. the GPU phases of the overlap runs (ovl20-w2, ovl20-w2-2, ovl20-w4-t3) and of x20-w2's
    passes by which other worker's GPU phase ran beside them: each phase's time alone, beside
    exactly one ntt_h, msm or b_g2, and beside two or more; the rate of each pair (P beside
    Q) from calibrate's identity (solo work - time alone = sum of rate x time), the spans
    grouped by the company they spent most of their overlap in (two-stage least squares,
    bootstrap sd), against the pooled law of the session's model (gpu_overlap); and the
    work x20-w2's overlaps held against the pooled law and laws by pairs fitted from the
    overlap runs alone;
21. where DATA/probe-7 exists (the tenth session): one worker at 7 threads and c22-w2's
    settings at 2^22, alternated: synth with and without a second worker waiting at the
    whole-call lock, round by round;
22. where the calibration's spans headers record host_steal (from the tenth session): the
    mean of the passes as calibrated by the protocol's model, by the same calibration
    without the runs kept above the gate (where DATA/rejected-K exists: the gate's last try
    let them through), and with every run's cpu spans made quiet (--steal-exponent 1.26);
23. where DATA/probe-8 exists (after the eleventh session): one setting run twelve times
    with a CPU benchmark of the host just before and after each run (run.sh PROBE=1):
    each run's CPU time per partition beside the benchmark's NTT time and Fr rate and the
    run's steal, and how well each predicts the run's CPU time (log-log slope, r); and 25,
    the same for DATA/probe-9 (after the twelfth session: twenty runs of cal20-c4-t3's
    setting on a quiet host);
24. where a second calibration ran at the end of the lease (calib-2.tsv, from the twelfth
    session): each setting's CPU time per partition in the first calibration over the
    second where both runs were quiet (host_steal at most 2%), the host's drift over the
    lease that steal does not show; and the mean of the passes as calibrated from both
    calibrations (the protocol's), from the first or the second alone, and by the
    protocol's model with each held-out run's CPU phases slowed by its own steal,
    (1 - host_steal)^-1.26 (the run's steal taken as an input, not a fit);
26. where DATA/probe-10 exists (after the thirteenth session): two settings alternated run
    by run (probe-10.tsv: c20-w2-c4's and cal20-c4-t1's, which the model gives the same
    one-thread CPU phases), each pair's CPU time per partition, first setting over second,
    and the reading the list fixed before its runs;
27. for a session judged on the mean of its passes (validation.json's
    mean_of_passes_as_calibrated): the verdict's own spread, the passes of each row
    resampled with replacement (4,000 draws, a fixed seed) against the model's one
    prediction: how many rows come within the target, and how often each row misses;
28. the saturated rows (GPU-bound, several workers, the mutex on the kernels): the gaps
    between consecutive GPU phases of different workers (the mutex handed over) and of one
    worker, their share of the run, beside the utilization error;
29. where DATA/repeats exists (a session on two machines): the rows both machines ran,
    the second machine's throughput, GPU and CPU time over the first's;
30. the GPU phases' host threads: the mean of the passes as calibrated with the protocol's
    model (each GPU phase holds one host thread, host_threads: 1), with the same model
    holding the host threads probe 11 measured (table 31, the nineteenth session's: 1.24)
    and holding two (CUDA's spinning waiter beside the launching thread, the seventh
    session's probe 4), what-ifs for a law that calibrate does not fit yet;
31. where DATA/probe-11 exists (after the eighteenth session): five single-worker
    settings alternated run by run (probe-11.tsv), `prep`'s time per partition at 4, 5
    and 3 cores over its reference on 16, synth's as the control, the host threads the
    ratios imply and the reading probe-11.tsv fixed before the runs;
32. where DATA/runs holds probe 11's pair among the calibration runs (cal20-c4-t3 and
    cal20-c16-t3, the tenth to thirteenth sessions): each copy's prep and synth, 4 cores
    over 16, and the host threads they imply;
33. in a one-call session (the seventeenth on): synth's speed against the model through
    the call, for the 16-core single-worker calibration runs by when they ended, and each
    held-out 2^20 row over the calibration runs that ended within 60 s of it; --also DIR... pools
    more one-call sessions' rows with DATA's;
34. where DATA/probe-13 exists: two workers under the kernels lock, two under the
    whole-call lock and one worker, alternated run by run (probe-13.tsv), their CPU
    phases' wall time and CPU time (cpu_s) per partition over the one worker's, the
    reading probe-13.tsv fixed before the runs, each GPU phase's host threads, and the
    epilogue's two modes in its runs (table 35's split) with what the slow calls are;
35. the epilogue's two modes (a fast and a slow one, about 5 and 8 ms at 2^20): every
    epilogue span of the 2^20 batch-1 runs split where the variance between the classes
    is largest, and per group of runs (one worker; two to four under the kernels' or a
    custom lock; under the whole-call lock; without a lock) the share of slow calls and
    each mode's median; --also DIR... adds more sessions' rows;
36. the mutex's own time, which the model leaves out by every protocol so far: in the
    one-worker calibration runs and the held-out rows under the kernels' lock, the time
    from the acquire to the first GPU phase and from the last to the release, and the wake
    of a waiting worker, beside the rows' utilization errors; --also DIR... adds sessions;
37. (with --bin) DATA and the --also sessions pooled as their protocol pools them, with the
    protocol's model and with the mutex's own time fitted (calibrate --mutex-overhead fit);
38. (with --bin) the same sessions with the GPU phases' host threads from cpu_s and with
    the host load fitted from the calibration's runs on fewer and more cores
    (calibrate --host-threads load): the last column is the twenty-ninth protocol's model;
39. (with --bin) the same sessions with that model and with its cpu contention counted
    only where the overlap runs resolve it (calibrate --contention significant).
40. (with --bin) the same sessions with that model on a quiet host and with the scenario's
    system.host_steal at the calibration runs' median steal or at each run's own.
41. the held-out rows run twice in one session (first and second pass) in DATA and the
    --also sessions: the run-to-run spread of identical runs against the spread that the
    prediction intervals of each session's validation.json assume, and how many runs fall
    inside their intervals;
42. (with --bin) table 41's pairs, each run predicted again with its own phase times (table
    7's model): how much of the difference between identical runs the phase times explain,
    the CPU phases' speed from one pass to the other against calibrate's host_speed, and how
    much of each pass's synthesis ran beside another worker's CPU phase;
43. where DATA/probe-14 exists: two workers on 8 cores and four on 16, each beside one worker
    at the same threads and cores, alternated run by run (probe-14.tsv): whether their CPU
    phases' speed moves with the one worker's through a call, and the reading probe-14.tsv
    fixed before the runs;
44. where DATA/probe-15 exists: one worker with batch 1 and batch 2, at 7 threads and at 15,
    alternated run by run (probe-15.tsv): whether a batch-2 partition's CPU phases against
    batch 1's depend on the threads, and the reading probe-15.tsv fixed before the runs;
45. where a session's model has the batch's own law (batch.serial: its calls of 2 ran at two
    thread counts): each CPU phase's serial shares, and its multiplier at 7 and 15 threads;
46. (with --bin) the batch-2 rows and their batch-1 twins, DATA and the --also sessions pooled as
    table 40 pools them, with each session's batch multipliers as calibrated and with probe
    15's (docs/data/validation/h200-40) at 15 threads and at 7;
47. (with --bin) the sessions that ran cal20-b2-t6-a (the fortieth protocol), pooled as table 40
    pools them, with the batch's own law (batch.serial) and without that run;
48. (with --bin, right after table 40) table 40's verdict column against the noise between its
    sessions: each row's mean error and standard error, whether a row out of the target is
    out beyond that noise, and how many rows a model without error would get within, with
    verdicts of 3 to 48 sessions;
49. b_g2's two modes in DATA and the --also sessions: the calibration runs against the
    held-out runs, how much busier a partition that makes the model's GPU, and whether the
    workers of one run share its mode;
50. (with --bin) DATA and the --also sessions pooled as table 40 pools them, with the GPU
    phases' modes by run in the model (calibrate --run-modes fit) and without: the verdict,
    and the held-out runs inside validate's prediction intervals.
51. where DATA/probe-16 exists: b_g2's mode by run under three settings of where the spilling
    kernels' local memory is allocated (PSC_CUDA_LMEM lazy, early, max), and the reading
    probe-16.tsv fixed before the runs;
52. where DATA/probe-17 exists: the CPU phases' speed and run-to-run spread with the host's
    memory on transparent huge pages and without, and the readings probe-17.tsv fixed
    before the runs;
53. (with --bin, right after table 47) the sessions that ran the forty-first protocol's
    repeats of the runs of calls of 2 (cal20-b2-t15-a, cal20-b2-t6-b, cal20-b2-t15-b),
    pooled as table 40 pools them, with and without those runs.
The probes' tables (9, 10, 11, 23, 25, 26, 31-36, 41, 43-45, 49, 51, 52) are in validation_probes.py, the what-ifs
(7, 8, 12, 14, 15, 22, 24, 30, 37-40, 42, 46-48, 50, 53) in validation_whatif.py; this file runs them all in order.
Only the standard library; the spans are read as streams.
"""
import argparse
import gzip
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from validation_store import (CPU, GPU, covered, model_means, phase_per_partition, read_spans,  # noqa: E402
                              run_model_time, run_phase_ratio, runs, runs_dir)
from validation_probes import (table_alternated, table_cpu_time_probe, table_host_probe,  # noqa: E402
                               table_host_threads_calib, table_host_threads_probe, table_probe,
                               table_probe2, table_probe3, table_time_neighbours,
                               table_epilogue_modes, table_lock_time, table_repeat_spread, table_drift_probe,
                               table_batch_probe, table_batch_law, table_gpu_phase_modes,
                               table_lmem_probe, table_thp_probe)
from validation_whatif import (pass_suffixes, table_contention_law, table_contention_within,  # noqa: E402
                               table_contention_significant, table_host_load, table_host_steal, table_mutex_overhead,
                               table_explained, table_gate_what_if, table_gpu_law, table_host_threads,
                               table_lease_drift, table_own_reference, table_repeat_explained,
                               table_batch_what_if, table_batch_law_what_if, table_run_modes,
                               table_batch_repeats_what_if)


def sessions(data):
    s = {}
    for i, log in enumerate(("log.txt", "log-2.txt")):
        p = os.path.join(data, log)
        if os.path.exists(p):
            for line in open(p):
                m = re.match(r"(\S+)\s+util ", line)
                if m:
                    s[m.group(1)] = i + 1
    return s


def table_phases(data, models, sess):
    print("## 1. Phase means per partition: measured / model (model ms in brackets)\n")
    print("| run | session | 2^n | GPUs x workers | threads | cores | mutex | batch | compute at once | "
          "synth | prep | epilogue | ntt_h | msm | b_g2 | util |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, d in runs(data):
        sc = d["scenario"]
        s, n = sc["system"], sc["prover"]["constraints"]
        size = "2^%d" % round(math.log2(n))
        mm = models.get(size)
        if mm is None:
            continue
        thr = s["threads"].get("threads_per_worker") or 1
        b, w, g = s["batch"], s["workers_per_gpu"], s["gpus"]
        scope = s["mutex"]["scope"]
        at_once = g if scope == "call" else g * w
        cells = []
        for p in CPU + GPU:
            mod = run_model_time(d, mm[p])
            cells.append("%.2f (%.1f)" % (run_phase_ratio(d, p, mm[p]), 1000 * mod))
        print("| %s | %s | %s | %dx%d | %d | %d | %s | %d | %d | %s | %.3f |" % (
            name, sess.get(name, "?"), size[2:], g, w, thr, s["cpu_cores"], scope, b, at_once, " | ".join(cells),
            d["metrics"]["gpu_util_mean"]))
    print()


def slope(xs, ys):
    """Least squares y = a + b x; None when x does not vary."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if n < 3 or sxx < 1e-9:
        return None
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def table_overlap(data):
    print("## 2. Overlap runs (two workers, no mutex): CPU phases by what ran beside them\n")
    print("Duration relative to the mean of the phase in the run. Shares of the span during which "
          "the other worker ran a CPU phase (CPU), any GPU phase ran (GPU), a copy between host and "
          "GPU ran (copy); a, b: least squares of the relative time on the CPU share.\n")
    print("| run | phase | spans | CPU share | GPU share | copy share | rel. time, CPU share < 10% | "
          "CPU share > 50% | a, b |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in ("ovl20-w2", "ovl22-w2"):
        p = os.path.join(data, "runs", f + ".spans.jsonl.gz")
        if not os.path.exists(p):
            continue
        spans, copies = read_spans(p)
        copies.sort()
        cpu = sorted(((r["t0"], r["t1"], r["worker"]) for r in spans if r["resource"] == "cpu"))
        gpu = sorted(((r["t0"], r["t1"]) for r in spans if r["resource"] == "gpu"))
        for ph in CPU:
            mine = [r for r in spans if r["phase"] == ph]
            mean = sum(r["t1"] - r["t0"] for r in mine) / len(mine)
            fc, fg, fm, ys = [], [], [], []
            for r in mine:
                fc.append(covered(r["t0"], r["t1"], [(a, b) for a, b, w in cpu if w != r["worker"]]))
                fg.append(covered(r["t0"], r["t1"], gpu))
                fm.append(covered(r["t0"], r["t1"], copies))
                ys.append((r["t1"] - r["t0"]) / mean)
            alone = [y for x, y in zip(fc, ys) if x < 0.1]
            beside = [y for x, y in zip(fc, ys) if x > 0.5]
            avg = lambda v: sum(v) / len(v)
            cell = lambda v: "%.3f (%d)" % (avg(v), len(v)) if v else "- (0)"
            fit = slope(fc, ys)
            print("| %s | %s | %d | %.2f | %.2f | %.2f | %s | %s | %s |" % (
                f, ph, len(mine), avg(fc), avg(fg), avg(fm), cell(alone), cell(beside),
                "%.3f, %+.3f" % fit if fit else "-"))
    print()


def table_sessions(data, sess):
    print("## 3. The same scenario in two sessions: CPU phase means (ms per partition)\n")
    print("| scenario | synth 1st / 2nd | prep 1st / 2nd | ntt_h 1st / 2nd | util 1st / 2nd |")
    print("|---|---|---|---|---|")
    rr = dict(runs(data))
    for name in sorted(rr):
        m = re.match(r"(.*)-r2$", name)
        if not m or m.group(1) not in rr:
            continue
        a, b = rr[m.group(1)], rr[name]
        def ph(d, p):
            return 1000 * d["metrics"]["phases_s"][p]["mean"] / d["scenario"]["system"]["batch"]
        print("| %s | %.1f / %.1f (%+.0f%%) | %.1f / %.1f (%+.0f%%) | %.1f / %.1f | %.1f%% / %.1f%% |" % (
            m.group(1), ph(a, "synth"), ph(b, "synth"), 100 * (ph(b, "synth") / ph(a, "synth") - 1),
            ph(a, "prep"), ph(b, "prep"), 100 * (ph(b, "prep") / ph(a, "prep") - 1), ph(a, "ntt_h"), ph(b, "ntt_h"),
            100 * a["metrics"]["gpu_util_mean"], 100 * b["metrics"]["gpu_util_mean"]))
    print()


def table_batch(data, sess):
    print("## 4. Batch 2 against batch 1, per partition, at the same threads and size\n")
    print("| size | threads | batch-1 runs | batch-2 runs | sessions (b1, b2) | synth b2/b1 | prep b2/b1 | epilogue b2/b1 |")
    print("|---|---|---|---|---|---|---|---|")
    groups = {}
    for name, d in runs(data):
        s = d["scenario"]["system"]
        # Only runs in which CPU phases can run alone or beside one other worker's (at most
        # two workers on the host), so that contention does not blur the comparison.
        if s["gpus"] * s["workers_per_gpu"] > 2 or s["mutex"]["scope"] == "none":
            continue
        key = (d["scenario"]["prover"]["constraints"], s["threads"].get("threads_per_worker"), s["cpu_cores"])
        groups.setdefault(key, {}).setdefault(s["batch"], []).append((name, d))
    def mean(lst, p, b):
        return sum(d["metrics"]["phases_s"][p]["mean"] for _, d in lst) / len(lst) / b
    for (n, thr, cores), by in sorted(groups.items(), key=lambda kv: (kv[0][0], -(kv[0][1] or 0))):
        if 1 not in by or 2 not in by:
            continue
        # The same session where there is one (sessions differ by up to 16%, table 3).
        for s1, s2 in sorted({(sess.get(a), sess.get(b)) for a, _ in by[1] for b, _ in by[2]},
                             key=lambda p: (p[0] != p[1], p)):
            b1 = [x for x in by[1] if sess.get(x[0]) == s1]
            b2 = [x for x in by[2] if sess.get(x[0]) == s2]
            print("| 2^%d | %s | %s | %s | %s, %s | %.3f | %.3f | %.3f |" % (
                round(math.log2(n)), thr, ", ".join(x[0] for x in b1), ", ".join(x[0] for x in b2), s1, s2,
                *(mean(b2, p, 2) / mean(b1, p, 1) for p in CPU)))
    print()


def table_kernels(data):
    print("## 13. Kernels at once: the sum of the kernels' times against their union\n")
    print("Every kernel record of the run (CUPTI), per partition; sum / union above 1 is kernels "
          "running at once. If kernels at once got more done, the union per partition would fall "
          "below the one-worker run's. The last two columns: shares of the run (first GPU phase's "
          "start to last one's end) by how many GPU phase spans ran.\n")
    print("| run | partitions | kernel sum (ms / partition) | union (ms / partition) | sum / union | "
          "no GPU phase running | two or more GPU phases at once |")
    print("|---|---|---|---|---|---|---|")
    x20 = sorted(n[:-len(".spans.jsonl.gz")] for n in os.listdir(os.path.join(data, "runs"))
                 if re.match(r"x20-w2(-rep\d+)?(-p\d+)?\.spans\.jsonl\.gz$", n))
    for f in ("cal20-t15", "ovl20-w2", "ovl20-w2-2", "ovl20-w4-t3", *x20, "cal22-t15", "ovl22-w2", "ovl22-w2-2",
              "ovl22-w2-3"):
        p = os.path.join(data, "runs", f + ".spans.jsonl.gz")
        if not os.path.exists(p):
            continue
        spans, ks = read_spans(p, skip=0, kind="kernel")
        parts = sum(len(r["partitions"]) for r in spans if r["phase"] == "msm")
        ks.sort()
        union, hi = 0.0, -1.0
        for t0, t1 in ks:
            if t1 > hi:
                union += t1 - max(t0, hi)
                hi = t1
        total = sum(t1 - t0 for t0, t1 in ks)
        edges = sorted([(r["t0"], 1) for r in spans if r["resource"] == "gpu"] +
                       [(r["t1"], -1) for r in spans if r["resource"] == "gpu"])
        at = [0.0, 0.0, 0.0]  # none, one, two or more
        n, t = 0, edges[0][0]
        for te, d in edges:
            at[min(n, 2)] += te - t
            n, t = n + d, te
        run = edges[-1][0] - edges[0][0]
        k = ("%.2f | %.2f | %.3f" % (1e3 * total / parts, 1e3 * union / parts, total / union) if union > 0
             else "- | - | -")  # no kernel records (the cpu backend)
        print("| %s | %d | %s | %.1f%% | %.1f%% |" % (f, parts, k, 100 * at[0] / run, 100 * at[2] / run))
    print()


def table_at_once(data, models, sess):
    print("## 6. CPU phases by how many workers of the host can compute at once (batch 1)\n")
    print("Mean (range) of measured / model over the runs of each kind (table 1), batch 1; with a "
          "mutex `call` or `kernels` (locked), or none (the overlap runs, where GPU phases overlap too).\n")
    print("| 2^n | workers computing at once | mutex | runs | synth | prep | ntt_h |")
    print("|---|---|---|---|---|---|---|")
    by = {}
    for name, d in runs(data):
        s = d["scenario"]["system"]
        n = d["scenario"]["prover"]["constraints"]
        size = "2^%d" % (n.bit_length() - 1)
        if size not in models or s["batch"] != 1 or s["mutex"]["scope"] not in ("call", "kernels", "none"):
            continue
        at_once = s["gpus"] if s["mutex"]["scope"] == "call" else s["gpus"] * s["workers_per_gpu"]
        r = [run_phase_ratio(d, p, models[size][p]) for p in ("synth", "prep", "ntt_h")]
        lock = "none" if s["mutex"]["scope"] == "none" else "locked"
        by.setdefault((size, at_once, lock), []).append((name, r))
    for k in sorted(by, key=lambda k: (int(k[0][2:]), k[1], k[2])):
        v = by[k]
        print("| %s | %d | %s | %s | %s |" % (k[0], k[1], k[2], ", ".join(n for n, _ in v), " | ".join(
            "%.3f (%.2f-%.2f)" % (sum(x[1][i] for x in v) / len(v), min(x[1][i] for x in v), max(x[1][i] for x in v))
            for i in range(3))))
    print()


def table_cores(data):
    """Single-worker runs at 2^20, batch 1, grouped by the cores they were confined to and the
    threads their CPU phases got: whether the cores matter when the threads are the same
    (the model's CPU phases depend on the threads, and on the cores only when the threads
    and the GPU phase's host thread outnumber them)."""
    groups = {}
    for name in sorted(n[:-len(".sets")] for n in os.listdir(os.path.join(data, "runs")) if n.endswith(".sets")):
        sets = dict(l.strip().split("=", 1) for l in open(os.path.join(data, "runs", name + ".sets")) if "=" in l)
        if (sets.get("system.workers_per_gpu") != "1" or sets.get("prover.constraints") != "2^20"
                or "system.batch" in sets or "workload.arrivals" in sets):
            continue
        cores = int(sets.get("system.cpu_cores", "16"))
        threads = sets.get("system.threads.per_worker", str(cores - 1))  # the default policy keeps a core
        p = os.path.join(data, "runs", name + ".spans.jsonl.gz")
        synth, prep = phase_per_partition(p, "synth"), phase_per_partition(p, "prep")
        if synth is not None and prep is not None:
            groups.setdefault((threads, cores), []).append((synth, prep))
    if not any(c < 16 for _, c in groups):
        return
    print("## 16. Cores at the same threads: single-worker runs at 2^20 by threads and cores\n")
    print("Mean time per partition of each run's CPU phases, then the mean over the runs of a "
          "setting (the calibration runs, the references and the one-worker rows). `prep` runs "
          "beside `ntt_h`, whose host thread the model counts.\n")
    print("| threads | cores | runs | synth (ms) | prep (ms) | synth, prep against 16 cores |")
    print("|---|---|---|---|---|---|")
    for (t, c) in sorted(groups, key=lambda k: (int(k[0]) if k[0].isdigit() else 99, k[1])):
        g = groups[(t, c)]
        sy, pr = (sum(x[i] for x in g) / len(g) for i in (0, 1))
        ref = groups.get((t, 16))
        rel = "-"
        if ref and c != 16:
            rs, rp = (sum(x[i] for x in ref) / len(ref) for i in (0, 1))
            rel = "%+.1f%%, %+.1f%%" % (100 * (sy / rs - 1), 100 * (pr / rp - 1))
        print("| %s | %d | %d | %.1f | %.1f | %s |" % (t, c, len(g), 1e3 * sy, 1e3 * pr, rel))
    print()


def table_waiters(data):
    """Probes 4 and 5: per round, prep over synth of the same run on 4 cores and on 16, with
    spinning and with blocked waiters. The ratio within a run cancels the host's speed of
    the moment, which the runs' spread shows is larger than the effect."""
    for probe in ("probe-4", "probe-5"):
        d = os.path.join(data, probe, "runs")
        if not os.path.isdir(d):
            continue
        got = {}
        for n in os.listdir(d):
            m = re.match(r"p\d-c(\d+)-t3(-block)?-(\d+)\.spans\.jsonl\.gz$", n)
            if m:
                p = os.path.join(d, n)
                got[(int(m.group(3)), bool(m.group(2)), int(m.group(1)))] = (
                    phase_per_partition(p, "synth"), phase_per_partition(p, "prep"))
        rounds = sorted({k[0] for k in got})
        print("## 17. Waiters and cores, round by round (DATA/%s)\n" % probe)
        print("Each run's mean `synth` and `prep` per partition (ms), and `prep` / `synth`; the "
              "last column is that ratio on 4 cores over the ratio on 16 in the same round.\n")
        print("| round | waiters | 4 cores: synth, prep, prep/synth | 16 cores: synth, prep, prep/synth | 4 over 16 |")
        print("|---|---|---|---|---|")
        mean = {}
        for rd in rounds:
            for block in (False, True):
                a, b = got.get((rd, block, 4)), got.get((rd, block, 16))
                if not a or not b or None in a + b:
                    continue
                q = (a[1] / a[0]) / (b[1] / b[0])
                mean.setdefault(block, []).append(q)
                print("| %d | %s | %.1f, %.1f, %.3f | %.1f, %.1f, %.3f | %.3f |" % (
                    rd, "blocked" if block else "spinning", 1e3 * a[0], 1e3 * a[1], a[1] / a[0],
                    1e3 * b[0], 1e3 * b[1], b[1] / b[0], q))
        for block, qs in sorted(mean.items()):
            print("| mean | %s | | | %.3f (%d rounds) |" % ("blocked" if block else "spinning", sum(qs) / len(qs), len(qs)))
        print()


def host_steal(path, cores=None, of_busy=False):
    """The hypervisor's steal over a run's first `cores` CPUs (all without it) from its
    NAME.host (run.sh: the cpu lines of /proc/stat before and after the run): the share of
    those CPUs' time the host ran other guests (of their busy time and steal with of_busy,
    as measure's spans header host_steal), or None without the file."""
    if not os.path.exists(path):
        return None
    snap, cur = {}, None
    for line in open(path):
        f = line.split()
        if len(f) == 1:
            cur = snap.setdefault(f[0], {})
        elif f[0] != "cpu" and cur is not None:
            cur[f[0]] = [int(x) for x in f[1:]]
    before, after = snap.get("before", {}), snap.get("after", {})
    d = [[a - b for a, b in zip(after[c], before[c])] for c in after
         if c in before and (cores is None or int(c[3:]) < cores)]
    if of_busy:  # user nice system irq softirq, and steal
        return sum(x[7] for x in d) / max(1, sum(x[0] + x[1] + x[2] + x[5] + x[6] + x[7] for x in d)) if d else None
    return sum(x[7] for x in d) / max(1, sum(sum(x[:8]) for x in d)) if d else None


def run_cores(spans):
    """The spans header's cpu_cores (None without it)."""
    with gzip.open(spans, "rt") as fh:
        return json.loads(fh.readline()).get("cpu_cores")


def table_steal(data):
    """The ninth session: each held-out row's passes (NAME, NAME-p2, ...), each pass's
    throughput over the mean of the row's passes 2 to N, beside the hypervisor's steal on
    the run's cores (share of their busy time, NAME.host); then the calibration runs' steal,
    and where DATA/recal holds a second calibration, its runs' throughput against the
    first's."""
    rd = os.path.join(data, "runs")
    names = [n[:-len(".host")] for n in sorted(os.listdir(rd)) if n.endswith(".host")]
    if not any(re.search(r"-p\d+$", n) for n in names):
        return
    tput = lambda d, n: json.load(open(os.path.join(d, n + ".json")))["metrics"]["throughput_pps"]
    steal = lambda d, n: host_steal(os.path.join(d, n + ".host"), run_cores(os.path.join(d, n + ".spans.jsonl.gz")),
                                    of_busy=True)
    rows = {}
    for n in names:
        m = re.match(r"(.*?)(?:-p(\d+))?$", n)
        if n.startswith(("cal", "ovl")) or "poisson" in n:
            continue
        rows.setdefault(m.group(1), {})[int(m.group(2) or 1)] = n
    print("## 19. Each pass's speed and the host's steal (DATA/runs/NAME.host)\n")
    passes = sorted({k for v in rows.values() for k in v})
    print("| row | " + " | ".join("pass %d" % k for k in passes) + " |")
    print("|---|" + "---|" * len(passes))
    for row in sorted(rows, key=lambda r: min(names.index(n) for n in rows[r].values())):
        v = rows[row]
        later = [tput(rd, v[k]) for k in v if k > 1]
        if not later:
            continue
        ref = sum(later) / len(later)
        print("| %s | " % row + " | ".join("%.3f (%.1f%%)" % (tput(rd, v[k]) / ref, 100 * steal(rd, v[k])) if k in v else "-"
                                          for k in passes) + " |")
    print("\nEach cell: throughput / the mean of the row's passes 2 to %d (steal, share of the run's cores' busy time)."
          % passes[-1])

    def median(x):
        x = sorted(x)
        return (x[(len(x) - 1) // 2] + x[len(x) // 2]) / 2
    cal = [n for n in names if n.startswith(("cal", "ovl"))]
    st = [steal(rd, n) for n in cal]
    print("\nCalibration runs (%d): steal a median %.1f%% of busy time, largest %.1f%%." %
          (len(cal), 100 * median(st), 100 * max(st)), end="")
    rc = os.path.join(data, "recal")
    if os.path.isdir(rc):
        runs_dir(rc)
        rrd = os.path.join(rc, "runs")
        both = [n for n in cal if os.path.exists(os.path.join(rrd, n + ".json"))]
        st2 = [steal(rrd, n) for n in both]
        r = [tput(rd, n) / tput(rrd, n) for n in both]
        print(" The second calibration (DATA/recal, %d runs): steal a median %.1f%%, largest %.1f%%; each run's "
              "throughput in the first over the second: mean %.3f, %.3f to %.3f." %
              (len(both), 100 * median(st2), 100 * max(st2), sum(r) / len(r), min(r), max(r)), end="")
    print("\n")


def table_repeats(data):
    """Probe 6: one setting back to back. The spread of its runs is the host's, as the
    hypervisor's steal (the time the host ran other guests on these CPUs) shows or not."""
    d = os.path.join(data, "probe-6", "runs")
    if not os.path.isdir(d):
        return
    names = sorted((n[:-len(".json")] for n in os.listdir(d) if n.endswith(".json")),
                   key=lambda n: int(n.rsplit("-", 1)[1]))
    print("## 18. One setting run back to back (DATA/probe-6)\n")
    print("| run | synth (ms) | prep (ms) | throughput (p/s) | steal |")
    print("|---|---|---|---|---|")
    xs = []
    for n in names:
        p = os.path.join(d, n + ".spans.jsonl.gz")
        sy, pr = phase_per_partition(p, "synth"), phase_per_partition(p, "prep")
        x = json.load(open(os.path.join(d, n + ".json")))["metrics"]["throughput_pps"]
        st = host_steal(os.path.join(d, n + ".host"))
        xs.append((sy, pr, x))
        print("| %s | %.1f | %.1f | %.3f | %s |" % (n, 1e3 * sy, 1e3 * pr, x, "-" if st is None else "%.2f%%" % (100 * st)))
    for i, what in ((0, "synth"), (1, "prep"), (2, "throughput")):
        v = [x[i] for x in xs]
        mu = sum(v) / len(v)
        sd = math.sqrt(sum((y - mu) ** 2 for y in v) / (len(v) - 1))
        print("\n%s: mean %.4g, sd %.1f%% of the mean, range %.4g to %.4g" % (what, mu, 100 * sd / mu, min(v), max(v)), end="")
    print("\n")


def table_waiting_worker(data):
    """Probe 7: one worker at 7 threads against c22-w2's settings (two workers, whole-call
    lock, 7 threads each) at 2^22, alternated: is synth slower with a second worker
    waiting at the lock, or is it the host's speed of the moment?"""
    d = os.path.join(data, "probe-7", "runs")
    if not os.path.isdir(d):
        return
    print("## 21. synth with and without a second worker waiting at the lock (DATA/probe-7)\n")
    print("| round | one worker, 7 threads: synth, prep (ms) | c22-w2: synth, prep (ms) | c22-w2 / one worker, synth |")
    print("|---|---|---|---|")
    ratios = []
    for k in range(1, 100):
        a, b = (os.path.join(d, "p7-%s-%d.spans.jsonl.gz" % (w, k)) for w in ("t7", "c22w2"))
        if not (os.path.exists(a) and os.path.exists(b)):
            break
        sa, sb = phase_per_partition(a, "synth"), phase_per_partition(b, "synth")
        ratios.append(sb / sa)
        print("| %d | %.1f, %.1f | %.1f, %.1f | %.3f |" % (k, 1e3 * sa, 1e3 * phase_per_partition(a, "prep"),
                                                       1e3 * sb, 1e3 * phase_per_partition(b, "prep"), sb / sa))
    if ratios:
        print("\nMean ratio %.3f over %d rounds (range %.3f to %.3f).\n" % (
            sum(ratios) / len(ratios), len(ratios), min(ratios), max(ratios)))


def gpu_pair_spans(path, means, law):
    """Each GPU phase span of a run (each worker's first two calls left out, as calibrate
    does; the calls left out still count as company) against the other workers' GPU phase
    spans beside it: its phase, its solo work (the model's mean, `means`), its time alone,
    its time beside exactly one other of each kind (and of that, the time it had started
    first: the other had not started before it, calibrate's order of start), its time beside
    two or more, and the work the pooled law `law` ((s, s1 or None)) says those times hold."""
    allspans = [r for r in read_spans(path, skip=0)[0] if r["resource"] == "gpu"]
    keep = {(r["rep"], r["gpu"], r["worker"], r["call"]) for r in read_spans(path)[0] if r["resource"] == "gpu"}
    s, s1 = law
    rate = lambda n, first: 1 / (1 + (s1 if first and s1 is not None else s) * (n - 1))
    by = {}
    for r in allspans:
        by.setdefault((r["rep"], r["gpu"]), []).append(r)
    out = []
    for grp in by.values():
        grp.sort(key=lambda r: r["t0"])
        for a in grp:
            if (a["rep"], a["gpu"], a["worker"], a["call"]) not in keep:
                continue
            ev = []
            for b in grp:
                if b["worker"] == a["worker"] or b["t1"] <= a["t0"] or b["t0"] >= a["t1"]:
                    continue
                ev.append((max(a["t0"], b["t0"]), 1, id(b), b))
                ev.append((min(a["t1"], b["t1"]), -1, id(b), b))
            ev.sort(key=lambda e: (e[0], e[1]))  # at one instant, ends before starts
            x = {"phase": a["phase"], "dur": a["t1"] - a["t0"], "alone": 0.0, "many": 0.0, "pooled": 0.0,
                 "work": means[a["phase"]]["mean"] * means[a["phase"]]["scale"][
                     min(len(a.get("partitions") or [0]), len(means[a["phase"]]["scale"])) - 1]}
            for q in GPU:
                x[q] = x[q + "_first"] = 0.0
            t, active = a["t0"], {}
            for te, d, k, b in ev + [(a["t1"], 0, None, None)]:
                dt = te - t
                if dt > 0:
                    n = 1 + len(active)
                    first = not any(o["t0"] < a["t0"] for o in active.values())
                    if n == 1:
                        x["alone"] += dt
                    elif n == 2:
                        q = next(iter(active.values()))["phase"]
                        x[q] += dt
                        x[q + "_first"] += dt if first else 0.0
                    else:
                        x["many"] += dt
                    if n > 1:
                        x["pooled"] += dt * rate(n, first)
                t = te
                if d > 0:
                    active[k] = b
                elif d < 0:
                    active.pop(k, None)
            out.append(x)
    return out


PAIR_COLS = GPU + ("many",)


def fit_pairs(spans, law, work="work", scale=1.0):
    """The rate of each company (PAIR_COLS: one other of each kind, two or more others) for
    the spans of one phase: solo work - time alone = sum_c rate_c t_c, the spans grouped by
    the company they spent most of their overlapped time in (spans under 2% overlapped left
    out), the group sums weighted by 1 / spans (two-stage least squares with the groups as
    instruments: which company a span met depends on the other worker's schedule, not its
    own draw of work). A company is estimated when it holds a tenth of the spans' overlapped
    time and 0.05 s, and its group three spans; the others are held at the pooled law's rate
    for the times the spans had (subtracted first). The solo work is each span's `work`
    (the model's mean; "own": the run's own, table_gpu_pairs) times `scale`. Returns
    ({company: rate}, set estimated), or None when no company is estimated."""
    spans = [x for x in spans if sum(x[c] for c in PAIR_COLS) > 0.02 * x["dur"]]
    if not spans:
        return None
    dom = [max(PAIR_COLS, key=lambda c: x[c]) for x in spans]
    over = sum(x[c] for x in spans for c in PAIR_COLS)
    free = [c for c in PAIR_COLS
            if sum(x[c] for x in spans) >= max(0.1 * over, 0.05) and sum(1 for d in dom if d == c) >= 3]
    if not free:
        return None
    s, s1 = law
    pooled = {}
    for c in PAIR_COLS:  # the pooled law's rate for this company, over these spans' times
        t = sum(x[c] for x in spans)
        if c == "many":
            pooled[c] = None  # held through each span's own segments, below
        else:
            tf = sum(x[c + "_first"] for x in spans)
            a1 = 1 / (1 + (s1 if s1 is not None else s))
            pooled[c] = (tf * a1 + (t - tf) / (1 + s)) / t if t > 0 else 1 / (1 + s)
    groups = {}
    for x, d in zip(spans, dom):
        if x.get(work) is None:
            return None
        y = scale * x[work] - x["alone"]
        for c in PAIR_COLS:
            if c in free:
                continue
            if c == "many":  # the pooled law's work in the segments with two or more others
                y -= x["pooled"] - sum(x[q] * ((x[q + "_first"] / x[q]) / (1 + (s1 if s1 is not None else s)) +
                                                (1 - x[q + "_first"] / x[q]) / (1 + s)) for q in GPU if x[q] > 0)
            else:
                y -= pooled[c] * x[c]
        g = groups.setdefault(d, [0, 0.0, [0.0] * len(free)])
        g[0] += 1
        g[1] += y
        for i, c in enumerate(free):
            g[2][i] += x[c]
    k = len(free)
    A = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for n, y, xs in groups.values():
        for i in range(k):
            b[i] += xs[i] * y / n
            for j in range(k):
                A[i][j] += xs[i] * xs[j] / n
    sol = solve(A, b)
    if sol is None:
        return None
    return dict(zip(free, sol)), set(free)


def solve(A, b):
    """A x = b by Gaussian elimination with partial pivoting; None when nearly singular
    (a pivot under 1e-9 of the largest diagonal entry)."""
    k = len(b)
    A = [row[:] + [v] for row, v in zip(A, b)]
    scale = max(abs(A[i][i]) for i in range(k)) or 1.0
    for i in range(k):
        p = max(range(i, k), key=lambda r: abs(A[r][i]))
        if abs(A[p][i]) < 1e-9 * scale:
            return None
        A[i], A[p] = A[p], A[i]
        for r in range(i + 1, k):
            f = A[r][i] / A[i][i]
            for j in range(i, k + 1):
                A[r][j] -= f * A[i][j]
    x = [0.0] * k
    for i in reversed(range(k)):
        x[i] = (A[i][k] - sum(A[i][j] * x[j] for j in range(i + 1, k))) / A[i][i]
    return x


def fit_pairs_sd(spans, law, reps=300, seed=20):
    """fit_pairs and the bootstrap standard deviation of each estimated rate (the spans
    resampled with replacement, `reps` times, a fixed seed): (rates, estimated, sd)."""
    import random
    got = fit_pairs(spans, law)
    if got is None:
        return None
    rates, free = got
    rng, draws = random.Random(seed), {c: [] for c in free}
    for _ in range(reps):
        g = fit_pairs([spans[rng.randrange(len(spans))] for _ in spans], law)
        if g is None:
            continue
        for c in free:
            if c in g[1]:
                draws[c].append(g[0][c])
    sd = {}
    for c, v in draws.items():
        mu = sum(v) / len(v) if v else 0.0
        sd[c] = math.sqrt(sum((u - mu) ** 2 for u in v) / (len(v) - 1)) if len(v) > 2 else None
    return rates, free, sd


def pooled_rates(spans, law):
    """The pooled law's rate for each company over these spans' own times (the order of
    start weighs 1 / (1 + s1) against 1 / (1 + s)): {company: rate or None}."""
    s, s1 = law
    a1 = 1 / (1 + (s1 if s1 is not None else s))
    out = {}
    for c in GPU:
        t = sum(x[c] for x in spans)
        tf = sum(x[c + "_first"] for x in spans)
        out[c] = (tf * a1 + (t - tf) / (1 + s)) / t if t > 0 else None
    tm = sum(x["many"] for x in spans)
    two = sum(x[q] * ((x[q + "_first"] / x[q]) * a1 + (1 - x[q + "_first"] / x[q]) / (1 + s))
              for x in spans for q in GPU if x[q] > 0)
    out["many"] = (sum(x["pooled"] for x in spans) - two) / tm if tm > 0 else None
    return out


def table_gpu_pairs(data):
    """Which GPU phase beside which: each GPU phase's spans in the overlap runs (no mutex)
    and in x20-w2's passes (whose mutex leaves b_g2 outside), their time split into alone,
    beside exactly one other worker's phase of each kind, and beside two or more; then the
    rate at which the phase progresses in each company, from calibrate's identity (solo
    work = time alone + sum of rate x time) by groups of spans (fit_pairs), against the
    pooled law of the session's model (gpu_overlap); and whether a law by pairs fitted
    from the overlap runs would hold x20-w2's overlaps better than the pooled one."""
    model = os.path.join(data, "model-220.yaml")
    rd = os.path.join(data, "runs")
    if not os.path.exists(model):
        return
    m = re.search(r"^gpu_overlap: \{interference: ([0-9.]+)(?:, first: ([0-9.]+))?\}", open(model).read(), re.M)
    if not m:
        return
    law = (float(m.group(1)), float(m.group(2)) if m.group(2) else None)
    means = model_means(model)
    ovl = [n for n in ("ovl20-w2", "ovl20-w2-2", "ovl20-w4-t3") if os.path.exists(os.path.join(rd, n + ".spans.jsonl.gz"))]
    x20 = sorted((n[:-len(".spans.jsonl.gz")] for n in os.listdir(rd) if re.match(r"x20-w2(-p\d+)?\.spans\.jsonl\.gz$", n)),
                 key=lambda n: int(n.rsplit("-p", 1)[1]) if "-p" in n else 1)
    if not ovl and not x20:
        return
    spans, own = {}, {}
    for n in ovl + x20:
        spans[n] = gpu_pair_spans(os.path.join(rd, n + ".spans.jsonl.gz"), means, law)
        for p in GPU:  # the run's own solo work: its spans that ran (almost) alone, ten or more
            solo = [x["dur"] for x in spans[n] if x["phase"] == p and sum(x[c] for c in PAIR_COLS) <= 0.02 * x["dur"]]
            own[(n, p)] = (sum(solo) / len(solo) / means[p]["mean"], len(solo)) if solo else (None, 0)
            for x in spans[n]:
                if x["phase"] == p:
                    x["own"] = x["work"] * own[(n, p)][0] if len(solo) >= 10 else None
    s, s1 = law
    print("## 20. GPU phases by which phase ran beside them: the rate of each pair\n")
    print("Model %s: gpu_overlap s = %.4f%s. The pooled law at two at once: %s; at n at once "
          "1/(1 + s(n - 1))%s.\n" % (
              os.path.relpath(model, ROOT), s, ", first s1 = %.4f" % s1 if s1 is not None else "",
              "the phase that started first %.3f, the other %.3f" % (1 / (1 + s1), 1 / (1 + s)) if s1 is not None
              else "each %.3f" % (1 / (1 + s)), " (1/(1 + s1(n - 1)) for the first)" if s1 is not None else ""))
    print("Solo work of a phase: its model mean (%s). Times are of each worker's calls after its "
          "first two, against every other worker's GPU phase span (the first two calls included).\n" % ", ".join(
              "%s %.2f ms" % (p, 1e3 * means[p]["mean"]) for p in GPU))
    print("### 20a. Each GPU phase's time: alone, beside exactly one other phase of each kind, beside two or more\n")
    print("Seconds (share of the phase's time); first: of the time beside one other, the share the "
          "phase had started first; alone spans / model: the mean of its spans under 2% overlapped "
          "over the model's mean (the solo work the identity assumes), and how many.\n")
    print("| run | phase | spans | time (s) | alone | beside ntt_h | beside msm | beside b_g2 | 2+ others | "
          "first | alone spans / model |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in ovl + x20:
        for p in GPU:
            v = [x for x in spans[n] if x["phase"] == p]
            tot = sum(x["dur"] for x in v)
            cell = lambda t: "%.3f (%.0f%%)" % (t, 100 * t / tot)
            one = sum(x[q] for x in v for q in GPU)
            r, k = own[(n, p)]
            print("| %s | %s | %d | %.3f | %s | %s | %s |" % (
                n, p, len(v), tot, " | ".join(cell(sum(x[c] for x in v)) for c in ("alone",) + PAIR_COLS),
                "%.0f%%" % (100 * sum(x[q + "_first"] for x in v for q in GPU) / one) if one > 0 else "-",
                "%.3f (%d)" % (r, k) if k else "- (0)"))
    print()
    print("### 20b. The rate of each phase beside each other: measured (bootstrap sd) [pooled law]\n")
    print("Method: for the spans of phase P, solo work - time alone = sum over the company c "
          "(one ntt_h, one msm, one b_g2, two or more others) of rate(P|c) x time(P, c), solo work "
          "the model's mean (calibrate's identity, by pairs). Spans are grouped by the company they "
          "spent most of their overlapped time in (those under 2% overlapped left out) and the group "
          "sums solved by least squares weighted by 1/spans (two-stage least squares, the groups the "
          "instruments: a span's company is the other worker's schedule, not its own draw of work; a "
          "regression on each span's times would be biased, as a span that draws more work runs "
          "longer in every company). A company is estimated when it holds at least 10% of P's "
          "overlapped time and 0.05 s, and 3 spans are mostly in it; otherwise `fixed` (its time "
          "in brackets: too little to estimate, held at the pooled law); `-`: never. sd: 300 "
          "bootstrap resamples of the spans (the spans' noise only). The solo work is not measured "
          "in the run: `+1% solo` is how far the estimates move (the largest) if it were 1% more "
          "than the model's; `own solo` gives them with the solo work taken from the run's own "
          "spans under 2% overlapped (20a's last column, where ten or more; such spans may be the "
          "shorter ones). Pooled law: its rate over the spans' own times in that company (started "
          "first and later weighed by the time of each).\n")
    print("| run | phase | ntt_h beside | msm beside | b_g2 beside | 2+ others | +1% solo | own solo |")
    print("|---|---|---|---|---|---|---|---|")
    sets = [(n, spans[n]) for n in ovl + x20]
    two = [n for n in ovl if "-w2" in n]
    if len(two) > 1:
        sets.append(("two-worker overlap runs", [x for n in two for x in spans[n]]))
    if len(ovl) > 1:
        sets.append(("overlap runs, pooled", [x for n in ovl for x in spans[n]]))
    if len(x20) > 1:
        sets.append(("x20-w2, all passes", [x for n in x20 for x in spans[n]]))
    fitted = {}
    for name, sp in sets:
        for p in GPU:
            v = [x for x in sp if x["phase"] == p]
            got = fit_pairs_sd(v, law)
            pool = pooled_rates(v, law)
            fitted[(name, p)] = got
            cells = []
            for c in PAIR_COLS:
                pr = "[%.3f]" % pool[c] if pool[c] is not None else "[-]"
                if got and c in got[1]:
                    sd = got[2].get(c)
                    cells.append("%.3f (%s) %s" % (got[0][c], "%.3f" % sd if sd is not None else "-", pr))
                else:
                    t = sum(x[c] for x in v)
                    cells.append("fixed (%.3f s) %s" % (t, pr) if t > 0 else "- %s" % pr)
            hi = fit_pairs(v, law, scale=1.01) if got else None
            mine = fit_pairs(v, law, work="own") if got else None
            print("| %s | %s | %s | %s | %s |" % (
                name, p, " | ".join(cells),
                "%+.3f" % max((hi[0][c] - got[0][c] for c in got[1]), key=abs) if hi else "-",
                ", ".join("%s %.3f" % (c, mine[0][c]) for c in PAIR_COLS if c in mine[1]) if mine else "-"))
    print()
    if not ovl or not x20:
        return
    print("### 20c. x20-w2's overlaps: the work they held against each law\n")
    print("Per phase and pass: work held in the overlaps (the spans' solo work, the model's, less "
          "their time alone), and what each law makes of the same times: the pooled law (the "
          "model's), a law by pairs fitted from all the session's overlap runs (20b `overlap runs, "
          "pooled`) and one from its two-worker overlap runs only (20b `two-worker overlap runs`), "
          "companies not estimated there held at the pooled law. Error: law / held - 1 (how far the "
          "law's rates beside others fall short of the row's, or exceed them).\n")
    laws = [("overlap runs, pooled" if len(ovl) > 1 else ovl[0])] + (["two-worker overlap runs"] if len(two) > 1 else [])
    print("| pass | phase | time beside others (s) | work held (s) | pooled law | error | %s |" % " | ".join(
        "by pairs, %s | error" % ("all overlap runs" if k.startswith("overlap") or k == ovl[0] else "two-worker runs")
        for k in laws))
    print("|---|---|---|---|---|---|%s" % ("---|---|" * len(laws)))
    for name in x20 + (["x20-w2, all passes"] if len(x20) > 1 else []):
        sp = spans[name] if name in spans else [x for n in x20 for x in spans[n]]
        tot = [0.0] * (3 + len(laws))
        for p in GPU + ("all",):
            v = [x for x in sp if p == "all" or x["phase"] == p]
            if p == "all":
                over, held, pooled, pairs = tot[0], tot[1], tot[2], tot[3:]
            else:
                over = sum(x[c] for x in v for c in PAIR_COLS)
                held = sum(x["work"] - x["alone"] for x in v)
                pooled = sum(x["pooled"] for x in v)
                pr = pooled_rates(v, law)
                pairs = []
                for k in laws:
                    got = fitted.get((k, p))
                    rates = {c: (got[0][c] if got and c in got[1] else pr[c]) for c in PAIR_COLS}
                    pairs.append(sum(rates[c] * sum(x[c] for x in v) for c in PAIR_COLS if rates[c] is not None))
                tot = [a + b for a, b in zip(tot, [over, held, pooled] + pairs)]
            if over <= 0:
                continue
            print("| %s | %s | %.3f | %.3f | %.3f | %+.1f%% | %s |" % (
                name, p, over, held, pooled, 100 * (pooled / held - 1),
                " | ".join("%.3f | %+.1f%%" % (w, 100 * (w / held - 1)) for w in pairs)))
    print()


def table_resampled(data, draws=4000):
    """The verdict's own spread: each row's passes resampled with replacement, the model's
    prediction held fixed, judged as the protocol judges the mean of the passes."""
    import random
    import validation as V
    path = os.path.join(data, "validation.json")
    doc = json.load(open(path)) if os.path.exists(path) else {}
    rows = doc.get("mean_of_passes_as_calibrated")
    if not rows:
        return
    rd = runs_dir(data)
    runs = {}
    for r in rows:
        ms = [json.load(open(p))["metrics"] for p in (os.path.join(rd, r["name"] + suf + ".json")
                                                      for suf in pass_suffixes(data)) if os.path.exists(p)]
        runs[r["name"]] = (r, [(m["gpu_util"][0], m["throughput_pps"]) for m in ms])
    rng = random.Random(13)
    within, missed = [0] * (len(rows) + 1), {n: 0 for n in runs}
    for _ in range(draws):
        k = 0
        for n, (r, ms) in runs.items():
            pick = [rng.choice(ms) for _ in ms]
            u, x = (sum(v[i] for v in pick) / len(pick) for i in (0, 1))
            ok = V.within_target(100 * (r["gpu_util"]["predicted"] - u), 100 * (r["throughput_pps"]["predicted"] - x) / x)
            k += ok
            missed[n] += not ok
        within[k] += 1
    print("## 27. The verdict's own spread: the passes resampled\n")
    print("Each row's passes drawn again with replacement (%d draws), the model's one prediction held fixed, "
          "judged on the mean as the protocol judges it (utilization and throughput; the arrivals row's p99 "
          "left out). The session's verdict: %d of %d.\n" % (draws, sum(r["within_target"] for r in rows), len(rows)))
    print("| rows within the target | share of draws |")
    print("|---|---|")
    for k in range(len(rows), -1, -1):
        if within[k]:
            print("| %d of %d | %.1f%% |" % (k, len(rows), 100 * within[k] / draws))
    print("\nThe rows out most often: %s.\n" % ", ".join(
        "%s %.0f%%" % (n, 100 * c / draws) for n, c in sorted(missed.items(), key=lambda kv: -kv[1]) if c >= draws / 20))


def table_machines(data):
    """The rows a session ran on two machines (DATA/runs, the first run; DATA/repeats/runs,
    the same row run again on a fresh machine that was not told DONE): each setting's
    throughput, GPU busy time per call and CPU time per partition, the second machine's over
    the first's. Same card, same binary, same list: what moves is the host."""
    import validation as V
    rd, rr = runs_dir(data), runs_dir(os.path.join(data, "repeats"))
    if not os.path.isdir(rr):
        return
    rows = []
    for f in sorted(os.listdir(rr)):
        if not f.endswith(".json") or not os.path.exists(os.path.join(rd, f)):
            continue
        n = f[:-len(".json")]
        a, b = (json.load(open(os.path.join(d, f))) for d in (rd, rr))
        x = [m["metrics"]["throughput_pps"] for m in (a, b)]
        g = [m["measurement"]["prover"]["steady"]["gpu_mean_s"] for m in (a, b)]
        c = [V.cpu_per_partition(os.path.join(d, n + ".spans.jsonl.gz")) for d in (rd, rr)]
        st = [V.header_steal(os.path.join(d, n + ".spans.jsonl.gz")) or 0.0 for d in (rd, rr)]
        rows.append((n, x, g, c, st))
    if not rows:
        return
    print("## 29. One setting on two machines (DATA/repeats: the rows a fresh machine ran again)\n")
    print("| run | partitions/s, first / second machine | ratio | GPU ms per call, ratio | CPU ms per partition, "
          "first / second | ratio | host_steal, the larger |")
    print("|---|---|---|---|---|---|---|")
    for n, x, g, c, st in rows:
        print("| %s | %.3f / %.3f | %.3f | %.3f | %.1f / %.1f | %.3f | %.2f%% |" % (
            n, x[0], x[1], x[1] / x[0], g[1] / g[0], 1e3 * c[0], 1e3 * c[1], c[1] / c[0], 100 * max(st)))
    med = statistics.median
    xr, gr, cr = ([r[k][1] / r[k][0] for r in rows] for k in (1, 2, 3))
    print("\n%d settings. The second machine's over the first's, median: throughput %.3f (%.3f to %.3f; %d of %d "
          "below 0.97), GPU busy time per call %.3f, CPU time per partition %.3f (%.3f to %.3f).\n" % (
              len(rows), med(xr), min(xr), max(xr), sum(r < 0.97 for r in xr), len(xr), med(gr), med(cr),
              min(cr), max(cr)))


def table_handoff(data, rows=("k20-w3", "k20-w4", "k20-w2-all", "k20-w2-nokeep")):
    """Where the GPU never waits for a worker's CPU phases, what it idles is the gaps between
    its phases: within one worker's call (the next launch) and between workers (the mutex
    handed to a waiting worker, which the model grants at once)."""
    path = os.path.join(data, "validation.json")
    if not os.path.exists(path):
        return
    doc = json.load(open(path))
    err = {r["name"]: r["gpu_util"]["error_pp"] for r in doc.get("mean_of_passes_as_calibrated") or doc["rows"]}
    rd = runs_dir(data)
    out = []
    for n in rows:
        cross, within, span = [], [], 0.0
        for suf in pass_suffixes(data):
            f = os.path.join(rd, n + suf + ".spans.jsonl.gz")
            if not os.path.exists(f):
                continue
            spans, _ = read_spans(f)
            g = sorted((s for s in spans if s.get("resource") == "gpu"), key=lambda s: s["t0"])
            for a, b in zip(g, g[1:]):
                if b["t0"] >= a["t1"]:
                    (within if a["worker"] == b["worker"] else cross).append(b["t0"] - a["t1"])
            span += g[-1]["t1"] - g[0]["t0"] if g else 0
        if cross and span > 0:
            out.append((n, len(cross), statistics.median(cross), sum(cross) / span, statistics.median(within),
                        sum(within) / span, err.get(n)))
    if not out:
        return
    print("## 28. The saturated rows: the GPU's gaps between phases\n")
    print("Consecutive GPU phase spans over all passes (each worker's first two calls left out): between two "
          "workers (the mutex handed over) and within one worker, the median gap and the gaps' share of the "
          "time from the first GPU phase to the last; beside it the row's utilization error (the mean of the "
          "passes as calibrated; the model hands the mutex over at once).\n")
    print("| row | handovers | median gap between workers (us) | their share | median gap within a worker (us) | their share | util error |")
    print("|---|---|---|---|---|---|---|")
    for n, k, mc, sc, mw, sw, e in out:
        print("| %s | %d | %.0f | %.2f%% | %.0f | %.2f%% | %s |" % (n, k, 1e6 * mc, 100 * sc, 1e6 * mw, 100 * sw,
                                                             "%+.2f pp" % e if e is not None else "-"))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "),
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "provesim"),
                    help="provesim, for the tables that calibrate or simulate again (those tables are left out "
                         "when it does not exist)")
    ap.add_argument("--data", default=os.path.join(ROOT, "docs", "data", "validation", "h200"),
                    help="one session's folder (default: the first session, docs/data/validation/h200)")
    ap.add_argument("--also", nargs="+", default=[], metavar="DIR",
                    help="more one-call sessions' folders that table 33 pools with DATA's and table 35 lists after it")
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    runs_dir(data)  # unpacked from runs.tar.xz on first use
    models = {}
    for size in ("2^20", "2^22"):
        p = os.path.join(data, "model-%s.yaml" % size.replace("^", ""))
        if os.path.exists(p):
            models[size] = model_means(p)
    if not models:
        sys.exit("validation_misses.py: %s: no model-220.yaml or model-222.yaml (run scripts/validation.py)" % data)
    sess = sessions(data)
    table_phases(data, models, sess)
    table_overlap(data)
    table_sessions(data, sess)
    table_batch(data, sess)
    table_at_once(data, models, sess)
    table_probe(data)
    table_probe2(data)
    table_probe3(data)
    table_kernels(data)
    table_cores(data)
    table_waiters(data)
    table_repeats(data)
    table_waiting_worker(data)
    table_steal(data)
    table_gpu_pairs(data)
    if os.path.exists(a.bin):
        table_gpu_law(data, a.bin)
        table_gate_what_if(data, a.bin)
        table_lease_drift(data, a.bin)
    table_host_probe(data)
    table_host_probe(data, "probe-9")
    table_alternated(data)
    table_host_threads_probe(data)
    table_host_threads_calib(data)
    table_cpu_time_probe(data)
    table_time_neighbours([data] + [os.path.abspath(d) for d in a.also])
    table_epilogue_modes([data] + [os.path.abspath(d) for d in a.also])
    table_gpu_phase_modes([data] + [os.path.abspath(d) for d in a.also])
    table_lock_time([data] + [os.path.abspath(d) for d in a.also])
    if os.path.exists(a.bin):
        table_mutex_overhead([data] + [os.path.abspath(d) for d in a.also], a.bin)
        table_host_load([data] + [os.path.abspath(d) for d in a.also], a.bin)
        table_contention_significant([data] + [os.path.abspath(d) for d in a.also], a.bin)
        table_host_steal([data] + [os.path.abspath(d) for d in a.also], a.bin)
    table_repeat_spread([data] + [os.path.abspath(d) for d in a.also])
    if os.path.exists(a.bin):
        table_repeat_explained([data] + [os.path.abspath(d) for d in a.also], a.bin)
    table_drift_probe(data)
    table_batch_probe(data)
    table_lmem_probe(data)
    table_thp_probe(data)
    table_batch_law([data] + [os.path.abspath(d) for d in a.also])
    if os.path.exists(a.bin):
        table_batch_what_if([data] + [os.path.abspath(d) for d in a.also], a.bin)
        table_batch_law_what_if([data] + [os.path.abspath(d) for d in a.also], a.bin)
        table_batch_repeats_what_if([data] + [os.path.abspath(d) for d in a.also], a.bin)
        table_run_modes([data] + [os.path.abspath(d) for d in a.also], a.bin)
    table_resampled(data)
    table_handoff(data)
    table_machines(data)
    if os.path.exists(a.bin):
        table_explained(data, models, a.bin, ("c20-w2-b2", "k20-g2-w2", "k22-w2", "k20-w2-c8"))
        table_contention_law(data, a.bin)
        table_contention_within(data, a.bin)
        table_own_reference(data, a.bin)
        table_host_threads(data, a.bin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
