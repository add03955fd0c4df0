/* `provesim report` end to end: the inputs are real outputs of simulate, sweep, plan,
 * validate and sensitivity on a small seed scenario, made once for the suite; the tests
 * check the page's structure (every plot has both axis labels and a reading), that its
 * numbers are the documents' numbers, that it is the same bytes twice, and the errors. */
#include "ck.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "util.h"

#define SMALL "--set workload.partitions=300 --set run.warmup=20 --set run.replications=3"

/* The inputs, made once (an unchecked fixture runs in the parent; the forked tests
 * inherit tmpdir). */
static void inputs_setup(void) {
  cli_tmp_setup();
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  const char *cmds[] = {
      "simulate %s " SMALL " --json -o run.json --spans run.jsonl",
      "sweep %s " SMALL " --vary system.workers_per_gpu=1..3 --vary system.mutex=call,kernels --json sweep.json "
      "--csv sweep.csv -q",
      "plan %s --set workload.partitions=300 --set run.warmup=20 --set run.replications=2 --target "
      "proofs_per_hour=1500 --max-workers 3 --batches 1 --csv plan.csv",
      "validate %s --measured run.json --set workload.partitions=300 --set run.warmup=20 --windows 40 --json -o "
      "val.json",
      "sensitivity %s " SMALL " --json -o sens.json",
  };
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    char *a = xasprintf(cmds[i], cfg), *err = NULL;
    int rc = run(a, NULL, &err);
    if (rc != 0) {
      fprintf(stderr, "setup: provesim %s: exit %d: %s\n", a, rc, err ? err : "");
      abort();
    }
    free(a), free(err);
  }
  free(cfg);
}

static void inputs_teardown(void) { cli_tmp_teardown(); }

