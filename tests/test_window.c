/* Check suite of the measurement window (core/window.c), the one rule behind every
 * utilization provesim reports: the rule itself on hand-made completions, and the three
 * paths that use it (the engine's online integrals, `measure`'s recorded calls and
 * `validate`'s spans file) agreeing on the same run. Also the CSV quoting of reports. */
#define _GNU_SOURCE
#include "ck.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "pipe.h"
#include "report.h"
#include "runner.h"
#include "scn.h"
#include "spans.h"
#include "window.h"

static char *src_path(const char *rel) {
  const char *root = getenv("PROVESIM_SRC");
  return xasprintf("%s/%s", root ? root : "..", rel);
}

/* ---------------------------------------------------------------- the rule */

START_TEST(test_rule_counts_partitions) {
  win w;
  win_init(&w, 10, 3, 2); /* opens at completion 3, closes at completion 8 */
  ck_assert(!win_is_open(&w));
  ck_assert_int_eq(win_complete(&w, 1.0, 2), 0);
  ck_assert_int_eq(win_complete(&w, 2.0, 2), WIN_OPENED); /* 2 -> 4 crosses 3 */
  ck_assert(win_is_open(&w));
  ck_assert_int_eq(win_complete(&w, 3.0, 3), 0);          /* 7 */
  ck_assert_int_eq(win_complete(&w, 5.0, 1), WIN_CLOSED); /* 8 */
  ck_assert(!win_is_open(&w));
  ck_assert_int_eq(win_complete(&w, 6.0, 2), 0);
  ck_assert_double_eq(w.t0, 2.0);
  ck_assert_double_eq(w.t1, 5.0);
  ck_assert_double_eq(win_length(&w), 3.0);
  ck_assert_int_eq(win_check(&w, NULL, NULL), PS_OK);
}
END_TEST

START_TEST(test_rule_zero_warmup_opens_at_zero) {
  win w;
  win_init(&w, 4, 0, 0);
  ck_assert(win_is_open(&w));
  ck_assert_double_eq(w.t0, 0.0);
  ck_assert_int_eq(win_complete(&w, 1.5, 4), WIN_CLOSED);
  ck_assert_double_eq(win_length(&w), 1.5);
}
END_TEST

START_TEST(test_rule_one_call_opens_and_closes) {
  win w;
  ps_err e;
  win_init(&w, 4, 1, 1);
  ck_assert_int_eq(win_complete(&w, 1.0, 4), WIN_OPENED | WIN_CLOSED);
  ck_assert_int_eq(win_check(&w, "x.jsonl", &e), PS_EINPUT);
  ck_assert_msg(strstr(e.msg, "x.jsonl: the measurement window (from the 1-th completion to the 3-th) has zero length"),
                "%s", e.msg);
}
END_TEST

START_TEST(test_busy_share_merges_and_clips) {
  win w;
  win_init(&w, 2, 1, 0);
  win_complete(&w, 1.0, 1);
  win_complete(&w, 3.0, 1); /* window [1, 3] */
  ivl v[] = {{2.5, 4.0}, {0.0, 1.5}, {1.2, 1.4}, {2.0, 2.6}};
  /* union inside [1, 3]: [1, 1.5] and [2, 3] = 1.5 of 2 */
  ck_assert_double_eq_tol(win_busy_share(&w, v, 4), 0.75, 1e-12);
}
END_TEST

/* ---------------------------------------------------------------- three paths agree */

static void sim_span_to_buf(void *ctx, const sim_span *sp) {
  span_rec r = {.kind = SPAN_PHASE, .rep = sp->rep, .gpu = sp->gpu, .worker = sp->worker, .call = sp->call,
                .partitions = sp->partitions, .npartitions = sp->npartitions, .phase = sp->phase,
                .resource = sp->resource, .t0 = sp->t0, .t1 = sp->t1};
  spans_format(ctx, &r);
}

