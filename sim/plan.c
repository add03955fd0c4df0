/* The capacity search of plan.h. Each candidate (GPUs, workers, batch, scope) is first
 * checked against bounds that need no simulation (host memory, the GPUs' and the cores'
 * demand); the survivors are simulated at the cap of cores and, when they meet the
 * target, bisected down to their fewest cores. Every simulation is logged under a mutex,
 * and the log is sorted before use, so the result does not depend on thread timing. */
#define _GNU_SOURCE
#include "plan.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "pipe.h"
#include "report.h"
#include "whatif.h"

typedef struct plan_ctx {
  const scenario *base;
  const plan_limits *lim;
  const plan_scope *scopes;
  int open, ppp;
  double mem_per_part;
  plan_cfg *cands; /* one per (workers, batch, scope) of the level being searched */
  int gpus;        /* the level */
  size_t ncands;
  atomic_int sims;
  pthread_mutex_t mu;
  plan_cfg *log; /* every simulated configuration, in completion order (sorted before use) */
  int nlog, caplog;
} plan_ctx;

/* Simulates pe's configuration and records it in the log. */
static void plan_eval(plan_ctx *c, plan_cfg *pe) {
  const plan_limits *lim = c->lim;
  scenario t = *c->base; /* a shallow copy: sim_run only reads it */
  const plan_scope *sc = &c->scopes[pe->scope];
  t.gpus = pe->gpus;
  t.workers_per_gpu = pe->workers;
  t.batch = pe->batch;
  t.cpu_cores = pe->cores;
  t.mutex_name = (char *)sc->name;
  t.mutex_from = sc->from;
  t.mutex_to = sc->to;
  if (c->open) t.proofs_per_hour = lim->target_pph;
  sim_opts o = {.threads = 1};
  sim_result *r = NULL;
  ps_err e = {{0}};
  atomic_fetch_add(&c->sims, 1);
  pe->simulated = 1;
  pe->rc = sim_run(&t, &o, &r, &e);
  if (pe->rc != PS_OK) {
    pe->meets = 0;
    snprintf(pe->limit, sizeof pe->limit, "cannot run: %.480s", e.msg);
    return;
  }
  report_summary m;
  report_summarize(r, &m);
  pe->pph = report_proofs_per_hour(&t, m.tput);
  pe->p99 = m.has_proofs ? m.proof_p99 : m.lat_p99;
  pe->util = m.gpu_util_mean;
  double tol = c->open ? 0.02 : 0.001;
  int fast = pe->pph >= lim->target_pph * (1 - tol);
  pe->meets = fast && (!lim->has_max || pe->p99 <= lim->max_p99_s);
  report_bottleneck(&t, &m, pe->limit, sizeof pe->limit);
  if (fast && lim->has_max && pe->p99 > lim->max_p99_s) {
    char tmp[sizeof pe->limit];
    snprintf(tmp, sizeof tmp, "p99 latency %.1f s over the %.1f s limit; %.400s", pe->p99, lim->max_p99_s, pe->limit);
    memcpy(pe->limit, tmp, sizeof tmp);
  }
  report_summary_free(&m);
  sim_result_free(r);
  pthread_mutex_lock(&c->mu);
  if (c->nlog == c->caplog) {
    c->caplog = c->caplog ? 2 * c->caplog : 256;
    c->log = xrealloc(c->log, (size_t)c->caplog * sizeof *c->log);
  }
  c->log[c->nlog++] = *pe;
  pthread_mutex_unlock(&c->mu);
}

/* Core-seconds per partition and GPU-seconds per partition at batch b (means). */
static void plan_demands(const scenario *s, int b, double *core_s, double *gpu_s) {
  *core_s = *gpu_s = 0;
  for (int i = 0; i < s->model->nphases; i++) {
    const phase *ph = &s->model->phases[i];
    double t = phase_call_mean(ph, b) / b;
    if (ph->resource == RES_CPU) *core_s += t * ph->threads;
    if (ph->resource == RES_GPU) *gpu_s += t;
  }
}

static int plan_cap_cores(const plan_ctx *c, int g) {
  if (c->lim->max_cores > 0) return c->lim->max_cores;
  const scenario *s = c->base;
  int per = (s->cpu_cores + s->gpus - 1) / s->gpus;
  return per * g;
}

/* One candidate (workers, batch, scope) at the level's GPU count: the fewest cores that
 * meet the target, by bisection between a demand bound and the cap. */
