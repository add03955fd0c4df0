/* Check suite of inference from a daemon's own logs (sim/infer.c, `provesim infer`). Logs
 * come from the engine running a known truth: setup and cleanup (lognormal) around
 * 1.5-2 s of GPU compute, all inside a lock over the whole call, 2 and 4 workers; each
 * call is logged as the field's daemon did (start, worker, the call's wall time with the
 * wait). infer must recover the mean setup+cleanup within 5%, predict the utilization
 * with the lock narrowed to the GPU phase (the truth simulated so) within 2 points, hold
 * the truth inside its 95% interval for at least 9 of 10 seeds, report the split between
 * setup and cleanup as not identified, and refuse malformed logs with exit code 2 and a
 * message naming file, line and column. About 30 s on two cores. */
#define _GNU_SOURCE
#include "ck.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli_harness.h"
#include "dist.h"
#include "infer.h"
#include "model.h"
#include "pipe.h"
#include "scn.h"

/* The truth: setup and cleanup means, their cv, the GPU's range; S = m1 + m2. */
static const double M1 = 1.4, M2 = 0.9, CV1 = 0.5, CV2 = 0.5, GLO = 1.5, GHI = 2.0;
#define S_TRUE (M1 + M2)

static void add_ph(model *m, const char *name, res_kind r) {
  phase *p = &m->phases[m->nphases];
  p->name = xstrdup(name);
  p->resource = r;
  p->threads = 1;
  p->busy = 1;
  if (m->nphases) {
    p->after = xmalloc(sizeof(int));
    p->after[0] = m->nphases - 1;
    p->nafter = 1;
  }
  m->nphases++;
}

/* N workers on one GPU, the lock over the whole call (narrow 0) or the GPU phase (1), and
 * time outside the lock between calls (exponential, mean T) when T > 0. */
static scenario *truth(int N, int narrow, double T) {
  scenario *s = xcalloc(1, sizeof *s);
  s->name = xstrdup("truth");
  model *m = s->model = xcalloc(1, sizeof *m);
  m->name = xstrdup("truth");
  m->interference = 1;
  m->phases = xcalloc(4, sizeof(phase));
  add_ph(m, "setup", RES_CPU);
  add_ph(m, "gpu", RES_GPU);
  add_ph(m, "cleanup", RES_CPU);
  ck_assert_int_eq(dist_lognormal_mean_cv(&m->phases[0].time, M1, CV1, NULL), 0);
  ck_assert_int_eq(dist_uniform(&m->phases[1].time, GLO, GHI, NULL), 0);
  ck_assert_int_eq(dist_lognormal_mean_cv(&m->phases[2].time, M2, CV2, NULL), 0);
  if (T > 0) {
    add_ph(m, "outside", RES_NONE);
    ck_assert_int_eq(dist_exponential(&m->phases[3].time, T, NULL), 0);
  }
  s->gpus = 1;
  s->workers_per_gpu = N;
  s->cpu_cores = 64;
  s->batch = 1;
  s->mutex_name = xstrdup("custom");
  s->mutex_from = narrow ? 1 : 0;
  s->mutex_to = narrow ? 1 : 2;
  s->keep_core = 1;
  s->replications = 1;
  s->seed = 1;
  s->partitions_per_proof = 1;
  return s;
}

/* The per-call log: the engine's mutex spans turned into what the daemon logged. */
typedef struct gen {
  int64_t lo, hi;
  double *start, *wait, *held;
  int *worker;
} gen;

static void gen_span(void *ctx, const sim_span *sp) {
  gen *g = ctx;
  if (sp->call < g->lo || sp->call >= g->hi) return;
  int64_t i = sp->call - g->lo;
  if (!strcmp(sp->phase, "mutex_wait")) {
    g->start[i] = sp->t0;
    g->wait[i] = sp->t1 - sp->t0;
    g->worker[i] = sp->worker;
  } else if (!strcmp(sp->phase, "mutex_held")) {
    g->held[i] = sp->t1 - sp->t0;
  }
}

