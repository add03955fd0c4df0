/* The in-memory form of a pipeline model and of a scenario (shared/DESIGN.md, "Files").
 * The loader (scn.c) builds these from YAML after checking every key; the engine
 * (pipe.c) and the prover's scenario runner read them. Plain structs: the loader owns
 * the allocations and scn_free releases them. */
#ifndef PROVESIM_MODEL_H
#define PROVESIM_MODEL_H

#include <stdint.h>

#include "dist.h"

typedef enum res_kind { RES_CPU, RES_GPU, RES_PCIE, RES_NONE } res_kind;

/* How a cpu phase's time depends on the cores it gets (docs/design.md, "Thread policy").
 * SCALE_NONE: `time` is the time at `threads` cores and it stretches in proportion when
 * the phase gets fewer. With a law, `time` is the time on ONE core and the phase runs at
 * speed phase_speed(ph, a) on a cores: Amdahl, 1 / (serial + (1 - serial) / a), or a
 * table of speedups by core count, linear between its points and flat past the last.
 * Below one core every law runs at speed a (time slicing). */
typedef enum scale_law { SCALE_NONE, SCALE_AMDAHL, SCALE_TABLE } scale_law;

typedef struct phase {
  char *name;
  res_kind resource;
  int threads;           /* cores wanted (cpu); 1 otherwise. Default 1. With threads_all,
                            the worker's allotment from the scenario's thread policy
                            (filled by the scenario loader; 1 in a model loaded alone) */
  int threads_all;       /* threads: all */
  scale_law law;
  double serial;         /* SCALE_AMDAHL: the share of the one-core time that does not
                            run in parallel, 0..1 */
  double *tab_k, *tab_speedup; /* SCALE_TABLE: ntab points, tab_k ascending from 1 */
  int ntab;
  dist time;             /* seconds per partition (on one core when law != SCALE_NONE) */
  int has_fixed;
  dist fixed;            /* optional per-call part, added once per call */
  double *scale;         /* optional batch multipliers of one draw for k=1..nscale */
  int nscale;
  double *bserial;       /* optional (batch.serial; law SCALE_AMDAHL): the serial share of a
                            call of k partitions, k=1..nscale (bserial[0] = serial), so
                            that scale[k-1] is the one-core ratio and the multiplier at
                            the phase's threads is phase__batch_scale's; NULL: scale[k-1]
                            at every thread count */
  int *after;            /* indices into model.phases; empty = at call start */
  int nafter;
  double host_mem_gib;   /* host memory held while the call is in flight (plan); default 0 */
  double busy;           /* gpu phases: share of the phase's time the GPU executes kernels
                            (the rest: host steps, copies, syncs inside it); default 1 */
  double host_threads;   /* gpu phases: host threads the phase keeps busy while it runs (the
                            launching and synchronising thread), competing for cpu_cores;
                            its host part (1 - busy) slows with the core share they get.
                            May be a fraction (the engine counts 64ths of a thread).
                            Default 0 */
  double mode_share;     /* run_mode.share: the chance that a replication runs the phase in
                            its slow mode (a kernel slow for a whole process, the H200's
                            b_g2); 0: no run_mode */
  double mode_scale;     /* run_mode.scale: the slow mode's times (time and fixed) over the
                            distribution's; drawn once a replication (sim/replicate.c) */
} phase;

typedef struct scope {
  char *name;
  int from, to;          /* indices into model.phases, from <= to (list order) */
} scope;