static void plan_job(plan_ctx *c, plan_cfg *pe) {
  const plan_limits *lim = c->lim;
  int g = pe->gpus, b = pe->batch, cap = plan_cap_cores(c, g);
  double core_s, gpu_s;
  plan_demands(c->base, b, &core_s, &gpu_s);
  double need_pps = lim->target_pph * c->ppp / 3600.0 * (c->open ? 0.98 : 0.999);
  pe->mem = c->mem_per_part * g * pe->workers * b;
  pe->cores = cap;
  if (lim->has_mem && pe->mem > lim->max_mem_gib + 1e-9) {
    snprintf(pe->limit, sizeof pe->limit, "host memory: needs %.1f GiB, over the %.1f GiB budget", pe->mem,
             lim->max_mem_gib);
    return;
  }
  if (!c->base->gpu_shared && gpu_s > 0 && g / gpu_s < need_pps) {
    pe->pph = g / gpu_s * 3600.0 / c->ppp;
    snprintf(pe->limit, sizeof pe->limit, "GPU: %d GPU%s of %.3f s per partition serve%s at most %.1f proofs/h", g,
             g > 1 ? "s" : "", gpu_s, g > 1 ? "" : "s", pe->pph);
    return;
  }
  int lo = (int)ceil(need_pps * core_s - 1e-9);
  if (lo < 1) lo = 1;
  if (lo > cap) {
    pe->pph = cap / core_s * 3600.0 / c->ppp;
    snprintf(pe->limit, sizeof pe->limit, "CPU cores: the target needs at least %d cores, the budget allows %d", lo, cap);
    return;
  }
  plan_eval(c, pe);
  if (!pe->meets) return;
  plan_cfg best = *pe;
  int hi = cap;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    plan_cfg t = *pe;
    t.cores = mid;
    plan_eval(c, &t);
    if (t.meets) {
      hi = mid;
      best = t;
    } else {
      lo = mid + 1;
    }
  }
  *pe = best;
}

static void plan_range(void *ctx, size_t lo, size_t hi) {
  plan_ctx *c = ctx;
  for (size_t i = lo; i < hi; i++) plan_job(c, &c->cands[i]);
}

static void plan_tick(void *ctx, size_t done) {
  const plan_ctx *c = ctx;
  if (done < c->ncands) c->lim->progress(c->lim->progress_ctx, c->gpus, done, c->ncands);
}

static int cfg_cheaper(const plan_cfg *a, const plan_cfg *b) {
  if (a->gpus != b->gpus) return a->gpus < b->gpus;
  if (a->cores != b->cores) return a->cores < b->cores;
  if (fabs(a->mem - b->mem) > 1e-9) return a->mem < b->mem;
  if (a->workers != b->workers) return a->workers < b->workers;
  if (a->batch != b->batch) return a->batch < b->batch;
  return a->scope < b->scope;
}

static int cfg_cmp(const void *x, const void *y) {
  const plan_cfg *a = x, *b = y;
  if (cfg_cheaper(a, b)) return -1;
  if (cfg_cheaper(b, a)) return 1;
  return 0;
}

/* Sorts n configurations cheapest first (qsort wants a non-NULL array, even empty). */
static void cfg_sort(plan_cfg *v, int n) {
  if (n > 1) qsort(v, (size_t)n, sizeof *v, cfg_cmp);
}

/* The best of v[lo, hi) by throughput: the best simulated one, else the best bound. */
static plan_near near_in(const plan_cfg *v, int lo, int hi) {
  int bs = -1, bi = -1;
  for (int i = lo; i < hi; i++) {
    if (bi < 0 || v[i].pph > v[bi].pph) bi = i;
    if (v[i].simulated && v[i].rc == PS_OK && (bs < 0 || v[i].pph > v[bs].pph)) bs = i;
  }
  plan_near n = {PLAN_NONE};
  if (bs >= 0) {
    n.kind = PLAN_SIMULATED;
    n.cfg = v[bs];
  } else if (bi >= 0) {
    n.kind = PLAN_BOUND;
    n.cfg = v[bi];
  }
  return n;
}

/* The frontier of the sorted, deduplicated log: configurations that ran and that no
 * other beats on every count (throughputs and latencies within 1e-6 count as equal; of
 * equals, the first in the log stays). */
static void plan_frontier(plan_result *r) {
  r->frontier = xcalloc((size_t)r->nlog + 1, sizeof *r->frontier);
  for (int i = 0; i < r->nlog; i++) {
    const plan_cfg *p = &r->log[i];
    if (!p->simulated || p->rc != PS_OK) continue;
    int dominated = 0;
    for (int j = 0; j < r->nlog && !dominated; j++) {
      const plan_cfg *q = &r->log[j];
      if (j == i || !q->simulated || q->rc != PS_OK) continue;
      int le = q->gpus <= p->gpus && q->cores <= p->cores && q->mem <= p->mem + 1e-9 &&
               q->pph >= p->pph * (1 - 1e-6) && q->p99 <= p->p99 * (1 + 1e-6);
      int lt = q->gpus < p->gpus || q->cores < p->cores || q->mem < p->mem - 1e-9 || q->pph > p->pph * (1 + 1e-6) ||
               q->p99 < p->p99 * (1 - 1e-6);
      if (le && (lt || j < i)) dominated = 1;
    }
    if (!dominated) r->frontier[r->nfrontier++] = *p;
  }
}

