/* Implementation of sim/infer.h (the log reader is infer_log.c) in three parts: the
 * observed statistics, the simulated ones (the engine on an in-memory scenario, per-call
 * waits and held times collected from its mutex spans), and the fit: Nelder-Mead
 * (gsl_multimin_fminimizer_nmsimplex2) on a chi-square-like distance between the two, a
 * moving-block bootstrap around it, and the what-ifs of the fitted model. */
#define _GNU_SOURCE
#include "infer.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calib.h"
#include "dist.h"
#include "pipe.h"
#include "scn.h"
#include "seed.h"

/* ================================================================ statistics */

static const double qp[INFER_NQ] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};

/* Moves the k-th smallest of x[lo..hi] to x[k], smaller ones before it and larger ones
 * after (Hoare's selection, median-of-three pivots). */
static void select_k(double *x, size_t lo, size_t hi, size_t k) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x[mid] < x[lo]) { double t = x[mid]; x[mid] = x[lo]; x[lo] = t; }
    if (x[hi] < x[lo]) { double t = x[hi]; x[hi] = x[lo]; x[lo] = t; }
    if (x[hi] < x[mid]) { double t = x[hi]; x[hi] = x[mid]; x[mid] = t; }
    double p = x[mid];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (x[i] < p) i++;
      while (x[j] > p) j--;
      if (i <= j) {
        double t = x[i];
        x[i] = x[j];
        x[j] = t;
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/* The deciles of x[0..n) (linear between order statistics); reorders x. Each order
 * statistic is selected in the part above the previous one, so the whole costs a few
 * passes over x rather than a sort. */
static void deciles(double *x, size_t n, double *q) {
  size_t from = 0;
  for (int i = 0; i < INFER_NQ; i++) {
    double h = (double)(n - 1) * qp[i];
    size_t lo = (size_t)h;
    select_k(x, from, n - 1, lo);
    double a = x[lo], b = a;
    if (lo + 1 < n) { /* the next order statistic: the least of those above */
      b = x[lo + 1];
      for (size_t j = lo + 2; j < n; j++) b = x[j] < b ? x[j] : b;
    }
    q[i] = a + (h - (double)lo) * (b - a);
    from = lo + 1;
  }
}

static void mean_sd(const double *x, size_t n, double *m, double *sd) {
  double s = 0, ss = 0;
  for (size_t i = 0; i < n; i++) s += x[i];
  *m = s / (double)n;
  for (size_t i = 0; i < n; i++) ss += (x[i] - *m) * (x[i] - *m);
  *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

/* What the fit compares: the call column's deciles and mean, the waits' (when logged),
 * calls per second (from start times), and GPU utilization (simulated only). */
typedef struct fstats {
  double q[INFER_NQ], mean, sd;
  double wq[INFER_NQ], wmean, wsd;
  double pps, gap_cv;
  double util;
} fstats;

/* The statistics of records ix[0..n) of L (ix NULL: all of them, in order); tmp holds n. */
static void obs_stats(const infer_log *L, const size_t *ix, size_t n, double *tmp, fstats *s) {
  memset(s, 0, sizeof *s);
  s->util = NAN;
  for (size_t i = 0; i < n; i++) tmp[i] = L->call[ix ? ix[i] : i];
  mean_sd(tmp, n, &s->mean, &s->sd);
  deciles(tmp, n, s->q);
  if (L->wait) {
    for (size_t i = 0; i < n; i++) tmp[i] = L->wait[ix ? ix[i] : i];
    mean_sd(tmp, n, &s->wmean, &s->wsd);
    deciles(tmp, n, s->wq);
  }
  s->pps = s->gap_cv = NAN;
  if (L->start) {
    /* Record k's gap is the time to the next start (the last record has none), so a
     * resample's rate is its gaps' count over their sum. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      size_t k = ix ? ix[i] : i;
      if (k + 1 < L->n) tmp[m++] = L->start[k + 1] - L->start[k];
    }
    double gm, gsd;
    mean_sd(tmp, m, &gm, &gsd);
    if (m > 0 && gm > 0) {
      s->pps = 1 / gm;
      s->gap_cv = gsd / gm;
    }
  }
}

/* ================================================================ the simulated daemon */

enum { P_SETUP, P_GPU, P_CLEANUP, P_OUTSIDE };

static void add_phase(model *m, const char *name, res_kind r) {
  phase *p = &m->phases[m->nphases];
  memset(p, 0, sizeof *p);
  p->name = xstrdup(name);
  p->resource = r;
  p->threads = 1;
  p->busy = 1;
  if (m->nphases > 0) {
    p->after = xmalloc(sizeof(int));
    p->after[0] = m->nphases - 1;
    p->nafter = 1;
  }
  m->nphases++;
}

/* The time outside the lock of a fit: its kind (INFER_OUT_*) and, for INFER_OUT_SEEN, the
 * distribution fitted to the gaps. */
typedef struct outside {
  int kind;
  dist d;
} outside;

/* The model: setup (cpu, lognormal S, cv) -> gpu (the given compute) -> cleanup (cpu, 0)
 * [-> outside (none: lognormal T with cv 1, or out->d)], scopes call and kernels. */
static model *build_model(const infer_opts *o, double S, double cv, const outside *out, double T) {
  model *m = xcalloc(1, sizeof *m);
  m->name = xstrdup("inferred");
  m->interference = 1;
  m->phases = xcalloc(4, sizeof(phase));
  add_phase(m, "setup", RES_CPU);
  add_phase(m, "gpu", RES_GPU);
  add_phase(m, "cleanup", RES_CPU);
  if (out->kind != INFER_OUT_NONE) add_phase(m, "outside", RES_NONE);
  int rc = dist_lognormal_mean_cv(&m->phases[P_SETUP].time, S, cv, NULL);
  rc |= o->gpu_hi > o->gpu_lo ? dist_uniform(&m->phases[P_GPU].time, o->gpu_lo, o->gpu_hi, NULL)
                              : dist_const(&m->phases[P_GPU].time, o->gpu_lo, NULL);
  rc |= dist_const(&m->phases[P_CLEANUP].time, 0, NULL);
  if (out->kind == INFER_OUT_FREE) rc |= dist_lognormal_mean_cv(&m->phases[P_OUTSIDE].time, T, 1, NULL);
  if (out->kind == INFER_OUT_SEEN) dist_copy(&m->phases[P_OUTSIDE].time, &out->d);
  PS_ASSERT(rc == 0);
  m->scopes = xcalloc(2, sizeof(scope));
  m->scopes[0] = (scope){xstrdup("call"), P_SETUP, P_CLEANUP};
  m->scopes[1] = (scope){xstrdup("kernels"), P_GPU, P_GPU};
  m->nscopes = 2;
  return m;
}

static void set_params(model *m, double S, double cv, const outside *out, double T) {
  int rc = dist_lognormal_mean_cv(&m->phases[P_SETUP].time, S, cv, NULL);
  if (out->kind == INFER_OUT_FREE) rc |= dist_lognormal_mean_cv(&m->phases[P_OUTSIDE].time, T, 1, NULL);
  PS_ASSERT(rc == 0);
}

/* A closed backlog of calls on the model with the lock over the whole call (narrow 0) or
 * the GPU phase (narrow 1); takes ownership of m. */
static scenario *mk_scn(const infer_opts *o, model *m, int workers, int narrow) {
  scenario *s = xcalloc(1, sizeof *s);
  s->name = xstrdup("infer");
  s->model = m;
  s->gpus = o->gpus;
  s->workers_per_gpu = workers;
  s->cpu_cores = o->cores > 0 ? o->cores : SCN_MAX_CORES;
  s->batch = 1;
  s->mutex_name = xstrdup(narrow ? "kernels" : "call");
  s->mutex_from = narrow ? P_GPU : P_SETUP;
  s->mutex_to = narrow ? P_GPU : P_CLEANUP;
  s->thr = THR_SHARE;
  s->keep_core = 1;
  s->replications = 1;
  s->seed = o->seed;
  s->partitions_per_proof = 1;
  return s;
}

/* Waits and held times of the calls kept, [lo, hi) in start order, from the mutex spans. */
typedef struct coll {
  int64_t lo, hi;
  double *wait, *held;
} coll;

static void coll_span(void *ctx, const sim_span *sp) {
  coll *c = ctx;
  if (sp->call < c->lo || sp->call >= c->hi || sp->phase[0] != 'm') return;
  if (!strcmp(sp->phase, "mutex_wait")) c->wait[sp->call - c->lo] = sp->t1 - sp->t0;
  else if (!strcmp(sp->phase, "mutex_held")) c->held[sp->call - c->lo] = sp->t1 - sp->t0;
}

/* Buffers of one simulation thread, for m calls. */
typedef struct simbuf {
  size_t m;
  double *wait, *held, *tmp;
} simbuf;

static void simbuf_init(simbuf *b, size_t m) {
  b->m = m;
  b->wait = xmalloc(m * sizeof(double));
  b->held = xmalloc(m * sizeof(double));
  b->tmp = xmalloc(m * sizeof(double));
}

static void simbuf_free(simbuf *b) {
  free(b->wait);
  free(b->held);
  free(b->tmp);
}

/* Replication rep of s with b->m calls kept after a warm-up of a few calls per worker,
 * the drain of the backlog left out; the statistics of those calls as the log would show
 * them (the waits' deciles only with need_wq). */
static int sim_stats(scenario *s, int rep, simbuf *b, int call_has_wait, int need_wq, fstats *st, ps_err *e) {
  int64_t ng = (int64_t)s->gpus * s->workers_per_gpu, skip = 5 * ng + 10;
  s->partitions = skip + (int64_t)b->m + ng;
  s->warmup = skip;
  s->cooldown = ng;
  coll c = {skip, skip + (int64_t)b->m, b->wait, b->held};
  sim_metrics mt;
  int rc = sim_run_rep(s, rep, coll_span, &c, &mt, e);
  if (rc != PS_OK) return rc;
  memset(st, 0, sizeof *st);
  for (size_t i = 0; i < b->m; i++) b->tmp[i] = call_has_wait ? b->wait[i] + b->held[i] : b->held[i];
  mean_sd(b->tmp, b->m, &st->mean, &st->sd);
  deciles(b->tmp, b->m, st->q);
  mean_sd(b->wait, b->m, &st->wmean, &st->wsd);
  if (need_wq) {
    memcpy(b->tmp, b->wait, b->m * sizeof(double));
    deciles(b->tmp, b->m, st->wq);
  }
  st->pps = mt.throughput_pps;
  st->util = mt.gpu_util_mean;
  st->gap_cv = NAN;
  sim_metrics_free(&mt);
  return PS_OK;
}

/* ================================================================ the fit */

/* One fit: the observed statistics, their standard errors (of the whole log, so every
 * bootstrap refit weighs alike), the parameters' bounds, and a simulation of its own. */
typedef struct fitctx {
  const infer_opts *o;
  fstats obs;
  int has_w, has_x, has_u, np;
  double se_c, se_w, se_x;
  double lo[3], hi[3];     /* bounds of the parameters: log S, log cv, log T */
  outside out;             /* borrowed from the caller */
  scenario *s;
  int rep;
  simbuf buf;
  int evals, failed;
  ps_err err;
  fstats last;               /* the statistics of the last evaluation */
} fitctx;

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

static void params_of(const fitctx *F, const double *x, double *S, double *cv, double *T) {
  *S = exp(clampd(x[0], F->lo[0], F->hi[0]));
  *cv = exp(clampd(x[1], F->lo[1], F->hi[1]));
  *T = F->out.kind == INFER_OUT_FREE   ? exp(clampd(x[2], F->lo[2], F->hi[2]))
       : F->out.kind == INFER_OUT_SEEN ? dist_mean(&F->out.d)
                                       : 0;
}

static double sq(double x) { return x * x; }

static double distance(const fitctx *F, const fstats *sim) {
  const fstats *ob = &F->obs;
  double d = sq((sim->mean - ob->mean) / F->se_c);
  for (int i = 0; i < INFER_NQ; i++) d += sq((sim->q[i] - ob->q[i]) / F->se_c);
  if (F->has_w) {
    d += sq((sim->wmean - ob->wmean) / F->se_w);
    for (int i = 0; i < INFER_NQ; i++) d += sq((sim->wq[i] - ob->wq[i]) / F->se_w);
  }
  if (F->has_x) d += sq((sim->pps - ob->pps) / F->se_x);
  if (F->has_u) d += sq((sim->util - F->o->util) / F->o->util_sd);
  return d;
}

static double eval_at(fitctx *F, const double *x) {
  double S, cv, T;
  params_of(F, x, &S, &cv, &T);
  set_params(F->s->model, S, cv, &F->out, T);
  if (sim_stats(F->s, F->rep, &F->buf, F->o->call_has_wait, F->has_w, &F->last, &F->err) != PS_OK) {
    F->failed = 1;
    return 1e300;
  }
  F->evals++;
  double d = distance(F, &F->last);
  /* Outside the bounds the objective is flat; a pull back keeps the simplex near them. */
  for (int i = 0; i < F->np; i++) d += 10 * (sq(fmax(0, F->lo[i] - x[i])) + sq(fmax(0, x[i] - F->hi[i])));
  return d;
}

static double objective(const gsl_vector *v, void *ctx) {
  fitctx *F = ctx;
  double x[3] = {0, 0, 0};
  for (int i = 0; i < F->np; i++) x[i] = gsl_vector_get(v, i);
  return F->failed ? 1e300 : eval_at(F, x);
}

/* Nelder-Mead from x (updated in place) with initial steps step, until the simplex's size
 * is below tol or maxit iterations; returns the objective at the result. */
static double nm(fitctx *F, double *x, const double *step, double tol, int maxit) {
  gsl_multimin_fminimizer *mn = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)F->np);
  gsl_vector *xv = gsl_vector_alloc((size_t)F->np), *sv = gsl_vector_alloc((size_t)F->np);
  for (int i = 0; i < F->np; i++) {
    gsl_vector_set(xv, i, x[i]);
    gsl_vector_set(sv, i, step[i]);
  }
  gsl_multimin_function fn = {objective, (size_t)F->np, F};
  gsl_multimin_fminimizer_set(mn, &fn, xv, sv);
  for (int it = 0; it < maxit && !F->failed; it++) {
    if (gsl_multimin_fminimizer_iterate(mn) != GSL_SUCCESS) break;
    if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(mn), tol) == GSL_SUCCESS) break;
  }
  for (int i = 0; i < F->np; i++) x[i] = gsl_vector_get(mn->x, i);
  double f = mn->fval;
  gsl_vector_free(xv);
  gsl_vector_free(sv);
  gsl_multimin_fminimizer_free(mn);
  return f;
}

