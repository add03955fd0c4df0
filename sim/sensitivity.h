/* Sensitivity (`provesim sensitivity`, docs/whatif.md): how much a metric moves when one
 * input moves by ±delta, for every phase's time and for the system's counts and the
 * arrival rate, each effect with the 95% CI of its paired per-replication differences.
 * Common random numbers: every perturbed run uses the base run's seed and replication
 * streams, and a phase's time is scaled draw by draw (dist_scale), so the streams stay in
 * step and the differences carry little noise. Runs go through par_for, one simulation per
 * thread, and the result does not depend on the thread count. */
#ifndef PROVESIM_SENSITIVITY_H
#define PROVESIM_SENSITIVITY_H

#include "metrics.h"
#include "model.h"
#include "util.h"

typedef enum sens_kind { SENS_PHASE, SENS_SYSTEM } sens_kind;

/* One side (-delta or +delta) of one input. */
typedef struct sens_side {
  int ok;           /* 0: this side was not run (why says why) */
  double input;     /* the input's value on this side */
  double value;     /* the metric, mean over replications */
  double effect;    /* mean of (perturbed - base) over replications */
  double ci95;      /* 95% half-width of that mean (NaN with one replication) */
  char why[1024];
} sens_side;

typedef struct sens_input {
  char name[160];   /* "phase NAME mean", "system.workers_per_gpu", ... */
  char key[160];    /* phase NAME, or the key path the move was made through */
  sens_kind kind;
  int integer;      /* moved by whole steps: max(1, round(delta x value)) */
  double base_input;
  sens_side low, high;
} sens_input;

typedef struct sens_result {
  scenario *s;      /* the base scenario (owned) */
  run_metric metric;
  double delta;
  int nreps;
  double base, base_ci95; /* the metric in the base run, mean and 95% half-width */
  sens_input *in;   /* nin inputs, sorted by the larger |effect| of their sides, largest
                       first (input order among equals) */
  int nin;
  int64_t runs;     /* simulations run (base included) */
} sens_result;

/* Loads the scenario at path with the overrides sets (borrowed), then each perturbation of
 * it, and simulates all of them (threads at once, 0: one per core), each with
 * run.replications replications (run.precision is not applied). delta is in (0, 1). A
 * perturbation the loader refuses (a count at its bound, cores fewer than a phase wants) is
 * a side with ok = 0 and the loader's message. Returns PS_OK and *out (free with
 * sens_free), or PS_EINPUT / PS_ERR with e filled. */
int sens_run(const char *path, const char *const *sets, int nsets, run_metric metric, double delta, int threads,
             sens_result **out, ps_err *e);

void sens_free(sens_result *r); /* accepts NULL */

#endif
