/* `provesim sensitivity`: argv, help, and the table or provesim.sensitivity/1 document of
 * what sim/sensitivity.h computes (docs/whatif.md, "Sensitivity"). */
#include "cli_sensitivity.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "scn.h"
#include "sensitivity.h"

static const char sensitivity_help[] =
    "usage: provesim sensitivity SCENARIO [--metric throughput|gpu_util|latency|p99] [--delta 10%]\n"
    "                            [--set KEY=VALUE]... [--json] [-o FILE] [--threads N]\n"
    "\n"
    "Which input is worth changing? Moves each input down and up by delta, one at a time,\n"
    "simulates each move, and lists the change of the metric, largest first, each with the\n"
    "95% CI of the change. Inputs: every phase's time (every draw scaled by 1 - delta and\n"
    "1 + delta, its per-call part too), the counts system.workers_per_gpu, system.gpus,\n"
    "system.batch and system.cpu_cores (moved by whole steps: delta of the value rounded, at\n"
    "least 1), and an open workload's proofs_per_hour (or a trace's rate_scale), scaled.\n"
    "Every run uses the same seed and replication streams as the base run (common random\n"
    "numbers) and the CI is that of the per-replication differences, so small effects stand\n"
    "out of the noise; with constant phase times an input that changes nothing shows 0.\n"
    "Each run has run.replications replications (run.precision is not applied).\n"
    "\n"
    "options:\n"
    "  --metric M        throughput (partitions/s, default), gpu_util (mean over GPUs),\n"
    "                    latency (partition latency, mean, s) or p99 (its 99th percentile, s)\n"
    "  --delta D         how far each input moves: 10% or 0.1 (default 10%; from 0.1% to 90%)\n"
    "  --set KEY=VALUE   override a scenario or model key (repeatable) before anything moves\n"
    "  --json            print a provesim.sensitivity/1 JSON document instead of the table\n"
    "  -o, --out FILE    write to FILE instead of standard output\n"
    "  --threads N       simulations run N at a time (default: all cores); results do not\n"
    "                    depend on N\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 success, 1 run failure (I/O), 2 bad input (the message names file:line:col)\n"
    "\n"
    "example:\n"
    "  provesim sensitivity configs/seed-coarse-mutex.yaml --metric gpu_util --delta 20%\n";

/* How the table shows a metric: gpu_util in percent (effects in points). */
static double tscale(run_metric m) { return m == RM_GPU_UTIL ? 100 : 1; }
static const char *tunit(run_metric m) {
  return m == RM_THROUGHPUT ? "partitions/s" : m == RM_GPU_UTIL ? "%" : "s";
}

static void side_cells(ps_buf *b, const sens_input *in, const sens_side *sd, run_metric m, double base) {
  char c1[64], c2[64];
  if (!sd->ok) {
    ps_buf_printf(b, "  %-22s %-28s", "(not run)", "");
    return;
  }
  double k = tscale(m);
  if (in->integer) snprintf(c1, sizeof c1, "%.0f: %.5g", sd->input, k * sd->value);
  else snprintf(c1, sizeof c1, "%.4g: %.5g", sd->input, k * sd->value);
  int n = snprintf(c2, sizeof c2, "%+.3g", k * sd->effect);
  if (base != 0) n += snprintf(c2 + n, sizeof c2 - (size_t)n, " (%+.1f%%)", 100 * sd->effect / fabs(base));
  if (isfinite(sd->ci95)) snprintf(c2 + n, sizeof c2 - (size_t)n, " ±%.2g", k * sd->ci95);
  ps_buf_printf(b, "  %-22s %-28s", c1, c2);
}

static void render_table(ps_buf *b, const sens_result *r) {
  run_metric m = r->metric;
  double k = tscale(m);
  ps_buf_printf(b, "sensitivity of %s (%s) in %s: each input moved by -%g%% and +%g%%\n", run_metric_name(m),
                tunit(m), r->s->name, 100 * r->delta, 100 * r->delta);
  ps_buf_printf(b, "base      %.5g", k * r->base);
  if (isfinite(r->base_ci95)) ps_buf_printf(b, " ±%.2g", k * r->base_ci95);
  ps_buf_printf(b, " %s over %d replication%s; %lld simulations with common random numbers\n", tunit(m), r->nreps,
                r->nreps > 1 ? "s" : "", (long long)r->runs);
  ps_buf_printf(b, "          counts move by max(1, round(%g%% of the value)); a phase's every draw is scaled\n\n",
                100 * r->delta);
  ps_buf_printf(b, "  %-36s  %-22s %-28s  %-22s %s\n", "input (base)", "low: value", "effect (95% CI)",
                "high: value", "effect (95% CI)");
  for (int i = 0; i < r->nin; i++) {
    const sens_input *in = &r->in[i];
    char name[200];
    if (in->integer) snprintf(name, sizeof name, "%s (%.0f)", in->name, in->base_input);
    else snprintf(name, sizeof name, "%s (%.4g)", in->name, in->base_input);
    ps_buf_printf(b, "  %-36s", name);
    side_cells(b, in, &in->low, m, r->base);
    side_cells(b, in, &in->high, m, r->base);
    while (b->len && b->p[b->len - 1] == ' ') b->p[--b->len] = 0;
    ps_buf_printf(b, "\n");
  }
  int notes = 0;
  for (int i = 0; i < r->nin; i++)
    for (int s = 0; s < 2; s++) {
      const sens_side *sd = s ? &r->in[i].high : &r->in[i].low;
      if (sd->ok) continue;
      if (!notes++) ps_buf_printf(b, "\nnot run:\n");
      ps_buf_printf(b, "  %s %s: %s\n", r->in[i].name, s ? "high" : "low", sd->why);
    }
}

