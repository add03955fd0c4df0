/* The groth16 executor: binds the model's phases synth, prep, ntt_h, msm, b_g2 and
 * epilogue to groth16.h's g16_* functions, so `measure` times the real prover. The keys
 * (scenario's prover: {circuit, constraints}; setup seed 1) are made once, or loaded from
 * the cache, and shared; each worker opens its own backend handle and g16 context, the
 * workers of a GPU sharing one copy of the proving key there; each call is one g16 job of
 * k partitions. It also keeps what an operator asks of the prover (runner_prover: memory,
 * first and steady-state calls, GPU time per call). The model must name exactly those six
 * phases, in a DAG that implies groth16.h's graph (the phases of one job may run in no
 * other order). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "seed.h"
#include "stats.h"
#include "backend.h"
#include "groth16.h"
#include "r1cs.h"
#include "measure_exec.h"
#include "runner.h"

enum { G_SYNTH, G_PREP, G_NTT_H, G_MSM, G_B_G2, G_EPILOGUE, G_N };
static const char *const g_names[G_N] = {"synth", "prep", "ntt_h", "msm", "b_g2", "epilogue"};
typedef int (*g_fn)(g16_job *, ps_err *);
static const g_fn g_fns[G_N] = {g16_synth, g16_prep, g16_ntt_h, g16_msm, g16_b_g2, g16_epilogue};
/* groth16.h's graph: each phase and the phases it needs. */
static const int g_needs[G_N][2] = {{-1, -1}, {G_SYNTH, -1}, {G_SYNTH, -1}, {G_PREP, G_NTT_H}, {G_PREP, -1}, {G_MSM, G_B_G2}};

typedef struct g_st {
  mexec_env env;
  g16_keys *keys;
  int map[G_N]; /* model phase index -> g16 phase */
  /* What an operator asks of the prover (g_stats), under fig_mu: workers end calls at the
   * same time. Steady-state calls go to histograms (bounded memory). */
  pthread_mutex_t fig_mu;
  runner_prover fig;
  hist *steady, *steady_gpu;
  double first_sum, first_gpu_sum;
} g_st;

typedef struct g_w {
  g_st *st;
  int worker, gpu;
  ps_backend *b;
  g16_ctx *ctx;
  g16_job *job;
  int64_t part0, call;
  int k;
  int64_t calls;      /* calls ended so far */
  double t0, busy0;   /* the current call's start and backend_busy_s then */
} g_w;

static void g_stats(void *p, runner_prover *out) {
  g_st *st = p;
  pthread_mutex_lock(&st->fig_mu);
  *out = st->fig;
  int n = st->fig.first_calls;
  out->first_call_s = n ? st->first_sum / n : NAN;
  out->first_gpu_s = n ? st->first_gpu_sum / n : NAN;
  out->steady_calls = hist_count(st->steady);
  out->steady_p50_s = hist_quantile(st->steady, 0.5);
  out->steady_p95_s = hist_quantile(st->steady, 0.95);
  out->steady_mean_s = out->steady_calls ? hist_mean(st->steady) : NAN;
  out->steady_gpu_p50_s = hist_quantile(st->steady_gpu, 0.5);
  out->steady_gpu_mean_s = out->steady_calls ? hist_mean(st->steady_gpu) : NAN;
  out->peak_host_bytes = (double)backend_host_peak_bytes();
  pthread_mutex_unlock(&st->fig_mu);
}

/* 1 when phase a precedes phase b in the model's DAG (b depends on a, transitively). */
static int precedes(const model *m, int a, int b, int depth) {
  if (depth > m->nphases) return 0;
  for (int i = 0; i < m->phases[b].nafter; i++) {
    int x = m->phases[b].after[i];
    if (x == a || precedes(m, a, x, depth + 1)) return 1;
  }
  return 0;
}

/* prover.precompute on the keys before any worker opens: a window as given, or with auto
 * the one g16_precompute_auto picks for the least free memory over the run's GPUs (on the
 * cpu backend, which keeps no tables, auto is off). */
static int g_precompute(const mexec_env *env, g16_keys *k, ps_err *e) {
  const scenario *s = env->s;
  unsigned win = s->prover_precompute > 0 ? (unsigned)s->prover_precompute : 0;
  if (s->prover_precompute < 0 && env->cuda) {
    size_t least = SIZE_MAX;
    for (int g = 0; g < s->gpus; g++) {
      char name[256], bus[64];
      size_t fr = 0, tot = 0;
      int rc = mcuda_device_info(g, name, sizeof name, bus, sizeof bus, &fr, &tot, e);
      if (rc != PS_OK) return rc;
      if (fr < least) least = fr;
    }
    win = g16_precompute_auto(k, least, s->workers_per_gpu, s->batch);
  }
  g16_keys_set_precompute(k, win);
  return PS_OK;
}

