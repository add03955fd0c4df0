/* Fitting what happens when calls overlap (calib.h, calib_overlap): the interference of
 * GPU phases of different workers on one GPU, and the contention of CPU phases side by
 * side, from runs where they overlap (two or more workers, no mutex), against the solo
 * times calib_model fitted before.
 *
 * The run is read twice as a stream. The first pass ranks each worker's calls (to leave
 * the warm-up out) and learns the file's order: measure writes spans in order of start,
 * simulate in order of end. The second keeps, per (rep, gpu) for the GPU phases and per
 * rep for the cpu phases, only the spans that a span still to come may overlap: in a file
 * in order of start, those that end after the latest start; in order of end, those that
 * end after the latest end less the longest span. Each kept span is measured against the
 * others once no span still to come can overlap it. */
#include "calib.h"

#include <gsl/gsl_linalg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spans.h"
#include "scn.h"

#define OV_NMAX 16

/* One phase span in the window of the moment; pending: kept, not yet measured. */
typedef struct ospan {
  int gpu, worker, phase, k, thr, pending;
  double t0, t1;
} ospan;

typedef struct ogroup {
  double t0, t1;  /* pass 1: the last start and end read; pass 2: the latest */
  ospan *v;
  size_t n, cap;
} ogroup;

/* The GPU phases (per rep and gpu) or the cpu phases (per rep). */
typedef struct ocat {
  int gpu_side;
  calib__ranks rk;
  strtab tab;
  ogroup *g;
  size_t ng;
  int by_t0, by_t1; /* pass 1: the groups' spans in order of start, of end */
  double dmax;      /* the longest span */
} ocat;

/* the within-run sums a (file, phase) keeps: n, m, d / e, m d / e, m^2, (d / e)^2 */
#define FE 6

typedef struct ov_ctx {
  model *m;
  int pass2;
  double steal_k; /* calib_read.steal_exponent */
  double quiet;  /* the file's cpu spans' factor (calib__steal_factor of its header) */
  int forced;    /* files whose header says measure --rendezvous (a sum, as below) */
  ocat cat[2]; /* 0: cpu, 1: gpu */
  /* the sums, over every file */
  double t_at[OV_NMAX + 1]; /* GPU: time spent with n GPU phases at once (n = 1..OV_NMAX, the last: or more) */
  double work;              /* GPU: the spans' solo work */
  /* GPU, spans that ran with at most one other phase at once (under 2% of their time with
   * more), by how they started (0: alone, 1: beside another): the sums of solo - alone, of
   * the time first and of the time later (first_come) */
  double oy[2], of[2], ol[2];
  /* GPU, by pairs (gpu_pairs): per (phase P, phase d) the sums of P's spans that ran with
   * more than one other for under 2% of their time, and beside one other for over 2%,
   * most of it beside another worker's phase d; PG_* below */
  double *pg;
  double sxy, sxx;          /* cpu, across runs: d / e - 1 on m, through the origin */
  /* cpu, within each run: per phase of the file being read, n, the sums of m, of d / e,
   * of m d / e, of m^2 and of (d / e)^2 (fe, FE x nphases); over every (file, phase), the
   * sums of their deviations from the group's means (wxx, wxy, wyy), of m and d / e, and
   * their count */
  double *fe;
  double wxx, wxy, wyy, wx, wy, wn, wg; /* wyy: d / e's; wg: the (file, phase) groups */
} ov_ctx;

static ogroup *ogroup_of(ocat *c, const span_rec *r) {
  char key[32];
  if (c->gpu_side) snprintf(key, sizeof key, "%d %d", r->rep, r->gpu);
  else snprintf(key, sizeof key, "%d", r->rep);
  size_t id = (size_t)strtab_id(&c->tab, key, (size_t)INT_MAX);
  if (id == c->ng) {
    c->g = xrealloc(c->g, (c->ng + 1) * sizeof *c->g);
    c->g[c->ng++] = (ogroup){.t0 = -INFINITY, .t1 = -INFINITY};
  }
  return &c->g[id];
}

/* The GPU span a against the other workers' GPU phases beside it: how long it ran with n
 * phases at once (itself and n - 1 others), into t_at[n]. calib_overlap fits s from the
 * sums: at n at once each phase runs at 1 / (1 + s (n - 1)), so the spans' solo work
 * W (the model's means) = sum over n of t_at[n] / (1 + s (n - 1)). */
