/* A measured replication summarised as it runs (runner_int.h, "Folding").
 *
 * A run records every kernel CUPTI reports: at 2^18 constraints about 250 a partition,
 * so a run that kept them until its end would grow by about 14 KB a partition. The
 * window's figures need less: the window opens and closes at the end of a call, so a
 * GPU's busy time in it is the difference of two prefix values ("busy time up to t")
 * taken at call ends, and the same holds for the mutex-held time, their overlap and the
 * CPU core-seconds. So every half second the runner folds: the spans that start before
 * a horizon h are written to the spans document in time order, their parts before h
 * are added to the prefix values, the prefix values at the end of every call that ended
 * by h are kept (a few doubles a call), and only the parts past h are kept for the next
 * fold. What stays per partition is its call, its phases' durations and those prefix
 * values: about 400 bytes, whatever the kernels.
 *
 * The horizon is chosen so that nothing recorded later can start before it: every span
 * of a call starts after the call does, so h is at most the start of every call in
 * progress, and the kernels of the calls that ended were delivered by the CUPTI flush
 * just before (their calls waited for them). runner__fold counts any span that arrives
 * after its time was summarised (R->late), and the report says so; by design there is
 * none. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ivl.h"
#include "runner_int.h"
#include "scn.h"
#include "spans.h"

void runner__push(rspans *a, const rspan *s) {
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 256;
    a->v = xrealloc(a->v, a->cap * sizeof *a->v);
  }
  a->v[a->n++] = *s;
}

static int cmp_rspan(const void *x, const void *y) {
  const rspan *p = x, *q = y;
  if (p->t0 != q->t0) return p->t0 < q->t0 ? -1 : 1;
  return (p->t1 > q->t1) - (p->t1 < q->t1);
}

void runner__fold_begin(mrun *R) {
  R->npre = 3 * R->s->gpus + 1;
  if (!R->fold_at) R->fold_at = xmalloc((size_t)R->npre * sizeof *R->fold_at);
  memset(R->fold_at, 0, (size_t)R->npre * sizeof *R->fold_at);
  R->fold_h = -INFINITY;
  R->pend.n = R->carry.n = 0;
  R->ndurs = 0;
  R->nphase_spans = 0;
  R->late = 0;
  for (int i = 0; i < R->nw; i++) R->w[i].nfold = 0;
}

void runner__fold_free(mrun *R) {
  free(R->fold_at), free(R->pend.v), free(R->carry.v), free(R->durs);
  for (int i = 0; i < R->nw; i++) free(R->w[i].pre);
}

/* ---- The spans document ---- */

static void format_span(const mrun *R, ps_buf *b, const rspan *sp, int64_t **parts, int *pcap) {
  span_rec r = {.rep = R->rep, .gpu = sp->gpu, .worker = sp->worker, .call = sp->call, .t0 = sp->t0, .t1 = sp->t1};
  if (sp->phase == SP_KERNEL || sp->phase == SP_MEMCPY) {
    r.kind = sp->phase == SP_KERNEL ? SPAN_KERNEL : SPAN_MEMCPY;
    r.name = sp->name;
  } else {
    r.kind = SPAN_PHASE;
    int k = sp->k;
    if (k > *pcap) *parts = xrealloc(*parts, (size_t)(*pcap = k) * sizeof **parts);
    for (int i = 0; i < k; i++) (*parts)[i] = sp->part0 + i;
    r.partitions = *parts;
    r.npartitions = k;
    if (sp->phase >= 0) {
      const phase *ph = &R->s->model->phases[sp->phase];
      r.phase = ph->name;
      r.resource = scn_res_name(ph->resource);
      if (ph->resource == RES_CPU) r.threads = ph->threads_all ? R->threads_all : ph->threads;
      r.cpu_s = sp->cpu_s;
    } else {
      r.phase = sp->phase == SP_WAIT ? "mutex_wait" : "mutex_held";
      r.resource = "none";
    }
  }
  spans_format(b, &r);
}

