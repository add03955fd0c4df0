/* The mutex's own time (model.mutex_overhead, calib.h's calib_mutex) from the calibration
 * runs' spans: per hold of the mutex (a mutex_held span), its region is the largest of the
 * model's scopes whose phases all ran inside it in that call (a phase outside the region
 * may run inside a hold too, as prep beside ntt_h); pre = the region's first phase's start
 * - the acquire, post = the release - its last one's end. The medians over every such hold
 * of every file, each worker's warm-up calls left out as calib_model leaves them.
 *
 * Each file is read as a stream twice (the first pass ranks each worker's calls); the
 * second keeps, per (rep, gpu, worker), the spans of its current call only, and settles a
 * call when the worker's next one starts, so memory grows with the workers, not the calls.
 * Files whose spans come in order of end (simulate's) settle the same way: a call's spans
 * are all written before the worker's next call starts. */
#include "calib.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

#include "scn.h"
#include "spans.h"
#include "strtab.h"
#include "util.h"

#define MX_CALL_SPANS 32 /* phase spans of one call kept; a call with more is left out */
#define MX_WORKERS_MAX (1u << 16) /* workers followed per file (about 0.6 KB each); more are left out */
#define MX_HOLDS_MAX (1u << 20) /* holds kept over all files (the medians' sample, 16 MB) */

typedef struct mx_worker {
  int64_t call;
  int n, over, held;
  double h0, h1;            /* the call's mutex_held span */
  double t0[MX_CALL_SPANS], t1[MX_CALL_SPANS];
  int ph[MX_CALL_SPANS];    /* the spans' phases (indices into the model's) */
} mx_worker;

typedef struct mx_ctx {
  const model *m;
  calib__ranks rk;
  int pass2;
  strtab tab;               /* "rep gpu worker" */
  mx_worker *w;
  size_t nw;
  double *pre, *post;
  size_t n, cap;
} mx_ctx;

static void mx_settle(mx_ctx *c, mx_worker *w) {
  if (!w->held || w->over || c->n >= MX_HOLDS_MAX) goto out;
  double lo = 0, hi = 0;
  int best = 0; /* the phases of the largest scope inside the hold */
  for (int k = 0; k < c->m->nscopes; k++) {
    const scope *sc = &c->m->scopes[k];
    int np = sc->to - sc->from + 1, found = 0, inside = 1;
    double a = 0, b = 0;
    for (int i = 0; i < w->n && inside; i++) {
      if (w->ph[i] < sc->from || w->ph[i] > sc->to) continue;
      if (w->t0[i] < w->h0 || w->t1[i] > w->h1) inside = 0;
      if (!found || w->t0[i] < a) a = w->t0[i];
      if (!found || w->t1[i] > b) b = w->t1[i];
      found++;
    }
    if (inside && found == np && np > best) best = np, lo = a, hi = b;
  }
  if (best) {
    if (c->n == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 256;
      c->pre = xrealloc(c->pre, c->cap * sizeof *c->pre);
      c->post = xrealloc(c->post, c->cap * sizeof *c->post);
    }
    c->pre[c->n] = lo - w->h0;
    c->post[c->n++] = w->h1 - hi;
  }
out:
  w->n = w->over = w->held = 0;
}

static int mx_cb(void *ctx, const span_rec *r) {
  mx_ctx *c = ctx;
  if (r->kind != SPAN_PHASE || r->worker < 0 || !r->phase) return 0;
  if (!c->pass2) {
    calib__ranks_add(&c->rk, r->rep, r->gpu, r->worker, r->call);
    return 0;
  }
  if (!calib__ranks_kept(&c->rk, r->rep, r->gpu, r->worker, r->call)) return 0;
  int held = !strcmp(r->phase, "mutex_held"), p = held ? -1 : scn_phase_index(c->m, r->phase);
  if (!held && p < 0) return 0;
  char key[64];
  snprintf(key, sizeof key, "%d %d %d", r->rep, r->gpu, r->worker);
  int sid = strtab_id(&c->tab, key, MX_WORKERS_MAX);
  if (sid < 0) return 0; /* past MX_WORKERS_MAX workers: left out */
  size_t id = (size_t)sid;
  if (id >= c->nw) {
    size_t nn = id + 1;
    c->w = xrealloc(c->w, nn * sizeof *c->w);
    memset(c->w + c->nw, 0, (nn - c->nw) * sizeof *c->w);
    for (size_t i = c->nw; i < nn; i++) c->w[i].call = -1;
    c->nw = nn;
  }
  mx_worker *w = &c->w[id];
  if (w->call != r->call) {
    if (w->call >= 0) mx_settle(c, w);
    w->call = r->call;
  }
  if (held) {
    w->held = 1, w->h0 = r->t0, w->h1 = r->t1;
  } else if (w->n < MX_CALL_SPANS) {
    w->t0[w->n] = r->t0, w->t1[w->n] = r->t1, w->ph[w->n++] = p;
  } else {
    w->over = 1;
  }
  return 0;
}

int calib_mutex(const model *m, const char *const *files, int nfiles, const calib_read *rd, calib_mutex_report *out,
                ps_err *e) {
  memset(out, 0, sizeof *out);
  mx_ctx c = {.m = m};
  int rc = PS_OK;
  for (int f = 0; f < nfiles && rc == PS_OK; f++) {
    memset(&c.rk, 0, sizeof c.rk);
    c.rk.skip = rd->skip_calls;
    c.pass2 = 0;
    rc = spans_read(files[f], NULL, mx_cb, &c, e);
    if (rc == PS_OK) {
      c.pass2 = 1;
      rc = spans_read(files[f], NULL, mx_cb, &c, e);
      for (size_t i = 0; i < c.nw; i++)
        if (c.w[i].call >= 0) mx_settle(&c, &c.w[i]);
    }
    calib__ranks_free(&c.rk);
    strtab_free(&c.tab);
    c.tab = (strtab){0};
    free(c.w);
    c.w = NULL, c.nw = 0;
  }
  if (rc == PS_OK && c.n > 0) {
    out->holds = c.n;
    gsl_sort(c.pre, 1, c.n);
    gsl_sort(c.post, 1, c.n);
    out->acquire_s = gsl_stats_median_from_sorted_data(c.pre, 1, c.n);
    out->release_s = gsl_stats_median_from_sorted_data(c.post, 1, c.n);
    if (out->acquire_s < 0) out->acquire_s = 0;
    if (out->release_s < 0) out->release_s = 0;
  }
  free(c.pre);
  free(c.post);
  return rc;
}
