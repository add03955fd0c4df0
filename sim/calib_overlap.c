/* Fitting what happens when calls overlap (calib.h, calib_overlap): the interference of
 * GPU phases of different workers on one GPU, and the contention of CPU phases side by
 * side, from a run where they overlap (two workers, no mutex), against the solo times
 * calib_model fitted before. */
#include "calib.h"

#include <stdlib.h>
#include <string.h>

#include "ivl.h"
#include "spans.h"
#include "scn.h"

typedef struct gspan {
  int rep, gpu, worker, phase, k, rank, thr;
  int64_t call;
  double t0, t1;
} gspan;

typedef struct ov_ctx {
  const model *m;
  gspan *v;
  size_t n, cap;
  gspan *cv; /* cpu phase spans */
  size_t cn, ccap;
} ov_ctx;

static int ov_cb(void *ctx, const span_rec *r) {
  ov_ctx *c = ctx;
  if (r->kind != SPAN_PHASE) return 0;
  int p = scn_phase_index(c->m, r->phase);
  if (p >= 0 && c->m->phases[p].resource == RES_CPU) {
    if (c->cn == c->ccap) {
      c->ccap = c->ccap ? 2 * c->ccap : 1024;
      c->cv = xrealloc(c->cv, c->ccap * sizeof *c->cv);
    }
    c->cv[c->cn++] = (gspan){r->rep, r->gpu, r->worker, p, r->npartitions > 0 ? r->npartitions : 1, 0, r->threads,
                             r->call, r->t0, r->t1};
    return 0;
  }
  if (p < 0 || c->m->phases[p].resource != RES_GPU) return 0;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 1024;
    c->v = xrealloc(c->v, c->cap * sizeof *c->v);
  }
  c->v[c->n++] = (gspan){r->rep, r->gpu, r->worker, p, r->npartitions > 0 ? r->npartitions : 1, 0, 0, r->call, r->t0, r->t1};
  return 0;
}

static int gspan_by_worker_call(const void *a, const void *b) {
  const gspan *x = a, *y = b;
#define CMP(f) \
  if (x->f != y->f) return x->f < y->f ? -1 : 1;
  CMP(rep) CMP(gpu) CMP(worker) CMP(call)
#undef CMP
  return 0;
}