int runner__spans_drain(mrun *R, ps_err *e) {
  FILE *f = R->o->spans_file;
  ps_buf *b = R->spans_out;
  if (!f || !b || !b->len) return PS_OK;
  if (fwrite(b->p, 1, b->len, f) != b->len || fflush(f) != 0)
    return ps_fail(e, PS_ERR, "cannot write the spans file: %s", strerror(errno ? errno : EIO));
  b->len = 0;
  return PS_OK;
}

/* ---- Prefix values ---- */

typedef struct cpoint {
  double t;
  int w;
  size_t i; /* the call's index in its worker's calls */
} cpoint;

static int cmp_cpoint(const void *x, const void *y) {
  const cpoint *p = x, *q = y;
  if (p->t != q->t) return p->t < q->t ? -1 : 1;
  return p->w != q->w ? (p->w < q->w ? -1 : 1) : (p->i > q->i) - (p->i < q->i);
}

/* A piece of a span inside the slice being folded: what it adds to. */
typedef struct piece {
  double a, b, w; /* w: threads of a CPU phase */
  int gpu, what;  /* what: 0 busy, 1 held, 2 cpu */
} piece;

typedef struct tstep {
  double t, dw;
} tstep;

static int cmp_tstep(const void *x, const void *y) {
  const tstep *p = x, *q = y;
  return p->t < q->t ? -1 : p->t > q->t;
}

/* What a span adds to: 0 busy, 1 held, 2 cpu (*threads), -1 nothing. */
static int span_role(const mrun *R, const rspan *sp, double *threads) {
  if (sp->phase == SP_KERNEL) return R->timing == MT_PHASES ? -1 : 0;
  if (sp->phase == SP_HELD) return 1;
  if (sp->phase < 0) return -1;
  const phase *ph = &R->s->model->phases[sp->phase];
  if (ph->resource == RES_GPU) return R->timing == MT_PHASES ? 0 : -1;
  if (ph->resource == RES_CPU) {
    *threads = ph->threads;
    return 2;
  }
  return -1;
}

/* Adds sp's part inside [lo, hi] to the pieces, and its part past hi to carry. */
static void slice_span(const mrun *R, const rspan *sp, double lo, double hi, piece **pv, size_t *np, size_t *pcap,
                       rspans *carry) {
  double thr = 0;
  int role = span_role(R, sp, &thr);
  if (role < 0) return;
  double a = sp->t0 > lo ? sp->t0 : lo, b = sp->t1 < hi ? sp->t1 : hi;
  if (b > a) {
    if (*np == *pcap) *pv = xrealloc(*pv, (*pcap = *pcap ? 2 * *pcap : 256) * sizeof **pv);
    (*pv)[(*np)++] = (piece){a, b, thr, sp->gpu, role};
  }
  if (sp->t1 > hi) {
    rspan rest = *sp;
    rest.t0 = hi;
    runner__push(carry, &rest);
  }
}

