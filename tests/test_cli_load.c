/* End-to-end tests of issue 16's workload features: the stability warning of simulate,
 * sweep and plan when arrivals offer more than the system can serve, replayed arrival
 * traces (simulate and measure), and the warm-up MSER-5 chooses (run.warmup: auto). Runs
 * the provesim binary (PROVESIM_BIN) in a temporary folder, as tests/test_cli.c does. */
#define _GNU_SOURCE
#include "ck.h"
#include <cjson/cJSON.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "seed.h"
#include "util.h"

/* The seed scenario with Poisson arrivals of proofs of 10 partitions at pph per hour,
 * short (2 replications of 600 partitions), as `--set` arguments. */
static char *seed_open(double pph, const char *extra) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *a = xasprintf("%s --set 'workload.arrivals={process: poisson, proofs_per_hour: %.17g, partitions_per_proof: 10}' "
                      "--set run.replications=2 --set workload.partitions=600 --set run.warmup=50 %s",
                      cfg, pph, extra ? extra : "");
  free(cfg);
  return a;
}

/* The report's stability member (borrowed from doc), or NULL. */
static cJSON *stability(cJSON *doc) { return cJSON_GetObjectItem(doc, "stability"); }

static double num(cJSON *o, const char *k) {
  cJSON *x = cJSON_GetObjectItem(o, k);
  ck_assert_msg(x && cJSON_IsNumber(x), "member %s is not a number", k);
  return x->valuedouble;
}

/* The example: 200 proofs/h of 10 partitions offer 0.556 partitions/s to a system
 * that serves at most 0.246: the text, the JSON and standard error say so. */
START_TEST(overload_warns) {
  char *sc = seed_open(200, NULL);
  char *args = xasprintf("simulate %s", sc), *out, *err;
  ck_assert_int_eq(run(args, &out, &err), 0);
  ck_assert_msg(strstr(out, "\nload      arrivals offer 0.5556 partitions/s, 225.6% of the capacity (at most 0.2463 "
                            "partitions/s by the asymptotic bounds)\n"), "%s", out);
  ck_assert_msg(strstr(out, "\nWARNING: unstable: the arrivals offer 0.5556 partitions/s") &&
                strstr(out, "the latency figures grow with the run length and describe no steady state\n"), "%s", out);
  ck_assert_str_eq(err, "");
  free(out), free(err), free(args);

  args = xasprintf("simulate %s --json", sc);
  ck_assert_int_eq(run(args, &out, &err), 0);
  ck_assert_msg(strstr(err, "provesim simulate: warning: unstable: ") && !strchr(strchr(err, '\n') + 1, '\n'),
                "one line on stderr: %s", err);
  cJSON *doc = cJSON_Parse(out);
  ck_assert_ptr_nonnull(doc);
  cJSON *st = stability(doc);
  ck_assert_ptr_nonnull(st);
  ck_assert_double_eq_tol(num(st, "offered_pps"), 2000.0 / 3600, 1e-12);
  ck_assert_double_eq_tol(num(st, "capacity_pps"), 1 / 4.06, 1e-3);
  ck_assert_double_eq_tol(num(st, "utilization_offered"), num(st, "offered_pps") / num(st, "capacity_pps"), 1e-12);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(st, "unstable")));
  ck_assert_str_eq(cJSON_GetObjectItem(st, "capacity_bound")->valuestring, "asymptotic bounds");
  cJSON_Delete(doc);
  free(out), free(err), free(args);

  /* CSV: offered_pps, capacity_pps and unstable after limited_by. */
  args = xasprintf("simulate %s --csv", sc);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, ",limited_by,offered_pps,capacity_pps,unstable,replications,") &&
                strstr(out, ",0.555555556,0.246305419,1,2,"), "%s", out);
  free(out), free(args), free(sc);
}
END_TEST

