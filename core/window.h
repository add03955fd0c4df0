/* The measurement window and GPU utilization: the one definition that `simulate`,
 * `measure` and `validate` all use (docs/design.md, "Measurement window and
 * utilization").
 *
 * The window of a replication opens at the completion of partition number `warmup` (at
 * time 0 when warmup is 0) and closes at the completion of partition number
 * `partitions - cooldown`. Completions are counted in time order; a call of k
 * partitions completes all k at its end. GPU utilization is the share of the window
 * during which at least one kernel (measure) or GPU phase (simulator) ran on that GPU:
 * the union of its busy intervals, clipped to the window, over the window's length. */
#ifndef PROVESIM_WINDOW_H
#define PROVESIM_WINDOW_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include "ivl.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags win_complete returns. */
#define WIN_OPENED 1 /* this completion opened the window */
#define WIN_CLOSED 2 /* this completion closed it */

/* A window being found from completions as they happen (the simulator) or in time order
 * (measure, validate). */
typedef struct win {
  int64_t warmup, end_at; /* opens at completion number warmup, closes at end_at */
  int64_t done;           /* partitions completed so far */
  double t0, t1;          /* NaN until opened / closed */
} win;

/* Starts a window rule for a run of `partitions` partitions. */
void win_init(win *w, int64_t partitions, int64_t warmup, int64_t cooldown);

/* Counts k partitions completed at time t (completions must come in time order). Returns
 * WIN_OPENED and/or WIN_CLOSED when this completion opened or closed the window. */
int win_complete(win *w, double t, int64_t k);

/* 1 while the window is open (after it opened, before it closed). Inline: the engine asks
 * at every completion. */
static inline int win_is_open(const win *w) { return !isnan(w->t0) && isnan(w->t1); }

/* PS_OK when the window closed with a positive length; otherwise PS_EINPUT with the
 * message every command prints (prefixed by `what`, e.g. a file name, when not NULL). */
int win_check(const win *w, const char *what, ps_err *e);

/* Length of the window, in seconds. */
double win_length(const win *w);

/* The share of the window covered by the union of the intervals v[0..n-1] (sorted and
 * merged in place, so v is modified): a GPU's utilization from its busy intervals. */
double win_busy_share(const win *w, ivl *v, size_t n);

#ifdef __cplusplus
}
#endif

#endif
