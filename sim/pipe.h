/* The discrete-event simulation of a scenario: workers pinned to GPUs take calls of
 * `batch` partitions from a shared queue and run the model's phase DAG on cpu/gpu/pcie/none
 * resources, holding their GPU's mutex over the scope region. One replication per GSL RNG
 * stream; replications run in parallel threads and results do not depend on how many. */
#ifndef PROVESIM_PIPE_H
#define PROVESIM_PIPE_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"
#include "metrics.h"
#include "par.h"
#include "model.h"
#include "mser.h"

/* A span, as the DESIGN's spans format has it. Phase and mutex spans have worker >= 0;
 * names are borrowed from the scenario (or static strings). */
typedef struct sim_span {
  int rep, gpu, worker;
  int64_t call;
  const int64_t *partitions; int npartitions; /* borrowed, valid during the callback */
  const char *phase;        /* phase name, "mutex_wait" or "mutex_held" */
  const char *resource;     /* "cpu", "gpu", "pcie", "none" */
  int threads;              /* cpu phases: the threads the phase wants; 0 otherwise */
  double t0, t1;
} sim_span;

typedef void (*sim_span_fn)(void *ctx, const sim_span *sp);

#define SIM_SPAN_BUFFER ((size_t)32 << 20)

typedef struct sim_opts {
  int threads;              /* replications run in parallel; 0 = number of cores */
  sim_span_fn on_span;      /* NULL = no spans (memory stays flat in partitions) */
  void *span_ctx;
  /* When on_span is set, spans are delivered in replication order, so the stream is the
   * same whatever `threads` is; replications running ahead of the first unfinished one
   * buffer theirs in at most SIM_SPAN_BUFFER bytes together (sim/spanord.h), so memory
   * does not grow with the number of partitions. When the run fails, the spans delivered
   * so far are a prefix of the stream: the caller discards them. */
  par_tick_fn progress;     /* NULL, or called on the caller's thread with the number of
                               replications done (a progress bar) */
  void *progress_ctx;
} sim_opts;

/* Run all replications of s. On success *out is owned by the caller (sim_result_free).
 * Returns PS_OK, or PS_EINPUT when the scenario cannot run (e.g. a phase wants more
 * threads than cpu_cores with cpu_sharing: fifo). */
int sim_run(const scenario *s, const sim_opts *o, sim_result **out, ps_err *e);

/* Run one replication (rep selects the RNG stream). Used by sim_run and by tests. With
 * run.warmup: auto it first runs the pilot sim_run runs (below), once per call. */
int sim_run_rep(const scenario *s, int rep, sim_span_fn on_span, void *ctx, sim_metrics *m, ps_err *e);

/* run.warmup: auto (docs/design.md, "Warm-up from the data"): sim_run first runs
 * replication 0's stream with no warm-up as a pilot, takes its partition latencies in
 * completion order (up to partition partitions - cooldown) and lets MSER-5 choose the
 * warm-up every replication then uses (sim_result.warmup): sim_mser5 (core/mser.h). */


/* Replication rep draws from a GSL RNG seeded with ps_seed_mix(scenario seed, rep). */

#endif