/* A fit like proto's, on simulation stream rep, with the time outside the lock out
 * (borrowed). */
static void fit_init(fitctx *F, const fitctx *proto, const infer_opts *o, int rep, const outside *out) {
  *F = *proto;
  F->out = *out;
  F->o = o;
  F->rep = rep;
  F->evals = F->failed = 0;
  F->s = mk_scn(o, build_model(o, 1, 0.3, out, 1), o->workers, 0);
  simbuf_init(&F->buf, proto->buf.m);
}

static void fit_free(fitctx *F) {
  scn_free(F->s);
  simbuf_free(&F->buf);
}

/* ================================================================ bootstrap and what-ifs */

#define INFER_SIM_MIN 4000     /* simulated calls per evaluation, at least */
#define INFER_SIM_MAX 40000    /* and at most (4 per logged call in between) */
#define INFER_SIM_WHATIF 60000 /* simulated calls of each what-if at the estimate */

/* The distribution of the gaps gap[ix[i]] that are known (all of them when ix is NULL),
 * into out->d: calib_fit's choice by AIC. tmp holds n. */
static int fit_gaps(const double *gap, const size_t *ix, size_t n, double *tmp, outside *out, ps_err *e) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    double x = gap[ix ? ix[i] : i];
    if (isfinite(x)) tmp[m++] = x;
  }
  calib_fit_result f;
  int rc = calib_fit(tmp, m, CALIB_AUTO, &f, e);
  if (rc == PS_OK) out->d = f.d;
  return rc;
}