/* n calls of the truth with N workers (seed), after 20 left out as a mid-run log would;
 * in L (start, worker, call = wait + held, seconds; waits kept in *wait when asked). */
static void make_log(int N, double T, uint64_t seed, size_t n, infer_log *L, double **wait) {
  scenario *s = truth(N, 0, T);
  s->partitions = (int64_t)n + 20 + N;
  s->seed = seed;
  gen g = {20, 20 + (int64_t)n, xmalloc(n * sizeof(double)), xmalloc(n * sizeof(double)),
           xmalloc(n * sizeof(double)), xmalloc(n * sizeof(int))};
  sim_metrics mt;
  ps_err e = {0};
  ck_assert_int_eq(sim_run_rep(s, 0, gen_span, &g, &mt, &e), PS_OK);
  sim_metrics_free(&mt);
  scn_free(s);
  memset(L, 0, sizeof *L);
  L->n = n;
  L->call = g.held;
  for (size_t i = 0; i < n; i++) L->call[i] += g.wait[i];
  L->start = g.start;
  L->worker = g.worker;
  L->nworkers = N;
  L->format = "csv";
  if (wait) *wait = g.wait;
  else free(g.wait);
}

/* The truth's GPU utilization with the lock on the GPU phase only (one long run). */
static double truth_narrow_util(int N, double T) {
  scenario *s = truth(N, 1, T);
  s->partitions = 300000;
  s->warmup = 1000;
  s->cooldown = N;
  s->seed = 99;
  sim_metrics mt;
  ps_err e = {0};
  ck_assert_int_eq(sim_run_rep(s, 0, NULL, NULL, &mt, &e), PS_OK);
  double u = mt.gpu_util_mean;
  sim_metrics_free(&mt);
  scn_free(s);
  return u;
}

static infer_opts opts(int N) {
  return (infer_opts){.workers = N, .gpus = 1, .gpu_lo = GLO, .gpu_hi = GHI, .util = NAN, .util_sd = 0.02,
                      .call_has_wait = 1, .boot = 30, .seed = 1};
}

/* Ten seeds of N workers: every estimate within 5% of S and 2 points of the narrow lock's
 * utilization, and the truth inside the 95% interval in at least 9. (Measured over 40
 * seeds with 2 workers: 40 inside, errors within 2.2%; the largest narrow-lock miss 0.7
 * points.) */
static void recovery(int N) {
  double un = truth_narrow_util(N, 0);
  int inside = 0;
  for (uint64_t seed = 1; seed <= 10; seed++) {
    infer_log L;
    make_log(N, 0, 1000 + seed, 1000, &L, NULL);
    infer_opts o = opts(N);
    infer_result R;
    ps_err e = {0};
    ck_assert_msg(infer_run(&L, &o, &R, &e) == PS_OK, "%s", e.msg);
    double err = R.cpu_lock.est / S_TRUE - 1;
    ck_assert_msg(fabs(err) < 0.05, "N=%d seed %d: setup+cleanup %.4f s, truth %.4f s (%+.2f%%)", N, (int)seed,
                  R.cpu_lock.est, S_TRUE, 100 * err);
    ck_assert_msg(fabs(R.narrow_util.est - un) < 0.02, "N=%d seed %d: narrow-lock utilization %.4f, truth %.4f", N,
                  (int)seed, R.narrow_util.est, un);
    inside += R.cpu_lock.lo <= S_TRUE && S_TRUE <= R.cpu_lock.hi;
    ck_assert_int_eq(R.outside, INFER_OUT_NONE); /* the start times show no gaps */
    ck_assert_str_eq(infer_identification(&R.cpu_lock), "well identified");
    infer_result_free(&R);
    infer_log_free(&L);
  }
  ck_assert_msg(inside >= 9, "N=%d: the truth inside the 95%% interval in %d of 10 seeds", N, inside);
}

START_TEST(recovery_two_workers) { recovery(2); }
END_TEST

START_TEST(recovery_four_workers) { recovery(4); }
END_TEST

