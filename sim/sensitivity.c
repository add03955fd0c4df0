/* sens_run (sensitivity.h): every perturbed scenario is loaded before anything runs (so a
 * bad base scenario fails at once), then the base and the perturbations are simulated as
 * one par_for over runs, each run single-threaded with its own scenario, and the paired
 * differences are taken replication by replication. */
#include "sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "pipe.h"
#include "scn.h"
#include "stats.h"

/* One simulation: a scenario and, once run, the metric of each replication. */
typedef struct sens_job {
  scenario *s;      /* owned (the base job's is handed to the result) */
  double *x;        /* nreps values */
  int rc;
  ps_err err;
} sens_job;

typedef struct sens_ctx {
  sens_job *jobs;
  run_metric metric;
} sens_ctx;

static void job_range(void *ctx, size_t lo, size_t hi) {
  sens_ctx *c = ctx;
  for (size_t i = lo; i < hi; i++) {
    sens_job *j = &c->jobs[i];
    sim_opts o = {.threads = 1};
    sim_result *r = NULL;
    j->rc = sim_run(j->s, &o, &r, &j->err);
    if (j->rc != PS_OK) continue;
    j->x = xmalloc((size_t)r->nreps * sizeof *j->x);
    for (int k = 0; k < r->nreps; k++) j->x[k] = run_metric_value(&r->reps[k], c->metric);
    sim_result_free(r);
  }
}

/* A system key that moves, with its value in the base scenario. */
typedef struct sys_key {
  const char *key;
  double v;
  int integer;
} sys_key;

/* Fills k (room for 8) with s's system keys; returns how many. */
static int system_keys(const scenario *s, sys_key *k) {
  int n = 0;
  k[n++] = (sys_key){"system.workers_per_gpu", s->workers_per_gpu, 1};
  k[n++] = (sys_key){"system.gpus", s->gpus, 1};
  k[n++] = (sys_key){"system.batch", s->batch, 1};
  k[n++] = (sys_key){"system.cpu_cores", s->cpu_cores, 1};
  if (s->arrivals == ARR_POISSON || s->arrivals == ARR_FIXED)
    k[n++] = (sys_key){"workload.arrivals.proofs_per_hour", s->proofs_per_hour, 0};
  if (s->arrivals == ARR_TRACE) k[n++] = (sys_key){"workload.arrivals.rate_scale", s->rate_scale, 0};
  return n;
}

/* Loads the base scenario with one more override, key=v. Returns the load's code. */
static int load_with(const char *path, const char *const *sets, int nsets, const char *key, double v, int integer,
                     scenario **out, ps_err *e) {
  const char **all = xcalloc((size_t)nsets + 1, sizeof *all);
  if (nsets) memcpy(all, sets, (size_t)nsets * sizeof *all); /* sets may be NULL when there are none */
  char *kv = integer ? xasprintf("%s=%.0f", key, v) : xasprintf("%s=%.17g", key, v);
  all[nsets] = kv;
  int rc = scn_load(path, all, nsets + 1, out, e);
  free(kv);
  free(all);
  return rc;
}

/* Sorting: the larger |effect| of the sides that ran, largest first, then input order. */
typedef struct sens_order {
  double size;
  int i;
} sens_order;

static double side_size(const sens_side *sd) { return sd->ok && isfinite(sd->effect) ? fabs(sd->effect) : 0; }

static int order_cmp(const void *a, const void *b) {
  const sens_order *x = a, *y = b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return (x->i > y->i) - (x->i < y->i);
}

static void side_stats(sens_side *sd, const double *x, const double *base, int n) {
  double *d = xmalloc((size_t)n * sizeof *d), dummy;
  for (int i = 0; i < n; i++) d[i] = x[i] - base[i];
  stats_mean_ci95(x, n, &sd->value, &dummy);
  stats_mean_ci95(d, n, &sd->effect, &sd->ci95);
  free(d);
}

