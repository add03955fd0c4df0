/* Check suite of the what-if logic and commands. Through the functions of sim/whatif.h,
 * sim/plan.h and sim/estimate.h: --vary parsing and its errors, the grid's size and order,
 * sweep and plan results independent of the job count, plan_search and est_models against
 * answers worked out by hand on det.yaml, plan's GPU memory bound (K + w (W + b P) per
 * GPU, the candidates it rules out and its message), and the saturation point. Through the
 * binary: sweep rows against the deterministic closed forms, bad --vary values (exit 2, no
 * files), the grid limit (exit 2, was a crash), plan's worker counts and impossible
 * targets, plan's and simulate's GPU memory outputs, and estimate on textbook values. */
#define _GNU_SOURCE
#include "ck.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analytic.h"
#include "cli_harness.h"
#include "estimate.h"
#include "plan.h"
#include "whatif.h"
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
  ck_assert_ptr_nonnull(strstr(c1, "system.mutex={from: prep, to: msm}\""));
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

/* ---------------------------------------------------------------- --vary and the grid */

/* Parses arg and checks its values against want (NULL-terminated). */
static void vary_is(const char *arg, const char *key, const char *const *want) {
  whatif_vary v;
  ps_err e = {0};
  ck_assert_msg(whatif_vary_parse(arg, &v, &e) == PS_OK, "%s: %s", arg, e.msg);
  ck_assert_str_eq(v.key, key);
  int n = 0;
  while (want[n]) n++;
  ck_assert_msg(v.nvals == n, "%s: %d values, expected %d", arg, v.nvals, n);
  for (int i = 0; i < n; i++) ck_assert_str_eq(v.vals[i], want[i]);
  whatif_vary_free(&v);
  ck_assert_ptr_null(v.key);
  ck_assert_int_eq(v.nvals, 0);
}

START_TEST(vary_parse_ranges_and_lists) {
  vary_is("system.workers_per_gpu=1..5", "system.workers_per_gpu", (const char *[]){"1", "2", "3", "4", "5", NULL});
  vary_is("k=1..9:2", "k", (const char *[]){"1", "3", "5", "7", "9", NULL});
  vary_is("k=1..8:3", "k", (const char *[]){"1", "4", "7", NULL});
  vary_is("k=-2..1", "k", (const char *[]){"-2", "-1", "0", "1", NULL});
  vary_is("k=7..7", "k", (const char *[]){"7", NULL});
  vary_is("k=1.0..2.0:0.25", "k", (const char *[]){"1", "1.25", "1.5", "1.75", "2", NULL});
  /* 0.1 + 2 x 0.1 is 0.30000000000000004: still three values, printed short. */
  vary_is("k=0.1..0.3:0.1", "k", (const char *[]){"0.1", "0.2", "0.3", NULL});
  vary_is("k= 1..3", "k", (const char *[]){"1", "2", "3", NULL});
  /* Lists: trimmed; ',' splits outside brackets and quotes; a ';' anywhere outside them
   * makes ';' the separator. */
  vary_is("system.mutex=call,kernels", "system.mutex", (const char *[]){"call", "kernels", NULL});
  vary_is("k= a , b ,c ", "k", (const char *[]){"a", "b", "c", NULL});
  vary_is("system.mutex=call,{from: prep, to: msm},kernels", "system.mutex",
          (const char *[]){"call", "{from: prep, to: msm}", "kernels", NULL});
  vary_is("system.mutex=call;{from: prep, to: msm}", "system.mutex",
          (const char *[]){"call", "{from: prep, to: msm}", NULL});
  vary_is("k=a, b;c", "k", (const char *[]){"a, b", "c", NULL});
  vary_is("k=[1, 2],[3]", "k", (const char *[]){"[1, 2]", "[3]", NULL});
  vary_is("k='a,b',\"c;d\",e", "k", (const char *[]){"'a,b'", "\"c;d\"", "e", NULL});
  vary_is("k={a: 1..3}", "k", (const char *[]){"{a: 1..3}", NULL}); /* not a range */
  vary_is("k=1..3,5", "k", (const char *[]){"1..3", "5", NULL});   /* a list, checked later */
}
END_TEST

