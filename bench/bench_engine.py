#!/usr/bin/env python3
"""Engine benchmark: provesim's C engine against the same model written with SimGrid 3.32
(S4U, bench/simgrid_seed.cpp) and with SimPy 4 (bench/simpy_seed.py), as paired runs in one
invocation on one machine.

Each run is a child process timed from outside (os.wait4: CPU seconds, user + system, and
wall seconds, start-up included; peak resident memory). A repetition runs every engine of
a case once, provesim first in odd repetitions and last in even ones, so that the ratios
come from runs side by side under the same load. Per case it prints the median CPU and
wall times, the ratios other / provesim (median and range over the repetitions' pairs),
and both engines' GPU utilization and throughput, which must agree to within statistical
noise (the engines draw the same distributions from different random streams), and
whether provesim meets the issue's targets against SimGrid (at least 50x in the seed cases,
20x in the others) in every pair.

Cases (--cases; all by default):
  seed-call      the seed scenario (configs/seed-coarse-mutex.yaml: 1 GPU, 2 workers, 32
  seed-kernels   cores), 10^6 partitions, the mutex over the call / over the kernels;
                 against SimGrid and SimPy
  farm-64        64 / 512 GPUs, 2 workers each, one CPU core per GPU (the cores are
  farm-512       oversubscribed: processor sharing), mutex kernels, 25,600 partitions with
                 a fifth of them as warm-up and a fifth as cool-down; against SimGrid
  sweep          1,000 points, `provesim sweep --jobs 1` with workers_per_gpu 1..5 x mutex
                 call,kernels x run.seed 1..100, one replication of 2,000 partitions each,
                 against the same 1,000 points in SimGrid (one engine per point: a child
                 forked from one process, as SimGrid runs one simulation per process); the
                 metrics are compared per (workers, mutex) as means over the seeds

The SimGrid program is compiled on first use with g++ and pkg-config's flags for simgrid
(install both with `bash scripts/deps.sh bench`); SimPy comes from
`pip install -r bench/requirements.txt`.

example:
    python3 bench/bench_engine.py --provesim build/provesim
    python3 bench/bench_engine.py --provesim build/provesim --cases farm-512 --reps 1
"""
import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = ("seed-call", "seed-kernels", "farm-64", "farm-512", "sweep")
ENGINES = ("simgrid", "simpy")
NAMES = {"c": "provesim", "simgrid": "SimGrid", "simpy": "SimPy"}
# The targets (issue 15): provesim at least this many times faster than SimGrid.
TARGET_SEED, TARGET_ALL = 50.0, 20.0
# configs/seed-coarse-mutex.yaml's system, given explicitly to every engine.
SEED_SYSTEM = {"gpus": 1, "workers_per_gpu": 2, "cpu_cores": 32}


class RunError(Exception):
    pass