/* Refits b = lo..hi-1 of the bootstrap: a circular moving-block resample of the records
 * (blocks keep the correlation of neighbouring calls, which share the lock), fitted from
 * the estimate with simulation stream b + 1; then the fitted model's utilization now and
 * with the lock narrowed to the GPU phase, on the same stream. Gaps seen in the log are
 * refitted on each resample. */
typedef struct bootjob {
  const infer_log *L;
  const double *gap;         /* NULL unless the gaps were seen */
  const infer_opts *o;
  const fitctx *proto;
  const double *xhat;
  size_t block;
  double *x;                 /* 3 per refit: S, cv, T */
  double *util, *nutil, *gain;
  int *evals, *rc;
  ps_err *err;
} bootjob;

static void boot_range(void *ctx, size_t lo, size_t hi) {
  bootjob *J = ctx;
  size_t n = J->L->n;
  size_t *ix = xmalloc(n * sizeof *ix);
  double *tmp = xmalloc(n * sizeof *tmp);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  static const double step[3] = {0.05, 0.15, 0.3};
  for (size_t b = lo; b < hi; b++) {
    gsl_rng_set(r, (unsigned long)ps_seed_mix(J->o->seed ^ 0x696e666572ULL, b));
    for (size_t k = 0; k < n;) {
      size_t s0 = (size_t)gsl_rng_uniform_int(r, (unsigned long)n);
      for (size_t j = 0; j < J->block && k < n; j++) ix[k++] = (s0 + j) % n;
    }
    outside out = {J->proto->out.kind, {0}};
    if (out.kind == INFER_OUT_SEEN) {
      ps_err e = {0};
      /* The resample's gaps fit when the whole log's did, but for a degenerate draw. */
      if (fit_gaps(J->gap, ix, n, tmp, &out, &e) != PS_OK) dist_copy(&out.d, &J->proto->out.d);
    }
    fitctx F;
    fit_init(&F, J->proto, J->o, (int)b + 1, &out);
    obs_stats(J->L, ix, n, tmp, &F.obs);
    double *x = J->x + 3 * b;
    memcpy(x, J->xhat, 3 * sizeof *x);
    nm(&F, x, step, 2e-3, 150);
    eval_at(&F, x);
    J->util[b] = F.last.util;
    double pps = F.last.pps;
    fstats st;
    F.s->mutex_from = F.s->mutex_to = P_GPU;
    if (!F.failed && sim_stats(F.s, (int)b + 1, &F.buf, J->o->call_has_wait, 0, &st, &F.err) != PS_OK) F.failed = 1;
    J->nutil[b] = F.failed ? NAN : st.util;
    J->gain[b] = F.failed ? NAN : st.pps / pps;
    J->evals[b] = F.evals;
    J->rc[b] = F.failed ? PS_ERR : PS_OK;
    if (F.failed) J->err[b] = F.err;
    params_of(&F, x, &x[0], &x[1], &x[2]);
    fit_free(&F);
    dist_free(&out.d);
  }
  gsl_rng_free(r);
  free(ix);
  free(tmp);
}

