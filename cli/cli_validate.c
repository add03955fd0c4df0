/* `provesim validate`: the prediction beside a measurement (report or spans), metric by
 * metric. Moved out of cli_calib.c; it reads the spans format through sim/calib.c. */
#define _GNU_SOURCE
#include "cli_calib.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "spans.h"
#include "calib.h"
#include "pipe.h"
#include "report.h"
#include "scn.h"

static const char validate_help[] =
    "usage: provesim validate SCENARIO --measured REPORT.json|SPANS.jsonl [options]\n"
    "\n"
    "Simulates the scenario and puts the prediction beside a measurement of the same scenario\n"
    "(a provesim.report/1 from `measure`, or its spans, whose metrics are recomputed with the\n"
    "simulator's window rule), metric by metric: GPU utilization per GPU (error in percentage\n"
    "points), throughput, time inside the call and mutex wait (relative errors).\n"
    "\n"
    "options:\n"
    "  --measured FILE     the measurement (report JSON or spans JSON Lines)\n"
    "  --set KEY=VALUE     override a scenario or model key (repeatable)\n"
    "  --max-error-pp X    exit 1 when a GPU's utilization is off by more than X points\n"
    "  --threads N         simulation threads (default: all cores)\n"
    "  -h, --help          this text\n"
    "\n"
    "exit codes: 0 agreement (or no --max-error-pp), 1 disagreement or a failed run, 2 bad input\n"
    "\n"
    "example:\n"
    "  provesim measure configs/measure-seed.yaml --backend cpu --json -o run.json\n"
    "  provesim validate configs/measure-seed.yaml --measured run.json --max-error-pp 2\n";

typedef struct measured {
  int ngpus;
  double util[PS_MAX_GPUS];
  double util_nvml[PS_MAX_GPUS];
  int has_nvml;
  double tput, call_mean, wait_mean;
  int nreps;
  const char *what; /* "report" or "spans (kernels)" ... */
} measured;

static double jnum(const cJSON *o, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static int load_measured(const char *path, const scenario *s, measured *m, ps_err *e) {
  memset(m, 0, sizeof *m);
  if (spans_sniff(path)) {
    span_metrics sm, acc = {0};
    int r;
    for (r = 0;; r++) {
      ps_err e2;
      if (span_metrics_file(path, r, (long)s->warmup, (long)s->cooldown, &sm, r == 0 ? e : &e2) != PS_OK) break;
      acc.ngpus = sm.ngpus;
      for (int g = 0; g < sm.ngpus; g++) acc.gpu_util[g] += sm.gpu_util[g];
      acc.throughput_pps += sm.throughput_pps;
      acc.call_mean += sm.call_mean;
      acc.mutex_wait_mean += isfinite(sm.mutex_wait_mean) ? sm.mutex_wait_mean : 0;
      acc.from_kernels = sm.from_kernels;
    }
    if (r == 0) return PS_EINPUT;
    m->nreps = r;
    m->ngpus = acc.ngpus;
    for (int g = 0; g < acc.ngpus; g++) m->util[g] = acc.gpu_util[g] / r;
    m->tput = acc.throughput_pps / r;
    m->call_mean = acc.call_mean / r;
    m->wait_mean = acc.mutex_wait_mean / r;
    m->what = acc.from_kernels ? "spans (utilization from kernel spans)" : "spans (utilization from GPU phases)";
    return PS_OK;
  }
  FILE *f = fopen(path, "r");
  if (!f) return ps_fail(e, PS_EINPUT, "%s: cannot open", path);
  char *txt = NULL;
  size_t n = 0;
  if (getdelim(&txt, &n, 0, f) < 0) {
    free(txt);
    txt = NULL;
  }
  fclose(f);
  cJSON *d = txt ? cJSON_Parse(txt) : NULL;
  free(txt);
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(d, "schema");
  if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "provesim.report/1")) {
    cJSON_Delete(d);
    return ps_fail(e, PS_EINPUT, "%s: expected a provesim.report/1 JSON document or a provesim.spans/1 file", path);
  }
  const cJSON *met = cJSON_GetObjectItemCaseSensitive(d, "metrics");
  const cJSON *gu = cJSON_GetObjectItemCaseSensitive(met, "gpu_util");
  const cJSON *gn = cJSON_GetObjectItemCaseSensitive(met, "gpu_util_nvml");
  if (!cJSON_IsArray(gu) || cJSON_GetArraySize(gu) < 1 || cJSON_GetArraySize(gu) > PS_MAX_GPUS) {
    cJSON_Delete(d);
    return ps_fail(e, PS_EINPUT, "%s: metrics.gpu_util: expected an array of 1 to %d numbers", path, PS_MAX_GPUS);
  }
  m->ngpus = cJSON_GetArraySize(gu);
  for (int g = 0; g < m->ngpus; g++) m->util[g] = cJSON_GetArrayItem(gu, g)->valuedouble;
  if (cJSON_IsArray(gn) && cJSON_GetArraySize(gn) == m->ngpus) {
    m->has_nvml = 1;
    for (int g = 0; g < m->ngpus; g++) m->util_nvml[g] = cJSON_GetArrayItem(gn, g)->valuedouble;
  }
  m->tput = jnum(met, "throughput_pps");
  m->call_mean = jnum(cJSON_GetObjectItemCaseSensitive(met, "call_s"), "mean");
  m->wait_mean = jnum(cJSON_GetObjectItemCaseSensitive(met, "mutex_wait_s"), "mean");
  m->nreps = (int)jnum(d, "replications");
  m->what = "report";
  cJSON_Delete(d);
  return PS_OK;
}

