/* `provesim sweep`: argv, help, the table, CSV and JSON of a grid of what-ifs that
 * sim/whatif.h builds and runs; output files are written whole at the end, so a failing
 * run leaves none behind. */
#define _GNU_SOURCE
#include "cli_whatif.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "estimate.h"
#include "report.h"
#include "scn.h"
#include "whatif.h"

/* ================================================================ sweep */

static const char sweep_help[] =
    "usage: provesim sweep SCENARIO --vary KEY=VALUES [--vary ...] [options]\n"
    "\n"
    "Simulates every point of a grid of what-ifs: the cartesian product of the --vary lists,\n"
    "the first --vary varying slowest. Each point is the scenario with those overrides (checked\n"
    "like --set), simulated with all its replications. Points run in parallel; the output is\n"
    "the same whatever --jobs is. Prints a table; --csv and --json write every metric with its\n"
    "95% confidence half-width.\n"
    "\n"
    "VALUES:\n"
    "  1..8              integers 1 to 8\n"
    "  1.0..2.0:0.25     1.0, 1.25, ..., 2.0 (a step is needed for non-integers)\n"
    "  call,kernels      a list; commas inside {...}, [...] or quotes do not split\n"
    "  'call;{from: ntt_h, to: msm}'   with a ';' anywhere, ';' separates the list instead\n"
    "\n"
    "options:\n"
    "  --vary KEY=VALUES   a scenario or model key and its values (repeatable):\n"
    "                      system.workers_per_gpu=1..8  system.mutex=call,kernels\n"
    "                      system.batch=1,2,4  phases.prep.time.mean=1.0..2.0:0.25\n"
    "  --set KEY=VALUE     a fixed override applied to every point (repeatable)\n"
    "  --jobs N            points simulated at once (default: all cores)\n"
    "  --csv FILE          write one CSV row per point\n"
    "  --json FILE         write a provesim.sweep/1 JSON document\n"
    "  -q, --quiet         no table on standard output\n"
    "  -h, --help          this text\n"
    "\n"
    "A progress bar with an ETA is drawn on standard error when it is a terminal.\n"
    "exit codes: 0 success, 1 run failure (I/O), 2 bad input (a bad --vary, a scenario error)\n"
    "\n"
    "example:\n"
    "  provesim sweep configs/seed-coarse-mutex.yaml --vary system.workers_per_gpu=1..6 \\\n"
    "      --vary system.mutex=call,kernels --csv sweep.csv\n";

static void sweep_table(ps_buf *b, const whatif_vary *vs, int nv, const whatif_point *pts, int n) {
  int *w = xcalloc((size_t)nv, sizeof *w);
  for (int k = 0; k < nv; k++) {
    w[k] = (int)strlen(vs[k].key);
    for (int j = 0; j < vs[k].nvals; j++)
      if ((int)strlen(vs[k].vals[j]) > w[k]) w[k] = (int)strlen(vs[k].vals[j]);
    if (w[k] > 40) w[k] = 40;
  }
  for (int k = 0; k < nv; k++) ps_buf_printf(b, "%-*s  ", w[k], vs[k].key);
  /* With arrivals, a column of the offered load against the capacity; "!" marks a point
   * whose queue grows without end (report_stability). */
  int open = 0, nunstable = 0;
  for (int i = 0; i < n; i++) open |= pts[i].sum.stab.has;
  ps_buf_printf(b, "%8s %7s %10s %9s %9s %9s %7s  ", "GPU util", "±95%", "parts/h", "±95%", "p99 lat s", "wait s",
                "CPU");
  if (open) ps_buf_printf(b, "%8s  ", "load");
  ps_buf_printf(b, "%s\n", "limited by");
  for (int i = 0; i < n; i++) {
    const whatif_point *p = &pts[i];
    for (int k = 0; k < nv; k++) ps_buf_printf(b, "%-*s  ", w[k], whatif_point_value(p, k));
    const report_summary *m = &p->sum;
    char ci1[16] = "-", ci2[16] = "-", lim[64];
    if (isfinite(m->gpu_util_mean_ci)) snprintf(ci1, sizeof ci1, "%.2f%%", 100 * m->gpu_util_mean_ci);
    if (isfinite(m->tput_ci)) snprintf(ci2, sizeof ci2, "%.1f", 3600 * m->tput_ci);
    report_limit_name(p->limit, lim, sizeof lim);
    double p99 = m->has_proofs ? m->proof_p99 : m->lat_p99;
    ps_buf_printf(b, "%7.2f%% %7s %10.1f %9s %9.3f %9.3f %6.1f%%  ", 100 * m->gpu_util_mean, ci1,
                  3600 * m->tput, ci2, p99, m->wait_mean, 100 * m->cpu_util);
    if (open) {
      const report_stability *st = &m->stab;
      char ld[32] = "-";
      if (st->has && isfinite(st->utilization))
        snprintf(ld, sizeof ld, "%.1f%%%s", 100 * st->utilization, st->unstable ? "!" : " ");
      nunstable += st->unstable;
      ps_buf_printf(b, "%8s  ", ld);
    }
    ps_buf_printf(b, "%s\n", lim);
  }
  if (nunstable)
    ps_buf_printf(b, "\n! unstable: the arrivals offer more than the capacity (load = offered / capacity bound); "
                     "the queue grows for as long as the run lasts, so those latency figures grow with the run "
                     "length and describe no steady state\n");
  free(w);
}

