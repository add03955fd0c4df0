/* The analytic side of `estimate` (estimate.h): est_decompose reads the call as a lock
 * region and the work outside it, from the phases' mean times (a critical-path reading
 * when phases overlap), and est_models picks the models of analytic.h whose inputs that
 * reading gives, saying for each whether its assumptions hold. est_run adds the
 * simulation and the comparison. */
#include "estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe.h"

static int phase_exp(const phase *ph, int batch) {
  return ph->time.kind == DIST_EXPONENTIAL && batch == 1 && ph->nscale == 0 && ph->mode_share == 0 &&
         (!ph->has_fixed || (ph->fixed.kind == DIST_CONST && ph->fixed.a == 0));
}

void est_decompose(const scenario *s, const an_assume *a, est_decomp *d) {
  memset(d, 0, sizeof *d);
  const model *m = s->model;
  int np = m->nphases, first_gpu = -1, last_gpu = -1;
  for (int i = 0; i < np; i++)
    if (m->phases[i].resource == RES_GPU) {
      if (first_gpu < 0) first_gpu = i;
      last_gpu = i;
    }
  int from = s->mutex_from, to = s->mutex_to;
  if (from < 0 && !s->gpu_shared && first_gpu >= 0) {
    int contiguous = 1;
    for (int i = first_gpu; i <= last_gpu; i++)
      if (m->phases[i].resource != RES_GPU) contiguous = 0;
    if (contiguous) {
      from = first_gpu;
      to = last_gpu;
    }
  }
  d->has_lock = from >= 0;
  d->sequential = a->sequential;
  d->cpu_threads = 1;
  double *t = xcalloc((size_t)np, sizeof *t);
  for (int i = 0; i < np; i++) {
    const phase *ph = &m->phases[i];
    t[i] = phase_call_mean(ph, s->batch);
    if (ph->resource == RES_GPU) d->t_gpu += t[i];
    if (ph->resource == RES_CPU) d->core_s += t[i] * ph->threads;
  }
  if (a->sequential) {
    int nlock = 0, lock_exp = 1;
    for (int i = 0; i < np; i++) {
      const phase *ph = &m->phases[i];
      if (d->has_lock && i >= from && i <= to) {
        d->t_locked += t[i];
        nlock++;
        lock_exp = lock_exp && phase_exp(ph, s->batch);
      } else if (ph->resource == RES_CPU) {
        d->cpu_out += t[i];
        d->ncpu_out++;
        if (ph->threads > d->cpu_threads) d->cpu_threads = ph->threads;
        d->cpu_exp = d->ncpu_out == 1 && phase_exp(ph, s->batch) && ph->threads == 1;
      } else {
        d->delay_out += t[i];
      }
    }
    d->lock_exp = nlock == 1 && lock_exp;
    d->t_free = d->cpu_out + d->delay_out;
    d->t_locked_max = d->t_locked;
    d->t_free_max = d->t_free;
  } else {
    /* Earliest start and finish of every phase with mean times and no contention. */
    double *es = xcalloc((size_t)np, sizeof *es), *ef = xcalloc((size_t)np, sizeof *ef);
    for (int pass = 0; pass < np; pass++)
      for (int i = 0; i < np; i++) {
        double st = 0;
        for (int k = 0; k < m->phases[i].nafter; k++)
          if (ef[m->phases[i].after[k]] > st) st = ef[m->phases[i].after[k]];
        es[i] = st;
        ef[i] = st + t[i];
      }
    double call = 0;
    for (int i = 0; i < np; i++)
      if (ef[i] > call) call = ef[i];
    if (d->has_lock) {
      /* Uncontended, the lock is held from the region's first ready phase to its last end
       * (t_locked_max). Under contention the work beside the region (prep beside ntt_h)
       * overlaps the wait, so the hold shrinks towards the region's own critical path with
       * every outside predecessor done (t_locked). */
      double st = INFINITY, en = 0;
      for (int i = from; i <= to; i++) {
        if (es[i] < st) st = es[i];
        if (ef[i] > en) en = ef[i];
      }
      d->t_locked_max = en - st;
      double *rf = xcalloc((size_t)np, sizeof *rf), hold = 0;
      for (int pass = 0; pass < np; pass++)
        for (int i = from; i <= to; i++) {
          double s0 = 0;
          for (int k = 0; k < m->phases[i].nafter; k++) {
            int j = m->phases[i].after[k];
            if (j >= from && j <= to && rf[j] > s0) s0 = rf[j];
          }
          rf[i] = s0 + t[i];
        }
      for (int i = from; i <= to; i++)
        if (rf[i] > hold) hold = rf[i];
      free(rf);
      d->t_locked = hold;
    }
    d->t_free = call - d->t_locked;
    d->t_free_max = call - d->t_locked_max;
    free(es);
    free(ef);
  }
  free(t);
  if (s->mutex_from >= 0) { /* the mutex's own time (model.mutex_overhead) holds it too, a
                             * handover's wake where another worker may wait (the saturated
                             * reading: every hold handed over) */
    double ovh = m->mutex_acquire_s + m->mutex_release_s + (s->workers_per_gpu > 1 ? m->mutex_handover_s : 0);
    d->t_locked += ovh;
    d->t_locked_max += ovh;
  }
  d->cpu_queue = !a->cores_enough && d->cpu_out > 0;
  int per = s->cpu_cores / (d->cpu_queue && d->has_lock ? s->gpus : 1) / d->cpu_threads;
  d->cpu_servers = per > 0 ? per : 1;
}