START_TEST(vary_parse_errors) {
  static const struct {
    const char *arg, *says;
  } bad[] = {
      {"system.workers_per_gpu", "expected KEY=VALUES"},
      {"=1,2", "expected KEY=VALUES"},
      {"k=", "expected values after '='"},
      {"k=  ", "expected values after '='"},
      {"k=8..1", "empty range: expected FROM <= TO, got 8..1"},
      {"k=1..4:0", "expected a step > 0, got 0"},
      {"k=1..4:-1", "expected a step > 0"},
      {"k=1.0..2.0", "needs a step"},
      {"k=x..y", "expected a range FROM..TO"},
      {"k=..3", "expected a range FROM..TO"},
      {"k=1..", "expected a range FROM..TO"},
      {"k=1..2:", "expected a range FROM..TO"},
      {"k=1..2000000", "2000000 values; at most 1000000"},
      {"k=a,,b", "empty value in the list (value 2)"},
      {"k=a,", "empty value in the list (value 2)"},
      {"k={from: a, to: b", "unbalanced brackets or quotes"},
      {"k='abc", "unbalanced brackets or quotes"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    whatif_vary v;
    ps_err e = {0};
    ck_assert_int_eq(whatif_vary_parse(bad[i].arg, &v, &e), PS_EINPUT);
    ck_assert_msg(strstr(e.msg, bad[i].says) != NULL, "%s: \"%s\" lacks \"%s\"", bad[i].arg, e.msg, bad[i].says);
    char *head = xasprintf("--vary %s: ", bad[i].arg);
    ck_assert_msg(!strncmp(e.msg, head, strlen(head)), "%s: %s", bad[i].arg, e.msg);
    free(head);
    ck_assert_ptr_null(v.key); /* nothing kept */
    ck_assert_ptr_null(v.vals);
    ck_assert_int_eq(v.nvals, 0);
  }
}
END_TEST

/* Parses the --vary args into vs (nv of them). */
static void varies(const char *const *args, whatif_vary *vs, int nv) {
  for (int k = 0; k < nv; k++) {
    ps_err e = {0};
    ck_assert_msg(whatif_vary_parse(args[k], &vs[k], &e) == PS_OK, "%s", e.msg);
  }
}

START_TEST(sweep_grid_order_first_vary_slowest) {
  char *cfg = src("tests/data/whatif/det.yaml");
  const char *args[] = {"system.workers_per_gpu=1..3", "system.mutex=call,kernels", "system.batch=1,2"};
  whatif_vary vs[3];
  varies(args, vs, 3);
  const char *sets[] = {"run.replications=1", "workload.partitions=100"};
  whatif_sweep *sw = NULL;
  ps_err e = {0};
  ck_assert_int_eq(whatif_sweep_new(cfg, sets, 2, vs, 3, &sw, &e), PS_OK);
  ck_assert_int_eq(sw->npts, 12);
  static const char *const mx[] = {"call", "kernels"};
  ck_assert_ptr_null(sw->pts); /* no point is held before a run */
  for (int i = 0; i < 12; i++) {
    whatif_point pt, *p = &pt;
    whatif_point_make(sw, i, p);
    char w[8], b[8];
    snprintf(w, sizeof w, "%d", 1 + i / 4);
    snprintf(b, sizeof b, "%d", 1 + i % 2);
    ck_assert_str_eq(whatif_point_value(p, 0), w);
    ck_assert_str_eq(whatif_point_value(p, 1), mx[(i / 2) % 2]);
    ck_assert_str_eq(whatif_point_value(p, 2), b);
    /* The base overrides come first, then one per --vary in --vary order. */
    ck_assert_str_eq(p->sets[0], sets[0]);
    ck_assert_str_eq(p->sets[1], sets[1]);
    ck_assert_str_eq(p->sets[2], p->own[0]);
    ck_assert_str_eq(p->sets[4], p->own[2]);
    ck_assert_str_eq(p->own[1], i / 2 % 2 ? "system.mutex=kernels" : "system.mutex=call");
    for (int k = 0; k < 3; k++) ck_assert_str_eq(whatif_grid_value(sw, i, k), whatif_point_value(p, k));
    whatif_point_clear(sw, p);
  }
  whatif_sweep_free(sw);
  for (int k = 0; k < 3; k++) whatif_vary_free(&vs[k]);
  free(cfg);
}
END_TEST

START_TEST(sweep_new_checks_values_and_grid_size) {
  char *cfg = src("tests/data/whatif/det.yaml");
  whatif_sweep *sw = (whatif_sweep *)&sw; /* any non-NULL value: a failure must clear it */
  ps_err e = {0};
  /* A value the loader refuses is named as a --vary value. */
  {
    const char *args[] = {"system.batch=1,2", "system.workers_per_gpu=0..2"};
    whatif_vary vs[2];
    varies(args, vs, 2);
    ck_assert_int_eq(whatif_sweep_new(cfg, NULL, 0, vs, 2, &sw, &e), PS_EINPUT);
    ck_assert_ptr_null(sw);
    ck_assert_msg(!strncmp(e.msg, "--vary system.workers_per_gpu=0: ", 33), "%s", e.msg);
    ck_assert_ptr_nonnull(strstr(e.msg, "expected an integer >= 1"));
    for (int k = 0; k < 2; k++) whatif_vary_free(&vs[k]);
  }
  /* A bad base override keeps the loader's --set. */
  {
    const char *args[] = {"system.batch=1,2"};
    const char *sets[] = {"system.gpus=0"};
    whatif_vary vs[1];
    varies(args, vs, 1);
    ck_assert_int_eq(whatif_sweep_new(cfg, sets, 1, vs, 1, &sw, &e), PS_EINPUT);
    ck_assert_msg(!strncmp(e.msg, "--set system.gpus=0: ", 21), "%s", e.msg);
    for (int k = 0; k < 1; k++) whatif_vary_free(&vs[k]);
  }
  /* A missing file. */
  {
    const char *args[] = {"system.batch=1,2"};
    whatif_vary vs[1];
    varies(args, vs, 1);
    ck_assert_int_eq(whatif_sweep_new("/nonexistent/x.yaml", NULL, 0, vs, 1, &sw, &e), PS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/x.yaml"));
    whatif_vary_free(&vs[0]);
  }
  /* 1001 x 1000 points: over the limit, refused after every value was checked. */
  {
    const char *args[] = {"run.seed=1..1001", "system.workers_per_gpu=1..1000"};
    whatif_vary vs[2];
    varies(args, vs, 2);
    ck_assert_int_eq(whatif_sweep_new(cfg, NULL, 0, vs, 2, &sw, &e), PS_EINPUT);
    ck_assert_ptr_null(sw);
    ck_assert_str_eq(e.msg, "the grid has more than 1000000 points");
    for (int k = 0; k < 2; k++) whatif_vary_free(&vs[k]);
  }
  whatif_sweep_free(NULL);
  free(cfg);
}
END_TEST

/* Runs a small grid of seed-coarse-mutex with `jobs` at once. */
static whatif_sweep *sweep_with_jobs(const char *cfg, whatif_vary *vs, int jobs) {
  const char *sets[] = {"run.replications=2", "workload.partitions=300", "run.warmup=20"};
  whatif_sweep *sw = NULL;
  ps_err e = {0};
  ck_assert_int_eq(whatif_sweep_new(cfg, sets, 3, vs, 2, &sw, &e), PS_OK);
  ck_assert_msg(whatif_sweep_run(sw, jobs, NULL, NULL, &e) == PS_OK, "%s", e.msg);
  return sw;
}

START_TEST(sweep_results_independent_of_jobs) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  const char *args[] = {"system.workers_per_gpu=1..4", "system.mutex=call;kernels;{from: prep, to: msm}"};
  whatif_vary vs[2];
  varies(args, vs, 2);
  whatif_sweep *a = sweep_with_jobs(cfg, vs, 1), *b = sweep_with_jobs(cfg, vs, 3), *c = sweep_with_jobs(cfg, vs, 0);
  ck_assert_int_eq(a->npts, 12);
  for (long i = 0; i < a->npts; i++) {
    const whatif_point *p = &a->pts[i];
    ck_assert_int_eq(p->rc, PS_OK);
    ck_assert_double_gt(p->sum.tput, 0);
    ck_assert_int_eq(p->s->workers_per_gpu, 1 + (int)i / 3);
    for (const whatif_sweep *o = b; o; o = o == b ? c : NULL) {
      const whatif_point *q = &o->pts[i];
      ck_assert_int_eq(q->rc, PS_OK);
      ck_assert_double_eq(q->sum.tput, p->sum.tput);
      ck_assert_double_eq(q->sum.gpu_util_mean, p->sum.gpu_util_mean);
      ck_assert_double_eq(q->sum.lat_p99, p->sum.lat_p99);
      ck_assert_double_eq(q->sum.wait_mean, p->sum.wait_mean);
      ck_assert(q->sum.events == p->sum.events);
      ck_assert_str_eq(q->limit, p->limit);
    }
  }
  /* More workers never lower the kernels scope's throughput by much. */
  ck_assert_double_gt(a->pts[10].sum.tput, 0.95 * a->pts[1].sum.tput);
  whatif_sweep_free(a);
  whatif_sweep_free(b);
  whatif_sweep_free(c);
  for (int k = 0; k < 2; k++) whatif_vary_free(&vs[k]);
  free(cfg);
}
END_TEST

START_TEST(sweep_grid_limit_exit_2_no_crash) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *args = xasprintf("sweep %s --vary run.seed=1..1001 --vary system.workers_per_gpu=1..1000 --csv big.csv", cfg);
  char *out, *err;
  /* Was a segmentation fault (139) in the cleanup after the message. */
  ck_assert_int_eq(run(args, &out, &err), 2);
  ck_assert_str_eq(err, "provesim sweep: the grid has more than 1000000 points\n");
  ck_assert_str_eq(out, "");
  ck_assert(!exists("big.csv"));
  free(out);
  free(err);
  free(args);
  free(cfg);
}
END_TEST