/* The report of args (written to out), read back; the test fails when it is not made. */
static char *report(const char *args, const char *out) {
  char *a = xasprintf("report %s -o %s", args, out), *err = NULL;
  int rc = run(a, NULL, &err);
  ck_assert_msg(rc == 0, "provesim %s: exit %d: %s", a, rc, err ? err : "");
  char *page = tmpfile_text(out);
  ck_assert_ptr_nonnull(page);
  free(a), free(err);
  return page;
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

/* The text of the element whose start tag holds marker, inside [p, end): non-empty. */
static int has_text(const char *p, const char *end, const char *marker) {
  const char *m = strstr(p, marker);
  if (!m || m > end) return 0;
  const char *gt = strchr(m, '>');
  return gt && gt + 1 < end && gt[1] != '<';
}

/* Every plot: an x and a y axis with labels, and a reading under it. */
START_TEST(every_plot_has_axes_and_a_reading) {
  char *page = report("run.json run.jsonl sweep.json plan.csv val.json sens.json", "all.html");
  /* breakdown, timeline, sweep (2), plan, validate, tornado */
  ck_assert_int_eq(count(page, "<figure "), 7);
  ck_assert_int_eq(count(page, "<svg "), 7);
  ck_assert_int_eq(count(page, "class=\"reading\""), 7);
  for (const char *f = page; (f = strstr(f, "<figure ")); f++) {
    const char *end = strstr(f, "</figure>");
    ck_assert_ptr_nonnull(end);
    const char *x = strstr(f, "<g class=\"x-axis\""), *y = strstr(f, "<g class=\"y-axis\"");
    ck_assert_msg(x && x < end && y && y < end, "no x or y axis: %.200s", f);
    ck_assert_msg(has_text(f, end, "class=\"axis-label x-label\""), "no x label: %.200s", f);
    ck_assert_msg(has_text(f, end, "class=\"axis-label y-label\""), "no y label: %.200s", f);
    ck_assert_msg(has_text(f, end, "class=\"reading\""), "no reading: %.200s", f);
  }
  /* Self-contained: nothing is fetched, nothing runs. */
  ck_assert_ptr_null(strstr(page, "<script"));
  ck_assert_ptr_null(strstr(page, "src="));
  ck_assert_ptr_null(strstr(page, "href="));
  free(page);
}
END_TEST

/* The data-v of the first cell after marker. */
static double cell_after(const char *page, const char *marker) {
  const char *p = strstr(page, marker);
  ck_assert_msg(p != NULL, "%s not in the page", marker);
  p = strstr(p, "data-v=\"");
  ck_assert_ptr_nonnull(p);
  return strtod(p + 8, NULL);
}

static cJSON *json_file(const char *rel) {
  char *t = tmpfile_text(rel);
  ck_assert_ptr_nonnull(t);
  cJSON *d = cJSON_Parse(t);
  ck_assert_ptr_nonnull(d);
  free(t);
  return d;
}

static double jnum(const cJSON *o, const char *a, const char *b) {
  const cJSON *x = cJSON_GetObjectItem(o, a);
  if (b) x = cJSON_GetObjectItem(x, b);
  ck_assert_msg(cJSON_IsNumber(x), "%s.%s", a, b ? b : "");
  return x->valuedouble;
}

/* The numbers shown are the documents' (to the last bit), and the readings quote them. */
START_TEST(numbers_are_the_documents) {
  char *page = report("run.json sweep.json val.json", "nums.html");
  cJSON *d = json_file("run.json"), *met = cJSON_GetObjectItem(d, "metrics");
  ck_assert_double_eq(cell_after(page, "data-key=\"metrics.gpu_util_mean\""), jnum(met, "gpu_util_mean", NULL));
  ck_assert_double_eq(cell_after(page, "data-key=\"metrics.throughput_pps\""), jnum(met, "throughput_pps", NULL));
  ck_assert_double_eq(cell_after(page, "data-key=\"metrics.latency_s.p99\""), jnum(met, "latency_s", "p99"));
  ck_assert_double_eq(cell_after(page, "data-key=\"metrics.mutex_wait_s.mean\""), jnum(met, "mutex_wait_s", "mean"));
  char want[256];
  snprintf(want, sizeof want, "The GPU computes %.1f%% of the window and idles %.1f%% while a worker holds the lock",
           100 * jnum(met, "gpu_util_mean", NULL), 100 * jnum(met, "gpu_idle", "mutex_held"));
  ck_assert_msg(strstr(page, want), "no \"%s\" in the breakdown's reading", want);
  cJSON_Delete(d);

  /* Every sweep point's utilization and proofs per hour, in order. */
  d = json_file("sweep.json");
  const cJSON *pts = cJSON_GetObjectItem(d, "points");
  ck_assert_int_eq(cJSON_GetArraySize(pts), 6);
  for (int i = 0; i < 6; i++) {
    const cJSON *m = cJSON_GetObjectItem(cJSON_GetArrayItem(pts, i), "metrics");
    char mk[64];
    snprintf(mk, sizeof mk, "<tr data-point=\"%d\">", i);
    const char *row = strstr(page, mk);
    ck_assert_ptr_nonnull(row);
    ck_assert_double_eq(cell_after(row, "<td class=\"num\""), jnum(m, "gpu_util_mean", NULL));
    const char *pph = strstr(strstr(row, "data-v=\"") + 1, "data-v=\"");
    pph = strstr(pph + 1, "data-v=\"");
    ck_assert_double_eq(strtod(pph + 8, NULL), jnum(m, "proofs_per_hour", NULL));
  }
  cJSON_Delete(d);

  /* validate: the reading's counts are the document's. */
  d = json_file("val.json");
  snprintf(want, sizeof want, "%.0f of %.0f metrics fall inside", jnum(d, "inside", NULL),
           jnum(d, "inside", NULL) + jnum(d, "outside", NULL));
  ck_assert_msg(strstr(page, want), "no \"%s\"", want);
  const cJSON *m0 = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "metrics"), 0);
  ck_assert_double_eq(cell_after(strstr(page, "<table class=\"validate\""), "<td class=\"num\""),
                      jnum(m0, "predicted", NULL));
  cJSON_Delete(d);
  free(page);
}
END_TEST

/* The run line: replications, events, the warm-up MSER-5 chose and the precision reached,
 * as the report states them. */
START_TEST(run_line) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *a = xasprintf("simulate %s --set workload.partitions=300 --set run.warmup=auto --set run.precision=0.01 "
                      "--json -o auto.json", cfg);
  ck_assert_int_eq(run(a, NULL, NULL), 0);
  char *page = report("auto.json", "auto.html");
  cJSON *d = json_file("auto.json");
  const cJSON *pr = cJSON_GetObjectItem(d, "precision");
  const cJSON *rn = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "scenario"), "run");
  char want[256];
  snprintf(want, sizeof want, "%.0f replications, %.0f events; warm-up %.0f partitions (chosen by mser-5); precision: "
           "target 0.01, reached %.3g (%s", jnum(d, "replications", NULL), jnum(d, "events", NULL),
           jnum(rn, "warmup", NULL), jnum(pr, "reached", NULL),
           cJSON_IsTrue(cJSON_GetObjectItem(pr, "met")) ? "met" : "not met");
  ck_assert_msg(strstr(page, want), "no \"%s\" in %s", want, strstr(page, "class=\"note\""));
  cJSON_Delete(d);
  free(page), free(a), free(cfg);
}
END_TEST