static est_row *add_row(est_result *out) {
  PS_ASSERT(out->nrows < EST_MAX_ROWS);
  return &out->rows[out->nrows++];
}

void est_models(const scenario *s, est_result *out) {
  memset(out, 0, sizeof *out);
  an_assume *a = &out->a;
  est_decomp *d = &out->d;
  an_assumptions(s, a);
  est_decompose(s, a, d);
  ps_err e = {0}; /* a model that cannot be computed is left out */
  int w = s->workers_per_gpu, g = s->gpus, bt = s->batch;
  double load_pps = report_offered_pps(s);

  /* Deterministic closed form. */
  if (d->has_lock && d->t_locked > 0 && d->t_gpu <= d->t_locked + 1e-12) {
    an_det det;
    if (an_det_lock(w, g, bt, d->t_locked, d->t_free, fmin(d->t_gpu, d->t_locked), &det, &e) == PS_OK) {
      est_row *r = add_row(out);
      memset(r, 0, sizeof *r);
      r->name = "deterministic";
      snprintf(r->label, sizeof r->label, "deterministic closed form (%s)", det.lock_bound ? "lock-bound" : "worker-bound");
      r->x = det.throughput;
      r->util = det.gpu_util;
      if (a->det_exact) {
        r->status = "exact";
        snprintf(r->why, sizeof r->why, "constant times, sequential phases, enough cores");
      } else {
        r->status = "approximate";
        snprintf(r->why, sizeof r->why, "%s", !a->deterministic ? "uses mean times; variability is ignored"
                                              : !a->sequential ? "critical path of mean times, work beside the lock region overlapping the wait"
                                                              : "an assumption above fails");
      }
    }
  }

  /* Machine repairman and MVA (sequential reading of the call). */
  if (d->sequential && (d->t_locked > 0 || d->cpu_out > 0)) {
    int lockq = d->has_lock && d->t_locked > 0, cpuq = d->cpu_queue;
    if (lockq + cpuq == 1) {
      int n, c;
      double z, sv;
      if (lockq) {
        n = w;
        c = 1;
        sv = d->t_locked;
        z = d->t_free;
      } else {
        n = w * g;
        c = s->cpu_cores / d->cpu_threads > 0 ? s->cpu_cores / d->cpu_threads : 1;
        sv = d->cpu_out;
        z = d->delay_out;
      }
      an_repairman rp;
      if (an_repairman_solve(n, c, z, sv, NULL, &rp, &e) == PS_OK) {
        est_row *r = add_row(out);
        memset(r, 0, sizeof *r);
        r->name = "repairman";
        snprintf(r->label, sizeof r->label, "machine repairman M/M/%d//%d", c, n);
        double calls = lockq ? rp.throughput * g : rp.throughput;
        r->x = calls * bt;
        r->util = calls * d->t_gpu / g;
        int exact = a->closed && a->no_pcie && (lockq ? d->lock_exp && !d->cpu_queue : d->cpu_exp && !d->has_lock);
        r->status = exact ? "exact" : "approximate";
        snprintf(r->why, sizeof r->why, "%s", exact ? "one exponential station, everything else a delay"
                                                    : "assumes exponential service at the one queueing station");
        out->has_repairman = 1;
        out->rp_customers = n;
        out->rp_servers = c;
        out->rp_think_s = z;
        out->rp_service_s = sv;
        out->rp = rp;
      }
    }
    /* MVA: per GPU, the lock (one server), the CPU (load-dependent, its share of cores),
     * and a delay for the rest; without a lock, one network of all workers. */
    an_station st[3];
    int ns = 0;
    int per_gpu = lockq;
    if (lockq) st[ns++] = (an_station){AN_QUEUE, d->t_locked, 1};
    if (cpuq) st[ns++] = (an_station){AN_MULTI, d->cpu_out, d->cpu_servers};
    double delay = d->delay_out + (cpuq ? 0 : d->cpu_out);
    if (delay > 0) st[ns++] = (an_station){AN_DELAY, delay, 1};
    an_mva mv;
    int pop = per_gpu ? w : w * g;
    if (ns > 0 && an_mva_solve(st, ns, pop, &mv, &e) == PS_OK) {
      est_row *r = add_row(out);
      memset(r, 0, sizeof *r);
      r->name = "mva";
      snprintf(r->label, sizeof r->label, "exact MVA (%s%s%s)", lockq ? "lock" : "", lockq && cpuq ? " + " : "",
               cpuq ? "load-dependent CPU" : "");
      double calls = mv.throughput[pop] * (per_gpu ? g : 1);
      r->x = calls * bt;
      r->util = calls * d->t_gpu / g;
      int exact = a->closed && a->no_pcie && (!lockq || d->lock_exp) && (!cpuq || (d->cpu_exp || !s->cpu_fifo)) &&
                  (!(lockq && cpuq) || g == 1) && (lockq || cpuq);
      r->status = exact ? "exact" : "approximate";
      snprintf(r->why, sizeof r->why, "%s", exact ? "product-form network (exponential FCFS, processor-sharing CPU)"
                                                  : "assumes exponential service times (product form)");
      an_mva_free(&mv);
    }
  }

  /* Asymptotic bounds, per GPU (or for all workers without a lock). */
  {
    double dd, dmax, z;
    int n;
    if (d->has_lock && d->t_locked > 0) {
      dd = d->t_locked_max;
      dmax = d->t_locked_max;
      z = d->t_free_max;
      n = w;
    } else if (d->cpu_out > 0 || d->t_free > 0) {
      int c = s->cpu_cores / d->cpu_threads > 0 ? s->cpu_cores / d->cpu_threads : 1;
      dd = d->sequential ? d->cpu_out : d->t_free;
      dmax = dd / c;
      z = d->sequential ? d->delay_out : 0;
      n = w * g;
    } else {
      dd = 0;
      dmax = 0;
      z = 0;
      n = 0;
    }
    an_bounds bd;
    if (n > 0 && dd > 0 && an_bounds_aba(dd, dmax, z, n, &bd, &e) == PS_OK) {
      double mult = d->has_lock ? (double)g * bt : (double)bt;
      double hi = bd.x_upper * mult, lo = bd.x_lower * mult;
      /* With a barrier, the hold can shrink to the region's own critical path. */
      if (d->has_lock && d->t_locked > 0 && d->t_locked < d->t_locked_max)
        hi = mult * fmin((double)w / (d->t_locked + d->t_free), 1.0 / d->t_locked);
      /* The GPU and the cores bound every configuration. */
      if (!s->gpu_shared && d->t_gpu > 0 && g * bt / d->t_gpu < hi) hi = g * bt / d->t_gpu;
      if (d->core_s > 0 && s->cpu_cores * bt / d->core_s < hi) hi = s->cpu_cores * bt / d->core_s;
      if (lo > hi) lo = hi;
      est_row *r = add_row(out);
      memset(r, 0, sizeof *r);
      r->name = "bounds";
      snprintf(r->label, sizeof r->label, "asymptotic bounds (N* = %.2f workers)", bd.n_star);
      r->status = "bounds";
      r->x_lo = lo;
      r->x_hi = hi;
      r->x = NAN;
      r->util = NAN;
      snprintf(r->why, sizeof r->why, "hold for any distribution when phases run in sequence%s",
               d->sequential ? "" : "; here from the critical path of mean times");
    }
  }
  if (isfinite(load_pps)) {
    est_row *r = add_row(out);
    memset(r, 0, sizeof *r);
    r->name = "offered";
    snprintf(r->label, sizeof r->label, "offered load (utilization law)");
    r->x = load_pps;
    r->util = load_pps * d->t_gpu / bt / g;
    r->status = "exact";
    snprintf(r->why, sizeof r->why, "when the system keeps up: throughput = arrival rate, U = X x GPU time");
  }

}

