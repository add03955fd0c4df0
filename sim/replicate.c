/* Replications (sim/pipe.h: sim_run, sim_run_rep): each is one run of the engine
 * (pipe.c, through pipe_int.h) on its own random stream; they run in parallel threads
 * (common/par.c), their spans reach the caller in replication order through spanord.h's
 * bounded buffers, and run.warmup: auto is resolved first by a pilot run, so that results
 * do not depend on the number of threads. */
#include "pipe.h"
#include "pipe_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mser.h"
#include "seed.h"
#include "par.h"
#include "spanord.h"

/* run.warmup: auto: a pilot of replication 0's stream with no warm-up gives the series of
 * partition latencies in completion order (up to partition partitions - cooldown), and
 * MSER-5 the warm-up. The pilot is replication 0 itself, run once more, so the choice is
 * a function of the scenario and the seed alone (not of the thread count). */
static int choose_warmup(const scenario *s, int64_t *out, ps_err *e) {
  scenario p = *s; /* a shallow copy: the engine only reads it */
  p.warmup = 0;
  p.warmup_auto = 0;
  mser ms;
  mser_init(&ms, s->partitions - s->cooldown);
  sim_metrics x;
  int rc = sim__run_rep(&p, 0, NULL, NULL, &x, &ms, e);
  if (rc == PS_OK) {
    *out = mser_pick(&ms);
    sim_metrics_free(&x);
  }
  free(ms.z);
  return rc;
}

/* Replication rep's stream `tag` (seed.h), and a uniform in (0, 1) from a stream: streams of
 * their own, so every other draw of the replication is the one it would be without them. */
static uint64_t rep_stream(const scenario *s, int rep, uint64_t tag) {
  return ps_seed_mix(ps_seed_mix(s->seed, (uint64_t)rep), tag);
}
static double unit_open(uint64_t *st) { return ((double)(ps_splitmix64(st) >> 11) + 0.5) * 0x1p-53; }

/* model.host_speed.sd: replication rep's host speed factor h = exp(sd z - sd^2/2) (mean 1),
 * z a standard normal (Box-Muller) from the stream "host". */
static double host_factor(const scenario *s, int rep) {
  const double sd = s->model->host_speed_sd;
  uint64_t st = rep_stream(s, rep, 0x686f7374u /* "host" */);
  double u1 = unit_open(&st);
  double u2 = (double)(ps_splitmix64(&st) >> 11) * 0x1p-53;
  double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
  return exp(sd * z - sd * sd / 2);
}

/* Replication rep's factor on each phase's times: h for cpu phases under host_speed, times
 * run_mode.scale for a phase whose slow mode the replication takes (a uniform below
 * run_mode.share, from the stream "mode" mixed with the phase's index). Returns whether
 * any factor differs from 1. */
static int rep_factors(const scenario *s, int rep, double *f) {
  const model *m = s->model;
  const double h = m->host_speed_sd > 0 ? host_factor(s, rep) : 1;
  int any = 0;
  for (int p = 0; p < m->nphases; p++) {
    const phase *ph = &m->phases[p];
    f[p] = ph->resource == RES_CPU ? h : 1;
    if (ph->mode_share > 0) {
      uint64_t st = ps_seed_mix(rep_stream(s, rep, 0x6d6f6465u /* "mode" */), (uint64_t)p);
      if (unit_open(&st) < ph->mode_share) f[p] *= ph->mode_scale;
    }
    any |= f[p] != 1;
  }
  return any;
}

/* One replication of s with each phase's times (and fixed parts) taken f[p] times: a copy
 * of the model whose phases own scaled copies of their distributions where f[p] != 1. */
