/* End-to-end tests of the provesim binary (PROVESIM_BIN): the seed scenario's headline
 * numbers, byte-identical reports whatever the thread count, exit code 2 and no output
 * files on bad input, spans that agree with the report, and the trace export. */
#define _GNU_SOURCE
#include "ck.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.h"
#include "spans.h"
#include "util.h"

static double util_of(const char *json) {
  cJSON *d = cJSON_Parse(json);
  ck_assert_ptr_nonnull(d);
  cJSON *m = cJSON_GetObjectItem(d, "metrics");
  double u = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "gpu_util"), 0)->valuedouble;
  cJSON_Delete(d);
  return u;
}

START_TEST(seed_scenario_matches_the_field) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *args = xasprintf("simulate %s --json", cfg), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  double call = util_of(out);
  ck_assert_msg(call >= 0.40 && call <= 0.57, "whole-call lock: GPU utilization %.4f outside the field's 40-57%%", call);
  free(out);
  free(args);
  args = xasprintf("simulate %s --json --set system.mutex=kernels", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  double kern = util_of(out);
  ck_assert_msg(kern > call + 0.2, "kernels lock: %.4f, whole call: %.4f", kern, call);
  free(out);
  free(args);
  free(cfg);
}
END_TEST

START_TEST(json_identical_across_threads) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *a1 = xasprintf("simulate %s --json --threads 1 --set run.replications=6", cfg);
  char *a2 = xasprintf("simulate %s --json --threads 3 --set run.replications=6", cfg);
  char *o1, *o2;
  ck_assert_int_eq(run(a1, &o1, NULL), 0);
  ck_assert_int_eq(run(a2, &o2, NULL), 0);
  ck_assert_str_eq(o1, o2);
  ck_assert_ptr_nonnull(strstr(o1, "\"schema\":\t\"provesim.report/1\""));
  free(o1);
  free(o2);
  free(a1);
  free(a2);
  free(cfg);
}
END_TEST

