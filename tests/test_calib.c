/* Check suite of calibration and validation (sim/calib.c, `calibrate`, `validate`):
 * maximum-likelihood fits recover known distributions and pick the right family; bad
 * samples are refused; a model calibrated from simulated spans reproduces the model that
 * made them; batch multipliers come from calls of several partitions; span metrics equal
 * the simulator's report; validate agrees with itself and flags a wrong scenario. */
#define _GNU_SOURCE
#include <check.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "cli_harness.h"
#include "dist.h"
#include "scn.h"

static double *draw(const dist *d, size_t n, unsigned long seed) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  double *x = xmalloc(n * sizeof *x);
  for (size_t i = 0; i < n; i++) x[i] = dist_draw(d, r);
  gsl_rng_free(r);
  return x;
}

static void fit_case(const dist *truth, calib_family expect) {
  const size_t n = 20000;
  double *x = draw(truth, n, 7);
  calib_fit_result f;
  ps_err e;
  ck_assert_int_eq(calib_fit(x, n, CALIB_AUTO, &f, &e), PS_OK);
  ck_assert_msg(f.family == expect, "fitted %s, expected %s", calib_family_name(f.family), calib_family_name(expect));
  double m = dist_mean(truth);
  ck_assert_double_eq_tol(dist_mean(&f.d), m, 0.01 * m);
  ck_assert_msg(f.ks < 0.02, "KS distance %g", f.ks);
  dist_free(&f.d);
  free(x);
}

START_TEST(fits_recover_families) {
  dist d;
  dist_lognormal_mean_cv(&d, 1.91, 0.10, NULL);
  fit_case(&d, CALIB_LOGNORMAL);
  dist_gamma_mean_cv(&d, 0.6, 0.7, NULL);
  fit_case(&d, CALIB_GAMMA);
  dist_normal(&d, 1.13, 0.04, NULL);
  fit_case(&d, CALIB_NORMAL);
  dist_exponential(&d, 0.5, NULL);
  fit_case(&d, CALIB_EXPONENTIAL);
  dist_uniform(&d, 0.4, 0.7, NULL);
  fit_case(&d, CALIB_UNIFORM);
  dist_const(&d, 0.12, NULL);
  fit_case(&d, CALIB_CONST);
}
END_TEST

START_TEST(fit_parameters) {
  /* Lognormal MLE: mu and sigma of the logs; gamma: shape from the Newton iteration. */
  dist d;
  dist_gamma_mean_cv(&d, 2.0, 0.5, NULL); /* shape 4, scale 0.5 */
  double *x = draw(&d, 50000, 11);
  calib_fit_result f;
  ck_assert_int_eq(calib_fit(x, 50000, CALIB_GAMMA, &f, NULL), PS_OK);
  ck_assert_double_eq_tol(f.d.a, 4.0, 0.1);
  ck_assert_double_eq_tol(f.d.b, 0.5, 0.02);
  ck_assert_double_eq_tol(f.cv, 0.5, 0.01);
  free(x);
}
END_TEST

START_TEST(fit_errors) {
  calib_fit_result f;
  ps_err e;
  double neg[] = {1.0, -0.5};
  ck_assert_int_eq(calib_fit(neg, 0, CALIB_AUTO, &f, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "no samples"));
  ck_assert_int_eq(calib_fit(neg, 2, CALIB_AUTO, &f, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "expected seconds >= 0"));
  double zero[] = {0.0, 0.3, 0.4};
  ck_assert_int_eq(calib_fit(zero, 3, CALIB_LOGNORMAL, &f, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "cannot fit"));
  double same[] = {0.2, 0.2, 0.2};
  ck_assert_int_eq(calib_fit(same, 3, CALIB_NORMAL, &f, &e), PS_EINPUT);
  ck_assert_int_eq(calib_fit(same, 3, CALIB_AUTO, &f, &e), PS_OK);
  ck_assert_int_eq(f.family, CALIB_CONST);
}
END_TEST

static char *sh(const char *fmt, const char *a) {
  char *s = xasprintf(fmt, a, a, a, a);
  return s;
}

/* simulate (1 worker) -> spans -> calibrate -> a model whose phase means match the seed
 * model's; validate of the same scenario agrees within 1 pp; of another, disagrees. */