/* ---------------------------------------------------------------- streaming and --resume */

/* Lines of tmpdir/rel (0 when it is missing). */
static int line_count(const char *rel) {
  char *t = tmpfile_text(rel);
  int n = 0;
  for (char *q = t; q && *q; q++) n += *q == '\n';
  free(t);
  return n;
}

/* 1 when tmpdir holds a file whose name contains part. */
static int any_file_with(const char *part) {
  char *cmd = xasprintf("ls %s | grep -q -F -e '%s'", tmpdir, part);
  int found = system(cmd) == 0;
  free(cmd);
  return found;
}

/* The same sweep three ways: whole; killed with SIGTERM once its checkpoint has 10 points
 * and then resumed; resumed again from a checkpoint whose last line was cut short. The
 * CSV, the JSON document and the table are the same bytes each time. */
START_TEST(sweep_resume_after_sigterm_same_bytes) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *grid = xasprintf("%s --vary run.seed=1..300 --vary system.mutex=call,kernels --set run.replications=2 "
                         "--set workload.partitions=1000",
                         cfg);
  char *whole = xasprintf("sweep %s --jobs 2 --csv w.csv --json w.json", grid), *ow;
  ck_assert_int_eq(run(whole, &ow, NULL), 0);
  ck_assert(!exists("w.csv.partial")); /* a finished run leaves no checkpoint */

  /* Killed midway: no output and no temporary is left, only the checkpoint. */
  char *cmd = xasprintf("cd %s && exec %s sweep %s --jobs 1 --csv s.csv --json s.json >/dev/null 2>&1", tmpdir, bin(), grid);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  for (int k = 0; k < 3000 && line_count("s.csv.partial") < 11; k++) usleep(5000);
  kill(pid, SIGTERM);
  int st;
  waitpid(pid, &st, 0);
  ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "the sweep was not killed midway (status %d)", st);
  int done = line_count("s.csv.partial") - 1;
  ck_assert_int_ge(done, 10);
  ck_assert_int_lt(done, 600);
  ck_assert(!exists("s.csv"));
  ck_assert(!exists("s.json"));
  ck_assert(!any_file_with(".tmp."));

  /* The same command again is refused: it would overwrite the checkpoint. */
  char *again = xasprintf("sweep %s --csv s.csv --json s.json", grid), *err, *out;
  ck_assert_int_eq(run(again, &out, &err), 2);
  ck_assert_msg(strstr(err, "s.csv.partial: a checkpoint of an earlier run is there: resume it with --resume "
                            "s.csv.partial") != NULL, "%s", err);
  ck_assert_str_eq(out, "");
  ck_assert_int_eq(line_count("s.csv.partial"), done + 1);
  free(err);
  free(out);

  /* Resumed: the same bytes as the whole run; the checkpoint is gone. */
  char *res = xasprintf("sweep %s --jobs 2 --csv s.csv --json s.json --resume s.csv.partial", grid), *os;
  ck_assert_int_eq(run(res, &os, NULL), 0);
  char *wc = tmpfile_text("w.csv"), *sc = tmpfile_text("s.csv"), *wj = tmpfile_text("w.json"), *sj = tmpfile_text("s.json");
  ck_assert_int_eq(line_count("s.csv"), 601);
  ck_assert_str_eq(wc, sc);
  ck_assert_str_eq(wj, sj);
  ck_assert_str_eq(ow, os);
  ck_assert(!exists("s.csv.partial"));
  free(sc);
  free(sj);
  free(os);

  /* A checkpoint cut in the middle of a line (a kill during a write): the partial line is
   * dropped and its point simulated again. */
  char *part = xasprintf("cd %s && rm -f s.csv s.json && (%s sweep %s --jobs 1 --csv s.csv --json s.json -q & p=$!; "
                         "while [ \"$(wc -l < s.csv.partial 2>/dev/null || echo 0)\" -lt 41 ]; do sleep 0.01; done; "
                         "kill -TERM $p; wait $p; truncate -s -7 s.csv.partial) >/dev/null 2>&1; true",
                         tmpdir, bin(), grid);
  ck_assert_int_eq(system(part), 0);
  ck_assert(exists("s.csv.partial"));
  ck_assert(!exists("s.csv"));
  ck_assert_int_eq(run(res, &os, NULL), 0);
  sc = tmpfile_text("s.csv");
  sj = tmpfile_text("s.json");
  ck_assert_str_eq(wc, sc);
  ck_assert_str_eq(wj, sj);
  ck_assert_str_eq(ow, os);
  free(part);
  free(sc);
  free(sj);
  free(os);
  free(wc);
  free(wj);
  free(res);
  free(again);
  free(cmd);
  free(ow);
  free(whole);
  free(grid);
  free(cfg);
}
END_TEST

/* --resume refuses a checkpoint of another grid or scenario, one that lacks an output the
 * run asks for, and a file that is no checkpoint: exit 2, a message naming the file, and
 * no output. */