typedef struct ov_edge {
  double t;
  int d;
  int older; /* the other span started before a */
  int phase; /* the other span's phase */
} ov_edge;

/* A group's sums in ov_ctx.pg (np the model's phases): the spans, their solo work less
 * their time alone, the time beside exactly one other of each phase q and of that the time
 * a had started first (PG_X, PG_XF), and the time with n >= 3 at once, a later or first
 * (PG_TM + 2n + first, n up to OV_NMAX). */
enum { PG_N, PG_Y, PG_X };
#define PG_XF(np) (PG_X + (np))
#define PG_TM(np) (PG_X + 2 * (np))
#define PG_LEN(np) (PG_TM(np) + 2 * (OV_NMAX + 1))
static double *pg_group(const ov_ctx *c, int p, int d) {
  int np = c->m->nphases;
  return &c->pg[((size_t)p * (size_t)np + (size_t)d) * (size_t)PG_LEN(np)];
}

static int ov_edge_cmp(const void *x, const void *y) {
  const ov_edge *a = x, *b = y;
  return a->t < b->t ? -1 : a->t > b->t ? 1 : a->d - b->d; /* at one instant, ends before starts */
}

/* Also, for the order of start (model.interference_first): the time a ran with one other
 * phase that started after it (first) or before it (later), into the sums of the group of
 * how a started, when a ran with more than one other for under 2% of its time. */
static void measure_gpu(ov_ctx *c, const ogroup *g, const ospan *a) {
  ov_edge *ev = xmalloc((2 * g->n + 2) * sizeof *ev);
  size_t ne = 0;
  int beside = 0;
  for (size_t j = 0; j < g->n; j++) {
    const ospan *b = &g->v[j];
    if (b->worker == a->worker || b->t1 <= a->t0 || b->t0 >= a->t1) continue;
    int older = b->t0 < a->t0;
    beside |= older;
    ev[ne++] = (ov_edge){b->t0 > a->t0 ? b->t0 : a->t0, +1, older, b->phase};
    ev[ne++] = (ov_edge){b->t1 < a->t1 ? b->t1 : a->t1, -1, older, b->phase};
  }
  if (ne) qsort(ev, ne, sizeof *ev, ov_edge_cmp);
  int np = c->m->nphases;
  double t = a->t0, at[3] = {0}; /* alone, with one other (a first), with one other (a later) */
  double more = 0, *x = xcalloc((size_t)PG_LEN(np), sizeof *x); /* this span's pair sums */
  int n = 1, nolder = 0, phsum = 0; /* phsum: the sum of the others' phases (the one's, at n = 2) */
  for (size_t i = 0; i <= ne; i++) {
    double te = i < ne ? ev[i].t : a->t1, dt = te - t;
    c->t_at[n < OV_NMAX ? n : OV_NMAX] += dt;
    if (n <= 2) at[n == 1 ? 0 : nolder ? 2 : 1] += dt;
    else more += dt;
    if (n == 2) {
      x[PG_X + phsum] += dt;
      x[PG_XF(np) + phsum] += nolder ? 0 : dt;
    } else if (n > 2) {
      x[PG_TM(np) + 2 * (n < OV_NMAX ? n : OV_NMAX) + !nolder] += dt;
    }
    t = te;
    if (i < ne) {
      n += ev[i].d;
      nolder += ev[i].older ? ev[i].d : 0;
      phsum += ev[i].d * ev[i].phase;
    }
  }
  free(ev);
  double solo = phase_call_mean(&c->m->phases[a->phase], a->k);
  c->work += solo;
  if (more < 0.02 * (a->t1 - a->t0)) {
    c->oy[beside] += solo - at[0];
    c->of[beside] += at[1];
    c->ol[beside] += at[2];
  }
  /* by pairs, the spans that ran with at most one other at once (as for the order of
   * start), into the group of the phase they spent most of their overlapped time beside */
  double over = 0;
  int dom = 0;
  for (int q = 0; q < np; q++) {
    over += x[PG_X + q];
    if (x[PG_X + q] > x[PG_X + dom]) dom = q;
  }
  if (more < 0.02 * (a->t1 - a->t0) && over > 0.02 * (a->t1 - a->t0)) {
    double *grp = pg_group(c, a->phase, dom);
    x[PG_N] = 1;
    x[PG_Y] = solo - at[0];
    for (int k = 0; k < PG_LEN(np); k++) grp[k] += x[k];
  }
  free(x);
}