int runner__fold(mrun *R, double h, ps_err *e) {
  const scenario *s = R->s;
  const int np_ = R->npre;
  /* What was recorded since the last fold, and the calls that ended by h. */
  pthread_mutex_lock(&R->dmu);
  for (size_t i = 0; i < R->dev.n; i++) runner__push(&R->pend, &R->dev.v[i]);
  R->dev.n = 0;
  pthread_mutex_unlock(&R->dmu);
  cpoint *cp = NULL;
  size_t ncp = 0, cpcap = 0;
  for (int wi = 0; wi < R->nw; wi++) {
    rworker *w = &R->w[wi];
    pthread_mutex_lock(&w->mu);
    for (size_t i = 0; i < w->spans.n; i++) runner__push(&R->pend, &w->spans.v[i]);
    w->spans.n = 0;
    size_t i = w->nfold;
    for (; i < w->ncalls && w->calls[i].t_end <= h; i++) {
      if (ncp == cpcap) cp = xrealloc(cp, (cpcap = cpcap ? 2 * cpcap : 64) * sizeof *cp);
      cp[ncp++] = (cpoint){w->calls[i].t_end, wi, i};
    }
    pthread_mutex_unlock(&w->mu);
    if (i * (size_t)np_ > w->precap) {
      w->precap = 2 * i * (size_t)np_;
      w->pre = xrealloc(w->pre, w->precap * sizeof *w->pre);
    }
  }
  if (ncp) qsort(cp, ncp, sizeof *cp, cmp_cpoint);

  /* The spans that start before h, in time order: written, then summarised. */
  size_t nnow = 0;
  for (size_t i = 0; i < R->pend.n; i++)
    if (R->pend.v[i].t0 < h) {
      rspan t = R->pend.v[i];
      R->pend.v[i] = R->pend.v[nnow];
      R->pend.v[nnow++] = t;
    }
  rspan *now = R->pend.v;
  if (nnow) qsort(now, nnow, sizeof *now, cmp_rspan);
  double lo = R->fold_h;
  if (R->spans_out) {
    int64_t *parts = NULL;
    int pcap = 0;
    for (size_t i = 0; i < nnow; i++) format_span(R, R->spans_out, &now[i], &parts, &pcap);
    free(parts);
  }
  piece *pv = NULL;
  size_t npc = 0, pvcap = 0;
  rspans carry = {0};
  for (size_t i = 0; i < R->carry.n; i++) slice_span(R, &R->carry.v[i], lo, h, &pv, &npc, &pvcap, &carry);
  for (size_t i = 0; i < nnow; i++) {
    const rspan *sp = &now[i];
    if (sp->t0 < lo) R->late++;
    if (sp->phase >= 0) {
      if (R->ndurs == R->capdurs) R->durs = xrealloc(R->durs, (R->capdurs = R->capdurs ? 2 * R->capdurs : 256) * sizeof *R->durs);
      R->durs[R->ndurs++] = (rdur){sp->t1, sp->t1 - sp->t0, sp->phase};
      R->nphase_spans++;
    }
    slice_span(R, sp, lo, h, &pv, &npc, &pvcap, &carry);
  }
  free(R->carry.v);
  R->carry = carry;
  /* The rest of pend waits for a later fold. */
  memmove(R->pend.v, R->pend.v + nnow, (R->pend.n - nnow) * sizeof *R->pend.v);
  R->pend.n -= nnow;

  /* Prefix values at every checkpoint and at h: the slice's own, added to fold_at. A
   * call that ended before lo (none, by design) gets the values at lo. */
  size_t nt = ncp + 1;
  double *ct = xmalloc(nt * sizeof *ct), *val = xcalloc(nt * (size_t)np_, sizeof *val), *tmp = xmalloc(nt * sizeof *tmp);
  for (size_t k = 0; k < ncp; k++) {
    if (cp[k].t < lo) R->late++;
    ct[k] = cp[k].t > lo ? cp[k].t : lo;
  }
  ct[ncp] = h;
  ivl *v[2], *both = NULL;
  size_t cap = npc ? npc : 1;
  v[0] = xmalloc(cap * sizeof(ivl)), v[1] = xmalloc(cap * sizeof(ivl)), both = xmalloc(2 * cap * sizeof(ivl));
  for (int g = 0; g < s->gpus; g++) {
    size_t n[2] = {0, 0};
    for (size_t i = 0; i < npc; i++)
      if (pv[i].gpu == g && pv[i].what < 2) v[pv[i].what][n[pv[i].what]++] = (ivl){pv[i].a, pv[i].b};
    if (!n[0] && !n[1]) continue;
    for (int k = 0; k < 2; k++) {
      n[k] = ivl_merge(v[k], n[k]);
      ivl_prefix(v[k], n[k], ct, nt, tmp);
      for (size_t j = 0; j < nt; j++) val[j * np_ + (k ? RUNNER_PRE_HELD(g) : RUNNER_PRE_BUSY(g))] = tmp[j];
    }
    size_t nb = ivl_inter(v[0], n[0], v[1], n[1], both);
    ivl_prefix(both, nb, ct, nt, tmp);
    for (size_t j = 0; j < nt; j++) val[j * np_ + RUNNER_PRE_BOTH(g)] = tmp[j];
  }
  /* CPU core-seconds: a sweep over the pieces' starts and ends at their thread counts. */
  tstep *st = xmalloc(2 * cap * sizeof *st);
  size_t nst = 0;
  for (size_t i = 0; i < npc; i++)
    if (pv[i].what == 2) st[nst++] = (tstep){pv[i].a, pv[i].w}, st[nst++] = (tstep){pv[i].b, -pv[i].w};
  if (nst) {
    qsort(st, nst, sizeof *st, cmp_tstep);
    double rate = 0, acc = 0, at = st[0].t;
    size_t i = 0;
    for (size_t j = 0; j < nt; j++) {
      for (; i < nst && st[i].t <= ct[j]; i++) {
        acc += rate * (st[i].t - at);
        at = st[i].t;
        rate += st[i].dw;
      }
      val[j * np_ + RUNNER_PRE_CPU(R)] = acc + (ct[j] > at && rate > 0 ? rate * (ct[j] - at) : 0);
    }
  }
  for (size_t k = 0; k < ncp; k++) {
    rworker *w = &R->w[cp[k].w];
    double *dst = w->pre + cp[k].i * (size_t)np_;
    for (int q = 0; q < np_; q++) dst[q] = R->fold_at[q] + val[k * np_ + q];
    if (cp[k].i + 1 > w->nfold) w->nfold = cp[k].i + 1;
  }
  for (int q = 0; q < np_; q++) R->fold_at[q] += val[ncp * np_ + q];
  R->fold_h = h;
  free(cp), free(ct), free(val), free(tmp), free(v[0]), free(v[1]), free(both), free(st), free(pv);
  return runner__spans_drain(R, e);
}

