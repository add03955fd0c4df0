/* The seed scenario of provesim (models/seed-field.yaml, configs/seed-coarse-mutex.yaml)
 * written with SimGrid's S4U interface (3.32): the yardstick of bench/bench_simgrid.py,
 * and an independent check of the C engine's figures, as bench/simpy_seed.py is for SimPy.
 *
 * The platform has one CPU host of --cpu-cores cores (1 flop/s each) and one host per GPU
 * (1 flop/s, one core); a phase of d seconds is an execution of d flops. Each worker is an
 * actor pinned to a GPU; it takes partitions from a closed backlog, one per call, and runs
 * the call's phase graph:
 *
 *     setup (cpu) -> prep (cpu)  ---------\
 *                 -> ntt_h (gpu) ----------> msm (gpu, the barrier) -> b_g2 (cpu) -> epilogue (cpu)
 *
 * CPU phases are executions on the CPU host, so SimGrid's CPU model shares the cores among
 * them as provesim's cpu_sharing: ps does (each phase gets min(1, cores / running phases)
 * of a core). prep is an asynchronous execution that runs beside ntt_h. GPU phases are
 * executions on the worker's GPU host, one at a time in arrival order (an s4u::Mutex,
 * which hands itself over in FIFO order, like provesim's exclusive GPU; it is left out when
 * the GPU mutex covers both GPU phases, since nothing can then contend for the GPU). The
 * GPU mutex (one s4u::Mutex per GPU) covers a region of the phase list: `call` =
 * setup..epilogue, `kernels` = ntt_h..msm (prep, listed before ntt_h, stays outside and runs
 * while the worker waits for the mutex); it is requested when the region's first phase is
 * ready and released when its last phase ends (docs/model.md, "Scopes").
 *
 * The window opens at the completion of partition number --warmup (time 0 for 0) and
 * closes at the completion of number partitions - --cooldown; GPU utilization is the GPU phases' time in it over its
 * length, and throughput the partitions completed in it over its length, as provesim
 * defines them (core/window.h). Random variates come from one std::mt19937_64 per run
 * seeded with --seed: the same distributions as provesim, not the same stream, so the two
 * agree to within statistical noise.
 *
 * One run prints one JSON object. With --points FILE it runs every line of FILE
 * ("GPUS WORKERS_PER_GPU CPU_CORES MUTEX PARTITIONS WARMUP COOLDOWN SEED") as its own simulation,
 * one after the other, and prints one JSON object per line: SimGrid runs one engine per
 * process, so each point runs in a child forked from this process (the library is loaded
 * once, as provesim's sweep runs every point in one process).
 *
 * Build: g++ -O2 -std=c++17 simgrid_seed.cpp $(pkg-config --cflags --libs simgrid) */
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

enum class Scope { none, call, kernels };

struct Params {
  int gpus = 1;
  int workers_per_gpu = 2;
  int cpu_cores = 32;
  Scope mutex = Scope::call;
  long long partitions = 1000000;
  long long warmup = 0;
  long long cooldown = 0;
  unsigned long long seed = 1;
};

const char* scope_name(Scope s) {
  return s == Scope::call ? "call" : s == Scope::kernels ? "kernels" : "none";
}

bool parse_scope(const std::string& v, Scope* out) {
  if (v == "call") *out = Scope::call;
  else if (v == "kernels") *out = Scope::kernels;
  else if (v == "none") *out = Scope::none;
  else return false;
  return true;
}

/* The model and its statistics for one run. */
struct Farm {
  Params p;
  std::mt19937_64 rng;
  sg4::Host* cpu = nullptr;
  std::vector<sg4::Host*> gpu;
  std::vector<sg4::MutexPtr> mutex;    /* the daemon's GPU mutex */
  std::vector<sg4::MutexPtr> gpu_lock; /* exclusive GPU, FIFO; only when the scope leaves a GPU phase out */
  long long left = 0;                  /* backlog not yet taken by a worker */
  long long done = 0;
  double t_warm = 0, t_end = 0;                /* the window */
  std::vector<double> busy, run_start, busy_at_warm, busy_at_end;
  /* Distributions of models/seed-field.yaml (seconds). */
  std::lognormal_distribution<double> setup, prep;
  std::normal_distribution<double> ntt_h{0.69, 0.03}, msm{1.13, 0.04};
  std::uniform_real_distribution<double> b_g2{0.40, 0.70};
  static constexpr double epilogue = 0.12;

  static std::lognormal_distribution<double> lognormal(double mean, double cv) {
    double s2 = std::log(1.0 + cv * cv);
    return std::lognormal_distribution<double>(std::log(mean) - s2 / 2.0, std::sqrt(s2));
  }