START_TEST(bad_input_exit_2_and_no_output) {
  const char *bad[] = {"tests/data/scn/bad-unknown-key.yaml", "tests/data/scn/bad-range.yaml",
                       "tests/data/scn/bad-malformed.yaml", "tests/data/scn/bad-missing-model.yaml"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *cfg = src(bad[i]);
    char *args = xasprintf("simulate %s --json -o out.json --spans out.jsonl --trace out.trace.json", cfg), *err;
    ck_assert_int_eq(run(args, NULL, &err), 2);
    /* The message names the file and a line:col. */
    const char *base = strrchr(bad[i], '/') + 1;
    ck_assert_msg(strstr(err, base) != NULL, "stderr does not name %s: %s", base, err);
    ck_assert_msg(!exists("out.json") && !exists("out.jsonl") && !exists("out.trace.json"), "partial output left");
    free(err);
    free(args);
    free(cfg);
  }
  /* An output path that is a symbolic link keeps the link and fills its target (a
   * rename would have replaced the link, as it once replaced /dev/null). */
  {
    char *cfg2 = src("configs/seed-coarse-mutex.yaml");
    char *mk = xasprintf("cd %s && echo old > real.json && ln -s real.json link.json", tmpdir);
    ck_assert_int_eq(system(mk), 0);
    char *args2 = xasprintf("simulate %s --json -o link.json --set run.replications=2", cfg2);
    ck_assert_int_eq(run(args2, NULL, NULL), 0);
    char *lp = xasprintf("%s/link.json", tmpdir);
    struct stat st;
    ck_assert_int_eq(lstat(lp, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    char *txt = tmpfile_text("real.json");
    ck_assert_ptr_nonnull(strstr(txt, "provesim.report/1"));
    free(txt);
    free(lp);
    free(args2);
    free(mk);
    free(cfg2);
  }
  /* A bad override and a bad option. */
  char *cfg = src("configs/seed-coarse-mutex.yaml"), *err;
  char *args = xasprintf("simulate %s --set system.workers_per_gpu=two -o out.json", cfg);
  ck_assert_int_eq(run(args, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "system.workers_per_gpu"));
  ck_assert(!exists("out.json"));
  free(err);
  free(args);
  args = xasprintf("simulate %s --frobnicate", cfg);
  ck_assert_int_eq(run(args, NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown option --frobnicate"));
  free(err);
  free(args);
  free(cfg);
}
END_TEST

typedef struct acc {
  double *g0, *g1;
  size_t ng;
  double *m0, *m1;
  size_t nm;
  double tmax;
} acc;

static int on_rec(void *ctx, const span_rec *r) {
  acc *a = ctx;
  if (r->kind != SPAN_PHASE) return 0;
  if (r->t1 > a->tmax) a->tmax = r->t1;
  if (!strcmp(r->phase, "mutex_held")) {
    a->m0 = xrealloc(a->m0, (a->nm + 1) * sizeof(double));
    a->m1 = xrealloc(a->m1, (a->nm + 1) * sizeof(double));
    a->m0[a->nm] = r->t0;
    a->m1[a->nm++] = r->t1;
  } else if (r->resource && !strcmp(r->resource, "gpu")) {
    a->g0 = xrealloc(a->g0, (a->ng + 1) * sizeof(double));
    a->g1 = xrealloc(a->g1, (a->ng + 1) * sizeof(double));
    a->g0[a->ng] = r->t0;
    a->g1[a->ng++] = r->t1;
  }
  return 0;
}

START_TEST(spans_agree_with_report) {
  char *cfg = src("configs/seed-coarse-mutex.yaml"), *out;
  char *args = xasprintf("simulate %s --json --spans run.jsonl --trace run.trace.json --set run.replications=1 "
                         "--set run.warmup=0 --set workload.partitions=300",
                         cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  double u = util_of(out);
  acc a = {0};
  ps_err e;
  char *sp = xasprintf("%s/run.jsonl", tmpdir);
  ck_assert_int_eq(spans_read(sp, NULL, on_rec, &a, &e), PS_OK);
  ck_assert(a.ng > 0 && a.nm > 0);
  /* Exclusive GPU: GPU spans never overlap, so busy = sum of durations; window = [0, last]. */
  double busy = 0;
  for (size_t i = 0; i < a.ng; i++) busy += a.g1[i] - a.g0[i];
  ck_assert_double_eq_tol(busy / a.tmax, u, 1e-9);
  /* Mutex-held spans never overlap on the GPU, and with mutex: call every GPU span lies
   * inside one. */
  for (size_t i = 0; i < a.nm; i++)
    for (size_t j = i + 1; j < a.nm; j++) ck_assert(a.m1[i] <= a.m0[j] || a.m1[j] <= a.m0[i]);
  for (size_t i = 0; i < a.ng; i++) {
    int in = 0;
    for (size_t j = 0; j < a.nm && !in; j++) in = a.m0[j] <= a.g0[i] && a.g1[i] <= a.m1[j];
    ck_assert(in);
  }
  /* The trace is Chrome Trace JSON with slices and a GPU-busy counter. */
  char *tp = xasprintf("%s/run.trace.json", tmpdir), *txt = NULL;
  size_t n = 0;
  FILE *f = fopen(tp, "r");
  ck_assert_ptr_nonnull(f);
  getdelim(&txt, &n, 0, f);
  fclose(f);
  cJSON *d = cJSON_Parse(txt);
  ck_assert_ptr_nonnull(d);
  cJSON *ev = cJSON_GetObjectItem(d, "traceEvents"), *it;
  int nx = 0, nc = 0;
  cJSON_ArrayForEach(it, ev) {
    const char *ph = cJSON_GetObjectItem(it, "ph")->valuestring;
    nx += !strcmp(ph, "X");
    nc += !strcmp(ph, "C");
  }
  ck_assert_int_gt(nx, 300 * 6);
  ck_assert_int_gt(nc, 10);
  /* `provesim trace` on the spans gives the same document. */
  char *a2 = xasprintf("trace run.jsonl -o run2.trace.json");
  ck_assert_int_eq(run(a2, NULL, NULL), 0);
  char *tp2 = xasprintf("%s/run2.trace.json", tmpdir), *txt2 = NULL;
  n = 0;
  f = fopen(tp2, "r");
  getdelim(&txt2, &n, 0, f);
  fclose(f);
  /* Same events (timestamps may differ in the last printed digit: the spans file keeps
   * nanoseconds). */
  cJSON *d2 = cJSON_Parse(txt2);
  ck_assert_ptr_nonnull(d2);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d2, "traceEvents")), cJSON_GetArraySize(ev));
  cJSON_Delete(d2);
  /* Gzipped spans (as committed under docs/data/) are read through zlib. */
  char *gz = xasprintf("cd %s && gzip -k run.jsonl", tmpdir);
  ck_assert_int_eq(system(gz), 0);
  free(gz);
  ck_assert_int_eq(run("trace run.jsonl.gz -o run3.trace.json", NULL, NULL), 0);
  char *t3 = tmpfile_text("run3.trace.json");
  cJSON *d3 = cJSON_Parse(t3);
  ck_assert_ptr_nonnull(d3);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(d3, "traceEvents")), cJSON_GetArraySize(ev));
  cJSON_Delete(d3);
  free(t3);
  char *err3 = NULL;
  ck_assert_int_eq(run("trace missing.jsonl.gz -o x3.json", NULL, &err3), 2);
  ck_assert_ptr_nonnull(strstr(err3, "missing.jsonl.gz: cannot open"));
  free(err3);
  /* A bounded trace: at most --max-spans spans (a GPU phase also has its copy on the GPU's
   * track), a note of what was left out; a window keeps only the spans that overlap it. */
  char *err4 = NULL;
  ck_assert_int_eq(run("trace run.jsonl -o run4.trace.json --max-spans 10", NULL, &err4), 0);
  ck_assert_msg(strstr(err4, "note: the trace holds the first 10 spans"), "%s", err4);
  free(err4);
  char *t4 = tmpfile_text("run4.trace.json");
  cJSON *d4 = cJSON_Parse(t4);
  ck_assert_ptr_nonnull(d4);
  int n4 = 0;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(d4, "traceEvents")) {
    const cJSON *ph = cJSON_GetObjectItem(it, "ph");
    if (!strcmp(ph->valuestring, "X") && !cJSON_GetObjectItem(it, "args")) n4++;
  }
  ck_assert_int_eq(n4, 10);
  cJSON_Delete(d4);
  free(t4);
  ck_assert_int_eq(run("trace run.jsonl -o run5.trace.json --from 2 --to 3", NULL, NULL), 0);
  char *t5 = tmpfile_text("run5.trace.json");
  cJSON *d5 = cJSON_Parse(t5);
  ck_assert_ptr_nonnull(d5);
  int n5 = 0;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(d5, "traceEvents")) {
    const cJSON *ph = cJSON_GetObjectItem(it, "ph");
    if (strcmp(ph->valuestring, "X")) continue;
    double ts = cJSON_GetObjectItem(it, "ts")->valuedouble, dur = cJSON_GetObjectItem(it, "dur")->valuedouble;
    ck_assert_msg(ts < 3e6 && ts + dur >= 2e6 - 1e-3, "slice [%g, %g) us outside the window", ts, ts + dur);
    n5++;
  }
  ck_assert_int_gt(n5, 0);
  cJSON_Delete(d5);
  free(t5);
  cJSON_Delete(d);
  free(txt);
  free(txt2);
  free(tp);
  free(tp2);
  free(a2);
  free(a.g0);
  free(a.g1);
  free(a.m0);
  free(a.m1);
  free(sp);
  free(out);
  free(args);
  free(cfg);
}
END_TEST

