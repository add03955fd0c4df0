/* Inference from a proving daemon's own coarse timing logs (`provesim infer`): the daemon
 * logged, per call, the wall time of a locked call (and maybe the wait for the lock, the
 * start time, the worker); the operator knows the GPU compute per partition. The locked
 * call hides CPU setup and cleanup inside the lock. infer_run fits that hidden CPU work
 * (and any time the workers spend outside the lock between calls) by simulation-based
 * inference: the engine (pipe.h) runs the model setup (cpu) -> gpu -> cleanup (cpu) under
 * a mutex over all three, and Nelder-Mead moves the parameters until the simulated
 * quantiles of the logged quantities match the observed ones, with common random numbers
 * so that the objective is smooth. A moving-block bootstrap of the log records (refits
 * with fresh simulation seeds) gives the confidence intervals.
 *
 * Identifiability: setup and cleanup both lie inside the lock, and every quantity a log
 * of this kind can hold depends on their sum only, so the sum is estimated and the split
 * is not; the model written puts all of it in setup (a convention infer_model states). */
#ifndef PROVESIM_INFER_H
#define PROVESIM_INFER_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "dist.h"
#include "model.h"
#include "par.h"

#define INFER_MAX_RECORDS 10000000L /* records a log may hold */
#define INFER_MIN_RECORDS 20        /* records a fit needs */
#define INFER_MAX_LINE (1 << 20)    /* bytes per line, the newline excluded */
#define INFER_MAX_WORKERS 100000    /* distinct values of the worker column */

typedef enum infer_fmt { INFER_FMT_AUTO, INFER_FMT_CSV, INFER_FMT_JSONL } infer_fmt;

/* Where each quantity is in the log: CSV header names or JSON keys (borrowed). call is
 * required; the others are NULL when not logged. unit: seconds per logged unit (1e-3 for
 * milliseconds), unit_name its name for messages. With wait_in_call, a record whose call
 * is shorter than its wait is refused (the call column then includes the wait). */
typedef struct infer_cols {
  const char *call, *wait, *start, *worker;
  double unit;
  const char *unit_name;
  int wait_in_call;
  infer_fmt format;
} infer_cols;

/* The records of a log, in seconds, sorted by start time when it is logged (stably: ties
 * keep file order), in file order otherwise. wait, start and worker are NULL when not
 * logged; worker holds dense ids in order of first appearance. */
typedef struct infer_log {
  size_t n;
  double *call, *wait, *start;
  int *worker;
  int nworkers;
  const char *format; /* "csv" or "jsonl" (static) */
} infer_log;

/* Reads path. PS_EINPUT with e naming file:line:col, the column and the expectation (a
 * missing column, a value that is not a number, a line over INFER_MAX_LINE bytes, an empty
 * file, fewer than INFER_MIN_RECORDS or more than INFER_MAX_RECORDS records, a file that is
 * not a regular file). On success the caller frees *out with infer_log_free; on failure
 * *out is left empty. */
int infer_log_read(const char *path, const infer_cols *cols, infer_log *out, ps_err *e);
void infer_log_free(infer_log *l); /* accepts an empty log */

/* What the operator knows. */
typedef struct infer_opts {
  int workers;            /* per GPU, >= 1 */
  int gpus;               /* >= 1; the log holds the calls of every worker of every GPU */
  int cores;              /* CPU cores; 0: enough that no CPU work ever waits for one */
  double gpu_lo, gpu_hi;  /* GPU compute per partition (s): uniform on [lo, hi], or the
                             constant lo when lo == hi; lo > 0 */
  double util;            /* observed GPU utilization 0..1, or NAN when not known */
  double util_sd;         /* how far off that figure may be (the fit's weight), e.g. 0.02 */
  int call_has_wait;      /* the call column includes the wait for the lock (the lock is
                             taken inside the logged call); 0: it is the locked time only */
  int boot;               /* bootstrap refits (0: no confidence intervals) */
  uint64_t seed;
  int threads;            /* bootstrap refits in parallel; 0: one per core */
  par_tick_fn progress;   /* NULL, or called on the caller's thread with the fits done (out
                             of 1 + boot) */
  void *progress_ctx;
} infer_opts;

