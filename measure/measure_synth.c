/* The synthetic executor: runs ANY model by burning, for every phase of a call, the
 * duration drawn from the model's distribution (the simulator's batch rule: fixed part
 * plus k draws, or the scale multipliers). cpu phases busy-spin on their threads;
 * gpu phases launch a spin kernel for the phase's busy share of that duration on the
 * worker's stream and the host waits out the rest (cuda backend), or sleep (cpu
 * backend); pcie and none phases sleep. Like the simulator's stations, the
 * GPU (gpu_sharing: exclusive) and the PCIe link of each GPU serve one phase at a time
 * in FIFO order, and a phase's span starts when its station starts serving it. cpu phases
 * burn CPU time, not wall time, so when more threads burn than there are cores they slow
 * down as under processor sharing, and a phase with a scaling law runs its serial part on
 * one thread. With known phase times this is what checks the simulator against reality,
 * and what tests the runner without a GPU. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "par.h"
#include "seed.h"
#include "measure_exec.h"

typedef struct syn_st {
  mexec_env env;
  mfifo *gpu_q;  /* per GPU, NULL with gpu_sharing: shared */
  mfifo *pcie_q; /* per GPU */
} syn_st;

typedef struct syn_w {
  syn_st *st;
  int worker, gpu, rep;
  int64_t call;
  gsl_rng *rng;
  double *dur; /* this call's drawn durations, per phase */
  mcuda_spin *spin;
} syn_w;

static int syn_open(const mexec_env *env, void **out, ps_err *e) {
  syn_st *st = xcalloc(1, sizeof *st);
  st->env = *env;
  int G = env->s->gpus;
  if (!env->s->gpu_shared) {
    st->gpu_q = xcalloc((size_t)G, sizeof *st->gpu_q);
    for (int g = 0; g < G; g++) mfifo_init(&st->gpu_q[g]);
  }
  st->pcie_q = xcalloc((size_t)G, sizeof *st->pcie_q);
  for (int g = 0; g < G; g++) mfifo_init(&st->pcie_q[g]);
  *out = st;
  return PS_OK;
}

static size_t syn_gpu_bytes(void *st, size_t *shared) {
  (void)st;
  *shared = 0;
  return 0; /* the spin kernel touches no memory */
}

static void syn_close(void *p) {
  syn_st *st = p;
  if (!st) return;
  for (int g = 0; g < st->env.s->gpus; g++) {
    if (st->gpu_q) mfifo_destroy(&st->gpu_q[g]);
    mfifo_destroy(&st->pcie_q[g]);
  }
  free(st->gpu_q);
  free(st->pcie_q);
  free(st);
}

static int syn_worker_open(void *p, int worker, int gpu, void **out, ps_err *e) {
  syn_st *st = p;
  syn_w *w = xcalloc(1, sizeof *w);
  w->st = st;
  w->worker = worker;
  w->gpu = gpu;
  w->rep = -1;
  w->rng = gsl_rng_alloc(gsl_rng_mt19937);
  w->dur = xcalloc((size_t)st->env.s->model->nphases, sizeof *w->dur);
  if (st->env.cuda) {
    int rc = mcuda_spin_open(gpu, &w->spin, e);
    if (rc != PS_OK) {
      gsl_rng_free(w->rng);
      free(w->dur);
      free(w);
      return rc;
    }
  }
  *out = w;
  return PS_OK;
}

static void syn_worker_close(void *p) {
  syn_w *w = p;
  if (!w) return;
  mcuda_spin_close(w->spin);
  gsl_rng_free(w->rng);
  free(w->dur);
  free(w);
}

static int syn_call_begin(void *p, int rep, int64_t call, const int64_t *parts, int k, ps_err *e) {
  syn_w *w = p;
  w->call = call;
  const model *m = w->st->env.s->model;
  if (rep != w->rep) {
    w->rep = rep;
    uint64_t seed = ps_seed_mix(w->st->env.s->seed, rep) ^ (0xd1b54a32d192ed03ULL * (uint64_t)(w->worker + 1));
    gsl_rng_set(w->rng, (unsigned long)seed);
  }
  for (int i = 0; i < m->nphases; i++) w->dur[i] = phase_call_draw(&m->phases[i], k, w->rng);
  return PS_OK;
}

static void syn_call_end(void *p) {
  (void)p;
}

typedef struct spin_arg {
  const mrun *run;
  double cpu_s; /* CPU seconds each thread burns */
  double used;  /* the thread's CPU time at its end, for its joiner's par_cpu_seconds */
} spin_arg;