START_TEST(sweep_resume_refuses_other_grids) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  char *base = xasprintf("%s --set run.replications=2 --vary system.workers_per_gpu=1..3", cfg);
  /* A checkpoint left by a run whose last point fails (a combination the loader refuses:
   * 300 partitions with a warm-up of 1000), which is exit 2 with its points named. */
  char *failing = xasprintf("sweep %s --vary 'workload.partitions=3000,300' --vary run.warmup=100,1000 --csv c.csv", cfg),
       *err, *out;
  ck_assert_int_eq(run(failing, &out, &err), 2);
  ck_assert_msg(strstr(err, "1 of 4 points failed; the first: point 3 (workload.partitions=300 run.warmup=1000): ") != NULL,
                "%s", err);
  ck_assert_msg(strstr(err, "failed points: 3\n") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "the 3 points done are in c.csv.partial") != NULL, "%s", err);
  ck_assert_str_eq(out, "");
  ck_assert(!exists("c.csv"));
  ck_assert_int_eq(line_count("c.csv.partial"), 4);
  free(err);
  free(out);
  free(failing);

  static const struct {
    const char *args, *says;
  } bad[] = {
      /* another grid */
      {"--vary system.batch=1,2 --csv d.csv --resume c.csv.partial", "c.csv.partial: written for another grid or scenario"},
      /* the same grid with another base override */
      {"--vary 'workload.partitions=3000,300' --vary run.warmup=100,1000 --set run.seed=7 --csv d.csv --resume c.csv.partial",
       "written for another grid or scenario"},
      /* an output the checkpoint has no pieces for */
      {"--vary 'workload.partitions=3000,300' --vary run.warmup=100,1000 --json d.json --resume c.csv.partial",
       "c.csv.partial: its run wrote no --json"},
      /* not a checkpoint */
      {"--vary system.batch=1,2 --csv d.csv --resume c.csv.partial.nope", "c.csv.partial.nope: cannot read"},
      {"--vary system.batch=1,2 --csv d.csv --resume bad.partial", "bad.partial:1: expected a provesim.sweep-partial/1 header"},
      {"--vary system.batch=1,2 --csv d.csv --resume /dev/null", "/dev/null: expected a regular file"},
      {"--vary 'workload.partitions=3000,300' --vary run.warmup=100,1000 --csv d.csv --resume badline.partial",
       "badline.partial:2: expected a point line"},
  };
  char *mk = xasprintf("cd %s && echo 'point,overrides' > bad.partial && "
                       "head -1 c.csv.partial > badline.partial && echo 'garbage' >> badline.partial && echo '{}' >> badline.partial",
                       tmpdir);
  ck_assert_int_eq(system(mk), 0);
  free(mk);
  char *keep = tmpfile_text("c.csv.partial");
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    /* Cases 0, 3, 4 and 5 add to the base grid (workers per GPU). */
    char *args = xasprintf("sweep %s %s", i == 0 || (i >= 3 && i <= 5) ? base : cfg, bad[i].args);
    ck_assert_int_eq(run(args, &out, &err), 2);
    ck_assert_msg(strstr(err, bad[i].says) != NULL, "%s: stderr lacks \"%s\": %s", bad[i].args, bad[i].says, err);
    ck_assert_str_eq(out, "");
    ck_assert(!exists("d.csv"));
    ck_assert(!exists("d.json"));
    ck_assert(!exists("d.csv.partial"));
    free(args);
    free(err);
    free(out);
  }
  char *now = tmpfile_text("c.csv.partial");
  ck_assert_str_eq(keep, now); /* refused resumes leave the checkpoint as it was */
  free(keep);
  free(now);
  free(base);
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

/* ---------------------------------------------------------------- plan_search */

/* det.yaml: Ts = 1 s CPU, Tg = 1 s GPU, Tc = 1 s CPU per partition, scopes call and
 * kernels. Per GPU, the kernels scope serves min(N/3, 1) partitions per second, the call
 * scope 1/3; each partition needs 2 core-seconds, so X partitions per second need 2X
 * cores. */
static scenario *det_scenario(void) {
  char *cfg = src("tests/data/whatif/det.yaml");
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_msg(scn_load(cfg, NULL, 0, &s, &e) == PS_OK, "%s", e.msg);
  free(cfg);
  return s;
}

static const int det_batches[] = {1, 2, 4};

static plan_limits det_limits(double target, int max_gpus, int jobs) {
  return (plan_limits){.target_pph = target, .max_gpus = max_gpus, .max_workers = 8, .batches = det_batches,
                       .nbatches = 3, .jobs = jobs};
}

static void cfg_is(const plan_result *r, const plan_cfg *p, int gpus, int workers, int batch, const char *scope_name,
                   int cores) {
  ck_assert_int_eq(p->gpus, gpus);
  ck_assert_int_eq(p->workers, workers);
  ck_assert_int_eq(p->batch, batch);
  ck_assert_str_eq(r->scopes[p->scope].name, scope_name);
  ck_assert_int_eq(p->cores, cores);
}

static int in_frontier(const plan_result *r, const plan_cfg *p) {
  for (int i = 0; i < r->nfrontier; i++) {
    const plan_cfg *q = &r->frontier[i];
    if (q->gpus == p->gpus && q->workers == p->workers && q->batch == p->batch && q->scope == p->scope &&
        q->cores == p->cores)
      return 1;
  }
  return 0;
}

