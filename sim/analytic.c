/* Analytic models of the proving pipeline (see analytic.h): the machine-repairman queue,
 * exact MVA with load-dependent stations, deterministic closed forms and bounds. The
 * formulas and their sources are cited beside each function; tests/test_analytic.c checks
 * them against values computed independently. */
#include "analytic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- machine repairman */

/* Birth-death chain on k = customers at the station (Kleinrock, Queueing Systems I,
 * section 3.9; Gross & Harris, Fundamentals of Queueing Theory, section 2.8): birth rate
 * (N-k)/Z, death rate min(k,c)/S, so p_k = p_0 * prod_{j=1..k} ((N-j+1) S) / (min(j,c) Z).
 * For c = 1 this is p_k = p_0 N!/(N-k)! (S/Z)^k. The distribution depends on the think
 * time only through its mean (insensitivity of the finite-source queue with exponential
 * service). Terms are accumulated as logarithms and scaled by their maximum so that large
 * N or S/Z neither overflow nor underflow. */
int an_repairman_solve(int n, int c, double z, double s, double *p, an_repairman *out,
                       ps_err *e) {
  if (n < 1) return ps_fail(e, PS_EINPUT, "repairman: customers: expected an integer >= 1, got %d", n);
  if (c < 1) return ps_fail(e, PS_EINPUT, "repairman: servers: expected an integer >= 1, got %d", c);
  if (!(z >= 0) || !isfinite(z))
    return ps_fail(e, PS_EINPUT, "repairman: think time: expected a finite number >= 0, got %g", z);
  if (!(s > 0) || !isfinite(s))
    return ps_fail(e, PS_EINPUT, "repairman: service time: expected a finite number > 0, got %g", s);

  double *lw = xmalloc(sizeof(double) * ((size_t)n + 1));
  if (z == 0) {
    /* Nobody thinks: every customer is always at the station. */
    for (int k = 0; k < n; k++) lw[k] = -INFINITY;
    lw[n] = 0;
  } else {
    lw[0] = 0;
    for (int k = 1; k <= n; k++)
      lw[k] = lw[k - 1] + log((double)(n - k + 1) * s) - log((double)(k < c ? k : c) * z);
  }
  double mx = lw[0];
  for (int k = 1; k <= n; k++)
    if (lw[k] > mx) mx = lw[k];
  long double sum = 0;
  for (int k = 0; k <= n; k++) sum += expl((long double)(lw[k] - mx));

  long double x = 0, l = 0, lq = 0;
  for (int k = 0; k <= n; k++) {
    long double pk = expl((long double)(lw[k] - mx)) / sum;
    lw[k] = (double)pk;
    x += pk * (k < c ? k : c) / s;
    l += pk * k;
    if (k > c) lq += pk * (k - c);
  }
  an_repairman r;
  r.p0 = lw[0];
  r.throughput = (double)x;
  r.utilization = (double)(x * s / c);
  r.response = (double)(n / x) - z;
  r.queue_len = (double)l;
  r.waiting_len = (double)lq;
  if (p) memcpy(p, lw, sizeof(double) * ((size_t)n + 1));
  free(lw);
  *out = r;
  return PS_OK;
}

/* ---------------------------------------------------------------- exact MVA */

/* Exact MVA (Reiser & Lavenberg 1980; Lazowska et al., Quantitative System Performance,
 * 1984, chapters 6 and 20). For population n = 1..N:
 *   delay:        R_k(n) = D_k
 *   queue:        R_k(n) = D_k (1 + Q_k(n-1))                 (arrival theorem)
 *   load-dep.:    R_k(n) = sum_{j=1..n} j D_k / a_k(j) * p_k(j-1 | n-1),  a_k(j) = min(j, c)
 *   X(n) = n / sum_k R_k(n),  Q_k(n) = X(n) R_k(n),
 *   p_k(j | n) = X(n) D_k / a_k(j) * p_k(j-1 | n-1) for j >= 1, p_k(0|n) = 1 - sum_{j>=1}.
 * The marginals are kept in long double: p_k(0|n) comes from a subtraction, which loses
 * digits when the station is nearly saturated. */