/* The simulated throughput (sx, its CI sxc) against each row. */
static void est_compare(est_result *r) {
  double sx = r->sim.tput, sxc = r->sim.tput_ci;
  for (int k = 0; k < r->nrows; k++) {
    est_row *w = &r->rows[k];
    if (!strcmp(w->status, "bounds")) {
      double tol = isfinite(sxc) ? sxc : 0;
      w->inside = sx + tol >= w->x_lo * (1 - 1e-9) && sx - tol <= w->x_hi * (1 + 1e-9);
      w->inside_strict = sx >= w->x_lo * (1 - 1e-9) && sx <= w->x_hi * (1 + 1e-9);
    } else {
      w->gap = (sx - w->x) / w->x;
      w->within_ci = isfinite(sxc) && fabs(sx - w->x) <= sxc;
    }
  }
}

int est_run(const scenario *s, int threads, est_result *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  sim_opts o = {.threads = threads};
  sim_result *res = NULL;
  int rc = sim_run(s, &o, &res, e);
  if (rc != PS_OK) return rc;
  report_summary sum;
  report_summarize(res, &sum);
  sim_result_free(res);
  est_models(s, out);
  out->has_sim = 1;
  out->sim = sum;
  est_compare(out);
  return PS_OK;
}

void est_free(est_result *r) {
  if (r->has_sim) report_summary_free(&r->sim);
  memset(r, 0, sizeof *r);
}

void est_stability(const scenario *s, report_stability *out) {
  memset(out, 0, sizeof *out);
  double off = report_offered_pps(s);
  if (!isfinite(off)) return;
  out->has = 1;
  out->offered_pps = off;
  out->capacity_pps = NAN;
  out->utilization = NAN;
  est_result r;
  est_models(s, &r);
  for (int k = 0; k < r.nrows; k++)
    if (!strcmp(r.rows[k].name, "bounds") && isfinite(r.rows[k].x_hi) && r.rows[k].x_hi > 0) {
      out->capacity_pps = r.rows[k].x_hi;
      snprintf(out->bound, sizeof out->bound, "asymptotic bounds");
    }
  est_free(&r);
  if (isfinite(out->capacity_pps)) {
    out->utilization = off / out->capacity_pps;
    out->unstable = out->utilization >= 1 - 1e-9;
  }
}