static int g_open(const mexec_env *env, void **out, ps_err *e) {
  const scenario *s = env->s;
  const model *m = s->model;
  int idx[G_N];
  for (int g = 0; g < G_N; g++) idx[g] = -1;
  for (int p = 0; p < m->nphases; p++) {
    int g = 0;
    while (g < G_N && strcmp(m->phases[p].name, g_names[g])) g++;
    if (g == G_N)
      return ps_fail(e, PS_EINPUT,
                     "model %s: phase %s: the groth16 executor runs only the phases synth, prep, ntt_h, msm, b_g2 "
                     "and epilogue (models/provesim-groth16.yaml); use --executor synthetic for other models",
                     m->name, m->phases[p].name);
    idx[g] = p;
    if (m->phases[p].resource == RES_CPU && !m->phases[p].threads_all)
      return ps_fail(e, PS_EINPUT,
                     "model %s: phase %s: the groth16 executor runs its CPU steps with the worker's threads "
                     "(system.threads), so the phase must say  threads: all  with a scaling law, as "
                     "models/provesim-groth16.yaml does",
                     m->name, m->phases[p].name);
  }
  for (int g = 0; g < G_N; g++)
    if (idx[g] < 0)
      return ps_fail(e, PS_EINPUT, "model %s: the groth16 executor needs a phase named %s (models/provesim-groth16.yaml)",
                     m->name, g_names[g]);
  for (int g = 0; g < G_N; g++)
    for (int i = 0; i < 2; i++) {
      int need = g_needs[g][i];
      if (need >= 0 && !precedes(m, idx[need], idx[g], 0))
        return ps_fail(e, PS_EINPUT,
                       "model %s: phase %s must come after %s (through its after: list), as groth16.h's graph "
                       "requires",
                       m->name, g_names[g], g_names[need]);
    }
  if (s->prover_constraints <= 0)
    return ps_fail(e, PS_EINPUT,
                   "%s: the groth16 executor needs the circuit size: add  prover: {circuit: mimc, constraints: 2^16}  "
                   "(or --set prover.constraints=65536)",
                   s->path ? s->path : s->name);
  g16_circuit_params p = {s->prover_circuit, s->prover_constraints, -1.0, 1};
  g16_keys *k = NULL;
  /* The setup runs where the proofs will (prove --backend does the same): on the GPU it
   * takes seconds where the CPUs take minutes at 2^24 and up; the keys are the same bytes. */
  g16_setup_opts so = {0};
  if (env->cuda && !(so.backend = backend_open("cuda", e))) return e && e->code ? e->code : PS_ERR; /* bad input or no GPU */
  int rc = g16_keys_make(&p, env->cache_dir, &so, &k, e);
  backend_close(so.backend);
  if (rc != PS_OK) return rc;
  if ((rc = g_precompute(env, k, e)) != PS_OK) {
    g16_keys_free(k);
    return rc;
  }
  g_st *st = xcalloc(1, sizeof *st);
  st->env = *env;
  st->keys = k;
  for (int g = 0; g < G_N; g++) st->map[idx[g]] = g;
  pthread_mutex_init(&st->fig_mu, NULL);
  st->steady = hist_new();
  st->steady_gpu = hist_new();
  st->fig.valid = 1;
  st->fig.constraints = g16_keys_constraints(k);
  st->fig.key_gpu_bytes = (double)g16_key_bytes(k);
  st->fig.worker_gpu_bytes = (double)g16_worker_bytes(k, env->cuda ? "cuda" : "cpu", s->batch);
  st->fig.precompute_window = (int)g16_keys_precompute(k);
  st->fig.precompute_bytes = (double)g16_precompute_bytes(k, g16_keys_precompute(k));
  st->fig.peak_gpu_bytes = NAN;
  *out = st;
  return PS_OK;
}

/* A GPU holds one copy of the proving key, shared by its workers, and each worker's own
 * buffers (scalars, buckets, NTT scratch). */
static size_t g_gpu_bytes(void *p, size_t *shared) {
  g_st *st = p;
  *shared = g16_key_bytes(st->keys);
  return g16_worker_bytes(st->keys, st->env.cuda ? "cuda" : "cpu", st->env.s->batch);
}

static void g_close(void *p) {
  g_st *st = p;
  if (!st) return;
  g16_keys_free(st->keys);
  hist_free(st->steady);
  hist_free(st->steady_gpu);
  pthread_mutex_destroy(&st->fig_mu);
  free(st);
}

