/* End-to-end tests of `provesim measure` on the CPU backend (PROVESIM_BIN): spans that
 * parse, mutex-held spans that never overlap on a GPU, GPU phases inside held spans under
 * the whole-call lock, the report's utilization recomputed from the spans, the synthetic
 * executor against the simulator's closed form and prediction, the groth16 executor,
 * Ctrl-C, and the error paths (bad scenario, no GPU for --backend cuda). Every run lasts
 * a few seconds at most. */
#define _GNU_SOURCE
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spans.h"
#include "util.h"

static char *src(const char *rel) {
  const char *root = getenv("PROVESIM_SRC");
  return xasprintf("%s/%s", root ? root : ".", rel);
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  ps_buf b = {0};
  char tmp[65536];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) ps_buf_append(&b, tmp, n);
  fclose(f);
  ps_buf_append(&b, "", 1);
  return b.p;
}

/* Runs `provesim ARGS`; stdout and stderr come back in *out, *err (may be NULL). Returns
 * the exit code. */
static int run(const char *args, char **out, char **err) {
  static int seq;
  char *o = xasprintf("/tmp/test_measure.%d.%d.out", (int)getpid(), seq);
  char *e = xasprintf("/tmp/test_measure.%d.%d.err", (int)getpid(), seq++);
  const char *bin = getenv("PROVESIM_BIN");
  char *cmd = xasprintf("%s %s >%s 2>%s", bin ? bin : "provesim", args, o, e);
  int st = system(cmd);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (out) *out = slurp(o);
  if (err) *err = slurp(e);
  unlink(o), unlink(e);
  free(o), free(e), free(cmd);
  return rc;
}

static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

/* ---- Spans, read back ---- */

typedef struct sp {
  int rep, gpu, worker, kind, np;
  long long part0; /* first partition of a phase span */
  long long call;
  char phase[32], resource[8];
  double t0, t1;
} sp;

typedef struct spans_t {
  sp *v;
  int n, cap;
  char source[16];
} spans_t;

static int on_hdr(void *ctx, const span_header *h) {
  spans_t *s = ctx;
  snprintf(s->source, sizeof s->source, "%s", h->source ? h->source : "");
  return 0;
}

static int on_rec(void *ctx, const span_rec *r) {
  spans_t *s = ctx;
  if (s->n == s->cap) s->v = xrealloc(s->v, (size_t)(s->cap = s->cap ? 2 * s->cap : 256) * sizeof *s->v);
  sp *x = &s->v[s->n++];
  memset(x, 0, sizeof *x);
  x->rep = r->rep, x->gpu = r->gpu, x->worker = r->worker, x->kind = r->kind, x->call = r->call;
  x->np = r->npartitions;
  x->part0 = r->npartitions > 0 ? (long long)r->partitions[0] : -1;
  if (r->kind == SPAN_PHASE) {
    snprintf(x->phase, sizeof x->phase, "%s", r->phase);
    snprintf(x->resource, sizeof x->resource, "%s", r->resource);
  }
  x->t0 = r->t0, x->t1 = r->t1;
  return 0;
}

static spans_t read_spans(const char *path) {
  spans_t s = {0};
  ps_err e = {{0}};
  int rc = spans_read(path, on_hdr, on_rec, &s, &e);
  ck_assert_msg(rc == PS_OK, "spans_read(%s): %s", path, e.msg);
  ck_assert_str_eq(s.source, "prover");
  return s;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct iv {
  double a, b;
} iv;

static int cmp_iv(const void *a, const void *b) {
  const iv *x = a, *y = b;
  return x->a < y->a ? -1 : x->a > y->a;
}

/* Mutex-held spans of one GPU never overlap; returns how many there were. */
static int check_held_disjoint(const spans_t *s, int gpu) {
  iv *h = xmalloc((size_t)(s->n + 1) * sizeof *h);
  int n = 0;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].gpu == gpu && !strcmp(s->v[i].phase, "mutex_held")) h[n++] = (iv){s->v[i].t0, s->v[i].t1};
  qsort(h, (size_t)n, sizeof *h, cmp_iv);
  for (int i = 1; i < n; i++)
    ck_assert_msg(h[i].a >= h[i - 1].b, "mutex_held spans overlap on GPU %d: [%.9f, %.9f] and [%.9f, %.9f]", gpu,
                  h[i - 1].a, h[i - 1].b, h[i].a, h[i].b);
  free(h);
  return n;
}

