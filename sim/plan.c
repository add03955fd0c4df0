/* The capacity search of plan.h. Each candidate (GPUs, workers, batch, scope) is first
 * checked against bounds that need no simulation (host memory, GPU memory, the GPUs' and
 * the cores' demand); the survivors are simulated at the cap of cores and, when they meet
 * the target, bisected down to their fewest cores. A level's candidates run on the ordered
 * farm (farm.h: threads, and MPI ranks under mpirun), each returning its result and the
 * simulations it made; rank 0 takes them in candidate order and sorts the log before use,
 * so the result depends neither on thread timing nor on the number of ranks. */
#define _GNU_SOURCE
#include "plan.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farm.h"
#include "par.h"
#include "pipe.h"
#include "precision.h"
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
  int sims;
  plan_cfg *log; /* every simulated configuration, in delivery order (sorted before use) */
  int nlog, caplog;
} plan_ctx;

/* Appends p to a log of configurations. */
static void log_add(plan_cfg **log, int *n, int *cap, const plan_cfg *p) {
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 256;
    *log = xrealloc(*log, (size_t)*cap * sizeof **log);
  }
  (*log)[(*n)++] = *p;
}

/* Simulates pe's configuration and appends it to the job's log (a ps_buf of plan_cfg). */
static void plan_eval(plan_ctx *c, plan_cfg *pe, ps_buf *log) {
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
  ps_err e = {0};
  pe->simulated = 1;
  pe->rc = prec_run(&t, &o, &r, &e); /* sim_run, or to run.precision */
  if (pe->rc != PS_OK) {
    pe->meets = 0;
    snprintf(pe->limit, sizeof pe->limit, "cannot run: %.480s", e.msg);
    ps_buf_append(log, (const char *)pe, sizeof *pe);
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
  report_bottleneck(&t, &m, pe->limit, sizeof pe->limit); /* its advice says when a worker more does not fit */
  if (fast && lim->has_max && pe->p99 > lim->max_p99_s) {
    char tmp[sizeof pe->limit];
    snprintf(tmp, sizeof tmp, "p99 latency %.1f s over the %.1f s limit; %.400s", pe->p99, lim->max_p99_s, pe->limit);
    memcpy(pe->limit, tmp, sizeof tmp);
  }
  report_summary_free(&m);
  sim_result_free(r);
  ps_buf_append(log, (const char *)pe, sizeof *pe);
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
 * meet the target, by bisection between a demand bound and the cap. Each simulation is
 * appended to log. */
static void plan_job(plan_ctx *c, plan_cfg *pe, ps_buf *log) {
  const plan_limits *lim = c->lim;
  int g = pe->gpus, b = pe->batch, cap = plan_cap_cores(c, g);
  double core_s, gpu_s;
  plan_demands(c->base, b, &core_s, &gpu_s);
  double need_pps = lim->target_pph * c->ppp / 3600.0 * (c->open ? 0.98 : 0.999);
  pe->mem = c->mem_per_part * g * pe->workers * b;
  pe->gpu_mem = c->base->model->has_gpu_mem ? model_gpu_gib(c->base->model, pe->workers, b) : 0;
  pe->cores = cap;
  if (lim->has_mem && pe->mem > lim->max_mem_gib + 1e-9) {
    snprintf(pe->limit, sizeof pe->limit, "host memory: needs %.1f GiB, over the %.1f GiB budget", pe->mem,
             lim->max_mem_gib);
    return;
  }
  if (scn_gpu_mem_over(c->base, pe->workers, b, pe->limit, sizeof pe->limit)) {
    pe->gpu_over = 1;
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
  plan_eval(c, pe, log);
  if (!pe->meets) return;
  plan_cfg best = *pe;
  int hi = cap;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    plan_cfg t = *pe;
    t.cores = mid;
    plan_eval(c, &t, log);
    if (t.meets) {
      hi = mid;
      best = t;
    } else {
      lo = mid + 1;
    }
  }
  *pe = best;
}

/* farm_item_fn: candidate i of the level, as its plan_cfg and then those of its
 * simulations (the same bytes on any rank: a rank of another machine runs this binary). */
static int plan_item(void *ctx, size_t i, ps_buf *out) {
  plan_ctx *c = ctx;
  plan_cfg pe = c->cands[i];
  ps_buf log = {0};
  plan_job(c, &pe, &log);
  ps_buf_append(out, (const char *)&pe, sizeof pe);
  ps_buf_append(out, log.p ? log.p : "", log.len);
  ps_buf_free(&log);
  return PS_OK;
}

/* farm_emit_fn, on rank 0 in candidate order: the result and the log. */
static int plan_take(void *ctx, size_t i, int rc, const char *data, size_t len, int rank) {
  plan_ctx *c = ctx;
  PS_ASSERT(rc == PS_OK && len >= sizeof(plan_cfg) && len % sizeof(plan_cfg) == 0);
  memcpy(&c->cands[i], data, sizeof(plan_cfg));
  for (size_t off = sizeof(plan_cfg); off < len; off += sizeof(plan_cfg)) {
    plan_cfg p;
    memcpy(&p, data + off, sizeof p);
    log_add(&c->log, &c->nlog, &c->caplog, &p);
    c->sims++;
  }
  if (c->lim->progress && i + 1 < c->ncands) c->lim->progress(c->lim->progress_ctx, c->gpus, i + 1, c->ncands);
  return 0;
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
  for (int i = 0; i < s->model->nphases; i++) c.mem_per_part += s->model->phases[i].host_mem_gib;
  int rank0 = farm_rank() == 0;
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
    if (lim->progress && rank0) lim->progress(lim->progress_ctx, g, 0, c.ncands);
    farm_opts fo = {.jobs = lim->jobs};
    farm_run(c.ncands, &fo, plan_item, &c, plan_take, &c);
    if (lim->progress && rank0) lim->progress(lim->progress_ctx, g, c.ncands, c.ncands);
    prev_lo = level_lo;
    level_lo = nall;
    nall += ncand;
    for (int i = level_lo; i < nall; i++)
      if (all[i].meets && (found < 0 || cfg_cheaper(&all[i], &all[found]))) found = i;
    /* Only rank 0 has the level's results: it says whether the search goes on. */
    int32_t more = found < 0;
    farm_bcast(&more, sizeof more);
    if (!more && found < 0) found = 0;
  }
  if (!rank0) { /* the other ranks only ran candidates */
    free(all);
    free(c.log);
    plan_result_free(out);
    return PS_OK;
  }
  out->wall_s = ps_now() - t0;
  out->sims = c.sims;
  out->found = found >= 0;
  out->gpus_searched = found >= 0 ? all[found].gpus : lim->max_gpus;

  if (found >= 0) {
    const plan_cfg *p = &all[found];
    out->best = *p;
    if (p->cores > 1) {
      out->has_fewer_cores = 1;
      out->fewer_cores = *p;
      out->fewer_cores.cores = p->cores - 1;
      ps_buf log = {0};
      plan_eval(&c, &out->fewer_cores, &log);
      log_add(&c.log, &c.nlog, &c.caplog, &out->fewer_cores);
      ps_buf_free(&log);
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
  plan_frontier(out);
  return PS_OK;
}