/* A light load: the utilization is shown, nothing warns. */
START_TEST(light_load_is_quiet) {
  char *sc = seed_open(20, NULL);
  char *args = xasprintf("simulate %s", sc), *out, *err;
  ck_assert_int_eq(run(args, &out, &err), 0);
  ck_assert_msg(strstr(out, "\nload      arrivals offer 0.05556 partitions/s, 22.6% of the capacity"), "%s", out);
  ck_assert_msg(!strstr(out, "WARNING") && !strstr(out, "unstable"), "%s", out);
  ck_assert_str_eq(err, "");
  free(out), free(err), free(args);
  args = xasprintf("simulate %s --json", sc);
  ck_assert_int_eq(run(args, &out, &err), 0);
  ck_assert_str_eq(err, "");
  cJSON *doc = cJSON_Parse(out);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(stability(doc), "unstable")));
  cJSON_Delete(doc);
  free(out), free(err), free(args), free(sc);
  /* A closed backlog has no offered load: no member, no line, empty CSV cells. */
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  args = xasprintf("simulate %s --set run.replications=2 --json", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  doc = cJSON_Parse(out);
  ck_assert_ptr_null(stability(doc));
  cJSON_Delete(doc);
  free(out), free(args);
  args = xasprintf("simulate %s --set run.replications=2 --csv", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  /* 40 columns in the header and in the row; offered_pps, capacity_pps, unstable empty. */
  int commas[2] = {0, 0}, line = 0;
  for (const char *p = out; *p; p++) {
    if (*p == '\n') line++;
    else if (*p == ',' && line < 2) commas[line]++;
  }
  ck_assert_int_eq(commas[0], 39);
  ck_assert_int_eq(commas[1], 39);
  ck_assert_msg(strstr(out, ",,,,2,"), "%s", out);
  free(out), free(args), free(cfg);
}
END_TEST

/* At 99% of the capacity the load is shown and not flagged. */
START_TEST(load_at_99_percent_is_not_flagged) {
  double cap = 1 / 4.06; /* the seed model's whole-call lock: 4.06 s per partition */
  char *sc = seed_open(0.99 * cap * 3600 / 10, NULL);
  char *args = xasprintf("simulate %s --json", sc), *out, *err;
  ck_assert_int_eq(run(args, &out, &err), 0);
  ck_assert_str_eq(err, "");
  cJSON *doc = cJSON_Parse(out);
  cJSON *st = stability(doc);
  ck_assert_double_eq_tol(num(st, "capacity_pps"), cap, 1e-12);
  ck_assert_double_eq_tol(num(st, "utilization_offered"), 0.99, 1e-9);
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(st, "unstable")));
  cJSON_Delete(doc);
  free(out), free(err), free(args);
  args = xasprintf("simulate %s", sc);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, ", 99.0% of the capacity (at most 0.2463 partitions/s") && !strstr(out, "WARNING"), "%s",
                out);
  free(out), free(args), free(sc);
}
END_TEST

/* sweep: a load column with "!" on the unstable points, the footnote, and the CSV flag. */
START_TEST(sweep_flags_unstable_points) {
  char *sc = seed_open(80, NULL); /* 0.222 partitions/s: 90% of the whole-call lock's capacity */
  char *args = xasprintf("sweep %s --vary system.workers_per_gpu=1,2 --vary system.mutex=call,kernels "
                         "--set 'workload.arrivals.proofs_per_hour=100' --csv sw.csv --json sw.json", sc), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  /* 100 proofs/h = 0.278 partitions/s: over the call lock's 0.246, under the kernels'. */
  ck_assert_msg(strstr(out, "     load  limited by\n"), "%s", out);
  ck_assert_msg(strstr(out, " 112.8%!  "), "%s", out);
  ck_assert_msg(strstr(out, "\n! unstable: the arrivals offer more than the capacity"), "%s", out);
  char *csv = tmpfile_text("sw.csv"), *json = tmpfile_text("sw.json");
  /* One worker serves at most 1 / 4.06 s whatever the scope; two behind the kernels lock
   * twice that: three points are overloaded, one is not. */
  int n1 = 0, n0 = 0;
  for (const char *p = csv; (p = strstr(p, ",0.277777778,0.246305419,1,2,")); p++) n1++;
  for (const char *p = csv; (p = strstr(p, ",0.277777778,0.492610837,0,2,")); p++) n0++;
  ck_assert_msg(n1 == 3 && n0 == 1, "unstable flags %d, stable %d:\n%s", n1, n0, csv);
  cJSON *doc = cJSON_Parse(json);
  cJSON *pts = cJSON_GetObjectItem(doc, "points");
  ck_assert_int_eq(cJSON_GetArraySize(pts), 4);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(stability(cJSON_GetArrayItem(pts, 1)), "unstable")));
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(stability(cJSON_GetArrayItem(pts, 3)), "unstable")));
  cJSON_Delete(doc);
  free(csv), free(json), free(out), free(args), free(sc);
}
END_TEST