/* A measurement's report: its nvidia-smi figure is shown beside the kernel-busy one. */
START_TEST(measurement_shows_nvml) {
  char *m = src("docs/data/measure/h200/seed-call-w2.json");
  char *page = report(m, "m.html");
  char *t = slurp(m);
  cJSON *d = cJSON_Parse(t);
  ck_assert_ptr_nonnull(d);
  const cJSON *gn = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "metrics"), "gpu_util_nvml");
  ck_assert_int_eq(cJSON_GetArraySize(gn), 1);
  ck_assert_ptr_nonnull(strstr(page, "<h2>Measurement: "));
  ck_assert_double_eq(cell_after(page, "data-key=\"metrics.gpu_util_nvml.0\""), cJSON_GetArrayItem(gn, 0)->valuedouble);
  cJSON_Delete(d);
  free(t), free(page), free(m);
}
END_TEST

/* The plan's frontier: plan's CSV marks it, and the page lists exactly those rows. */
START_TEST(plan_frontier_is_the_csv_frontier) {
  char *page = report("plan.csv", "plan.html"), *csv = tmpfile_text("plan.csv");
  ck_assert_msg(strstr(csv, ",meets,frontier,limited_by,"), "%.300s", csv);
  int nfr = 0;
  for (char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
    /* gpus,workers,batch,mutex,cores,mem,simulated,pph,p99,util,meets,frontier,... */
    int f = 0;
    const char *c = l + 1;
    for (int k = 0; k < 11; k++) c = strchr(c, ',') + 1;
    f = *c == '1';
    nfr += f;
  }
  ck_assert_int_gt(nfr, 0);
  const char *t = strstr(page, "<table class=\"frontier\"");
  ck_assert_ptr_nonnull(t);
  ck_assert_int_eq(count(t, "<tr>") - 1, nfr); /* less the header row */
  char want[64];
  snprintf(want, sizeof want, "%d on the frontier", nfr);
  ck_assert_msg(strstr(page, want), "no \"%s\"", want);
  ck_assert_ptr_nonnull(strstr(page, "The cheapest configuration that meets the target is"));
  free(page), free(csv);
}
END_TEST

/* A sweep reads the same from its JSON and its CSV; the page is the same bytes twice. */
START_TEST(sweep_json_and_csv_agree_and_pages_repeat) {
  char *a = report("sweep.json", "sj.html"), *b = report("sweep.csv", "sc.html"), *c = report("sweep.json", "sj2.html");
  ck_assert_str_eq(a, c);
  const char *ra = strstr(a, "class=\"reading\""), *rb = strstr(b, "class=\"reading\"");
  ck_assert_ptr_nonnull(ra);
  ck_assert_ptr_nonnull(rb);
  ck_assert_int_eq(strncmp(ra, rb, (size_t)(strstr(ra, "</figcaption>") - ra)), 0);
  ck_assert_ptr_nonnull(strstr(a, "system.workers_per_gpu (workers per GPU)"));
  free(a), free(b), free(c);
}
END_TEST

/* The tornado plot: one bar row per effect, largest on top, and its reading. */
START_TEST(sensitivity_tornado) {
  char *page = report("sens.json", "sens.html");
  cJSON *d = json_file("sens.json");
  const cJSON *ef = cJSON_GetObjectItem(d, "effects");
  const char *top = cJSON_GetObjectItem(cJSON_GetArrayItem(ef, 0), "input")->valuestring;
  char want[160];
  snprintf(want, sizeof want, "%s moves throughput the most", top);
  ck_assert_msg(strstr(page, want), "no \"%s\"", want);
  const char *t = strstr(page, "<table class=\"effects\"");
  ck_assert_ptr_nonnull(t);
  ck_assert_int_eq(count(t, "<tr>") - 1, cJSON_GetArraySize(ef));
  cJSON_Delete(d);
  free(page);
}
END_TEST

/* The timeline shows every worker's lanes and reads the excerpt. */
START_TEST(timeline_lanes) {
  char *page = report("--spans run.jsonl", "tl.html");
  ck_assert_ptr_nonnull(strstr(page, ">worker 0 lock<"));
  ck_assert_ptr_nonnull(strstr(page, ">worker 1 CPU<"));
  ck_assert_ptr_nonnull(strstr(page, ">GPU 0 busy<"));
  ck_assert_ptr_nonnull(strstr(page, "the GPU is busy"));
  ck_assert_int_gt(count(page, "mutex_held: "), 2);
  free(page);
}
END_TEST