static void row_rel(ps_buf *b, const char *label, double pred, double ci, double meas, const char *fmt) {
  char p[32], c[32], m[32], err[32];
  snprintf(p, sizeof p, fmt, pred);
  char cf[16];
  snprintf(cf, sizeof cf, "±%s", fmt);
  snprintf(c, sizeof c, isfinite(ci) ? cf : "-", ci);
  snprintf(m, sizeof m, fmt, meas);
  if (isfinite(meas) && meas != 0 && isfinite(pred))
    snprintf(err, sizeof err, "%+.1f%%", 100 * (pred - meas) / meas);
  else
    snprintf(err, sizeof err, "-");
  ps_buf_printf(b, "  %-30s %12s %10s %12s %10s\n", label, p, c, isfinite(meas) ? m : "-", err);
}

int sim_cmd_validate(int argc, char **argv) {
  const char *path = NULL, *meas_path = NULL;
  const char **sets = xcalloc((size_t)argc, sizeof *sets);
  int nsets = 0, threads = 0, rc = PS_EXIT_USAGE;
  double max_pp = NAN;
  scenario *s = NULL;
  sim_result *res = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(validate_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--measured")) {
      if (!(v = cli_optval(argc, argv, &i, "--measured"))) goto missing;
      meas_path = v;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--max-error-pp")) {
      if (!(v = cli_optval(argc, argv, &i, "--max-error-pp"))) goto missing;
      char *end;
      max_pp = strtod(v, &end);
      if (*end || !(max_pp >= 0)) {
        rc = cli_usage_error("validate", "--max-error-pp: expected a number >= 0, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      threads = atoi(v);
      if (threads < 1) {
        rc = cli_usage_error("validate", "--threads: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (a[0] == '-' && a[1]) {
      rc = cli_usage_error("validate", "unknown option %s", a);
      goto done;
    } else if (!path) {
      path = a;
    } else {
      rc = cli_usage_error("validate", "unexpected argument %s", a);
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("validate", "%s: expected a value", a);
    goto done;
  }
  if (!path || !meas_path) {
    rc = cli_usage_error("validate", "%s", "expected SCENARIO and --measured FILE");
    goto done;
  }
  ps_err e = {{0}};
  int lr = scn_load(path, sets, nsets, &s, &e);
  measured m;
  if (lr == PS_OK) lr = load_measured(meas_path, s, &m, &e);
  if (lr == PS_OK) {
    sim_opts o = {.threads = threads};
    lr = sim_run(s, &o, &res, &e);
  }
  if (lr != PS_OK) {
    fprintf(stderr, "provesim validate: %s\n", e.msg);
    rc = lr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
    goto done;
  }
  report_summary sum;
  report_summarize(res, &sum);
  ps_buf b = {0};
  ps_buf_printf(&b, "scenario  %s (model %s), mutex %s, %d GPU%s x %d workers, batch %d\n", s->name, s->model->name,
                s->mutex_name ? s->mutex_name : "none", s->gpus, s->gpus > 1 ? "s" : "", s->workers_per_gpu, s->batch);
  ps_buf_printf(&b, "predicted %d replications of the simulator; measured: %s, %s (%d replication%s)\n\n", sum.nreps,
                meas_path, m.what, m.nreps, m.nreps == 1 ? "" : "s");
  ps_buf_printf(&b, "  %-30s %12s %10s %12s %10s\n", "metric", "predicted", "95% CI", "measured", "error");
  double worst = 0;
  if (m.ngpus != sum.ngpus)
    ps_buf_printf(&b, "  (the measurement has %d GPUs, the scenario %d: comparing the first %d)\n", m.ngpus, sum.ngpus,
                  m.ngpus < sum.ngpus ? m.ngpus : sum.ngpus);
  for (int g = 0; g < m.ngpus && g < sum.ngpus; g++) {
    char l[48], p[32], c[32], me[32], err[32];
    snprintf(l, sizeof l, "GPU utilization, GPU %d", g);
    snprintf(p, sizeof p, "%.2f%%", 100 * sum.gpu_util[g]);
    snprintf(c, sizeof c, isfinite(sum.gpu_util_ci[g]) ? "±%.2f%%" : "-", 100 * sum.gpu_util_ci[g]);
    snprintf(me, sizeof me, "%.2f%%", 100 * m.util[g]);
    double d = 100 * (sum.gpu_util[g] - m.util[g]);
    snprintf(err, sizeof err, "%+.2f pp", d);
    if (fabs(d) > worst) worst = fabs(d);
    ps_buf_printf(&b, "  %-30s %12s %10s %12s %10s\n", l, p, c, me, err);
    if (m.has_nvml)
      ps_buf_printf(&b, "  %-30s %12s %10s %11.2f%% %10s\n", "  (nvidia-smi said)", "", "", 100 * m.util_nvml[g], "");
  }
  row_rel(&b, "throughput (partitions/s)", sum.tput, sum.tput_ci, m.tput, "%.4f");
  row_rel(&b, "time inside call, mean (s)", sum.call_mean, sum.call_mean_ci, m.call_mean, "%.4f");
  if (s->mutex_from >= 0) row_rel(&b, "mutex wait, mean (s)", sum.wait_mean, sum.wait_mean_ci, m.wait_mean, "%.4f");
  rc = PS_EXIT_OK;
  if (isfinite(max_pp)) {
    int ok = worst <= max_pp;
    ps_buf_printf(&b, "\n%s: the largest utilization error is %.2f pp (limit %.2f pp)\n", ok ? "agree" : "DISAGREE",
                  worst, max_pp);
    if (!ok) rc = PS_EXIT_FAIL;
  }
  if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim validate: %s\n", e.msg);
    rc = PS_EXIT_FAIL;
  }
  ps_buf_free(&b);
  report_summary_free(&sum);
done:
  sim_result_free(res);
  scn_free(s);
  free(sets);
  return rc;
}