static void sweep_csv(ps_buf *b, const whatif_sweep *sw) {
  report_csv_header(b);
  for (long i = 0; i < sw->npts; i++) {
    const whatif_point *p = &sw->pts[i];
    char *ov = cli_join_sets(p->sets, sw->nsets + sw->nv);
    report_csv_extra x = {.point = i, .overrides = ov};
    report_csv_row(b, p->s, &p->sum, &x);
    free(ov);
  }
}

static void sweep_json(ps_buf *b, const char *path, const whatif_vary *vs, int nv, const whatif_point *pts, int n) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.sweep/1");
  cJSON_AddStringToObject(root, "scenario", n > 0 ? pts[0].s->name : "");
  cJSON_AddStringToObject(root, "file", path);
  cJSON *va = cJSON_AddArrayToObject(root, "vary");
  for (int k = 0; k < nv; k++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "key", vs[k].key);
    cJSON *vals = cJSON_AddArrayToObject(o, "values");
    for (int j = 0; j < vs[k].nvals; j++) cJSON_AddItemToArray(vals, cli_json_value(vs[k].vals[j]));
    cJSON_AddItemToArray(va, o);
  }
  cJSON *arr = cJSON_AddArrayToObject(root, "points");
  for (int i = 0; i < n; i++) {
    const whatif_point *p = &pts[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "point", i);
    cJSON *set = cJSON_AddObjectToObject(o, "values");
    for (int k = 0; k < nv; k++) cJSON_AddItemToObject(set, vs[k].key, cli_json_value(whatif_point_value(p, k)));
    cJSON *sys = cJSON_AddObjectToObject(o, "system");
    cJSON_AddNumberToObject(sys, "gpus", p->s->gpus);
    cJSON_AddNumberToObject(sys, "workers_per_gpu", p->s->workers_per_gpu);
    cJSON_AddNumberToObject(sys, "cpu_cores", p->s->cpu_cores);
    cJSON_AddNumberToObject(sys, "batch", p->s->batch);
    cJSON_AddStringToObject(sys, "mutex", p->s->mutex_name ? p->s->mutex_name : "none");
    cJSON *doc = report_json(p->s, &p->sum);
    cJSON_AddItemToObject(o, "metrics", cJSON_DetachItemFromObject(doc, "metrics"));
    cJSON_AddItemToObject(o, "ci95", cJSON_DetachItemFromObject(doc, "ci95"));
    if (p->sum.stab.has) cJSON_AddItemToObject(o, "stability", cJSON_DetachItemFromObject(doc, "stability"));
    cJSON_AddNumberToObject(o, "replications", p->sum.nreps);
    cJSON_Delete(doc);
    cJSON_AddItemToArray(arr, o);
  }
  char *txt = cJSON_PrintUnformatted(root);
  ps_buf_printf(b, "%s\n", txt);
  free(txt);
  cJSON_Delete(root);
}