int an_mva_solve(const an_station *st, int nst, int npop, an_mva *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  if (nst < 1) return ps_fail(e, PS_EINPUT, "mva: stations: expected at least 1, got %d", nst);
  if (npop < 1) return ps_fail(e, PS_EINPUT, "mva: population: expected an integer >= 1, got %d", npop);
  double dsum = 0;
  for (int k = 0; k < nst; k++) {
    if (st[k].kind != AN_DELAY && st[k].kind != AN_QUEUE && st[k].kind != AN_MULTI)
      return ps_fail(e, PS_EINPUT, "mva: station %d: kind: expected delay, queue or multi", k);
    if (!(st[k].demand >= 0) || !isfinite(st[k].demand))
      return ps_fail(e, PS_EINPUT, "mva: station %d: demand: expected a finite number >= 0, got %g",
                     k, st[k].demand);
    if (st[k].kind == AN_MULTI && st[k].servers < 1)
      return ps_fail(e, PS_EINPUT, "mva: station %d: servers: expected an integer >= 1, got %d", k,
                     st[k].servers);
    dsum += st[k].demand;
  }
  if (!(dsum > 0)) return ps_fail(e, PS_EINPUT, "mva: demands: expected at least one > 0, all are 0");

  size_t rows = (size_t)npop + 1, cells = rows * (size_t)nst;
  out->nstations = nst;
  out->npop = npop;
  out->throughput = xcalloc(rows, sizeof(double));
  out->response = xcalloc(rows, sizeof(double));
  out->residence = xcalloc(cells, sizeof(double));
  out->queue = xcalloc(cells, sizeof(double));
  out->utilization = xcalloc(cells, sizeof(double));

  /* Marginals of the load-dependent stations: two rows of npop+1 per station (previous
   * population and current), allocated only for AN_MULTI. */
  long double **prev = xcalloc((size_t)nst, sizeof *prev);
  long double **cur = xcalloc((size_t)nst, sizeof *cur);
  for (int k = 0; k < nst; k++) {
    if (st[k].kind != AN_MULTI) continue;
    prev[k] = xcalloc(rows, sizeof(long double));
    cur[k] = xcalloc(rows, sizeof(long double));
    prev[k][0] = 1; /* population 0: the station is empty */
  }

  for (int n = 1; n <= npop; n++) {
    long double cycle = 0;
    for (int k = 0; k < nst; k++) {
      double d = st[k].demand;
      long double r;
      if (st[k].kind == AN_DELAY) {
        r = d;
      } else if (st[k].kind == AN_QUEUE) {
        r = d * (1.0L + AN_MVA_AT(out, queue, n - 1, k));
      } else {
        int c = st[k].servers;
        long double acc = 0;
        for (int j = 1; j <= n; j++) acc += (long double)j / (j < c ? j : c) * prev[k][j - 1];
        r = d * acc;
      }
      AN_MVA_AT(out, residence, n, k) = (double)r;
      cycle += r;
    }
    long double x = n / cycle;
    long double resp = 0;
    out->throughput[n] = (double)x;
    for (int k = 0; k < nst; k++) {
      double d = st[k].demand;
      long double r = AN_MVA_AT(out, residence, n, k);
      AN_MVA_AT(out, queue, n, k) = (double)(x * r);
      if (st[k].kind != AN_DELAY) resp += r;
      if (st[k].kind == AN_MULTI) {
        int c = st[k].servers;
        AN_MVA_AT(out, utilization, n, k) = (double)(x * d / c);
        long double tail = 0;
        for (int j = 1; j <= n; j++) {
          cur[k][j] = x * d / (j < c ? j : c) * prev[k][j - 1];
          tail += cur[k][j];
        }
        cur[k][0] = tail < 1 ? 1 - tail : 0;
        long double *t = prev[k];
        prev[k] = cur[k];
        cur[k] = t;
      } else {
        AN_MVA_AT(out, utilization, n, k) = (double)(x * d);
      }
    }
    out->response[n] = (double)resp;
  }

  for (int k = 0; k < nst; k++) {
    free(prev[k]);
    free(cur[k]);
  }
  free(prev);
  free(cur);
  return PS_OK;
}