static void side_json(cJSON *o, const char *suffix, const sens_side *sd) {
  char k[32];
  snprintf(k, sizeof k, "%s_input", suffix);
  report_json_num(o, k, sd->ok ? sd->input : NAN);
  report_json_num(o, suffix, sd->ok ? sd->value : NAN);
  snprintf(k, sizeof k, "effect_%s", suffix);
  report_json_num(o, k, sd->ok ? sd->effect : NAN);
  snprintf(k, sizeof k, "ci95_%s", suffix);
  report_json_num(o, k, sd->ok ? sd->ci95 : NAN);
  if (!sd->ok) {
    snprintf(k, sizeof k, "skipped_%s", suffix);
    cJSON_AddStringToObject(o, k, sd->why);
  }
}

static cJSON *render_json(const sens_result *r) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.sensitivity/1");
  cJSON_AddItemToObject(root, "scenario", scn_to_json(r->s));
  cJSON_AddStringToObject(root, "metric", run_metric_name(r->metric));
  cJSON_AddStringToObject(root, "unit", r->metric == RM_THROUGHPUT ? "partitions/s"
                                        : r->metric == RM_GPU_UTIL ? "fraction" : "s");
  cJSON_AddNumberToObject(root, "delta", r->delta);
  cJSON_AddNumberToObject(root, "replications", r->nreps);
  cJSON *base = cJSON_AddObjectToObject(root, "base");
  report_json_num(base, "value", r->base);
  report_json_num(base, "ci95", r->base_ci95);
  cJSON *ef = cJSON_AddArrayToObject(root, "effects");
  for (int i = 0; i < r->nin; i++) {
    const sens_input *in = &r->in[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "input", in->name);
    cJSON_AddStringToObject(o, "kind", in->kind == SENS_PHASE ? "phase" : "system");
    cJSON_AddStringToObject(o, "key", in->key);
    cJSON_AddStringToObject(o, "step", in->integer ? "count" : "scale");
    report_json_num(o, "base_input", in->base_input);
    side_json(o, "low", &in->low);
    side_json(o, "high", &in->high);
    cJSON_AddItemToArray(ef, o);
  }
  cJSON_AddNumberToObject(root, "simulations", (double)r->runs);
  return root;
}

/* "10%" or "0.1" into *out, within (0.001, 0.9). */
static int parse_delta(const char *v, double *out) {
  char buf[64];
  size_t n = strlen(v);
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, v, n + 1);
  double scale = 1;
  if (buf[n - 1] == '%') buf[n - 1] = 0, scale = 0.01;
  double d;
  if (ps_parse_num(buf, &d)) return -1;
  d *= scale;
  if (!(d >= 0.001 && d <= 0.9)) return -1;
  *out = d;
  return 0;
}

int sim_cmd_sensitivity(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, json = 0, threads = 0, rc = PS_EXIT_USAGE;
  run_metric metric = RM_THROUGHPUT;
  double delta = 0.1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(sensitivity_help, stdout);
      free(sets);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("sensitivity", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--metric")) {
      if (!(v = cli_optval(argc, argv, &i, "--metric"))) goto missing;
      int k = run_metric_parse(v);
      if (k < 0) {
        rc = cli_usage_error("sensitivity", "--metric: expected one of " RUN_METRIC_NAMES ", got \"%s\"", v);
        goto done;
      }
      metric = (run_metric)k;
    } else if (cli_is_opt(a, "--delta")) {
      if (!(v = cli_optval(argc, argv, &i, "--delta"))) goto missing;
      if (parse_delta(v, &delta)) {
        rc = cli_usage_error("sensitivity", "--delta: expected a share from 0.1%% to 90%% (10%% or 0.1), got \"%s\"",
                             v);
        goto done;
      }
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (cli_is_opt(a, "--out") || !strcmp(a, "-o")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out"))) goto missing;
      out = v;
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      if (ps_parse_int(v, 1, 4096, &threads)) {
        rc = cli_usage_error("sensitivity", "--threads: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (cli_operand("sensitivity", a, &path)) {
      rc = PS_EXIT_USAGE;
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("sensitivity", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("sensitivity", "%s", "expected a scenario file");
    goto done;
  }
  if (cli_check_outputs("sensitivity", &out, 1)) goto done;

  ps_err e = {0};
  sens_result *r = NULL;
  int sr = sens_run(path, sets, nsets, metric, delta, threads, &r, &e);
  if (sr != PS_OK) {
    fprintf(stderr, "provesim sensitivity: %s\n", e.msg);
    rc = ps_exit_failed(sr);
    goto done;
  }
  ps_buf b = {0};
  if (json) {
    cJSON *doc = render_json(r);
    char *txt = cJSON_Print(doc);
    ps_buf_printf(&b, "%s\n", txt);
    free(txt);
    cJSON_Delete(doc);
  } else {
    render_table(&b, r);
  }
  rc = PS_EXIT_OK;
  if (out) {
    if (cli_write_out("sensitivity", out, &b)) rc = PS_EXIT_FAIL;
  } else if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim sensitivity: %s\n", e.msg);
    rc = PS_EXIT_FAIL;
  }
  ps_buf_free(&b);
  sens_free(r);
done:
  free(sets);
  return rc;
}
