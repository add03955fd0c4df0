/* prec_run (precision.h): sim_run for the first round, then rounds of sim_run_rep under
 * par_for, each replication writing only its own slot, checked after every round. */
#include "precision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "stats.h"

double prec_reached(const scenario *s, const sim_metrics *reps, int n) {
  if (n < 2) return INFINITY;
  double worst = 0, *x = xmalloc((size_t)n * sizeof *x);
  for (int k = 0; k < RM_COUNT; k++) {
    if (!(s->prec_metrics >> k & 1)) continue;
    for (int i = 0; i < n; i++) x[i] = run_metric_value(&reps[i], (run_metric)k);
    double mean, half, rel;
    stats_mean_ci95(x, n, &mean, &half);
    if (!isfinite(mean) || !isfinite(half)) rel = INFINITY;
    else if (half == 0) rel = 0;
    else rel = mean != 0 ? half / fabs(mean) : INFINITY;
    if (rel > worst) worst = rel;
  }
  free(x);
  return worst;
}

typedef struct round_ctx {
  const scenario *s; /* the warm-up resolved */
  sim_result *res;
  int first;         /* replication index of the round's first */
  sim_span_fn on_span;
  void *span_ctx;
  int *rc;
  ps_err *errs;
} round_ctx;

static void round_range(void *ctx, size_t lo, size_t hi) {
  round_ctx *c = ctx;
  for (size_t i = lo; i < hi; i++) {
    int rep = c->first + (int)i;
    c->rc[i] = sim_run_rep(c->s, rep, c->on_span, c->span_ctx, &c->res->reps[rep], &c->errs[i]);
  }
}

/* Runs replications res->nreps .. res->nreps + b - 1 of s into res. */
static int run_round(const scenario *s, const sim_opts *o, sim_result *res, int b, ps_err *e) {
  int n = res->nreps;
  res->reps = xrealloc(res->reps, (size_t)(n + b) * sizeof *res->reps);
  memset(res->reps + n, 0, (size_t)b * sizeof *res->reps);
  round_ctx c = {.s = s, .res = res, .first = n, .on_span = o->on_span, .span_ctx = o->span_ctx};
  c.rc = xcalloc((size_t)b, sizeof *c.rc);
  c.errs = xcalloc((size_t)b, sizeof *c.errs);
  /* Spans go straight to the caller: one thread, replications in order. */
  par_for((size_t)b, 1, o->on_span ? 1 : o->threads, round_range, &c, NULL, NULL);
  int rc = PS_OK;
  for (int i = 0; i < b; i++)
    if (c.rc[i] != PS_OK && rc == PS_OK) {
      rc = c.rc[i];
      if (e) *e = c.errs[i];
    }
  res->nreps = n + b; /* every slot is either filled or zeroed: sim_result_free frees both */
  for (int i = n; i < n + b; i++) res->events += res->reps[i].events;
  free(c.rc);
  free(c.errs);
  return rc;
}

int prec_run(const scenario *s, const sim_opts *o, sim_result **out, ps_err *e) {
  if (!(s->prec_target > 0)) return sim_run(s, o, out, e);
  static const sim_opts none = {0};
  if (!o) o = &none;
  double t0 = ps_now();
  scenario t = *s; /* shallow copies: the engine only reads them */
  if (t.replications < 2) t.replications = 2;
  if (t.replications > s->prec_max) t.replications = s->prec_max;
  sim_result *res = NULL;
  int rc = sim_run(&t, o, &res, e);
  if (rc != PS_OK) return rc;
  t.warmup = res->warmup; /* what every replication uses, auto or not */
  t.warmup_auto = 0;
  double reached = prec_reached(s, res->reps, res->nreps);
  while (!(reached <= s->prec_target) && res->nreps < s->prec_max) {
    int b = s->prec_max - res->nreps < s->prec_batch ? s->prec_max - res->nreps : s->prec_batch;
    if ((rc = run_round(&t, o, res, b, e)) != PS_OK) {
      sim_result_free(res);
      return rc;
    }
    reached = prec_reached(s, res->reps, res->nreps);
  }
  res->precision = 1;
  res->precision_reached = reached;
  res->wall_s = ps_now() - t0;
  *out = res;
  return PS_OK;
}
