/* The what-if subcommands (see cli_whatif.h): argv, help texts, tables, CSV, JSON and exit
 * codes of `sweep` (sim/whatif.h runs the grid), `plan` (sim/plan.h searches) and
 * `estimate` (sim/estimate.h computes). Output files are written whole at the end, so a
 * failing run leaves none behind; the progress bars on a terminal are drawn here. */
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
#include "plan.h"
#include "whatif.h"
#include "report.h"
#include "scn.h"

/* ================================================================ shared helpers */

static int parse_int(const char *v, long lo, long hi, int *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || end == v || *end || x < lo || x > hi) return -1;
  *out = (int)x;
  return 0;
}

static int parse_num(const char *v, double *out) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || end == v || *end || !isfinite(x)) return -1;
  *out = x;
  return 0;
}

/* A JSON value for an override's text: a number when it reads as one, else a string. */
static cJSON *json_value(const char *v) {
  double x;
  if (!parse_num(v, &x)) return cJSON_CreateNumber(x);
  return cJSON_CreateString(v);
}

static void csv_field(ps_buf *b, const char *v) {
  if (strpbrk(v, ",\"\n")) {
    ps_buf_append(b, "\"", 1);
    for (const char *p = v; *p; p++) {
      if (*p == '"') ps_buf_append(b, "\"", 1);
      ps_buf_append(b, p, 1);
    }
    ps_buf_append(b, "\"", 1);
  } else {
    ps_buf_append(b, v, strlen(v));
  }
}

/* A number for CSV: empty when not finite (a CI of one replication). */
static void csv_num(ps_buf *b, double v) {
  if (isfinite(v))
    ps_buf_printf(b, ",%.9g", v);
  else
    ps_buf_append(b, ",", 1);
}