/* plan: with arrivals, configurations the target overloads are flagged in the frontier
 * and the CSV. Three GPUs of the supraseal model serve at most 3 / 1.82 partitions/s,
 * 593 proofs/h of 10 partitions: under the target of 600. */
START_TEST(plan_flags_overloaded_configurations) {
  char *cfg = src("configs/capacity-8gpu.yaml");
  char *args = xasprintf("plan %s --target proofs_per_hour=600 --budget gpus=3,cpu_cores=64 --max-workers 2 "
                         "--batches 1 --set run.replications=2 --csv plan.csv", cfg), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, "GPU      load  meets\n") && strstr(out, "101.1%!  no\n") &&
                strstr(out, "\n! unstable: the target's arrivals offer more than"), "%s", out);
  char *csv = tmpfile_text("plan.csv");
  ck_assert_msg(strstr(csv, ",limited_by,load,unstable\n") && strstr(csv, ",1.01111111,1\n"), "%s",
                csv);
  free(csv), free(out), free(args), free(cfg);
}
END_TEST

/* Writes text to tmpdir/rel. */
static void put(const char *rel, const char *text) {
  char *p = xasprintf("%s/%s", tmpdir, rel);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  free(p);
}

/* The report's member k, printed (caller frees). */
static char *member(const char *json, const char *k) {
  cJSON *d = cJSON_Parse(json);
  ck_assert_ptr_nonnull(d);
  char *t = cJSON_PrintUnformatted(cJSON_GetObjectItem(d, k));
  cJSON_Delete(d);
  return t;
}

/* A scenario of constant phase times (so the arrivals are the only draws) with Poisson
 * arrivals; then a CSV trace of exactly the times the engine draws for it (replication 0:
 * the first proof at 0, then the exponential gaps of its stream, written with 17 digits):
 * simulate gives the same metrics, byte for byte. rate_scale 2 doubles the offered load. */
START_TEST(trace_replays_poisson) {
  const double pph = 1500;
  const int parts = 3001, ppp = 2, np = (parts + ppp - 1) / ppp;
  char *scn = xasprintf("scenario: replay\n"
                        "model:\n  model: c\n  phases:\n"
                        "    - {name: prep, resource: cpu, time: 1.3}\n"
                        "    - {name: gpu, resource: gpu, time: 0.9}\n"
                        "  scopes: {kernels: {from: gpu, to: gpu}}\n"
                        "system: {workers_per_gpu: 2, mutex: kernels}\n"
                        "workload:\n  partitions: %d\n"
                        "  arrivals: {process: poisson, proofs_per_hour: %g, partitions_per_proof: %d}\n"
                        "run: {warmup: 200, seed: 11}\n", parts, pph, ppp);
  put("poisson.yaml", scn);
  ps_buf b = {0};
  ps_buf_printf(&b, "t,proof\n");
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, (unsigned long)ps_seed_mix(11, 0));
  double t = 0;
  for (int i = 0; i < np; i++) {
    if (i > 0) t += -(3600.0 / pph) * log1p(-gsl_rng_uniform(g));
    ps_buf_printf(&b, "%.17g,p%d\n", t, i);
  }
  gsl_rng_free(g);
  put("day.csv", b.p);
  ps_buf_free(&b);
  char *out1, *out2, *err;
  ck_assert_int_eq(run("simulate poisson.yaml --json --threads 1", &out1, NULL), 0);
  ck_assert_int_eq(run("simulate poisson.yaml --json --threads 2 --set 'workload.arrivals={trace: day.csv, "
                       "partitions_per_proof: 2}'", &out2, &err), 0);
  ck_assert_str_eq(err, "");
  char *m1 = member(out1, "metrics"), *m2 = member(out2, "metrics");
  ck_assert_str_eq(m1, m2);
  free(m1), free(m2);
  m1 = member(out1, "events"), m2 = member(out2, "events");
  ck_assert_str_eq(m1, m2);
  free(m1), free(m2);
  /* The offered load is the trace's mean rate, near the process's. */
  cJSON *d1 = cJSON_Parse(out1), *d2 = cJSON_Parse(out2);
  double o1 = num(stability(d1), "offered_pps"), o2 = num(stability(d2), "offered_pps");
  ck_assert_msg(fabs(o2 - o1) < 0.05 * o1, "trace %.4f, process %.4f", o2, o1);
  cJSON_Delete(d1);
  free(out1), free(out2), free(err);
  /* rate_scale 2: every gap halved, twice the offered load. */
  ck_assert_int_eq(run("simulate poisson.yaml --json --set 'workload.arrivals={trace: day.csv, "
                       "partitions_per_proof: 2, rate_scale: 2}'", &out1, NULL), 0);
  d1 = cJSON_Parse(out1);
  ck_assert_double_eq_tol(num(stability(d1), "offered_pps"), 2 * o2, 1e-9 * o2);
  cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d1, "scenario"), "workload"), "arrivals");
  ck_assert_str_eq(cJSON_GetObjectItem(a, "process")->valuestring, "trace");
  ck_assert_double_eq(num(a, "last_s"), 0.5 * num(cJSON_GetObjectItem(cJSON_GetObjectItem(
                                          cJSON_GetObjectItem(d2, "scenario"), "workload"), "arrivals"), "last_s"));
  cJSON_Delete(d1), cJSON_Delete(d2);
  free(out1), free(scn);
}
END_TEST