static char *write_tmp(const ps_buf *b) {
  char *path = xstrdup("/tmp/provesim-test-window-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, b->p, b->len), (ssize_t)b->len);
  close(fd);
  return path;
}

static void agree(const char *what, const scenario *s, const sim_metrics *m, const char *spans_path) {
  span_metrics sm;
  ps_err e;
  ck_assert_msg(span_metrics_file(spans_path, 0, (long)s->warmup, (long)s->cooldown, &sm, &e) == PS_OK, "%s: %s", what,
                e.msg);
  ck_assert_int_eq(sm.ngpus, m->ngpus);
  ck_assert_double_eq_tol(sm.window_s, m->window_s, 1e-8);
  ck_assert_int_eq(sm.completed, m->completed);
  for (int g = 0; g < m->ngpus; g++) {
    ck_assert_msg(m->gpu_util[g] > 0.05, "%s: GPU %d utilization %g", what, g, m->gpu_util[g]);
    ck_assert_msg(fabs(sm.gpu_util[g] - m->gpu_util[g]) < 1e-7, "%s: GPU %d: %.9f from the spans, %.9f reported",
                  what, g, sm.gpu_util[g], m->gpu_util[g]);
  }
  ck_assert_double_eq_tol(sm.throughput_pps, m->throughput_pps, 1e-6 * m->throughput_pps);
}

/* The simulator's integrals and validate's recomputation from the simulator's spans. */
START_TEST(test_engine_and_spans_agree) {
  char *path = src_path("tests/data/measure/const-seed.yaml");
  const char *sets[] = {"system.gpus=2", "system.mutex=kernels", "workload.partitions=200", "run.warmup=13",
                        "run.cooldown=5"};
  scenario *s = NULL;
  ps_err e;
  ck_assert_msg(scn_load(path, sets, 5, &s, &e) == PS_OK, "%s", e.msg);
  ps_buf b = {0};
  span_header h = {.source = "sim", .scenario = s->name};
  spans_format_header(&b, &h);
  sim_opts o = {.threads = 1, .on_span = sim_span_to_buf, .span_ctx = &b};
  sim_result *r = NULL;
  ck_assert_int_eq(sim_run(s, &o, &r, &e), PS_OK);
  char *sp = write_tmp(&b);
  agree("simulate", s, &r->reps[0], sp);
  unlink(sp);
  free(sp);
  ps_buf_free(&b);
  sim_result_free(r);
  scn_free(s);
  free(path);
}
END_TEST

/* measure's metrics from its recorded calls and validate's from measure's spans file. */
START_TEST(test_measure_and_spans_agree) {
  char *path = src_path("tests/data/measure/const-seed.yaml");
  const char *sets[] = {"system.gpus=2", "system.mutex=kernels", "workload.partitions=24", "run.warmup=4",
                        "run.cooldown=2"};
  scenario *s = NULL;
  ps_err e;
  ck_assert_msg(scn_load(path, sets, 5, &s, &e) == PS_OK, "%s", e.msg);
  runner_opts ro = {.backend = "cpu", .executor = "synthetic", .keep_spans = 1};
  runner_result *rr = NULL;
  ck_assert_msg(runner_run(s, &ro, &rr, &e) == PS_OK, "%s", e.msg);
  char *sp = write_tmp(&rr->spans);
  agree("measure", s, &rr->sim.reps[0], sp);
  unlink(sp);
  free(sp);
  runner_result_free(rr);
  scn_free(s);
  free(path);
}
END_TEST

/* ---------------------------------------------------------------- CSV */

START_TEST(test_report_csv_quotes_names) {
  char dir[] = "/tmp/provesim-test-csv-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char *yaml = xasprintf("%s/s.yaml", dir);
  FILE *f = fopen(yaml, "w");
  ck_assert_ptr_nonnull(f);
  fputs("scenario: 'a, \"b\"'\nmodel:\n  model: m\n  phases:\n"
        "    - {name: p, resource: gpu, time: {dist: const, value: 0.01}}\n"
        "workload:\n  partitions: 10\n",
        f);
  fclose(f);
  scenario *s = NULL;
  ps_err e;
  ck_assert_msg(scn_load(yaml, NULL, 0, &s, &e) == PS_OK, "%s", e.msg);
  sim_result *r = NULL;
  ck_assert_int_eq(sim_run(s, NULL, &r, &e), PS_OK);
  report_summary sum;
  report_summarize(r, &sum);
  ps_buf b = {0};
  report_csv(&b, s, &sum, NULL);
  const char *row = strchr(b.p, '\n') + 1;
  ck_assert_msg(!strncmp(row, "0,,\"a, \"\"b\"\"\",1,", 16), "row: %s", row);
  ps_buf_free(&b);
  report_summary_free(&sum);
  sim_result_free(r);
  scn_free(s);
  unlink(yaml);
  rmdir(dir);
  free(yaml);
}
END_TEST

int main(void) {
  Suite *su = suite_create("window");
  TCase *tc = tcase_create("rule");
  tcase_add_test(tc, test_rule_counts_partitions);
  tcase_add_test(tc, test_rule_zero_warmup_opens_at_zero);
  tcase_add_test(tc, test_rule_one_call_opens_and_closes);
  tcase_add_test(tc, test_busy_share_merges_and_clips);
  suite_add_tcase(su, tc);
  tc = tcase_create("paths");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_engine_and_spans_agree);
  tcase_add_test(tc, test_measure_and_spans_agree);
  tcase_add_test(tc, test_report_csv_quotes_names);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