/* Burn cpu_s seconds of this thread's CPU time: when more threads burn than there are
 * cores, each gets a share of a core and takes longer, as under the simulator's processor
 * sharing. */
static void burn(const mrun *run, double cpu_s) {
  if (cpu_s <= 0) return;
  double end = par_thread_cpu() + cpu_s;
  volatile unsigned sink = 0;
  for (unsigned n = 1;; n++) {
    for (int i = 0; i < 2000; i++) sink += (unsigned)i * n;
    if (par_thread_cpu() >= end) break;
    if ((n & 63) == 0 && mrun_stopping(run)) break;
  }
}

static void *burn_thread(void *p) {
  spin_arg *a = p;
  burn(a->run, a->cpu_s);
  a->used = par_thread_cpu();
  return NULL;
}

/* Run cpu_s CPU seconds on each of n threads (this one and n - 1 more). */
static void burn_parallel(const mrun *run, int n, double cpu_s) {
  int extra = n > 1 ? n - 1 : 0;
  pthread_t *th = extra ? xmalloc((size_t)extra * sizeof *th) : NULL;
  spin_arg *a = extra ? xmalloc((size_t)extra * sizeof *a) : NULL;
  int started = 0;
  for (int i = 0; i < extra; i++, started++) {
    a[i] = (spin_arg){run, cpu_s, 0};
    if (pthread_create(&th[i], NULL, burn_thread, &a[i]) != 0) break;
  }
  /* Threads that could not start: this one does their work too. */
  burn(run, cpu_s * (1 + extra - started));
  for (int i = 0; i < started; i++) {
    pthread_join(th[i], NULL);
    par_cpu_credit(a[i].used);
  }
  free(th);
  free(a);
}

static int syn_phase(void *p, int pi, double *t0, double *t1, ps_err *e) {
  syn_w *w = p;
  const mexec_env *env = &w->st->env;
  const phase *ph = &env->s->model->phases[pi];
  double d = w->dur[pi];
  int rc = mexec_fault(w->worker, w->call, ph->name, e);
  if (rc != PS_OK) return rc;
  switch (ph->resource) {
  case RES_CPU: {
    /* d is the work: seconds at `threads` cores without a scaling law, one-core seconds
     * with one. Amdahl's law runs as its two parts: the serial share on one thread, then
     * the rest split over the threads; a table runs every thread for the table's time. */
    int t = mexec_phase_threads(env, ph);
    *t0 = ps_now();
    if (ph->law == SCALE_AMDAHL) {
      burn(env->run, d * ph->serial);
      burn_parallel(env->run, t, d * (1 - ph->serial) / t);
    } else {
      burn_parallel(env->run, t, d / phase_speed(ph, t));
    }
    *t1 = ps_now();
    break;
  }
  case RES_GPU: {
    mfifo *q = w->st->gpu_q ? &w->st->gpu_q[w->gpu] : NULL;
    if (q) mfifo_lock(q);
    *t0 = ps_now();
    /* A kernel for the busy share of the phase, then the host waits out the rest (as a
     * prover's host steps inside a GPU phase would). */
    double dk = d * ph->busy;
    if (env->cuda) {
      double k0 = 0, k1 = 0;
      int ev = env->timing == MT_EVENTS;
      rc = mcuda_spin_run(w->spin, dk, ev, &k0, &k1, e);
      if (rc == PS_OK && ev) mrun_device_span(env->run, w->gpu, SPAN_KERNEL, "provesim_spin", k0, k1);
    }
    mrun_sleep_until(env->run, *t0 + d);
    *t1 = ps_now();
    if (q) mfifo_unlock(q);
    break;
  }
  case RES_PCIE: {
    mfifo *q = &w->st->pcie_q[w->gpu];
    mfifo_lock(q);
    *t0 = ps_now();
    mrun_sleep_until(env->run, *t0 + d);
    *t1 = ps_now();
    mfifo_unlock(q);
    break;
  }
  case RES_NONE:
    *t0 = ps_now();
    mrun_sleep_until(env->run, *t0 + d);
    *t1 = ps_now();
    break;
  }
  return rc;
}

const mexec_ops mexec_synthetic = {
    .name = "synthetic",
    .open = syn_open,
    .gpu_bytes = syn_gpu_bytes,
    .worker_open = syn_worker_open,
    .call_begin = syn_call_begin,
    .phase = syn_phase,
    .call_end = syn_call_end,
    .worker_close = syn_worker_close,
    .close = syn_close,
};