START_TEST(plan_search_by_hand) {
  scenario *s = det_scenario();
  plan_result r;
  ps_err e = {0};
  /* 3500/h = 0.97 per second: one GPU at saturation, N = 3 with the kernels scope, and
   * 2 x 0.97 -> 2 cores. One core fewer serves 1/2 per second (1800/h). */
  plan_limits lim = det_limits(3500, 16, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert_int_eq(r.nscopes, 2);
  ck_assert_str_eq(r.scopes[0].name, "call");
  ck_assert_str_eq(r.scopes[1].name, "kernels");
  ck_assert(r.found);
  cfg_is(&r, &r.best, 1, 3, 1, "kernels", 2);
  ck_assert_double_eq_tol(r.best.pph, 3600, 36);
  ck_assert_double_eq_tol(r.best.p99, 3.0, 0.01);
  ck_assert_double_eq_tol(r.best.util, 1.0, 0.01);
  ck_assert_int_eq(r.gpus_searched, 1);
  ck_assert_int_eq(r.nall, 8 * 3 * 2);
  ck_assert(r.has_fewer_cores);
  cfg_is(&r, &r.fewer_cores, 1, 3, 1, "kernels", 1);
  ck_assert(!r.fewer_cores.meets);
  ck_assert_double_eq_tol(r.fewer_cores.pph, 1800, 36);
  ck_assert_ptr_nonnull(strstr(r.fewer_cores.limit, "CPU cores"));
  ck_assert_int_eq(r.fewer_gpus.kind, PLAN_NONE);
  ck_assert(in_frontier(&r, &r.best));
  ck_assert(in_frontier(&r, &r.fewer_cores));
  /* The lists are sorted cheapest first; the log holds no configuration twice. */
  for (int i = 1; i < r.nall; i++) ck_assert(r.all[i - 1].gpus <= r.all[i].gpus);
  for (int i = 1; i < r.nlog; i++)
    ck_assert(r.log[i - 1].cores < r.log[i].cores ||
              (r.log[i - 1].cores == r.log[i].cores &&
               (r.log[i - 1].workers != r.log[i].workers || r.log[i - 1].batch != r.log[i].batch ||
                r.log[i - 1].scope != r.log[i].scope)));
  plan_result_free(&r);

  /* 7000/h needs two GPUs (one serves 3600/h at most: not worth simulating), 3 workers
   * each and 2 x 1.94 -> 4 cores; 3 cores serve 1.5 per second (5400/h). */
  lim = det_limits(7000, 16, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(r.found);
  cfg_is(&r, &r.best, 2, 3, 1, "kernels", 4);
  ck_assert_double_eq_tol(r.best.pph, 7200, 72);
  ck_assert_int_eq(r.gpus_searched, 2);
  ck_assert_double_eq_tol(r.fewer_cores.pph, 5400, 60);
  ck_assert_int_eq(r.fewer_gpus.kind, PLAN_BOUND);
  ck_assert_int_eq(r.fewer_gpus.cfg.gpus, 1);
  ck_assert_ptr_nonnull(strstr(r.fewer_gpus.cfg.limit, "GPU: 1 GPU of 1.000 s per partition serves at most 3600.0"));
  plan_result_free(&r);

  /* 100/h: one worker and one core; nothing is cheaper, and of equal configurations the
   * first scope wins. */
  lim = det_limits(100, 16, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  cfg_is(&r, &r.best, 1, 1, 1, "call", 1);
  ck_assert_double_eq_tol(r.best.pph, 1200, 12);
  ck_assert(!r.has_fewer_cores);
  ck_assert_int_eq(r.fewer_gpus.kind, PLAN_NONE);
  plan_result_free(&r);

  /* A p99 limit below the 3 s every call takes: nothing meets; the closest ran. */
  lim = det_limits(1000, 1, 2);
  lim.has_max = 1;
  lim.max_p99_s = 2;
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(!r.found);
  ck_assert_int_eq(r.closest.kind, PLAN_SIMULATED);
  ck_assert_double_ge(r.closest.cfg.p99, 3.0 - 1e-9);
  ck_assert_ptr_nonnull(strstr(r.closest.cfg.limit, "over the 2.0 s limit"));
  /* With 3.5 s allowed, one worker and one core meet 1000/h. */
  plan_result_free(&r);
  lim.max_p99_s = 3.5;
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  cfg_is(&r, &r.best, 1, 1, 1, "call", 1);
  plan_result_free(&r);
  scn_free(s);
}
END_TEST

START_TEST(plan_search_nothing_simulated) {
  scenario *s = det_scenario();
  plan_result r;
  ps_err e = {0};
  /* 9000/h on at most 2 GPUs: every candidate is ruled out by the GPU bound. */
  plan_limits lim = det_limits(9000, 2, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(!r.found);
  ck_assert_int_eq(r.sims, 0);
  ck_assert_int_eq(r.nlog, 0);
  ck_assert_int_eq(r.nfrontier, 0);
  ck_assert_int_eq(r.nall, 2 * 8 * 3 * 2);
  ck_assert_int_eq(r.gpus_searched, 2);
  ck_assert_int_eq(r.closest.kind, PLAN_BOUND);
  ck_assert_double_eq_tol(r.closest.cfg.pph, 7200, 1e-6);
  plan_result_free(&r);
  /* No GPU count to try (--budget gpus=0.5): empty lists, no sort of a NULL array. */
  lim = det_limits(100, 0, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(!r.found);
  ck_assert_int_eq(r.nall, 0);
  ck_assert_int_eq(r.nlog, 0);
  ck_assert_int_eq(r.closest.kind, PLAN_NONE);
  plan_result_free(&r);
  /* Limits out of range. */
  lim = det_limits(100, 1, 2);
  lim.max_workers = 0;
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "worker"));
  lim = det_limits(100, 1, 2);
  lim.nbatches = 0;
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_EINPUT);
  lim = det_limits(0, 1, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_EINPUT);
  plan_result_free(&r);
  scn_free(s);

  /* Through the binary, the empty search prints a plan (exit 0). */
  char *cfg = src("tests/data/whatif/det.yaml");
  char *args = xasprintf("plan %s --target proofs_per_hour=100 --budget gpus=0.5 --csv empty.csv", cfg), *out;
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "NO CONFIGURATION MEETS THE TARGET"));
  ck_assert_ptr_nonnull(strstr(out, "nothing simulated"));
  char *csv = tmpfile_text("empty.csv");
  ck_assert_ptr_nonnull(csv);
  ck_assert_int_eq((int)strlen(csv), (int)strcspn(csv, "\n") + 1); /* the header alone */
  free(csv);
  free(out);
  free(args);
  free(cfg);
}
END_TEST

static void cfg_same(const plan_cfg *a, const plan_cfg *b) {
  ck_assert_int_eq(a->gpus, b->gpus);
  ck_assert_int_eq(a->workers, b->workers);
  ck_assert_int_eq(a->batch, b->batch);
  ck_assert_int_eq(a->scope, b->scope);
  ck_assert_int_eq(a->cores, b->cores);
  ck_assert_int_eq(a->simulated, b->simulated);
  ck_assert_int_eq(a->meets, b->meets);
  ck_assert_double_eq(a->pph, b->pph);
  ck_assert_double_eq(a->p99, b->p99);
  ck_assert_double_eq(a->util, b->util);
  ck_assert_str_eq(a->limit, b->limit);
}

START_TEST(plan_search_independent_of_jobs) {
  char *cfg = src("configs/seed-coarse-mutex.yaml");
  const char *sets[] = {"run.replications=2", "workload.partitions=300", "run.warmup=20"};
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load(cfg, sets, 3, &s, &e), PS_OK);
  plan_result r[3];
  for (int k = 0; k < 3; k++) {
    plan_limits lim = {.target_pph = 3000, .max_gpus = 16, .max_workers = 6, .batches = det_batches, .nbatches = 2,
                       .jobs = k == 0 ? 1 : k == 1 ? 3 : 0};
    ck_assert_int_eq(plan_search(s, &lim, &r[k], &e), PS_OK);
  }
  ck_assert(r[0].found);
  ck_assert_int_gt(r[0].nfrontier, 1);
  for (int k = 1; k < 3; k++) {
    ck_assert_int_eq(r[k].sims, r[0].sims);
    ck_assert_int_eq(r[k].nall, r[0].nall);
    ck_assert_int_eq(r[k].nlog, r[0].nlog);
    ck_assert_int_eq(r[k].nfrontier, r[0].nfrontier);
    cfg_same(&r[k].best, &r[0].best);
    cfg_same(&r[k].fewer_cores, &r[0].fewer_cores);
    ck_assert_int_eq(r[k].fewer_gpus.kind, r[0].fewer_gpus.kind);
    cfg_same(&r[k].fewer_gpus.cfg, &r[0].fewer_gpus.cfg);
    for (int i = 0; i < r[0].nall; i++) cfg_same(&r[k].all[i], &r[0].all[i]);
    for (int i = 0; i < r[0].nlog; i++) cfg_same(&r[k].log[i], &r[0].log[i]);
    for (int i = 0; i < r[0].nfrontier; i++) cfg_same(&r[k].frontier[i], &r[0].frontier[i]);
  }
  for (int k = 0; k < 3; k++) plan_result_free(&r[k]);
  scn_free(s);
  free(cfg);
}
END_TEST

/* ---------------------------------------------------------------- plan: GPU memory */

/* det.yaml with gpu_memory {shared 10, per worker 4, per partition 1} GiB and GPUs of cap
 * GiB: a GPU with w workers at batch b needs 10 + w (4 + b). */