void an_mva_free(an_mva *out) {
  if (!out) return;
  free(out->throughput);
  free(out->response);
  free(out->residence);
  free(out->queue);
  free(out->utilization);
  memset(out, 0, sizeof *out);
}

/* ---------------------------------------------------------------- deterministic pipeline */

/* A closed cycle of N workers through one single server of constant time L (the lock)
 * and an infinite server of constant time O (everything outside the lock). In steady state
 * either the lock never idles (N L >= L + O, rate 1/L) or no worker ever waits for it
 * (rate N/(L+O)); the cycle through a deterministic single-server station reaches this
 * periodic regime after at most one round (e.g. Bolch et al., Queueing Networks and
 * Markov Chains, the deterministic bound of the cyclic network). */
int an_det_lock(int workers_per_gpu, int gpus, int batch, double t_locked, double t_free,
                double t_gpu, an_det *out, ps_err *e) {
  if (workers_per_gpu < 1)
    return ps_fail(e, PS_EINPUT, "det: workers_per_gpu: expected an integer >= 1, got %d", workers_per_gpu);
  if (gpus < 1) return ps_fail(e, PS_EINPUT, "det: gpus: expected an integer >= 1, got %d", gpus);
  if (batch < 1) return ps_fail(e, PS_EINPUT, "det: batch: expected an integer >= 1, got %d", batch);
  if (!(t_locked > 0) || !isfinite(t_locked))
    return ps_fail(e, PS_EINPUT, "det: locked time: expected a finite number > 0, got %g", t_locked);
  if (!(t_free >= 0) || !isfinite(t_free))
    return ps_fail(e, PS_EINPUT, "det: unlocked time: expected a finite number >= 0, got %g", t_free);
  if (!(t_gpu >= 0) || !(t_gpu <= t_locked))
    return ps_fail(e, PS_EINPUT, "det: gpu time: expected a number in [0, locked time %g], got %g",
                   t_locked, t_gpu);
  double n = workers_per_gpu, total = t_locked + t_free;
  an_det r;
  r.lock_bound = n * t_locked >= total;
  r.call_rate = r.lock_bound ? 1.0 / t_locked : n / total;
  r.gpu_util = r.call_rate * t_gpu;
  r.cycle = n / r.call_rate;
  r.throughput = (double)gpus * batch * r.call_rate;
  *out = r;
  return PS_OK;
}

int an_det_pipeline(int workers_per_gpu, int gpus, int batch, double ts, double tg, double tc,
                    an_lock lock, an_det *out, ps_err *e) {
  if (!(ts >= 0) || !(tc >= 0))
    return ps_fail(e, PS_EINPUT, "det: cpu times: expected numbers >= 0, got %g and %g", ts, tc);
  if (lock == AN_LOCK_CALL)
    return an_det_lock(workers_per_gpu, gpus, batch, ts + tg + tc, 0, tg, out, e);
  if (lock != AN_LOCK_GPU) return ps_fail(e, PS_EINPUT, "det: lock: expected gpu or call");
  return an_det_lock(workers_per_gpu, gpus, batch, tg, ts + tc, tg, out, e);
}

double an_batch_time(double fixed, double per_partition, int k) {
  return fixed + k * per_partition;
}

/* ---------------------------------------------------------------- bounds */

