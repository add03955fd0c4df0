/* The timeline section of `provesim report` (cli_report.h): an excerpt of replication 0 on
 * GPU 0 from a spans file, read twice so memory stays bounded (first the calls' times, to
 * place the excerpt past the start-up; then the spans inside it): a lane for the GPU's
 * busy time and, per worker, lanes for its lock, its GPU and its CPU work. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_report.h"
#include "ivl.h"
#include "spans.h"
#include "svg.h"

#define TL_MAX_CALLS 512   /* calls of GPU 0 looked at to place the excerpt */
#define TL_MAX_SPANS 20000 /* spans drawn in the excerpt at most */
#define TL_MAX_WORKERS 8   /* workers of GPU 0 drawn (their lanes) at most */

typedef struct tl_span {
  int lane;
  double t0, t1;
  const char *color;
  char *name;
} tl_span;

typedef struct tl_ctx {
  /* pass 1: calls of replication 0 on GPU 0 */
  double cstart[TL_MAX_CALLS], cend[TL_MAX_CALLS];
  int nworkers, has_kernels;
  double tmin, tmax;
  /* pass 2: the excerpt */
  double a, b;
  tl_span *v;
  int n, dropped;
} tl_ctx;

static int tl_pass1(void *ctx, const span_rec *r) {
  tl_ctx *c = ctx;
  if (r->rep != 0 || r->gpu != 0) return 0;
  if (r->t0 < c->tmin) c->tmin = r->t0;
  if (r->t1 > c->tmax) c->tmax = r->t1;
  if (r->kind == SPAN_KERNEL) c->has_kernels = 1;
  if (r->kind != SPAN_PHASE || r->worker < 0) return 0;
  if (r->worker + 1 > c->nworkers) c->nworkers = r->worker + 1;
  if (r->call >= 0 && r->call < TL_MAX_CALLS) {
    if (!(r->t0 >= c->cstart[r->call])) c->cstart[r->call] = r->t0;
    if (!(r->t1 <= c->cend[r->call])) c->cend[r->call] = r->t1;
  }
  return 0;
}

/* Lanes, from the top: GPU 0 busy, then per worker its lock, GPU and CPU lanes. */
static int lane_of(const tl_ctx *c, const span_rec *r) {
  if (r->kind == SPAN_KERNEL) return 0;
  if (r->kind != SPAN_PHASE || r->worker < 0 || r->worker >= c->nworkers) return -1;
  int base = 1 + 3 * r->worker;
  if (!strncmp(r->phase, "mutex_", 6)) return base;
  if (!strcmp(r->resource, "gpu") || !strcmp(r->resource, "pcie")) return base + 1;
  return base + 2;
}

static void tl_add(tl_ctx *c, int lane, double t0, double t1, const char *color, const char *name) {
  if (c->n == TL_MAX_SPANS) {
    c->dropped++;
    return;
  }
  if (c->n % 256 == 0) c->v = xrealloc(c->v, ((size_t)c->n + 256) * sizeof *c->v);
  c->v[c->n++] = (tl_span){lane, fmax(t0, c->a), fmin(t1, c->b), color, xstrdup(name)};
}

static int tl_pass2(void *ctx, const span_rec *r) {
  tl_ctx *c = ctx;
  if (r->rep != 0 || r->gpu != 0 || r->t1 <= c->a || r->t0 >= c->b || r->kind == SPAN_MEMCPY) return 0;
  const char *col = "#999999";
  if (r->kind == SPAN_KERNEL) col = "#009E73";
  else if (!strcmp(r->phase, "mutex_held")) col = "#E69F00";
  else if (!strcmp(r->phase, "mutex_wait")) col = "#F0E442";
  else if (!strcmp(r->resource, "gpu")) col = "#009E73";
  else if (!strcmp(r->resource, "pcie")) col = "#CC79A7";
  else if (!strcmp(r->resource, "cpu")) col = "#0072B2";
  /* Without kernels, the GPU lane is the GPU phases of every worker, drawn or not. */
  if (r->kind == SPAN_PHASE && !c->has_kernels && !strcmp(r->resource, "gpu"))
    tl_add(c, 0, r->t0, r->t1, col, r->phase);
  int lane = lane_of(c, r);
  if (lane >= 0) tl_add(c, lane, r->t0, r->t1, col, r->kind == SPAN_KERNEL ? r->name : r->phase);
  return 0;
}

/* Share of [a, b] covered by the union of the lane's spans (lane < 0: every lock-held span). */
static double tl_cover(const tl_ctx *c, int lane) {
  ivl *v = xcalloc((size_t)c->n + 1, sizeof *v);
  size_t k = 0;
  for (int i = 0; i < c->n; i++)
    if (lane >= 0 ? c->v[i].lane == lane : !strcmp(c->v[i].name, "mutex_held")) v[k++] = (ivl){c->v[i].t0, c->v[i].t1};
  k = ivl_merge(v, k);
  double s = ivl_clip_len(v, k, c->a, c->b) / (c->b - c->a);
  free(v);
  return s;
}

