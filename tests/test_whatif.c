/* Check suite of the what-if commands: sweep rows against the deterministic closed forms,
 * output independent of --jobs, bad --vary values (exit 2, no files), plan's worker count
 * against ceil((Ts+Tg+Tc)/Tg) and N/(Ts+Tg+Tc), an impossible target, estimate against the
 * machine-repairman and MVA formulas on textbook values, and the saturation point. */
#define _GNU_SOURCE
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analytic.h"
#include "cli_harness.h"
#include "cli_whatif.h"
#include "scn.h"
#include "util.h"

/* ---------------------------------------------------------------- sweep */

START_TEST(sweep_rows_equal_closed_forms) {
  char *cfg = src("tests/data/whatif/det.yaml");
  char *args = xasprintf("sweep %s --vary system.workers_per_gpu=1..5 --vary system.mutex=call,kernels "
                         "--vary system.batch=1,2 --json sweep.json -q",
                         cfg);
  ck_assert_int_eq(run(args, NULL, NULL), 0);
  char *txt = tmpfile_text("sweep.json");
  cJSON *doc = cJSON_Parse(txt);
  ck_assert_ptr_nonnull(doc);
  cJSON *pts = cJSON_GetObjectItem(doc, "points");
  ck_assert_int_eq(cJSON_GetArraySize(pts), 20);
  cJSON *p;
  cJSON_ArrayForEach(p, pts) {
    cJSON *v = cJSON_GetObjectItem(p, "values");
    int n = cJSON_GetObjectItem(v, "system.workers_per_gpu")->valueint;
    int b = cJSON_GetObjectItem(v, "system.batch")->valueint;
    const char *mx = cJSON_GetObjectItem(v, "system.mutex")->valuestring;
    an_det d;
    ps_err e;
    ck_assert_int_eq(an_det_pipeline(n, 1, b, b * 1.0, b * 1.0, b * 1.0, strcmp(mx, "call") ? AN_LOCK_GPU : AN_LOCK_CALL,
                                     &d, &e),
                     PS_OK);
    cJSON *m = cJSON_GetObjectItem(p, "metrics");
    double x = cJSON_GetObjectItem(m, "throughput_pps")->valuedouble;
    double u = cJSON_GetObjectItem(m, "gpu_util_mean")->valuedouble;
    ck_assert_msg(fabs(x - d.throughput) <= 5e-3 * d.throughput, "N=%d batch=%d mutex=%s: throughput %.6f, closed form %.6f",
                  n, b, mx, x, d.throughput);
    ck_assert_msg(fabs(u - d.gpu_util) <= 5e-3, "N=%d batch=%d mutex=%s: GPU util %.6f, closed form %.6f", n, b, mx, u,
                  d.gpu_util);
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(p, "ci95"));
  }
  cJSON_Delete(doc);
  free(txt);
  free(args);
  free(cfg);
}
END_TEST

START_TEST(sweep_same_output_whatever_jobs) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *o1, *o2;
  char *a1 = xasprintf("sweep %s --set run.replications=3 --set workload.partitions=400 --vary system.workers_per_gpu=1..3 "
                       "--vary 'system.mutex=call;kernels;{from: prep, to: msm}' --jobs 1 --csv j1.csv --json j1.json",
                       cfg);
  char *a2 = xasprintf("sweep %s --set run.replications=3 --set workload.partitions=400 --vary system.workers_per_gpu=1..3 "
                       "--vary 'system.mutex=call,kernels,{from: prep, to: msm}' --jobs 2 --csv j2.csv --json j2.json",
                       cfg);
  ck_assert_int_eq(run(a1, &o1, NULL), 0);
  ck_assert_int_eq(run(a2, &o2, NULL), 0);
  ck_assert_str_eq(o1, o2);
  char *c1 = tmpfile_text("j1.csv"), *c2 = tmpfile_text("j2.csv");
  char *j1 = tmpfile_text("j1.json"), *j2 = tmpfile_text("j2.json");
  ck_assert_str_eq(c1, c2);
  ck_assert_str_eq(j1, j2);
  /* 9 rows plus the header; the quoted scope value survives. */
  int lines = 0;
  for (char *q = c1; *q; q++) lines += *q == '\n';
  ck_assert_int_eq(lines, 10);
  ck_assert_ptr_nonnull(strstr(c1, "\"{from: prep, to: msm}\""));
  free(c1);
  free(c2);
  free(j1);
  free(j2);
  free(o1);
  free(o2);
  free(a1);
  free(a2);
  free(cfg);
}
END_TEST