static int gspan_by_gpu_t0(const void *a, const void *b) {
  const gspan *x = a, *y = b;
  if (x->rep != y->rep) return x->rep < y->rep ? -1 : 1;
  if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Ranks spans by call within each (rep, gpu, worker); v sorted by gspan_by_worker_call. */
static void gspan_rank(gspan *v, size_t n) {
  for (size_t i = 1; i < n; i++) {
    const gspan *x = &v[i - 1];
    gspan *y = &v[i];
    int same = x->rep == y->rep && x->gpu == y->gpu && x->worker == y->worker;
    y->rank = !same ? 0 : x->call == y->call ? x->rank : x->rank + 1;
  }
}

static int gspan_by_rep_t0(const void *a, const void *b) {
  const gspan *x = a, *y = b;
  if (x->rep != y->rep) return x->rep < y->rep ? -1 : 1;
  return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* CPU contention: each kept cpu span's time-averaged count m of other workers' cpu
 * phases beside it, against its solo time e at its threads: d / e = 1 + c m, least
 * squares through (0, 1). Sets out->cpu_contention and m->cpu_contention (0 when the cpu
 * phases never ran side by side). */
static void fit_contention(model *m, gspan *v, size_t n, int skip_calls, calib_overlap_report *out) {
  if (n) qsort(v, n, sizeof *v, gspan_by_worker_call);
  gspan_rank(v, n);
  if (n) qsort(v, n, sizeof *v, gspan_by_rep_t0);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < n; i++) {
    const gspan *a = &v[i];
    double d = a->t1 - a->t0;
    if (a->rank < skip_calls || !(d > 0)) continue;
    const phase *ph = &m->phases[a->phase];
    double thr = a->thr > 0 ? a->thr : ph->threads;
    double e_s = phase_call_mean(ph, a->k) * phase_speed(ph, ph->threads) / phase_speed(ph, thr);
    double ov = 0;
    for (size_t j = i; j-- > 0 && v[j].rep == a->rep;) {
      if (a->t0 - v[j].t0 > 60) break;
      if (v[j].worker == a->worker && v[j].gpu == a->gpu) continue;
      double lo = v[j].t0 > a->t0 ? v[j].t0 : a->t0, hi = v[j].t1 < a->t1 ? v[j].t1 : a->t1;
      if (hi > lo) ov += hi - lo;
    }
    for (size_t j = i + 1; j < n && v[j].rep == a->rep && v[j].t0 < a->t1; j++) {
      if (v[j].worker == a->worker && v[j].gpu == a->gpu) continue;
      ov += (v[j].t1 < a->t1 ? v[j].t1 : a->t1) - v[j].t0;
    }
    double mm = ov / d;
    if (e_s > 0) {
      sxy += (d / e_s - 1) * mm;
      sxx += mm * mm;
    }
  }
  double c = sxx > 1e-6 ? sxy / sxx : 0;
  if (c < 0) c = 0;
  if (c > 100) c = 100;
  out->cpu_side_by_side = sxx;
  out->cpu_contention = c;
  m->cpu_contention = c;
}

int calib_overlap(model *m, const char *file, int skip_calls, calib_overlap_report *out, ps_err *e) {
  ov_ctx c = {.m = m};
  memset(out, 0, sizeof *out);
  int rc = spans_read(file, NULL, ov_cb, &c, e);
  if (rc != PS_OK) {
    free(c.v);
    free(c.cv);
    return rc;
  }
  fit_contention(m, c.cv, c.cn, skip_calls, out);
  free(c.cv);
  /* Rank each worker's calls, to leave the warm-up out as calib_model does. */
  if (c.n) qsort(c.v, c.n, sizeof *c.v, gspan_by_worker_call);
  gspan_rank(c.v, c.n);
  if (c.n) qsort(c.v, c.n, sizeof *c.v, gspan_by_gpu_t0);
  /* For each kept span: the part of it during which another worker's GPU phase ran on the
   * same GPU. With n = 2 at once each runs at 1 / (1 + s): its solo work W (the model's
   * mean) = alone + overlapped / (1 + s), so 1 + s = T_over / (W - T_alone) summed. */
  double t_alone = 0, t_over = 0, work = 0;
  for (size_t i = 0; i < c.n; i++) {
    const gspan *a = &c.v[i];
    if (a->rank < skip_calls) continue;
    ivl *iv = NULL;
    size_t ni = 0, cap = 0;
    for (size_t j = i; j-- > 0 && c.v[j].rep == a->rep && c.v[j].gpu == a->gpu;) {
      if (c.v[j].t1 <= a->t0) {
        if (a->t0 - c.v[j].t0 > 60) break; /* no GPU phase lasts a minute here */
        continue;
      }
      if (c.v[j].worker == a->worker) continue;
      if (ni == cap) iv = xrealloc(iv, (cap = cap ? 2 * cap : 8) * sizeof *iv);
      iv[ni++] = (ivl){c.v[j].t0 > a->t0 ? c.v[j].t0 : a->t0, c.v[j].t1 < a->t1 ? c.v[j].t1 : a->t1};
    }
    for (size_t j = i + 1; j < c.n && c.v[j].rep == a->rep && c.v[j].gpu == a->gpu && c.v[j].t0 < a->t1; j++) {
      if (c.v[j].worker == a->worker) continue;
      if (ni == cap) iv = xrealloc(iv, (cap = cap ? 2 * cap : 8) * sizeof *iv);
      iv[ni++] = (ivl){c.v[j].t0, c.v[j].t1 < a->t1 ? c.v[j].t1 : a->t1};
    }
    double ov = ivl_clip_len(iv, ivl_merge(iv, ni), a->t0, a->t1);
    free(iv);
    double d = a->t1 - a->t0;
    t_over += ov;
    t_alone += d - ov;
    work += phase_call_mean(&m->phases[a->phase], a->k);
  }
  free(c.v);
  out->overlapped_s = t_over;
  out->alone_s = t_alone;
  out->work_s = work;
  if (t_over < 0.05 * (t_over + t_alone))
    return ps_fail(e, PS_EINPUT, "%s: GPU phases of different workers overlap for %.1f%% of their time; an overlap run "
                   "needs them to run at once (two workers, system.mutex=none)", file,
                   t_over + t_alone > 0 ? 100 * t_over / (t_over + t_alone) : 0.0);
  double f = work - t_alone;
  double s = f > 0 ? t_over / f - 1 : 100;
  if (s < 0) s = 0;
  if (s > 100) s = 100;
  m->gpu_overlap = 1;
  m->interference = s;
  out->interference = s;
  return PS_OK;
}