int sens_run(const char *path, const char *const *sets, int nsets, run_metric metric, double delta, int threads,
             sens_result **out, ps_err *e) {
  PS_ASSERT(delta > 0 && delta < 1);
  *out = NULL;
  scenario *s = NULL;
  int rc = scn_load(path, sets, nsets, &s, e);
  if (rc != PS_OK) return rc;
  sys_key keys[8];
  int nkeys = system_keys(s, keys);
  int nin = s->model->nphases + nkeys;
  sens_input *in = xcalloc((size_t)nin, sizeof *in);
  /* jobs[0] is the base; input i's sides are jobs ji[2i] and ji[2i+1] (0: not run). */
  sens_job *jobs = xcalloc(1 + 2 * (size_t)nin, sizeof *jobs);
  int *ji = xcalloc(2 * (size_t)nin, sizeof *ji), njobs = 1;
  jobs[0].s = s;
  for (int i = 0; i < nin && rc == PS_OK; i++) {
    sens_input *p = &in[i];
    int ph = i < s->model->nphases ? i : -1;
    const sys_key *k = ph < 0 ? &keys[i - s->model->nphases] : NULL;
    if (ph >= 0) {
      const phase *x = &s->model->phases[ph];
      p->kind = SENS_PHASE;
      snprintf(p->name, sizeof p->name, "phase %s mean", x->name);
      snprintf(p->key, sizeof p->key, "phases.%s.time", x->name);
      p->base_input = dist_mean(&x->time);
    } else {
      p->kind = SENS_SYSTEM;
      p->integer = k->integer;
      snprintf(p->name, sizeof p->name, "%s", k->key);
      snprintf(p->key, sizeof p->key, "%s", k->key);
      p->base_input = k->v;
    }
    for (int side = 0; side < 2 && rc == PS_OK; side++) {
      sens_side *sd = side ? &p->high : &p->low;
      double sign = side ? 1 : -1, v;
      if (p->integer) {
        double step = fmax(1, round(delta * p->base_input));
        v = p->base_input + sign * step;
        if (v < 1) {
          snprintf(sd->why, sizeof sd->why, "%s is %.0f, its least", p->key, p->base_input);
          continue;
        }
      } else {
        v = p->base_input * (1 + sign * delta);
      }
      sd->input = v;
      scenario *t = NULL;
      ps_err le = {0};
      int lr = ph >= 0 ? scn_load(path, sets, nsets, &t, &le)
                       : load_with(path, sets, nsets, k->key, v, k->integer, &t, &le);
      if (lr == PS_EINPUT && ph < 0) { /* the loader refuses the move: the side says why */
        snprintf(sd->why, sizeof sd->why, "%s", le.msg);
        continue;
      }
      if (lr != PS_OK) {
        if (e) *e = le;
        rc = lr;
        break;
      }
      if (ph >= 0) { /* every draw of the phase, per partition and per call, times (1 ± delta) */
        phase *x = &t->model->phases[ph];
        dist_scale(&x->time, 1 + sign * delta);
        if (x->has_fixed) dist_scale(&x->fixed, 1 + sign * delta);
      }
      sd->ok = 1;
      jobs[njobs].s = t;
      ji[2 * i + side] = njobs++;
    }
  }
  if (rc == PS_OK) {
    sens_ctx c = {.jobs = jobs, .metric = metric};
    par_for((size_t)njobs, 1, threads, job_range, &c, NULL, NULL);
    for (int j = 0; j < njobs; j++)
      if (jobs[j].rc != PS_OK) {
        rc = jobs[j].rc;
        if (e) *e = jobs[j].err;
        break;
      }
  }
  sens_result *r = NULL;
  if (rc == PS_OK) {
    int n = s->replications;
    r = xcalloc(1, sizeof *r);
    r->s = s;
    r->metric = metric;
    r->delta = delta;
    r->nreps = n;
    r->runs = njobs;
    stats_mean_ci95(jobs[0].x, n, &r->base, &r->base_ci95);
    sens_order *ord = xmalloc((size_t)nin * sizeof *ord);
    for (int i = 0; i < nin; i++) {
      if (in[i].low.ok) side_stats(&in[i].low, jobs[ji[2 * i]].x, jobs[0].x, n);
      if (in[i].high.ok) side_stats(&in[i].high, jobs[ji[2 * i + 1]].x, jobs[0].x, n);
      ord[i] = (sens_order){fmax(side_size(&in[i].low), side_size(&in[i].high)), i};
    }
    qsort(ord, (size_t)nin, sizeof *ord, order_cmp);
    r->in = xmalloc((size_t)nin * sizeof *r->in);
    for (int i = 0; i < nin; i++) r->in[i] = in[ord[i].i];
    r->nin = nin;
    free(ord);
    jobs[0].s = NULL; /* now the result's */
  }
  for (int j = 0; j < njobs; j++) {
    scn_free(jobs[j].s);
    free(jobs[j].x);
  }
  free(jobs);
  free(ji);
  free(in);
  *out = r;
  return rc;
}

void sens_free(sens_result *r) {
  if (!r) return;
  scn_free(r->s);
  free(r->in);
  free(r);
}