int sim_cmd_sweep(int argc, char **argv) {
  const char *path = NULL, *csvf = NULL, *jsonf = NULL;
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  whatif_vary *vs = xcalloc((size_t)argc + 1, sizeof *vs);
  int nsets = 0, nv = 0, jobs = 0, quiet = 0, rc = PS_EXIT_USAGE;
  whatif_sweep *sw = NULL;
  ps_err e = {{0}};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(sweep_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--vary")) {
      if (!(v = cli_optval(argc, argv, &i, "--vary"))) goto missing;
      if (whatif_vary_parse(v, &vs[nv], &e) != PS_OK) {
        fprintf(stderr, "provesim sweep: %s\n", e.msg);
        goto done;
      }
      for (int k = 0; k < nv; k++)
        if (!strcmp(vs[k].key, vs[nv].key)) {
          fprintf(stderr, "provesim sweep: --vary %s: the key is varied twice\n", vs[nv].key);
          whatif_vary_free(&vs[nv]);
          goto done;
        }
      nv++;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("sweep", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--jobs") || !strcmp(a, "-j")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'j' ? "-j" : "--jobs"))) goto missing;
      if (ps_parse_int(v, 1, 4096, &jobs)) {
        rc = cli_usage_error("sweep", "--jobs: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--csv")) {
      if (!(v = cli_optval(argc, argv, &i, "--csv"))) goto missing;
      csvf = v;
    } else if (cli_is_opt(a, "--json")) {
      if (!(v = cli_optval(argc, argv, &i, "--json"))) goto missing;
      jsonf = v;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
    } else if (a[0] == '-' && a[1]) {
      rc = cli_usage_error("sweep", "unknown option %s", a);
      goto done;
    } else if (!path) {
      path = a;
    } else {
      rc = cli_usage_error("sweep", "unexpected argument %s: one scenario at a time", a);
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("sweep", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("sweep", "%s", "expected a scenario file");
    goto done;
  }
  if (nv == 0) {
    rc = cli_usage_error("sweep", "%s", "expected at least one --vary KEY=VALUES");
    goto done;
  }

  /* Output paths are checked before the sweep runs. */
  const char *outs[] = {csvf, jsonf};
  if (cli_check_outputs("sweep", outs, 2)) {
    rc = PS_EXIT_USAGE;
    goto done;
  }
  int sr = whatif_sweep_new(path, sets, nsets, vs, nv, &sw, &e);
  if (sr == PS_OK) {
    cli_progress bar;
    int tty = isatty(2);
    if (tty) cli_progress_start(&bar, "sweep", (size_t)sw->npts);
    sr = whatif_sweep_run(sw, jobs, tty ? cli_progress_tick : NULL, &bar, &e);
    if (tty) cli_progress_end(&bar);
  }
  if (sr != PS_OK) {
    fprintf(stderr, "provesim sweep: %s\n", e.msg);
    rc = sr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }

  rc = PS_EXIT_OK;
  int npts = (int)sw->npts, nunstable = 0;
  for (int i = 0; i < npts; i++) {
    est_stability(sw->pts[i].s, &sw->pts[i].sum.stab);
    nunstable += sw->pts[i].sum.stab.unstable;
  }
  if (nunstable && quiet)
    fprintf(stderr, "provesim sweep: warning: at %d of %d points the arrivals offer more than the capacity "
                    "(unstable; the queue and the latency figures grow with the run length)\n", nunstable, npts);
  ps_buf cb = {0}, jb = {0};
  if (csvf) sweep_csv(&cb, sw);
  if (jsonf) sweep_json(&jb, path, vs, nv, sw->pts, npts);
  /* Write both or neither. */
  if (csvf && cli_write_out("sweep", csvf, &cb)) rc = PS_EXIT_FAIL;
  if (rc == PS_EXIT_OK && jsonf && cli_write_out("sweep", jsonf, &jb)) {
    if (csvf) ps_out_remove(csvf);
    rc = PS_EXIT_FAIL;
  }
  ps_buf_free(&cb);
  ps_buf_free(&jb);
  if (rc == PS_EXIT_OK && !quiet) {
    ps_buf tb = {0};
    sweep_table(&tb, vs, nv, sw->pts, npts);
    if (ps_write_stdout(tb.p, tb.len, &e) != PS_OK) {
      fprintf(stderr, "provesim sweep: %s\n", e.msg);
      if (csvf) ps_out_remove(csvf);
      if (jsonf) ps_out_remove(jsonf);
      rc = PS_EXIT_FAIL;
    }
    ps_buf_free(&tb);
  }
done:
  whatif_sweep_free(sw);
  for (int k = 0; k < nv; k++) whatif_vary_free(&vs[k]);
  free(vs);
  free(sets);
  return rc;
}

