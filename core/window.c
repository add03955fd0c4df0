/* The window rule of window.h, written once. */
#include "window.h"

#include <math.h>

void win_init(win *w, int64_t partitions, int64_t warmup, int64_t cooldown) {
  w->warmup = warmup;
  w->end_at = partitions - cooldown;
  w->done = 0;
  w->t0 = warmup == 0 ? 0.0 : NAN;
  w->t1 = NAN;
}

int win_complete(win *w, double t, int64_t k) {
  int64_t before = w->done;
  int f = 0;
  w->done += k;
  if (isnan(w->t0) && before < w->warmup && w->done >= w->warmup) {
    w->t0 = t;
    f |= WIN_OPENED;
  }
  if (!isnan(w->t0) && isnan(w->t1) && before < w->end_at && w->done >= w->end_at) {
    w->t1 = t;
    f |= WIN_CLOSED;
  }
  return f;
}

double win_length(const win *w) { return w->t1 - w->t0; }

int win_check(const win *w, const char *what, ps_err *e) {
  if (!isnan(w->t0) && !isnan(w->t1) && w->t1 > w->t0) return PS_OK;
  return ps_fail(e, PS_EINPUT,
                 "%s%sthe measurement window (from the %lld-th completion to the %lld-th) has zero length: lower "
                 "run.warmup or run.cooldown, or raise workload.partitions",
                 what ? what : "", what ? ": " : "", (long long)w->warmup, (long long)w->end_at);
}

double win_busy_share(const win *w, ivl *v, size_t n) {
  n = ivl_merge(v, n);
  return ivl_clip_len(v, n, w->t0, w->t1) / win_length(w);
}