START_TEST(calibrate_roundtrip_and_validate) {
  char *cfg = src("configs/seed-coarse-mutex.yaml"), *tmpl = src("models/seed-field.yaml");
  char *a = xasprintf("simulate %s --set system.workers_per_gpu=1 --set run.replications=2 --spans one.jsonl -o r.txt",
                      cfg);
  ck_assert_int_eq(run(a, NULL, NULL), 0);
  free(a);
  char *out;
  a = xasprintf("calibrate one.jsonl --model %s -o cal.yaml --skip-calls 5", tmpl);
  ck_assert_int_eq(run(a, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "wrote cal.yaml"));
  free(out);
  free(a);
  model *truth = NULL, *cal = NULL;
  ps_err e;
  char *calp = xasprintf("%s/cal.yaml", tmpdir);
  ck_assert_int_eq(scn_load_model(tmpl, &truth, &e), PS_OK);
  ck_assert_msg(scn_load_model(calp, &cal, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(cal->nphases, truth->nphases);
  for (int p = 0; p < cal->nphases; p++) {
    double mt = dist_mean(&truth->phases[p].time), mc = dist_mean(&cal->phases[p].time);
    ck_assert_msg(fabs(mc - mt) <= 0.01 * mt, "phase %s: calibrated mean %g, true %g", cal->phases[p].name, mc, mt);
    ck_assert_int_eq(cal->phases[p].nafter, truth->phases[p].nafter);
  }
  ck_assert_int_eq(cal->nscopes, truth->nscopes);
  scn_model_free(truth);
  scn_model_free(cal);
  free(calp);
  a = xasprintf("validate %s --measured one.jsonl --set system.workers_per_gpu=1 --max-error-pp 1", cfg);
  ck_assert_int_eq(run(a, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "agree"));
  free(out);
  free(a);
  a = xasprintf("validate %s --measured one.jsonl --set system.mutex=kernels --max-error-pp 1", cfg);
  ck_assert_int_eq(run(a, &out, NULL), 1);
  ck_assert_ptr_nonnull(strstr(out, "DISAGREE"));
  free(out);
  free(a);
  /* validate also reads a report. */
  a = xasprintf("simulate %s --json -o rep.json --set run.seed=5", cfg);
  ck_assert_int_eq(run(a, NULL, NULL), 0);
  free(a);
  a = xasprintf("validate %s --measured rep.json --max-error-pp 0.5", cfg);
  ck_assert_int_eq(run(a, &out, NULL), 0);
  free(out);
  free(a);
  free(cfg);
  free(tmpl);
}
END_TEST

/* Calls of 1 and 2 partitions give the multipliers [1, ~2] (a call of k partitions takes
 * the sum of k draws in the simulator). */
START_TEST(batch_multipliers) {
  char *cfg = src("configs/seed-coarse-mutex.yaml"), *tmpl = src("models/seed-field.yaml");
  char *a = sh("simulate %s --set run.replications=1 --spans b1.jsonl -o r1.txt", cfg);
  ck_assert_int_eq(run(a, NULL, NULL), 0);
  free(a);
  a = sh("simulate %s --set run.replications=1 --set system.batch=2 --spans b2.jsonl -o r2.txt", cfg);
  ck_assert_int_eq(run(a, NULL, NULL), 0);
  free(a);
  a = xasprintf("calibrate b1.jsonl b2.jsonl --model %s -o cal.yaml", tmpl);
  char *out;
  ck_assert_int_eq(run(a, &out, NULL), 0);
  free(out);
  free(a);
  model *cal = NULL;
  ps_err e;
  char *calp = xasprintf("%s/cal.yaml", tmpdir);
  ck_assert_msg(scn_load_model(calp, &cal, &e) == PS_OK, "%s", e.msg);
  int p = scn_phase_index(cal, "msm");
  ck_assert_int_eq(cal->phases[p].nscale, 2);
  ck_assert_double_eq_tol(cal->phases[p].scale[0], 1.0, 1e-12);
  ck_assert_double_eq_tol(cal->phases[p].scale[1], 2.0, 0.02);
  scn_model_free(cal);
  free(calp);
  free(cfg);
  free(tmpl);
}
END_TEST

/* Kernel records in `measure` spans give each GPU phase its busy share: the union of the
 * kernels of its GPU inside its spans over their length. Overlapping kernels count once,
 * another GPU's kernels not at all, and a CPU phase gets none. */
START_TEST(busy_share_from_kernels) {
  char *mp = xasprintf("%s/two.yaml", tmpdir), *sp = xasprintf("%s/k.jsonl", tmpdir);
  FILE *f = fopen(mp, "w");
  fprintf(f, "model: two\nphases:\n  - name: a\n    resource: cpu\n    time: {dist: const, value: 0.1}\n"
             "  - name: g\n    resource: gpu\n    time: {dist: const, value: 0.2}\n    after: [a]\n"
             "scopes:\n  call: {from: a, to: g}\n");
  fclose(f);
  f = fopen(sp, "w");
  fprintf(f, "{\"schema\":\"provesim.spans/1\",\"source\":\"prover\",\"scenario\":\"x\",\"t_unit\":\"s\"}\n");
  for (int c = 0; c < 10; c++) {
    double t = c * 0.3, d = 0.2 + 0.01 * (c % 3); /* g lasts 0.20..0.22 s; kernels 0.15 s of it */
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":%d,\"partitions\":[%d],\"phase\":\"a\",\"resource\":\"cpu\","
               "\"t0\":%.6f,\"t1\":%.6f}\n", c, c, t, t + 0.1);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":%d,\"partitions\":[%d],\"phase\":\"g\",\"resource\":\"gpu\","
               "\"t0\":%.6f,\"t1\":%.6f}\n", c, c, t + 0.1, t + 0.1 + d);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"kind\":\"kernel\",\"name\":\"k1\",\"t0\":%.6f,\"t1\":%.6f}\n", t + 0.1, t + 0.2);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"kind\":\"kernel\",\"name\":\"k2\",\"t0\":%.6f,\"t1\":%.6f}\n", t + 0.12, t + 0.18);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"kind\":\"kernel\",\"name\":\"k3\",\"t0\":%.6f,\"t1\":%.6f}\n", t + 0.2, t + 0.25);
    fprintf(f, "{\"rep\":0,\"gpu\":1,\"kind\":\"kernel\",\"name\":\"other\",\"t0\":%.6f,\"t1\":%.6f}\n", t, t + 0.3);
  }
  fclose(f);
  char *out, *a = xasprintf("calibrate k.jsonl --model %s -o cal.yaml", mp);
  ck_assert_int_eq(run(a, &out, NULL), 0);
  model *cal = NULL;
  ps_err e;
  char *calp = xasprintf("%s/cal.yaml", tmpdir);
  ck_assert_msg(scn_load_model(calp, &cal, &e) == PS_OK, "%s", e.msg);
  int g = scn_phase_index(cal, "g");
  double want = 1.5 / (10 * 0.2 + 0.01 * (0 + 1 + 2 + 0 + 1 + 2 + 0 + 1 + 2 + 0));
  ck_assert_double_eq_tol(cal->phases[g].busy, want, 2e-4);
  ck_assert_double_eq(cal->phases[scn_phase_index(cal, "a")].busy, 1);
  ck_assert_ptr_nonnull(strstr(out, "busy"));
  scn_model_free(cal);
  free(calp), free(out), free(a), free(mp), free(sp);
}
END_TEST