/* Asymptotic bounds: Denning & Buzen, "The operational analysis of queueing network
 * models" (1978); Lazowska et al., QSP, section 5.3 (Table 5.1, terminal workloads).
 * Balanced job bounds: Zahorjan, Sevcik, Eager & Galler (1982); QSP section 5.4. With
 * Davg = D/K over the K queueing stations of positive demand, for a terminal workload:
 *   N / (D + Z + (N-1) Dmax / (1 + Z/(N D)))  <=  X(N)
 *   X(N) <= min(1/Dmax, N / (D + Z + (N-1) Davg / (1 + Z/D))). */
static void bounds_aba(double d, double dmax, double z, int n, an_bounds *o) {
  double nn = n;
  o->x_upper = nn / (d + z);
  if (dmax > 0 && 1.0 / dmax < o->x_upper) o->x_upper = 1.0 / dmax;
  o->x_lower = nn / (nn * d + z);
  o->r_lower = d;
  if (nn * dmax - z > o->r_lower) o->r_lower = nn * dmax - z;
  o->r_upper = nn * d;
  o->n_star = dmax > 0 ? (d + z) / dmax : INFINITY;
  o->balanced = 0;
}

int an_bounds_aba(double d, double dmax, double z, int n, an_bounds *out, ps_err *e) {
  if (n < 1) return ps_fail(e, PS_EINPUT, "bounds: population: expected an integer >= 1, got %d", n);
  if (!(z >= 0) || !isfinite(z))
    return ps_fail(e, PS_EINPUT, "bounds: think time: expected a finite number >= 0, got %g", z);
  if (!(dmax >= 0) || !(d >= dmax) || !isfinite(d))
    return ps_fail(e, PS_EINPUT, "bounds: demands: expected 0 <= Dmax <= D, got D=%g Dmax=%g", d, dmax);
  if (!(d + z > 0)) return ps_fail(e, PS_EINPUT, "bounds: expected D + Z > 0, got 0");
  bounds_aba(d, dmax, z, n, out);
  return PS_OK;
}

int an_bounds_network(const an_station *st, int nst, int n, an_bounds *out, ps_err *e) {
  if (nst < 1) return ps_fail(e, PS_EINPUT, "bounds: stations: expected at least 1, got %d", nst);
  double d = 0, dmax = 0, z = 0;
  int k_queues = 0, balanced_ok = 1;
  for (int k = 0; k < nst; k++) {
    double dk = st[k].demand;
    if (!(dk >= 0) || !isfinite(dk))
      return ps_fail(e, PS_EINPUT, "bounds: station %d: demand: expected a finite number >= 0, got %g", k, dk);
    switch (st[k].kind) {
    case AN_DELAY: z += dk; break;
    case AN_QUEUE:
      d += dk;
      if (dk > dmax) dmax = dk;
      if (dk > 0) k_queues++;
      break;
    case AN_MULTI:
      if (st[k].servers < 1)
        return ps_fail(e, PS_EINPUT, "bounds: station %d: servers: expected an integer >= 1, got %d", k,
                       st[k].servers);
      d += dk;
      if (dk / st[k].servers > dmax) dmax = dk / st[k].servers;
      if (st[k].servers > 1) balanced_ok = 0;
      if (dk > 0) k_queues++;
      break;
    default: return ps_fail(e, PS_EINPUT, "bounds: station %d: kind: expected delay, queue or multi", k);
    }
  }
  int rc = an_bounds_aba(d, dmax, z, n, out, e);
  if (rc != PS_OK || !balanced_ok || k_queues == 0) return rc;

  double nn = n, davg = d / k_queues;
  double xu = nn / (d + z + (nn - 1) * davg / (1 + z / d));
  double xl = nn / (d + z + (nn - 1) * dmax / (1 + z / (nn * d)));
  if (xu < out->x_upper) out->x_upper = xu;
  if (xl > out->x_lower) out->x_lower = xl;
  /* The response bounds follow from R = N/X - Z (the interactive response time law). */
  if (nn / out->x_upper - z > out->r_lower) out->r_lower = nn / out->x_upper - z;
  if (nn / out->x_lower - z < out->r_upper) out->r_upper = nn / out->x_lower - z;
  out->balanced = 1;
  return PS_OK;
}