/* An estimate with its 95% bootstrap interval (lo, hi NAN without a bootstrap). */
typedef struct infer_ci {
  double est, lo, hi;
} infer_ci;

/* The time a worker spends outside the lock between calls: none (assumed: no start
 * times, waits or utilization tell otherwise, or the start times show no gaps), a free
 * parameter of the fit (start times, waits or the utilization show it, but the log does
 * not say whose call is whose), or seen directly in the gaps between a worker's calls. */
enum { INFER_OUT_NONE, INFER_OUT_FREE, INFER_OUT_SEEN };

/* One what-if: the fitted model with `workers` per GPU and the lock over the whole call
 * (narrow 0) or over the GPU phase only (narrow 1). */
typedef struct infer_whatif {
  int workers, narrow;
  double util, pps, call_s, wait_s;
} infer_whatif;

#define INFER_NQ 9 /* the deciles 10%..90% */

typedef struct infer_result {
  size_t n;                /* records */
  double gpu_mean;         /* GPU compute per partition, s (the given mean) */
  /* The parameters. */
  infer_ci cpu_lock;       /* CPU work inside the lock per call (setup + cleanup), mean, s */
  infer_ci cpu_cv;         /* its coefficient of variation (lognormal) */
  int outside;             /* INFER_OUT_*: how the time outside the lock was found */
  infer_ci outside_s;      /* its mean, s (0 with INFER_OUT_NONE) */
  dist outside_dist;       /* its distribution (INFER_OUT_FREE: lognormal, cv 1 assumed;
                              INFER_OUT_SEEN: fitted to the gaps; owned) */
  double gap_mean;         /* observed mean gap between a worker's calls, s; NAN when the
                              log cannot tell (no start times, workers or whole calls) */
  const char *outside_why; /* with INFER_OUT_NONE, why (a static sentence); else NULL */
  /* What the log held and what the fitted model gives for it. */
  int has_wait, has_start, has_util;
  double obs_q[INFER_NQ], sim_q[INFER_NQ], obs_mean, sim_mean;      /* the call column */
  double obs_wq[INFER_NQ], sim_wq[INFER_NQ], obs_wmean, sim_wmean;  /* waits (has_wait) */
  double obs_pps, sim_pps;  /* calls per second (has_start; sim_pps always) */
  double obs_util;          /* given, or NAN */
  /* Per call, means (s), from the fitted model at the logged configuration: the logged
   * time = wait + CPU inside the lock + GPU compute (the wait only when the call column
   * includes it). */
  double logged_s, wait_s;
  infer_ci util;           /* true GPU utilization now (simulated; mean over GPUs) */
  infer_ci narrow_util;    /* the lock narrowed to the GPU phase, same workers */
  infer_ci narrow_gain;    /* throughput with the narrow lock / now */
  infer_whatif *grid;      /* owned (infer_result_free): workers 1..max(4, workers), both locks */
  int ngrid;
  /* How the fit went. */
  int nparams, nstats, evals;
  size_t sim_calls;        /* simulated calls per evaluation */
  int block;               /* bootstrap block length, records */
  int boot_done;
  double distance;         /* the objective at the estimate (a chi-square-like sum) */
} infer_result;

/* Fits log under o. PS_OK, or PS_EINPUT when the inputs cannot be fitted (the given GPU
 * compute does not fit inside the logged calls, start times that do not advance). The
 * result is the same whatever o->threads is. Caller frees with infer_result_free. */
int infer_run(const infer_log *log, const infer_opts *o, infer_result *out, ps_err *e);
void infer_result_free(infer_result *r);

/* "well identified" (95% CI within +-10% of the estimate), "weakly identified" (within
 * +-50%), "not identified" (wider, or no bootstrap). */
const char *infer_identification(const infer_ci *c);

/* The fitted model, named name: phases setup (cpu, lognormal: all the CPU work inside the
 * lock, by convention), gpu (the given compute), cleanup (cpu, 0 s), and outside (none,
 * the time between calls) when it was fitted above 0; scopes call (setup..cleanup) and
 * kernels (gpu). source says what it was inferred from. Caller frees with
 * scn_model_free. */
model *infer_model(const infer_result *r, const infer_opts *o, const char *name, const char *source);

#endif
