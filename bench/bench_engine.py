#!/usr/bin/env python3
"""Engine benchmark of issue 2: events per second of provesim's C engine on the seed
scenario with 10^6 partitions, and the same model written with SimPy 4
(bench/simpy_seed.py), side by side on the same machine.

Runs, one after the other, each as a child process timed from outside:
    build/provesim simulate configs/seed-coarse-mutex.yaml --set workload.partitions=N
        --set run.replications=1 --set run.warmup=W --set system.mutex=M --json
    python3 bench/simpy_seed.py --partitions N --warmup W --mutex M
and prints both wall times, the C engine's events/s (the report's "events" over the wall
time), the SimPy/C ratio, peak memory of each, and the two models' GPU utilization and
throughput, which must agree to within statistical noise. `--json` prints the same as one
JSON object. Needs `pip install -r bench/requirements.txt`.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_timed(cmd):
    """Runs cmd; returns (rc, stdout, stderr, wall seconds, peak RSS in MiB of that child)."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read(), fe.read()
    return (p.returncode, out.decode(errors="replace"), err.decode(errors="replace"), wall,
            ru.ru_maxrss / 1024.0)


def first_number(x):
    if isinstance(x, list):
        return sum(x) / len(x) if x else None
    return x


def run_c(args):
    exe = args.provesim
    if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
        return {"skipped": f"{exe} not found (build provesim first)"}
    cmd = [exe, "simulate", args.scenario,
           "--set", f"workload.partitions={args.partitions}",
           "--set", "run.replications=1",
           "--set", f"run.warmup={args.warmup}",
           "--set", f"system.mutex={args.mutex}",
           "--json"]
    rc, out, err, wall, rss = run_timed(cmd)
    if rc != 0:
        return {"skipped": f"{' '.join(cmd)} exited with {rc}: {err.strip()[:400]}"}
    try:
        rep = json.loads(out)
        events = int(rep["events"])
        metrics = rep["metrics"]
    except (ValueError, KeyError, TypeError) as e:
        return {"skipped": f"could not read a provesim.report/1 document from simulate --json: {e}"}
    return {
        "command": " ".join(cmd),
        "wall_s": wall,
        "max_rss_mib": rss,
        "events": events,
        "events_per_s": events / wall if wall > 0 else None,
        "gpu_util": first_number(metrics.get("gpu_util")),
        "throughput_pps": metrics.get("throughput_pps"),
    }


def run_simpy(args):
    cmd = [sys.executable, os.path.join(HERE, "simpy_seed.py"),
           "--partitions", str(args.partitions), "--warmup", str(args.warmup),
           "--mutex", args.mutex, "--seed", str(args.seed)]
    rc, out, err, wall, rss = run_timed(cmd)
    if rc != 0:
        return {"skipped": f"simpy_seed.py exited with {rc}: {err.strip()[:400]}"}
    rep = json.loads(out)
    return {
        "command": " ".join(cmd),
        "wall_s": wall,               # includes interpreter start-up, like the C figure
        "sim_wall_s": rep["wall_s"],  # env.run() alone
        "max_rss_mib": rss,
        "gpu_util": rep["gpu_util_mean"],
        "throughput_pps": rep["throughput_pps"],
        "simpy": rep["simpy"],
    }


def fmt(x, spec, width):
    return "-".rjust(width) if x is None else format(x, f">{width}{spec}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--partitions", type=int, default=1_000_000)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--mutex", choices=["call", "kernels", "none"], default="call")
    ap.add_argument("--seed", type=int, default=1, help="seed of the SimPy run")
    ap.add_argument("--provesim", default=os.path.join(ROOT, "build", "provesim"))
    ap.add_argument("--scenario", default=os.path.join(ROOT, "configs", "seed-coarse-mutex.yaml"))
    ap.add_argument("--skip-simpy", action="store_true", help="time the C engine only")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    c = run_c(args)
    s = {"skipped": "--skip-simpy"} if args.skip_simpy else run_simpy(args)
    both = "skipped" not in c and "skipped" not in s
    res = {
        "machine": {"cpu": platform.processor() or platform.machine(), "host": platform.node(),
                    "python": platform.python_version(), "cores": os.cpu_count()},
        "partitions": args.partitions, "mutex": args.mutex, "warmup": args.warmup,
        "c": c, "simpy": s,
        "ratio_simpy_over_c": s["wall_s"] / c["wall_s"] if both and c["wall_s"] > 0 else None,
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    res["machine"]["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass

    if args.json:
        json.dump(res, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print(f"seed scenario, mutex {args.mutex}, {args.partitions} partitions "
              f"(warm-up {args.warmup}), on {res['machine']['cpu']}")
        print(f"{'engine':<8} {'wall s':>9} {'events':>12} {'events/s':>12} {'peak MiB':>9} "
              f"{'gpu util':>9} {'parts/s':>9}")
        for name, r in (("C", c), ("SimPy", s)):
            if "skipped" in r:
                print(f"{name:<8} skipped: {r['skipped']}")
                continue
            print(f"{name:<8} {r['wall_s']:>9.3f} {fmt(r.get('events'), 'd', 12)} "
                  f"{fmt(r.get('events_per_s'), '.4g', 12)} {r['max_rss_mib']:>9.1f} "
                  f"{r['gpu_util']:>9.4f} {r['throughput_pps']:>9.4f}")
        if both:
            print(f"SimPy / C wall time: {res['ratio_simpy_over_c']:.1f}x; "
                  f"GPU utilization differs by {abs(c['gpu_util'] - s['gpu_util']):.4f}, "
                  f"throughput by {abs(c['throughput_pps'] - s['throughput_pps']):.4f} partitions/s")
    failed = "skipped" in c or ("skipped" in s and not args.skip_simpy)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