int rep_timeline(ps_buf *b, const char *path, ps_err *e) {
  tl_ctx *c = xcalloc(1, sizeof *c);
  for (int i = 0; i < TL_MAX_CALLS; i++) c->cstart[i] = c->cend[i] = NAN;
  c->tmin = INFINITY, c->tmax = -INFINITY;
  int rc = spans_read(path, NULL, tl_pass1, c, e);
  if (rc == PS_OK && !(c->tmax > c->tmin))
    rc = ps_fail(e, PS_EINPUT, "%s: expected spans of replication 0 on GPU 0 (for the timeline), got none", path);
  if (rc != PS_OK) goto out;
  /* The excerpt starts at the call that opens the third round of calls (past the start-up,
   * when every worker began at once) and lasts four mean calls. */
  int ncalls = 0, start = -1, seen = 0;
  double sum = 0;
  for (int i = 0; i < TL_MAX_CALLS; i++) {
    if (!isfinite(c->cstart[i])) continue;
    ncalls++;
    sum += c->cend[i] - c->cstart[i];
    if (seen++ == 2 * c->nworkers || start < 0) start = i;
  }
  if (ncalls > 0 && sum > 0) {
    c->a = c->cstart[start];
    c->b = fmin(c->a + 4 * sum / ncalls, c->tmax);
  }
  if (!(c->b > c->a)) c->a = c->tmin, c->b = c->tmin + fmax((c->tmax - c->tmin) / 20, 1e-9);
  int shown = c->nworkers;
  if (c->nworkers > TL_MAX_WORKERS) c->nworkers = TL_MAX_WORKERS; /* lane_of drops the others */
  if ((rc = spans_read(path, NULL, tl_pass2, c, e)) != PS_OK) goto out;

  rep_section(b, "timeline", "Timeline excerpt: GPU 0, replication 0", path);
  rep_figure_begin(b, "timeline");
  int nl = 1 + 3 * c->nworkers;
  char **cats = xcalloc((size_t)nl, sizeof *cats);
  static const char *const kind[] = {"lock", "GPU", "CPU"};
  for (int l = 0; l < nl; l++) /* category 0 is drawn at the bottom: the lanes reversed */
    cats[nl - 1 - l] = l == 0 ? xstrdup(c->has_kernels ? "GPU 0 kernels" : "GPU 0 busy")
                              : xasprintf("worker %d %s", (l - 1) / 3, kind[(l - 1) % 3]);
  svg_axis x = svg_axis_num(c->a, c->b, 8, "time since the run's start (s)");
  x.lo = c->a, x.hi = c->b; /* the excerpt itself, not widened to whole ticks */
  svg_axis y = svg_axis_cat((const char *const *)cats, nl, "lanes: GPU 0, then each worker's lock, GPU and CPU work");
  svg_plot p;
  svg_begin(&p, b, 900, 90 + 26 * nl, &x, &y, "timeline excerpt");
  svg_axes(&p);
  static const char *const ln[] = {"CPU phase", "GPU phase", "PCIe", "lock held", "lock wait"},
                           *const lc[] = {"#0072B2", "#009E73", "#CC79A7", "#E69F00", "#F0E442"};
  svg_legend(&p, ln, lc, 5);
  for (int i = 0; i < c->n; i++) {
    const tl_span *s = &c->v[i];
    int row = nl - 1 - s->lane;
    char tip[160];
    snprintf(tip, sizeof tip, "%.60s: %.3f s to %.3f s", s->name, s->t0, s->t1);
    svg_rect(&p, s->t0, row - 0.35, s->t1, row + 0.35, s->color, tip);
  }
  svg_end(&p);
  double busy = tl_cover(c, 0), held = tl_cover(c, -1);
  char r[512];
  snprintf(r, sizeof r, "From %.1f s to %.1f s the GPU is busy %.1f%% of the time and some worker holds the lock "
           "%.1f%% of it%s.", c->a, c->b, 100 * busy, 100 * held,
           held > busy + 0.05 ? ": the lock covers more than the GPU's work" : "");
  rep_figure_end(b, r);
  if (shown > c->nworkers) {
    char t[128];
    snprintf(t, sizeof t, "Workers %d to %d of GPU 0 are not drawn (at most %d are).", TL_MAX_WORKERS, shown - 1,
             TL_MAX_WORKERS);
    rep_para(b, "note", t);
  }
  if (c->dropped) {
    char t[128];
    snprintf(t, sizeof t, "%d spans of the excerpt are not drawn (at most %d are).", c->dropped, TL_MAX_SPANS);
    rep_para(b, "note", t);
  }
  ps_buf_printf(b, "</section>\n");
  for (int l = 0; l < nl; l++) free(cats[l]);
  free(cats);
out:
  for (int i = 0; i < c->n; i++) free(c->v[i].name);
  free(c->v);
  free(c);
  return rc;
}

