#!/usr/bin/env python3
"""Engine benchmark of issue 15: the cost of an event as the farm grows. Runs
configs/capacity-8gpu.yaml scaled to 1, 8, 64 and 512 GPUs (2 workers per GPU, a closed
backlog, 4 CPU cores per GPU, so the workers' 4-thread CPU phases oversubscribe the cores
and the processor-sharing rate changes at nearly every event), and the seed scenario.

Two measurements, each from one invocation, in CPU seconds (user + system of the child,
from wait4), start-up included:

1. Paired runs: the baseline binary (--baseline, e.g. one built from an older commit) and
   the new one on the same scenario, alternately, --repeat times each; the median of each
   and their ratio. The partitions per case shrink with the GPUs (--paired-events), since
   an engine whose cost per event grows with the farm would otherwise run for hours. The
   two must report the same number of events; the table shows how far their mean GPU
   utilizations differ (0 when the runs agree to the bit; a different rounding may in a
   long run with oversubscribed cores end in another, statistically equivalent, path).
2. Cost per event of the new binary with --partitions partitions at every size: ns/event,
   events/s, and the ratio to 1 GPU (issue 15's target: within 2x at 512 GPUs). Each
   repetition runs every size once, in turn, and the ratio is the median over the
   repetitions of each one's ratio (with its range), so a change of load between sizes
   does not pass for a cost of the farm.
3. With --rounds N (and --baseline): N interleaved rounds, each running both binaries
   (which goes first alternating) on the seed scenario, 1 GPU and the largest size, at
   --partitions partitions. Per case: each binary's median and fastest run and the ratio
   of the pairs; per binary: the cost per event at the largest size over 1 GPU's, as the
   median of the rounds' ratios (with its range), by the fastest runs and by the medians.
   This is the measure of issue 15's target side by side with the baseline's.

    python3 bench/bench_scale.py --provesim build/provesim --baseline /tmp/old/provesim

Prints two tables, or one JSON object with --json.
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench_engine import RunError, machine, run_timed  # noqa: E402 (one runner, one machine record)

CAPACITY = os.path.join(ROOT, "configs", "capacity-8gpu.yaml")
SEED = os.path.join(ROOT, "configs", "seed-coarse-mutex.yaml")
EVENTS_PER_PARTITION = 5  # the supraseal model's phases; only used to size the paired runs


def scenario(gpus, partitions, cores_per_gpu, workers_per_gpu):
    """The command line (after the binary) of one case."""
    if gpus == 0:  # the seed scenario
        path, sets = SEED, []
    else:
        path = CAPACITY
        sets = ["system.gpus=%d" % gpus, "system.workers_per_gpu=%d" % workers_per_gpu,
                "system.cpu_cores=%d" % (cores_per_gpu * gpus), "workload.arrivals=null"]
    sets += ["workload.partitions=%d" % partitions, "run.replications=1",
             "run.warmup=%d" % (partitions // 10), "run.cooldown=0"]
    cmd = ["simulate", path, "--json", "--threads", "1"]
    for s in sets:
        cmd += ["--set", s]
    return cmd


def run_cpu(exe, args):
    """Runs exe args; returns (CPU seconds of the child, its report)."""
    try:
        out, _, cpu, _ = run_timed([exe] + args)
    except RunError as e:
        raise SystemExit("bench_scale.py: %s" % e)
    rep = json.loads(out)
    util = rep["metrics"]["gpu_util"]
    return cpu, {"events": int(rep["events"]), "gpu_util": sum(util) / len(util) if isinstance(util, list) else util}


def name_of(gpus):
    return "seed scenario" if gpus == 0 else "%d GPU%s" % (gpus, "" if gpus == 1 else "s")


def paired(args, gpus_list):
    rows = []
    for g in [0] + gpus_list:
        if g == 0:
            parts = args.partitions
        else:
            parts = max(1000, min(args.partitions, args.paired_events // (EVENTS_PER_PARTITION * g)))
        cmd = scenario(g, parts, args.cores_per_gpu, args.workers_per_gpu)
        t_old, t_new, rep_old, rep_new = [], [], None, None
        for i in range(args.repeat):  # alternate which runs first, against drift in the load
            order = [("old", args.baseline), ("new", args.provesim)]
            for which, exe in order if i % 2 == 0 else reversed(order):
                t, rep = run_cpu(exe, cmd)
                (t_old if which == "old" else t_new).append(t)
                if which == "old":
                    rep_old = rep
                else:
                    rep_new = rep
        same = rep_old["events"] == rep_new["events"]
        dutil = abs(rep_old["gpu_util"] - rep_new["gpu_util"]) / max(1e-300, abs(rep_old["gpu_util"]))
        mo, mn = statistics.median(t_old), statistics.median(t_new)
        pairs = [a / b for a, b in zip(t_old, t_new) if b > 0]
        rows.append({"case": name_of(g), "gpus": g or 1, "partitions": parts, "events": rep_new["events"],
                     "baseline_cpu_s": mo, "new_cpu_s": mn, "ratio": mo / mn if mn > 0 else None,
                     "ratio_pairs": [min(pairs), max(pairs)] if pairs else None,
                     "baseline_cpu_s_all": t_old, "new_cpu_s_all": t_new, "same_events": same,
                     "gpu_util_rel_diff": dutil})
    return rows


def per_event(args, gpus_list):
    """Every size once per repetition, in turn (so that a change of the machine's load
    touches all sizes alike), and each size's cost against 1 GPU's in the same repetition:
    the median of those ratios and their range."""
    cases = gpus_list + [0]
    ts, reps = {g: [] for g in cases}, {}
    for _ in range(args.repeat):
        for g in cases:
            t, reps[g] = run_cpu(args.provesim, scenario(g, args.partitions, args.cores_per_gpu,
                                                          args.workers_per_gpu))
            ts[g].append(t)
    rows = []
    for g in cases:
        t, ev = statistics.median(ts[g]), reps[g]["events"]
        row = {"case": name_of(g), "gpus": g or 1, "partitions": args.partitions, "events": ev, "cpu_s": t,
               "cpu_s_all": ts[g], "ns_per_event": 1e9 * t / ev, "events_per_s": ev / t if t > 0 else None,
               "vs_1_gpu": None, "vs_1_gpu_range": None}
        if 1 in gpus_list:
            per_ev = [a / reps[g]["events"] / (b / reps[1]["events"]) for a, b in zip(ts[g], ts[1])]
            row["vs_1_gpu"] = statistics.median(per_ev)
            row["vs_1_gpu_range"] = [min(per_ev), max(per_ev)]
        rows.append(row)
    return rows


def rounds(args, gpus_list):
    """Interleaved rounds of both binaries on the seed scenario, 1 GPU and the largest size
    (table 3)."""
    big = max(gpus_list)
    cases = [0, 1, big]
    exes = {"old": args.baseline, "new": args.provesim}
    ts = {(k, g): [] for k in exes for g in cases}
    events = {}
    for i in range(args.rounds):
        order = ["old", "new"] if i % 2 == 0 else ["new", "old"]
        for g in cases:
            cmd = scenario(g, args.partitions, args.cores_per_gpu, args.workers_per_gpu)
            for k in order:
                t, rep = run_cpu(exes[k], cmd)
                ts[(k, g)].append(t)
                events[g] = rep["events"]
    rows = []
    for g in cases:
        o, n = ts[("old", g)], ts[("new", g)]
        pairs = [a / b for a, b in zip(o, n) if b > 0]
        rows.append({"case": name_of(g), "events": events[g], "baseline_cpu_s_all": o, "new_cpu_s_all": n,
                     "baseline_median": statistics.median(o), "new_median": statistics.median(n),
                     "baseline_fastest": min(o), "new_fastest": min(n), "ratio_pairs_median": statistics.median(pairs),
                     "ratio_pairs": [min(pairs), max(pairs)], "ratio_fastest": min(o) / min(n)})
    scale = {}
    for k in exes:
        per = [(a / events[big]) / (b / events[1]) for a, b in zip(ts[(k, big)], ts[(k, 1)])]
        scale[k] = {"gpus": big, "median_of_rounds": statistics.median(per), "range": [min(per), max(per)],
                    "by_fastest": (min(ts[(k, big)]) / events[big]) / (min(ts[(k, 1)]) / events[1]),
                    "by_medians": (statistics.median(ts[(k, big)]) / events[big])
                    / (statistics.median(ts[(k, 1)]) / events[1]),
                    "ns_per_event_fastest_1": 1e9 * min(ts[(k, 1)]) / events[1],
                    "ns_per_event_fastest_big": 1e9 * min(ts[(k, big)]) / events[big]}
    return {"rows": rows, "scale": scale}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--provesim", default=os.path.join(ROOT, "build", "provesim"), help="the new binary")
    ap.add_argument("--baseline", help="the binary to compare with (paired runs); without it only table 2")
    ap.add_argument("--gpus", default="1,8,64,512", help="comma-separated GPU counts")
    ap.add_argument("--partitions", type=int, default=1_000_000, help="partitions of the cost-per-event runs")
    ap.add_argument("--paired-events", type=int, default=10_000_000,
                    help="about this many events per paired run, divided by the GPUs (at most --partitions)")
    ap.add_argument("--cores-per-gpu", type=int, default=4)
    ap.add_argument("--workers-per-gpu", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each binary per case; the median counts")
    ap.add_argument("--rounds", type=int, default=0,
                    help="with --baseline: this many interleaved rounds of both binaries (table 3)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    gpus_list = [int(x) for x in args.gpus.split(",") if x.strip()]
    for exe in [args.provesim] + ([args.baseline] if args.baseline else []):
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            print("bench_scale.py: %s not found (build provesim first)" % exe, file=sys.stderr)
            return 1

    res = {"machine": machine(), "cores_per_gpu": args.cores_per_gpu, "workers_per_gpu": args.workers_per_gpu,
           "repeat": args.repeat, "paired": paired(args, gpus_list) if args.baseline else None,
           "per_event": per_event(args, gpus_list),
           "rounds": rounds(args, gpus_list) if args.baseline and args.rounds > 0 else None}
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print("capacity-8gpu scaled: %d workers per GPU, %d cores per GPU, closed backlog; one thread; "
              "CPU seconds, median of %d; on %s" % (args.workers_per_gpu, args.cores_per_gpu, args.repeat,
                                                    res["machine"]["cpu"]))
        if res["paired"]:
            print("\npaired runs: baseline %s, new %s" % (args.baseline, args.provesim))
            print("%-14s %10s %11s %13s %10s %9s %11s %11s" % ("case", "partitions", "events", "baseline CPU s",
                                                             "new CPU s", "ratio", "(pairs)", "util diff"))
            for r in res["paired"]:
                print("%-14s %10d %11d %13.3f %10.3f %8.2fx %11s %11.1e" % (
                    r["case"], r["partitions"], r["events"], r["baseline_cpu_s"], r["new_cpu_s"],
                    r["ratio"] or 0, "%.2f-%.2f" % tuple(r["ratio_pairs"]) if r["ratio_pairs"] else "",
                    r["gpu_util_rel_diff"]))
        print("\ncost per event of %s, %d partitions" % (args.provesim, args.partitions))
        print("%-14s %11s %9s %9s %12s %9s %13s" % ("case", "events", "CPU s", "ns/event", "events/s", "vs 1 GPU",
                                                  "(range)"))
        for r in res["per_event"]:
            print("%-14s %11d %9.3f %9.1f %12.4g %8s %13s" % (
                r["case"], r["events"], r["cpu_s"], r["ns_per_event"], r["events_per_s"] or 0,
                "%.2fx" % r["vs_1_gpu"] if r["vs_1_gpu"] else "-",
                "%.2f-%.2f" % tuple(r["vs_1_gpu_range"]) if r["vs_1_gpu_range"] else ""))
        if res["rounds"]:
            print("\n%d interleaved rounds, %d partitions: baseline (old) %s, new %s" % (
                args.rounds, args.partitions, args.baseline, args.provesim))
            print("%-14s %10s %10s %12s %12s %10s %11s %10s" % ("case", "old med", "new med", "old fastest",
                                                              "new fastest", "old/new", "(pairs)", "fastest"))
            for r in res["rounds"]["rows"]:
                print("%-14s %10.3f %10.3f %12.3f %12.3f %9.2fx %11s %9.2fx" % (
                    r["case"], r["baseline_median"], r["new_median"], r["baseline_fastest"], r["new_fastest"],
                    r["ratio_pairs_median"], "%.2f-%.2f" % tuple(r["ratio_pairs"]), r["ratio_fastest"]))
            for k, v in res["rounds"]["scale"].items():
                print("%s: %d GPUs / 1 GPU per event: %.2fx median of rounds (%.2f-%.2f), %.2fx by the fastest "
                      "runs (%.1f / %.1f ns), %.2fx by the medians" % (
                          "old" if k == "old" else "new", v["gpus"], v["median_of_rounds"], v["range"][0],
                          v["range"][1], v["by_fastest"], v["ns_per_event_fastest_big"],
                          v["ns_per_event_fastest_1"], v["by_medians"]))
    bad = res["paired"] and not all(r["same_events"] for r in res["paired"])
    if bad:
        print("bench_scale.py: the two binaries counted different numbers of events", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