/* sum over n of t_at[n] / (1 + s (n - 1)): the solo work the times hold at interference s */
static double ov_work_at(const ov_ctx *c, double s) {
  double w = 0;
  for (int n = 1; n <= OV_NMAX; n++) w += c->t_at[n] / (1 + s * (n - 1));
  return w;
}

/* The cpu span a: m, the time-averaged count of other workers' cpu phases beside it,
 * against its solo time e at its threads: d / e = 1 + c m, least squares through (0, 1)
 * (across runs); and into its phase's sums for the fit within the run. */
static void measure_cpu(ov_ctx *c, const ogroup *g, const ospan *a) {
  double len = a->t1 - a->t0, d = len * c->quiet; /* d: as on a quiet host (--steal-exponent) */
  const phase *ph = &c->m->phases[a->phase];
  double thr = a->thr > 0 ? a->thr : ph->threads;
  double e_s = phase_call_mean(ph, a->k) * phase_speed(ph, ph->threads) / phase_speed(ph, thr);
  double ov = 0;
  for (size_t j = 0; j < g->n; j++) {
    const ospan *b = &g->v[j];
    if (b->worker == a->worker && b->gpu == a->gpu) continue;
    double lo = b->t0 > a->t0 ? b->t0 : a->t0, hi = b->t1 < a->t1 ? b->t1 : a->t1;
    if (hi > lo) ov += hi - lo;
  }
  double mm = ov / len;
  if (e_s > 0) {
    c->sxy += (d / e_s - 1) * mm;
    c->sxx += mm * mm;
    double *f = &c->fe[FE * a->phase], y = d / e_s;
    f[0] += 1, f[1] += mm, f[2] += y, f[3] += mm * y, f[4] += mm * mm, f[5] += y * y;
  }
}

/* The end of a file: each of its phases' sums into the within-run fit's, as deviations from
 * the phase's means in that file (a run's host speed moves every span of it alike). */
static void fold_within(ov_ctx *c) {
  for (int p = 0; p < c->m->nphases; p++) {
    double *f = &c->fe[FE * p];
    if (f[0] >= 2) {
      c->wxx += f[4] - f[1] * f[1] / f[0];
      c->wxy += f[3] - f[1] * f[2] / f[0];
      c->wyy += f[5] - f[2] * f[2] / f[0];
      c->wx += f[1], c->wy += f[2], c->wn += f[0], c->wg += 1;
    }
    memset(f, 0, FE * sizeof *f);
  }
}

/* Measures the pending spans that no span still to come can overlap (all when flush)
 * and drops the spans that none needs any more. */
static void settle(ov_ctx *c, ocat *k, ogroup *g, int flush) {
  double L = k->by_t0 ? g->t0 : g->t1 - k->dmax; /* every span still to come starts at or after L */
  double lim = L;
  for (size_t i = 0; i < g->n; i++) {
    ospan *a = &g->v[i];
    if (!a->pending) continue;
    if (flush || a->t1 <= L) {
      if (k->gpu_side) measure_gpu(c, g, a);
      else measure_cpu(c, g, a);
      a->pending = 0;
    } else if (a->t0 < lim) {
      lim = a->t0;
    }
  }
  size_t n = 0;
  for (size_t i = 0; i < g->n; i++)
    if (g->v[i].pending || g->v[i].t1 > lim) g->v[n++] = g->v[i];
  g->n = n;
}