/* Every GPU phase lies inside a mutex_held span of the same worker and call. */
static void check_gpu_inside_held(const spans_t *s) {
  int checked = 0;
  for (int i = 0; i < s->n; i++) {
    const sp *g = &s->v[i];
    if (g->kind != SPAN_PHASE || strcmp(g->resource, "gpu")) continue;
    int ok = 0;
    for (int j = 0; j < s->n && !ok; j++) {
      const sp *h = &s->v[j];
      ok = !strcmp(h->phase, "mutex_held") && h->rep == g->rep && h->gpu == g->gpu && h->call == g->call &&
           h->t0 <= g->t0 && g->t1 <= h->t1;
    }
    ck_assert_msg(ok, "GPU phase %s of call %lld [%.9f, %.9f] lies outside its mutex_held span", g->phase, g->call,
                  g->t0, g->t1);
    checked++;
  }
  ck_assert_int_gt(checked, 0);
}

/* GPU utilization of GPU 0 recomputed from the spans alone: the window runs from the
 * warmup-th to the (partitions - cooldown)-th call completion (a call completes at the
 * end of its last phase or mutex span; one partition per call here), and the busy time
 * is the union of the GPU phase spans (cpu backend) inside it. */
static double util_from_spans(const spans_t *s, int warmup, int end_at) {
  long long maxcall = -1;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].call > maxcall) maxcall = s->v[i].call;
  double *end = xcalloc((size_t)maxcall + 1, sizeof *end);
  for (int i = 0; i < s->n; i++)
    if (s->v[i].kind == SPAN_PHASE && s->v[i].t1 > end[s->v[i].call]) end[s->v[i].call] = s->v[i].t1;
  qsort(end, (size_t)maxcall + 1, sizeof *end, cmp_d);
  double T0 = warmup ? end[warmup - 1] : 0, T1 = end[end_at - 1];
  iv *b = xmalloc((size_t)(s->n + 1) * sizeof *b);
  int n = 0;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].kind == SPAN_PHASE && !strcmp(s->v[i].resource, "gpu")) b[n++] = (iv){s->v[i].t0, s->v[i].t1};
  qsort(b, (size_t)n, sizeof *b, cmp_iv);
  double busy = 0, cur_a = -1, cur_b = -1;
  for (int i = 0; i <= n; i++) {
    if (i < n && b[i].a <= cur_b) {
      if (b[i].b > cur_b) cur_b = b[i].b;
      continue;
    }
    if (cur_b > cur_a) {
      double a = fmax(cur_a, T0), z = fmin(cur_b, T1);
      if (z > a) busy += z - a;
    }
    if (i < n) cur_a = b[i].a, cur_b = b[i].b;
  }
  free(b);
  free(end);
  return busy / (T1 - T0);
}

static double json_num(const char *doc, const char *path) {
  cJSON *d = cJSON_Parse(doc);
  ck_assert_msg(d != NULL, "report is not JSON: %.200s", doc);
  cJSON *x = d;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *tok = strtok(buf, "."); tok && x; tok = strtok(NULL, ".")) {
    if (cJSON_IsArray(x))
      x = cJSON_GetArrayItem(x, atoi(tok));
    else
      x = cJSON_GetObjectItem(x, tok);
  }
  ck_assert_msg(x && cJSON_IsNumber(x), "report has no number at %s", path);
  double v = x->valuedouble;
  cJSON_Delete(d);
  return v;
}

/* ---- Tests ---- */