START_TEST(calibrate_errors) {
  char *tmpl = src("models/seed-field.yaml"), *err;
  ck_assert_int_eq(run("calibrate", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "expected at least one spans file"));
  free(err);
  char *a = xasprintf("calibrate nope.jsonl --model %s -o cal.yaml", tmpl);
  ck_assert_int_eq(run(a, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "nope.jsonl"));
  ck_assert(!exists("cal.yaml"));
  free(err);
  free(a);
  /* Spans that lack a template phase. */
  char *sp = xasprintf("%s/few.jsonl", tmpdir);
  FILE *f = fopen(sp, "w");
  fprintf(f, "{\"schema\":\"provesim.spans/1\",\"source\":\"prover\",\"scenario\":\"x\",\"t_unit\":\"s\"}\n"
             "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"partitions\":[0],\"phase\":\"setup\",\"resource\":\"cpu\","
             "\"t0\":0.0,\"t1\":0.3}\n");
  fclose(f);
  a = xasprintf("calibrate few.jsonl --model %s -o cal.yaml", tmpl);
  ck_assert_int_eq(run(a, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "phase prep: no spans"));
  ck_assert(!exists("cal.yaml"));
  free(err);
  free(a);
  a = xasprintf("calibrate few.jsonl --model %s -o cal.yaml --dist weibull", tmpl);
  ck_assert_int_eq(run(a, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "--dist weibull"));
  free(err);
  free(a);
  free(sp);
  free(tmpl);
}
END_TEST


