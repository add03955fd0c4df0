/* The discrete-event simulation of a scenario: workers pinned to GPUs take calls of
 * `batch` partitions from a shared queue and run the model's phase DAG on cpu/gpu/pcie/none
 * resources, holding their GPU's mutex over the scope region. One replication per GSL RNG
 * stream; replications run in parallel threads and results do not depend on how many. */
#ifndef PROVESIM_PIPE_H
#define PROVESIM_PIPE_H

#include <stdint.h>
#include <stdio.h>

#include "../common/util.h"
#include "model.h"

#define SIM_MAX_GPUS 1024

/* Metrics of one replication, over its measurement window (shared/DESIGN.md). */
typedef struct sim_metrics {
  int ngpus;
  double *gpu_util;         /* ngpus entries; owned (freed by sim_result_free / sim_metrics_free) */
  double gpu_util_mean;     /* mean over all GPUs */
  double throughput_pps;    /* partitions per second */
  double lat_mean, lat_p50, lat_p95, lat_p99; /* partition latency, s */
  double mutex_wait_mean, mutex_wait_p99;     /* per call, s */
  double mutex_held_mean;   /* per call, s: what a log timing the locked region reports */
  double call_mean, call_p99;                  /* time inside the prove call, s */
  int has_proofs;           /* arrivals: proof latency (first arrival to last partition done) */
  double proof_lat_mean, proof_lat_p50, proof_lat_p95, proof_lat_p99;
  double cpu_util;          /* core-seconds used / (cores * window) */
  /* Why the GPUs idled, as fractions of GPU-time in the window (mean over GPUs). "No GPU
   * phase running" includes the share 1 - busy of a running GPU phase (phase.busy). */
  double idle_mutex_cpu;    /* mutex held but no GPU phase running */
  double idle_no_holder;    /* mutex free (or no mutex) and no GPU phase running */
  double idle_no_work;      /* part of idle_no_holder with a worker of that GPU waiting for
                               work (arrivals, or the end of a closed backlog); the rest of
                               idle_no_holder is idle while every worker is busy elsewhere
                               (CPU phases, queues) */
  double window_s;
  int64_t completed;        /* partitions completed inside the window */
  int64_t events;           /* events processed (whole run) */
} sim_metrics;

/* A span, as the DESIGN's spans format has it. Phase and mutex spans have worker >= 0;
 * names are borrowed from the scenario (or static strings). */
typedef struct sim_span {
  int rep, gpu, worker;
  int64_t call;
  const int64_t *partitions; int npartitions; /* borrowed, valid during the callback */
  const char *phase;        /* phase name, "mutex_wait" or "mutex_held" */
  const char *resource;     /* "cpu", "gpu", "pcie", "none" */
  double t0, t1;
} sim_span;

typedef void (*sim_span_fn)(void *ctx, const sim_span *sp);

typedef struct sim_opts {
  int threads;              /* replications run in parallel; 0 = number of cores */
  sim_span_fn on_span;      /* NULL = no spans (memory stays flat in partitions) */
  void *span_ctx;
  /* When on_span is set and threads > 1, spans of each replication are buffered and
   * delivered in replication order, so the stream is the same whatever `threads` is. */
} sim_opts;

typedef struct sim_result {
  int nreps;
  sim_metrics *reps;        /* nreps entries, in replication order */
  int64_t events;           /* sum over replications */
  double wall_s;            /* wall time of the run */
} sim_result;

/* Run all replications of s. On success *out is owned by the caller (sim_result_free).
 * Returns PS_OK, or PS_EINPUT when the scenario cannot run (e.g. a phase wants more
 * threads than cpu_cores with cpu_sharing: fifo). */
int sim_run(const scenario *s, const sim_opts *o, sim_result **out, ps_err *e);

/* Run one replication (rep selects the RNG stream). Used by sim_run and by tests. */
int sim_run_rep(const scenario *s, int rep, sim_span_fn on_span, void *ctx, sim_metrics *m, ps_err *e);

void sim_result_free(sim_result *r);
void sim_metrics_free(sim_metrics *m);

/* The RNG seed of replication rep of a scenario seeded with seed (splitmix64). */
uint64_t sim_rep_seed(uint64_t seed, int rep);

#endif