START_TEST(whole_call_lock_spans_and_closed_form) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *spf = xasprintf("/tmp/test_measure.%d.spans", (int)getpid());
  char *args = xasprintf("measure %s --backend cpu --json --spans %s", cfg, spf), *out, *err;
  ck_assert_int_eq(run(args, &out, &err), 0);
  spans_t s = read_spans(spf);
  ck_assert_int_gt(check_held_disjoint(&s, 0), 30);
  check_gpu_inside_held(&s);
  double u = json_num(out, "metrics.gpu_util.0");
  double u2 = util_from_spans(&s, 4, 38);
  ck_assert_msg(fabs(u - u2) < 1e-6, "report says %.9f, spans give %.9f", u, u2);
  /* The whole-call lock serialises calls: util = Tg / T, with Tg and T as measured (the
   * identity checks the runner: the lock passes from worker to worker at once and the GPU
   * phases are all the GPU time), and near 0.03 / 0.075 = 0.4 as drawn (loosely: on a
   * small shared machine preemption stretches 10 ms spins by milliseconds). */
  double tg = json_num(out, "metrics.phases_s.ntt_h.mean") + json_num(out, "metrics.phases_s.msm.mean");
  double held = json_num(out, "metrics.phases_s.mutex_held.mean");
  ck_assert_msg(fabs(u / (tg / held) - 1) < 0.03, "whole-call lock: utilization %.4f, Tg/T as measured %.4f", u,
                tg / held);
  ck_assert_msg(json_num(out, "metrics.gpu_idle.mutex_free") < 0.01, "the mutex lay free while a worker waited");
  ck_assert_msg(fabs(u - 0.4) < 0.08, "whole-call lock: utilization %.4f, closed form 0.4000", u);
  ck_assert_str_eq(strstr(out, "\"source\":\t\"prover\"") ? "prover" : out, "prover");
  ck_assert_ptr_nonnull(strstr(out, "\"gpu_util_nvml\""));
  ck_assert_ptr_nonnull(strstr(out, "\"phases_s\""));
  free(s.v);
  free(out), free(err), free(args);
  unlink(spf);
  free(spf), free(cfg);
}
END_TEST

/* The narrow lock, measured and predicted from the same run: the simulator gets the phase
 * durations this very run measured (calibrate on its own spans), so preemption on a loaded
 * machine, which stretches the CPU phases, stretches the prediction too. Before this, the
 * test compared with the nominal model and failed about 1 run in 3 on a 2-core machine
 * (0.650 measured against 0.800). Under load (two busy loops on the 2 cores) the
 * calibrated prediction stayed within 0.06 of the measurement in 6 runs; a lock that
 * covered the whole call would measure about 0.4, and a utilization computed over the
 * wrong window or intervals would not match the spans. */
START_TEST(kernels_lock_matches_simulation) {
  char *cfg = src("tests/data/measure/const-seed.yaml"), *tmpl = src("tests/data/measure/const-seed-model.yaml");
  char *spf = xasprintf("/tmp/test_measure.k.%d.spans", (int)getpid());
  char *cal = xasprintf("/tmp/test_measure.k.%d.model.yaml", (int)getpid());
  char *a1 = xasprintf("measure %s --backend cpu --json --set system.mutex=kernels --spans %s", cfg, spf);
  char *a2 = xasprintf("calibrate %s --model %s -o %s", spf, tmpl, cal);
  char *a3 = xasprintf("simulate %s --json --set system.mutex=kernels --set model=%s --set run.replications=20", cfg, cal);
  char *o1, *o2, *o3;
  ck_assert_int_eq(run(a1, &o1, NULL), 0);
  ck_assert_int_eq(run(a2, &o2, NULL), 0);
  ck_assert_int_eq(run(a3, &o3, NULL), 0);
  double um = json_num(o1, "metrics.gpu_util.0"), us = json_num(o3, "metrics.gpu_util.0");
  double tm = json_num(o1, "metrics.throughput_pps"), ts = json_num(o3, "metrics.throughput_pps");
  ck_assert_msg(um > 0.55, "kernels lock: measured %.4f, which is the whole-call lock's range", um);
  ck_assert_msg(fabs(um - us) < 0.08, "kernels lock: measured %.4f, simulated from this run's durations %.4f", um, us);
  ck_assert_msg(fabs(tm / ts - 1) < 0.12, "kernels lock: throughput measured %.3f, simulated %.3f", tm, ts);
  spans_t s = read_spans(spf);
  check_held_disjoint(&s, 0);
  ck_assert_msg(fabs(um - util_from_spans(&s, 4, 38)) < 1e-6, "report and spans disagree");
  free(s.v);
  unlink(spf);
  unlink(cal);
  free(o1), free(o2), free(o3), free(a1), free(a2), free(a3), free(spf), free(cal), free(cfg), free(tmpl);
}
END_TEST

START_TEST(batch_arrivals_and_csv) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *args = xasprintf("measure %s --backend cpu --csv --set system.batch=2 --set system.mutex=none "
                         "--set 'workload.arrivals={process: fixed, proofs_per_hour: 72000, partitions_per_proof: 2}' "
                         "--set workload.partitions=20 --set run.warmup=2 --set run.cooldown=0",
                         cfg),
       *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "gpu_util_nvml,gpu_timing\n"));
  ck_assert_ptr_nonnull(strstr(out, ",phase-spans\n"));
  free(out), free(args), free(cfg);
}
END_TEST