static int ov_cb(void *ctx, const span_rec *r) {
  ov_ctx *c = ctx;
  if (r->kind != SPAN_PHASE) return 0;
  int p = scn_phase_index(c->m, r->phase);
  if (p < 0) return 0;
  int res = c->m->phases[p].resource;
  if (res != RES_CPU && res != RES_GPU) return 0;
  ocat *k = &c->cat[res == RES_GPU];
  ogroup *g = ogroup_of(k, r);
  if (!c->pass2) { /* the first pass: the ranks and the order */
    calib__ranks_add(&k->rk, r->rep, r->gpu, r->worker, r->call);
    if (r->t0 < g->t0) k->by_t0 = 0;
    if (r->t1 < g->t1) k->by_t1 = 0;
    g->t0 = r->t0, g->t1 = r->t1;
    if (r->t1 - r->t0 > k->dmax) k->dmax = r->t1 - r->t0;
    return 0;
  }
  if (r->t0 > g->t0) g->t0 = r->t0;
  if (r->t1 > g->t1) g->t1 = r->t1;
  int kept = calib__ranks_kept(&k->rk, r->rep, r->gpu, r->worker, r->call) && (k->gpu_side || r->t1 > r->t0);
  if (g->n == g->cap) g->v = xrealloc(g->v, (g->cap = g->cap ? 2 * g->cap : 16) * sizeof *g->v);
  g->v[g->n++] = (ospan){r->gpu, r->worker, p, r->npartitions > 0 ? r->npartitions : 1, k->gpu_side ? 0 : r->threads,
                         kept, r->t0, r->t1};
  settle(c, k, g, 0);
  return 0;
}

static void ocat_reset_groups(ocat *k) {
  for (size_t i = 0; i < k->ng; i++) free(k->g[i].v);
  free(k->g);
  k->g = NULL;
  k->ng = 0;
  strtab_free(&k->tab);
}

static int ov_hdr(void *ctx, const span_header *h) {
  ((ov_ctx *)ctx)->quiet = calib__steal_factor(spans_header_steal(h), ((ov_ctx *)ctx)->steal_k);
  ((ov_ctx *)ctx)->forced += h->rendezvous != 0;
  return 0;
}

static int overlap_file(ov_ctx *pc, const char *file, int skip_calls, ps_err *e) {
  ov_ctx c = *pc; /* the sums go on; the rest is per file */
  c.pass2 = 0;
  for (int i = 0; i < 2; i++)
    c.cat[i] = (ocat){.gpu_side = i, .rk = {.skip = skip_calls}, .by_t0 = 1, .by_t1 = 1};
  c.quiet = 1;
  int rc = spans_read(file, ov_hdr, ov_cb, &c, e);
  for (int i = 0; i < 2 && rc == PS_OK; i++) {
    ocat_reset_groups(&c.cat[i]);
    if (!c.cat[i].by_t0 && !c.cat[i].by_t1)
      rc = ps_fail(e, PS_EINPUT, "%s: the %s phase spans of a %s are in order neither of start nor of end: calibrate "
                   "--overlap reads them in the order measure (start) or simulate (end) writes them", file,
                   i ? "GPU" : "cpu", i ? "replication and GPU" : "replication");
  }
  if (rc == PS_OK) {
    c.pass2 = 1;
    rc = spans_read(file, NULL, ov_cb, &c, e);
  }
  for (int i = 0; i < 2; i++) {
    if (rc == PS_OK)
      for (size_t j = 0; j < c.cat[i].ng; j++) settle(&c, &c.cat[i], &c.cat[i].g[j], 1);
    ocat_reset_groups(&c.cat[i]);
    calib__ranks_free(&c.cat[i].rk);
  }
  if (rc == PS_OK) fold_within(&c);
  *pc = c; /* the sums */
  pc->pass2 = 0;
  memset(pc->cat, 0, sizeof pc->cat);
  return rc;
}

/* The order of start: at two at once, the phase that started first runs at a = 1 / (1 + s1)
 * and the other at b = 1 / (1 + s), so a span's solo work less its time alone is
 * a x (time first) + b x (time later). Summed over the spans of each group (those that
 * started alone, those that started beside another phase) with the solo work taken as the
 * model's mean, that is two equations in a and b. How a span started does not depend on
 * its own work, so each group's mean work is the model's (a regression on each span's
 * times would not do: a span that draws more work runs longer in both roles, and the
 * estimates come out biased). Identified when each group holds a tenth of the time two ran
 * at once or more, the equations are not nearly dependent, and a, b > 0; then, with
 * `order`, s and s1 replace the pooled s (which averages the two roles). */
