/* The analytic figures that `estimate` puts beside a simulation: the call read as the
 * stations of a closed network (est_decompose), then the deterministic closed form, the
 * machine-repairman queue, exact MVA, the asymptotic bounds and the offered load, each
 * with the assumptions it needs and how far the simulation is from it. The formulas live
 * in analytic.h; this module decides which apply and with what inputs. */
#ifndef PROVESIM_ESTIMATE_H
#define PROVESIM_ESTIMATE_H

#include "util.h"
#include "model.h"
#include "analytic.h"
#include "report.h"

/* The call seen as stations of a closed network, from the phases' mean times (s). */
typedef struct est_decomp {
  int sequential;
  int has_lock;       /* a lock region (mutex scope, or an exclusive GPU's phases) */
  double t_locked;    /* per call, inside the lock (DAG: from its request to its release) */
  double t_free;      /* per call, outside it */
  double t_locked_max, t_free_max; /* DAG: the uncontended hold (sequential: = t_locked) */
  double t_gpu;       /* per call, GPU phases */
  double cpu_out;     /* sequential: CPU time per call outside the lock */
  double delay_out;   /* sequential: other time outside the lock */
  double core_s;      /* core-seconds per call over all CPU phases */
  int cpu_threads;    /* the most threads a CPU phase outside the lock wants */
  int lock_exp;       /* the lock region is one exponential phase, no fixed part, batch 1 */
  int cpu_exp;        /* outside the lock, one exponential CPU phase, no fixed part, batch 1 */
  int ncpu_out;
  int cpu_queue;      /* the CPU outside the lock is a queue (not enough cores) */
  int cpu_servers;    /* its servers */
} est_decomp;

/* Fills d from s and its assumptions a (both borrowed). */
void est_decompose(const scenario *s, const an_assume *a, est_decomp *d);

/* One analytic model's answer, and the simulation against it. */
typedef struct est_row {
  const char *name;   /* "deterministic", "repairman", "mva", "bounds", "offered" */
  char label[96];
  const char *status; /* "exact", "approximate", "bounds" */
  char why[200];
  double x, util;     /* partitions/s, GPU utilization per GPU (NAN for bounds) */
  double x_lo, x_hi;  /* bounds: partitions/s */
  /* Filled by est_run, against the simulated throughput. Bounds: inside (within the CI)
   * and inside_strict (the mean itself). Others: gap = (simulated - x) / x, and
   * within_ci when |simulated - x| is within the CI. */
  int inside, inside_strict;
  double gap;
  int within_ci;
} est_row;

#define EST_MAX_ROWS 8

typedef struct est_result {
  an_assume a;
  est_decomp d;
  est_row rows[EST_MAX_ROWS];
  int nrows;
  /* The machine repairman's inputs and solution, when it applies (has_repairman). */
  int has_repairman;
  int rp_customers, rp_servers;
  double rp_think_s, rp_service_s;
  an_repairman rp;
  /* The simulation (est_run only; zeroed by est_models). */
  int has_sim;
  report_summary sim;
} est_result;

/* The analytic rows for s (borrowed), without simulating. Never fails: a model that cannot
 * be computed is left out. Free with est_free. */
void est_models(const scenario *s, est_result *out);

/* Simulates s (borrowed) with `threads` replications at once (0: one per core), then
 * est_models and each row against the simulation. Returns PS_OK with *out filled (free
 * with est_free), or the simulation's error code with e filled and *out zeroed. */
int est_run(const scenario *s, int threads, est_result *out, ps_err *e);

/* Frees what r holds; accepts a zeroed r. */
void est_free(est_result *r);

/* The stability of s's arrivals (s borrowed): the offered load (report_offered_pps)
 * against the capacity, which is the upper throughput bound of est_models' "bounds" row,
 * the one `estimate` prints (NaN when that row does not apply). unstable when the offered
 * load reaches it. A closed backlog gives has = 0. Needs no simulation. */
void est_stability(const scenario *s, report_stability *out);

#endif