START_TEST(bad_scenario_exit_2_no_output) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *o = xasprintf("/tmp/test_measure.bad.%d.json", (int)getpid());
  char *spf = xasprintf("/tmp/test_measure.bad.%d.spans", (int)getpid());
  char *args = xasprintf("measure %s --backend cpu --json -o %s --spans %s --set system.workers_per_gpu=0", cfg, o, spf),
       *err;
  ck_assert_int_eq(run(args, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "workers_per_gpu"));
  ck_assert(!exists(o) && !exists(spf));
  free(err), free(args);
  /* The groth16 executor refuses a model without its phases, before any work. */
  args = xasprintf("measure %s --backend cpu --executor groth16 -o %s --spans %s", cfg, o, spf);
  ck_assert_int_eq(run(args, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "phase setup"));
  ck_assert(!exists(o) && !exists(spf));
  free(err), free(args);
  args = xasprintf("measure %s --backend tpu", cfg);
  ck_assert_int_eq(run(args, NULL, &err), 2);
  free(err), free(args), free(o), free(spf), free(cfg);
}
END_TEST

START_TEST(cuda_without_gpu_says_use_cpu) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *o = xasprintf("/tmp/test_measure.nogpu.%d.json", (int)getpid());
  char *args = xasprintf("measure %s --backend cuda -o %s --set workload.partitions=8 --set run.warmup=0", cfg, o), *err;
  int rc = run(args, NULL, &err);
  if (rc == 0) {
    /* A machine with a GPU: the run is allowed to succeed. */
    ck_assert(exists(o));
  } else {
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(err, "--backend cpu") != NULL, "message does not suggest --backend cpu: %s", err);
    ck_assert(!exists(o));
  }
  unlink(o);
  free(err), free(args), free(o), free(cfg);
}
END_TEST

START_TEST(interrupt_flushes_spans) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *spf = xasprintf("/tmp/test_measure.int.%d.spans", (int)getpid());
  const char *bin = getenv("PROVESIM_BIN");
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execl(bin ? bin : "provesim", "provesim", "measure", cfg, "--backend", "cpu", "--spans", spf, "--set",
          "workload.partitions=1000", (char *)NULL);
    _exit(127);
  }
  usleep(700 * 1000);
  kill(pid, SIGINT);
  int st;
  waitpid(pid, &st, 0);
  ck_assert(WIFEXITED(st));
  ck_assert_int_eq(WEXITSTATUS(st), 1);
  spans_t s = read_spans(spf);
  ck_assert_int_gt(check_held_disjoint(&s, 0), 2);
  free(s.v);
  unlink(spf);
  free(spf), free(cfg);
}
END_TEST

START_TEST(groth16_executor_cpu) {
  char *cfg = src("configs/measure-groth16.yaml");
  char *spf = xasprintf("/tmp/test_measure.g16.%d.spans", (int)getpid());
  char *cache = xasprintf("/tmp/test_measure.cache.%d", (int)getpid());
  char *args = xasprintf("measure %s --backend cpu --json --cache %s --spans %s --set prover.constraints=1024 "
                         "--set workload.partitions=4 --set run.warmup=1 --set run.cooldown=0",
                         cfg, cache, spf),
       *out, *err;
  int rc = run(args, &out, &err);
  ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
  spans_t s = read_spans(spf);
  int seen[6] = {0};
  static const char *const names[6] = {"synth", "prep", "ntt_h", "msm", "b_g2", "epilogue"};
  for (int i = 0; i < s.n; i++)
    for (int j = 0; j < 6; j++) seen[j] += !strcmp(s.v[i].phase, names[j]);
  for (int j = 0; j < 6; j++) ck_assert_msg(seen[j] == 4, "phase %s: %d spans, expected 4", names[j], seen[j]);
  check_held_disjoint(&s, 0);
  check_gpu_inside_held(&s);
  double u = json_num(out, "metrics.gpu_util.0");
  ck_assert(u > 0 && u < 1);
  free(s.v);
  unlink(spf);
  char *rm = xasprintf("rm -rf %s", cache);
  ck_assert_int_eq(system(rm), 0);
  free(rm), free(out), free(err), free(args), free(cache), free(spf), free(cfg);
}
END_TEST


/* The groth16 executor on two GPUs (each worker opens its own GPU's backend; here the cpu
 * backend, which ignores the ordinal) with the narrow lock of the built-in model, which
 * covers the three GPU phases: both GPUs get calls, the held spans of each GPU are
 * disjoint, every GPU phase is inside its call's held span, and b_g2 starts after msm
 * has ended (the model runs the GPU phases one after another). */