static void first_come(const ov_ctx *c, model *m, int order, calib_overlap_report *out) {
  double t0 = c->of[0] + c->ol[0], t1 = c->of[1] + c->ol[1], tot = t0 + t1;
  double det = c->of[0] * c->ol[1] - c->of[1] * c->ol[0];
  const char *why = NULL;
  if (tot <= 0 || t0 < 0.1 * tot || t1 < 0.1 * tot)
    why = "under a tenth of the time two ran at once is of phases that started alone, or beside another";
  else if (fabs(det) <= 0.05 * t0 * t1)
    why = "the two groups' times first and later are nearly proportional";
  double a = 0, b = 0;
  if (!why) {
    a = (c->oy[0] * c->ol[1] - c->oy[1] * c->ol[0]) / det;
    b = (c->of[0] * c->oy[1] - c->of[1] * c->oy[0]) / det;
    if (a <= 0.01 || b <= 0.01) why = "the fit gives a phase no progress at two at once";
  }
  if (why) {
    snprintf(out->first_why, sizeof out->first_why, "%s", why);
    return;
  }
  double s = b >= 1 ? 0 : 1 / b - 1, s1 = a >= 1 ? 0 : 1 / a - 1;
  out->first_identified = 1;
  out->interference_later = s < 100 ? s : 100;
  out->interference_first = s1 < 100 ? s1 : 100;
  if (order) {
    m->interference = out->interference_later;
    m->interference_first = out->interference_first;
    m->has_first = 1;
  }
}

/* The pooled law's work in group g's times with the companies whose rates are not estimated
 * (est[q] for q < np: q's rate is estimated; the law at two at once, a1 for the phase
 * that started first and b for the other, and at n >= 3 at once by n and order). */
static double pg_held(const double *g, int np, const int *est, double s, double s1) {
  double w = 0, a1 = 1 / (1 + s1), b = 1 / (1 + s);
  for (int q = 0; q < np; q++)
    if (!est[q]) w += g[PG_XF(np) + q] * a1 + (g[PG_X + q] - g[PG_XF(np) + q]) * b;
  for (int n = 3; n <= OV_NMAX; n++)
    w += g[PG_TM(np) + 2 * n] / (1 + s * (n - 1)) + g[PG_TM(np) + 2 * n + 1] / (1 + s1 * (n - 1));
  return w;
}

/* By pairs (model.pair_rate): for GPU phase P, the rate r(P|q) at which it runs beside
 * exactly one other, of phase q, from calibrate's identity: each span's solo work less its
 * time alone = sum over q of r(P|q) x (time beside q) + the pooled law's work in its time
 * with two or more others. Like the order of start, by groups: the spans grouped by the
 * company they spent most of their overlapped time in, the group sums solved by least
 * squares weighted by 1 / spans (two-stage least squares with the groups as instruments:
 * a span's company is the other workers' schedule, not its own draw of work). q is
 * estimated when P's time beside q is at least a tenth of P's overlapped time and 0.05 s,
 * and three spans are mostly beside q; the rest is held at the pooled law (the model's
 * interference and interference_first, as calib_overlap leaves them). With `write`, the
 * rates go into the model when every one of P's is from 0.01 to 2. */
