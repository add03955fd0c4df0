/* The what-if logic beneath `sweep` and `simulate`'s "why" section: --vary value lists,
 * the sweep grid (checked value by value, built in a fixed order and simulated with
 * par_for, one thread per point, so results depend only on the grid), and the saturation
 * point of GPU utilization against workers per GPU. cli/cli_whatif.c parses the argv and
 * renders what these functions return. */
#ifndef PROVESIM_WHATIF_H
#define PROVESIM_WHATIF_H

#include <stddef.h>

#include "util.h"
#include "model.h"
#include "par.h"
#include "report.h"

/* The most points of a grid, and the most values of one --vary. */
#define WHATIF_MAX_POINTS 1000000


/* ---------------------------------------------------------------- --vary values */

/* One varied key and its values, in the order given. */
typedef struct whatif_vary {
  char *key;
  char **vals;
  int nvals;
} whatif_vary;

/* Parses "KEY=VALUES" (arg borrowed) into v:
 *   1..8            integers 1 to 8 (a step is optional for integers: 1..9:2)
 *   1.0..2.0:0.25   1.0, 1.25, ..., 2.0 (non-integers need a step; at most
 *                   WHATIF_MAX_POINTS values)
 *   a,b,c           a list; commas inside {...}, [...] or quotes do not split
 *   a;{x: 1, y: 2}  with a ';' outside brackets and quotes, ';' separates instead
 * Values are trimmed of spaces. The values are not checked against the scenario (see
 * whatif_sweep_new). Returns PS_OK with v filled (free with whatif_vary_free), or PS_EINPUT
 * with e filled ("--vary ARG: why") and v left empty. */
int whatif_vary_parse(const char *arg, whatif_vary *v, ps_err *e);

/* Frees what v holds and empties it; accepts an empty v. */
void whatif_vary_free(whatif_vary *v);

/* ---------------------------------------------------------------- sweeps */

/* One point of the grid and, once run, its result. */
typedef struct whatif_point {
  char **own;          /* "KEY=VALUE" per varied key, in --vary order */
  const char **sets;   /* the base overrides then own[]; the base strings are borrowed */
  scenario *s;         /* the point's scenario, once run (NULL when its load failed) */
  report_summary sum;  /* valid when rc == PS_OK */
  int rc;              /* PS_OK, or the load's or the simulation's error code */
  ps_err err;
  char limit[512];     /* report_bottleneck's line */
} whatif_point;

typedef struct whatif_sweep {
  const char *path;    /* borrowed */
  const char *const *sets; /* borrowed: the base overrides */
  const whatif_vary *vs; /* borrowed */
  int nv, nsets;       /* varied keys; base overrides */
  long npts;
  whatif_point *pts;   /* NULL until whatif_sweep_run; then point i (grid order) */
} whatif_sweep;

/* Loads the scenario at path with the base overrides sets[0..nsets) and then with each
 * value of each vs[k] on its own, so a bad value is reported as such before anything
 * runs; then sizes the grid, the cartesian product of the vs (at most WHATIF_MAX_POINTS
 * points; point i's first --vary varies slowest, its last fastest). No point is held: a
 * point is made from its index (whatif_point_make). path, sets and vs are borrowed and
 * must outlive *out. Returns PS_OK with *out (free with whatif_sweep_free), or PS_EINPUT
 * / PS_ERR with e filled (a value's message names it as "--vary KEY=VALUE: ...") and
 * *out NULL. */
int whatif_sweep_new(const char *path, const char *const *sets, int nsets, const whatif_vary *vs, int nv,
                     whatif_sweep **out, ps_err *e);

/* The value of varied key k at point i (borrowed from sw->vs). */
const char *whatif_grid_value(const whatif_sweep *sw, long i, int k);

/* Point i of the grid, not yet run: its overrides (own, sets). Clear with
 * whatif_point_clear. */
void whatif_point_make(const whatif_sweep *sw, long i, whatif_point *p);

/* Loads and simulates a made point with one thread (so the result depends only on the
 * point): fills p->s, p->sum and p->limit, or p->err; returns and sets p->rc. Any thread
 * may run any point. */
int whatif_point_run(const whatif_sweep *sw, whatif_point *p);

/* Frees what a made (and perhaps run) point holds. */
void whatif_point_clear(const whatif_sweep *sw, whatif_point *p);

/* "point I (KEY=VALUE ...): why", the message of a failed point (ps_fail into e). */
int whatif_point_fail(const whatif_sweep *sw, const whatif_point *p, long i, ps_err *e);

/* Makes and simulates every point into sw->pts, `jobs` at once (0: one per core), each
 * with one thread, so the results do not depend on jobs; every point stays in memory
 * (sweep streams its points with sim/farm.h instead). tick (may be NULL) is par_for's
 * progress callback, on the caller's thread. Returns PS_OK, or the code of the first
 * point that failed with e filled ("point I (KEY=VALUE ...): why"). */
int whatif_sweep_run(whatif_sweep *sw, int jobs, par_tick_fn tick, void *tick_ctx, ps_err *e);

/* Frees sw and its points; accepts NULL. */
void whatif_sweep_free(whatif_sweep *sw);

/* The value of varied key k at point p (the text after '=' of its override). */
const char *whatif_point_value(const whatif_point *p, int k);

/* ---------------------------------------------------------------- saturation */

#define WHATIF_SAT_MAX 64

/* GPU utilization against workers per GPU, from short simulations (fewer partitions and
 * replications than the scenario asks for), and the saturation point: the smallest
 * worker count beyond which no larger count raises utilization by more than 1 point. */
typedef struct whatif_sat {
  int nworkers;                     /* counts simulated: 1..nworkers */
  double util[WHATIF_SAT_MAX + 1];  /* util[w], mean over GPUs and replications */
  double tput[WHATIF_SAT_MAX + 1];  /* partitions per second */
  int saturation;                   /* workers per GPU at the saturation point */
} whatif_sat;

/* Simulates s (borrowed) with workers_per_gpu = 1..max_workers (capped at WHATIF_SAT_MAX;
 * 0 picks max(8, 2 x the scenario's)). Returns PS_OK, or PS_EINPUT with e filled. */
int whatif_saturation(const scenario *s, int max_workers, whatif_sat *out, ps_err *e);

/* One line for simulate's "why" section, e.g. "saturation: GPU utilization stops rising
 * beyond 3 workers per GPU (78.1%; 8 workers: 78.4%); this scenario runs 2". Written into
 * buf (n bytes) and returned; on failure the line says why. */
const char *whatif_saturation_line(const scenario *s, char *buf, size_t n);

/* For a scenario whose GPU is shared (system.gpu_sharing: shared): one line for simulate's
 * "why" section that sets short runs of it, shared and exclusive, side by side, when they
 * differ by 1 pp of utilization or 1% of throughput or more; else an empty line. Written
 * into buf (n bytes) and returned. */
const char *whatif_sharing_line(const scenario *s, char *buf, size_t n);

#endif