/* A measurement's spans: the GPU lane is its kernels; memcpys are left out. */
START_TEST(timeline_from_kernels) {
  char *p = xasprintf("%s/k.jsonl", tmpdir);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"schema\":\"provesim.spans/1\",\"source\":\"prover\",\"scenario\":\"k\",\"t_unit\":\"s\"}\n", f);
  for (int c = 0; c < 8; c++) {
    double t = 2.0 * c;
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"worker\":%d,\"call\":%d,\"phase\":\"mutex_held\",\"resource\":\"none\","
               "\"t0\":%.1f,\"t1\":%.1f}\n", c % 2, c, t, t + 2);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"worker\":%d,\"call\":%d,\"phase\":\"msm\",\"resource\":\"gpu\","
               "\"t0\":%.1f,\"t1\":%.1f}\n", c % 2, c, t, t + 1.5);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"kind\":\"kernel\",\"name\":\"k%d\",\"t0\":%.1f,\"t1\":%.1f}\n", c, t, t + 1);
    fprintf(f, "{\"rep\":0,\"gpu\":0,\"kind\":\"memcpy\",\"name\":\"HtoD\",\"t0\":%.1f,\"t1\":%.1f}\n", t + 1,
            t + 1.2);
  }
  fclose(f);
  char *page = report("k.jsonl", "k.html");
  ck_assert_ptr_nonnull(strstr(page, ">GPU 0 kernels<"));
  ck_assert_ptr_null(strstr(page, "HtoD"));
  /* The excerpt starts at call 4 (2 x 2 workers), at 8 s, and lasts four mean calls (8 s):
   * kernels of 1 s every 2 s, the lock always held. */
  ck_assert_msg(strstr(page, "From 8.0 s to 16.0 s the GPU is busy 50.0% of the time and some worker holds the lock "
                             "100.0% of it"), "%s", strstr(page, "class=\"reading\""));
  free(page), free(p);
}
END_TEST

/* Bad input: exit 2, a message naming the file (and line where there is one), no page. */
START_TEST(errors_name_the_file_and_write_nothing) {
  static const struct {
    const char *name, *text, *msg;
  } bad[] = {
      {"broken.json", "{\"schema\": \"provesim.report/1\",\n  \"metrics\": {oops}}", "broken.json:2:"},
      {"broken.json", "{\"schema\": \"provesim.report/1\",\n  \"metrics\": {oops}}",
       "expected a JSON document, got invalid JSON"},
      {"other.json", "{\"schema\": \"something/2\"}", "other.json: schema: expected provesim.report/1"},
      {"two.json", "{\"schema\": \"provesim.report/1\"}\n{}", "two.json:2:1: expected one JSON document"},
      {"nometrics.json", "{\"schema\": \"provesim.report/1\"}", "nometrics.json: metrics.gpu_util_mean: expected"},
      {"text.txt", "hello\n", "text.txt:1: expected a provesim JSON document"},
      {"badnum.csv", "point,overrides,scenario,gpu_util,gpu_util_ci95,proofs_per_hour,proofs_per_hour_ci95,"
                     "limited_by\n0,,s,0.5,,100,,x\n1,,s,half,,100,,x\n", "badnum.csv:3: gpu_util: expected a number"},
      {"short.csv", "gpus,workers_per_gpu,batch,mutex\n1,2,3\n", "short.csv:2: expected 4 fields"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *p = xasprintf("%s/%s", tmpdir, bad[i].name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(bad[i].text, f);
    fclose(f);
    char *a = xasprintf("report run.json %s -o bad.html", bad[i].name), *err = NULL;
    ck_assert_int_eq(run(a, NULL, &err), 2);
    ck_assert_msg(strstr(err, bad[i].msg), "%s: want \"%s\", got: %s", bad[i].name, bad[i].msg, err);
    ck_assert_msg(!exists("bad.html"), "%s: a page was written", bad[i].name);
    free(p), free(a), free(err);
  }
  char *err = NULL;
  ck_assert_int_eq(run("report missing.json -o bad.html", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "missing.json: cannot open"));
  free(err);
  ck_assert_int_eq(run("report run.json -o nodir/x.html", NULL, &err), 2);
  free(err);
  ck_assert_int_eq(run("report run.json", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "expected -o REPORT.html"));
  free(err);
  /* A page that cannot be written is a failed run, never a success. */
  ck_assert_int_eq(run("report run.json -o /dev/full", NULL, &err), 1);
  free(err);
  char *out = NULL;
  ck_assert_int_eq(run("report --help", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "example:"));
  free(out);
}
END_TEST

int main(void) {
  Suite *su = suite_create("report");
  TCase *tc = tcase_create("report");
  tcase_add_unchecked_fixture(tc, inputs_setup, inputs_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, every_plot_has_axes_and_a_reading);
  tcase_add_test(tc, numbers_are_the_documents);
  tcase_add_test(tc, run_line);
  tcase_add_test(tc, measurement_shows_nvml);
  tcase_add_test(tc, plan_frontier_is_the_csv_frontier);
  tcase_add_test(tc, sweep_json_and_csv_agree_and_pages_repeat);
  tcase_add_test(tc, sensitivity_tornado);
  tcase_add_test(tc, timeline_lanes);
  tcase_add_test(tc, timeline_from_kernels);
  tcase_add_test(tc, errors_name_the_file_and_write_nothing);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf;
}