START_TEST(groth16_executor_two_gpus) {
  char *cfg = src("configs/measure-groth16.yaml");
  char *spf = xasprintf("/tmp/test_measure.g16x2.%d.spans", (int)getpid());
  char *cache = xasprintf("/tmp/test_measure.cache2.%d", (int)getpid());
  char *args = xasprintf("measure %s --backend cpu --json --cache %s --spans %s --set prover.constraints=1024 "
                         "--set system.gpus=2 --set system.workers_per_gpu=1 --set system.mutex=kernels "
                         "--set workload.partitions=6 --set run.warmup=0 --set run.cooldown=0",
                         cfg, cache, spf),
       *out, *err;
  int rc = run(args, &out, &err);
  ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
  spans_t s = read_spans(spf);
  int calls_on[2] = {0, 0};
  for (int i = 0; i < s.n; i++) {
    const sp *x = &s.v[i];
    if (x->kind != SPAN_PHASE) continue;
    ck_assert(x->gpu == 0 || x->gpu == 1);
    if (!strcmp(x->phase, "synth")) calls_on[x->gpu]++;
    if (strcmp(x->phase, "b_g2")) continue;
    for (int j = 0; j < s.n; j++) {
      const sp *m = &s.v[j];
      if (m->kind == SPAN_PHASE && !strcmp(m->phase, "msm") && m->call == x->call && m->rep == x->rep)
        ck_assert_msg(x->t0 >= m->t1, "call %lld: b_g2 starts at %.9f, before msm ends at %.9f", x->call, x->t0,
                      m->t1);
    }
  }
  ck_assert_msg(calls_on[0] > 0 && calls_on[1] > 0, "calls per GPU: %d and %d", calls_on[0], calls_on[1]);
  ck_assert_int_eq(calls_on[0] + calls_on[1], 6);
  check_held_disjoint(&s, 0);
  check_held_disjoint(&s, 1);
  check_gpu_inside_held(&s);
  ck_assert(json_num(out, "metrics.gpu_util.1") > 0);
  free(s.v);
  unlink(spf);
  char *rm = xasprintf("rm -rf %s", cache);
  ck_assert_int_eq(system(rm), 0);
  free(rm), free(out), free(err), free(args), free(cache), free(spf), free(cfg);
}
END_TEST

/* A batch above 64 partitions (the runner once kept a call's partitions in a 64-entry
 * stack array: ASan saw the overflow, and partitions from 64 on got garbage seeds): every
 * call's spans list all of its partitions, and the calls cover 0..129 once each. */
START_TEST(batch_above_64) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *spf = xasprintf("/tmp/test_measure.b65.%d.spans", (int)getpid());
  char *args = xasprintf("measure %s --backend cpu --json --set system.batch=65 --set workload.partitions=130 "
                         "--set run.warmup=0 --set run.cooldown=0 --spans %s", cfg, spf), *out, *err;
  int rc = run(args, &out, &err);
  ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
  spans_t s = read_spans(spf);
  int seen[2] = {0, 0};
  for (int i = 0; i < s.n; i++)
    if (s.v[i].kind == SPAN_PHASE && !strcmp(s.v[i].phase, "msm")) {
      ck_assert_int_eq(s.v[i].np, 65);
      ck_assert_msg(s.v[i].part0 == 0 || s.v[i].part0 == 65, "a call starting at partition %lld", s.v[i].part0);
      seen[s.v[i].part0 == 65]++;
    }
  ck_assert_int_eq(seen[0], 1);
  ck_assert_int_eq(seen[1], 1);
  free(s.v);
  unlink(spf);
  free(out), free(err), free(args), free(spf), free(cfg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("measure");
  TCase *tc = tcase_create("measure");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, whole_call_lock_spans_and_closed_form);
  tcase_add_test(tc, kernels_lock_matches_simulation);
  tcase_add_test(tc, batch_arrivals_and_csv);
  tcase_add_test(tc, bad_scenario_exit_2_no_output);
  tcase_add_test(tc, cuda_without_gpu_says_use_cpu);
  tcase_add_test(tc, interrupt_flushes_spans);
  tcase_add_test(tc, groth16_executor_cpu);
  tcase_add_test(tc, groth16_executor_two_gpus);
  tcase_add_test(tc, batch_above_64);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}
