/* The metrics of a measured replication (runner_int.h), computed from the calls and spans
 * that its workers recorded exactly as the simulator defines them: the measurement window
 * and utilization through core/window.h, the GPU idle split by who held the mutex, and the
 * latency, call and mutex statistics over the window. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mser.h"
#include "runner_int.h"
#include "scn.h"
#include "window.h"

typedef struct cdone {
  double t;
  int64_t seq;
  const rcall *c;
} cdone;

static int cmp_cdone(const void *x, const void *y) {
  const cdone *p = x, *q = y;
  if (p->t != q->t) return p->t < q->t ? -1 : 1;
  return p->seq < q->seq ? -1 : p->seq > q->seq;
}

void runner__dvec_push(dvec *d, double x) {
  if (d->n == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 64;
    d->v = xrealloc(d->v, d->cap * sizeof *d->v);
  }
  d->v[d->n++] = x;
}

double runner__quant(const double *x, size_t n, double q) {
  if (!n) return NAN;
  double h = q * (double)(n - 1);
  size_t i = (size_t)h;
  if (i + 1 >= n) return x[n - 1];
  return x[i] + (h - (double)i) * (x[i + 1] - x[i]);
}

double runner__mean_of(const dvec *d) {
  if (!d->n) return NAN;
  double s = 0;
  for (size_t i = 0; i < d->n; i++) s += d->v[i];
  return s / (double)d->n;
}

double runner__q_of(dvec *d, double q) {
  if (d->n) qsort(d->v, d->n, sizeof *d->v, ps_cmp_double); /* qsort(NULL, 0, ...) is undefined */
  return runner__quant(d->v, d->n, q);
}