/* Amdahl's law from single-worker runs at two thread counts: spans simulated from a model
 * of known serial share (0.3) and one-core time (lognormal, mean 0.8) give them back; one
 * thread count is refused with the reason; a template without a law refuses spans at two
 * counts; spans without thread counts are refused for a law. */
static void write_file(const char *name, const char *text) {
  char *p = xasprintf("%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  free(p);
}

START_TEST(amdahl_from_two_thread_counts) {
  write_file("law.yaml", "model: law\nphases:\n"
                         "  - name: work\n    resource: cpu\n    threads: all\n    scaling: {serial: 0.3}\n"
                         "    time: {dist: lognormal, mean: 0.8, cv: 0.1}\n"
                         "  - name: gpu\n    resource: gpu\n    time: {dist: normal, mean: 0.05, sd: 0.002}\n"
                         "scopes:\n  call: {from: work, to: gpu}\n");
  write_file("nolaw.yaml", "model: nolaw\nphases:\n"
                           "  - name: work\n    resource: cpu\n    threads: 4\n    time: 0.2\n"
                           "  - name: gpu\n    resource: gpu\n    time: 0.05\n");
  write_file("law-scn.yaml", "scenario: law\nmodel: law.yaml\nsystem: {cpu_cores: 16, mutex: call}\n"
                             "workload: {partitions: 400}\n");
  ck_assert_int_eq(run("simulate law-scn.yaml --set system.threads.per_worker=12 --spans t12.jsonl -o a.txt", NULL, NULL), 0);
  ck_assert_int_eq(run("simulate law-scn.yaml --set system.threads.per_worker=2 --spans t2.jsonl -o b.txt", NULL, NULL), 0);
  char *out, *err;
  ck_assert_int_eq(run("calibrate t12.jsonl t2.jsonl --model law.yaml -o lawcal.yaml", &out, NULL), 0);
  free(out);
  model *cal = NULL;
  ps_err e;
  char *calp = xasprintf("%s/lawcal.yaml", tmpdir);
  ck_assert_msg(scn_load_model(calp, &cal, &e) == PS_OK, "%s", e.msg);
  const phase *w = &cal->phases[scn_phase_index(cal, "work")];
  ck_assert_int_eq(w->law, SCALE_AMDAHL);
  ck_assert_int_eq(w->threads_all, 1);
  ck_assert_msg(fabs(w->serial - 0.3) < 0.02, "serial %g, expected 0.3", w->serial);
  ck_assert_msg(fabs(dist_mean(&w->time) - 0.8) < 0.02 * 0.8, "one-core mean %g, expected 0.8", dist_mean(&w->time));
  int hasgpu = 0;
  for (int i = 0; i < cal->nprov; i++) hasgpu |= !strcmp(cal->prov_k[i], "commit") || !strcmp(cal->prov_k[i], "spans");
  ck_assert(hasgpu);
  scn_model_free(cal);
  free(calp);
  ck_assert_int_eq(run("calibrate t12.jsonl --model law.yaml -o one.yaml", NULL, &err), 2);
  ck_assert_msg(strstr(err, "phase work: every span ran at 12 threads, and one thread count cannot identify"), "%s", err);
  ck_assert(!exists("one.yaml"));
  free(err);
  ck_assert_int_eq(run("calibrate t12.jsonl t2.jsonl --model nolaw.yaml -o two.yaml", NULL, &err), 2);
  ck_assert_msg(strstr(err, "phase work ran at 2 different thread counts (12 and 2, ...) but the template gives it no scaling law"),
                "%s", err);
  free(err);
  write_file("nothr.jsonl", "{\"schema\":\"provesim.spans/1\",\"source\":\"prover\",\"scenario\":\"x\",\"t_unit\":\"s\"}\n"
                            "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"phase\":\"work\",\"resource\":\"cpu\",\"t0\":0,\"t1\":0.3}\n"
                            "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"phase\":\"gpu\",\"resource\":\"gpu\",\"t0\":0.3,\"t1\":0.4}\n");
  ck_assert_int_eq(run("calibrate nothr.jsonl --model law.yaml -o n.yaml", NULL, &err), 2);
  ck_assert_msg(strstr(err, "phase work: 1 span without a thread count"), "%s", err);
  free(err);
}
END_TEST


/* The interference of overlapping GPU phases and the cpu contention: a two-worker run
 * without a mutex on a model with interference 0.4 and contention 0.3 gives both back
 * against solo times fitted from a one-worker run;
 * a run where GPU phases never overlap is refused. */
START_TEST(interference_from_overlap_run) {
  write_file("ov.yaml", "model: ov\ngpu_overlap: {interference: 0.4}\ncpu_contention: 0.3\nphases:\n"
                        "  - name: c\n    resource: cpu\n    time: {dist: lognormal, mean: 0.08, cv: 0.1}\n"
                        "  - name: g\n    resource: gpu\n    time: {dist: normal, mean: 0.1, sd: 0.005}\n"
                        "scopes:\n  call: {from: c, to: g}\n");
  write_file("ov-tmpl.yaml", "model: ov\nphases:\n"
                             "  - name: c\n    resource: cpu\n    time: 1\n"
                             "  - name: g\n    resource: gpu\n    time: 1\n");
  write_file("ov-scn.yaml", "scenario: ov\nmodel: ov.yaml\nsystem: {cpu_cores: 8}\nworkload: {partitions: 300}\n");
  ck_assert_int_eq(run("simulate ov-scn.yaml --spans solo.jsonl -o a.txt", NULL, NULL), 0);
  ck_assert_int_eq(run("simulate ov-scn.yaml --set system.workers_per_gpu=2 --set system.mutex=none --spans two.jsonl -o b.txt", NULL, NULL), 0);
  char *out, *err;
  ck_assert_int_eq(run("calibrate solo.jsonl --overlap two.jsonl --model ov-tmpl.yaml -o ovcal.yaml", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "interference"));
  free(out);
  model *cal = NULL;
  ps_err e;
  char *calp = xasprintf("%s/ovcal.yaml", tmpdir);
  ck_assert_msg(scn_load_model(calp, &cal, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(cal->gpu_overlap, 1);
  ck_assert_msg(fabs(cal->interference - 0.4) < 0.05, "interference %g, expected 0.4", cal->interference);
  ck_assert_msg(fabs(cal->cpu_contention - 0.3) < 0.05, "cpu contention %g, expected 0.3", cal->cpu_contention);
  scn_model_free(cal);
  free(calp);
  ck_assert_int_eq(run("calibrate solo.jsonl --overlap solo.jsonl --model ov-tmpl.yaml -o x.yaml", NULL, &err), 2);
  ck_assert_msg(strstr(err, "an overlap run needs them to run at once"), "%s", err);
  ck_assert(!exists("x.yaml"));
  free(err);
}
END_TEST

/* The model writer quotes what YAML would misread: a model name with ': ', '#', quotes and
 * a backslash, and names that YAML 1.1 reads as booleans, come back as written. */
START_TEST(model_yaml_roundtrip_names) {
  char *path = src("models/seed-field.yaml");
  model *m = NULL;
  ps_err e;
  ck_assert_msg(scn_load_model(path, &m, &e) == PS_OK, "%s", e.msg);
  static const char *const names[] = {"a: b #c \"q\" \\ x", "yes", "1e3", "-x", "plain-name_2", "tab\there"};
  for (int i = 0; i < 6; i++) {
    char *old = m->name;
    m->name = xstrdup(names[i]);
    ps_buf b = {0};
    calib_model_yaml(&b, m);
    char *tmp = xasprintf("/tmp/test_calib.names.%d.yaml", (int)getpid());
    FILE *f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    fwrite(b.p, 1, b.len, f);
    fclose(f);
    model *back = NULL;
    ck_assert_msg(scn_load_model(tmp, &back, &e) == PS_OK, "name %s: %s\n%s", names[i], e.msg, b.p);
    ck_assert_str_eq(back->name, names[i]);
    ck_assert_int_eq(back->nphases, m->nphases);
    scn_model_free(back);
    unlink(tmp);
    free(tmp);
    ps_buf_free(&b);
    free(m->name);
    m->name = old;
  }
  scn_model_free(m);
  free(path);
}
END_TEST

int main(void) {
  Suite *su = suite_create("calib");
  TCase *tf = tcase_create("fit");
  tcase_add_test(tf, fits_recover_families);
  tcase_add_test(tf, fit_parameters);
  tcase_add_test(tf, fit_errors);
  suite_add_tcase(su, tf);
  TCase *tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, calibrate_roundtrip_and_validate);
  tcase_add_test(tc, batch_multipliers);
  tcase_add_test(tc, calibrate_errors);
  tcase_add_test(tc, amdahl_from_two_thread_counts);
  tcase_add_test(tc, interference_from_overlap_run);
  tcase_add_test(tc, busy_share_from_kernels);
  tcase_add_test(tc, model_yaml_roundtrip_names);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