typedef struct model {
  char *name;
  char *source;          /* may be NULL */
  char *path;            /* file it came from, or NULL when inline */
  char **prov_k, **prov_v; /* provenance: (what calibrated it: gpu, host, commit, spans,
                            date, ...) nprov key/value strings, in file order */
  int nprov;
  int gpu_overlap;       /* gpu_overlap: GPU phases of different calls run at once on a GPU
                            (the scenario's gpu_sharing then defaults to shared) */
  double interference;   /* with n GPU phases at once each runs at 1 / (1 + s (n - 1));
                            default 1 (processor sharing: 1/n) */
  int has_first;         /* gpu_overlap.first is given: */
  double interference_first; /* s1: the one of the n phases that started first runs at
                            1 / (1 + s1 (n - 1)) instead (read only with has_first) */
  double *pair_rate;     /* gpu_pairs: nphases x nphases, [p * nphases + q] the rate (of its
                            solo speed) at which GPU phase p runs beside exactly one other,
                            of phase q, on a shared GPU; 0 where not given (gpu_overlap's law
                            then). NULL without the key */
  double cpu_contention; /* c: with m other cpu phases running, a cpu phase runs at
                            1 / (1 + c m) of its speed (memory bandwidth and caches the
                            cores share); default 0 */
  double mutex_acquire_s; /* mutex_overhead.acquire: from acquiring the mutex to the start of
                            the first phase of its region (the holder's launch); default 0 */
  double mutex_release_s; /* mutex_overhead.release: from the end of the region's last phase
                            to the release (the holder's sync and unlock; the phases after
                            the region start at once, the call ends no earlier); default 0 */
  double mutex_handover_s; /* mutex_overhead.handover: from a release to the acquire of a worker
                            waiting for it (waking the waiter; the mutex is its meanwhile);
                            default 0 */
  double host_speed_sd;  /* host_speed.sd: the run-to-run spread of the host's CPU speed.
                            Each replication draws h = exp(sd z - sd^2 / 2), z ~ N(0, 1)
                            (mean 1), and its cpu phases take h times as long (sim/
                            replicate.c); default 0: no draw, every replication at 1 */
  /* gpu_memory: what the prover holds on each GPU, in GiB (read by `plan`, and by
   * `simulate` and `validate` for a warning; the engine ignores it). A GPU with w workers
   * running calls of b partitions needs gpu_shared_gib + w x (gpu_worker_gib + b x
   * gpu_part_gib): model_gpu_gib. All 0 without the key. */
  int has_gpu_mem;
  double gpu_shared_gib; /* once per GPU, whatever its workers: the proving key (with any
                            precomputed tables) and the CUDA context */
  double gpu_worker_gib; /* per worker, whatever its batch: the backend's work buffers */
  double gpu_part_gib;   /* per worker and partition of its call: the call's vectors */
  phase *phases;
  int nphases;
  scope *scopes;
  int nscopes;
} model;

/* ARR_TRACE replays proof arrival times read from a file (workload.arrivals.trace). */
typedef enum arrival_kind { ARR_CLOSED, ARR_POISSON, ARR_FIXED, ARR_TRACE } arrival_kind;

/* The thread policy (system.threads): how many threads each cpu phase with `threads: all`
 * gets per worker. share: (cpu_cores - keep_core) / workers, at least 1; all: cpu_cores
 * (the workers' threads then share the cores as the OS does); fixed: n. keep_core keeps
 * one core out of the share for the host thread of the call holding the GPU. */
typedef enum thr_mode { THR_SHARE, THR_ALL, THR_FIXED } thr_mode;

typedef struct scenario {
  char *name;
  char *description;     /* may be NULL */
  char *path;            /* the scenario file */
  model *model;          /* owned */

  /* system */
  int gpus;              /* >= 1, default 1 */
  int workers_per_gpu;   /* >= 1, default 1 */
  int cpu_cores;         /* >= 1, default 32 */
  int batch;             /* >= 1, default 1 */
  char *mutex_name;      /* "call", "kernels", "none", "custom" ({from,to}) */
  int mutex_from, mutex_to; /* region in model.phases list order; -1,-1 for none */
  int gpu_shared;        /* gpu_sharing: shared */
  int cpu_fifo;          /* cpu_sharing: fifo */
  thr_mode thr;          /* system.threads.per_worker; default share */
  int thr_n;             /* THR_FIXED: threads per worker */
  int keep_core;         /* system.threads.keep_core; default 1 */
  double host_steal;     /* system.host_steal.share: the share of the cores' busy time the
                            hypervisor gives other guests, 0 to 0.9; default 0 */
  double host_steal_exponent; /* system.host_steal.exponent K: the loader takes every cpu
                            phase's time (and fixed part) (1 - share)^-K times; default 1 */
  double gpu_mem_gib;    /* system.gpu_mem_gib: memory of each GPU, GiB, that the model's
                            gpu_memory must fit in (plan refuses what does not; simulate
                            and validate warn); 0: not given */

  /* workload */
  int64_t partitions;    /* partitions to complete (closed backlog), or to arrive */
  arrival_kind arrivals;
  double proofs_per_hour;   /* ARR_POISSON, ARR_FIXED */
  int partitions_per_proof; /* default 1 */
  char *trace_path;      /* ARR_TRACE: the file as the scenario names it */
  double rate_scale;     /* ARR_TRACE: the trace's gaps are divided by it; default 1 */
  double *trace_t;       /* ARR_TRACE: ntrace proof arrival times, seconds from the start,
                            nondecreasing, already divided by rate_scale (owned). The run
                            replays the first ceil(partitions / partitions_per_proof) */
  int64_t ntrace;

  /* run */
  int64_t warmup;        /* default 0; < partitions */
  int warmup_auto;       /* run.warmup: auto: the simulator chooses the warm-up by MSER-5
                            from a pilot run (sim/pipe.h, sim_run); warmup is then 0 here */
  int64_t cooldown;      /* default 0: the window ends at the completion of partition
                            number partitions - cooldown (the last, by default); leaving
                            the drain of a closed backlog out of the statistics */
  int replications;      /* >= 1, default 1; with run.precision the first round */
  uint64_t seed;         /* default 1 */
  /* run.precision (sim/precision.h): replications are added, prec_batch at a time, until
   * the 95% CI half-width of every metric in prec_metrics is at most prec_target times its
   * mean, or prec_max replications have run. prec_target 0: off. */
  double prec_target;
  unsigned prec_metrics; /* bit 1 << run_metric (metrics.h) per metric */
  int prec_max, prec_batch;

  /* prover: (read by `measure`; ignored by the simulator) */
  char *prover_circuit;      /* may be NULL */
  int64_t prover_constraints; /* 0 when absent */
  int prover_precompute;      /* prover.precompute: 0 = off (default), -1 = auto, else the
                                 window in bits (2..24) of the precomputed bases */
} scenario;