/* The what-ifs at the estimate, one simulation each. */
typedef struct gridjob {
  const infer_opts *o;
  double S, cv, T;
  const outside *out;
  infer_whatif *g;
  int *rc;
  ps_err *err;
} gridjob;

static void grid_range(void *ctx, size_t lo, size_t hi) {
  gridjob *J = ctx;
  for (size_t i = lo; i < hi; i++) {
    infer_whatif *w = &J->g[i];
    scenario *s = mk_scn(J->o, build_model(J->o, J->S, J->cv, J->out, J->T), w->workers, w->narrow);
    simbuf b;
    simbuf_init(&b, INFER_SIM_WHATIF);
    fstats st;
    J->rc[i] = sim_stats(s, 0, &b, J->o->call_has_wait, 0, &st, &J->err[i]);
    if (J->rc[i] == PS_OK) {
      w->util = st.util;
      w->pps = st.pps;
      w->wait_s = st.wmean;
      w->call_s = st.mean;
    }
    simbuf_free(&b);
    scn_free(s);
  }
}

typedef struct tickwrap {
  par_tick_fn fn;
  void *ctx;
} tickwrap;

static void tick_plus1(void *ctx, size_t done) {
  tickwrap *t = ctx;
  t->fn(t->ctx, done + 1);
}