/* A bad trace: exit 2, the file and line named, nothing written. plan refuses a trace. */
START_TEST(trace_errors) {
  put("scn.yaml", "scenario: t\nmodel:\n  model: m\n  phases: [{name: g, resource: gpu, time: 1}]\n"
                  "workload:\n  arrivals: {trace: a.jsonl}\n");
  put("a.jsonl", "{\"t\": 0}\n{\"t\": 2}\n{\"t\": 1}\n");
  char *out, *err;
  ck_assert_int_eq(run("simulate scn.yaml -o r.json", &out, &err), 2);
  ck_assert_str_eq(err, "provesim simulate: scn.yaml:6:21: workload.arrivals.trace: a.jsonl:3: expected times in "
                        "nondecreasing order, got 1 after 2\n");
  ck_assert(!exists("r.json"));
  free(out), free(err);
  put("a.jsonl", "{\"t\": 0}\n{\"t\": 2}\n");
  ck_assert_int_eq(run("plan scn.yaml --target proofs_per_hour=10", &out, &err), 2);
  ck_assert_msg(strstr(err, "provesim plan: scn.yaml: workload.arrivals.trace: expected arrivals that plan can set "
                            "to the target rate"), "%s", err);
  free(out), free(err);
}
END_TEST

/* measure replays the same times: each call starts no earlier than its proof's arrival,
 * and at once when the GPU's lock is free (0.2 s apart against 0.075 s of work; on a
 * loaded machine the synthetic executor's CPU phases take longer, and the whole-call lock
 * then delays the next call: that is queueing, not a late replay). */
static int dbl_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int span_times(const char *sp, const char *phase, const char *key, double *out, int max) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"phase\":\"%s\"", phase);
  int n = 0;
  for (const char *p = sp; n < max && (p = strstr(p, pat)); p++) {
    const char *t = strstr(p, key);
    ck_assert_ptr_nonnull(t);
    out[n++] = atof(t + strlen(key));
  }
  qsort(out, (size_t)n, sizeof *out, dbl_cmp);
  return n;
}