  explicit Farm(const Params& prm)
      : p(prm), rng(prm.seed), left(prm.partitions), busy(prm.gpus, 0.0), run_start(prm.gpus, -1.0),
        busy_at_warm(prm.gpus, 0.0), busy_at_end(prm.gpus, 0.0), setup(lognormal(0.35, 0.10)), prep(lognormal(1.91, 0.10)) {}

  /* A normal truncated at 0: negative draws are redrawn. */
  double normal0(std::normal_distribution<double>& d) {
    for (;;) {
      double x = d(rng);
      if (x >= 0.0) return x;
    }
  }

  double busy_now(int g) const {
    return busy[g] + (run_start[g] >= 0 ? sg4::Engine::get_clock() - run_start[g] : 0.0);
  }

  void cpu_phase(double d) { sg4::this_actor::execute(d); }

  void gpu_phase(int g, double d) {
    bool lock = p.mutex == Scope::none;
    if (lock) gpu_lock[g]->lock();
    run_start[g] = sg4::Engine::get_clock();
    sg4::this_actor::exec_init(d)->set_host(gpu[g])->wait();
    busy[g] += sg4::Engine::get_clock() - run_start[g];
    run_start[g] = -1.0;
    if (lock) gpu_lock[g]->unlock();
  }

  void call(int g) {
    const sg4::MutexPtr& mx = mutex[g];
    if (p.mutex == Scope::call) mx->lock(); /* the region starts at setup, ready at once */
    cpu_phase(setup(rng));
    /* prep and ntt_h are both ready now; prep runs beside the GPU branch. */
    sg4::ExecPtr pr = sg4::this_actor::exec_async(prep(rng));
    if (p.mutex == Scope::kernels) mx->lock(); /* the region starts at ntt_h */
    gpu_phase(g, normal0(ntt_h));
    pr->wait(); /* the barrier: msm waits for prep and ntt_h */
    gpu_phase(g, normal0(msm));
    if (p.mutex == Scope::kernels) mx->unlock();
    cpu_phase(b_g2(rng));
    cpu_phase(epilogue);
    if (p.mutex == Scope::call) mx->unlock();
    done++;
    if (done == p.warmup) {
      t_warm = sg4::Engine::get_clock();
      for (int i = 0; i < p.gpus; i++) busy_at_warm[i] = busy_now(i);
    }
    if (done == p.partitions - p.cooldown) {
      t_end = sg4::Engine::get_clock();
      for (int i = 0; i < p.gpus; i++) busy_at_end[i] = busy_now(i);
    }
  }

  void worker(int g) {
    while (left > 0) {
      left--;
      call(g);
    }
  }
};