/* ---- The folder thread ---- */

/* Folding while a replication runs (runner_fold.c): every FOLD_PERIOD seconds, the
 * horizon is the earliest start of a call in progress (or now), less a margin for clock
 * rounding. With CUPTI, kernel records come a buffer at a time whenever one fills (the
 * runner never flushes while it measures: on the H200 a flush every half second cost 3
 * to 7 points of utilization), so the horizon also stays FOLD_SKEW before the latest
 * end among the records delivered: a kernel not yet delivered ends after it, and no
 * kernel runs that long (the longest on the H200, at 2^26 constraints, take well under
 * a second). The runner counts any record that still comes later (R->late) and the
 * report says so. */
#define FOLD_PERIOD 0.5
#define FOLD_MARGIN 0.002
#define FOLD_SKEW 3.0

void *runner__folder_main(void *arg) {
  mrun *R = arg;
  pthread_mutex_lock(&R->fold_mu);
  while (!R->folder_stop) {
    struct timespec ts;
    ps_deadline_in(&ts, FOLD_PERIOD);
    pthread_cond_timedwait(&R->fold_cv, &R->fold_mu, &ts);
    if (R->folder_stop) break;
    pthread_mutex_unlock(&R->fold_mu);
    pthread_mutex_lock(&R->qmu);
    double h = ps_now() - R->base;
    for (int i = 0; i < R->nw; i++)
      if (R->w[i].open_t0 < h) h = R->w[i].open_t0;
    pthread_mutex_unlock(&R->qmu);
    if (R->timing == MT_CUPTI) {
      if (R->cupti_flush == 1) mcupti_flush_complete();
      pthread_mutex_lock(&R->dmu);
      if (R->dev_t1_max - FOLD_SKEW < h) h = R->dev_t1_max - FOLD_SKEW;
      pthread_mutex_unlock(&R->dmu);
    }
    ps_err e = {0};
    if (!R->fold_failed && runner__fold(R, h - FOLD_MARGIN, &e) != PS_OK) {
      R->fold_failed = 1;
      runner__fail(R, &e);
    }
    pthread_mutex_lock(&R->fold_mu);
  }
  pthread_mutex_unlock(&R->fold_mu);
  return NULL;
}