START_TEST(measure_replays_trace) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  put("m.csv", "t\n0\n0.2\n0.4\n0.6\n0.8\n1.0\n1.2\n1.4\n");
  char *args = xasprintf("measure %s --backend cpu --set 'workload.arrivals={trace: %s/m.csv}' "
                         "--set workload.partitions=8 --set run.warmup=1 --set run.cooldown=0 --spans m.jsonl --json",
                         cfg, tmpdir), *out, *err;
  int rc = run(args, &out, &err);
  ck_assert_msg(rc == 0, "measure: %d: %s", rc, err);
  char *sp = tmpfile_text("m.jsonl");
  double start[16], end[16];
  int calls = span_times(sp, "setup", "\"t0\":", start, 16);
  ck_assert_int_eq(span_times(sp, "epilogue", "\"t1\":", end, 16), calls);
  for (int k = 0; k < calls; k++) {
    /* Call k's proof arrives at 0.2 k; the lock over the whole call frees when call k - 1
     * ends. */
    double want = 0.2 * k, free_at = k ? fmax(want, end[k - 1]) : want;
    ck_assert_msg(start[k] >= want - 1e-3 && start[k] < free_at + 0.1,
                  "call %d starts at %.4f, its proof arrives at %.1f, the lock frees at %.4f", k, start[k], want,
                  free_at);
  }
  ck_assert_int_eq(calls, 8);
  free(sp), free(out), free(err), free(args), free(cfg);
}
END_TEST

/* run.warmup: auto. Six workers start their 3 s of CPU work together and then queue for
 * 1 s of GPU each: the first partitions take 4, 5, ..., 9 s, every later one 6 s. MSER-5
 * drops the first two batches of 5, so the window holds the steady state alone. */
START_TEST(warmup_auto_closed_backlog) {
  put("warm.yaml", "scenario: warm\nmodel:\n  model: w\n  phases:\n"
                   "    - {name: prep, resource: cpu, time: 3.0}\n"
                   "    - {name: gpu, resource: gpu, time: 1.0}\n"
                   "  scopes: {kernels: {from: gpu, to: gpu}}\n"
                   "system: {workers_per_gpu: 6, mutex: kernels}\n"
                   "workload: {partitions: 400}\n"
                   "run: {warmup: auto, cooldown: 6}\n");
  char *out;
  ck_assert_int_eq(run("simulate warm.yaml", &out, NULL), 0);
  ck_assert_msg(strstr(out, "\nrun       1 replication x 400 partitions (warm-up 10, chosen by MSER-5), "), "%s", out);
  free(out);
  ck_assert_int_eq(run("simulate warm.yaml --json", &out, NULL), 0);
  char *r = member(out, "scenario"), *m = member(out, "metrics");
  ck_assert_msg(strstr(r, "\"run\":{\"warmup\":10,\"warmup_auto\":\"mser-5\",\"cooldown\":6,"), "%s", r);
  ck_assert_msg(strstr(m, "\"latency_s\":{\"mean\":6,\"p50\":6,\"p95\":6,\"p99\":6}"), "%s", m);
  free(r), free(m), free(out);

  /* The seed scenario: a warm-up > 0, the same whatever the thread count and however many
   * replications follow the pilot (replication 0's stream). */
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *a1 = xasprintf("simulate %s --json --set run.warmup=auto --set run.replications=4 --threads 1", cfg);
  char *a2 = xasprintf("simulate %s --json --set run.warmup=auto --set run.replications=4 --threads 3", cfg);
  char *a3 = xasprintf("simulate %s --set run.warmup=auto --set run.replications=1", cfg);
  char *o1, *o2, *o3;
  ck_assert_int_eq(run(a1, &o1, NULL), 0);
  ck_assert_int_eq(run(a2, &o2, NULL), 0);
  ck_assert_int_eq(run(a3, &o3, NULL), 0);
  ck_assert_str_eq(o1, o2);
  cJSON *d = cJSON_Parse(o1);
  cJSON *runj = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "scenario"), "run");
  int w = (int)num(runj, "warmup");
  ck_assert_msg(w > 0 && w % 5 == 0, "warm-up %d", w);
  char *want = xasprintf("(warm-up %d, chosen by MSER-5)", w);
  ck_assert_msg(strstr(o3, want), "%s", o3);
  cJSON_Delete(d);
  free(want), free(o1), free(o2), free(o3), free(a1), free(a2), free(a3);

  /* Anything else is refused. */
  char *a4 = xasprintf("simulate %s --set run.warmup=automatic", cfg), *err;
  ck_assert_int_eq(run(a4, NULL, &err), 2);
  ck_assert_str_eq(err, "provesim simulate: --set run.warmup=automatic: run.warmup: expected an integer >= 0, or auto "
                        "(chosen by MSER-5 from a pilot run), got \"automatic\"\n");
  free(err), free(a4), free(cfg);
}
END_TEST