static int plan_check(const plan_limits *lim, ps_err *e) {
  if (!(lim->target_pph > 0)) return ps_fail(e, PS_EINPUT, "plan: expected a target > 0 proofs per hour, got %g", lim->target_pph);
  if (lim->max_workers < 1) return ps_fail(e, PS_EINPUT, "plan: expected at least 1 worker per GPU, got %d", lim->max_workers);
  if (lim->max_gpus < 0) return ps_fail(e, PS_EINPUT, "plan: expected a GPU budget >= 0, got %d", lim->max_gpus);
  if (lim->nbatches < 1 || !lim->batches) return ps_fail(e, PS_EINPUT, "plan: expected at least one batch size");
  for (int i = 0; i < lim->nbatches; i++)
    if (lim->batches[i] < 1) return ps_fail(e, PS_EINPUT, "plan: expected batch sizes >= 1, got %d", lim->batches[i]);
  return PS_OK;
}

void plan_result_free(plan_result *r) {
  free(r->scopes);
  free(r->all);
  free(r->log);
  free(r->frontier);
  memset(r, 0, sizeof *r);
}

int plan_search(const scenario *s, const plan_limits *lim, plan_result *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  int rc = plan_check(lim, e);
  if (rc != PS_OK) return rc;

  /* The scopes to try: the model's named scopes, and the scenario's own when it is none
   * or a {from, to} region. */
  int nsc = 0;
  plan_scope *scopes = xcalloc((size_t)s->model->nscopes + 1, sizeof *scopes);
  for (int k = 0; k < s->model->nscopes; k++)
    scopes[nsc++] = (plan_scope){s->model->scopes[k].name, s->model->scopes[k].from, s->model->scopes[k].to};
  int known = 0;
  for (int k = 0; k < nsc; k++)
    if (s->mutex_name && !strcmp(scopes[k].name, s->mutex_name)) known = 1;
  if (!known) scopes[nsc++] = (plan_scope){s->mutex_name ? s->mutex_name : "none", s->mutex_from, s->mutex_to};
  out->scopes = scopes;
  out->nscopes = nsc;
  out->open = s->arrivals != ARR_CLOSED;

  plan_ctx c = {.base = s, .lim = lim, .scopes = scopes, .open = out->open,
                .ppp = s->partitions_per_proof > 0 ? s->partitions_per_proof : 1};
  atomic_init(&c.sims, 0);
  pthread_mutex_init(&c.mu, NULL);
  for (int i = 0; i < s->model->nphases; i++) c.mem_per_part += s->model->phases[i].host_mem_gib;
  int jobs = lim->jobs > 0 ? lim->jobs : ps_ncores();
  int ncand = lim->max_workers * lim->nbatches * nsc, found = -1, level_lo = 0, prev_lo = -1, nall = 0;
  plan_cfg *all = NULL;
  double t0 = ps_now();
  for (int g = 1; g <= lim->max_gpus && found < 0; g++) {
    all = xrealloc(all, (size_t)(nall + ncand) * sizeof *all);
    c.cands = all + nall;
    c.ncands = (size_t)ncand;
    c.gpus = g;
    int k = 0;
    for (int w = 1; w <= lim->max_workers; w++)
      for (int bi = 0; bi < lim->nbatches; bi++)
        for (int sc = 0; sc < nsc; sc++) {
          plan_cfg *p = &c.cands[k++];
          memset(p, 0, sizeof *p);
          p->gpus = g;
          p->workers = w;
          p->batch = lim->batches[bi];
          p->scope = sc;
        }
    if (lim->progress) lim->progress(lim->progress_ctx, g, 0, c.ncands);
    par_for(c.ncands, 1, jobs, plan_range, &c, lim->progress ? plan_tick : NULL, &c);
    if (lim->progress) lim->progress(lim->progress_ctx, g, c.ncands, c.ncands);
    prev_lo = level_lo;
    level_lo = nall;
    nall += ncand;
    for (int i = level_lo; i < nall; i++)
      if (all[i].meets && (found < 0 || cfg_cheaper(&all[i], &all[found]))) found = i;
  }
  out->wall_s = ps_now() - t0;
  out->sims = atomic_load(&c.sims);
  out->found = found >= 0;
  out->gpus_searched = found >= 0 ? all[found].gpus : lim->max_gpus;

  if (found >= 0) {
    const plan_cfg *p = &all[found];
    out->best = *p;
    if (p->cores > 1) {
      out->has_fewer_cores = 1;
      out->fewer_cores = *p;
      out->fewer_cores.cores = p->cores - 1;
      plan_eval(&c, &out->fewer_cores);
    }
    if (p->gpus > 1) out->fewer_gpus = near_in(all, prev_lo, level_lo);
  } else {
    out->closest = near_in(all, 0, nall);
  }

  /* The log sorted into a total order with duplicates (the same configuration twice)
   * dropped, so nothing depends on which thread finished first. */
  cfg_sort(c.log, c.nlog);
  int u = 0;
  for (int i = 0; i < c.nlog; i++)
    if (u == 0 || cfg_cmp(&c.log[u - 1], &c.log[i]) != 0) c.log[u++] = c.log[i];
  cfg_sort(all, nall);
  out->all = all;
  out->nall = nall;
  out->log = c.log;
  out->nlog = u;
  pthread_mutex_destroy(&c.mu);
  plan_frontier(out);
  return PS_OK;
}