def run_timed(cmd):
    """Runs cmd; returns (stdout, wall s, CPU s (user + system, children included), peak RSS
    MiB). Raises RunError when it exits with a status other than 0."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode(errors="replace"), fe.read().decode(errors="replace")
    if p.returncode != 0:
        raise RunError(f"{shlex.join(cmd)} exited with {p.returncode}: {err.strip()[-400:]}")
    return out, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def parse_json(out, what):
    try:
        return json.loads(out)
    except ValueError as e:
        raise RunError(f"{what}: expected JSON on standard output: {e}") from None


def mean(xs):
    return sum(xs) / len(xs)


# ---------------------------------------------------------------- the engines' commands


def c_simulate(args, sets):
    cmd = [args.provesim, "simulate", args.scenario, "--threads", "1", "--json"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]

    def parse(out):
        rep = parse_json(out, "provesim simulate --json")
        try:
            m = rep["metrics"]
            return {"gpu_util": mean(m["gpu_util"]), "throughput_pps": m["throughput_pps"],
                    "events": int(rep["events"])}
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
            raise RunError(f"not a provesim.report/1 document: {e!r}") from None
    return cmd, parse


def simgrid_run(args, p):
    cmd = [args.simgrid_bin, "--partitions", str(p["partitions"]), "--warmup", str(p["warmup"]),
           "--cooldown", str(p["cooldown"]), "--mutex", p["mutex"], "--gpus", str(p["gpus"]),
           "--workers-per-gpu", str(p["workers_per_gpu"]), "--cpu-cores", str(p["cpu_cores"]),
           "--seed", str(args.seed)]

    def parse(out):
        r = parse_json(out, "simgrid_seed")
        return {"gpu_util": r["gpu_util_mean"], "throughput_pps": r["throughput_pps"],
                "sim_wall_s": r["wall_s"]}
    return cmd, parse


def simpy_run(args, p):
    cmd = [sys.executable, os.path.join(HERE, "simpy_seed.py"), "--partitions", str(p["partitions"]),
           "--warmup", str(p["warmup"]), "--mutex", p["mutex"], "--gpus", str(p["gpus"]),
           "--workers-per-gpu", str(p["workers_per_gpu"]), "--seed", str(args.seed)]

    def parse(out):
        r = parse_json(out, "simpy_seed.py")
        return {"gpu_util": r["gpu_util_mean"], "throughput_pps": r["throughput_pps"],
                "sim_wall_s": r["wall_s"], "simpy": r["simpy"]}
    return cmd, parse


def single_case(args, p, engines, simpy_ok):
    """A case of one simulation: provesim's command and each other engine's (None for an
    engine that cannot model it)."""
    sets = {"system.gpus": p["gpus"], "system.workers_per_gpu": p["workers_per_gpu"],
            "system.cpu_cores": p["cpu_cores"], "system.mutex": p["mutex"],
            "workload.partitions": p["partitions"], "run.warmup": p["warmup"],
            "run.cooldown": p["cooldown"], "run.replications": 1, "run.seed": args.seed}
    runs = {"c": c_simulate(args, sets)}
    if "simgrid" in engines:
        runs["simgrid"] = simgrid_run(args, p)
    if "simpy" in engines:
        runs["simpy"] = simpy_run(args, p) if simpy_ok else None
    return runs


SWEEP_WORKERS = range(1, 6)
SWEEP_MUTEX = ("call", "kernels")
SWEEP_PARTITIONS, SWEEP_WARMUP = 2000, 100


def sweep_case(args, engines, tmp):
    seeds = range(1, args.sweep_seeds + 1)
    out_json = os.path.join(tmp, "sweep.json")
    cmd = [args.provesim, "sweep", args.scenario, "--jobs", "1", "-q", "--json", out_json]
    for k, v in (("system.gpus", 1), ("system.cpu_cores", SEED_SYSTEM["cpu_cores"]),
                 ("workload.partitions", SWEEP_PARTITIONS), ("run.warmup", SWEEP_WARMUP),
                 ("run.cooldown", 0), ("run.replications", 1)):
        cmd += ["--set", f"{k}={v}"]
    cmd += ["--vary", f"system.workers_per_gpu={SWEEP_WORKERS[0]}..{SWEEP_WORKERS[-1]}",
            "--vary", "system.mutex=" + ",".join(SWEEP_MUTEX),
            "--vary", f"run.seed={seeds[0]}..{seeds[-1]}"]

    def group(pts):
        """Means of each (workers, mutex) over the seeds, and over all points."""
        g = {}
        for w, m, u, t in pts:
            g.setdefault(f"{w} {m}", []).append((u, t))
        groups = {k: {"gpu_util": mean([u for u, _ in v]), "throughput_pps": mean([t for _, t in v]),
                      "points": len(v)} for k, v in g.items()}
        return {"gpu_util": mean([u for _, _, u, _ in pts]), "throughput_pps": mean([t for _, _, _, t in pts]),
                "points": len(pts), "groups": groups}

    def parse_c(_out):
        try:
            with open(out_json) as f:
                doc = json.load(f)
            pts = [(p["values"]["system.workers_per_gpu"], p["values"]["system.mutex"],
                    p["metrics"]["gpu_util_mean"], p["metrics"]["throughput_pps"]) for p in doc["points"]]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise RunError(f"{out_json}: not a provesim.sweep/1 document: {e!r}") from None
        return group(pts)
    runs = {"c": (cmd, parse_c)}
    if "simgrid" in engines:
        pts_file = os.path.join(tmp, "points.txt")
        with open(pts_file, "w") as f:  # the grid in provesim's order: the last --vary fastest
            for w in SWEEP_WORKERS:
                for m in SWEEP_MUTEX:
                    for s in seeds:
                        f.write(f"1 {w} {SEED_SYSTEM['cpu_cores']} {m} {SWEEP_PARTITIONS} {SWEEP_WARMUP} 0 {s}\n")

        def parse_sg(out):
            rows = [parse_json(line, "simgrid_seed --points") for line in out.splitlines() if line.strip()]
            return group([(r["workers_per_gpu"], r["mutex"], r["gpu_util_mean"], r["throughput_pps"])
                          for r in rows])
        runs["simgrid"] = ([args.simgrid_bin, "--points", pts_file], parse_sg)
    if "simpy" in engines:
        runs["simpy"] = None
    return runs


def make_case(name, args, engines, tmp):
    seed = dict(SEED_SYSTEM, partitions=args.partitions, warmup=args.warmup, cooldown=0)
    if name == "seed-call":
        return single_case(args, dict(seed, mutex="call"), engines, True)
    if name == "seed-kernels":
        return single_case(args, dict(seed, mutex="kernels"), engines, True)
    if name.startswith("farm-"):  # simpy_seed.py has no processor sharing (its CPU phases are timeouts)
        g, n = int(name[5:]), args.farm_partitions
        return single_case(args, {"gpus": g, "workers_per_gpu": 2, "cpu_cores": g, "mutex": "kernels",
                                  "partitions": n, "warmup": n // 5, "cooldown": n // 5}, engines, False)
    return sweep_case(args, engines, tmp)


# ---------------------------------------------------------------- SimGrid's build


def build_simgrid(args):
    """Compiles bench/simgrid_seed.cpp unless --simgrid-bin names a program; returns a
    reason when SimGrid cannot be used, else None."""
    if args.simgrid_bin:
        if not os.access(args.simgrid_bin, os.X_OK):
            return f"--simgrid-bin {args.simgrid_bin}: not an executable file"
        return None
    src = os.path.join(HERE, "simgrid_seed.cpp")
    out_dir = args.build_dir or os.path.join(os.path.dirname(os.path.abspath(args.provesim)), "bench")
    args.simgrid_bin = os.path.join(out_dir, "simgrid_seed")
    if os.path.exists(args.simgrid_bin) and os.path.getmtime(args.simgrid_bin) >= os.path.getmtime(src):
        return None
    try:
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "simgrid"], capture_output=True,
                               text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return "pkg-config finds no simgrid (install it: bash scripts/deps.sh bench)"
    os.makedirs(out_dir, exist_ok=True)
    cmd = ["g++", "-O3", "-std=c++17", "-o", args.simgrid_bin, src] + flags
    print("building: " + shlex.join(cmd), file=sys.stderr)
    try:
        subprocess.run(cmd, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        return f"{shlex.join(cmd)} failed: {e}"
    return None


# ---------------------------------------------------------------- running and reporting


def machine():
    m = {"cpu": platform.processor() or platform.machine(), "host": platform.node(),
         "python": platform.python_version(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    m["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:  # the tree this script is in; the binary timed may come from another (--provesim)
        git = ["git", "-C", ROOT]
        m["commit"] = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                     check=True).stdout.strip()
        if subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"], capture_output=True,
                          text=True, check=True).stdout.strip():
            m["commit"] += " with uncommitted changes"
    except (OSError, subprocess.CalledProcessError):
        pass
    return m


def run_case(name, runs, reps):
    """Runs every engine of the case reps times, alternating the order; returns the case's
    result (times per repetition, metrics of the first repetition, ratios)."""
    engines = [e for e in runs if runs[e] is not None]
    res = {"case": name, "engines": {}}
    for e in runs:
        res["engines"][e] = ({"skipped": "its model of the seed scenario has no processor sharing and no sweep"}
                             if runs[e] is None else
                             {"command": shlex.join(runs[e][0]), "cpu_s": [], "wall_s": [], "max_rss_mib": []})
    for r in range(reps):
        order = engines if r % 2 == 0 else engines[::-1]
        for e in order:
            cmd, parse = runs[e]
            out, wall, cpu, rss = run_timed(cmd)
            x = res["engines"][e]
            x["cpu_s"].append(cpu)
            x["wall_s"].append(wall)
            x["max_rss_mib"].append(rss)
            m = parse(out)
            if "metrics" not in x:
                x["metrics"] = m
            elif (m["gpu_util"], m["throughput_pps"]) != (x["metrics"]["gpu_util"], x["metrics"]["throughput_pps"]):
                x["reproducible"] = False  # the same seed gave other metrics
            print(f"  {name} rep {r + 1}/{reps}: {NAMES[e]} {cpu:.3f} CPU s, {wall:.3f} s", file=sys.stderr)
    c = res["engines"]["c"]
    for e in engines:
        if e == "c":
            continue
        x = res["engines"][e]
        rc = [a / b for a, b in zip(x["cpu_s"], c["cpu_s"])]
        rw = [a / b for a, b in zip(x["wall_s"], c["wall_s"])]
        x["ratio_cpu"] = {"median": statistics.median(rc), "min": min(rc), "max": max(rc), "pairs": rc}
        x["ratio_wall"] = {"median": statistics.median(rw), "min": min(rw), "max": max(rw), "pairs": rw}
        d = {}
        for k in ("gpu_util", "throughput_pps"):
            d[k] = x["metrics"][k] / c["metrics"][k] - 1
        if "groups" in x["metrics"]:
            for k in ("gpu_util", "throughput_pps"):
                d[k + "_worst_group"] = max((x["metrics"]["groups"][g][k] / v[k] - 1
                                             for g, v in c["metrics"]["groups"].items()), key=abs)
        x["rel_diff"] = d
        if e == "simgrid":
            x["target"] = TARGET_SEED if name.startswith("seed") else TARGET_ALL
            x["target_met"] = x["ratio_cpu"]["min"] >= x["target"]
    return res


def fmt_ratio(r):
    return f"{r['median']:.1f}x ({r['min']:.1f}-{r['max']:.1f})"


def print_case(res):
    eng = res["engines"]
    print(f"\n{res['case']}: {eng['c']['command']}")
    print(f"  {'engine':<9} {'CPU s':>9} {'wall s':>9} {'peak MiB':>9} {'gpu util':>10} {'parts/s':>11}"
          f"  {'CPU ratio':<22} {'wall ratio':<22}")
    for e, x in eng.items():
        if "skipped" in x:
            print(f"  {NAMES[e]:<9} skipped: {x['skipped']}")
            continue
        m = x["metrics"]
        line = (f"  {NAMES[e]:<9} {statistics.median(x['cpu_s']):>9.3f} {statistics.median(x['wall_s']):>9.3f}"
                f" {max(x['max_rss_mib']):>9.1f} {m['gpu_util']:>10.5f} {m['throughput_pps']:>11.6g}")
        if e != "c":
            line += f"  {fmt_ratio(x['ratio_cpu']):<22} {fmt_ratio(x['ratio_wall']):<22}"
        print(line)
    for e, x in eng.items():
        if e == "c" or "skipped" in x:
            continue
        d = x["rel_diff"]
        s = (f"  {NAMES[e]} - provesim: GPU utilization {100 * d['gpu_util']:+.3f}%, "
             f"throughput {100 * d['throughput_pps']:+.3f}%")
        if "gpu_util_worst_group" in d:
            s += (f" (means over {x['metrics']['points']} points; the worst of the "
                  f"{len(x['metrics']['groups'])} (workers, mutex) groups: {100 * d['gpu_util_worst_group']:+.3f}%, "
                  f"{100 * d['throughput_pps_worst_group']:+.3f}%)")
        print(s)
        if x.get("reproducible") is False or eng["c"].get("reproducible") is False:
            print("  warning: a repetition gave other metrics than the first with the same seed")
    if "events" in eng["c"]["metrics"]:
        c = eng["c"]
        print(f"  provesim: {c['metrics']['events']} events, "
              f"{c['metrics']['events'] / statistics.median(c['cpu_s']):.4g} events per CPU second")


def print_summary(results):
    print("\nprovesim against SimGrid (CPU seconds, start-up included; median and range over the pairs)")
    print(f"  {'case':<13} {'provesim s':>10} {'SimGrid s':>10}  {'CPU ratio':<22} {'wall ratio':<22} target")
    for res in results:
        x = res["engines"].get("simgrid")
        if not x or "skipped" in x:
            continue
        c = res["engines"]["c"]
        print(f"  {res['case']:<13} {statistics.median(c['cpu_s']):>10.3f} {statistics.median(x['cpu_s']):>10.3f}"
              f"  {fmt_ratio(x['ratio_cpu']):<22} {fmt_ratio(x['ratio_wall']):<22} "
              f">= {x['target']:.0f}x: {'met' if x['target_met'] else 'not met'}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--provesim", default=os.path.join(ROOT, "build", "provesim"), help="the binary to time")
    ap.add_argument("--scenario", default=os.path.join(ROOT, "configs", "seed-coarse-mutex.yaml"))
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated, of: " + ", ".join(CASES))
    ap.add_argument("--against", default=",".join(ENGINES), help="comma-separated, of: simgrid, simpy")
    ap.add_argument("--reps", type=int, default=3, help="paired repetitions per case (default 3)")
    ap.add_argument("--partitions", type=int, default=1_000_000, help="seed cases (default 10^6)")
    ap.add_argument("--warmup", type=int, default=100, help="seed cases (default 100)")
    ap.add_argument("--farm-partitions", type=int, default=25_600, help="farm cases (default 25,600)")
    ap.add_argument("--sweep-seeds", type=int, default=100, help="sweep: seeds per (workers, mutex); "
                    "points = 10 x this (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="run.seed of the single runs (default 1)")
    ap.add_argument("--simgrid-bin", help="a built simgrid_seed (default: compile it)")
    ap.add_argument("--build-dir", help="where to compile simgrid_seed (default: bench/ beside --provesim)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    ap.add_argument("--save", metavar="FILE", help="also write that JSON object to FILE")
    args = ap.parse_args(argv)
    cases = [c for c in args.cases.split(",") if c]
    engines = [e for e in args.against.split(",") if e]
    bad = [c for c in cases if c not in CASES] + [e for e in engines if e not in ENGINES]
    if bad or not cases or args.reps < 1 or args.partitions < 2 or not 0 <= args.warmup < args.partitions \
            or args.farm_partitions < 5 or args.sweep_seeds < 1:
        ap.error(f"expected --cases from {', '.join(CASES)}, --against from {', '.join(ENGINES)}, --reps >= 1, "
                 f"0 <= --warmup < --partitions, --farm-partitions >= 5 and --sweep-seeds >= 1"
                 + (f"; got {', '.join(bad)}" if bad else ""))
    if not (os.path.isfile(args.provesim) and os.access(args.provesim, os.X_OK)):
        print(f"bench_engine: {args.provesim}: not found (build provesim, or give --provesim)", file=sys.stderr)
        return 1
    if "simpy" in engines and subprocess.run([sys.executable, "-c", "import simpy"], capture_output=True).returncode:
        print("bench_engine: SimPy: not installed for this Python (pip install -r bench/requirements.txt), "
              "or leave it out: --against simgrid", file=sys.stderr)
        return 1
    if "simgrid" in engines:
        why = build_simgrid(args)
        if why:
            print(f"bench_engine: SimGrid: {why}", file=sys.stderr)
            return 1

    doc = {"machine": machine(), "date": time.strftime("%Y-%m-%d", time.gmtime()), "reps": args.reps,
           "provesim": os.path.abspath(args.provesim), "command": shlex.join([sys.executable] + sys.argv),
           "cases": []}
    try:
        with tempfile.TemporaryDirectory(prefix="provesim-bench-") as tmp:
            for name in cases:
                doc["cases"].append(run_case(name, make_case(name, args, engines, tmp), args.reps))
    except RunError as e:
        print(f"bench_engine: {e}", file=sys.stderr)
        return 1
    if args.save:
        try:
            with open(args.save + ".tmp", "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            os.replace(args.save + ".tmp", args.save)
        except OSError as e:
            print(f"bench_engine: {args.save}: {e}", file=sys.stderr)
            return 1
    if args.json:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    m = doc["machine"]
    print(f"{doc['date']}, {m['cpu']} ({m['cores']} cores), {doc['provesim']} (tree at "
          f"{m.get('commit', '?')}), {args.reps} paired repetitions per case; times are medians")
    for res in doc["cases"]:
        print_case(res)
    print_summary(doc["cases"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