/* Time outside the lock, seen in the gaps between a worker's calls: fitted from them, and
 * the narrow lock (which the gaps now limit) still predicted within 2 points. */
START_TEST(gaps_between_calls) {
  const double T = 1.0;
  double un = truth_narrow_util(2, T);
  infer_log L;
  make_log(2, T, 1001, 1000, &L, NULL);
  infer_opts o = opts(2);
  infer_result R;
  ps_err e = {0};
  ck_assert_msg(infer_run(&L, &o, &R, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(R.outside, INFER_OUT_SEEN);
  ck_assert_double_eq_tol(R.outside_s.est, T, 0.1 * T);
  ck_assert_double_eq_tol(R.cpu_lock.est, S_TRUE, 0.05 * S_TRUE);
  ck_assert_double_eq_tol(R.narrow_util.est, un, 0.02);
  infer_result_free(&R);
  infer_log_free(&L);
}
END_TEST

/* Only call times (no start times, waits or utilization): the time outside the lock is
 * assumed none, and with none in the truth S is still recovered. With the wait logged as
 * well, the held time is seen and S is recovered from it. */
START_TEST(call_times_only_and_waits) {
  infer_log L;
  double *wait;
  make_log(2, 0, 1002, 1000, &L, &wait);
  free(L.start);
  free(L.worker);
  L.start = NULL;
  L.worker = NULL;
  infer_opts o = opts(2);
  infer_result R;
  ps_err e = {0};
  ck_assert_msg(infer_run(&L, &o, &R, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(R.outside, INFER_OUT_NONE);
  ck_assert_double_eq_tol(R.cpu_lock.est, S_TRUE, 0.05 * S_TRUE);
  infer_result_free(&R);
  L.wait = wait;
  o.boot = 0;
  ck_assert_msg(infer_run(&L, &o, &R, &e) == PS_OK, "%s", e.msg);
  ck_assert_double_eq_tol(R.cpu_lock.est, S_TRUE, 0.05 * S_TRUE);
  ck_assert_double_eq_tol(R.wait_s, R.obs_wmean, 1e-12);
  ck_assert(isnan(R.cpu_lock.lo)); /* no bootstrap, no interval */
  infer_result_free(&R);
  infer_log_free(&L);
}
END_TEST

/* ---------------------------------------------------------------- the command */

/* A log of n calls written to tmpdir/name as CSV (milliseconds) with N workers. */
static void write_csv(const char *name, int N, size_t n) {
  infer_log L;
  make_log(N, 0, 1003, n, &L, NULL);
  char *p = xasprintf("%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "prove_start_ms,worker,gpu_ms\n");
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%.0f,w%d,%.0f\n", 1e12 + 1000 * L.start[i], L.worker[i], 1000 * L.call[i]);
  fclose(f);
  free(p);
  infer_log_free(&L);
}

static void write_text(const char *name, const char *text) {
  char *p = xasprintf("%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  free(p);
}

/* The report says the split is not identified (table and JSON), the model it writes
 * loads, holds all of the CPU work in setup with cleanup 0, and the JSON document does not
 * depend on the number of threads. */
START_TEST(cli_split_not_identified) {
  write_csv("log.csv", 2, 600);
  char *out = NULL, *err = NULL;
  const char *base = "infer log.csv --call-col gpu_ms --start-col prove_start_ms --worker-col worker --workers 2 "
                     "--gpu-time 1.5:2 --boot 6";
  char *cmd = xasprintf("%s -o m.yaml", base);
  int rc = run(cmd, &out, &err);
  ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
  const char *split = strstr(out, "split between setup and cleanup");
  ck_assert_ptr_nonnull(split);
  ck_assert_ptr_nonnull(strstr(split, "not identified: both lie inside the lock"));
  ck_assert_ptr_nonnull(strstr(out, "the model puts all of it in setup"));
  ck_assert_ptr_nonnull(strstr(out, "lock on the GPU phase"));
  ck_assert_ptr_nonnull(strstr(out, "recommendation: narrow the lock to the GPU phase"));
  free(cmd);
  free(out);
  free(err);
  model *m = NULL;
  ps_err e = {0};
  char *mp = xasprintf("%s/m.yaml", tmpdir);
  ck_assert_msg(scn_load_model(mp, &m, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(m->nphases, 3);
  ck_assert_str_eq(m->phases[0].name, "setup");
  ck_assert_int_eq(m->phases[2].time.kind, DIST_CONST);
  ck_assert_double_eq(m->phases[2].time.a, 0);
  ck_assert_double_eq_tol(dist_mean(&m->phases[0].time), S_TRUE, 0.1 * S_TRUE);
  ck_assert_int_eq(m->nscopes, 2);
  scn_model_free(m);
  free(mp);

  char *j1 = NULL, *j2 = NULL;
  cmd = xasprintf("%s -o m1.yaml --json --threads 1", base);
  ck_assert_int_eq(run(cmd, &j1, NULL), 0);
  free(cmd);
  cmd = xasprintf("%s -o m2.yaml --json --threads 2", base);
  ck_assert_int_eq(run(cmd, &j2, NULL), 0);
  free(cmd);
  /* The documents name their own model file last: compare what comes before. */
  char *a = strstr(j1, "\"model\":"), *b = strstr(j2, "\"model\":");
  ck_assert(a && b);
  *a = *b = 0;
  ck_assert_str_eq(j1, j2);
  *a = '"';
  cJSON *d = cJSON_Parse(j1);
  ck_assert_ptr_nonnull(d);
  cJSON *sp = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "estimates"), "split");
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(sp, "identified")));
  ck_assert_str_eq(cJSON_GetObjectItem(d, "schema")->valuestring, "provesim.infer/1");
  cJSON_Delete(d);
  free(j1);
  free(j2);
}
END_TEST

/* A malformed log: exit 2, the message, and no model written. */
static void bad(const char *log, const char *extra, const char *expect) {
  char *cmd = xasprintf("infer %s --call-col gpu_ms --workers 2 --gpu-time 1.75 -o out.yaml %s", log, extra);
  char *err = NULL;
  int rc = run(cmd, NULL, &err);
  ck_assert_msg(rc == 2, "%s: exit %d, expected 2 (%s)", cmd, rc, err);
  ck_assert_msg(err && strstr(err, expect), "%s: expected \"%s\" in: %s", cmd, expect, err);
  ck_assert_msg(!exists("out.yaml"), "%s left a model behind", cmd);
  free(err);
  free(cmd);
}

START_TEST(cli_malformed_logs) {
  ps_buf b = {0};
  ps_buf_printf(&b, "start_ms,gpu_ms\n");
  for (int i = 0; i < 30; i++) ps_buf_printf(&b, "%d,%d\n", 1000 * i, i == 3 ? 0 : 7000 + i);
  write_text("ok.csv", b.p);
  ps_buf_free(&b);
  write_text("nocol.csv", "start_ms,gpu_msec\n1,2\n");
  write_text("nan.csv", "start_ms,gpu_ms\n0,7000\n1000,7100\n2000,\"n/a\"\n");
  write_text("short.csv", "start_ms,gpu_ms\n0,7000\n1000\n");
  write_text("empty.csv", "");
  write_text("few.csv", "gpu_ms\n7000\n7100\n");
  write_text("quote.csv", "gpu_ms\n\"7000\n");
  write_text("neg.csv", "gpu_ms\n-5\n");
  write_text("nokey.jsonl", "{\"gpu_ms\": 7000}\n{\"gpu\": 7000}\n");
  write_text("str.jsonl", "{\"gpu_ms\": 7000}\n{\"x\": 1, \"gpu_ms\": \"7s\"}\n");
  write_text("notobj.jsonl", "{\"gpu_ms\": 7000}\n[7000]\n");
  write_text("waits.csv", "gpu_ms,wait_ms\n7000,8000\n");
  bad("nocol.csv", "", "nocol.csv:1:1: header: expected a column named \"gpu_ms\" (--call-col), got the columns "
                       "\"start_ms\", \"gpu_msec\"");
  /* a row with more fields than the header names: the columns have shifted */
  write_text("long.csv", "start_ms,gpu_ms\n0,7000\n1000,7100,9\n");
  bad("long.csv", "", "long.csv:3:11: expected 2 fields, as the header has, got a line of 3");
  /* control characters in a header are not printed as they are */
  write_text("ctl.csv", "\x01x\x1b[2J\n7000\n");
  bad("ctl.csv", "", "ctl.csv:1:1: header: expected a column named \"gpu_ms\" (--call-col), got the columns "
                     "\"?x?[2J\"");
  bad("nan.csv", "", "nan.csv:4:6: gpu_ms: expected a duration in milliseconds (a number >= 0), got \"n/a\"");
  bad("short.csv", "", "short.csv:3:5: gpu_ms: expected a value in column 2 (the header has 2), got a line of 1 field");
  bad("empty.csv", "", "empty.csv: expected a header row naming the columns, then one call per line, got an empty file");
  bad("few.csv", "", "few.csv: expected at least 20 records (calls) to fit, got 2");
  bad("quote.csv", "", "quote.csv:2:1: expected a CSV field");
  bad("neg.csv", "", "neg.csv:2:1: gpu_ms: expected a duration in milliseconds (a number >= 0), got \"-5\"");
  bad("nokey.jsonl", "", "nokey.jsonl:2:1: gpu_ms: expected a duration in milliseconds (a number >= 0), got nothing "
                         "(no such key)");
  bad("str.jsonl", "", "str.jsonl:2:10: gpu_ms: expected a duration in milliseconds (a number >= 0), got a string");
  bad("notobj.jsonl", "", "notobj.jsonl:2:1: expected one JSON object per line, got \"[7000]\"");
  bad("waits.csv", "--wait-col wait_ms", "waits.csv:2:1: gpu_ms: expected a call at least as long as its wait");
  bad("missing.csv", "", "missing.csv: expected a readable log file, got No such file or directory");
  bad("ok.csv", "--start-col nope", "ok.csv:1:1: header: expected a column named \"nope\" (--start-col)");
  bad("ok.csv", "--gpu-time 0", "--gpu-time: expected seconds of GPU compute per partition");
  bad("ok.csv", "--util 1.5", "--util: expected a utilization from 0 to 1");
  bad("ok.csv", "--call-is wall", "--call-is: expected call or locked, got \"wall\"");
  bad("ok.csv", "--unit us", "--unit: expected ms or s, got \"us\"");
  char *err = NULL;
  ck_assert_int_eq(run("infer ok.csv --workers 2 --gpu-time 1.75 -o out.yaml", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "expected --call-col NAME"));
  free(err);
  char *out = NULL;
  ck_assert_int_eq(run("infer --help", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "example"));
  ck_assert_ptr_nonnull(strstr(out, "not identified"));
  free(out);
}
END_TEST

int main(void) {
  Suite *su = suite_create("infer");
  /* The recovery statistics (ten seeds each, and a long run for the truth) run the same
   * code as the fits below: tagged "slow", which scripts/sanitize.sh leaves out
   * (CK_EXCLUDE_TAGS), where ASan made them two minutes. */
  TCase *tr = tcase_create("recovery");
  tcase_set_tags(tr, "slow");
  tcase_set_timeout(tr, 600);
  tcase_add_test(tr, recovery_two_workers);
  tcase_add_test(tr, recovery_four_workers);
  suite_add_tcase(su, tr);
  TCase *tf = tcase_create("fit");
  tcase_set_timeout(tf, 600);
  tcase_add_test(tf, gaps_between_calls);
  tcase_add_test(tf, call_times_only_and_waits);
  suite_add_tcase(su, tf);
  TCase *tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, cli_split_not_identified);
  tcase_add_test(tc, cli_malformed_logs);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf == 0 ? 0 : 1;
}