static int run_rep_scaled(const scenario *s, int rep, const double *f, sim_span_fn on_span, void *ctx,
                          sim_metrics *out, ps_err *e) {
  const model *m0 = s->model;
  model m = *m0;
  m.phases = xmalloc((size_t)m0->nphases * sizeof *m.phases);
  memcpy(m.phases, m0->phases, (size_t)m0->nphases * sizeof *m.phases);
  for (int p = 0; p < m.nphases; p++) {
    phase *ph = &m.phases[p];
    if (f[p] == 1) continue;
    dist_copy(&ph->time, &m0->phases[p].time);
    dist_scale(&ph->time, f[p]);
    if (ph->has_fixed) {
      dist_copy(&ph->fixed, &m0->phases[p].fixed);
      dist_scale(&ph->fixed, f[p]);
    }
  }
  scenario t = *s; /* a shallow copy: the engine only reads it */
  t.model = &m;
  int rc = sim__run_rep(&t, rep, on_span, ctx, out, NULL, e);
  for (int p = 0; p < m.nphases; p++) {
    phase *ph = &m.phases[p];
    if (f[p] == 1) continue;
    dist_free(&ph->time);
    if (ph->has_fixed) dist_free(&ph->fixed);
  }
  free(m.phases);
  return rc;
}

int sim_run_rep(const scenario *s, int rep, sim_span_fn on_span, void *ctx, sim_metrics *out, ps_err *e) {
  scenario t = *s; /* a shallow copy, the warm-up chosen when it is auto */
  if (s->warmup_auto) { /* the pilot runs at the host's mean speed, every phase in its usual mode */
    int rc = choose_warmup(s, &t.warmup, e);
    if (rc != PS_OK) return rc;
    t.warmup_auto = 0;
  }
  double *f = xmalloc((size_t)t.model->nphases * sizeof *f);
  int rc = rep_factors(&t, rep, f) ? run_rep_scaled(&t, rep, f, on_span, ctx, out, e)
                                   : sim__run_rep(&t, rep, on_span, ctx, out, NULL, e);
  free(f);
  return rc;
}

/* ---------------------------------------------------------------- replications in threads */

/* Spans reach the caller in replication order through spanord.h's bounded buffers. */
typedef struct pool {
  const scenario *s;
  const sim_opts *o;
  sim_result *res;
  span_order *ord; /* NULL without spans */
  int *rc;
  ps_err *errs;
} pool;

static void rep_range(void *ctx, size_t lo, size_t hi) {
  pool *P = ctx;
  sim_span_fn fn = P->ord ? span_order_add : NULL;
  for (size_t i = lo; i < hi; i++) {
    P->rc[i] = sim_run_rep(P->s, (int)i, fn, P->ord, &P->res->reps[i], &P->errs[i]);
    if (P->ord) span_order_done(P->ord, (int)i);
  }
}

int sim_run(const scenario *s, const sim_opts *o, sim_result **out, ps_err *e) {
  static const sim_opts none = {0};
  if (!o) o = &none;
  double t0 = ps_now();
  scenario chosen;
  int64_t warmup = 0;
  if (s->warmup_auto) {
    int rc = choose_warmup(s, &warmup, e);
    if (rc != PS_OK) return rc;
    chosen = *s;
    chosen.warmup = warmup;
    chosen.warmup_auto = 0;
  }
  const int warmup_auto = s->warmup_auto;
  if (warmup_auto) s = &chosen;
  sim_result *res = xcalloc(1, sizeof *res);
  res->nreps = s->replications;
  res->reps = xcalloc((size_t)res->nreps, sizeof *res->reps);
  pool P = {.s = s, .o = o, .res = res};
  P.rc = xcalloc((size_t)res->nreps, sizeof *P.rc);
  P.errs = xcalloc((size_t)res->nreps, sizeof *P.errs);
  if (o->on_span) P.ord = span_order_new(res->nreps, SIM_SPAN_BUFFER, o->on_span, o->span_ctx);
  par_for((size_t)res->nreps, 1, o->threads, rep_range, &P, o->progress, o->progress_ctx);
  int rc = PS_OK;
  for (int i = 0; i < res->nreps; i++)
    if (P.rc[i] != PS_OK) {
      rc = P.rc[i];
      if (e) *e = P.errs[i];
      break;
    }
  for (int i = 0; i < res->nreps; i++) res->events += res->reps[i].events;
  span_order_free(P.ord);
  free(P.rc);
  free(P.errs);
  if (rc != PS_OK) {
    sim_result_free(res);
    return rc;
  }
  res->wall_s = ps_now() - t0;
  res->warmup_auto = warmup_auto;
  res->warmup = warmup_auto ? warmup : s->warmup;
  *out = res;
  return PS_OK;
}
