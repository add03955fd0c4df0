/* Check suite of the simulation engine (sim/pipe.c): closed forms in deterministic cases,
 * the machine-repairman queue, operational laws on random scenarios, batching, several
 * GPUs, processor sharing (and its classes, ps.h), the event queue's order (evq.h), arrivals,
 * and thread-count independence. Scenarios are built in
 * memory so this suite tests the engine alone. */
#include "ck.h"
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "model.h"
#include "evq.h"
#include "pipe.h"
#include "ps.h"
#include "seed.h"

/* ------------------------------------------------------------ scenario builder */

static scenario *mk(int np) {
  scenario *s = xcalloc(1, sizeof *s);
  s->name = xstrdup("test");
  s->model = xcalloc(1, sizeof *s->model);
  s->model->name = xstrdup("test-model");
  s->model->nphases = np;
  s->model->phases = xcalloc((size_t)np, sizeof(phase));
  s->gpus = 1;
  s->workers_per_gpu = 1;
  s->cpu_cores = 64;
  s->batch = 1;
  s->mutex_from = s->mutex_to = -1;
  s->mutex_name = xstrdup("none");
  s->model->interference = 1;
  s->partitions = 1000;
  s->replications = 1;
  s->seed = 1;
  s->partitions_per_proof = 1;
  return s;
}

/* Phase p: name, resource, constant time t, after the previous phase (p-1) or none. */
static void ph(scenario *s, int p, const char *name, res_kind r, double t) {
  phase *x = &s->model->phases[p];
  x->name = xstrdup(name);
  x->resource = r;
  x->threads = 1;
  x->busy = 1;
  ck_assert_int_eq(dist_const(&x->time, t, NULL), 0);
  if (p > 0) {
    x->after = xmalloc(sizeof(int));
    x->after[0] = p - 1;
    x->nafter = 1;
  }
}

static void set_after(scenario *s, int p, int n, const int *a) {
  phase *x = &s->model->phases[p];
  free(x->after);
  x->after = n ? xmalloc((size_t)n * sizeof(int)) : NULL;
  if (n) memcpy(x->after, a, (size_t)n * sizeof(int));
  x->nafter = n;
}

static void set_mutex(scenario *s, int from, int to) {
  s->mutex_from = from;
  s->mutex_to = to;
  free(s->mutex_name);
  s->mutex_name = xstrdup(from < 0 ? "none" : "custom");
}

static void free_s(scenario *s) {
  for (int p = 0; p < s->model->nphases; p++) {
    phase *x = &s->model->phases[p];
    free(x->name);
    free(x->after);
    free(x->scale);
    free(x->bserial);
    free(x->tab_k);
    free(x->tab_speedup);
    dist_free(&x->time);
    if (x->has_fixed) dist_free(&x->fixed);
  }
  free(s->model->phases);
  free(s->model->pair_rate);
  free(s->model->name);
  free(s->model);
  free(s->mutex_name);
  free(s->name);
  free(s);
}

static sim_result *run(const scenario *s, int threads, sim_span_fn fn, void *ctx) {
  sim_opts o = {.threads = threads, .on_span = fn, .span_ctx = ctx};
  sim_result *r = NULL;
  ps_err e = {0};
  int rc = sim_run(s, &o, &r, &e);
  ck_assert_msg(rc == PS_OK, "sim_run failed: %s", e.msg);
  return r;
}

/* ------------------------------------------------------------ deterministic closed forms */

/* Ts (cpu) -> Tg (gpu, mutex over it only) -> Tc (cpu), N workers, cores >= N:
 * X = min(N/(Ts+Tg+Tc), 1/Tg), U = X * Tg. */