START_TEST(sweep_bad_vary_exit_2_no_output) {
  static const struct {
    const char *vary, *says;
  } bad[] = {
      {"system.nope=1,2", "unknown key \"nope\""},
      {"phases.nothere.time.mean=1,2", "nothere"},
      {"system.workers_per_gpu=8..1", "empty range"},
      {"system.workers_per_gpu=two,three", "expected an integer"},
      {"system.batch=1.5..2.5:0.5", "expected an integer"},
      {"system.mutex=call,,kernels", "empty value"},
      {"system.workers_per_gpu", "expected KEY=VALUES"},
      {"system.workers_per_gpu=1..4:0", "step > 0"},
      {"phases.prep.time.mean=1.0..2.0", "needs a step"},
  };
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *args = xasprintf("sweep %s --vary '%s' --csv bad.csv --json bad.json", cfg, bad[i].vary), *err, *out;
    ck_assert_int_eq(run(args, &out, &err), 2);
    ck_assert_msg(strstr(err, bad[i].says) != NULL, "--vary %s: stderr lacks \"%s\": %s", bad[i].vary, bad[i].says, err);
    ck_assert_msg(strstr(err, "--vary") != NULL, "stderr does not name --vary: %s", err);
    ck_assert_str_eq(out, "");
    ck_assert(!exists("bad.csv"));
    ck_assert(!exists("bad.json"));
    free(err);
    free(out);
    free(args);
  }
  free(cfg);
}
END_TEST

/* ---------------------------------------------------------------- plan */

/* The worker count of plan's cheapest configuration. */
static int plan_workers(const char *extra, char **outp) {
  char *cfg = src("tests/data/whatif/det.yaml");
  char *args = xasprintf("plan %s %s --jobs 2", cfg, extra), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  const char *c = strstr(out, "cheapest: 1 GPU x ");
  ck_assert_msg(c != NULL, "no cheapest configuration on one GPU: %s", out);
  int w = atoi(c + strlen("cheapest: 1 GPU x "));
  /* One worker gets the same throughput with either scope; more need the narrow one. */
  if (w > 1) ck_assert_msg(strstr(c, "mutex kernels") != NULL, "expected the kernels scope: %s", out);
  ck_assert_msg(strstr(c, "batch 1,") != NULL, "expected batch 1: %s", out);
  *outp = out;
  free(args);
  free(cfg);
  return w;
}

START_TEST(plan_worker_counts) {
  const double ts = 1, tg = 1, tc = 1;
  char *out;
  /* A target that needs a saturated GPU: ceil((Ts+Tg+Tc)/Tg) workers. */
  int w = plan_workers("--target proofs_per_hour=3500", &out);
  ck_assert_int_eq(w, (int)ceil((ts + tg + tc) / tg));
  free(out);
  /* Below saturation: the smallest N with N/(Ts+Tg+Tc) >= target. */
  const double targets[] = {1000, 2000, 2400};
  for (size_t i = 0; i < 3; i++) {
    char *t = xasprintf("--target proofs_per_hour=%g", targets[i]);
    w = plan_workers(t, &out);
    int expect = (int)ceil(targets[i] / 3600.0 * (ts + tg + tc) - 1e-9);
    ck_assert_msg(w == expect, "target %g: %d workers, expected %d", targets[i], w, expect);
    free(out);
    free(t);
  }
}
END_TEST

START_TEST(plan_impossible_target_says_so) {
  char *cfg = src("tests/data/whatif/det.yaml");
  char *args = xasprintf("plan %s --target proofs_per_hour=9000 --budget gpus=2", cfg), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, "NO CONFIGURATION MEETS THE TARGET") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "GPU") != NULL, "%s", out);
  free(out);
  free(args);
  /* A latency limit no configuration meets (every call takes 3 s). */
  args = xasprintf("plan %s --target proofs_per_hour=1000 --max p99_latency_s=2", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, "NO CONFIGURATION MEETS THE TARGET") != NULL, "%s", out);
  free(out);
  free(args);
  /* Bad targets are usage errors. */
  char *err;
  args = xasprintf("plan %s --target proofs=5", cfg);
  ck_assert_int_eq(run(args, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "proofs_per_hour"));
  free(err);
  free(args);
  free(cfg);
}
END_TEST

/* ---------------------------------------------------------------- estimate */