START_TEST(help_and_usage) {
  char *out, *err;
  ck_assert_int_eq(run("simulate --help", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "usage: provesim simulate SCENARIO"));
  free(out);
  ck_assert_int_eq(run("simulate", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "expected a scenario file"));
  free(err);
  ck_assert_int_eq(run("no-such-command", NULL, &err), 2);
  free(err);
  ck_assert_int_eq(run("trace missing.jsonl -o x.json", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "missing.jsonl"));
  ck_assert(!exists("x.json"));
  free(err);
  /* Every command's help: a usage line, the exit codes and an example; `provesim help CMD`
   * prints the same page. */
  static const char *const cmds[] = {"simulate", "sweep",   "plan",         "estimate", "calibrate", "validate",
                                     "trace",    "measure", "prover-bench", "prove",     "verify",   NULL};
  for (int i = 0; cmds[i]; i++) {
    char *a1 = xasprintf("%s --help", cmds[i]), *a2 = xasprintf("help %s", cmds[i]), *o2;
    ck_assert_int_eq(run(a1, &out, NULL), 0);
    ck_assert_int_eq(run(a2, &o2, NULL), 0);
    ck_assert_str_eq(out, o2);
    ck_assert_msg(!strncmp(out, "usage: provesim ", 16), "%s --help: no usage line", cmds[i]);
    ck_assert_msg(strstr(out, "exit codes:"), "%s --help: no exit codes", cmds[i]);
    ck_assert_msg(strstr(out, "example"), "%s --help: no example", cmds[i]);
    free(out), free(o2), free(a1), free(a2);
  }
  /* `--` ends the options: a scenario file named like an option can still be given. */
  char *det = src("tests/data/whatif/det.yaml");
  char *cp = xasprintf("cp %s %s/-odd.yaml", det, tmpdir);
  ck_assert_int_eq(system(cp), 0);
  ck_assert_int_eq(run("simulate -odd.yaml", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown option -odd.yaml"));
  free(err);
  ck_assert_int_eq(run("simulate --set run.replications=1 -- -odd.yaml", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "scenario  det-pipeline"));
  free(out), free(cp), free(det);
  ck_assert_int_eq(run("help no-such-command", NULL, &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown command 'no-such-command'"));
  free(err);
}
END_TEST

/* The table lists 16 GPUs and says where the others are; the loader takes up to
 * PS_MAX_GPUS (1024) and names the limit past it. */
START_TEST(many_gpus_table_and_limit) {
  char *cfg = src("configs/capacity-8gpu.yaml");
  char *args = xasprintf("simulate %s --set system.gpus=20 --set workload.partitions=200 --set run.replications=1 "
                         "--set run.warmup=10", cfg), *out, *err;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "GPU utilization, GPU 15 "));
  ck_assert_ptr_null(strstr(out, "GPU utilization, GPU 16 "));
  ck_assert_ptr_nonnull(strstr(out, "(GPUs 16 to 19 not shown: --json lists every GPU)"));
  free(out);
  free(args);
  args = xasprintf("simulate %s --set system.gpus=1025", cfg);
  ck_assert_int_eq(run(args, NULL, &err), 2);
  ck_assert_msg(strstr(err, "system.gpus: expected an integer from 1 to 1024, got 1025"), "%s", err);
  free(err);
  free(args);
  free(cfg);
}
END_TEST

/* Perfetto draws one thread per (pid, tid) and drops or misnests slices that overlap on
 * it: no track of a trace may have two slices that overlap, counted in whole nanoseconds
 * as Perfetto reads them (start + duration). Checked on the seed scenario and on the
 * H200 measurement in docs/data, whose kernels on several streams overlapped before. */
static int cmp_ll2(const void *a, const void *b) {
  const long long *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return x[2] < y[2] ? -1 : x[2] > y[2];
}

static int trace_overlaps(const char *file, int *nslices) {
  char *txt = tmpfile_text(file);
  cJSON *d = cJSON_Parse(txt);
  ck_assert_ptr_nonnull(d);
  cJSON *ev = cJSON_GetObjectItem(d, "traceEvents"), *it;
  int n = cJSON_GetArraySize(ev), k = 0;
  long long *v = xmalloc((size_t)(n + 1) * 4 * sizeof *v); /* pid*2^20+tid, start, end */
  cJSON_ArrayForEach(it, ev) {
    if (strcmp(cJSON_GetObjectItem(it, "ph")->valuestring, "X")) continue;
    long long ts = llround(cJSON_GetObjectItem(it, "ts")->valuedouble * 1000);
    long long dur = llround(cJSON_GetObjectItem(it, "dur")->valuedouble * 1000);
    ck_assert_int_ge(dur, 0);
    v[3 * k] = (long long)cJSON_GetObjectItem(it, "pid")->valueint * (1 << 20) + cJSON_GetObjectItem(it, "tid")->valueint;
    v[3 * k + 1] = ts;
    v[3 * k + 2] = ts + dur;
    k++;
  }
  qsort(v, (size_t)k, 3 * sizeof *v, cmp_ll2);
  int bad = 0;
  for (int i = 1; i < k; i++)
    if (v[3 * i] == v[3 * (i - 1)] && v[3 * i + 1] < v[3 * (i - 1) + 2]) bad++;
  *nslices = k;
  free(v);
  cJSON_Delete(d);
  free(txt);
  return bad;
}

START_TEST(trace_tracks_never_overlap) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *args = xasprintf("simulate %s --spans seed.jsonl --trace seed.trace.json", cfg);
  ck_assert_int_eq(run(args, NULL, NULL), 0);
  int n = 0, bad = trace_overlaps("seed.trace.json", &n);
  ck_assert_msg(n >= 20000 && bad == 0, "seed trace: %d of %d slices overlap their neighbour", bad, n);
  char *h200 = src("docs/data/measure/h200-g16-v5/g16-kernels-w2.spans.jsonl.gz");
  char *a2 = xasprintf("trace %s -o h200.trace.json", h200);
  ck_assert_int_eq(run(a2, NULL, NULL), 0);
  bad = trace_overlaps("h200.trace.json", &n);
  ck_assert_msg(n > 1000 && bad == 0, "H200 trace: %d of %d slices overlap their neighbour", bad, n);
  free(a2), free(h200), free(args), free(cfg);
}
END_TEST

/* A phase span's cpu_s (measure's) becomes its slice's args, on its worker's track and on
 * the GPU phases' copy beside the worker; a span without it has no cpu_s. */
START_TEST(trace_shows_cpu_seconds) {
  char *p = xasprintf("%s/cpu.jsonl", tmpdir);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "{\"schema\":\"provesim.spans/1\",\"source\":\"prover\",\"scenario\":\"x\",\"t_unit\":\"s\"}\n"
             "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"phase\":\"synth\",\"resource\":\"cpu\",\"threads\":2,"
             "\"cpu_s\":0.25,\"t0\":0,\"t1\":0.15}\n"
             "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"phase\":\"msm\",\"resource\":\"gpu\",\"cpu_s\":0.05,"
             "\"t0\":0.15,\"t1\":0.2}\n"
             "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"phase\":\"epilogue\",\"resource\":\"cpu\",\"t0\":0.2,"
             "\"t1\":0.21}\n");
  fclose(f);
  free(p);
  ck_assert_int_eq(run("trace cpu.jsonl -o cpu.trace.json", NULL, NULL), 0);
  char *t = tmpfile_text("cpu.trace.json");
  ck_assert_msg(strstr(t, "\"name\":\"synth\",\"cat\":\"cpu\"") && strstr(t, "\"args\":{\"cpu_s\":0.250000}"), "%s", t);
  ck_assert_msg(strstr(t, "\"args\":{\"cpu_s\":0.050000}") && strstr(t, "\"args\":{\"worker\":0,\"cpu_s\":0.050000}"),
                "%s", t);
  const char *ep = strstr(t, "\"name\":\"epilogue\"");
  ck_assert_ptr_nonnull(ep);
  const char *eol = strchr(ep, '\n');
  ck_assert_msg(!memmem(ep, eol ? (size_t)(eol - ep) : strlen(ep), "cpu_s", 5), "%.200s", ep);
  free(t);
}
END_TEST