START_TEST(det_kernels_lock) {
  const double Ts = 1.3, Tg = 0.7, Tc = 0.45, T = Ts + Tg + Tc;
  for (int N = 1; N <= 6; N++) {
    scenario *s = mk(3);
    ph(s, 0, "setup", RES_CPU, Ts);
    ph(s, 1, "gpu", RES_GPU, Tg);
    ph(s, 2, "cleanup", RES_CPU, Tc);
    set_mutex(s, 1, 1);
    s->workers_per_gpu = N;
    s->cpu_cores = N;
    s->partitions = 600 * N;
    s->warmup = 60 * N;
    s->cooldown = N; /* leave the closed backlog's drain out */
    sim_result *r = run(s, 1, NULL, NULL);
    double X = fmin(N / T, 1 / Tg);
    REL_EQ(r->reps[0].throughput_pps, X, 1e-6);
    REL_EQ(r->reps[0].gpu_util[0], X * Tg, 1e-6);
    /* A closed backlog (drain left out) never leaves a worker without work: the GPU's
     * idle time outside the lock is all "workers busy elsewhere". */
    ck_assert_double_eq_tol(r->reps[0].idle_no_work, 0, 1e-12);
    ck_assert_double_eq_tol(r->reps[0].idle_no_holder + r->reps[0].idle_mutex_cpu, 1 - X * Tg, 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* A GPU phase whose kernels fill only a share f of it (phase.busy): the same schedule as
 * det_kernels_lock, utilization X * Tg * f, and the rest of the phase counts as GPU idle
 * while the mutex is held. */
/* The mutex's own time (model.mutex_overhead): acquire a before the region's first phase,
 * release r after its last; the phases after the region start at once and the call ends no
 * earlier than the release. Kernels lock over the GPU phase: a call takes
 * T = Ts + a + Tg + max(Tc, r) and holds the mutex L = a + Tg + r, so X = min(N / T, 1 / L),
 * U = X Tg, and the GPU idles with the mutex held (a + r) X of the window. Call lock: a
 * call holds it a + Ts + Tg + Tc + r, whatever N. mk_overhead's h is a handover's wake
 * (det_mutex_handover); its runs are long enough for REL_EQ's tolerances. */
static scenario *mk_overhead(double Ts, double Tg, double Tc, double a, double r, double h, int from, int to,
                             int N) {
  scenario *s = mk(3);
  ph(s, 0, "setup", RES_CPU, Ts);
  ph(s, 1, "gpu", RES_GPU, Tg);
  ph(s, 2, "cleanup", RES_CPU, Tc);
  s->model->mutex_acquire_s = a;
  s->model->mutex_release_s = r;
  s->model->mutex_handover_s = h;
  set_mutex(s, from, to);
  s->workers_per_gpu = N;
  if (from == to) { /* the kernels' lock: a core a worker */
    s->cpu_cores = N;
    s->partitions = 600 * N;
    s->warmup = 60 * N;
    s->cooldown = N;
  } else {
    s->partitions = 300 * N;
    s->warmup = 30 * N;
  }
  return s;
}

/* Runs s (mk_overhead's) once and checks throughput X, GPU utilization X Tg and, when
 * L > 0, the mean hold L. */
static void expect_lock(scenario *s, double X, double Tg, double L) {
  sim_result *res = run(s, 1, NULL, NULL);
  REL_EQ(res->reps[0].throughput_pps, X, 1e-6);
  REL_EQ(res->reps[0].gpu_util[0], X * Tg, 1e-6);
  if (L > 0) REL_EQ(res->reps[0].mutex_held_mean, L, 1e-9);
  sim_result_free(res);
  free_s(s);
}

START_TEST(det_mutex_overhead) {
  const double Ts = 1.3, Tg = 0.7, Tc = 0.45, a = 0.05;
  const double rel[] = {0.02, 0.6}; /* shorter than the cleanup, and longer */
  for (int k = 0; k < 2; k++)
    for (int N = 1; N <= 6; N++) {
      const double r = rel[k], T = Ts + a + Tg + fmax(Tc, r), L = a + Tg + r;
      expect_lock(mk_overhead(Ts, Tg, Tc, a, r, 0, 1, 1, N), fmin(N / T, 1 / L), Tg, L);
    }
  for (int N = 1; N <= 3; N++) {
    const double r = 0.02, C = a + Ts + Tg + Tc + r;
    expect_lock(mk_overhead(Ts, Tg, Tc, a, r, 0, 0, 2, N), 1 / C, Tg, 0);
  }
}
END_TEST

/* A handover's wake (model.mutex_overhead.handover h): a release with a worker waiting
 * gives it the mutex h later, and no other worker takes it meanwhile. With the kernels'
 * lock as in det_mutex_overhead (T = 2.5 s a call, L = 0.77 s a hold, h = 0.1 s): one
 * worker never waits, X = 1 / T; two settle 0.87 s apart and never wait either, X = 2 / T;
 * four to six keep a waiter at every release, so each hold costs L + h: X = 1 / (L + h),
 * U = X Tg, and the mutex is held L a call (the wake counts as waiting). Under the whole
 * call's lock (C a call) two or more workers hand over at every release: X = 1 / (C + h). */
START_TEST(det_mutex_handover) {
  const double Ts = 1.3, Tg = 0.7, Tc = 0.45, a = 0.05, r = 0.02, h = 0.1;
  const double T = Ts + a + Tg + fmax(Tc, r), L = a + Tg + r;
  const int ns[] = {1, 2, 4, 5, 6};
  for (int k = 0; k < 5; k++) {
    int N = ns[k];
    expect_lock(mk_overhead(Ts, Tg, Tc, a, r, h, 1, 1, N), N <= 2 ? N / T : 1 / (L + h), Tg, L);
  }
  for (int N = 1; N <= 3; N++) {
    const double C = a + Ts + Tg + Tc + r;
    expect_lock(mk_overhead(Ts, Tg, Tc, a, r, h, 0, 2, N), N == 1 ? 1 / C : 1 / (C + h), Tg, 0);
  }
}
END_TEST

START_TEST(det_busy_share) {
  const double Ts = 1.3, Tg = 0.7, Tc = 0.45, T = Ts + Tg + Tc, f = 0.8;
  for (int N = 1; N <= 4; N++) {
    scenario *s = mk(3);
    ph(s, 0, "setup", RES_CPU, Ts);
    ph(s, 1, "gpu", RES_GPU, Tg);
    ph(s, 2, "cleanup", RES_CPU, Tc);
    s->model->phases[1].busy = f;
    set_mutex(s, 1, 1);
    s->workers_per_gpu = N;
    s->cpu_cores = N;
    s->partitions = 600 * N;
    s->warmup = 60 * N;
    s->cooldown = N;
    sim_result *r = run(s, 1, NULL, NULL);
    double X = fmin(N / T, 1 / Tg);
    REL_EQ(r->reps[0].throughput_pps, X, 1e-6);
    REL_EQ(r->reps[0].gpu_util[0], X * Tg * f, 1e-6);
    ck_assert_double_eq_tol(r->reps[0].idle_mutex_cpu, X * Tg * (1 - f), 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* Mutex over the whole call: U = Tg / (Ts+Tg+Tc) for every N. */
START_TEST(det_call_lock) {
  const double Ts = 1.3, Tg = 0.7, Tc = 0.45, T = Ts + Tg + Tc;
  for (int N = 1; N <= 5; N++) {
    scenario *s = mk(3);
    ph(s, 0, "setup", RES_CPU, Ts);
    ph(s, 1, "gpu", RES_GPU, Tg);
    ph(s, 2, "cleanup", RES_CPU, Tc);
    set_mutex(s, 0, 2);
    s->workers_per_gpu = N;
    s->partitions = 300 * N;
    s->warmup = 30 * N;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].gpu_util[0], Tg / T, 1e-6);
    REL_EQ(r->reps[0].throughput_pps, 1 / T, 1e-6);
    /* The GPU idles with the mutex held for (Ts+Tc)/T of the window. */
    REL_EQ(r->reps[0].idle_mutex_cpu, (Ts + Tc) / T, 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* G GPUs with W workers each, kernels lock: X = G * min(W/T, 1/Tg). */
START_TEST(det_several_gpus) {
  const double Ts = 0.9, Tg = 0.5, Tc = 0.2, T = Ts + Tg + Tc;
  int cases[][2] = {{2, 1}, {3, 2}, {4, 5}};
  for (size_t c = 0; c < 3; c++) {
    int G = cases[c][0], W = cases[c][1];
    scenario *s = mk(3);
    ph(s, 0, "setup", RES_CPU, Ts);
    ph(s, 1, "gpu", RES_GPU, Tg);
    ph(s, 2, "cleanup", RES_CPU, Tc);
    set_mutex(s, 1, 1);
    s->gpus = G;
    s->workers_per_gpu = W;
    s->partitions = 400 * G * W;
    s->warmup = 40 * G * W;
    s->cooldown = G * W;
    sim_result *r = run(s, 1, NULL, NULL);
    double X = G * fmin(W / T, 1 / Tg);
    REL_EQ(r->reps[0].throughput_pps, X, 1e-6);
    for (int g = 0; g < G; g++) REL_EQ(r->reps[0].gpu_util[g], X / G * Tg, 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* Batching, one worker, whole-call lock: a call of k partitions takes
 * sum_i (F_i + k T_i), so X = k / call and U = (Fg + k Tg) / call. */
START_TEST(det_batching) {
  const double Fs = 0.3, Ts = 0.5, Fg = 0.2, Tg = 0.4;
  for (int k = 1; k <= 4; k++) {
    scenario *s = mk(2);
    ph(s, 0, "prep", RES_CPU, Ts);
    ph(s, 1, "gpu", RES_GPU, Tg);
    s->model->phases[0].has_fixed = 1;
    dist_const(&s->model->phases[0].fixed, Fs, NULL);
    s->model->phases[1].has_fixed = 1;
    dist_const(&s->model->phases[1].fixed, Fg, NULL);
    set_mutex(s, 0, 1);
    s->batch = k;
    s->partitions = 240;
    s->warmup = 24;
    sim_result *r = run(s, 1, NULL, NULL);
    double call = Fs + k * Ts + Fg + k * Tg;
    REL_EQ(r->reps[0].throughput_pps, k / call, 1e-6);
    REL_EQ(r->reps[0].gpu_util[0], (Fg + k * Tg) / call, 1e-6);
    REL_EQ(r->reps[0].call_mean, call, 1e-3);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* Calibrated batch multipliers: a call of k partitions takes scale[k-1] * one draw. */
START_TEST(det_batch_scale) {
  const double Tg = 0.4, sc[] = {1.0, 1.6, 2.1};
  for (int k = 1; k <= 3; k++) {
    scenario *s = mk(1);
    ph(s, 0, "gpu", RES_GPU, Tg);
    s->model->phases[0].scale = xmalloc(sizeof sc);
    memcpy(s->model->phases[0].scale, sc, sizeof sc);
    s->model->phases[0].nscale = 3;
    s->batch = k;
    s->partitions = 60;
    s->warmup = 6;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].throughput_pps, k / (sc[k - 1] * Tg), 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* A batch with a law of its own (batch.serial): a cpu phase of one-core time D, serial
 * share s1 and threads t alone on the cores takes D (s1 + (1 - s1) / t) for one partition
 * and D S (s2 + (1 - s2) / t) for a call of two, whatever s1 is; at one thread, D S. */
START_TEST(det_batch_serial) {
  const double D = 0.8, S = 1.8, s1 = 0.3, s2 = 0.5, sc[] = {1.0, S}, se[] = {s1, s2};
  const int thr[] = {1, 4, 12};
  for (int i = 0; i < 3; i++)
    for (int k = 1; k <= 2; k++) {
      scenario *s = mk(1);
      ph(s, 0, "synth", RES_CPU, D);
      phase *x = &s->model->phases[0];
      x->threads = thr[i];
      x->law = SCALE_AMDAHL;
      x->serial = s1;
      x->scale = xmalloc(sizeof sc);
      memcpy(x->scale, sc, sizeof sc);
      x->bserial = xmalloc(sizeof se);
      memcpy(x->bserial, se, sizeof se);
      x->nscale = 2;
      s->batch = k;
      s->partitions = 60;
      s->warmup = 6;
      sim_result *r = run(s, 1, NULL, NULL);
      double t = thr[i], call = k == 1 ? D * (s1 + (1 - s1) / t) : D * S * (s2 + (1 - s2) / t);
      REL_EQ(r->reps[0].throughput_pps, k / call, 1e-6);
      REL_EQ(phase_call_mean(x, k), call, 1e-12);
      sim_result_free(r);
      free_s(s);
    }
}
END_TEST

/* Concurrent phases and a barrier: prep (cpu) beside ntt (gpu), msm after both. With one
 * worker the call takes max(prep, ntt) + msm. */
START_TEST(det_barrier) {
  scenario *s = mk(3);
  ph(s, 0, "prep", RES_CPU, 1.9);
  ph(s, 1, "ntt", RES_GPU, 0.7);
  ph(s, 2, "msm", RES_GPU, 1.1);
  set_after(s, 1, 0, NULL);
  int both[] = {0, 1};
  set_after(s, 2, 2, both);
  s->partitions = 100;
  s->warmup = 10;
  sim_result *r = run(s, 1, NULL, NULL);
  REL_EQ(r->reps[0].throughput_pps, 1 / 3.0, 1e-6);
  REL_EQ(r->reps[0].gpu_util[0], 1.8 / 3.0, 1e-6);
  sim_result_free(r);
  free_s(s);
}
END_TEST

/* A call of n phases: a cpu root, n - 2 phases after it side by side (gpu and none), and a
 * last cpu phase after all of them, with the mutex over the gpu ones. The engine keeps a
 * call's dependency counts and mutex waits in the worker up to 8 phases and in the jobs
 * above: both give the closed form, X = W / T with T = root + longest middle + last and
 * W workers that never wait (one GPU each, a mutex per GPU). */
START_TEST(det_many_phases) {
  for (int n = 4; n <= 13; n++) {
    scenario *s = mk(n);
    ph(s, 0, "root", RES_CPU, 0.4);
    double mid = 0;
    int *all = xmalloc((size_t)n * sizeof(int));
    for (int p = 1; p < n - 1; p++) {
      char nm[16];
      snprintf(nm, sizeof nm, "m%d", p);
      double t = 0.1 + 0.07 * p;
      ph(s, p, nm, p % 2 ? RES_GPU : RES_NONE, t);
      set_after(s, p, 1, (int[]){0});
      all[p - 1] = p;
    }
    for (int p = 1; p < n - 1; p++) /* the gpu phases run one after another */
      if (p % 2) mid += 0.1 + 0.07 * p;
    double longest = 0;
    for (int p = 1; p < n - 1; p++)
      if (!(p % 2)) longest = fmax(longest, 0.1 + 0.07 * p);
    mid = fmax(mid, longest);
    ph(s, n - 1, "last", RES_CPU, 0.3);
    set_after(s, n - 1, n - 2, all);
    free(all);
    set_mutex(s, 1, n - 2);
    s->gpus = 2;
    s->workers_per_gpu = 1;
    s->partitions = 400;
    s->warmup = 40;
    s->cooldown = 2;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].throughput_pps, 2 / (0.4 + mid + 0.3), 1e-9);
    ck_assert_int_eq(r->reps[0].events, (int64_t)n * 400);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* Processor sharing: N workers with a cpu phase of T on C < N cores share them, so each
 * call stretches to N T / C and the cores are fully used; with cpu_sharing: fifo the
 * throughput is the same (C/T) but calls do not stretch. */
START_TEST(det_cpu_sharing) {
  const double T = 2.0;
  for (int fifo = 0; fifo <= 1; fifo++) {
    scenario *s = mk(1);
    ph(s, 0, "work", RES_CPU, T);
    s->workers_per_gpu = 4;
    s->cpu_cores = 2;
    s->cpu_fifo = fifo;
    s->partitions = 400;
    s->warmup = 40;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].throughput_pps, 2 / T, 1e-6);
    REL_EQ(r->reps[0].cpu_util, 1.0, 1e-6);
    if (!fifo) REL_EQ(r->reps[0].call_mean, 4 * T / 2, 1e-3);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST


/* ------------------------------------------------------------ scaling laws */

/* One cpu phase of one-core time T1 under Amdahl's law (serial share f) alone on 8 cores:
 * each call takes T1 (f + (1 - f) / 8). */
START_TEST(scaling_amdahl_alone) {
  const double T1 = 1.0, f = 0.2;
  scenario *s = mk(1);
  ph(s, 0, "work", RES_CPU, T1);
  s->model->phases[0].threads = 8;
  s->model->phases[0].law = SCALE_AMDAHL;
  s->model->phases[0].serial = f;
  s->partitions = 200;
  sim_result *r = run(s, 1, NULL, NULL);
  double t = T1 * (f + (1 - f) / 8);
  REL_EQ(r->reps[0].call_mean, t, 1e-9);
  REL_EQ(r->reps[0].throughput_pps, 1 / t, 1e-9);
  sim_result_free(r);
  free_s(s);
}
END_TEST

/* Three workers of 4 threads each on 6 cores: each gets 6/12 of its threads, 2 cores, and
 * takes T1 (f + (1 - f) / 2); X = 3 / that. With cpu_sharing: fifo one call at a time
 * (4 of 6 cores free for a second one: no) runs on 4 cores: X = 1 / (T1 (f + (1 - f) / 4)). */
START_TEST(scaling_amdahl_shared) {
  const double T1 = 1.0, f = 0.25;
  for (int fifo = 0; fifo <= 1; fifo++) {
    scenario *s = mk(1);
    ph(s, 0, "work", RES_CPU, T1);
    s->model->phases[0].threads = 4;
    s->model->phases[0].law = SCALE_AMDAHL;
    s->model->phases[0].serial = f;
    s->workers_per_gpu = 3;
    s->cpu_cores = 6;
    s->cpu_fifo = fifo;
    s->partitions = 300;
    s->warmup = 30;
    sim_result *r = run(s, 1, NULL, NULL);
    double t2 = T1 * (f + (1 - f) / 2), t4 = T1 * (f + (1 - f) / 4);
    if (!fifo) {
      REL_EQ(r->reps[0].throughput_pps, 3 / t2, 1e-6);
      REL_EQ(r->reps[0].call_mean, t2, 1e-6);
    } else {
      REL_EQ(r->reps[0].throughput_pps, 1 / t4, 1e-6);
    }
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* A table law, between its points: threads 3 on speedups {1: 1, 2: 1.8, 4: 3.0} runs at
 * 2.4; and below one core every law runs at the share it gets (4 one-thread workers on 2
 * cores: half speed, X = 2 / T1). */
START_TEST(scaling_table_and_slices) {
  const double T1 = 1.2;
  scenario *s = mk(1);
  ph(s, 0, "work", RES_CPU, T1);
  phase *x = &s->model->phases[0];
  x->threads = 3;
  x->law = SCALE_TABLE;
  x->ntab = 3;
  x->tab_k = xmalloc(3 * sizeof(double));
  x->tab_speedup = xmalloc(3 * sizeof(double));
  memcpy(x->tab_k, (double[]){1, 2, 4}, 3 * sizeof(double));
  memcpy(x->tab_speedup, (double[]){1, 1.8, 3.0}, 3 * sizeof(double));
  s->partitions = 100;
  sim_result *r = run(s, 1, NULL, NULL);
  REL_EQ(r->reps[0].call_mean, T1 / 2.4, 1e-9);
  sim_result_free(r);
  x->threads = 1;
  s->workers_per_gpu = 4;
  s->cpu_cores = 2;
  s->warmup = 20;
  r = run(s, 1, NULL, NULL);
  REL_EQ(r->reps[0].throughput_pps, 2 / T1, 1e-6);
  REL_EQ(r->reps[0].call_mean, 2 * T1, 1e-6);
  sim_result_free(r);
  free_s(s);
}
END_TEST

/* The thread policy (model.h): share splits the cores less the kept one among workers. */
START_TEST(thread_policy) {
  scenario s = {.gpus = 1, .workers_per_gpu = 2, .cpu_cores = 16, .thr = THR_SHARE, .keep_core = 1};
  ck_assert_int_eq(scn_worker_threads(&s, 16), 7);
  s.keep_core = 0;
  ck_assert_int_eq(scn_worker_threads(&s, 16), 8);
  ck_assert_int_eq(scn_worker_threads(&s, 6), 3);
  s.gpus = 8;
  ck_assert_int_eq(scn_worker_threads(&s, 6), 1);
  s.thr = THR_ALL;
  ck_assert_int_eq(scn_worker_threads(&s, 6), 6);
  s.thr = THR_FIXED;
  s.thr_n = 5;
  ck_assert_int_eq(scn_worker_threads(&s, 6), 5);
}
END_TEST


/* Two workers whose only phase is a GPU phase of time T on a shared GPU with
 * interference s: both always run at once, each at 1 / (1 + s): X = 2 / (T (1 + s)); the
 * default s = 1 is processor sharing (X = 1 / T). */
START_TEST(gpu_interference) {
  const double T = 0.5;
  const double ss[] = {0.4, 1.0, 0.0};
  for (int i = 0; i < 3; i++) {
    scenario *s = mk(1);
    ph(s, 0, "g", RES_GPU, T);
    s->workers_per_gpu = 2;
    s->gpu_shared = 1;
    s->model->interference = ss[i];
    s->model->gpu_overlap = 1;
    s->partitions = 200;
    s->warmup = 10;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].throughput_pps, 2 / (T * (1 + ss[i])), 1e-6);
    REL_EQ(r->reps[0].call_mean, T * (1 + ss[i]), 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST


/* A gpu phase's host thread competes for the cores: on 1 core, a gpu phase g (1 s, half
 * of it kernels, one host thread) beside a cpu phase c (10 s, 1 thread) both get half a
 * core; g's host half stretches to 1 s, so g ends at 1.5 s, having let c do 0.75 s; c
 * ends at 1.5 + 9.25 = 10.75 s. The GPU executes kernels 0.5 s of each call. */
START_TEST(host_thread_shares_cores) {
  scenario *s = mk(2);
  ph(s, 0, "g", RES_GPU, 1.0);
  ph(s, 1, "c", RES_CPU, 10.0);
  set_after(s, 1, 0, NULL);
  s->model->phases[0].busy = 0.5;
  s->model->phases[0].host_threads = 1;
  s->cpu_cores = 1;
  s->partitions = 20;
  sim_result *r = run(s, 1, NULL, NULL);
  REL_EQ(r->reps[0].call_mean, 10.75, 1e-9);
  REL_EQ(r->reps[0].gpu_util[0], 0.5 / 10.75, 1e-9);
  sim_result_free(r);
  /* With two cores nothing is squeezed: the call is c's 10 s, kernels 0.5 s of it. */
  s->cpu_cores = 2;
  r = run(s, 1, NULL, NULL);
  REL_EQ(r->reps[0].call_mean, 10.0, 1e-9);
  REL_EQ(r->reps[0].gpu_util[0], 0.05, 1e-9);
  sim_result_free(r);
  free_s(s);
}
END_TEST


/* Host threads may be a fraction of a thread: g's h host threads and c's one thread demand
 * 1 + h cores; on C cores each gets the share x = min(1, C / (1 + h)) of what it demands. g
 * (1 s, half of it kernels) runs at v = 1 / (0.5 + 0.5 / x) and ends at 1 / v, c having
 * done x / v of its 10 s; the call ends at 1 / v + 10 - x / v. h = 0.5 on 1 core: x = 2/3,
 * v = 0.8, 10.41667 s; h = 1.5 on 1 core: x = 0.4, 11.05 s; h = 1.5 on 2 cores: x = 0.8,
 * 10.225 s; h = 0.5 on 2 cores: nothing squeezed, 10 s. h = 1.24 is kept as 79/64. */
START_TEST(host_threads_fraction) {
  static const struct { double h; int cores; } cs[] = {{0.5, 1}, {1.5, 1}, {1.5, 2}, {0.5, 2}, {1.24, 2}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    scenario *s = mk(2);
    ph(s, 0, "g", RES_GPU, 1.0);
    ph(s, 1, "c", RES_CPU, 10.0);
    set_after(s, 1, 0, NULL);
    s->model->phases[0].busy = 0.5;
    s->model->phases[0].host_threads = cs[i].h;
    s->cpu_cores = cs[i].cores;
    s->partitions = 20;
    double h = round(cs[i].h * 64) / 64, x = fmin(1, cs[i].cores / (1 + h)), v = 1 / (0.5 + 0.5 / x);
    double call = 1 / v + 10 - x / v;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].call_mean, call, 1e-9);
    REL_EQ(r->reps[0].gpu_util[0], 0.5 / call, 1e-9);
    if (i == 0) REL_EQ(call, 10.0 + 5.0 / 12, 1e-12); /* the closed form above, by hand */
    if (i == 2) REL_EQ(call, 10.225, 1e-12);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST


/* A fraction of a host thread is the same as whole ones at twice the scale: cpu phases
 * without a scaling law run at their share, and every share is cores / demand, so 3
 * workers with 1-thread cpu phases and half a host thread per gpu phase on 2 cores run
 * exactly as 2-thread phases with one host thread on 4 cores, draw for draw (random
 * times, a shared GPU, the host threads of several gpu phases joining and leaving in any
 * order: the 64ths carried into whole threads and back). Also with 1.5 and 3 on 4 and 8. */
START_TEST(host_threads_fraction_scales) {
  static const struct { double h; int cores; } cs[] = {{0.5, 2}, {1.5, 4}, {0.25, 1}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    sim_result *r[2];
    for (int twice = 0; twice <= 1; twice++) {
      scenario *s = mk(3);
      ph(s, 0, "c", RES_CPU, 1.0);
      ph(s, 1, "g", RES_GPU, 1.0);
      ph(s, 2, "d", RES_CPU, 1.0);
      int a0 = 0, a1 = 1;
      set_after(s, 1, 1, &a0);
      set_after(s, 2, 1, &a1);
      dist_free(&s->model->phases[0].time);
      dist_exponential(&s->model->phases[0].time, 0.6, NULL);
      dist_free(&s->model->phases[1].time);
      dist_lognormal_mean_cv(&s->model->phases[1].time, 0.5, 0.5, NULL);
      dist_free(&s->model->phases[2].time);
      dist_exponential(&s->model->phases[2].time, 0.3, NULL);
      s->model->phases[0].threads = s->model->phases[2].threads = 1 + twice;
      s->model->phases[1].busy = 0.6;
      s->model->phases[1].host_threads = cs[i].h * (1 + twice);
      s->cpu_cores = cs[i].cores * (1 + twice);
      s->workers_per_gpu = 3;
      s->gpu_shared = 1;
      s->model->interference = 0.3;
      s->partitions = 400;
      s->warmup = 40;
      r[twice] = run(s, 1, NULL, NULL);
      free_s(s);
    }
    REL_EQ(r[0]->reps[0].call_mean, r[1]->reps[0].call_mean, 1e-12);
    REL_EQ(r[0]->reps[0].throughput_pps, r[1]->reps[0].throughput_pps, 1e-12);
    REL_EQ(r[0]->reps[0].gpu_util[0], r[1]->reps[0].gpu_util[0], 1e-12);
    ck_assert_msg(r[0]->reps[0].call_mean > 1.35, "the host threads squeeze: a call of %.4f s", r[0]->reps[0].call_mean);
    sim_result_free(r[0]);
    sim_result_free(r[1]);
  }
}
END_TEST


/* CPU contention: n workers whose only phase is a cpu phase of 1 s (1 thread, cores to
 * spare) always run beside n - 1 others, each at 1 / (1 + c (n - 1)): the call takes
 * 1 + c (n - 1) and X = n / that. One worker alone is not slowed. */
START_TEST(cpu_contention_closed_form) {
  const double c = 0.25;
  for (int n = 1; n <= 3; n++) {
    scenario *s = mk(1);
    ph(s, 0, "work", RES_CPU, 1.0);
    s->model->cpu_contention = c;
    s->workers_per_gpu = n;
    s->cpu_cores = 8;
    s->partitions = 60;
    s->warmup = 6;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].call_mean, 1 + c * (n - 1), 1e-9);
    REL_EQ(r->reps[0].throughput_pps, n / (1 + c * (n - 1)), 1e-6);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST


/* GPU phases of one call may overlap: a and b (1 s each on the GPU, both at the call's
 * start) on a shared GPU with interference 0.5 both run at 1/1.5 and end at 1.5 s; on an
 * exclusive GPU they take turns and the call takes 2 s. */
START_TEST(gpu_phases_of_one_call_overlap) {
  for (int shared = 0; shared <= 1; shared++) {
    scenario *s = mk(2);
    ph(s, 0, "a", RES_GPU, 1.0);
    ph(s, 1, "b", RES_GPU, 1.0);
    set_after(s, 1, 0, NULL);
    s->gpu_shared = shared;
    s->model->gpu_overlap = shared;
    s->model->interference = 0.5;
    s->partitions = 20;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].call_mean, shared ? 1.5 : 2.0, 1e-9);
    REL_EQ(r->reps[0].gpu_util[0], 1.0, 1e-9);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* The order of start (model.interference_first): GPU phase a (1 s) starts with the call,
 * b (1 s) after a cpu phase c of 0.5 s, on a shared GPU with interference s = 1. Alone
 * until 0.5 s, a has 0.5 s left; then a, first, runs at 1 / (1 + s1) = 0.8 (s1 = 0.25)
 * and b at 1/2: a ends at 0.5 + 0.625 = 1.125 s, b has done 0.3125 s and ends alone at
 * 1.8125 s. With s1 = s (or no first) both run at 1/2: a ends at 1.5 s and b at 2 s. */
START_TEST(gpu_first_come) {
  const double s1s[] = {0.25, 1.0, -1};
  const double want[] = {1.8125, 2.0, 2.0};
  for (int i = 0; i < 3; i++) {
    scenario *s = mk(3);
    ph(s, 0, "a", RES_GPU, 1.0);
    ph(s, 1, "c", RES_CPU, 0.5);
    ph(s, 2, "b", RES_GPU, 1.0);
    set_after(s, 1, 0, NULL);
    s->gpu_shared = 1;
    s->model->gpu_overlap = 1;
    s->model->interference = 1.0;
    s->model->has_first = s1s[i] >= 0;
    s->model->interference_first = s1s[i] >= 0 ? s1s[i] : 0;
    s->partitions = 20;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].call_mean, want[i], 1e-9);
    REL_EQ(r->reps[0].gpu_util[0], 1.0, 1e-9);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* By pairs (model.pair_rate): GPU phase a (1 s) starts with the call, b (1 s) after a cpu
 * phase c of 0.5 s, on a shared GPU. Alone until 0.5 s, a has 0.5 s left; beside b it runs
 * at r(a|b) and b at r(b|a).
 * - r(a|b) = 0.8, r(b|a) = 0.4, s = 1: a ends at 0.5 + 0.5/0.8 = 1.125 s, b has done
 *   0.625 x 0.4 = 0.25 s and ends alone at 1.875 s;
 * - the same with s = 0 (the pooled share never moves, the pairs still apply): 1.875 s;
 * - s = 0 without pairs: a ends at 1 s, b at 1.5 s;
 * - only r(b|a) = 0.4, s = 1: a runs at the pooled 1/2 and ends at 1.5 s, b has done 0.4 s
 *   and ends at 2.1 s. */
START_TEST(gpu_pairs_closed_form) {
  const double s_[] = {1, 0, 0, 1}, ab[] = {0.8, 0.8, 0, 0}, ba[] = {0.4, 0.4, 0, 0.4};
  const double want[] = {1.875, 1.875, 1.5, 2.1};
  for (int i = 0; i < 4; i++) {
    scenario *s = mk(3);
    ph(s, 0, "a", RES_GPU, 1.0);
    ph(s, 1, "c", RES_CPU, 0.5);
    ph(s, 2, "b", RES_GPU, 1.0);
    set_after(s, 1, 0, NULL);
    s->gpu_shared = 1;
    s->model->gpu_overlap = 1;
    s->model->interference = s_[i];
    if (ab[i] > 0 || ba[i] > 0) {
      s->model->pair_rate = xcalloc(9, sizeof(double));
      s->model->pair_rate[0 * 3 + 2] = ab[i];
      s->model->pair_rate[2 * 3 + 0] = ba[i];
    }
    s->partitions = 20;
    sim_result *r = run(s, 1, NULL, NULL);
    REL_EQ(r->reps[0].call_mean, want[i], 1e-9);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* Pairs apply to exactly two at once: a, b (1 s each) and d (0.5 s) start together on a
 * shared GPU with s = 1 and r(a|b) = r(b|a) = 0.9. Three at once each runs at 1/3, so d
 * ends at 1.5 s with a and b half done; the two then run at 0.9 and end at 1.5 + 0.5/0.9. */
START_TEST(gpu_pairs_two_at_once_only) {
  scenario *s = mk(3);
  ph(s, 0, "a", RES_GPU, 1.0);
  ph(s, 1, "b", RES_GPU, 1.0);
  ph(s, 2, "d", RES_GPU, 0.5);
  set_after(s, 1, 0, NULL);
  set_after(s, 2, 0, NULL);
  s->gpu_shared = 1;
  s->model->gpu_overlap = 1;
  s->model->interference = 1;
  s->model->pair_rate = xcalloc(9, sizeof(double));
  s->model->pair_rate[0 * 3 + 1] = s->model->pair_rate[1 * 3 + 0] = 0.9;
  s->partitions = 20;
  sim_result *r = run(s, 1, NULL, NULL);
  REL_EQ(r->reps[0].call_mean, 1.5 + 0.5 / 0.9, 1e-9);
  sim_result_free(r);
  free_s(s);
}
END_TEST

/* ------------------------------------------------------------ machine repairman */

/* Exponential GPU hold time S inside the lock, any think time outside it (lognormal
 * cpu phase, uniform none phase): M/M/1//N. U = 1 - p0 with
 * p0 = [sum_{n=0..N} N!/(N-n)! (S/Z)^n]^-1. */
START_TEST(machine_repairman) {
  const double S = 0.5, Z = 1.5;
  for (int N = 1; N <= 5; N += 2) {
    scenario *s = mk(3);
    s->model->phases[0] = (phase){.name = xstrdup("think1"), .resource = RES_CPU, .threads = 1};
    dist_lognormal_mean_cv(&s->model->phases[0].time, 1.0, 0.8, NULL);
    ph(s, 1, "gpu", RES_GPU, 0);
    dist_exponential(&s->model->phases[1].time, S, NULL);
    ph(s, 2, "think2", RES_NONE, 0);
    dist_uniform(&s->model->phases[2].time, 0.0, 1.0, NULL);
    set_mutex(s, 1, 1);
    s->workers_per_gpu = N;
    s->partitions = 40000;
    s->warmup = 500;
    s->replications = 10;
    sim_result *r = run(s, 2, NULL, NULL);
    double sum = 0, term = 1;
    for (int n = 0; n <= N; n++) {
      sum += term;
      term *= (N - n) * (S / Z);
    }
    double U = 1 - 1 / sum;
    double x[10], m = 0, ss = 0;
    for (int i = 0; i < 10; i++) m += (x[i] = r->reps[i].gpu_util[0]) / 10;
    for (int i = 0; i < 10; i++) ss += (x[i] - m) * (x[i] - m);
    double half = 2.262 * sqrt(ss / 9) / sqrt(10.0); /* t(0.975, 9) */
    ck_assert_msg(fabs(m - U) <= half, "N=%d: simulated U = %.5f ± %.5f, machine repairman U = %.5f", N, m, half, U);
    sim_result_free(r);
    free_s(s);
  }
}
END_TEST

/* ------------------------------------------------------------ operational laws */

typedef struct col {
  sim_span *sp;
  size_t n, cap;
} col;

static void collect(void *ctx, const sim_span *sp) {
  col *c = ctx;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 4096;
    c->sp = xrealloc(c->sp, c->cap * sizeof *c->sp);
  }
  c->sp[c->n] = *sp;
  c->sp[c->n].partitions = NULL;
  c->n++;
}

typedef struct iv {
  double t0, t1;
} iv;

static int iv_cmp(const void *a, const void *b) {
  const iv *x = a, *y = b;
  return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : 0;
}

/* Union length of intervals clipped to [lo, hi]. */
static double union_len(iv *v, size_t n, double lo, double hi) {
  qsort(v, n, sizeof *v, iv_cmp);
  double tot = 0, cs = -1, ce = -1;
  for (size_t i = 0; i < n; i++) {
    double a = fmax(v[i].t0, lo), b = fmin(v[i].t1, hi);
    if (b <= a) continue;
    if (a > ce) {
      if (ce > cs) tot += ce - cs;
      cs = a;
      ce = b;
    } else if (b > ce) {
      ce = b;
    }
  }
  if (ce > cs) tot += ce - cs;
  return tot;
}

static int dcmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static scenario *random_scenario(gsl_rng *g) {
  int np = 2 + (int)gsl_rng_uniform_int(g, 5);
  scenario *s = mk(np);
  for (int p = 0; p < np; p++) {
    phase *x = &s->model->phases[p];
    char nm[16];
    snprintf(nm, sizeof nm, "p%d", p);
    x->name = xstrdup(nm);
    x->resource = (res_kind)gsl_rng_uniform_int(g, 4);
    x->threads = 1 + (int)gsl_rng_uniform_int(g, 2);
    x->busy = 1;
    double mean = 0.1 + gsl_rng_uniform(g);
    switch (gsl_rng_uniform_int(g, 4)) {
    case 0: dist_const(&x->time, mean, NULL); break;
    case 1: dist_exponential(&x->time, mean, NULL); break;
    case 2: dist_lognormal_mean_cv(&x->time, mean, 0.5, NULL); break;
    default: dist_uniform(&x->time, 0.5 * mean, 1.5 * mean, NULL); break;
    }
    /* after: a random subset of earlier phases (a DAG in list order). */
    int na = 0;
    x->after = xmalloc((size_t)(p + 1) * sizeof(int));
    for (int q = 0; q < p; q++)
      if (gsl_rng_uniform(g) < 0.5) x->after[na++] = q;
    x->nafter = na;
  }
  s->model->phases[0].resource = RES_GPU; /* at least one GPU phase */
  int a = (int)gsl_rng_uniform_int(g, (unsigned long)np), b = (int)gsl_rng_uniform_int(g, (unsigned long)np);
  if (gsl_rng_uniform(g) < 0.8) set_mutex(s, a < b ? a : b, a < b ? b : a);
  s->gpus = 1 + (int)gsl_rng_uniform_int(g, 2);
  s->workers_per_gpu = 1 + (int)gsl_rng_uniform_int(g, 4);
  s->cpu_cores = 1 + (int)gsl_rng_uniform_int(g, 4);
  s->batch = 1 + (int)gsl_rng_uniform_int(g, 2);
  s->gpu_shared = gsl_rng_uniform(g) < 0.3;
  s->cpu_fifo = gsl_rng_uniform(g) < 0.3;
  s->partitions = 150;
  s->warmup = 15;
  s->seed = gsl_rng_get(g);
  return s;
}

START_TEST(operational_laws) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 12345);
  for (int it = 0; it < 40; it++) {
    scenario *s = random_scenario(g);
    col c = {0};
    sim_result *r = run(s, 1, collect, &c);
    sim_metrics *m = &r->reps[0];
    /* Window: the warmup-th completion to the last, recomputed from call ends. */
    double tend = 0;
    for (size_t i = 0; i < c.n; i++) tend = fmax(tend, c.sp[i].t1);
    double tstart = tend - m->window_s;
    for (int gi = 0; gi < s->gpus; gi++) {
      iv *gv = xmalloc((c.n + 1) * sizeof *gv), *mv = xmalloc((c.n + 1) * sizeof *mv);
      size_t ng = 0, nm = 0;
      double sum_gpu = 0;
      for (size_t i = 0; i < c.n; i++) {
        if (c.sp[i].gpu != gi) continue;
        if (!strcmp(c.sp[i].resource, "gpu") && strncmp(c.sp[i].phase, "mutex_", 6)) {
          gv[ng++] = (iv){c.sp[i].t0, c.sp[i].t1};
          sum_gpu += c.sp[i].t1 - c.sp[i].t0;
        }
        if (!strcmp(c.sp[i].phase, "mutex_held")) mv[nm++] = (iv){c.sp[i].t0, c.sp[i].t1};
      }
      /* Utilization equals the union of GPU-phase spans over the window. */
      double u = union_len(gv, ng, tstart, tend) / m->window_s;
      ck_assert_msg(fabs(u - m->gpu_util[gi]) < 1e-9, "it %d gpu %d: util %.12f from spans, %.12f reported", it, gi,
                    u, m->gpu_util[gi]);
      /* Busy time = sum of hold times on an exclusive GPU (no overlap). */
      if (!s->gpu_shared) {
        double un = union_len(gv, ng, -1, 1e300);
        ck_assert_msg(fabs(un - sum_gpu) < 1e-9 * fmax(1, sum_gpu), "it %d: exclusive GPU spans overlap", it);
      }
      /* No two mutex-held spans overlap on one GPU. */
      qsort(mv, nm, sizeof *mv, iv_cmp);
      for (size_t i = 1; i < nm; i++)
        ck_assert_msg(mv[i].t0 >= mv[i - 1].t1 - 1e-12, "it %d: mutex held twice at %.9f", it, mv[i].t0);
      free(gv);
      free(mv);
    }
    /* Every phase of the mutex region runs inside its call's mutex_held span. */
    if (s->mutex_from >= 0)
      for (size_t i = 0; i < c.n; i++) {
        int p = -1;
        for (int q = 0; q < s->model->nphases; q++)
          if (!strcmp(c.sp[i].phase, s->model->phases[q].name)) p = q;
        if (p < s->mutex_from || p > s->mutex_to) continue;
        int inside = 0;
        for (size_t j = 0; j < c.n && !inside; j++)
          inside = !strcmp(c.sp[j].phase, "mutex_held") && c.sp[j].gpu == c.sp[i].gpu &&
                   c.sp[j].worker == c.sp[i].worker && c.sp[j].call == c.sp[i].call && c.sp[j].t0 <= c.sp[i].t0 &&
                   c.sp[i].t1 <= c.sp[j].t1;
        ck_assert_msg(inside, "it %d: phase %s of call %lld runs outside the mutex", it, c.sp[i].phase,
                      (long long)c.sp[i].call);
      }
    /* Little's law at the CPU: the time-average number of cpu jobs (a sweep over span
     * edges) equals the arrival rate times the mean residence. */
    {
      size_t n = 0;
      double sumd = 0, first = 1e300, last = 0;
      iv *cv = xmalloc((c.n + 1) * sizeof *cv);
      for (size_t i = 0; i < c.n; i++)
        if (!strcmp(c.sp[i].resource, "cpu") && strncmp(c.sp[i].phase, "mutex_", 6)) {
          cv[n++] = (iv){c.sp[i].t0, c.sp[i].t1};
          sumd += c.sp[i].t1 - c.sp[i].t0;
          first = fmin(first, c.sp[i].t0);
          last = fmax(last, c.sp[i].t1);
        }
      if (n > 0) {
        /* Sweep: integrate N(t) over [first, last]. */
        double *e0 = xmalloc(n * sizeof *e0), *e1 = xmalloc(n * sizeof *e1);
        for (size_t i = 0; i < n; i++) e0[i] = cv[i].t0, e1[i] = cv[i].t1;
        qsort(e0, n, sizeof *e0, dcmp);
        qsort(e1, n, sizeof *e1, dcmp);
        double area = 0, t = first;
        size_t i0 = 0, i1 = 0;
        long cnt = 0;
        while (i1 < n) {
          double nt = (i0 < n && e0[i0] <= e1[i1]) ? e0[i0] : e1[i1];
          area += cnt * (nt - t);
          t = nt;
          if (i0 < n && e0[i0] <= e1[i1])
            cnt++, i0++;
          else
            cnt--, i1++;
        }
        double T = last - first, L = area / T, lambda = n / T, W = sumd / n;
        ck_assert_msg(fabs(L - lambda * W) < 1e-6 * fmax(1, L), "it %d: Little's law L=%.9f, lambda W=%.9f", it, L,
                      lambda * W);
        free(e0);
        free(e1);
      }
      free(cv);
    }
    /* Utilization law at the GPU: U = X * D, with D the GPU demand per partition. Over a
     * long window this holds to sampling noise; here check it against the spans of calls
     * that ended inside the window, to 5%. */
    ck_assert(m->gpu_util_mean >= 0 && m->gpu_util_mean <= 1 + 1e-12);
    ck_assert(m->cpu_util >= 0 && m->cpu_util <= 1 + 1e-12);
    ck_assert(m->idle_mutex_cpu + m->idle_no_holder + m->gpu_util_mean <= 1 + 1e-9);
    free(c.sp);
    sim_result_free(r);
    free_s(s);
  }
  gsl_rng_free(g);
}
END_TEST

/* Utilization law: U = X * D on a stochastic scenario with a long window. */
START_TEST(utilization_law) {
  scenario *s = mk(3);
  s->model->phases[0] = (phase){.name = xstrdup("prep"), .resource = RES_CPU, .threads = 1};
  dist_lognormal_mean_cv(&s->model->phases[0].time, 1.2, 0.3, NULL);
  ph(s, 1, "gpu", RES_GPU, 0);
  dist_gamma_mean_cv(&s->model->phases[1].time, 0.6, 0.5, NULL);
  ph(s, 2, "post", RES_CPU, 0);
  dist_uniform(&s->model->phases[2].time, 0.1, 0.5, NULL);
  set_mutex(s, 1, 1);
  s->workers_per_gpu = 3;
  s->partitions = 50000;
  s->warmup = 1000;
  sim_result *r = run(s, 1, NULL, NULL);
  double D = dist_mean(&s->model->phases[1].time);
  REL_EQ(r->reps[0].gpu_util[0], r->reps[0].throughput_pps * D, 0.01);
  sim_result_free(r);
  free_s(s);
}
END_TEST

/* ------------------------------------------------------------ arrivals, determinism */

START_TEST(poisson_arrivals_light_load) {
  scenario *s = mk(2);
  ph(s, 0, "prep", RES_CPU, 1.0);
  ph(s, 1, "gpu", RES_GPU, 0.5);
  s->arrivals = ARR_POISSON;
  s->proofs_per_hour = 360; /* 0.1 proofs/s x 2 partitions: U = 0.2 * 0.5 = 0.1 */
  s->partitions_per_proof = 2;
  s->workers_per_gpu = 2;
  s->partitions = 20000;
  s->warmup = 200;
  s->replications = 4;
  sim_result *r = run(s, 2, NULL, NULL);
  for (int i = 0; i < 4; i++) {
    REL_EQ(r->reps[i].throughput_pps, 0.2, 0.05);
    REL_EQ(r->reps[i].gpu_util[0], 0.1, 0.05);
    ck_assert(r->reps[i].has_proofs);
    /* Light load: the GPU mostly idles because workers wait for work. */
    ck_assert_msg(r->reps[i].idle_no_work > 0.8, "idle with no work %.3f", r->reps[i].idle_no_work);
    ck_assert(r->reps[i].proof_lat_mean >= 1.5);
  }
  sim_result_free(r);
  free_s(s);
}
END_TEST

START_TEST(threads_do_not_change_results) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 99);
  for (int it = 0; it < 5; it++) {
    scenario *s = random_scenario(g);
    s->replications = 5;
    sim_result *a = run(s, 1, NULL, NULL), *b = run(s, 3, NULL, NULL);
    for (int i = 0; i < 5; i++) {
      ck_assert(a->reps[i].throughput_pps == b->reps[i].throughput_pps);
      ck_assert(a->reps[i].lat_p99 == b->reps[i].lat_p99);
      ck_assert(a->reps[i].gpu_util_mean == b->reps[i].gpu_util_mean);
      ck_assert_int_eq(a->reps[i].events, b->reps[i].events);
    }
    /* Different replications draw from different streams. */
    ck_assert(a->reps[0].lat_mean != a->reps[1].lat_mean || s->model->phases[0].time.kind == DIST_CONST);
    sim_result_free(a);
    sim_result_free(b);
    free_s(s);
  }
  gsl_rng_free(g);
}
END_TEST

START_TEST(fifo_thread_overflow_is_an_error) {
  scenario *s = mk(1);
  ph(s, 0, "work", RES_CPU, 1.0);
  s->model->phases[0].threads = 8;
  s->cpu_cores = 4;
  s->cpu_fifo = 1;
  sim_opts o = {.threads = 1};
  sim_result *r = NULL;
  ps_err e = {0};
  ck_assert_int_eq(sim_run(s, &o, &r, &e), PS_EINPUT);
  ck_assert_ptr_null(r);
  ck_assert_msg(strstr(e.msg, "work wants 8 threads") != NULL, "%s", e.msg);
  free_s(s);
}
END_TEST

/* GSL's error handler is the process's: sim_run turns the aborting default off once, and a
 * handler the program installs afterwards stays (sim_run used to reset it on every call). */
static void my_gsl_handler(const char *reason, const char *file, int line, int err) {
  (void)reason, (void)file, (void)line, (void)err;
}

START_TEST(gsl_handler_set_once) {
  scenario *s = mk(1);
  ph(s, 0, "gpu", RES_GPU, 0.5);
  s->partitions = 50;
  sim_result *r = run(s, 1, NULL, NULL);
  sim_result_free(r);
  gsl_set_error_handler(my_gsl_handler);
  r = run(s, 2, NULL, NULL);
  sim_result_free(r);
  gsl_error_handler_t *after = gsl_set_error_handler_off();
  ck_assert_msg(after == my_gsl_handler, "sim_run replaced the program's GSL error handler");
  free_s(s);
}
END_TEST

/* ------------------------------------------------------------ replayed arrivals */

/* A trace of the very times the engine draws for Poisson arrivals (replication 0's stream:
 * the first proof at 0, then exponential gaps; constant phase times draw nothing else)
 * replays to the same metrics, bit for bit. */
START_TEST(trace_replays_poisson_draws) {
  scenario *s = mk(2);
  ph(s, 0, "prep", RES_CPU, 1.3);
  ph(s, 1, "gpu", RES_GPU, 0.9);
  set_mutex(s, 1, 1);
  s->workers_per_gpu = 2;
  s->arrivals = ARR_POISSON;
  s->proofs_per_hour = 1500; /* 0.833 partitions/s of 2 partitions each: U = 0.75 */
  s->partitions_per_proof = 2;
  s->partitions = 4001;      /* the last proof is short */
  s->warmup = 300;
  s->seed = 7;
  int64_t np = (s->partitions + 1) / 2;
  double *t = xmalloc((size_t)np * sizeof *t);
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, (unsigned long)ps_seed_mix(s->seed, 0));
  t[0] = 0;
  for (int64_t i = 1; i < np; i++) t[i] = t[i - 1] + -(3600.0 / s->proofs_per_hour) * log1p(-gsl_rng_uniform(g));
  gsl_rng_free(g);
  sim_metrics a, b;
  ps_err e = {0};
  ck_assert_int_eq(sim_run_rep(s, 0, NULL, NULL, &a, &e), PS_OK);
  s->arrivals = ARR_TRACE;
  s->trace_t = t;
  s->ntrace = np;
  ck_assert_int_eq(sim_run_rep(s, 0, NULL, NULL, &b, &e), PS_OK);
  ck_assert(a.has_proofs && b.has_proofs);
  const double va[] = {a.gpu_util[0], a.throughput_pps, a.lat_mean, a.lat_p50, a.lat_p95, a.lat_p99,
                       a.mutex_wait_mean, a.mutex_wait_p99, a.mutex_held_mean, a.call_mean, a.call_p99,
                       a.proof_lat_mean, a.proof_lat_p50, a.proof_lat_p95, a.proof_lat_p99, a.cpu_util,
                       a.idle_mutex_cpu, a.idle_no_holder, a.idle_no_work, a.window_s};
  const double vb[] = {b.gpu_util[0], b.throughput_pps, b.lat_mean, b.lat_p50, b.lat_p95, b.lat_p99,
                       b.mutex_wait_mean, b.mutex_wait_p99, b.mutex_held_mean, b.call_mean, b.call_p99,
                       b.proof_lat_mean, b.proof_lat_p50, b.proof_lat_p95, b.proof_lat_p99, b.cpu_util,
                       b.idle_mutex_cpu, b.idle_no_holder, b.idle_no_work, b.window_s};
  for (size_t i = 0; i < sizeof va / sizeof va[0]; i++)
    ck_assert_msg(va[i] == vb[i], "metric %zu: poisson %.17g, trace %.17g", i, va[i], vb[i]);
  ck_assert_int_eq(a.events, b.events);
  ck_assert_int_eq(a.completed, b.completed);
  REL_EQ(a.gpu_util[0], 0.75, 0.05);
  /* Halved gaps (rate_scale 2, as the loader applies it): twice the load, the same
   * arrivals' order. */
  for (int64_t i = 0; i < np; i++) t[i] /= 2;
  s->warmup = 0;
  sim_metrics c;
  ck_assert_int_eq(sim_run_rep(s, 0, NULL, NULL, &c, &e), PS_OK);
  ck_assert_msg(c.proof_lat_mean > b.proof_lat_mean, "halved gaps: proof latency %.3f, before %.3f", c.proof_lat_mean,
                b.proof_lat_mean);
  free(a.gpu_util), free(b.gpu_util), free(c.gpu_util);
  s->trace_t = NULL;
  free(t);
  free_s(s);
}
END_TEST

/* ------------------------------------------------------------ warm-up: MSER-5 */

/* A series with a planted initial bias of length L (a step of 2 sd, then white noise):
 * MSER-5 truncates at L or a little after it (the noise just after L sometimes looks like
 * bias: within 3% of the series, and 1% on average, over 20 seeds); a noiseless step
 * exactly at L; a stationary series hardly at all, on average. */
START_TEST(mser5_finds_planted_transient) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  const int64_t n = 5000;
  double *x = xmalloc((size_t)n * sizeof *x);
  const int64_t Ls[] = {100, 400, 1250, 2000};
  for (size_t li = 0; li < sizeof Ls / sizeof Ls[0]; li++) {
    int64_t L = Ls[li];
    double over = 0;
    for (unsigned long seed = 1; seed <= 20; seed++) {
      gsl_rng_set(g, seed);
      for (int64_t i = 0; i < n; i++) x[i] = 10 + gsl_ran_gaussian_ziggurat(g, 1.0) + (i < L ? 2.0 : 0);
      int64_t d = sim_mser5(x, n);
      ck_assert_msg(d % 5 == 0 && d <= n / 2, "truncation %lld", (long long)d);
      ck_assert_msg(d >= L && d <= L + 150, "bias of length %lld (seed %lu): truncated %lld", (long long)L, seed,
                    (long long)d);
      over += (double)(d - L) / 20;
    }
    ck_assert_msg(over <= 50, "bias of length %lld: truncated %.1f after it on average", (long long)L, over);
    for (int64_t i = 0; i < n; i++) x[i] = i < L ? 7 : 3;
    ck_assert_int_eq(sim_mser5(x, n), L);
  }
  /* Decaying bias 5 exp(-i/200): the truncation lands where it is lost in the noise. */
  for (unsigned long seed = 1; seed <= 20; seed++) {
    gsl_rng_set(g, seed);
    for (int64_t i = 0; i < n; i++) x[i] = gsl_ran_gaussian_ziggurat(g, 1.0) + 5 * exp(-(double)i / 200);
    int64_t d = sim_mser5(x, n);
    ck_assert_msg(d >= 200 && d <= 1200, "decaying bias (seed %lu): truncated %lld", seed, (long long)d);
  }
  double sum = 0;
  for (unsigned long seed = 1; seed <= 40; seed++) {
    gsl_rng_set(g, seed);
    for (int64_t i = 0; i < n; i++) x[i] = gsl_ran_gaussian_ziggurat(g, 1.0);
    sum += (double)sim_mser5(x, n);
  }
  ck_assert_msg(sum / 40 < 0.1 * n, "stationary series: mean truncation %.0f of %lld", sum / 40, (long long)n);
  /* Too short for two batches: nothing to truncate. */
  ck_assert_int_eq(sim_mser5(x, 9), 0);
  ck_assert_int_eq(sim_mser5(x, 0), 0);
  free(x);
  gsl_rng_free(g);
}
END_TEST

/* ------------------------------------------------------------ processor sharing in classes */

/* A class of ps.h against the plain bookkeeping it replaces: every member's remaining work
 * brought up to date at each change of speed. Random joins (some with equal work, some at
 * the same instant), speed changes and finishes, and moves of the clock's origin; the class
 * must name the same member first (ties in join order) at the same time. */
static void ps_class_check(unsigned long seed, double pfinish, int most_at_least, int rebased_at_least) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, seed);
  enum { STEPS = 20000 };
  double *rem = xcalloc(STEPS, sizeof *rem); /* by join number */
  int *live = xcalloc(STEPS, sizeof *live);  /* join numbers of the members */
  ps_cls c = {0};
  double now = 0, speed = 1;
  int njoin = 0, nlive = 0, nfinish = 0, rebased = 0, most = 0;
  for (int step = 0; step < STEPS; step++) {
    most = nlive > most ? nlive : most;
    /* The plain first finish: least remaining work, ties by join order. */
    int first = -1, at = -1;
    for (int i = 0; i < nlive; i++) {
      int j = live[i];
      if (first < 0 || rem[j] < rem[first] || (rem[j] == rem[first] && j < first)) first = j, at = i;
    }
    double due = first >= 0 ? now + rem[first] / speed : INFINITY;
    double u = gsl_rng_uniform(g);
    if (first >= 0 && u < pfinish) { /* the first finishes */
      int cf = (int)ps_cls_first(&c);
      if (cf != first) { /* a near tie, which the plain sums' rounding may order otherwise */
        ck_assert_msg(fabs(rem[cf] - rem[first]) <= 1e-12 * (1 + rem[first]), "first %d (%.17g), plain %d (%.17g)",
                      cf, rem[cf], first, rem[first]);
        for (at = 0; live[at] != cf; at++) continue;
        first = cf;
      }
      ck_assert_msg(fabs(ps_cls_due(&c, now) - due) <= 1e-9 * (1 + due), "due %.17g, plain %.17g",
                    ps_cls_due(&c, now), due);
      for (int i = 0; i < nlive; i++) rem[live[i]] -= speed * (due - now);
      now = due;
      ck_assert_int_eq(ps_cls_leave(&c), first);
      live[at] = live[--nlive];
      nfinish++;
      continue;
    }
    /* Time passes (never past the first finish), then a join or a new speed. */
    double dt = first >= 0 ? gsl_rng_uniform(g) * (due - now) : gsl_rng_uniform(g);
    if (gsl_rng_uniform(g) < 0.3) dt = 0; /* several things at one instant */
    for (int i = 0; i < nlive; i++) rem[live[i]] -= speed * dt;
    now += dt;
    if (u < 0.75) {
      double w = gsl_rng_uniform(g) < 0.3 ? 1.0 : 0.1 + 2 * gsl_rng_uniform(g);
      rem[njoin] = w;
      live[nlive++] = njoin;
      if (c.h.n > 0 && ps_cls_v(&c, now) > 4) rebased += ps_cls_rebase(&c, now) > 0;
      ps_cls_join(&c, now, (uint32_t)njoin++, w, speed);
    } else if (nlive > 0) {
      speed = 0.05 + gsl_rng_uniform(g);
      ps_cls_set_speed(&c, now, speed);
    }
  }
  ck_assert_int_gt(nfinish, 2000);
  ck_assert_int_ge(rebased, rebased_at_least); /* the clock's origin moved */
  ck_assert_int_ge(most, most_at_least);
  ps_heap_free(&c.h);
  free(rem);
  free(live);
  gsl_rng_free(g);
}

/* A few members (bq.h's small queue; the clock's origin moves often), and thousands (its
 * buckets, rewritten when the origin moves). */
START_TEST(ps_class_matches_plain_bookkeeping) {
  ps_class_check(7, 0.4, 5, 100);
  ps_class_check(9, 0.25, 2000, 2);
}
END_TEST

/* A class's join numbers are 32 bits: when they run out in a class that never emptied,
 * the members are renumbered in the same order, and ties in virtual finish still leave in
 * join order, across the renumbering and after it. */
START_TEST(ps_class_join_numbers_wrap) {
  ps_cls c = {0};
  uint32_t next = 0, expect = 0;
  int renumbered = 0;
  /* A member that stays (a late finish), then ties at virtual finish 1, 2, 3 (three each). */
  ps_cls_join(&c, 0, next++, 100, 1);
  c.h.seq = UINT32_MAX - 4; /* as after 2^32 - 5 joins */
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 3; i++) {
      uint32_t before = c.h.seq;
      int first = ps_cls_join(&c, 0, next++, 1.0 + round, 1);
      renumbered += c.h.seq <= before;
      ck_assert_int_eq(first, round == 0 && i == 0);
    }
  }
  ck_assert_int_eq(renumbered, 1);
  ck_assert_uint_lt(c.h.seq, 16);
  for (expect = 1; expect < next; expect++) ck_assert_uint_eq(ps_cls_leave(&c), expect);
  ck_assert_uint_eq(ps_cls_leave(&c), 0);
  ck_assert_uint_eq(c.h.n, 0);
  ps_heap_free(&c.h);
}
END_TEST

/* n equal cpu jobs of w seconds at t threads on k < n t cores, all started at time 0 (a
 * closed backlog): each gets k / (n t) of its threads and all end at n t w / k; with an
 * Amdahl law (w the one-core time) each gets k / n cores and all end at w / speed(k / n). */
START_TEST(ps_equal_jobs_end_together) {
  const double w = 0.8;
  const int n = 6, t = 2, k = 4;
  for (int law = 0; law <= 1; law++) {
    scenario *s = mk(1);
    ph(s, 0, "work", RES_CPU, w);
    s->model->phases[0].threads = t;
    if (law) {
      s->model->phases[0].law = SCALE_AMDAHL;
      s->model->phases[0].serial = 0.3;
    }
    s->workers_per_gpu = n;
    s->cpu_cores = k;
    s->partitions = 5 * n;
    col c = {0};
    sim_result *r = run(s, 1, collect, &c);
    double end = law ? w / phase_speed(&s->model->phases[0], (double)k / n) : n * t * w / k;
    ck_assert_int_eq((int)c.n, 5 * n);
    /* Every round of n calls ends together, in the order the workers began. */
    for (size_t i = 0; i < c.n; i++) {
      REL_EQ(c.sp[i].t1, end * (double)(1 + i / n), 1e-12);
      ck_assert_int_eq(c.sp[i].worker, (int)(i % n));
    }
    sim_result_free(r);
    free(c.sp);
    free_s(s);
  }
}
END_TEST

/* Three classes in one pool: on 2 cores a call runs c0 (no law, 1 thread, 2 s), c1
 * (Amdahl, serial 0.5, 2 threads, 1 s on one core) and g (gpu, 1 s, busy 0.5, one host
 * thread) side by side. Demand 4 on 2 cores: every job gets half its threads, so c0 runs at
 * 0.5, c1 on one core at 1, g's host half at 0.5: speed 1 / (0.5 + 0.5 / 0.5) = 2/3. c1
 * ends at 1; then nothing is squeezed: g ends at 1 + (1 - 2/3) = 4/3, c0 at 1 + 1.5 = 2.5.
 * The GPU computes 0.5 s of each call: utilization 0.2. Alike on a shared GPU, where g's
 * host threads are scheduled alone. */
START_TEST(ps_classes_side_by_side) {
  for (int shared = 0; shared <= 1; shared++) {
    scenario *s = mk(3);
    ph(s, 0, "c0", RES_CPU, 2.0);
    ph(s, 1, "c1", RES_CPU, 1.0);
    ph(s, 2, "g", RES_GPU, 1.0);
    set_after(s, 1, 0, NULL);
    set_after(s, 2, 0, NULL);
    s->model->phases[1].threads = 2;
    s->model->phases[1].law = SCALE_AMDAHL;
    s->model->phases[1].serial = 0.5;
    s->model->phases[2].busy = 0.5;
    s->model->phases[2].host_threads = 1;
    s->gpu_shared = shared;
    s->cpu_cores = 2;
    s->partitions = 10;
    col c = {0};
    sim_result *r = run(s, 1, collect, &c);
    REL_EQ(r->reps[0].call_mean, 2.5, 1e-12);
    REL_EQ(r->reps[0].gpu_util[0], 0.2, 1e-12);
    ck_assert_int_eq((int)c.n, 30);
    const char *names[] = {"c1", "g", "c0"};
    const double ends[] = {1.0, 4.0 / 3, 2.5};
    for (int i = 0; i < 30; i++) {
      ck_assert_str_eq(c.sp[i].phase, names[i % 3]);
      REL_EQ(c.sp[i].t1 - 2.5 * (i / 3), ends[i % 3], 1e-12);
    }
    sim_result_free(r);
    free(c.sp);
    free_s(s);
  }
}
END_TEST

/* ------------------------------------------------------------ the event queue */

typedef struct tev {
  double t;
  uint32_t id;
} tev;

static int tev_cmp(const void *a, const void *b) {
  const tev *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Events come out by time, and events of one time in the order they were pushed, with
 * pushes and pops interleaved as the engine does (times on a coarse grid, so many tie). */
START_TEST(evq_ties_in_push_order) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 3);
  enum { N = 20000 }; /* the replay below scans the pending events: O(N^2) */
  tev *want = xmalloc(N * sizeof *want);
  evq q = {0};
  uint32_t pushed = 0, popped = 0;
  double now = 0;
  while (popped < N) {
    int burst = (int)gsl_rng_uniform_int(g, 9);
    for (int i = 0; i < burst && pushed < N; i++) {
      double t = now + (double)gsl_rng_uniform_int(g, 50) / 4;
      want[pushed] = (tev){t, pushed};
      evq_push(&q, t, pushed, pushed ^ 0x5a5a5a5au);
      pushed++;
    }
    if (q.n == 0) continue;
    ev x = evq_pop(&q);
    ck_assert_msg(evq_tval(x.tk) >= now, "time went back: %g after %g", evq_tval(x.tk), now);
    ck_assert_uint_eq(x.ver, x.id ^ 0x5a5a5a5au);
    now = evq_tval(x.tk);
    want[x.id].t = -1 - (double)popped; /* the pop order, to compare below */
    popped++;
  }
  /* Replay: the pop order must be the (time, push) order among the events present. */
  evq_free(&q);
  q = (evq){0};
  gsl_rng_set(g, 3);
  tev *pend = xmalloc(N * sizeof *pend);
  size_t np = 0;
  pushed = popped = 0;
  now = 0;
  while (popped < N) {
    int burst = (int)gsl_rng_uniform_int(g, 9);
    for (int i = 0; i < burst && pushed < N; i++) {
      double t = now + (double)gsl_rng_uniform_int(g, 50) / 4;
      pend[np++] = (tev){t, pushed++};
    }
    if (np == 0) continue;
    size_t best = 0;
    for (size_t i = 1; i < np; i++)
      if (tev_cmp(&pend[i], &pend[best]) < 0) best = i;
    ck_assert_double_eq(want[pend[best].id].t, -1 - (double)popped);
    now = pend[best].t;
    pend[best] = pend[--np];
    popped++;
  }
  free(pend);
  free(want);
  gsl_rng_free(g);
}
END_TEST

/* The bucketed queue (bq.h) against the binary heap it replaced (evq.h's EVQ_HEAP, kept as
 * this reference), pop by pop: the same entries in the same order, for the event queue's
 * 24-byte entries and the classes' 16-byte ones, across the queue's regimes. Each shape
 * pushes times at now plus a draw and pops the first, with bursts, so the queue grows past
 * BQ_SMALL, stays at a few hundred (buckets cut anew as they run dry, keys past them in
 * far) and drains again: spread draws; draws with rare far outliers (a coarse first cut);
 * a coarse grid where many keys tie (buckets too full, cut narrower down to single keys);
 * tiny gaps; and a wide range that changes binades. */
EVQ_HEAP(ref_evq, ev, uint64_t)
EVQ_HEAP(ref_ps, ps_mem, uint32_t)

static double bq_draw(gsl_rng *g, int shape) {
  switch (shape) {
  case 0: return gsl_rng_uniform(g) * 3;
  case 1: return gsl_rng_uniform(g) < 0.002 ? 1e6 * gsl_rng_uniform(g) : gsl_rng_uniform(g);
  case 2: return (double)gsl_rng_uniform_int(g, 4);
  case 3: return 1e-12 * gsl_rng_uniform(g);
  default: return ldexp(gsl_rng_uniform(g), (int)gsl_rng_uniform_int(g, 40) - 20);
  }
}

START_TEST(bq_matches_binary_heap) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  for (int shape = 0; shape < 5; shape++) {
    gsl_rng_set(g, 11 + (unsigned long)shape);
    evq q = {0};
    ref_evq rq = {0};
    ps_heap h = {0};
    ref_ps rh = {0};
    double now = 0;
    size_t most = 0;
    int narrowest = 64; /* the finest cut of a large queue */
    for (int step = 0; step < 60000; step++) {
      /* Grow to about 400, drain to empty now and then. */
      int stage = (step / 6000) % 3;
      int burst = stage == 2 ? 0 : (int)gsl_rng_uniform_int(g, q.n < 400 ? 4 : 2);
      for (int i = 0; i < burst; i++) {
        double t = now + bq_draw(g, shape);
        uint32_t id = (uint32_t)step * 8 + (uint32_t)i;
        evq_push(&q, t, id, id ^ 0x5a5a5a5au);
        ref_evq_insert(&rq, (ev){rq.seq++, evq_tkey(t), id, id ^ 0x5a5a5a5au});
        ps_mem m = {id, h.seq++, evq_tkey(t)};
        int first = ps_heap_insert(&h, m);
        ck_assert_int_eq(first, ref_ps_insert(&rh, m) == 0);
      }
      most = q.n > most ? q.n : most;
      if (q.big && (int)q.shift < narrowest) narrowest = (int)q.shift;
      ck_assert_uint_eq(q.n, rq.n);
      ck_assert_uint_eq(h.n, rh.n);
      if (q.n == 0) continue;
      ck_assert_uint_eq(q.min->id, rq.a[0].id);
      ck_assert_uint_eq(h.min->id, rh.a[0].id);
      ev x = evq_pop(&q), y = ref_evq_pop(&rq);
      ck_assert_msg(x.seq == y.seq && x.tk == y.tk && x.id == y.id && x.ver == y.ver,
                    "shape %d step %d: popped %u at %.17g, the heap %u at %.17g", shape, step, x.id,
                    evq_tval(x.tk), y.id, evq_tval(y.tk));
      ps_mem a = ps_heap_pop(&h), b = ref_ps_pop(&rh);
      ck_assert_msg(a.id == b.id && a.seq == b.seq && a.tk == b.tk, "shape %d step %d: member %u, the heap %u",
                    shape, step, a.id, b.id);
      now = evq_tval(x.tk);
    }
    ck_assert_uint_gt(most, 300);
    if (shape == 2) ck_assert_int_eq(narrowest, 0); /* ties: cut down to single keys */
    evq_free(&q);
    ref_evq_free(&rq);
    ps_heap_free(&h);
    ref_ps_free(&rh);
  }
  gsl_rng_free(g);
}
END_TEST

int main(void) {
  Suite *su = suite_create("pipe");
  TCase *tc = tcase_create("engine");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, det_kernels_lock);
  tcase_add_test(tc, gsl_handler_set_once);
  tcase_add_test(tc, det_busy_share);
  tcase_add_test(tc, det_call_lock);
  tcase_add_test(tc, det_several_gpus);
  tcase_add_test(tc, det_batching);
  tcase_add_test(tc, det_batch_scale);
  tcase_add_test(tc, det_batch_serial);
  tcase_add_test(tc, det_barrier);
  tcase_add_test(tc, det_many_phases);
  tcase_add_test(tc, det_cpu_sharing);
  tcase_add_test(tc, scaling_amdahl_alone);
  tcase_add_test(tc, scaling_amdahl_shared);
  tcase_add_test(tc, scaling_table_and_slices);
  tcase_add_test(tc, thread_policy);
  tcase_add_test(tc, gpu_interference);
  tcase_add_test(tc, host_thread_shares_cores);
  tcase_add_test(tc, host_threads_fraction);
  tcase_add_test(tc, host_threads_fraction_scales);
  tcase_add_test(tc, cpu_contention_closed_form);
  tcase_add_test(tc, det_mutex_overhead);
  tcase_add_test(tc, det_mutex_handover);
  tcase_add_test(tc, gpu_phases_of_one_call_overlap);
  tcase_add_test(tc, gpu_first_come);
  tcase_add_test(tc, gpu_pairs_closed_form);
  tcase_add_test(tc, gpu_pairs_two_at_once_only);
  tcase_add_test(tc, machine_repairman);
  tcase_add_test(tc, operational_laws);
  tcase_add_test(tc, utilization_law);
  tcase_add_test(tc, poisson_arrivals_light_load);
  tcase_add_test(tc, threads_do_not_change_results);
  tcase_add_test(tc, fifo_thread_overflow_is_an_error);
  tcase_add_test(tc, trace_replays_poisson_draws);
  tcase_add_test(tc, mser5_finds_planted_transient);
  tcase_add_test(tc, ps_class_matches_plain_bookkeeping);
  tcase_add_test(tc, ps_class_join_numbers_wrap);
  tcase_add_test(tc, ps_equal_jobs_end_together);
  tcase_add_test(tc, ps_classes_side_by_side);
  tcase_add_test(tc, evq_ties_in_push_order);
  tcase_add_test(tc, bq_matches_binary_heap);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