static scenario *det_gpu_scenario(const char *cap) {
  char *cfg = src("tests/data/whatif/det.yaml"), *c = xasprintf("system.gpu_mem_gib=%s", cap);
  const char *sets[] = {"model.gpu_memory={shared_gib: 10, per_worker_gib: 4, per_partition_gib: 1}", c};
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_msg(scn_load(cfg, sets, 2, &s, &e) == PS_OK, "%s", e.msg);
  free(c);
  free(cfg);
  return s;
}

/* scn_gpu_mem_over: the closed form K + w (W + b P) against the GPU's memory, the
 * message, and nothing without both keys. */
START_TEST(plan_gpu_mem_bound) {
  scenario *s = det_gpu_scenario("25");
  char buf[256] = "untouched";
  ck_assert_int_eq(scn_gpu_mem_over(s, 3, 1, buf, sizeof buf), 0); /* 25 of 25: fits */
  ck_assert_str_eq(buf, "untouched");
  ck_assert_int_eq(scn_gpu_mem_over(s, 1, 4, buf, sizeof buf), 0); /* 18 */
  ck_assert_int_eq(scn_gpu_mem_over(s, 4, 1, buf, sizeof buf), 1); /* 30 */
  ck_assert_str_eq(buf, "GPU memory: needs 30.0 GiB per GPU (shared 10 + 4 workers x (4 + 1 partition x 1)), over the "
                        "25 GiB of a GPU");
  ck_assert_int_eq(scn_gpu_mem_over(s, 2, 4, buf, sizeof buf), 1); /* 26 */
  ck_assert_str_eq(buf, "GPU memory: needs 26.0 GiB per GPU (shared 10 + 2 workers x (4 + 4 partitions x 1)), over "
                        "the 25 GiB of a GPU");
  s->model->gpu_part_gib = 0; /* no per-partition part: the shorter form */
  ck_assert_int_eq(scn_gpu_mem_over(s, 4, 2, buf, sizeof buf), 1); /* 26 */
  ck_assert_str_eq(buf, "GPU memory: needs 26.0 GiB per GPU (shared 10 + 4 workers x 4), over the 25 GiB of a GPU");
  s->gpu_mem_gib = 0; /* no system.gpu_mem_gib: nothing to check */
  ck_assert_int_eq(scn_gpu_mem_over(s, 100, 4, buf, sizeof buf), 0);
  scn_free(s);
  s = det_scenario(); /* neither key */
  s->gpu_mem_gib = 1;
  ck_assert_int_eq(scn_gpu_mem_over(s, 100, 4, buf, sizeof buf), 0);
  scn_free(s);
}
END_TEST

/* plan_search counts K + w (W + b P) for every candidate, rules out exactly those over the
 * GPU's memory (not simulated, with the bound's message), and finds the cheapest of the
 * rest. */