/* The estimate with est +- t sd of the refits v[0], v[stride], ... (on the log scale for
 * positive quantities, so that the interval stays positive). */
static void ci_of(infer_ci *c, double est, const double *v, size_t stride, int nb, int logscale) {
  c->est = est;
  c->lo = c->hi = NAN;
  if (nb < 2) return;
  double s = 0, ss = 0;
  for (int b = 0; b < nb; b++) s += logscale ? log(v[b * stride]) : v[b * stride];
  double m = s / nb;
  for (int b = 0; b < nb; b++) ss += sq((logscale ? log(v[b * stride]) : v[b * stride]) - m);
  double sd = sqrt(ss / (nb - 1)), t = gsl_cdf_tdist_Pinv(0.975, nb - 1);
  c->lo = logscale ? est * exp(-t * sd) : est - t * sd;
  c->hi = logscale ? est * exp(t * sd) : est + t * sd;
}

const char *infer_identification(const infer_ci *c) {
  if (!isfinite(c->lo) || !isfinite(c->hi)) return "no interval (no bootstrap)";
  if (!(c->est > 0)) return "not identified";
  double w = (c->hi - c->lo) / 2 / c->est;
  return w <= 0.10 ? "well identified" : w <= 0.5 ? "weakly identified" : "not identified";
}