/* ---------------------------------------------------------------- scenario assumptions */

void an_assumptions(const scenario *s, an_assume *out) {
  memset(out, 0, sizeof *out);
  const model *m = s->model;
  int np = m->nphases;
  out->closed = s->arrivals == ARR_CLOSED;
  out->gpu_exclusive = !s->gpu_shared;

  out->sequential = 1;
  out->deterministic = 1;
  out->no_pcie = 1;
  int maxthreads = 1, ngpu = 0, first_gpu = -1, last_gpu = -1;
  for (int i = 0; i < np; i++) {
    const phase *ph = &m->phases[i];
    if (i == 0 ? ph->nafter != 0 : (ph->nafter != 1 || ph->after[0] != i - 1)) out->sequential = 0;
    if (ph->time.kind != DIST_CONST || (ph->has_fixed && ph->fixed.kind != DIST_CONST) || ph->mode_share > 0)
      out->deterministic = 0;
    if (ph->resource == RES_PCIE) out->no_pcie = 0;
    if (ph->resource == RES_CPU && ph->threads > maxthreads) maxthreads = ph->threads;
    if (ph->resource == RES_GPU) {
      ngpu++;
      if (first_gpu < 0) first_gpu = i;
      last_gpu = i;
    }
  }
  out->cores_enough = (double)s->cpu_cores >= (double)s->gpus * s->workers_per_gpu * maxthreads;

  /* The lock region: the mutex scope, or, without a mutex, the GPU phases of an exclusive
   * GPU when they are contiguous (the GPU then serialises them as a lock would). */
  int from = s->mutex_from, to = s->mutex_to;
  if (ngpu > 0) {
    if (from >= 0) {
      out->lock_covers_gpu = from <= first_gpu && last_gpu <= to;
    } else if (out->gpu_exclusive) {
      int contiguous = 1;
      for (int i = first_gpu; i <= last_gpu; i++)
        if (m->phases[i].resource != RES_GPU) contiguous = 0;
      out->lock_covers_gpu = contiguous;
      from = first_gpu;
      to = last_gpu;
    }
  }

  const phase *gp = ngpu == 1 ? &m->phases[first_gpu] : NULL;
  out->single_gpu_exponential = gp && gp->time.kind == DIST_EXPONENTIAL && s->batch == 1 &&
                                gp->nscale == 0 && gp->mode_share == 0 &&
                                (!gp->has_fixed || (gp->fixed.kind == DIST_CONST && gp->fixed.a == 0));

  if (out->sequential) {
    for (int i = 0; i < np; i++) {
      double t = phase_call_mean(&m->phases[i], s->batch);
      if (from >= 0 && i >= from && i <= to)
        out->t_locked += t;
      else
        out->t_free += t;
      if (m->phases[i].resource == RES_GPU) out->t_gpu += t;
    }
  }
  /* The mutex's own time (model.mutex_overhead) holds it too; the closed forms below then
   * no longer hold exactly (the release runs beside the phases after the region, and a
   * handover's wake comes only where a worker waits). */
  double ovh = s->mutex_from >= 0 ? m->mutex_acquire_s + m->mutex_release_s : 0;
  if (out->sequential) out->t_locked += ovh;
  int base = out->closed && out->sequential && out->cores_enough && out->no_pcie &&
             out->lock_covers_gpu && out->t_locked > 0 && ovh == 0 && m->mutex_handover_s == 0;
  out->det_exact = base && out->deterministic;
  out->repairman_exact = base && out->single_gpu_exponential && from == first_gpu && to == first_gpu;
}