/* Writes buf to path atomically; prints the error. Returns 0 or -1. */
static int write_out(const char *cmd, const char *path, const ps_buf *b) {
  ps_err e = {{0}};
  if (ps_write_file_atomic(path, b->p ? b->p : "", b->len, &e) != PS_OK) {
    fprintf(stderr, "provesim %s: %s\n", cmd, e.msg);
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- progress */

static void progress_draw(const char *label, size_t done, size_t n, double elapsed) {
  const int width = 30;
  int fill = n > 0 ? (int)((double)width * (double)done / (double)n) : width;
  char bar[64];
  for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
  bar[width] = 0;
  char eta[32] = "ETA --";
  if (done > 0 && done < n) {
    double left = elapsed / (double)done * (double)(n - done);
    if (left >= 60)
      snprintf(eta, sizeof eta, "ETA %dm%02ds", (int)(left / 60), (int)fmod(left, 60));
    else
      snprintf(eta, sizeof eta, "ETA %.0fs", ceil(left));
  } else if (done >= n) {
    snprintf(eta, sizeof eta, "%.1fs", elapsed);
  }
  fprintf(stderr, "\r%s [%s] %zu/%zu %3d%%  %s\033[K", label, bar, done, n, n ? (int)(100 * done / n) : 100, eta);
  fflush(stderr);
}

/* A progress bar on standard error, drawn from par_for's tick on the caller's thread. */
typedef struct progress {
  char label[32];
  size_t n;
  double t0;
} progress;

static void progress_start(progress *p, const char *label, size_t n) {
  snprintf(p->label, sizeof p->label, "%s", label);
  p->n = n;
  p->t0 = ps_now();
  progress_draw(p->label, 0, n, 0);
}

static void progress_tick(void *ctx, size_t done) {
  progress *p = ctx;
  progress_draw(p->label, done, p->n, ps_now() - p->t0);
}

static void progress_end(progress *p) {
  progress_draw(p->label, p->n, p->n, ps_now() - p->t0);
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

/* The bottleneck's short name: the text before the first ':' of report_bottleneck. */
static void short_limit(const char *line, char *out, size_t n) {
  const char *c = strchr(line, ':');
  size_t k = c ? (size_t)(c - line) : strlen(line);
  if (k >= n) k = n - 1;
  memcpy(out, line, k);
  out[k] = 0;
}

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
  ps_buf_printf(b, "%8s %7s %10s %9s %9s %9s %7s  %s\n", "GPU util", "±95%", "parts/h", "±95%", "p99 lat s",
                "wait s", "CPU", "limited by");
  for (int i = 0; i < n; i++) {
    const whatif_point *p = &pts[i];
    for (int k = 0; k < nv; k++) ps_buf_printf(b, "%-*s  ", w[k], whatif_point_value(p, k));
    const report_summary *m = &p->sum;
    char ci1[16] = "-", ci2[16] = "-", lim[64];
    if (isfinite(m->gpu_util_mean_ci)) snprintf(ci1, sizeof ci1, "%.2f%%", 100 * m->gpu_util_mean_ci);
    if (isfinite(m->tput_ci)) snprintf(ci2, sizeof ci2, "%.1f", 3600 * m->tput_ci);
    short_limit(p->limit, lim, sizeof lim);
    double p99 = m->has_proofs ? m->proof_p99 : m->lat_p99;
    ps_buf_printf(b, "%7.2f%% %7s %10.1f %9s %9.3f %9.3f %6.1f%%  %s\n", 100 * m->gpu_util_mean, ci1,
                  3600 * m->tput, ci2, p99, m->wait_mean, 100 * m->cpu_util, lim);
  }
  free(w);
}

static void sweep_csv(ps_buf *b, const whatif_vary *vs, int nv, const whatif_point *pts, int n) {
  ps_buf_printf(b, "point");
  for (int k = 0; k < nv; k++) {
    ps_buf_append(b, ",", 1);
    csv_field(b, vs[k].key);
  }
  ps_buf_printf(b, ",scenario,gpus,workers_per_gpu,cpu_cores,batch,mutex,gpu_util,gpu_util_ci95,throughput_pps,"
                   "throughput_pps_ci95,proofs_per_hour,proofs_per_hour_ci95,latency_mean_s,latency_mean_s_ci95,"
                   "latency_p50_s,latency_p95_s,latency_p99_s,latency_p99_s_ci95,proof_latency_mean_s,"
                   "proof_latency_p99_s,proof_latency_p99_s_ci95,mutex_wait_mean_s,mutex_wait_mean_s_ci95,"
                   "mutex_held_mean_s,call_mean_s,cpu_util,cpu_util_ci95,gpu_idle_mutex_held,"
                   "gpu_idle_mutex_free,limited_by,replications,events\n");
  for (int i = 0; i < n; i++) {
    const whatif_point *p = &pts[i];
    const scenario *s = p->s;
    const report_summary *m = &p->sum;
    ps_buf_printf(b, "%d", i);
    for (int k = 0; k < nv; k++) {
      ps_buf_append(b, ",", 1);
      csv_field(b, whatif_point_value(p, k));
    }
    ps_buf_append(b, ",", 1);
    csv_field(b, s->name);
    ps_buf_printf(b, ",%d,%d,%d,%d,", s->gpus, s->workers_per_gpu, s->cpu_cores, s->batch);
    csv_field(b, s->mutex_name ? s->mutex_name : "none");
    csv_num(b, m->gpu_util_mean);
    csv_num(b, m->gpu_util_mean_ci);
    csv_num(b, m->tput);
    csv_num(b, m->tput_ci);
    csv_num(b, whatif_proofs_per_hour(s, m->tput));
    csv_num(b, whatif_proofs_per_hour(s, m->tput_ci));
    csv_num(b, m->lat_mean);
    csv_num(b, m->lat_mean_ci);
    csv_num(b, m->lat_p50);
    csv_num(b, m->lat_p95);
    csv_num(b, m->lat_p99);
    csv_num(b, m->lat_p99_ci);
    csv_num(b, m->has_proofs ? m->proof_mean : NAN);
    csv_num(b, m->has_proofs ? m->proof_p99 : NAN);
    csv_num(b, m->has_proofs ? m->proof_p99_ci : NAN);
    csv_num(b, m->wait_mean);
    csv_num(b, m->wait_mean_ci);
    csv_num(b, m->held_mean);
    csv_num(b, m->call_mean);
    csv_num(b, m->cpu_util);
    csv_num(b, m->cpu_util_ci);
    csv_num(b, m->idle_held);
    csv_num(b, m->idle_free);
    char lim[64];
    short_limit(p->limit, lim, sizeof lim);
    ps_buf_append(b, ",", 1);
    csv_field(b, lim);
    ps_buf_printf(b, ",%d,%lld\n", m->nreps, (long long)m->events);
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
    for (int j = 0; j < vs[k].nvals; j++) cJSON_AddItemToArray(vals, json_value(vs[k].vals[j]));
    cJSON_AddItemToArray(va, o);
  }
  cJSON *arr = cJSON_AddArrayToObject(root, "points");
  for (int i = 0; i < n; i++) {
    const whatif_point *p = &pts[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "point", i);
    cJSON *set = cJSON_AddObjectToObject(o, "values");
    for (int k = 0; k < nv; k++) cJSON_AddItemToObject(set, vs[k].key, json_value(whatif_point_value(p, k)));
    cJSON *sys = cJSON_AddObjectToObject(o, "system");
    cJSON_AddNumberToObject(sys, "gpus", p->s->gpus);
    cJSON_AddNumberToObject(sys, "workers_per_gpu", p->s->workers_per_gpu);
    cJSON_AddNumberToObject(sys, "cpu_cores", p->s->cpu_cores);
    cJSON_AddNumberToObject(sys, "batch", p->s->batch);
    cJSON_AddStringToObject(sys, "mutex", p->s->mutex_name ? p->s->mutex_name : "none");
    cJSON *doc = report_json(p->s, &p->sum);
    cJSON_AddItemToObject(o, "metrics", cJSON_DetachItemFromObject(doc, "metrics"));
    cJSON_AddItemToObject(o, "ci95", cJSON_DetachItemFromObject(doc, "ci95"));
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
      if (parse_int(v, 1, 4096, &jobs)) {
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

  int sr = whatif_sweep_new(path, sets, nsets, vs, nv, &sw, &e);
  if (sr == PS_OK) {
    progress bar;
    int tty = isatty(2);
    if (tty) progress_start(&bar, "sweep", (size_t)sw->npts);
    sr = whatif_sweep_run(sw, jobs, tty ? progress_tick : NULL, &bar, &e);
    if (tty) progress_end(&bar);
  }
  if (sr != PS_OK) {
    fprintf(stderr, "provesim sweep: %s\n", e.msg);
    rc = sr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }

  rc = PS_EXIT_OK;
  int npts = (int)sw->npts;
  ps_buf cb = {0}, jb = {0};
  if (csvf) sweep_csv(&cb, vs, nv, sw->pts, npts);
  if (jsonf) sweep_json(&jb, path, vs, nv, sw->pts, npts);
  /* Write both or neither. */
  if (csvf && write_out("sweep", csvf, &cb)) rc = PS_EXIT_FAIL;
  if (rc == PS_EXIT_OK && jsonf && write_out("sweep", jsonf, &jb)) {
    if (csvf) unlink(csvf);
    rc = PS_EXIT_FAIL;
  }
  ps_buf_free(&cb);
  ps_buf_free(&jb);
  if (rc == PS_EXIT_OK && !quiet) {
    ps_buf tb = {0};
    sweep_table(&tb, vs, nv, sw->pts, npts);
    fwrite(tb.p, 1, tb.len, stdout);
    ps_buf_free(&tb);
  }
done:
  whatif_sweep_free(sw);
  for (int k = 0; k < nv; k++) whatif_vary_free(&vs[k]);
  free(vs);
  free(sets);
  return rc;
}

/* ================================================================ estimate */

static const char estimate_help[] =
    "usage: provesim estimate SCENARIO [--set KEY=VALUE]... [--json]\n"
    "\n"
    "Puts the analytic answers beside the simulated one: the exact closed form of a\n"
    "deterministic pipeline behind a lock, the finite-source (machine-repairman) queue\n"
    "M/M/c//N, exact Mean Value Analysis with a load-dependent multi-core CPU station, and\n"
    "the asymptotic bounds. Says which assumptions of each model the scenario meets, and how\n"
    "far the simulation is from each figure. Models whose assumptions fail are still shown,\n"
    "marked approximate, when they can be computed from the phases' means.\n"
    "\n"
    "options:\n"
    "  --set KEY=VALUE   override a scenario or model key (repeatable)\n"
    "  --json            print a provesim.estimate/1 JSON document instead of the table\n"
    "  --threads N       threads for the simulation's replications (default: all cores)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 success, 1 run failure, 2 bad input\n"
    "\n"
    "example:\n"
    "  provesim estimate configs/seed-coarse-mutex.yaml --set system.mutex=kernels\n";

static void yesno(ps_buf *b, cJSON *o, const char *key, int v, const char *text) {
  ps_buf_printf(b, "  [%s] %s\n", v ? "yes" : " no", text);
  cJSON_AddBoolToObject(o, key, v);
}

/* The table into b and the provesim.estimate/1 document (returned; cJSON_Delete). */
static cJSON *estimate_render(ps_buf *b, const scenario *s, const est_result *est) {
  const an_assume *a = &est->a;
  const est_decomp *d = &est->d;
  const report_summary *sum = &est->sim;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.estimate/1");
  cJSON_AddStringToObject(root, "scenario", s->name);
  ps_buf_printf(b, "scenario  %s (model %s)\n", s->name, s->model->name);
  ps_buf_printf(b, "system    %d GPU%s x %d worker%s, %d CPU cores, batch %d, mutex %s\n\n", s->gpus,
                s->gpus > 1 ? "s" : "", s->workers_per_gpu, s->workers_per_gpu > 1 ? "s" : "", s->cpu_cores,
                s->batch, s->mutex_name ? s->mutex_name : "none");
  ps_buf_printf(b, "assumptions\n");
  cJSON *ja = cJSON_AddObjectToObject(root, "assumptions");
  yesno(b, ja, "closed", a->closed, "closed backlog (no arrival process)");
  yesno(b, ja, "sequential", a->sequential, "phases run one after another (no concurrent phases, no barrier)");
  yesno(b, ja, "deterministic", a->deterministic, "every phase time is constant");
  yesno(b, ja, "gpu_exclusive", a->gpu_exclusive, "GPU phases of one GPU run one at a time");
  yesno(b, ja, "cores_enough", a->cores_enough, "enough cores that no worker waits for one");
  yesno(b, ja, "no_pcie", a->no_pcie, "no PCIe phase");
  yesno(b, ja, "lock_covers_gpu", a->lock_covers_gpu, "every GPU phase lies inside the lock region");
  yesno(b, ja, "single_gpu_exponential", a->single_gpu_exponential,
        "one GPU phase, exponential, batch 1 (machine repairman)");
  ps_buf_printf(b, "\nper call (means): %.4f s inside the lock, %.4f s outside it, %.4f s on the GPU\n", d->t_locked,
                d->t_free, d->t_gpu);
  if (d->t_locked_max > d->t_locked)
    ps_buf_printf(b, "  (critical path of the lock region alone; uncontended the lock is held %.4f s, from its\n"
                     "  request to its release, while work beside the region finishes)\n",
                  d->t_locked_max);
  cJSON *jc = cJSON_AddObjectToObject(root, "per_call_s");
  report_json_num(jc, "locked", d->t_locked);
  report_json_num(jc, "free", d->t_free);
  report_json_num(jc, "gpu", d->t_gpu);
  if (est->has_repairman) {
    cJSON *jr = cJSON_AddObjectToObject(root, "repairman");
    cJSON_AddNumberToObject(jr, "customers", est->rp_customers);
    cJSON_AddNumberToObject(jr, "servers", est->rp_servers);
    cJSON_AddNumberToObject(jr, "think_s", est->rp_think_s);
    cJSON_AddNumberToObject(jr, "service_s", est->rp_service_s);
    cJSON_AddNumberToObject(jr, "p0", est->rp.p0);
    cJSON_AddNumberToObject(jr, "throughput", est->rp.throughput);
    cJSON_AddNumberToObject(jr, "utilization", est->rp.utilization);
    cJSON_AddNumberToObject(jr, "response_s", est->rp.response);
  }

  double sx = sum->tput, sxc = sum->tput_ci, su = sum->gpu_util_mean, suc = sum->gpu_util_mean_ci;
  ps_buf_printf(b, "\n  %-44s %-12s %18s %16s  %s\n", "model", "status", "throughput (p/s)", "GPU util",
                "simulation vs model");
  char xs[64], us[64];
  snprintf(xs, sizeof xs, isfinite(sxc) ? "%.6f ±%.6f" : "%.6f", sx, sxc);
  snprintf(us, sizeof us, isfinite(suc) ? "%.2f%% ±%.2f%%" : "%.2f%%", 100 * su, 100 * suc);
  char simlabel[64];
  snprintf(simlabel, sizeof simlabel, "simulation (%d replication%s)", sum->nreps, sum->nreps > 1 ? "s" : "");
  ps_buf_printf(b, "  %-44s %-12s %18s %16s\n", simlabel, "", xs, us);
  cJSON *js = cJSON_AddObjectToObject(root, "simulation");
  report_json_num(js, "throughput_pps", sx);
  report_json_num(js, "throughput_pps_ci95", sxc);
  report_json_num(js, "gpu_util", su);
  report_json_num(js, "gpu_util_ci95", suc);
  cJSON_AddNumberToObject(js, "replications", sum->nreps);
  cJSON *jrows = cJSON_AddArrayToObject(root, "analytic");
  for (int k = 0; k < est->nrows; k++) {
    const est_row *r = &est->rows[k];
    cJSON *jo = cJSON_CreateObject();
    cJSON_AddStringToObject(jo, "model", r->name);
    cJSON_AddStringToObject(jo, "label", r->label);
    cJSON_AddStringToObject(jo, "status", r->status);
    cJSON_AddStringToObject(jo, "why", r->why);
    char gap[96];
    if (!strcmp(r->status, "bounds")) {
      snprintf(xs, sizeof xs, "[%.4f, %.4f]", r->x_lo, r->x_hi);
      snprintf(us, sizeof us, "-");
      snprintf(gap, sizeof gap, "inside: %s", !r->inside ? "NO" : r->inside_strict ? "yes" : "yes, within the CI");
      report_json_num(jo, "throughput_lower_pps", r->x_lo);
      report_json_num(jo, "throughput_upper_pps", r->x_hi);
      cJSON_AddBoolToObject(jo, "simulation_inside", r->inside);
    } else {
      snprintf(xs, sizeof xs, "%.6f", r->x);
      snprintf(us, sizeof us, "%.2f%%", 100 * r->util);
      snprintf(gap, sizeof gap, "%+.2f%%%s", 100 * r->gap, r->within_ci ? " (within the CI)" : "");
      report_json_num(jo, "throughput_pps", r->x);
      report_json_num(jo, "gpu_util", r->util);
      report_json_num(jo, "gap", r->gap);
      cJSON_AddBoolToObject(jo, "within_ci", r->within_ci);
    }
    ps_buf_printf(b, "  %-44s %-12s %18s %16s  %s\n", r->label, r->status, xs, us, gap);
    cJSON_AddItemToArray(jrows, jo);
  }
  if (est->nrows == 0) ps_buf_printf(b, "  (no analytic model applies to this scenario)\n");
  ps_buf_printf(b, "\n");
  for (int k = 0; k < est->nrows; k++) ps_buf_printf(b, "  %s: %s\n", est->rows[k].label, est->rows[k].why);
  if (est->has_repairman)
    ps_buf_printf(b,
                  "\nmachine repairman: N=%d, c=%d, Z=%.6g s, S=%.6g s: p0 = %.6f, throughput %.6f/s, "
                  "utilization %.6f, response %.6f s, queue %.6f\n",
                  est->rp_customers, est->rp_servers, est->rp_think_s, est->rp_service_s, est->rp.p0,
                  est->rp.throughput, est->rp.utilization, est->rp.response, est->rp.queue_len);
  return root;
}

int sim_cmd_estimate(int argc, char **argv) {
  const char *path = NULL;
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, json = 0, threads = 0, rc = PS_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(estimate_help, stdout);
      free(sets);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("estimate", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      if (parse_int(v, 1, 4096, &threads)) {
        rc = cli_usage_error("estimate", "--threads: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (a[0] == '-' && a[1]) {
      rc = cli_usage_error("estimate", "unknown option %s", a);
      goto done;
    } else if (!path) {
      path = a;
    } else {
      rc = cli_usage_error("estimate", "unexpected argument %s: one scenario at a time", a);
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("estimate", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("estimate", "%s", "expected a scenario file");
    goto done;
  }

  scenario *s = NULL;
  ps_err e = {{0}};
  int lr = scn_load(path, sets, nsets, &s, &e);
  if (lr != PS_OK) {
    fprintf(stderr, "provesim estimate: %s\n", e.msg);
    rc = lr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }
  est_result est;
  int sr = est_run(s, threads, &est, &e);
  if (sr != PS_OK) {
    fprintf(stderr, "provesim estimate: %s\n", e.msg);
    scn_free(s);
    rc = sr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }
  ps_buf b = {0};
  cJSON *root = estimate_render(&b, s, &est);
  if (json) {
    char *txt = cJSON_Print(root);
    fputs(txt, stdout);
    fputc('\n', stdout);
    free(txt);
  } else {
    fwrite(b.p, 1, b.len, stdout);
  }
  cJSON_Delete(root);
  ps_buf_free(&b);
  est_free(&est);
  scn_free(s);
  rc = PS_EXIT_OK;
done:
  free(sets);
  return rc;
}

/* ================================================================ plan */

static const char plan_help[] =
    "usage: provesim plan SCENARIO --target proofs_per_hour=X [--max p99_latency_s=Y]\n"
    "                     [--budget gpus=G,cpu_cores=C,host_mem_gib=M] [options]\n"
    "\n"
    "Searches GPUs, workers per GPU, batch, mutex scope (the model's named scopes) and CPU\n"
    "cores for the cheapest configuration that meets the target: fewest GPUs, then fewest\n"
    "cores, then least host memory (a phase's host_mem_gib is held by every partition in\n"
    "flight: gpus x workers x batch of them), then fewer workers and smaller batches. Prints\n"
    "it, what stops the next-cheaper configuration, and the frontier it explored (the\n"
    "configurations no other beats on cost and throughput and latency). Says plainly when\n"
    "nothing within the budget meets the target.\n"
    "\n"
    "A closed backlog meets the target when the simulated proofs per hour reach it (0.1%\n"
    "tolerance). With arrivals, each configuration is simulated with the arrival rate set to\n"
    "the target; it meets it when it keeps up (throughput within 2% of it) and, with --max,\n"
    "the p99 proof latency is within the limit. p99 latency is the partitions' p99 latency\n"
    "for a closed backlog.\n"
    "\n"
    "options:\n"
    "  --target proofs_per_hour=X   the throughput to reach (required)\n"
    "  --max p99_latency_s=Y        a limit on the p99 latency\n"
    "  --budget gpus=G,cpu_cores=C,host_mem_gib=M\n"
    "                               limits of the search (defaults: 16 GPUs, the scenario's\n"
    "                               cores per GPU times the GPUs, no memory limit)\n"
    "  --max-workers N              workers per GPU tried: 1..N (default 8)\n"
    "  --batches LIST               batch sizes tried (default 1,2,4)\n"
    "  --set KEY=VALUE              override a scenario or model key first (repeatable),\n"
    "                               e.g. --set run.replications=3 for a faster search\n"
    "  --jobs N                     simulations at once (default: all cores)\n"
    "  --csv FILE                   write every configuration evaluated\n"
    "  -h, --help                   this text\n"
    "\n"
    "exit codes: 0 a plan was printed (also when nothing meets the target), 1 run failure,\n"
    "2 bad input\n"
    "\n"
    "example:\n"
    "  provesim plan configs/capacity-8gpu.yaml --target proofs_per_hour=60 --max p99_latency_s=600\n";

static void cfg_desc(const plan_result *r, const plan_cfg *p, char *buf, size_t n) {
  snprintf(buf, n, "%d GPU%s x %d worker%s, batch %d, mutex %s, %d core%s", p->gpus, p->gpus > 1 ? "s" : "", p->workers,
           p->workers > 1 ? "s" : "", p->batch, r->scopes[p->scope].name, p->cores, p->cores > 1 ? "s" : "");
}

/* The progress bar of each GPU level. */
static void plan_progress(void *ctx, int gpus, size_t done, size_t n) {
  progress *bar = ctx;
  if (done == 0) {
    char label[32];
    snprintf(label, sizeof label, "plan %d GPU%s", gpus, gpus > 1 ? "s" : "");
    progress_start(bar, label, n);
  } else if (done < n) {
    progress_tick(bar, done);
  } else {
    progress_end(bar);
  }
}

static void plan_text(ps_buf *b, const char *path, const scenario *s, const plan_limits *lim, const char *batches,
                      int cores_budget, const plan_result *r) {
  char desc[256];
  ps_buf_printf(b, "plan for %s: %.1f proofs/hour", s->name, lim->target_pph);
  if (lim->has_max) ps_buf_printf(b, ", p99 %s latency <= %.1f s", r->open ? "proof" : "partition", lim->max_p99_s);
  ps_buf_printf(b, "\nsearched: 1..%d GPUs, 1..%d workers per GPU, batch %s, mutex ", r->gpus_searched,
                lim->max_workers, batches);
  for (int k = 0; k < r->nscopes; k++) ps_buf_printf(b, "%s%s", k ? "/" : "", r->scopes[k].name);
  ps_buf_printf(b, ", cores up to %s", cores_budget ? "the budget" : "the scenario's cores per GPU");
  if (lim->has_mem) ps_buf_printf(b, ", host memory <= %.1f GiB", lim->max_mem_gib);
  ps_buf_printf(b, "\n          %d configurations, %d simulations, %.1f s\n\n", r->nall, r->sims, r->wall_s);

  if (r->found) {
    const plan_cfg *p = &r->best;
    cfg_desc(r, p, desc, sizeof desc);
    ps_buf_printf(b, "cheapest: %s\n", desc);
    ps_buf_printf(b, "          %.1f proofs/hour, p99 latency %.1f s, GPU utilization %.1f%%, host memory %.1f GiB\n",
                  p->pph, p->p99, 100 * p->util, p->mem);
    ps_buf_printf(b, "          (provesim simulate %s --set system.gpus=%d --set system.workers_per_gpu=%d "
                     "--set system.batch=%d --set system.mutex=%s --set system.cpu_cores=%d)\n\n",
                  path, p->gpus, p->workers, p->batch, r->scopes[p->scope].name, p->cores);
    ps_buf_printf(b, "next cheaper:\n");
    if (r->has_fewer_cores) {
      const plan_cfg *q = &r->fewer_cores;
      ps_buf_printf(b, "  with %d core%s: %.1f proofs/h, p99 %.1f s; limited by: %s\n", q->cores, q->cores > 1 ? "s" : "",
                    q->pph, q->p99, q->limit);
    }
    const plan_near *f = &r->fewer_gpus;
    if (f->kind == PLAN_BOUND) {
      ps_buf_printf(b, "  with %d GPU%s: nothing worth simulating; %s\n", p->gpus - 1, p->gpus > 2 ? "s" : "",
                    f->cfg.limit);
    } else if (f->kind == PLAN_SIMULATED) {
      cfg_desc(r, &f->cfg, desc, sizeof desc);
      ps_buf_printf(b, "  with %d GPU%s, the best (%s) reaches %.1f proofs/h; limited by: %s\n", p->gpus - 1,
                    p->gpus > 2 ? "s" : "", desc, f->cfg.pph, f->cfg.limit);
    }
    if (!r->has_fewer_cores && f->kind == PLAN_NONE)
      ps_buf_printf(b, "  none: one GPU and one core is the cheapest there is\n");
  } else {
    const plan_near *f = &r->closest;
    ps_buf_printf(b, "NO CONFIGURATION MEETS THE TARGET within the budget.\n");
    if (f->kind == PLAN_SIMULATED) {
      cfg_desc(r, &f->cfg, desc, sizeof desc);
      ps_buf_printf(b, "the best simulated: %s: %.1f proofs/h, p99 %.1f s\n  limited by: %s\n", desc, f->cfg.pph,
                    f->cfg.p99, f->cfg.limit);
    } else if (f->kind == PLAN_BOUND) {
      ps_buf_printf(b, "no configuration was worth simulating: at best %.1f proofs/h\n  limited by: %s\n", f->cfg.pph,
                    f->cfg.limit);
    }
  }

  ps_buf_printf(b, "\nfrontier explored (no other configuration is as cheap, as fast and as quick):\n");
  ps_buf_printf(b, "  %4s %7s %5s %-10s %5s %8s %10s %9s %8s  %s\n", "gpus", "workers", "batch", "mutex", "cores",
                "mem GiB", "proofs/h", "p99 s", "GPU", "meets");
  if (r->nlog == 0) ps_buf_printf(b, "  (nothing simulated: every configuration was ruled out by a bound)\n");
  for (int i = 0; i < r->nfrontier; i++) {
    const plan_cfg *p = &r->frontier[i];
    ps_buf_printf(b, "  %4d %7d %5d %-10s %5d %8.1f %10.1f %9.1f %7.1f%%  %s\n", p->gpus, p->workers, p->batch,
                  r->scopes[p->scope].name, p->cores, p->mem, p->pph, p->p99, 100 * p->util, p->meets ? "yes" : "no");
  }
}

/* Every configuration evaluated: the simulated ones, then those a bound ruled out. */
static void plan_csv(ps_buf *b, const plan_result *r) {
  ps_buf_printf(b, "gpus,workers_per_gpu,batch,mutex,cpu_cores,host_mem_gib,simulated,proofs_per_hour,"
                   "p99_latency_s,gpu_util,meets,limited_by\n");
  for (int i = 0; i < r->nall + r->nlog; i++) {
    const plan_cfg *p = i < r->nlog ? &r->log[i] : &r->all[i - r->nlog];
    if (i >= r->nlog && p->simulated) continue; /* in the log already */
    ps_buf_printf(b, "%d,%d,%d,", p->gpus, p->workers, p->batch);
    csv_field(b, r->scopes[p->scope].name);
    ps_buf_printf(b, ",%d,%.9g,%d", p->cores, p->mem, p->simulated);
    csv_num(b, p->simulated ? p->pph : NAN);
    csv_num(b, p->simulated ? p->p99 : NAN);
    csv_num(b, p->simulated ? p->util : NAN);
    ps_buf_printf(b, ",%d,", p->meets);
    csv_field(b, p->limit);
    ps_buf_append(b, "\n", 1);
  }
}

static int parse_kv_list(const char *cmd, const char *opt, const char *text, const char *const *keys, double *vals,
                         int *given) {
  char *dup = xstrdup(text), *save = NULL;
  int rc = 0;
  for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    int k = -1;
    if (eq) {
      *eq = 0;
      for (int j = 0; keys[j]; j++)
        if (!strcmp(tok, keys[j])) k = j;
    }
    if (!eq || k < 0) {
      fprintf(stderr, "provesim %s: %s %s: expected ", cmd, opt, text);
      for (int j = 0; keys[j]; j++) fprintf(stderr, "%s%s=NUMBER", j ? " or " : "", keys[j]);
      fprintf(stderr, ", got \"%s\"\n", tok);
      rc = -1;
      break;
    }
    if (parse_num(eq + 1, &vals[k]) || !(vals[k] > 0)) {
      fprintf(stderr, "provesim %s: %s %s: %s: expected a number > 0, got \"%s\"\n", cmd, opt, text, tok, eq + 1);
      rc = -1;
      break;
    }
    given[k] = 1;
  }
  free(dup);
  return rc;
}

int sim_cmd_plan(int argc, char **argv) {
  const char *path = NULL, *csvf = NULL, *target = NULL, *maxs = NULL, *budget = NULL, *batches = "1,2,4";
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, jobs = 0, maxw = 8, rc = PS_EXIT_USAGE;
  scenario *s = NULL;
  plan_result res = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(plan_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--target")) {
      if (!(v = cli_optval(argc, argv, &i, "--target"))) goto missing;
      target = v;
    } else if (cli_is_opt(a, "--max")) {
      if (!(v = cli_optval(argc, argv, &i, "--max"))) goto missing;
      maxs = v;
    } else if (cli_is_opt(a, "--budget")) {
      if (!(v = cli_optval(argc, argv, &i, "--budget"))) goto missing;
      budget = v;
    } else if (cli_is_opt(a, "--max-workers")) {
      if (!(v = cli_optval(argc, argv, &i, "--max-workers"))) goto missing;
      if (parse_int(v, 1, 256, &maxw)) {
        rc = cli_usage_error("plan", "--max-workers: expected an integer from 1 to 256, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--batches")) {
      if (!(v = cli_optval(argc, argv, &i, "--batches"))) goto missing;
      batches = v;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("plan", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--jobs") || !strcmp(a, "-j")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'j' ? "-j" : "--jobs"))) goto missing;
      if (parse_int(v, 1, 4096, &jobs)) {
        rc = cli_usage_error("plan", "--jobs: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--csv")) {
      if (!(v = cli_optval(argc, argv, &i, "--csv"))) goto missing;
      csvf = v;
    } else if (a[0] == '-' && a[1]) {
      rc = cli_usage_error("plan", "unknown option %s", a);
      goto done;
    } else if (!path) {
      path = a;
    } else {
      rc = cli_usage_error("plan", "unexpected argument %s: one scenario at a time", a);
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("plan", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("plan", "%s", "expected a scenario file");
    goto done;
  }
  if (!target) {
    rc = cli_usage_error("plan", "%s", "expected --target proofs_per_hour=X");
    goto done;
  }
  static const char *const tkeys[] = {"proofs_per_hour", NULL}, *const mkeys[] = {"p99_latency_s", NULL},
                           *const bkeys[] = {"gpus", "cpu_cores", "host_mem_gib", NULL};
  double tv[1] = {0}, mv[1] = {0}, bv[3] = {0};
  int tg[1] = {0}, mg[1] = {0}, bg[3] = {0};
  if (parse_kv_list("plan", "--target", target, tkeys, tv, tg) || !tg[0]) goto done;
  if (maxs && parse_kv_list("plan", "--max", maxs, mkeys, mv, mg)) goto done;
  if (budget && parse_kv_list("plan", "--budget", budget, bkeys, bv, bg)) goto done;
  int bl[16], nb = 0;
  {
    char *dup = xstrdup(batches), *save = NULL;
    int bad = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok && !bad; tok = strtok_r(NULL, ",", &save))
      if (nb >= 16 || parse_int(tok, 1, 1024, &bl[nb++])) bad = 1;
    free(dup);
    if (bad || nb == 0) {
      rc = cli_usage_error("plan", "--batches: expected up to 16 integers >= 1 separated by commas, got \"%s\"", batches);
      goto done;
    }
  }

  ps_err e = {{0}};
  int lr = scn_load(path, sets, nsets, &s, &e);
  if (lr != PS_OK) {
    fprintf(stderr, "provesim plan: %s\n", e.msg);
    rc = lr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }

  plan_limits lim = {.target_pph = tv[0], .has_max = mg[0], .max_p99_s = mv[0],
                     .max_gpus = bg[0] ? (int)bv[0] : 16, .max_cores = (int)bv[1], .has_mem = bg[2],
                     .max_mem_gib = bv[2], .max_workers = maxw, .batches = bl, .nbatches = nb, .jobs = jobs};
  progress bar;
  if (isatty(2)) {
    lim.progress = plan_progress;
    lim.progress_ctx = &bar;
  }
  int pr = plan_search(s, &lim, &res, &e);
  if (pr != PS_OK) {
    fprintf(stderr, "provesim plan: %s\n", e.msg);
    rc = pr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }
  ps_buf b = {0};
  plan_text(&b, path, s, &lim, batches, bg[1], &res);
  rc = PS_EXIT_OK;
  if (csvf) {
    ps_buf cb = {0};
    plan_csv(&cb, &res);
    if (write_out("plan", csvf, &cb)) rc = PS_EXIT_FAIL;
    ps_buf_free(&cb);
  }
  if (rc == PS_EXIT_OK) fwrite(b.p, 1, b.len, stdout);
  ps_buf_free(&b);
done:
  plan_result_free(&res);
  scn_free(s);
  free(sets);
  return rc;
}