void infer_result_free(infer_result *r) {
  free(r->grid);
  dist_free(&r->outside_dist);
  memset(r, 0, sizeof *r);
}

/* ================================================================ infer_run */

/* gap[k]: from record k's end to its worker's next start (NAN for a worker's last call),
 * where the log names workers and times whole calls; NULL otherwise. */
static double *worker_gaps(const infer_log *L, int call_has_wait) {
  if (!L->start || !L->worker || L->nworkers <= 0 || !(call_has_wait || L->wait)) return NULL;
  double *gap = xmalloc(L->n * sizeof *gap);
  int *last = xmalloc((size_t)L->nworkers * sizeof *last);
  for (int w = 0; w < L->nworkers; w++) last[w] = -1;
  size_t cnt = 0;
  for (size_t i = 0; i < L->n; i++) {
    gap[i] = NAN;
    int w = L->worker[i];
    if (last[w] >= 0) {
      size_t k = (size_t)last[w];
      gap[k] = fmax(0, L->start[i] - (L->start[k] + L->call[k] + (call_has_wait ? 0 : L->wait[k])));
      cnt++;
    }
    last[w] = (int)i;
  }
  free(last);
  if (cnt < 2) {
    free(gap);
    return NULL;
  }
  return gap;
}

int infer_run(const infer_log *L, const infer_opts *o, infer_result *R, ps_err *e) {
  memset(R, 0, sizeof *R);
  PS_ASSERT(L->n >= 2 && o->workers >= 1 && o->gpus >= 1 && o->gpu_lo > 0 && o->gpu_hi >= o->gpu_lo);
  dist_gsl_init();
  size_t n = L->n;
  int ng = o->workers * o->gpus, rc = PS_OK, nb = o->boot > 0 ? o->boot : 0;
  double g = (o->gpu_lo + o->gpu_hi) / 2, gvar = sq(o->gpu_hi - o->gpu_lo) / 12, rn = sqrt((double)n);
  double *tmp = xmalloc(n * sizeof *tmp), *gap = worker_gaps(L, o->call_has_wait);
  double *bx = xcalloc(3 * (size_t)nb + 1, sizeof *bx), *bu = xcalloc((size_t)nb + 1, sizeof *bu);
  double *bn = xcalloc((size_t)nb + 1, sizeof *bn), *bg = xcalloc((size_t)nb + 1, sizeof *bg);
  int *bev = xcalloc((size_t)nb + 1, sizeof *bev), *brc = xcalloc((size_t)nb + 1, sizeof *brc);
  ps_err *berr = xcalloc((size_t)nb + 1, sizeof *berr);
  outside out = {INFER_OUT_NONE, {0}};
  fitctx P = {.o = o}, F = {0};
  obs_stats(L, NULL, n, tmp, &P.obs);
  P.has_w = L->wait != NULL;
  P.has_x = L->start != NULL;
  P.has_u = isfinite(o->util);
  if (P.has_x && !(P.obs.pps > 0 && isfinite(P.obs.pps))) {
    rc = ps_fail(e, PS_EINPUT, "the start times do not advance (every record starts at %g s): expected the times "
                 "the calls started", L->start[0]);
    goto out;
  }
  /* The held time where the log shows it, and the whole call (wait and held). */
  double held = NAN, held_var = NAN, total = NAN;
  if (!o->call_has_wait) {
    held = P.obs.mean;
    held_var = sq(P.obs.sd);
    if (P.has_w) total = P.obs.mean + P.obs.wmean;
  } else {
    total = P.obs.mean;
    if (P.has_w) {
      for (size_t i = 0; i < n; i++) tmp[i] = L->call[i] - L->wait[i];
      double sd;
      mean_sd(tmp, n, &held, &sd);
      held_var = sq(sd);
    }
  }
  /* The starting point: the held time less the GPU's, from whatever the log shows of it. */
  double S0 = isfinite(held) ? held - g : P.has_x ? o->gpus / P.obs.pps - g : P.obs.mean / o->workers - g;
  S0 = fmax(S0, 0.05 * g);
  double cv0 = isfinite(held_var) ? clampd(sqrt(fmax(held_var - gvar, sq(0.05 * S0))) / S0, 0.05, 2) : 0.3;
  /* The time outside the lock: seen in the gaps between a worker's calls; or, without
   * workers, fitted when the start times show a worker's cycle (workers / rate) longer
   * than its calls, or when waits or the utilization carry the information; otherwise
   * none (each worker calls again at once). Whether the gaps "show" is judged against
   * their noise (block-correlated, hence the factor). */
  double T0 = 0;
  R->gap_mean = NAN;
  if (gap) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (isfinite(gap[i])) tmp[m++] = gap[i];
    double gm, gsd;
    mean_sd(tmp, m, &gm, &gsd);
    R->gap_mean = gm;
    if (gm > 3 * gsd / sqrt((double)m) && gm > 0.01 * total) {
      out.kind = INFER_OUT_SEEN;
      if ((rc = fit_gaps(gap, NULL, n, tmp, &out, e)) != PS_OK) goto out;
    } else {
      R->outside_why = "the gaps between a worker's calls are about 0";
    }
  } else if (P.has_x) {
    double cyc = ng / P.obs.pps;
    int show;
    if (isfinite(total)) {
      T0 = cyc - total;
      double se = (cyc * fmax(P.obs.gap_cv, 0.05) + P.obs.sd) / rn * sqrt(2.0 * ng);
      show = T0 > 3 * se && T0 > 0.01 * total;
      R->outside_why = "the start times show no gaps between calls";
    } else {
      show = P.obs.pps / o->gpus * held < 0.97; /* the lock is free part of the time */
      T0 = cyc - o->workers * held;
      R->outside_why = "assumed: the lock is always busy, and then start times cannot show pauses shorter "
                       "than the wait (log the worker or the wait to see them)";
    }
    if (show) out.kind = INFER_OUT_FREE;
  } else if (P.has_u || P.has_w) {
    out.kind = INFER_OUT_FREE;
  } else {
    R->outside_why = "assumed (no start times, waits or utilization tell)";
  }
  if (out.kind != INFER_OUT_NONE) R->outside_why = NULL;
  T0 = fmax(T0, 0.1 * (S0 + g));
  P.out = out;
  P.np = 2 + (out.kind == INFER_OUT_FREE);
  double top = log(1e3 * (P.obs.mean + g));
  P.lo[0] = log(1e-3 * g);
  P.hi[0] = top;
  P.lo[1] = log(0.01);
  P.hi[1] = log(3.0);
  P.lo[2] = log(1e-3 * (S0 + g));
  P.hi[2] = top;
  P.se_c = fmax(P.obs.sd, 1e-3 * P.obs.mean) / rn;
  P.se_w = P.has_w ? fmax(P.obs.wsd, 1e-3 * fmax(P.obs.wmean, P.obs.mean)) / rn : 1;
  P.se_x = P.has_x ? P.obs.pps * fmax(P.obs.gap_cv, 0.05) / rn : 1;
  P.buf.m = (size_t)clampd(4.0 * (double)n, INFER_SIM_MIN, INFER_SIM_MAX);

  /* The estimate: Nelder-Mead, then a restart from where it stopped. */
  fit_init(&F, &P, o, 0, &out);
  double x[3] = {log(S0), log(cv0), log(T0)};
  static const double step1[3] = {0.25, 0.4, 0.7}, step2[3] = {0.05, 0.15, 0.3};
  nm(&F, x, step1, 1e-3, 400);
  nm(&F, x, step2, 5e-4, 200);
  R->distance = eval_at(&F, x);
  if (F.failed) {
    rc = ps_fail(e, PS_ERR, "the simulation of the fit failed: %s", F.err.msg);
    goto out;
  }
  double S, cv, T;
  params_of(&F, x, &S, &cv, &T);
  R->n = n;
  R->gpu_mean = g;
  R->has_wait = P.has_w;
  R->has_start = P.has_x;
  R->has_util = P.has_u;
  R->outside = out.kind;
  R->nparams = P.np;
  R->nstats = 10 + (P.has_w ? 10 : 0) + P.has_x + P.has_u;
  R->sim_calls = P.buf.m;
  memcpy(R->obs_q, P.obs.q, sizeof R->obs_q);
  memcpy(R->sim_q, F.last.q, sizeof R->sim_q);
  R->obs_mean = P.obs.mean;
  R->sim_mean = F.last.mean;
  memcpy(R->obs_wq, P.obs.wq, sizeof R->obs_wq);
  memcpy(R->sim_wq, F.last.wq, sizeof R->sim_wq);
  R->obs_wmean = P.has_w ? P.obs.wmean : NAN;
  R->sim_wmean = F.last.wmean;
  R->obs_pps = P.obs.pps;
  R->sim_pps = F.last.pps;
  R->obs_util = o->util;
  R->evals = F.evals;
  tickwrap tw = {o->progress, o->progress_ctx};
  if (o->progress) o->progress(o->progress_ctx, 1);

  /* The bootstrap. */
  size_t block = (size_t)fmax(ceil(cbrt((double)n)), 5.0 * ng);
  if (block > n / 5) block = n / 5 > 0 ? n / 5 : 1;
  R->block = (int)block;
  if (nb > 0) {
    bootjob J = {L, out.kind == INFER_OUT_SEEN ? gap : NULL, o, &P, x, block, bx, bu, bn, bg, bev, brc, berr};
    par_for((size_t)nb, 1, o->threads, boot_range, &J, o->progress ? tick_plus1 : NULL, &tw);
    for (int b = 0; b < nb && rc == PS_OK; b++)
      if (brc[b] != PS_OK) rc = ps_fail(e, PS_ERR, "the simulation of bootstrap refit %d failed: %s", b + 1, berr[b].msg);
    for (int b = 0; b < nb; b++) R->evals += bev[b];
    R->boot_done = nb;
  }
  if (rc != PS_OK) goto out;
  ci_of(&R->cpu_lock, S, bx, 3, nb, 1);
  ci_of(&R->cpu_cv, cv, bx + 1, 3, nb, 1);
  if (out.kind != INFER_OUT_NONE) {
    ci_of(&R->outside_s, T, bx + 2, 3, nb, 0);
    if (R->outside_s.lo < 0) R->outside_s.lo = 0;
  } else {
    R->outside_s = (infer_ci){0, NAN, NAN};
  }
  if (out.kind == INFER_OUT_FREE) dist_lognormal_mean_cv(&R->outside_dist, T, 1, NULL);
  if (out.kind == INFER_OUT_SEEN) dist_copy(&R->outside_dist, &out.d);

  /* The what-ifs at the estimate: 1..4 workers (and the logged count), both locks. */
  int nw = o->workers > 4 ? 5 : 4;
  R->ngrid = 2 * nw;
  R->grid = xcalloc((size_t)R->ngrid, sizeof *R->grid);
  for (int i = 0; i < R->ngrid; i++) {
    R->grid[i].workers = i / 2 < 4 ? i / 2 + 1 : o->workers;
    R->grid[i].narrow = i % 2;
  }
  int *grc = xcalloc((size_t)R->ngrid, sizeof *grc);
  ps_err *gerr = xcalloc((size_t)R->ngrid, sizeof *gerr);
  gridjob G = {o, S, cv, T, &out, R->grid, grc, gerr};
  par_for((size_t)R->ngrid, 1, o->threads, grid_range, &G, NULL, NULL);
  for (int i = 0; i < R->ngrid && rc == PS_OK; i++)
    if (grc[i] != PS_OK) rc = ps_fail(e, PS_ERR, "the what-if simulation failed: %s", gerr[i].msg);
  free(grc);
  free(gerr);
  if (rc != PS_OK) goto out;
  const infer_whatif *now = NULL, *nar = NULL;
  for (int i = 0; i < R->ngrid; i++)
    if (R->grid[i].workers == o->workers) *(R->grid[i].narrow ? &nar : &now) = &R->grid[i];
  PS_ASSERT(now && nar);
  ci_of(&R->util, now->util, bu, 1, nb, 0);
  ci_of(&R->narrow_util, nar->util, bn, 1, nb, 0);
  ci_of(&R->narrow_gain, nar->pps / now->pps, bg, 1, nb, 1);
  R->logged_s = P.obs.mean;
  R->wait_s = P.has_w ? P.obs.wmean : now->wait_s;
out:
  if (F.s) fit_free(&F);
  dist_free(&out.d);
  free(bx);
  free(bu);
  free(bn);
  free(bg);
  free(bev);
  free(brc);
  free(berr);
  free(tmp);
  free(gap);
  if (rc != PS_OK) infer_result_free(R);
  return rc;
}

model *infer_model(const infer_result *r, const infer_opts *o, const char *name, const char *source) {
  outside out = {r->outside, r->outside_dist};
  model *m = build_model(o, r->cpu_lock.est, r->cpu_cv.est, &out, r->outside_s.est);
  free(m->name);
  m->name = xstrdup(name);
  m->source = source ? xstrdup(source) : NULL;
  return m;
}