START_TEST(plan_search_gpu_memory) {
  plan_result r;
  ps_err e = {0};
  /* 25 GiB: three workers at batch 1 fit exactly, and 3500/h is found as without the
   * bound (one GPU, 3 workers, kernels, 2 cores). */
  scenario *s = det_gpu_scenario("25");
  plan_limits lim = det_limits(3500, 16, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(r.found);
  cfg_is(&r, &r.best, 1, 3, 1, "kernels", 2);
  ck_assert_double_eq(r.best.gpu_mem, 25);
  int nover = 0;
  for (int i = 0; i < r.nall; i++) {
    const plan_cfg *p = &r.all[i];
    double need = 10 + p->workers * (4.0 + p->batch);
    ck_assert_double_eq(p->gpu_mem, need);
    ck_assert_int_eq(p->gpu_over, need > 25);
    if (!p->gpu_over) continue;
    nover++;
    ck_assert_int_eq(p->simulated, 0);
    ck_assert_int_eq(p->meets, 0);
    char want[256];
    snprintf(want, sizeof want, "GPU memory: needs %.1f GiB per GPU (shared 10 + %d workers x (4 + %d partition%s x 1)), "
             "over the 25 GiB of a GPU", need, p->workers, p->batch, p->batch > 1 ? "s" : "");
    ck_assert_str_eq(p->limit, want);
  }
  /* Per scope: batch 1 rules out 4..8 workers, batch 2 3..8, batch 4 2..8. */
  ck_assert_int_eq(nover, 2 * (5 + 6 + 7));
  for (int i = 0; i < r.nlog; i++) ck_assert(!r.log[i].gpu_over);
  plan_result_free(&r);
  scn_free(s);

  /* 24.5 GiB: three workers no longer fit, one GPU tops out at 2 workers (2400/h), and
   * the plan takes two GPUs of 2 workers; the one-GPU best says why it cannot add one. */
  s = det_gpu_scenario("24.5");
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(r.found);
  cfg_is(&r, &r.best, 2, 2, 1, "kernels", 2);
  ck_assert_double_eq(r.best.gpu_mem, 20);
  ck_assert_int_eq(r.fewer_gpus.kind, PLAN_SIMULATED);
  ck_assert_int_eq(r.fewer_gpus.cfg.workers, 2);
  ck_assert_double_eq_tol(r.fewer_gpus.cfg.pph, 2400, 24);
  ck_assert_msg(strstr(r.fewer_gpus.cfg.limit, "; but 3 workers do not fit in GPU memory: needs 25.0 GiB per GPU "
                                               "(shared 10 + 3 workers x (4 + 1 partition x 1)), over the 24.5 GiB "
                                               "of a GPU") != NULL, "%s", r.fewer_gpus.cfg.limit);
  plan_result_free(&r);
  scn_free(s);

  /* Every candidate over the memory: nothing simulated, and the closest says why. */
  s = det_gpu_scenario("14");
  lim = det_limits(100, 2, 2);
  ck_assert_int_eq(plan_search(s, &lim, &r, &e), PS_OK);
  ck_assert(!r.found);
  ck_assert_int_eq(r.sims, 0);
  ck_assert_int_eq(r.closest.kind, PLAN_BOUND);
  ck_assert_ptr_nonnull(strstr(r.closest.cfg.limit, "GPU memory: needs 15.0 GiB per GPU"));
  plan_result_free(&r);
  scn_free(s);
}
END_TEST

/* Through the binary: the text says what the bound ruled out and shows each GPU's need,
 * the CSV carries gpu_mem_gib as its last column; simulate warns on standard error (exit
 * 0, the report as without the keys), and its advice to add a worker says when that worker
 * does not fit; without the keys the CSV has no such column. */
START_TEST(plan_gpu_memory_outputs) {
  char *cfg = src("tests/data/whatif/det.yaml"), *out, *err;
  const char *gm = "--set 'model.gpu_memory={shared_gib: 10, per_worker_gib: 4, per_partition_gib: 1}' "
                   "--set system.gpu_mem_gib=25";
  char *args = xasprintf("plan %s --target proofs_per_hour=3500 --jobs 2 %s --csv g.csv", cfg, gm);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, ", GPU memory <= 25 GiB per GPU\n"));
  ck_assert_msg(strstr(out, "          GPU memory rules out 36 of them; the first, 1 GPU x 2 workers, batch 4: needs "
                            "26.0 GiB per GPU (shared 10 + 2 workers x (4 + 4 partitions x 1)), over the 25 GiB of a "
                            "GPU\n") != NULL, "%s", out);
  ck_assert_ptr_nonnull(strstr(out, "host memory 0.0 GiB, GPU memory 25.0 GiB per GPU\n"));
  ck_assert_ptr_nonnull(strstr(out, "cores  mem GiB  GPU GiB   proofs/h"));
  char *csv = tmpfile_text("g.csv");
  ck_assert_ptr_nonnull(csv);
  ck_assert_msg(strncmp(csv, "gpus,workers_per_gpu,batch,mutex,cpu_cores,host_mem_gib,simulated,proofs_per_hour,"
                             "p99_latency_s,gpu_util,meets,frontier,limited_by,load,unstable,gpu_mem_gib\n", 150) == 0,
                "%s", csv);
  ck_assert_ptr_nonnull(strstr(csv, "\n1,3,1,kernels,2,0,1,")); /* the cheapest ran */
  ck_assert_ptr_nonnull(strstr(csv, "\n1,4,1,call,32,0,0,,,,0,0,\"GPU memory: needs 30.0 GiB per GPU (shared 10 + 4 "
                                    "workers x (4 + 1 partition x 1)), over the 25 GiB of a GPU\",,,30\n"));
  free(csv);
  free(out);
  free(args);
  /* Without the keys: the old header. */
  args = xasprintf("plan %s --target proofs_per_hour=3500 --jobs 2 --csv n.csv", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_ptr_null(strstr(out, "GPU memory"));
  csv = tmpfile_text("n.csv");
  ck_assert_ptr_nonnull(strstr(csv, ",load,unstable\n"));
  ck_assert_ptr_null(strstr(csv, "gpu_mem_gib"));
  free(csv);
  free(out);
  free(args);
  /* The scenario's own capacity without a model figure: plan says it is not counted. */
  args = xasprintf("plan %s --target proofs_per_hour=3500 --jobs 2 --set system.gpu_mem_gib=25", cfg);
  ck_assert_int_eq(run(args, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, ", GPU memory not counted (the model has no gpu_memory)\n"));
  free(out);
  free(args);
  /* simulate: 4 workers need 30 GiB of 25; a warning, and the same report as without. */
  char *a1 = xasprintf("simulate %s --json %s --set system.workers_per_gpu=4 --set system.gpu_mem_gib=25", cfg,
                       "--set 'model.gpu_memory={shared_gib: 10, per_worker_gib: 4, per_partition_gib: 1}'");
  ck_assert_int_eq(run(a1, &out, &err), 0);
  ck_assert_str_eq(err, "provesim simulate: warning: GPU memory: needs 30.0 GiB per GPU (shared 10 + 4 workers x (4 + 1 "
                        "partition x 1)), over the 25 GiB of a GPU; the prover would not start, the simulation runs "
                        "anyway\n");
  cJSON *doc = cJSON_Parse(out);
  ck_assert_ptr_nonnull(doc);
  cJSON *metrics = cJSON_GetObjectItem(doc, "metrics");
  char *m1 = cJSON_PrintUnformatted(metrics);
  cJSON_Delete(doc);
  free(out);
  free(err);
  char *a2 = xasprintf("simulate %s --json --set system.workers_per_gpu=4", cfg);
  ck_assert_int_eq(run(a2, &out, &err), 0);
  ck_assert_str_eq(err, "");
  doc = cJSON_Parse(out);
  char *m2 = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "metrics"));
  ck_assert_str_eq(m1, m2);
  cJSON_Delete(doc);
  free(m1);
  free(m2);
  free(out);
  free(err);
  free(a1);
  free(a2);
  /* simulate's bottleneck advises a second worker; when two do not fit (20 GiB of 18) it says
   * so, the same way plan's limits do (report_bottleneck); without the keys it does not. */
  a1 = xasprintf("simulate %s --set system.workers_per_gpu=1 --set system.gpu_mem_gib=18 "
                 "--set 'model.gpu_memory={shared_gib: 10, per_worker_gib: 4, per_partition_gib: 1}'", cfg);
  ck_assert_int_eq(run(a1, &out, NULL), 0);
  ck_assert_msg(strstr(out, "add workers per GPU (system.workers_per_gpu=2); but 2 workers do not fit in GPU memory: "
                            "needs 20.0 GiB per GPU (shared 10 + 2 workers x (4 + 1 partition x 1)), over the 18 GiB "
                            "of a GPU\n"), "%s", out);
  free(out);
  a2 = xasprintf("simulate %s --set system.workers_per_gpu=1", cfg);
  ck_assert_int_eq(run(a2, &out, NULL), 0);
  ck_assert_msg(strstr(out, "add workers per GPU (system.workers_per_gpu=2)\n"), "%s", out);
  free(out);
  free(a1);
  free(a2);
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

/* The row of est named name, or NULL. */
static const est_row *est_row_named(const est_result *est, const char *name) {
  for (int k = 0; k < est->nrows; k++)
    if (!strcmp(est->rows[k].name, name)) return &est->rows[k];
  return NULL;
}