/* measure chooses the warm-up the same way, from replication 0's measured latencies: the
 * report names MSER-5, the choice is a multiple of 5 and at most half the series, and the
 * window holds the partitions after it. */
START_TEST(warmup_auto_in_measure) {
  char *cfg = src("tests/data/measure/const-seed.yaml");
  char *args = xasprintf("measure %s --backend cpu --set run.warmup=auto --set workload.partitions=30 --json", cfg), *out,
       *err;
  int rc = run(args, &out, &err);
  ck_assert_msg(rc == 0, "measure: %d: %s", rc, err);
  cJSON *d = cJSON_Parse(out);
  ck_assert_ptr_nonnull(d);
  cJSON *runj = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "scenario"), "run");
  ck_assert_str_eq(cJSON_GetObjectItem(runj, "warmup_auto")->valuestring, "mser-5");
  int w = (int)num(runj, "warmup"), cool = (int)num(runj, "cooldown");
  ck_assert_msg(w >= 0 && w % 5 == 0 && w <= (30 - cool) / 2, "warm-up %d", w);
  cJSON_Delete(d);
  free(out), free(err), free(args), free(cfg);
}
END_TEST

/* sweep runs each point to run.precision as simulate does: the same replications and
 * precision member as simulate gives for that point's settings. */
START_TEST(sweep_runs_to_precision) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *a1 = xasprintf("sweep %s --vary system.workers_per_gpu=2..3 --set system.mutex=kernels "
                       "--set run.precision=0.0005 --json sw.json", cfg), *out;
  ck_assert_int_eq(run(a1, &out, NULL), 0);
  free(out);
  char *txt = tmpfile_text("sw.json");
  cJSON *d = cJSON_Parse(txt);
  ck_assert_ptr_nonnull(d);
  int w = 2;
  cJSON *pt;
  cJSON_ArrayForEach(pt, cJSON_GetObjectItem(d, "points")) {
    char *a2 = xasprintf("simulate %s --set system.mutex=kernels --set run.precision=0.0005 "
                         "--set system.workers_per_gpu=%d --json", cfg, w++), *o2;
    ck_assert_int_eq(run(a2, &o2, NULL), 0);
    cJSON *s = cJSON_Parse(o2);
    ck_assert_int_eq((int)num(pt, "replications"), (int)num(s, "replications"));
    cJSON *pp = cJSON_GetObjectItem(pt, "precision"), *sp = cJSON_GetObjectItem(s, "precision");
    ck_assert_ptr_nonnull(pp);
    ck_assert_double_eq(num(pp, "reached"), num(sp, "reached"));
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(pp, "met")));
    cJSON_Delete(s);
    free(o2), free(a2);
  }
  ck_assert_int_eq(w, 4);
  cJSON_Delete(d);
  free(txt), free(a1), free(cfg);
}
END_TEST

int main(void) {
  Suite *su = suite_create("cli_load");
  TCase *tc = tcase_create("stability");
  tcase_add_checked_fixture(tc, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, overload_warns);
  tcase_add_test(tc, light_load_is_quiet);
  tcase_add_test(tc, load_at_99_percent_is_not_flagged);
  tcase_add_test(tc, sweep_flags_unstable_points);
  tcase_add_test(tc, plan_flags_overloaded_configurations);
  suite_add_tcase(su, tc);
  TCase *tt = tcase_create("trace");
  tcase_add_checked_fixture(tt, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tt, 300);
  tcase_add_test(tt, trace_replays_poisson);
  tcase_add_test(tt, trace_errors);
  tcase_add_test(tt, measure_replays_trace);
  suite_add_tcase(su, tt);
  TCase *tw = tcase_create("warmup");
  tcase_add_checked_fixture(tw, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tw, 300);
  tcase_add_test(tw, warmup_auto_closed_backlog);
  tcase_add_test(tw, warmup_auto_in_measure);
  tcase_add_test(tw, sweep_runs_to_precision);
  suite_add_tcase(su, tw);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