/* Amdahl's time on a cores of a one-core time 1 with serial share s (a >= 1). */
static inline double phase__amdahl_time(double s, double a) { return a <= 1 ? 1 : s + (1 - s) / a; }

/* The batching rule (shared/DESIGN.md, "Batch scaling"), in one place for the simulator,
 * the synthetic executor of `measure` and the analytic models: a call of k partitions
 * takes the fixed part plus k draws of time, or, when the phase has batch.scale, the fixed
 * part plus scale[k-1] times one draw (beyond the list, the last multiplier grown in
 * proportion to k). With batch.serial the call of k partitions has a law of its own, so
 * its multiplier at the phase's threads t is scale[k-1] * amdahl(bserial[k-1], t) /
 * amdahl(serial, t): the draw is one partition's one-core time, and the phase runs at
 * one partition's law, so the call takes its own law's time alone on t cores. */
static inline double phase__batch_scale(const phase *ph, int k) {
  int j = k <= ph->nscale ? k : ph->nscale;
  double m = ph->scale[j - 1] * (k <= ph->nscale ? 1 : (double)k / ph->nscale);
  if (ph->bserial)
    m *= phase__amdahl_time(ph->bserial[j - 1], ph->threads) / phase__amdahl_time(ph->serial, ph->threads);
  return m;
}

/* Inline: the engine draws one at every phase start. */
static inline double phase_call_draw(const phase *ph, int k, gsl_rng *r) {
  double d = ph->has_fixed ? dist_draw(&ph->fixed, r) : 0;
  if (ph->nscale > 0) {
    d += phase__batch_scale(ph, k) * dist_draw(&ph->time, r);
  } else {
    for (int i = 0; i < k; i++) d += dist_draw(&ph->time, r);
  }
  return d;
}
/* The mean over runs of a phase's times against its distribution's: 1 + share (scale - 1)
 * with a run_mode (its slow mode at its share), else 1. */
static inline double phase_mode_mean(const phase *ph) {
  return ph->mode_share > 0 ? 1 + ph->mode_share * (ph->mode_scale - 1) : 1;
}
double phase_call_mean(const phase *ph, int k);

/* GPU memory (GiB) one GPU needs with `workers` workers running calls of `batch`
 * partitions, by the model's gpu_memory (0 without it). */
static inline double model_gpu_gib(const model *m, int workers, int batch) {
  return m->gpu_shared_gib + workers * (m->gpu_worker_gib + batch * m->gpu_part_gib);
}

/* The GPU memory bound of a configuration of s with `workers` workers per GPU and calls of
 * `batch` partitions: when s's model has gpu_memory, s has system.gpu_mem_gib, and one
 * GPU's need (model_gpu_gib) exceeds it, writes the reason into buf ("GPU memory: needs X
 * GiB per GPU (shared K + N workers x (W + B partitions x P)), over the M GiB of a GPU":
 * the need to 0.1 GiB, the model's and the scenario's figures as given) and returns 1;
 * else returns 0 and leaves buf alone. plan rules such a configuration out; simulate and
 * validate warn; report_bottleneck says when the worker it advises adding does not fit. */
int scn_gpu_mem_over(const scenario *s, int workers, int batch, char *buf, size_t n);
/* Calls of s->batch > 1 partitions on a calibrated model (one with provenance) some of
 * whose cpu or gpu phases have no batch.scale: each such phase then takes batch draws of
 * one partition's time, which calibrate did not measure. Writes the phases and the reason
 * into buf and returns 1; else returns 0. simulate and validate warn. */
int scn_batch_unmeasured(const scenario *s, char *buf, size_t n);

/* Speed (work per second) of a phase that gets a cores: 1 at a = threads without a law;
 * with a law, the speedup over one core (the work is then one-core seconds). */
double phase_speed(const phase *ph, double a);

/* Threads per worker under the scenario's thread policy, for cores cores (the scenario's
 * cpu_cores in the simulator; at most the machine's in `measure`). */
int scn_worker_threads(const scenario *s, int cores);

#endif