START_TEST(estimate_models_by_hand) {
  /* det.yaml with 2 workers: D = 1 s in the lock, Z = 2 s outside it. Deterministic:
   * X = N / (D + Z) = 2/3 (worker-bound). Repairman M/M/1//2 with Z = 2, S = 1:
   * p0 = 1 / (1 + 2 (1/2) + 2 (1/2)^2) = 0.4, X = (1 - p0) / S = 0.6. Bounds:
   * N / (N D + Z) = 0.5 <= X <= min(N / (D + Z), 1 / D) = 2/3. */
  char *cfg = src("tests/data/whatif/det.yaml");
  const char *sets[] = {"system.workers_per_gpu=2"};
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load(cfg, sets, 1, &s, &e), PS_OK);
  est_result est;
  est_models(s, &est);
  ck_assert(est.d.has_lock && est.d.sequential);
  ck_assert_double_eq_tol(est.d.t_locked, 1.0, 1e-12);
  ck_assert_double_eq_tol(est.d.t_free, 2.0, 1e-12);
  ck_assert_double_eq_tol(est.d.t_gpu, 1.0, 1e-12);
  ck_assert_double_eq_tol(est.d.core_s, 2.0, 1e-12);
  ck_assert_int_eq(est.nrows, 4);
  ck_assert_int_eq(est.has_sim, 0);
  const est_row *r = est_row_named(&est, "deterministic");
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->status, "exact");
  ck_assert_double_eq_tol(r->x, 2.0 / 3, 1e-12);
  ck_assert_double_eq_tol(r->util, 2.0 / 3, 1e-12);
  ck_assert_ptr_nonnull(strstr(r->label, "worker-bound"));
  ck_assert(est.has_repairman);
  ck_assert_int_eq(est.rp_customers, 2);
  ck_assert_int_eq(est.rp_servers, 1);
  ck_assert_double_eq_tol(est.rp.p0, 0.4, 1e-12);
  r = est_row_named(&est, "repairman");
  ck_assert_str_eq(r->status, "approximate"); /* the times are constant, not exponential */
  ck_assert_double_eq_tol(r->x, 0.6, 1e-12);
  ck_assert_double_eq_tol(est_row_named(&est, "mva")->x, 0.6, 1e-12);
  r = est_row_named(&est, "bounds");
  ck_assert_double_eq_tol(r->x_lo, 0.5, 1e-12);
  ck_assert_double_eq_tol(r->x_hi, 2.0 / 3, 1e-12);
  ck_assert_ptr_null(est_row_named(&est, "offered"));
  est_free(&est);

  /* With the simulation: the deterministic row is met exactly, inside the bounds. */
  ck_assert_int_eq(est_run(s, 2, &est, &e), PS_OK);
  ck_assert(est.has_sim);
  ck_assert_double_eq_tol(est.sim.tput, 2.0 / 3, 5e-3);
  r = est_row_named(&est, "deterministic");
  ck_assert_double_lt(fabs(r->gap), 5e-3);
  ck_assert_double_eq_tol(est_row_named(&est, "repairman")->gap, (est.sim.tput - 0.6) / 0.6, 1e-12);
  ck_assert(est_row_named(&est, "bounds")->inside);
  est_free(&est);
  scn_free(s);
  free(cfg);

  /* The textbook queue M/M/2//3 is exact for the repairman and MVA rows. */
  cfg = src("tests/data/whatif/repairman.yaml");
  ck_assert_int_eq(scn_load(cfg, NULL, 0, &s, &e), PS_OK);
  est_models(s, &est);
  ck_assert(est.has_repairman);
  ck_assert_int_eq(est.rp_customers, 3);
  ck_assert_int_eq(est.rp_servers, 2);
  ck_assert_double_eq_tol(est.rp_think_s, 2.0, 1e-12);
  ck_assert_double_eq_tol(est.rp_service_s, 0.25, 1e-12);
  ck_assert_str_eq(est_row_named(&est, "repairman")->status, "exact");
  ck_assert_str_eq(est_row_named(&est, "mva")->status, "exact");
  ck_assert_double_eq_tol(est_row_named(&est, "mva")->x, 1.332419, 5e-7);
  ck_assert_ptr_null(est_row_named(&est, "deterministic"));
  est_free(&est);
  scn_free(s);
  free(cfg);

  /* Arrivals: the offered load, 1000 proofs/h of 10 partitions = 2.78 partitions/s. */
  cfg = src("configs/capacity-8gpu.yaml");
  ck_assert_int_eq(scn_load(cfg, NULL, 0, &s, &e), PS_OK);
  est_models(s, &est);
  r = est_row_named(&est, "offered");
  ck_assert_ptr_nonnull(r);
  ck_assert_str_eq(r->status, "exact");
  ck_assert_double_eq_tol(r->x, 1000 * 10 / 3600.0, 1e-12);
  est_free(&est);
  scn_free(s);
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

/* Shared against exclusive (det.yaml: 1 s of CPU, 1 s on the GPU, 1 s of CPU; two workers,
 * no mutex). Shared, the two workers stay in step: both on the GPU at once at half speed,
 * a call every 4 s each: 0.5 calls/s, the GPU busy half the time. Exclusive, they fall
 * out of step: a call every 3 s each, 2/3 calls/s and 2/3 busy. The line gives both; with
 * the GPU exclusive, or a mutex that keeps the GPU phases apart, there is none. */
START_TEST(sharing_line_closed_forms) {
  char *cfg = src("tests/data/whatif/det.yaml");
  const char *shared[] = {"system.mutex=none", "system.gpu_sharing=shared"};
  const char *excl[] = {"system.mutex=none", "system.gpu_sharing=exclusive"};
  const char *locked[] = {"system.mutex=kernels", "system.gpu_sharing=shared"};
  scenario *s = NULL;
  ps_err e;
  char buf[512];
  ck_assert_int_eq(scn_load(cfg, shared, 2, &s, &e), PS_OK);
  whatif_sharing_line(s, buf, sizeof buf);
  double u1, x1, u0, x0;
  ck_assert_msg(sscanf(buf, "GPU sharing: this scenario shares the GPU (%lf%%, %lf partitions/s); one GPU phase at a "
                            "time (system.gpu_sharing=exclusive) gives %lf%%, %lf", &u1, &x1, &u0, &x0) == 4, "%s", buf);
  ck_assert_double_eq_tol(u1, 50.0, 0.2);
  ck_assert_double_eq_tol(x1, 0.5, 0.002);
  ck_assert_double_eq_tol(u0, 100.0 * 2 / 3, 0.2);
  ck_assert_double_eq_tol(x0, 2.0 / 3, 0.002);
  scn_free(s);
  const char *const *none[] = {excl, locked};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(scn_load(cfg, none[i], 2, &s, &e), PS_OK);
    ck_assert_str_eq(whatif_sharing_line(s, buf, sizeof buf), "");
    scn_free(s);
  }
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
  tcase_add_test(tc, vary_parse_ranges_and_lists);
  tcase_add_test(tc, vary_parse_errors);
  tcase_add_test(tc, sweep_grid_order_first_vary_slowest);
  tcase_add_test(tc, sweep_new_checks_values_and_grid_size);
  tcase_add_test(tc, sweep_results_independent_of_jobs);
  tcase_add_test(tc, sweep_grid_limit_exit_2_no_crash);
  tcase_add_test(tc, sweep_resume_after_sigterm_same_bytes);
  tcase_add_test(tc, sweep_resume_refuses_other_grids);
  tcase_add_test(tc, plan_worker_counts);
  tcase_add_test(tc, plan_impossible_target_says_so);
  tcase_add_test(tc, plan_search_by_hand);
  tcase_add_test(tc, plan_search_nothing_simulated);
  tcase_add_test(tc, plan_search_independent_of_jobs);
  tcase_add_test(tc, plan_gpu_mem_bound);
  tcase_add_test(tc, plan_search_gpu_memory);
  tcase_add_test(tc, plan_gpu_memory_outputs);
  tcase_add_test(tc, estimate_textbook_repairman);
  tcase_add_test(tc, estimate_deterministic_exact);
  tcase_add_test(tc, estimate_models_by_hand);
  tcase_add_test(tc, saturation_point_deterministic);
  tcase_add_test(tc, sharing_line_closed_forms);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf;
}