START_TEST(estimate_textbook_repairman) {
  /* The formulas themselves: M/M/2//3, Z = 2, S = 0.25. */
  an_repairman r;
  ps_err e;
  ck_assert_int_eq(an_repairman_solve(3, 2, 2.0, 0.25, NULL, &r, &e), PS_OK);
  ck_assert_double_eq_tol(r.p0, 0.701851, 5e-7);
  ck_assert_double_eq_tol(r.throughput, 1.332419, 5e-7);
  an_station st[2] = {{AN_DELAY, 2.0, 1}, {AN_MULTI, 0.25, 2}};
  an_mva mv;
  ck_assert_int_eq(an_mva_solve(st, 2, 3, &mv, &e), PS_OK);
  ck_assert_double_eq_tol(mv.throughput[3], 1.332419, 5e-7);
  an_mva_free(&mv);

  /* The command, on a scenario that is that queue. */
  char *cfg = src("tests/data/whatif/repairman.yaml");
  char *args = xasprintf("estimate %s", cfg), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, "p0 = 0.701851") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "throughput 1.332419") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "M/M/2//3") != NULL, "%s", out);
  free(out);
  free(args);
  args = xasprintf("estimate %s --json", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  cJSON *doc = cJSON_Parse(out);
  ck_assert_ptr_nonnull(doc);
  cJSON *rp = cJSON_GetObjectItem(doc, "repairman");
  ck_assert_double_eq_tol(cJSON_GetObjectItem(rp, "p0")->valuedouble, 0.701851, 5e-7);
  ck_assert_double_eq_tol(cJSON_GetObjectItem(rp, "throughput")->valuedouble, 1.332419, 5e-7);
  cJSON *row;
  int mva = 0;
  cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "analytic")) {
    const char *name = cJSON_GetObjectItem(row, "model")->valuestring;
    if (!strcmp(name, "mva") || !strcmp(name, "repairman")) {
      ck_assert_str_eq(cJSON_GetObjectItem(row, "status")->valuestring, "exact");
      ck_assert_double_eq_tol(cJSON_GetObjectItem(row, "throughput_pps")->valuedouble, 1.332419, 5e-7);
      /* The simulation agrees within 2%. */
      ck_assert_double_lt(fabs(cJSON_GetObjectItem(row, "gap")->valuedouble), 0.02);
      mva += !strcmp(name, "mva");
    }
  }
  ck_assert_int_eq(mva, 1);
  cJSON_Delete(doc);
  free(out);
  free(args);
  free(cfg);
}
END_TEST

START_TEST(estimate_deterministic_exact) {
  char *cfg = src("tests/data/whatif/det.yaml");
  for (int n = 1; n <= 4; n++) {
    char *args = xasprintf("estimate %s --json --set system.workers_per_gpu=%d", cfg, n), *out;
    ck_assert_int_eq(run(args, &out, NULL), 0);
    cJSON *doc = cJSON_Parse(out);
    ck_assert_ptr_nonnull(doc);
    int seen = 0;
    cJSON *row;
    cJSON_ArrayForEach(row, cJSON_GetObjectItem(doc, "analytic")) {
      if (strcmp(cJSON_GetObjectItem(row, "model")->valuestring, "deterministic")) continue;
      seen = 1;
      ck_assert_str_eq(cJSON_GetObjectItem(row, "status")->valuestring, "exact");
      ck_assert_double_eq_tol(cJSON_GetObjectItem(row, "throughput_pps")->valuedouble, fmin(n / 3.0, 1.0), 1e-9);
    }
    ck_assert_int_eq(seen, 1);
    cJSON *sim = cJSON_GetObjectItem(doc, "simulation");
    ck_assert_double_eq_tol(cJSON_GetObjectItem(sim, "throughput_pps")->valuedouble, fmin(n / 3.0, 1.0), 5e-3);
    cJSON_Delete(doc);
    free(out);
    free(args);
  }
  free(cfg);
}
END_TEST

/* ---------------------------------------------------------------- saturation */

START_TEST(saturation_point_deterministic) {
  char *cfg = src("tests/data/whatif/det.yaml");
  scenario *s = NULL;
  ps_err e;
  ck_assert_int_eq(scn_load(cfg, NULL, 0, &s, &e), PS_OK);
  whatif_sat sat;
  ck_assert_int_eq(whatif_saturation(s, 6, &sat, &e), PS_OK);
  ck_assert_int_eq(sat.nworkers, 6);
  ck_assert_int_eq(sat.saturation, 3); /* ceil((Ts+Tg+Tc)/Tg) */
  ck_assert_double_eq_tol(sat.util[1], 1.0 / 3, 5e-3);
  ck_assert_double_eq_tol(sat.util[3], 1.0, 5e-3);
  char buf[256];
  whatif_saturation_line(s, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "beyond 3 workers") != NULL, "%s", buf);
  scn_free(s);
  free(cfg);
}
END_TEST

int main(void) {
  Suite *su = suite_create("whatif");
  TCase *tc = tcase_create("whatif");
  tcase_add_checked_fixture(tc, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, sweep_rows_equal_closed_forms);
  tcase_add_test(tc, sweep_same_output_whatever_jobs);
  tcase_add_test(tc, sweep_bad_vary_exit_2_no_output);
  tcase_add_test(tc, plan_worker_counts);
  tcase_add_test(tc, plan_impossible_target_says_so);
  tcase_add_test(tc, estimate_textbook_repairman);
  tcase_add_test(tc, estimate_deterministic_exact);
  tcase_add_test(tc, saturation_point_deterministic);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf;
}
