#!/usr/bin/env python3
"""The seed scenario of provesim (models/seed-field.yaml, configs/seed-coarse-mutex.yaml)
written with SimPy 4, as most people would write it: the yardstick of the engine benchmark
(bench/bench_engine.py) and an independent check of the C engine's figures.

Workers pinned to a GPU take partitions from a closed backlog, one partition per call, and
run the call's phase graph:

    setup (cpu) -> prep (cpu)  ---------\
                -> ntt_h (gpu) ----------> msm (gpu, the barrier) -> b_g2 (cpu) -> epilogue (cpu)

CPU phases are plain timeouts (the scenario has 32 cores for 2 workers, so no processor
sharing is needed). GPU phases hold their GPU, a simpy.Resource of capacity 1. The mutex
(a simpy.Resource of capacity 1 per GPU) covers a region of the phase list: `call` =
setup..epilogue, `kernels` = ntt_h..msm (prep, listed before ntt_h, stays outside and runs
while the worker waits for the mutex); it is requested when the region's first phase is
ready and released when the region's last phase ends. Prints one JSON object.
"""
import argparse
import json
import math
import platform
import random
import sys
import time

import simpy


def lognormal_params(mean, cv):
    """mu, sigma of the underlying normal for a lognormal of the given mean and cv."""
    s2 = math.log(1.0 + cv * cv)
    return math.log(mean) - s2 / 2.0, math.sqrt(s2)


class CountingEnvironment(simpy.Environment):
    """An Environment that counts the events it processes (slightly slower)."""

    def __init__(self):
        super().__init__()
        self.events_processed = 0

    def step(self):
        self.events_processed += 1
        super().step()


class Seed:
    """The model and its statistics for one run."""

    def __init__(self, env, args):
        self.env = env
        self.rng = random.Random(args.seed)
        self.scope = args.mutex
        self.left = args.partitions          # backlog not yet taken by a worker
        self.warmup = args.warmup
        self.done = 0
        self.t_warm = 0.0                    # window start
        self.t_last = 0.0                    # last completion
        self.gpus = [simpy.Resource(env, capacity=1) for _ in range(args.gpus)]
        self.mutexes = [simpy.Resource(env, capacity=1) for _ in range(args.gpus)]
        # GPU busy time: finished GPU phases, plus the running one (exclusive GPU).
        self.busy = [0.0] * args.gpus
        self.run_start = [None] * args.gpus
        self.busy_at_warm = [0.0] * args.gpus
        self.setup_p = lognormal_params(0.35, 0.10)
        self.prep_p = lognormal_params(1.91, 0.10)

    # Distributions of models/seed-field.yaml (seconds).
    def d_setup(self):
        return self.rng.lognormvariate(*self.setup_p)

    def d_prep(self):
        return self.rng.lognormvariate(*self.prep_p)

    def _normal0(self, mean, sd):
        while True:  # truncated at 0: redraw while negative
            x = self.rng.gauss(mean, sd)
            if x >= 0.0:
                return x

    def d_ntt_h(self):
        return self._normal0(0.69, 0.03)

    def d_msm(self):
        return self._normal0(1.13, 0.04)

    def d_b_g2(self):
        return self.rng.uniform(0.40, 0.70)

    def busy_now(self, g):
        s = self.run_start[g]
        return self.busy[g] + (self.env.now - s if s is not None else 0.0)

    def gpu_phase(self, g, duration):
        gpu = self.gpus[g]
        with gpu.request() as req:
            yield req
            self.run_start[g] = self.env.now
            yield self.env.timeout(duration)
            self.busy[g] += duration
            self.run_start[g] = None

    def call(self, g):
        env = self.env
        mutex = self.mutexes[g]
        lock = None
        if self.scope == "call":             # region starts at setup, ready at call start
            lock = mutex.request()
            yield lock
        yield env.timeout(self.d_setup())
        # prep and ntt_h are both ready now; prep runs beside the GPU branch.
        prep = env.timeout(self.d_prep())
        if self.scope == "kernels":          # region starts at ntt_h, ready after setup
            lock = mutex.request()
            yield lock
        yield from self.gpu_phase(g, self.d_ntt_h())
        yield prep                           # the barrier: msm waits for prep and ntt_h
        yield from self.gpu_phase(g, self.d_msm())
        if self.scope == "kernels":
            mutex.release(lock)
        yield env.timeout(self.d_b_g2())
        yield env.timeout(0.12)              # epilogue
        if self.scope == "call":
            mutex.release(lock)
        self.done += 1
        self.t_last = env.now
        if self.done == self.warmup:
            self.t_warm = env.now
            self.busy_at_warm = [self.busy_now(i) for i in range(len(self.gpus))]

    def worker(self, g):
        while self.left > 0:
            self.left -= 1
            yield from self.call(g)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--partitions", type=int, default=1_000_000)
    ap.add_argument("--mutex", choices=["call", "kernels", "none"], default="call")
    ap.add_argument("--gpus", type=int, default=1)
    ap.add_argument("--workers-per-gpu", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=0,
                    help="partitions left out of the statistics (window starts at this completion)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count-events", action="store_true",
                    help="count processed SimPy events (costs some speed)")
    args = ap.parse_args(argv)
    if args.partitions < 1 or args.gpus < 1 or args.workers_per_gpu < 1:
        ap.error("--partitions, --gpus and --workers-per-gpu must be >= 1")
    if not 0 <= args.warmup < args.partitions:
        ap.error("--warmup must be in [0, partitions)")

    env = CountingEnvironment() if args.count_events else simpy.Environment()
    m = Seed(env, args)
    for g in range(args.gpus):
        for _ in range(args.workers_per_gpu):
            env.process(m.worker(g))
    t0 = time.perf_counter()
    env.run()
    wall = time.perf_counter() - t0

    window = m.t_last - m.t_warm
    utils = [(m.busy[g] - m.busy_at_warm[g]) / window for g in range(args.gpus)]
    out = {
        "source": "simpy",
        "model": "seed-field",
        "mutex": args.mutex,
        "gpus": args.gpus,
        "workers_per_gpu": args.workers_per_gpu,
        "partitions": args.partitions,
        "simulated_partitions": m.done,
        "warmup": args.warmup,
        "seed": args.seed,
        "wall_s": wall,
        "sim_time_s": m.t_last,
        "window_s": window,
        "gpu_util": utils,
        "gpu_util_mean": sum(utils) / len(utils),
        "throughput_pps": (m.done - args.warmup) / window,
        "partitions_per_wall_s": m.done / wall,
        "simpy": simpy.__version__,
        "python": platform.python_version(),
    }
    if args.count_events:
        out["events"] = env.events_processed
        out["events_per_s"] = env.events_processed / wall
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