static void gpu_pairs(const ov_ctx *c, model *m, int write, calib_overlap_report *out) {
  int np = m->nphases;
  double s = m->interference, s1 = m->has_first ? m->interference_first : s;
  int *est = xcalloc((size_t)np, sizeof *est), *idx = xcalloc((size_t)np, sizeof *idx);
  double *xs = xcalloc((size_t)np, sizeof *xs);
  for (int p = 0; p < np; p++) {
    if (m->phases[p].resource != RES_GPU) continue;
    double over = 0;
    int k = 0;
    for (int d = 0; d < np; d++) {
      const double *g = pg_group(c, p, d);
      for (int q = 0; q < np; q++) over += g[PG_X + q];
      for (int n = 3; n <= OV_NMAX; n++) over += g[PG_TM(np) + 2 * n] + g[PG_TM(np) + 2 * n + 1];
    }
    if (over <= 0) continue;
    for (int q = 0; q < np; q++) {
      double t = 0;
      for (int d = 0; d < np; d++) t += pg_group(c, p, d)[PG_X + q];
      est[q] = t >= 0.1 * over && t >= 0.05 && pg_group(c, p, q)[PG_N] >= 3;
      if (est[q]) idx[k++] = q;
    }
    if (k == 0) continue;
    gsl_matrix *A = gsl_matrix_calloc((size_t)k, (size_t)k);
    gsl_vector *bv = gsl_vector_calloc((size_t)k), *r = gsl_vector_alloc((size_t)k);
    for (int d = 0; d < np; d++) {
      const double *g = pg_group(c, p, d);
      if (g[PG_N] <= 0) continue;
      double y = g[PG_Y] - pg_held(g, np, est, s, s1);
      for (int i = 0; i < k; i++) xs[i] = g[PG_X + idx[i]];
      for (int i = 0; i < k; i++) {
        *gsl_vector_ptr(bv, (size_t)i) += xs[i] * y / g[PG_N];
        for (int j = 0; j < k; j++) *gsl_matrix_ptr(A, (size_t)i, (size_t)j) += xs[i] * xs[j] / g[PG_N];
      }
    }
    double big = 0;
    for (int i = 0; i < k; i++) big = fmax(big, fabs(gsl_matrix_get(A, (size_t)i, (size_t)i)));
    gsl_permutation *perm = gsl_permutation_alloc((size_t)k);
    int sg, ok = 0;
    gsl_set_error_handler_off();
    if (gsl_linalg_LU_decomp(A, perm, &sg) == 0) {
      ok = 1;
      for (int i = 0; i < k; i++) ok &= fabs(gsl_matrix_get(A, (size_t)i, (size_t)i)) > 1e-9 * big;
      ok = ok && gsl_linalg_LU_solve(A, perm, bv, r) == 0;
    }
    int inrange = ok;
    for (int i = 0; ok && i < k; i++) {
      double v = gsl_vector_get(r, (size_t)i);
      inrange &= v > 0.01 && v <= 2;
      if (out->npairs < CALIB_OV_PAIRS_MAX) {
        calib_pair *cp = &out->pairs[out->npairs++];
        double tf = 0;
        for (int d = 0; d < np; d++) tf += pg_group(c, p, d)[PG_XF(np) + idx[i]];
        double t = 0;
        for (int d = 0; d < np; d++) t += pg_group(c, p, d)[PG_X + idx[i]];
        *cp = (calib_pair){p, idx[i], v, (tf / (1 + s1) + (t - tf) / (1 + s)) / t, t};
      }
    }
    if (!ok || !inrange) {
      int len = (int)strlen(out->pairs_why);
      snprintf(out->pairs_why + len, sizeof out->pairs_why - (size_t)len, "%s%s: %s", len ? "; " : "",
               m->phases[p].name, !ok ? "its companies' times are nearly dependent" : "a rate outside 0.01 to 2");
    } else if (write) {
      if (!m->pair_rate) m->pair_rate = xcalloc((size_t)np * (size_t)np, sizeof *m->pair_rate);
      for (int i = 0; i < k; i++) m->pair_rate[p * np + idx[i]] = gsl_vector_get(r, (size_t)i);
    }
    gsl_permutation_free(perm);
    gsl_matrix_free(A);
    gsl_vector_free(bv);
    gsl_vector_free(r);
  }
  free(est), free(idx), free(xs);
}