/* Outputs whole or none, and never exit 0 for an output that was lost: a report that
 * cannot reach standard output (/dev/full) is exit 1; an output path in a folder that
 * does not exist is exit 2 before any work; when the report file fails, the spans file
 * of the same run is not left behind. */
static int sh(const char *fmt, const char *a, char **err) {
  char *efile = xasprintf("%s/stderr", tmpdir);
  char *inner = xasprintf(fmt, bin(), a);
  char *cmd = xasprintf("cd %s && %s 2>%s", tmpdir, inner, efile);
  int st = system(cmd);
  if (err) *err = slurp(efile);
  free(cmd), free(inner), free(efile);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(outputs_whole_or_none) {
  char *cfg = src("configs/seed-coarse-mutex.yaml"), *err;
  ck_assert_int_eq(sh("%s simulate %s >/dev/full", cfg, &err), 1);
  ck_assert_msg(strstr(err, "standard output: cannot write"), "%s", err);
  free(err);
  ck_assert_int_eq(sh("%s simulate %s -o no-such-folder/r.json --spans s1.jsonl", cfg, &err), 2);
  ck_assert_msg(strstr(err, "no-such-folder/r.json: cannot write: the folder no-such-folder does not exist"), "%s", err);
  ck_assert(!exists("s1.jsonl"));
  free(err);
  ck_assert_int_eq(sh("%s simulate %s -o /dev/full --spans s2.jsonl --trace t2.json", cfg, &err), 1);
  ck_assert(!exists("s2.jsonl") && !exists("t2.json"));
  char *left = xasprintf("ls %s | grep -c tmp > /dev/null", tmpdir);
  ck_assert_int_ne(system(left), 0); /* no s2.jsonl.tmp.PID either */
  free(left);
  free(err);
  ck_assert_int_eq(sh("%s simulate %s -o . ", cfg, &err), 2);
  ck_assert_msg(strstr(err, ".: cannot write: it is a folder"), "%s", err);
  free(err);
  /* The other commands that write: trace, calibrate (a model and a table), validate. */
  ck_assert_int_eq(sh("%s simulate %s --set run.replications=2 --spans s3.jsonl >/dev/null", cfg, NULL), 0);
  ck_assert_int_eq(sh("%s trace s3.jsonl -o no-such-folder/t.json%s", "", &err), 2);
  ck_assert_msg(strstr(err, "the folder no-such-folder does not exist"), "%s", err);
  free(err);
  char *model = src("models/seed-field.yaml");
  ck_assert_int_eq(sh("%s calibrate s3.jsonl --model %s -o m3.yaml >/dev/full", model, &err), 1);
  ck_assert_msg(strstr(err, "standard output: cannot write"), "%s", err);
  ck_assert(!exists("m3.yaml"));
  free(err);
  ck_assert_int_eq(sh("%s calibrate s3.jsonl --model %s -o no-such-folder/m.yaml", model, &err), 2);
  free(err);
  char *vargs = xasprintf("%s --measured s3.jsonl --set run.replications=2", cfg);
  ck_assert_int_eq(sh("%s validate %s >/dev/full", vargs, &err), 1);
  ck_assert_msg(strstr(err, "standard output: cannot write"), "%s", err);
  free(err);
  free(vargs), free(model);
  /* The what-if commands: sweep checks --csv before it runs the grid (it used to run the
   * whole sweep, then fail); estimate, plan and sweep report a lost standard output. */
  ck_assert_int_eq(sh("%s sweep %s --vary system.workers_per_gpu=1..3 --csv no-such-folder/x.csv", cfg, &err), 2);
  ck_assert_msg(strstr(err, "no-such-folder/x.csv: cannot write"), "%s", err);
  free(err);
  ck_assert_int_eq(sh("%s estimate %s --set run.replications=2 >/dev/full", cfg, &err), 1);
  free(err);
  ck_assert_int_eq(sh("%s plan %s --target proofs_per_hour=2000 --set run.replications=2 >/dev/full", cfg, &err), 1);
  free(err);
  ck_assert_int_eq(sh("%s sweep %s --vary system.workers_per_gpu=1..2 --set run.replications=2 --csv sw.csv >/dev/full",
                      cfg, &err), 1);
  ck_assert(!exists("sw.csv"));
  free(err);
  /* prove and verify: one exit-code rule (a missing GPU is a failed run, exit 1, as for
   * measure and prover-bench; an --out that cannot be made is bad input, before the setup). */
  ck_assert_int_eq(sh("%s prove --constraints 2^6 --out no-such-folder/p%s", "", &err), 2);
  ck_assert_msg(strstr(err, "--out no-such-folder/p: cannot make the folder"), "%s", err);
  free(err);
  ck_assert_int_eq(sh("%s prove --constraints 2^6 --out p6 >/dev/full%s", "", &err), 1);
  free(err);
  ck_assert_int_eq(sh("%s verify p6 >/dev/full%s", "", &err), 1);
  ck_assert_msg(strstr(err, "standard output: cannot write"), "%s", err);
  free(err);
  ck_assert_int_eq(sh("%s verify p6%s", "", NULL), 0);
  /* SIGTERM in the middle of a run: the temporary spans file goes with the process. */
  char *kill = xasprintf("( %s simulate %s --set workload.partitions=2000000 --set run.replications=4 --spans sig.jsonl "
                         ">/dev/null & p=$!; for i in $(seq 100); do [ -e sig.jsonl.tmp.$p ] && break; sleep 0.05; done; "
                         "[ -e sig.jsonl.tmp.$p ] || echo never-started >&2; kill -TERM $p; wait $p; echo $? >&2 )",
                         "%s", cfg);
  ck_assert_int_eq(sh(kill, "", &err), 0);
  ck_assert_msg(strstr(err, "143") && !strstr(err, "never-started"), "%s", err);
  ck_assert(!exists("sig.jsonl"));
  char *left2 = xasprintf("ls %s | grep -q 'sig.jsonl'", tmpdir);
  ck_assert_int_ne(system(left2), 0);
  free(left2), free(kill), free(err);
  int rc = sh("%s prove --backend cuda --constraints 2^6 --out p7%s", "", &err);
  ck_assert_msg(rc == 0 || (rc == 1 && strstr(err, "use --backend cpu")), "prove --backend cuda: exit %d: %s", rc, err);
  free(err);
  free(cfg);
}
END_TEST

/* simulate, sweep and measure write the same CSV columns, so their files concatenate. */
START_TEST(csv_same_columns) {
  char *cfg = src("configs/seed-coarse-mutex.yaml"), *mcfg = src("tests/data/measure/const-seed.yaml");
  char *a1 = xasprintf("simulate %s --set run.replications=2 --csv", cfg);
  char *a2 = xasprintf("sweep %s --set run.replications=2 --vary system.workers_per_gpu=1..2 -q --csv sw.csv", cfg);
  char *a3 = xasprintf("measure %s --backend cpu --set workload.partitions=12 --set run.warmup=2 --csv", mcfg);
  char *o1, *o3;
  ck_assert_int_eq(run(a1, &o1, NULL), 0);
  ck_assert_int_eq(run(a2, NULL, NULL), 0);
  ck_assert_int_eq(run(a3, &o3, NULL), 0);
  char *o2 = tmpfile_text("sw.csv");
  size_t h = strcspn(o1, "\n");
  ck_assert_msg(h > 100 && !strncmp(o1, o2, h + 1) && !strncmp(o1, o3, h + 1), "headers differ:\n%s\n%s\n%s", o1, o2, o3);
  ck_assert_ptr_nonnull(strstr(o1, "\n0,run.replications=2,seed-coarse-mutex,"));
  ck_assert_ptr_nonnull(strstr(o2, "\n1,run.replications=2; system.workers_per_gpu=2,seed-coarse-mutex,1,2,"));
  ck_assert_ptr_nonnull(strstr(o3, ",prover,,phase-spans\n"));
  free(o1), free(o2), free(o3), free(a1), free(a2), free(a3), free(cfg), free(mcfg);
}
END_TEST

int main(void) {
  Suite *su = suite_create("cli");
  TCase *tc = tcase_create("simulate");
  tcase_add_checked_fixture(tc, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, seed_scenario_matches_the_field);
  tcase_add_test(tc, json_identical_across_threads);
  tcase_add_test(tc, bad_input_exit_2_and_no_output);
  tcase_add_test(tc, spans_agree_with_report);
  tcase_add_test(tc, help_and_usage);
  tcase_add_test(tc, many_gpus_table_and_limit);
  tcase_add_test(tc, trace_tracks_never_overlap);
  tcase_add_test(tc, trace_shows_cpu_seconds);
  tcase_add_test(tc, outputs_whole_or_none);
  tcase_add_test(tc, csv_same_columns);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