/* Builds the platform and the actors, runs the engine, prints one JSON object. */
int run_one(const Params& p, const char* argv0) {
  int argc = 2;
  char log[] = "--log=root.thres:critical";
  char* argv[] = {const_cast<char*>(argv0), log, nullptr};
  sg4::Engine e(&argc, argv);
  Farm f(p);
  sg4::NetZone* zone = sg4::create_full_zone("farm");
  f.cpu = zone->create_host("cpu", 1.0)->set_core_count(p.cpu_cores)->seal();
  for (int g = 0; g < p.gpus; g++) {
    f.gpu.push_back(zone->create_host("gpu" + std::to_string(g), 1.0)->seal());
    f.mutex.push_back(sg4::Mutex::create());
    f.gpu_lock.push_back(sg4::Mutex::create());
  }
  zone->seal();
  /* Worker i is the (i / G)-th worker of GPU i % G, as in provesim. */
  for (int i = 0; i < p.gpus * p.workers_per_gpu; i++) {
    int g = i % p.gpus;
    sg4::Actor::create("w" + std::to_string(i), f.cpu, [&f, g] { f.worker(g); });
  }
  auto t0 = std::chrono::steady_clock::now();
  e.run();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  double window = f.t_end - f.t_warm;
  if (f.done != p.partitions || !(window > 0)) {
    std::fprintf(stderr, "simgrid_seed: the run completed %lld of %lld partitions with a window of %g s\n", f.done,
                 p.partitions, window);
    return 1;
  }
  int vmaj = 0, vmin = 0, vpat = 0;
  sg_version_get(&vmaj, &vmin, &vpat); /* the library's, not the headers' */
  double um = 0;
  for (int g = 0; g < p.gpus; g++) um += (f.busy_at_end[g] - f.busy_at_warm[g]) / window;
  std::printf("{\"source\": \"simgrid\", \"model\": \"seed-field\", \"simgrid\": \"%d.%d\", \"mutex\": \"%s\", "
              "\"gpus\": %d, \"workers_per_gpu\": %d, \"cpu_cores\": %d, \"partitions\": %lld, \"warmup\": %lld, "
              "\"cooldown\": %lld, \"seed\": %llu, \"wall_s\": %.6f, \"sim_time_s\": %.9g, \"window_s\": %.9g, "
              "\"gpu_util_mean\": %.9g, \"throughput_pps\": %.9g}\n",
              vmaj, vmin, scope_name(p.mutex), p.gpus, p.workers_per_gpu,
              p.cpu_cores, p.partitions, p.warmup, p.cooldown, p.seed, wall, sg4::Engine::get_clock(), window,
              um / p.gpus, (double)(p.partitions - p.cooldown - p.warmup) / window);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

bool valid(const Params& p, std::string* why) {
  if (p.gpus < 1 || p.workers_per_gpu < 1 || p.cpu_cores < 1 || p.partitions < 1)
    *why = "gpus, workers per GPU, cpu cores and partitions must be >= 1";
  else if (p.warmup < 0 || p.cooldown < 0 || p.warmup + p.cooldown >= p.partitions)
    *why = "warmup and cooldown must be >= 0 with warmup + cooldown < partitions";
  else
    return true;
  return false;
}

/* --points FILE: every line a run of its own, in a forked child, one after the other. */
int run_points(const char* path, const char* argv0) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "simgrid_seed: %s: cannot read the points file\n", path);
    return 2;
  }
  std::vector<Params> pts;
  std::string line;
  for (int ln = 1; std::getline(in, line); ln++) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream ss(line);
    Params p;
    std::string scope, extra, why;
    if (!(ss >> p.gpus >> p.workers_per_gpu >> p.cpu_cores >> scope >> p.partitions >> p.warmup >> p.cooldown >>
           p.seed) ||
        (ss >> extra) || !parse_scope(scope, &p.mutex) || !valid(p, &why)) {
      std::fprintf(stderr,
                   "simgrid_seed: %s:%d: expected \"GPUS WORKERS_PER_GPU CPU_CORES call|kernels|none PARTITIONS "
                   "WARMUP COOLDOWN SEED\"%s%s, got \"%s\"\n",
                   path, ln, why.empty() ? "" : " with ", why.c_str(), line.c_str());
      return 2;
    }
    pts.push_back(p);
  }
  for (size_t i = 0; i < pts.size(); i++) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("simgrid_seed: fork");
      return 1;
    }
    if (pid == 0) _exit(run_one(pts[i], argv0));
    int st = 0;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      std::fprintf(stderr, "simgrid_seed: %s: point %zu (seed %llu) failed\n", path, i + 1, pts[i].seed);
      return 1;
    }
  }
  return 0;
}

const char usage[] =
    "usage: simgrid_seed [--partitions N] [--mutex call|kernels|none] [--gpus G]\n"
    "                    [--workers-per-gpu W] [--cpu-cores C] [--warmup K] [--cooldown K]\n"
    "                    [--seed S]\n"
    "       simgrid_seed --points FILE\n"
    "The seed scenario in SimGrid S4U; prints one JSON object per run (see the file's header).\n"
    "example: simgrid_seed --partitions 100000 --mutex kernels --warmup 100\n";

} // namespace

int main(int argc, char** argv) {
  Params p;
  const char* points = nullptr;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "simgrid_seed: %s: expected an option with a value\n%s", a.c_str(), usage);
      return 2;
    }
    std::string v = argv[++i];
    char* end = nullptr;
    errno = 0;
    long long n = std::strtoll(v.c_str(), &end, 10);
    bool num = errno == 0 && end && *end == '\0' && !v.empty();
    bool ok = true;
    if (a == "--points") points = argv[i];
    else if (a == "--mutex") ok = parse_scope(v, &p.mutex);
    else if (a == "--partitions") ok = num, p.partitions = n;
    else if (a == "--warmup") ok = num, p.warmup = n;
    else if (a == "--cooldown") ok = num, p.cooldown = n;
    else if (a == "--seed") ok = num && n >= 0, p.seed = (unsigned long long)n;
    else if (a == "--gpus") ok = num && n <= 1024, p.gpus = (int)n;
    else if (a == "--workers-per-gpu") ok = num && n <= 1000000, p.workers_per_gpu = (int)n;
    else if (a == "--cpu-cores") ok = num && n <= 1000000, p.cpu_cores = (int)n;
    else {
      std::fprintf(stderr, "simgrid_seed: unknown option %s\n%s", a.c_str(), usage);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "simgrid_seed: %s: expected %s, got \"%s\"\n", a.c_str(),
                   a == "--mutex" ? "call, kernels or none" : "an integer in range", v.c_str());
      return 2;
    }
  }
  if (points) return run_points(points, argv[0]);
  std::string why;
  if (!valid(p, &why)) {
    std::fprintf(stderr, "simgrid_seed: %s\n", why.c_str());
    return 2;
  }
  return run_one(p, argv[0]);
}