int runner__rep_metrics(mrun *R, sim_metrics *m, dvec *pd, double *win_t0, double *win_t1, ps_err *e) {
  const scenario *s = R->s;
  size_t nc = 0;
  for (int i = 0; i < R->nw; i++) nc += R->w[i].ncalls;
  cdone *cd = xmalloc((nc ? nc : 1) * sizeof *cd);
  size_t j = 0;
  for (int i = 0; i < R->nw; i++)
    for (size_t c = 0; c < R->w[i].ncalls; c++) {
      cd[j] = (cdone){R->w[i].calls[c].t_end, R->w[i].calls[c].call, &R->w[i].calls[c]};
      j++;
    }
  qsort(cd, nc, sizeof *cd, cmp_cdone);
  if (R->warmup < 0) {
    /* run.warmup: auto, as the simulator chooses it (docs/design.md, "Warm-up from the
     * data"): MSER-5 over replication 0's partition latencies in completion order, up to
     * partition partitions - cooldown; every replication then uses it. */
    int64_t n = 0, cap = s->partitions - s->cooldown;
    double *x = xmalloc((size_t)(cap > 0 ? cap : 1) * sizeof *x);
    for (size_t i = 0; i < nc && n < cap; i++)
      for (int q = 0; q < cd[i].c->k && n < cap; q++) {
        const rcall *c = cd[i].c;
        x[n++] = c->t_end - (R->arrive ? R->arrive[c->part0 + q] - R->base : c->t_start);
      }
    R->warmup = sim_mser5(x, n);
    free(x);
  }
  win W_ = {0};
  win_init(&W_, s->partitions, R->warmup, s->cooldown);
  dvec lat = {0}, call = {0}, wait = {0}, held = {0}, proof = {0};
  int64_t nproofs = s->arrivals != ARR_CLOSED ? (s->partitions + s->partitions_per_proof - 1) / s->partitions_per_proof : 0;
  int *proof_left = NULL;
  if (nproofs) {
    proof_left = xmalloc((size_t)nproofs * sizeof *proof_left);
    for (int64_t p = 0; p < nproofs; p++) {
      int64_t last = (p + 1) * s->partitions_per_proof;
      if (last > s->partitions) last = s->partitions;
      proof_left[p] = (int)(last - p * s->partitions_per_proof);
    }
  }
  for (size_t i = 0; i < nc; i++) {
    const rcall *c = cd[i].c;
    int inw = win_is_open(&W_);
    if (inw) runner__dvec_push(&call, c->t_end - c->t_start);
    for (int q = 0; q < c->k; q++) {
      int64_t part = c->part0 + q;
      double arr = R->arrive ? R->arrive[part] - R->base : c->t_start;
      inw = win_is_open(&W_);
      if (inw) runner__dvec_push(&lat, c->t_end - arr);
      if (nproofs) {
        int64_t pf = part / s->partitions_per_proof;
        if (--proof_left[pf] == 0 && inw) runner__dvec_push(&proof, c->t_end - (R->arrive[pf * s->partitions_per_proof] - R->base));
      }
      win_complete(&W_, c->t_end, 1);
    }
  }
  free(proof_left);
  if (win_check(&W_, NULL, e) != PS_OK) {
    free(cd);
    free(lat.v), free(call.v), free(wait.v), free(held.v), free(proof.v);
    return PS_EINPUT;
  }
  double T0 = W_.t0, T1 = W_.t1, W = win_length(&W_);
  for (size_t i = 0; i < nc; i++) {
    const rcall *c = cd[i].c;
    if (!c->has_mx) continue;
    if (c->mx_acq > T0 && c->mx_acq <= T1) runner__dvec_push(&wait, c->mx_acq - c->mx_req);
    if (c->mx_rel > T0 && c->mx_rel <= T1) runner__dvec_push(&held, c->mx_rel - c->mx_acq);
  }
  free(cd);

  memset(m, 0, sizeof *m);
  m->ngpus = s->gpus;
  m->gpu_util = xcalloc((size_t)s->gpus, sizeof(double));
  /* The window's figures from the prefix values at its ends (runner_fold.c). */
  const double *p0 = runner__pre_at(R, T0), *p1 = runner__pre_at(R, T1);
#define PRE_IN(q) ((p1 ? p1[q] : 0) - (p0 ? p0[q] : 0))
  double held_idle = 0, free_idle = 0;
  for (int g = 0; g < s->gpus; g++) {
    double b = PRE_IN(RUNNER_PRE_BUSY(g)), h = PRE_IN(RUNNER_PRE_HELD(g)), hb = PRE_IN(RUNNER_PRE_BOTH(g));
    m->gpu_util[g] = b / W;
    m->gpu_util_mean += m->gpu_util[g] / s->gpus;
    held_idle += (h - hb) / W / s->gpus;
    free_idle += (W - b - (h - hb)) / W / s->gpus;
  }
  double cpu_core_s = PRE_IN(RUNNER_PRE_CPU(R));
#undef PRE_IN
  for (size_t i = 0; i < R->ndurs; i++)
    if (R->durs[i].t1 > T0 && R->durs[i].t1 <= T1) runner__dvec_push(&pd[R->durs[i].phase], R->durs[i].d);
  int64_t nspans = R->nphase_spans;
  for (size_t i = 0; i < wait.n; i++) runner__dvec_push(&pd[R->np], wait.v[i]);
  for (size_t i = 0; i < held.n; i++) runner__dvec_push(&pd[R->np + 1], held.v[i]);
  m->idle_mutex_cpu = held_idle;
  m->idle_no_holder = free_idle;
  m->cpu_util = cpu_core_s / ((double)s->cpu_cores * W);
  m->window_s = W;
  m->completed = W_.end_at - W_.warmup;
  m->throughput_pps = (double)m->completed / W;
  m->lat_mean = runner__mean_of(&lat);
  m->lat_p50 = runner__q_of(&lat, 0.50);
  m->lat_p95 = runner__q_of(&lat, 0.95);
  m->lat_p99 = runner__q_of(&lat, 0.99);
  if (s->mutex_from >= 0) {
    m->mutex_wait_mean = runner__mean_of(&wait);
    m->mutex_wait_p99 = runner__q_of(&wait, 0.99);
    m->mutex_held_mean = runner__mean_of(&held);
  }
  m->call_mean = runner__mean_of(&call);
  m->call_p99 = runner__q_of(&call, 0.99);
  if (proof.n) {
    m->has_proofs = 1;
    m->proof_lat_mean = runner__mean_of(&proof);
    m->proof_lat_p50 = runner__q_of(&proof, 0.50);
    m->proof_lat_p95 = runner__q_of(&proof, 0.95);
    m->proof_lat_p99 = runner__q_of(&proof, 0.99);
  }
  m->events = nspans;
  *win_t0 = T0;
  *win_t1 = T1;
  free(lat.v), free(call.v), free(wait.v), free(held.v), free(proof.v);
  return PS_OK;
}

const double *runner__pre_at(const mrun *R, double t) {
  if (t <= 0) return NULL;
  for (int wi = 0; wi < R->nw; wi++) {
    const rworker *w = &R->w[wi];
    for (size_t i = 0; i < w->nfold; i++)
      if (w->calls[i].t_end == t) return w->pre + i * (size_t)R->npre;
  }
  PS_ASSERT(!"a window bound that is no summarised call's end");
  return NULL;
}