static int g_worker_open(void *p, int worker, int gpu, void **out, ps_err *e) {
  g_st *st = p;
  g_w *w = xcalloc(1, sizeof *w);
  w->st = st;
  w->worker = worker;
  w->gpu = gpu;
  w->b = backend_open_dev(st->env.cuda ? "cuda" : "cpu", gpu, e);
  if (!w->b) {
    free(w);
    return e && e->code ? e->code : PS_ERR; /* bad input (a tuning variable) or no GPU */
  }
  double t0 = ps_now();
  int rc = g16_ctx_open(w->b, st->keys, &w->ctx, e), up = 0;
  if (rc != PS_OK) {
    backend_close(w->b);
    free(w);
    return rc;
  }
  double dt = ps_now() - t0;
  g16_ctx_device_key(w->ctx, NULL, &up);
  if (up) {
    pthread_mutex_lock(&st->fig_mu);
    if (dt > st->fig.key_upload_s) st->fig.key_upload_s = dt;
    pthread_mutex_unlock(&st->fig_mu);
  }
  /* The prover's CPU steps run with the threads the scenario's thread policy gives a worker
   * (system.threads; the runner resolved it over the cores the run may use). */
  g16_ctx_set_threads(w->ctx, (unsigned)st->env.threads_all);
  /* The job buffers of a call are pinned here, before the run's clock starts, not in the
   * worker's first call (there they delayed each worker's first synth by its own and the
   * other workers' pinning, 0.25 s each at 2^22, inside the measured window) */
  g16_ctx_reserve(w->ctx, st->env.s->batch);
  *out = w;
  return PS_OK;
}

static void g_worker_close(void *p) {
  g_w *w = p;
  if (!w) return;
  if (backend_has_device(w->b)) {
    double peak = (double)backend_device_peak_bytes(w->b);
    g_st *st = w->st;
    pthread_mutex_lock(&st->fig_mu);
    if (!(peak <= st->fig.peak_gpu_bytes)) st->fig.peak_gpu_bytes = peak; /* also over NaN */
    pthread_mutex_unlock(&st->fig_mu);
  }
  g16_job_free(w->job);
  g16_ctx_close(w->ctx);
  backend_close(w->b);
  free(w);
}

static int g_call_begin(void *p, int rep, int64_t call, const int64_t *parts, int k, ps_err *e) {
  g_w *w = p;
  w->call = call;
  uint64_t *seeds = xmalloc((size_t)k * sizeof *seeds); /* g16_job_new copies them */
  uint64_t base = ps_seed_mix(w->st->env.s->seed, rep);
  for (int i = 0; i < k; i++) seeds[i] = (base ^ (uint64_t)parts[i] * 0x9e3779b97f4a7c15ULL) | 1;
  w->job = g16_job_new(w->ctx, k, seeds, ps_seed_mix(base, (int)(call & 0x7fffffff)));
  free(seeds);
  w->part0 = parts[0];
  w->k = k;
  w->t0 = ps_now();
  w->busy0 = backend_busy_s(w->b);
  return PS_OK;
}

static int g_phase(void *p, int pi, double *t0, double *t1, ps_err *e) {
  g_w *w = p;
  int rc = mexec_fault(w->worker, w->call, w->st->env.s->model->phases[pi].name, e);
  if (rc != PS_OK) return rc;
  *t0 = ps_now();
  rc = g_fns[w->st->map[pi]](w->job, e);
  *t1 = ps_now();
  return rc;
}

static void g_call_end(void *p) {
  g_w *w = p;
  g16_job_free(w->job);
  w->job = NULL;
  double wall = ps_now() - w->t0, gpu = backend_busy_s(w->b) - w->busy0;
  g_st *st = w->st;
  pthread_mutex_lock(&st->fig_mu);
  if (w->calls++ == 0) {
    st->fig.first_calls++;
    st->first_sum += wall;
    st->first_gpu_sum += gpu;
  } else {
    hist_add(st->steady, wall);
    hist_add(st->steady_gpu, gpu);
  }
  pthread_mutex_unlock(&st->fig_mu);
}

const mexec_ops mexec_groth16 = {
    .name = "groth16",
    .open = g_open,
    .gpu_bytes = g_gpu_bytes,
    .worker_open = g_worker_open,
    .call_begin = g_call_begin,
    .phase = g_phase,
    .call_end = g_call_end,
    .worker_close = g_worker_close,
    .stats = g_stats,
    .close = g_close,
};
