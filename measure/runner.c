/* The scenario runner (runner.h). Each worker is a thread that takes calls from a shared
 * queue and drives the call's phase DAG; the phases run on a small pool of helper
 * threads per worker (one per phase of the model, so every phase the DAG allows can run
 * at once), and a "holder" thread per worker owns the GPU mutex: it takes a FIFO ticket,
 * locks the GPU's pthread_mutex_t when the ticket is served, keeps it while the region's
 * phases run on the pool, and unlocks it when the last of them has ended (a pthread mutex
 * must be unlocked by the thread that locked it, and the region's phases run on several
 * threads). Tickets give the FIFO order of the simulator's mutex queue; the pthread
 * mutex is what is held. Whoever ends a phase or gets the mutex advances the call
 * (starts what became ready, asks for or gives back the mutex) under the worker's lock,
 * so the mutex is asked for the moment the region's first phase is ready and released
 * the moment its last phase ends, give or take a thread wake-up (microseconds).
 *
 * Everything is recorded as spans; a folder thread (runner_fold.c) writes them to the
 * spans file in time order as the run goes and keeps only prefix values at each call's
 * end, from which runner_metrics.c computes the metrics exactly as the simulator defines
 * them (docs/design.md, "Measurement window and metrics"), so a report and its spans file
 * always agree, and runner_report.c renders the reports. The run's state is in
 * runner_int.h, shared with runner_fold.c and runner_metrics.c. */
#define _GNU_SOURCE
#include "runner.h"
#include "hoststat.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arrivals.h"
#include "par.h"
#include "spans.h"
#include "scn.h"
#include "measure_exec.h"
#include "runner_int.h"

/* ---- FIFO lock ---- */

void mfifo_init(mfifo *f) {
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  f->next = f->serving = 0;
}

void mfifo_destroy(mfifo *f) {
  pthread_mutex_destroy(&f->mu);
  pthread_cond_destroy(&f->cv);
}

void mfifo_lock(mfifo *f) {
  pthread_mutex_lock(&f->mu);
  uint64_t my = f->next++;
  while (f->serving != my) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
}

void mfifo_unlock(mfifo *f) {
  pthread_mutex_lock(&f->mu);
  f->serving++;
  pthread_cond_broadcast(&f->cv);
  pthread_mutex_unlock(&f->mu);
}

/* ---- Recorded spans (the types are in runner_int.h) ---- */

int mrun_stopping(const mrun *r) {
  return r->stop || (r->o->interrupt && *r->o->interrupt);
}