int calib_overlap(model *m, const char *const *files, int nfiles, const calib_read *rd, unsigned flags,
                  calib_overlap_report *out, ps_err *e) {
  ov_ctx c = {.m = m, .steal_k = rd->steal_exponent};
  memset(out, 0, sizeof *out);
  c.fe = xcalloc(FE * (size_t)m->nphases, sizeof *c.fe);
  c.pg = xcalloc((size_t)m->nphases * (size_t)m->nphases * (size_t)PG_LEN(m->nphases), sizeof *c.pg);
  for (int f = 0; f < nfiles; f++) {
    int rc = overlap_file(&c, files[f], rd->skip_calls, e);
    if (rc != PS_OK) {
      free(c.fe);
      free(c.pg);
      return rc;
    }
  }
  free(c.fe);
  /* cpu contention (0 when the cpu phases never ran side by side). Within each run: d / e =
   * h (1 + c m), h the run's host speed for the phase, so the slope of d / e on m about the
   * group's means is h c and c = slope / (mean d / e - slope x mean m); identified when m
   * varies within the runs (sd 0.1 or more). The slope's standard error is the residuals'
   * sd (one degree of freedom for each group's mean and one for the slope) over sqrt(wxx),
   * and c's is that over h. Across runs: d / e - 1 = c m. With CALIB_OV_SIGNIF a within
   * fit less than two standard errors from 0 gives c = 0. */
  double ca = c.sxx > 1e-6 ? c.sxy / c.sxx : 0, cw = 0;
  int signif = 0;
  out->cpu_within = c.wn > 0 && c.wxx >= 0.01 * c.wn;
  if (out->cpu_within) {
    double slope = c.wxy / c.wxx, h = (c.wy - slope * c.wx) / c.wn, dof = c.wn - c.wg - 1;
    double rss = c.wyy - slope * c.wxy;
    cw = h > 0 ? slope / h : 0;
    out->cpu_host = h;
    out->cpu_within_se = dof > 0 && h > 0 ? sqrt((rss > 0 ? rss : 0) / dof / c.wxx) / h : INFINITY;
    signif = out->cpu_within_signif = fabs(cw) >= 2 * out->cpu_within_se;
  }
  out->cpu_m_sd = c.wn > 0 ? sqrt(c.wxx / c.wn) : 0;
  double cc = (flags & CALIB_OV_ACROSS) || !out->cpu_within ? ca : (flags & CALIB_OV_SIGNIF) && !signif ? 0 : cw;
  out->cpu_across = ca < 0 ? 0 : ca > 100 ? 100 : ca;
  out->cpu_within_c = cw < 0 ? 0 : cw > 100 ? 100 : cw;
  if (cc < 0) cc = 0;
  if (cc > 100) cc = 100;
  out->cpu_side_by_side = c.sxx;
  out->cpu_contention = cc;
  m->cpu_contention = cc;
  double t_alone = c.t_at[1], t_over = 0;
  for (int n = 2; n <= OV_NMAX; n++) {
    t_over += c.t_at[n];
    if (c.t_at[n] > 0) out->max_at_once = n;
  }
  out->overlapped_s = t_over;
  out->alone_s = t_alone;
  out->work_s = c.work;
  out->forced = c.forced;
  if (t_over < 0.05 * (t_over + t_alone)) {
    free(c.pg);
    /* Two workers whose CPU phases take at least as long as their GPU phases can fall
     * into turns, one's GPU phases while the other computes (docs/validation-sessions.md, "A
     * quiet H200 host"); N workers can keep to turns only while each one's GPU phases
     * fill at most 1/N of its call. */
    return ps_fail(e, PS_EINPUT, "%s%s: GPU phases of different workers overlap for %.1f%% of their time; an overlap "
                   "run needs them to run at once (two or more workers, system.mutex=none); workers whose CPU "
                   "phases take at least as long as their GPU phases can take turns on the GPU instead: make "
                   "them meet before their GPU phases (measure --rendezvous) or run more of them "
                   "(system.workers_per_gpu)", files[0], nfiles > 1 ? " and the other --overlap files" : "",
                   t_over + t_alone > 0 ? 100 * t_over / (t_over + t_alone) : 0.0);
  }
  /* ov_work_at falls as s grows: s = 0 when the times hold no more than the work (the phases
   * overlapped for free), 100 when even s = 100 leaves more; else bisection. */
  double s;
  if (ov_work_at(&c, 0) <= c.work)
    s = 0;
  else if (ov_work_at(&c, 100) >= c.work)
    s = 100;
  else {
    double lo = 0, hi = 100;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + hi); i++) {
      double mid = 0.5 * (lo + hi);
      if (ov_work_at(&c, mid) > c.work) lo = mid;
      else hi = mid;
    }
    s = 0.5 * (lo + hi);
  }
  m->gpu_overlap = 1;
  m->interference = s;
  out->interference = s;
  first_come(&c, m, (flags & CALIB_OV_ORDER) != 0, out);
  gpu_pairs(&c, m, (flags & CALIB_OV_PAIRS) != 0, out);
  free(c.pg);
  return PS_OK;
}