void mrun_sleep_until(const mrun *r, double deadline) {
  for (;;) {
    double now = ps_now();
    if (now >= deadline || mrun_stopping(r)) return;
    double d = deadline - now;
    if (d > 0.05) d = 0.05;
    struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

static const char *intern(mrun *r, const char *name) {
  for (int i = r->nnames - 1; i >= 0; i--)
    if (!strcmp(r->names[i], name)) return r->names[i];
  if (r->nnames == r->capnames) {
    r->capnames = r->capnames ? 2 * r->capnames : 16;
    r->names = xrealloc(r->names, (size_t)r->capnames * sizeof *r->names);
  }
  return r->names[r->nnames++] = xstrdup(name);
}

void mrun_device_span(mrun *r, int gpu, span_kind kind, const char *name, double t0, double t1) {
  pthread_mutex_lock(&r->dmu);
  if (r->accept_dev && gpu >= 0 && gpu < r->s->gpus) {
    rspan s = {.gpu = gpu, .worker = -1, .phase = kind == SPAN_KERNEL ? SP_KERNEL : SP_MEMCPY, .call = -1,
               .name = intern(r, name ? name : "?"), .t0 = t0 - r->base, .t1 = t1 - r->base};
    runner__push(&r->dev, &s);
    if (s.t1 > r->dev_t1_max) r->dev_t1_max = s.t1;
  }
  pthread_mutex_unlock(&r->dmu);
}

static void device_sink(void *ctx, int gpu, span_kind kind, const char *name, double t0, double t1) {
  mrun_device_span(ctx, gpu, kind, name, t0, t1);
}

/* ---- The rendezvous (runner_opts.rendezvous) ---- */

/* Waits until every worker of w's GPU still taking calls has arrived (or the run stops):
 * the last to arrive releases them all. A worker that runs out of calls leaves
 * (rdv_leave), so the others never wait for one that will not come. */
static void rdv_meet(rworker *w) {
  rgpu *g = &w->R->gpus[w->gpu];
  pthread_mutex_lock(&g->rmu);
  unsigned gen = g->gen;
  if (++g->arrived >= g->active) {
    g->arrived = 0;
    g->gen++;
    pthread_cond_broadcast(&g->rcv);
  }
  while (g->gen == gen && !mrun_stopping(w->R)) {
    /* A failing or interrupted run sets a flag and signals no one: look every 20 ms. */
    struct timespec ts;
    ps_deadline_in(&ts, 0.02);
    pthread_cond_timedwait(&g->rcv, &g->rmu, &ts);
  }
  pthread_mutex_unlock(&g->rmu);
}

static void rdv_leave(rworker *w) {
  rgpu *g = &w->R->gpus[w->gpu];
  pthread_mutex_lock(&g->rmu);
  g->active--;
  if (g->arrived > 0 && g->arrived >= g->active) {
    g->arrived = 0;
    g->gen++;
    pthread_cond_broadcast(&g->rcv);
  }
  pthread_mutex_unlock(&g->rmu);
}

/* With the rendezvous, before GPU phase p of the call runs: the first GPU phase's thread
 * meets the GPU's other workers, and the call's other GPU phases wait until it has. Called
 * with w->mu held; returns with it held. */
static void rdv_before(rworker *w, int p) {
  mrun *R = w->R;
  if (!R->o->rendezvous || R->s->model->phases[p].resource != RES_GPU) return;
  if (w->meet == 0) {
    w->meet = 1;
    pthread_mutex_unlock(&w->mu);
    rdv_meet(w);
    pthread_mutex_lock(&w->mu);
    w->meet = 2;
    pthread_cond_broadcast(&w->cv_meet);
  }
  while (w->meet != 2) pthread_cond_wait(&w->cv_meet, &w->mu);
}

/* ---- One call's DAG ---- */

/* Starts what became ready, asks for or gives back the mutex, and notices the end of the
 * call. Called with w->mu held by whoever changed the call's state. */
static void advance(rworker *w) {
  mrun *R = w->R;
  int stopping = w->failed || mrun_stopping(R);
  if (!stopping) {
    for (int p = 0; p < R->np; p++) {
      if (w->started[p] || w->deps_left[p] > 0) continue;
      if (R->in_region[p]) {
        if (w->mx == MX_NONE) {
          w->mx = MX_REQ;
          w->mx_req = ps_now();
          pthread_cond_broadcast(&w->cv_hold);
        }
        if (w->mx != MX_HELD) continue;
      }
      w->started[p] = 1;
      w->q[(w->qh + w->qn++) % R->np] = p;
      w->running++;
      pthread_cond_signal(&w->cv_pool);
    }
  }
  if (w->mx == MX_HELD && (w->region_left == 0 || (stopping && w->running == 0))) {
    w->mx = MX_RELREQ;
    pthread_cond_broadcast(&w->cv_hold);
  }
  if (w->running == 0 && (w->mx == MX_NONE || w->mx == MX_RELEASED) && (w->ndone == R->np || stopping)) {
    w->finished = 1;
    pthread_cond_broadcast(&w->cv_co);
  }
}

static void *pool_main(void *arg) {
  rworker *w = arg;
  mrun *R = w->R;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->qn && !w->exiting) pthread_cond_wait(&w->cv_pool, &w->mu);
    if (!w->qn) break;
    int p = w->q[w->qh];
    w->qh = (w->qh + 1) % R->np;
    w->qn--;
    rdv_before(w, p);
    int skip = w->failed || mrun_stopping(R);
    pthread_mutex_unlock(&w->mu);
    double t0 = 0, t1 = 0;
    ps_err e = {0};
    /* The phase's CPU time: this thread's and its helpers' (par_for's, the synthetic
     * executor's burners), whatever the phase's resource (a GPU phase's is its host
     * thread's launching and waiting). */
    double c0 = par_cpu_seconds();
    int rc = skip ? PS_OK : R->ops->phase(w->xs, p, &t0, &t1, &e);
    double cpu = par_cpu_seconds() - c0;
    pthread_mutex_lock(&w->mu);
    if (!skip && rc == PS_OK) {
      rspan s = {.gpu = w->gpu, .worker = w->wig, .phase = p, .k = w->k, .call = w->call, .part0 = w->part0,
                 .t0 = t0 - R->base, .t1 = t1 - R->base, .cpu_s = cpu};
      runner__push(&w->spans, &s);
      if (t1 > w->last_t1) w->last_t1 = t1;
    } else if (!skip) {
      ps_err full;
      snprintf(full.msg, sizeof full.msg, "worker %d (GPU %d), call %lld, phase %.60s: %.900s", w->wig, w->gpu,
               (long long)w->call, R->s->model->phases[p].name, e.msg);
      w->failed = 1;
      runner__fail(R, &full);
    }
    w->running--;
    w->ndone++;
    if (R->in_region[p]) w->region_left--;
    for (int i = 0; i < R->nsucc[p]; i++) w->deps_left[R->succ[p][i]]--;
    advance(w);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

static void *holder_main(void *arg) {
  rworker *w = arg;
  rgpu *g = &w->R->gpus[w->gpu];
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (w->mx != MX_REQ && !w->exiting) pthread_cond_wait(&w->cv_hold, &w->mu);
    if (w->mx != MX_REQ) break;
    pthread_mutex_unlock(&w->mu);
    mfifo_lock(&g->tickets);
    pthread_mutex_lock(&g->held);
    double acq = ps_now();
    pthread_mutex_lock(&w->mu);
    w->mx = MX_HELD;
    w->mx_acq = acq;
    advance(w);
    while (w->mx != MX_RELREQ) pthread_cond_wait(&w->cv_hold, &w->mu);
    pthread_mutex_unlock(&w->mu);
    double rel = ps_now();
    pthread_mutex_unlock(&g->held);
    mfifo_unlock(&g->tickets);
    pthread_mutex_lock(&w->mu);
    w->mx = MX_RELEASED;
    w->mx_rel = rel;
    advance(w);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* Takes the next batch; 0 when no work is left (or the run is stopping). */
static int take_batch(rworker *w, double *t_start) {
  mrun *R = w->R;
  const scenario *s = R->s;
  for (;;) {
    pthread_mutex_lock(&R->qmu);
    if (R->next_part >= R->total || mrun_stopping(R)) {
      pthread_mutex_unlock(&R->qmu);
      return 0;
    }
    double now = ps_now();
    if (R->arrive && R->arrive[R->next_part] > now) {
      double t = R->arrive[R->next_part];
      pthread_mutex_unlock(&R->qmu);
      mrun_sleep_until(R, t);
      continue;
    }
    int k = 0;
    while (k < s->batch && R->next_part + k < R->total && (!R->arrive || R->arrive[R->next_part + k] <= now)) k++;
    w->part0 = R->next_part;
    w->k = k;
    w->call = R->ncalls++;
    R->next_part += k;
    *t_start = ps_now();
    w->open_t0 = *t_start - R->base; /* the folder's horizon stays before this call */
    pthread_mutex_unlock(&R->qmu);
    return 1;
  }
}

static void *worker_main(void *arg) {
  rworker *w = arg;
  mrun *R = w->R;
  int np = R->np;
  double t_start;
  /* The partitions of a call: up to system.batch of them, whatever the loader accepted. */
  PS_ASSERT(R->s->batch >= 1);
  int64_t *parts = xmalloc((size_t)R->s->batch * sizeof *parts);
  while (take_batch(w, &t_start)) {
    PS_ASSERT(w->k >= 1 && w->k <= R->s->batch);
    for (int i = 0; i < w->k; i++) parts[i] = w->part0 + i;
    ps_err e = {0};
    if (R->ops->call_begin(w->xs, R->rep, w->call, parts, w->k, &e) != PS_OK) {
      runner__fail(R, &e);
      break;
    }
    pthread_mutex_lock(&w->mu);
    for (int p = 0; p < np; p++) {
      w->deps_left[p] = R->s->model->phases[p].nafter;
      w->started[p] = 0;
    }
    w->ndone = w->running = w->finished = w->meet = 0;
    w->region_left = R->s->mutex_from >= 0 ? R->s->mutex_to - R->s->mutex_from + 1 : 0;
    w->mx = MX_NONE;
    w->last_t1 = t_start;
    advance(w);
    while (!w->finished) pthread_cond_wait(&w->cv_co, &w->mu);
    int complete = w->ndone == np && !w->failed && !mrun_stopping(R);
    int had_mx = w->mx == MX_RELEASED;
    pthread_mutex_unlock(&w->mu);
    R->ops->call_end(w->xs);
    pthread_mutex_lock(&w->mu); /* the folder takes spans and calls under it */
    if (had_mx) {
      rspan ws = {.gpu = w->gpu, .worker = w->wig, .phase = SP_WAIT, .k = w->k, .call = w->call,
                  .part0 = w->part0, .t0 = w->mx_req - R->base, .t1 = w->mx_acq - R->base};
      rspan hs = ws;
      hs.phase = SP_HELD;
      hs.t0 = w->mx_acq - R->base;
      hs.t1 = w->mx_rel - R->base;
      runner__push(&w->spans, &ws);
      runner__push(&w->spans, &hs);
    }
    if (!complete) {
      pthread_mutex_unlock(&w->mu);
      break;
    }
    if (w->ncalls == w->ccap) {
      w->ccap = w->ccap ? 2 * w->ccap : 64;
      w->calls = xrealloc(w->calls, w->ccap * sizeof *w->calls);
    }
    double t_end = w->last_t1;
    if (had_mx && w->mx_rel > t_end) t_end = w->mx_rel;
    w->calls[w->ncalls++] = (rcall){.gpu = w->gpu, .worker = w->wig, .k = w->k, .call = w->call,
                                    .part0 = w->part0, .t_start = t_start - R->base, .t_end = t_end - R->base,
                                    .has_mx = had_mx, .mx_req = w->mx_req - R->base,
                                    .mx_acq = w->mx_acq - R->base, .mx_rel = w->mx_rel - R->base};
    pthread_mutex_unlock(&w->mu);
    pthread_mutex_lock(&R->qmu);
    w->open_t0 = INFINITY; /* recorded: the folder may pass it */
    R->done_parts += w->k;
    if (R->o->progress)
      R->o->progress(R->o->progress_ctx, (size_t)((int64_t)R->rep * R->s->partitions + R->done_parts));
    pthread_mutex_unlock(&R->qmu);
  }
  pthread_mutex_lock(&R->qmu);
  w->open_t0 = INFINITY;
  pthread_mutex_unlock(&R->qmu);
  if (R->o->rendezvous) rdv_leave(w);
  free(parts);
  return NULL;
}

/* ---- The run ---- */

/* Fills the spans header's host_steal slot at offset `at`: in the spans file (written
 * already; the file is left positioned at its end) or in the document kept in memory. */
static void put_steal(FILE *f, ps_buf *b, long at, double v) {
  char slot[SPANS_STEAL_WIDTH];
  spans_put_steal(slot, v);
  if (!f) {
    if ((size_t)at + sizeof slot <= b->len) memcpy(b->p + at, slot, sizeof slot);
    return;
  }
  /* A file that cannot seek keeps null: the value is not known there. */
  if (fflush(f) == 0 && fseek(f, at, SEEK_SET) == 0) {
    fwrite(slot, 1, sizeof slot, f);
    fflush(f);
  }
  fseek(f, 0, SEEK_END);
}

/* The run uses system.cpu_cores cores: when the process may use more, it is confined to
 * the first cpu_cores of them (threads started later inherit it; *saved gets the old set,
 * restored by the caller). Returns the cores the run may use. */
static int confine_cores(const scenario *s, cpu_set_t *saved, int *restricted, char *notes, size_t nn) {
  *restricted = 0;
  if (sched_getaffinity(0, sizeof *saved, saved) != 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return s->cpu_cores < online ? s->cpu_cores : (int)online;
  }
  int have = CPU_COUNT(saved);
  if (s->cpu_cores >= have) {
    if (s->cpu_cores > have) {
      size_t l = strlen(notes);
      snprintf(notes + l, nn - l, "%ssystem.cpu_cores is %d and this process may use %d cores: the workers share %d",
               l ? "; " : "", s->cpu_cores, have, have);
    }
    return have;
  }
  cpu_set_t use;
  CPU_ZERO(&use);
  for (int c = 0, n = 0; c < CPU_SETSIZE && n < s->cpu_cores; c++)
    if (CPU_ISSET(c, saved)) CPU_SET(c, &use), n++;
  if (sched_setaffinity(0, sizeof use, &use) == 0) *restricted = 1;
  return s->cpu_cores;
}

static void make_arrivals(mrun *R) {
  const scenario *s = R->s;
  free(R->arrive);
  R->arrive = NULL;
  int64_t np;
  double *t = arrivals_measured(s, s->seed, R->rep, &np); /* validate draws them again */
  if (!t) return;
  int64_t ppp = s->partitions_per_proof > 0 ? s->partitions_per_proof : 1;
  R->arrive = xmalloc((size_t)s->partitions * sizeof *R->arrive);
  for (int64_t p = 0; p < s->partitions; p++) R->arrive[p] = R->base + t[p / ppp];
  free(t);
}

static void worker_reset(rworker *w) {
  w->spans.n = 0;
  w->ncalls = 0;
  w->open_t0 = INFINITY;
  w->exiting = 0;
  w->qh = w->qn = 0;
}

static int start_worker(rworker *w, ps_err *e) {
  int rc;
  for (int i = 0; i < w->npool; i++)
    if ((rc = pthread_create(&w->pool[i], NULL, pool_main, w)) != 0)
      return ps_fail(e, PS_ERR, "cannot start a thread: %s", strerror(rc));
  if ((rc = pthread_create(&w->holder, NULL, holder_main, w)) != 0)
    return ps_fail(e, PS_ERR, "cannot start a thread: %s", strerror(rc));
  if ((rc = pthread_create(&w->th, NULL, worker_main, w)) != 0)
    return ps_fail(e, PS_ERR, "cannot start a thread: %s", strerror(rc));
  return PS_OK;
}

static void join_worker(rworker *w) {
  pthread_join(w->th, NULL);
  pthread_mutex_lock(&w->mu);
  w->exiting = 1;
  pthread_cond_broadcast(&w->cv_pool);
  pthread_cond_broadcast(&w->cv_hold);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->npool; i++) pthread_join(w->pool[i], NULL);
  pthread_join(w->holder, NULL);
}

void runner_result_free(runner_result *r) {
  if (!r) return;
  for (int i = 0; i < r->sim.nreps; i++) sim_metrics_free(&r->sim.reps[i]);
  free(r->sim.reps);
  free(r->gpu_util_nvml);
  free(r->nvml_spread);
  free(r->clocks);
  free(r->phases);
  ps_buf_free(&r->spans);
  free(r);
}

int runner_run(const scenario *s, const runner_opts *o, runner_result **out, ps_err *e) {
  *out = NULL;
  const mexec_ops *ops;
  if (!o->executor || !strcmp(o->executor, "synthetic"))
    ops = &mexec_synthetic;
  else if (!strcmp(o->executor, "groth16"))
    ops = &mexec_groth16;
  else
    return ps_fail(e, PS_EINPUT, "--executor: expected groth16 or synthetic, got \"%s\"", o->executor);
  int cuda;
  if (!o->backend || !strcmp(o->backend, "cuda"))
    cuda = 1;
  else if (!strcmp(o->backend, "cpu"))
    cuda = 0;
  else
    return ps_fail(e, PS_EINPUT, "--backend: expected cuda or cpu, got \"%s\"", o->backend);

  if (o->rendezvous) {
    /* The GPU's workers meet before their GPU phases: under a lock over them they would
     * wait for each other for ever, and a lone worker has no one to meet. */
    int gpu_phases = 0;
    for (int p = 0; p < s->model->nphases; p++) gpu_phases += s->model->phases[p].resource == RES_GPU;
    if (s->mutex_from >= 0)
      return ps_fail(e, PS_EINPUT, "--rendezvous: the scenario has a GPU mutex (system.mutex); the workers meet before "
                                   "their GPU phases only without one: --set system.mutex=none");
    if (s->workers_per_gpu < 2)
      return ps_fail(e, PS_EINPUT, "--rendezvous: the scenario has one worker per GPU; the workers of a GPU meet only "
                                   "when it has two or more: --set system.workers_per_gpu=2");
    if (!gpu_phases)
      return ps_fail(e, PS_EINPUT, "--rendezvous: the model has no GPU phase (resource: gpu) to meet before");
  }

  /* PROVESIM_CUPTI_FLUSH, a diagnostic of CUPTI's memory (docs/reliability.md): none
   * (the default: no flush while the run measures), complete (CUPTI's default flush at
   * every fold) or period:MS (CUPTI's own thread hands over full buffers every MS ms). */
  int cflush = 0;
  unsigned cperiod = 0;
  const char *cf = getenv("PROVESIM_CUPTI_FLUSH");
  if (cf && *cf && strcmp(cf, "none")) {
    int ms = 0;
    if (!strcmp(cf, "complete"))
      cflush = 1;
    else if (!strncmp(cf, "period:", 7) && ps_parse_int(cf + 7, 1, 60000, &ms) == PS_OK)
      cflush = 2, cperiod = (unsigned)ms;
    else
      return ps_fail(e, PS_EINPUT, "PROVESIM_CUPTI_FLUSH: expected none, complete or period:MS (MS from 1 to 60000), "
                                   "got \"%.100s\"", cf);
  }

  /* PROVESIM_CUPTI_BUFFERS, its companion: pool (the default) or fresh (docs/reliability.md) */
  const char *cb = getenv("PROVESIM_CUPTI_BUFFERS");
  if (cb && *cb && strcmp(cb, "pool") && strcmp(cb, "fresh"))
    return ps_fail(e, PS_EINPUT, "PROVESIM_CUPTI_BUFFERS: expected pool or fresh, got \"%.100s\"", cb);
  mcupti_fresh_buffers(cb && !strcmp(cb, "fresh"));

  mrun *R = xcalloc(1, sizeof *R);
  R->s = s;
  R->cupti_flush = cflush;
  R->warmup = s->warmup_auto ? -1 : s->warmup;
  R->o = o;
  R->ops = ops;
  R->cuda = cuda;
  R->np = s->model->nphases;
  pthread_mutex_init(&R->fail_mu, NULL);
  pthread_mutex_init(&R->qmu, NULL);
  pthread_mutex_init(&R->dmu, NULL);
  pthread_mutex_init(&R->fold_mu, NULL);
  pthread_cond_init(&R->fold_cv, NULL);
  R->in_region = xcalloc((size_t)R->np, 1);
  if (s->mutex_from >= 0)
    for (int p = s->mutex_from; p <= s->mutex_to; p++) R->in_region[p] = 1;
  R->succ = xcalloc((size_t)R->np, sizeof *R->succ);
  R->nsucc = xcalloc((size_t)R->np, sizeof *R->nsucc);
  for (int p = 0; p < R->np; p++) {
    const phase *ph = &s->model->phases[p];
    for (int i = 0; i < ph->nafter; i++) {
      int a = ph->after[i];
      R->succ[a] = xrealloc(R->succ[a], (size_t)(R->nsucc[a] + 1) * sizeof(int));
      R->succ[a][R->nsucc[a]++] = p;
    }
  }

  int rc = PS_OK, cupti_on = 0, cpus_restricted = 0;
  cpu_set_t saved_cpus;
  runner_result *res = NULL;
  mnvml *nv = NULL;
  char notes[1024] = "", devname[256] = "";
  char **pci = NULL;
  if (cuda) {
    int n = 0;
    if ((rc = mcuda_device_count(&n, e)) != PS_OK) goto out;
    if (s->gpus > n) {
      rc = ps_fail(e, PS_ERR, "the scenario wants %d GPUs (system.gpus) and this machine has %d", s->gpus, n);
      goto out;
    }
    pci = xcalloc((size_t)s->gpus, sizeof *pci);
    for (int g = 0; g < s->gpus; g++) {
      char name[256], bus[64];
      size_t fr, tot;
      if ((rc = mcuda_device_info(g, name, sizeof name, bus, sizeof bus, &fr, &tot, e)) != PS_OK) goto out;
      pci[g] = xstrdup(bus);
      if (g == 0) snprintf(devname, sizeof devname, "%s", name);
    }
    const char *how = NULL;
    ps_err ce = {0};
    if (o->no_cupti) {
      R->timing = MT_EVENTS;
      snprintf(notes, sizeof notes, "CUPTI not used (--no-cupti): kernel times from CUDA events");
    } else if (mcupti_start(device_sink, R, &how, &ce) == PS_OK) {
      R->timing = MT_CUPTI;
      cupti_on = 1;
      snprintf(notes, sizeof notes, "kernel and memcpy spans from CUPTI activity records (%s)%s", how,
               cflush == 1 ? "; PROVESIM_CUPTI_FLUSH=complete" : cflush == 2 ? "; PROVESIM_CUPTI_FLUSH=period" : "");
      if (cb && !strcmp(cb, "fresh")) {
        size_t l = strlen(notes);
        snprintf(notes + l, sizeof notes - l, "; PROVESIM_CUPTI_BUFFERS=fresh");
      }
      if (cflush == 2) mcupti_flush_period(cperiod);
    } else {
      R->timing = MT_EVENTS;
      snprintf(notes, sizeof notes, "CUPTI unavailable (%.900s): kernel times from CUDA events", ce.msg);
    }
  } else {
    R->timing = MT_PHASES;
    snprintf(devname, sizeof devname, "%ld CPU threads", sysconf(_SC_NPROCESSORS_ONLN));
    snprintf(notes, sizeof notes, "cpu backend: GPU phases run on the CPU; GPU utilization from the GPU phase spans");
  }

  if (R->timing == MT_EVENTS && ops != &mexec_synthetic) {
    /* Only the synthetic executor launches its own kernels and can put events around them. */
    R->timing = MT_PHASES;
    size_t l = strlen(notes);
    snprintf(notes + l, sizeof notes - l, "; the %s executor has no events of its own, so GPU utilization comes "
                                          "from the GPU phase spans (an upper bound)", ops->name);
  }
  if (o->rendezvous) {
    size_t l = strlen(notes);
    snprintf(notes + l, sizeof notes - l, "; --rendezvous: the workers of a GPU met before each call's GPU phases, so "
                                          "these figures are of that forced schedule, not of the scenario's");
  }
  int cores = confine_cores(s, &saved_cpus, &cpus_restricted, notes, sizeof notes);
  R->cores = cores;
  /* The hypervisor's steal on the run's cores, from here to the end of the run. */
  cpu_set_t run_cpus;
  host_cpu_times steal0 = {0};
  int have_steal = sched_getaffinity(0, sizeof run_cpus, &run_cpus) == 0 &&
                   host_cpu_times_read(NULL, &run_cpus, &steal0) == 0;
  long steal_at = -1; /* where the spans' host_steal slot is: in the file, or in res->spans */
  R->threads_all = scn_worker_threads(s, cores);
  mexec_env env = {.s = s, .cuda = cuda, .timing = R->timing, .run = R, .cache_dir = o->cache_dir,
                   .threads_all = R->threads_all};
  if ((rc = ops->open(&env, &R->xst, e)) != PS_OK) goto out;

  R->nw = s->gpus * s->workers_per_gpu;
  if (cuda) {
    size_t shared = 0, per_worker = ops->gpu_bytes(R->xst, &shared);
    for (int g = 0; g < s->gpus; g++) {
      char name[256], bus[64];
      size_t fr = 0, tot = 0;
      if ((rc = mcuda_device_info(g, name, sizeof name, bus, sizeof bus, &fr, &tot, e)) != PS_OK) goto out;
      double need = (double)shared + (double)per_worker * s->workers_per_gpu, G = 1073741824.0;
      if (need > (double)fr) {
        rc = ps_fail(e, PS_ERR,
                     "GPU %d (%s) has %.2f GiB free of %.2f GiB; the scenario needs %.2f GiB there (%.2f GiB shared "
                     "by the GPU's workers, the proving key with any precomputed tables, and %d worker%s x %.2f GiB "
                     "of buffers at batch %d): lower system.workers_per_gpu, system.batch or prover.constraints, "
                     "or set prover.precompute to off",
                     g, name, (double)fr / G, (double)tot / G, need / G, (double)shared / G, s->workers_per_gpu,
                     s->workers_per_gpu > 1 ? "s" : "", (double)per_worker / G, s->batch);
        goto out;
      }
    }
  }

  res = xcalloc(1, sizeof *res);
  res->host_steal = -1;
  res->ngpus = s->gpus;
  res->gpu_util_nvml = xcalloc((size_t)s->gpus, sizeof(double));
  res->clocks = xcalloc((size_t)s->gpus, sizeof *res->clocks);
  for (int g = 0; g < s->gpus; g++) {
    res->gpu_util_nvml[g] = NAN;
    mnvml_clocks(NULL, g, 0, 0, &res->clocks[g]); /* empty: n = 0, NaN figures */
  }
  res->gpu_timing = R->timing == MT_CUPTI ? "cupti" : R->timing == MT_EVENTS ? "cuda-events" : "phase-spans";
  snprintf(res->device, sizeof res->device, "%s", devname);
  if (o->keep_spans) {
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    /* The processor, for the provenance calibrate records. */
    char cpu[256] = "", line[512];
    FILE *ci = fopen("/proc/cpuinfo", "r");
    while (ci && fgets(line, sizeof line, ci))
      if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
        const char *v = strchr(line, ':') + 1;
        while (*v == ' ' || *v == '\t') v++;
        snprintf(cpu, sizeof cpu, "%.*s, %ld cores online", (int)strcspn(v, "\n"), v, sysconf(_SC_NPROCESSORS_ONLN));
        break;
      }
    if (ci) fclose(ci);
    span_header h = {.source = "prover", .scenario = s->name, .host = host, .gpu = devname, .cpu = cpu[0] ? cpu : NULL,
                     .cpu_cores = R->cores, .steal = have_steal ? SPANS_STEAL_SLOT : SPANS_STEAL_NONE,
                     /* validate draws the arrivals again from it (core/arrivals.h) */
                     .has_seed = s->seed <= (1ULL << 53), .seed = (int64_t)s->seed, .rendezvous = o->rendezvous};
    long base = o->spans_file ? ftell(o->spans_file) : 0, slot = spans_format_header(&res->spans, &h);
    if (slot >= 0 && base >= 0) steal_at = base + slot;
    R->spans_out = &res->spans;
    if ((rc = runner__spans_drain(R, e)) != PS_OK) goto out;
  }

  R->gpus = xcalloc((size_t)s->gpus, sizeof *R->gpus);
  for (int g = 0; g < s->gpus; g++) {
    mfifo_init(&R->gpus[g].tickets);
    pthread_mutex_init(&R->gpus[g].held, NULL);
    pthread_mutex_init(&R->gpus[g].rmu, NULL);
    pthread_cond_init(&R->gpus[g].rcv, NULL);
  }
  R->w = xcalloc((size_t)R->nw, sizeof *R->w);
  int nopen = 0;
  for (int i = 0; i < R->nw; i++) {
    rworker *w = &R->w[i];
    w->R = R;
    w->idx = i;
    w->gpu = i % s->gpus;
    w->wig = i / s->gpus;
    w->npool = R->np;
    w->pool = xcalloc((size_t)w->npool, sizeof *w->pool);
    w->q = xcalloc((size_t)R->np, sizeof *w->q);
    w->deps_left = xcalloc((size_t)R->np, sizeof *w->deps_left);
    w->started = xcalloc((size_t)R->np, 1);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv_co, NULL);
    pthread_cond_init(&w->cv_pool, NULL);
    pthread_cond_init(&w->cv_hold, NULL);
    pthread_cond_init(&w->cv_meet, NULL);
  }
  for (int i = 0; i < R->nw; i++, nopen++)
    if ((rc = ops->worker_open(R->xst, i, R->w[i].gpu, &R->w[i].xs, e)) != PS_OK) goto out;

  if (cuda) {
    ps_err ne = {0};
    double period = o->nvml_period_s > 0 ? o->nvml_period_s : 0.1;
    if (mnvml_start(s->gpus, (const char *const *)pci, period, &nv, &ne) != PS_OK) {
      size_t l = strlen(notes);
      snprintf(notes + l, sizeof notes - l, "; NVML unavailable (%.600s): no nvidia-smi figure", ne.msg);
    }
    for (int g = 0; g < s->gpus; g++) mcuda_sync(g, &ne);
    if (cupti_on) mcupti_flush(); /* setup's uploads are not part of any replication */
  }

  res->sim.reps = xcalloc((size_t)s->replications, sizeof *res->sim.reps);
  dvec *pd = xcalloc((size_t)R->np + 2, sizeof *pd);
  double *nvml_sum = xcalloc((size_t)s->gpus, sizeof *nvml_sum);
  dvec *nvml_all = xcalloc((size_t)s->gpus, sizeof *nvml_all);
  int *nvml_n = xcalloc((size_t)s->gpus, sizeof *nvml_n);
  double t_all = ps_now();
  int64_t late = 0;
  for (int rep = 0; rep < s->replications && rc == PS_OK; rep++) {
    R->rep = rep;
    R->next_part = 0;
    R->done_parts = 0;
    R->ncalls = 0;
    R->total = s->partitions;
    pthread_mutex_lock(&R->dmu);
    R->dev.n = 0;
    R->dev_t1_max = -INFINITY;
    R->base = ps_now();
    R->accept_dev = 1;
    pthread_mutex_unlock(&R->dmu);
    make_arrivals(R);
    for (int i = 0; i < R->nw; i++) worker_reset(&R->w[i]);
    for (int g = 0; g < s->gpus; g++) {
      R->gpus[g].active = s->workers_per_gpu;
      R->gpus[g].arrived = 0;
    }
    runner__fold_begin(R);
    R->folder_stop = 0;
    int folding = pthread_create(&R->folder, NULL, runner__folder_main, R) == 0;
    int started = 0;
    for (int i = 0; i < R->nw; i++, started++)
      if (start_worker(&R->w[i], e) != PS_OK) {
        runner__fail(R, e);
        break;
      }
    for (int i = 0; i < started; i++) join_worker(&R->w[i]);
    if (folding) {
      pthread_mutex_lock(&R->fold_mu);
      R->folder_stop = 1;
      pthread_cond_signal(&R->fold_cv);
      pthread_mutex_unlock(&R->fold_mu);
      pthread_join(R->folder, NULL);
    }
    if (cuda) {
      ps_err se = {0};
      for (int g = 0; g < s->gpus; g++)
        if (mcuda_sync(g, &se) != PS_OK) runner__fail(R, &se);
      if (cupti_on) mcupti_flush();
    }
    pthread_mutex_lock(&R->dmu);
    R->accept_dev = 0;
    pthread_mutex_unlock(&R->dmu);
    if (!R->fold_failed) { /* everything recorded is in: summarise and write the rest */
      ps_err fe = {0};
      if (runner__fold(R, INFINITY, &fe) != PS_OK) {
        R->fold_failed = 1;
        runner__fail(R, &fe);
      }
    }
    if (R->failed) {
      rc = ps_fail(e, PS_ERR, "%s", R->err.msg);
      break;
    }
    if (o->interrupt && *o->interrupt) {
      rc = ps_fail(e, PS_ERR, "interrupted during replication %d: the mutexes were released and the spans so far "
                              "kept; no report", rep);
      break;
    }
    late += R->late;
    double w0 = 0, w1 = 0;
    if ((rc = runner__rep_metrics(R, &res->sim.reps[rep], pd, &w0, &w1, e)) != PS_OK) break;
    res->sim.warmup_auto = s->warmup_auto;
    res->sim.warmup = R->warmup;
    res->sim.nreps++;
    res->sim.events += res->sim.reps[rep].events;
    res->completed_reps++;
    for (int g = 0; nv && g < s->gpus; g++) {
      int cnt = 0;
      double u = mnvml_mean(nv, g, R->base + w0, R->base + w1, &cnt);
      if (cnt > 0) {
        nvml_sum[g] += u;
        nvml_n[g]++;
        res->nvml_samples += cnt;
        double *tmp = xmalloc((size_t)cnt * sizeof *tmp);
        int got = mnvml_samples(nv, g, R->base + w0, R->base + w1, tmp, cnt);
        for (int i = 0; i < got; i++) runner__dvec_push(&nvml_all[g], tmp[i]);
        free(tmp);
      }
      mnvml_clk c;
      mnvml_clocks(nv, g, R->base + w0, R->base + w1, &c);
      mnvml_clk_merge(&res->clocks[g], &c);
    }
  }
  res->sim.wall_s = ps_now() - t_all;
  host_cpu_times steal1;
  if (have_steal && host_cpu_times_read(NULL, &run_cpus, &steal1) == 0) res->host_steal = host_steal_share(&steal0, &steal1);
  if (steal_at >= 0 && res->host_steal >= 0) put_steal(o->spans_file, &res->spans, steal_at, res->host_steal);
  res->nvml_spread = xcalloc((size_t)s->gpus, sizeof *res->nvml_spread);
  for (int g = 0; g < s->gpus; g++) {
    if (nvml_n[g]) res->gpu_util_nvml[g] = nvml_sum[g] / nvml_n[g];
    dvec *v = &nvml_all[g];
    if (v->n) qsort(v->v, v->n, sizeof *v->v, ps_cmp_double);
    static const double qs[5] = {0, 0.05, 0.5, 0.95, 1};
    for (int i = 0; i < 5; i++) res->nvml_spread[g][i] = runner__quant(v->v, v->n, qs[i]);
    free(v->v);
  }
  free(nvml_all);
  free(nvml_sum);
  free(nvml_n);
  res->nphases = R->np + 2;
  res->phases = xcalloc((size_t)res->nphases, sizeof *res->phases);
  for (int p = 0; p < R->np + 2; p++) {
    runner_phase_stats *ps = &res->phases[p];
    ps->name = p < R->np ? s->model->phases[p].name : p == R->np ? "mutex_wait" : "mutex_held";
    ps->resource = p < R->np ? scn_res_name(s->model->phases[p].resource) : "none";
    ps->n = (int64_t)pd[p].n;
    ps->mean = runner__mean_of(&pd[p]);
    ps->p50 = runner__q_of(&pd[p], 0.50);
    ps->p95 = runner__quant(pd[p].v, pd[p].n, 0.95);
    ps->p99 = runner__quant(pd[p].v, pd[p].n, 0.99);
    ps->min = pd[p].n ? pd[p].v[0] : NAN;
    ps->max = pd[p].n ? pd[p].v[pd[p].n - 1] : NAN;
    free(pd[p].v);
  }
  free(pd);
  if (o->interrupt && *o->interrupt && rc == PS_OK)
    rc = ps_fail(e, PS_ERR, "interrupted: the mutexes were released and the spans so far kept; no report");
  if (late) { /* none by design (runner_fold.c); if it happens, the reader must know */
    size_t l = strlen(notes);
    snprintf(notes + l, sizeof notes - l,
             "; %lld spans were recorded after their time had been summarised: utilization may be low by their "
             "length", (long long)late);
  }
  if (cupti_on && mcupti_dropped()) {
    size_t l = strlen(notes);
    snprintf(notes + l, sizeof notes - l,
             "; CUPTI dropped %lu kernel or copy records for want of buffer space: utilization may be low",
             mcupti_dropped());
  }
  snprintf(res->notes, sizeof res->notes, "%s", notes);

out:
  if (cpus_restricted) sched_setaffinity(0, sizeof saved_cpus, &saved_cpus);
  if (R->w) {
    for (int i = 0; i < nopen; i++) ops->worker_close(R->w[i].xs);
    if (res && R->xst && ops->stats) ops->stats(R->xst, &res->prover);
    for (int i = 0; i < R->nw; i++) {
      rworker *w = &R->w[i];
      free(w->pool), free(w->q), free(w->deps_left), free(w->started), free(w->spans.v), free(w->calls);
      pthread_mutex_destroy(&w->mu);
      pthread_cond_destroy(&w->cv_co);
      pthread_cond_destroy(&w->cv_pool);
      pthread_cond_destroy(&w->cv_hold);
      pthread_cond_destroy(&w->cv_meet);
    }
    runner__fold_free(R);
    free(R->w);
  }
  mnvml_stop(nv);
  if (R->xst) ops->close(R->xst);
  if (cupti_on) mcupti_stop();
  if (R->gpus) {
    for (int g = 0; g < s->gpus; g++) {
      mfifo_destroy(&R->gpus[g].tickets);
      pthread_mutex_destroy(&R->gpus[g].held);
      pthread_mutex_destroy(&R->gpus[g].rmu);
      pthread_cond_destroy(&R->gpus[g].rcv);
    }
    free(R->gpus);
  }
  if (pci)
    for (int g = 0; g < s->gpus; g++) free(pci[g]);
  free(pci);
  for (int p = 0; p < R->np; p++) free(R->succ[p]);
  free(R->succ), free(R->nsucc), free(R->in_region), free(R->arrive), free(R->dev.v);
  for (int i = 0; i < R->nnames; i++) free(R->names[i]);
  free(R->names);
  pthread_mutex_destroy(&R->fail_mu);
  pthread_mutex_destroy(&R->qmu);
  pthread_mutex_destroy(&R->dmu);
  pthread_mutex_destroy(&R->fold_mu);
  pthread_cond_destroy(&R->fold_cv);
  free(R);
  *out = res;
  return rc;
}
