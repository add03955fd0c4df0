/* The reports of `provesim measure` (runner.h): the simulator's report (core/report.h)
 * of a measured run, in JSON, as a table or as CSV, with what only a measurement has
 * added: NVML's reading beside the true utilization, per-phase time statistics, and how
 * the run was measured. Everything here reads a finished runner_result; runner.c makes it. */
#include "runner.h"

#include <math.h>
#include <string.h>

#include "report.h"

cJSON *runner_report_json(const scenario *s, const runner_opts *o, const runner_result *r) {
  report_summary sum;
  report_summarize(&r->sim, &sum);
  cJSON *doc = report_json(s, &sum);
  report_summary_free(&sum);
  cJSON_ReplaceItemInObject(doc, "source", cJSON_CreateString("prover"));
  cJSON *met = cJSON_GetObjectItem(doc, "metrics");
  cJSON *nv = cJSON_CreateArray();
  for (int g = 0; g < r->ngpus; g++)
    cJSON_AddItemToArray(nv, isfinite(r->gpu_util_nvml[g]) ? cJSON_CreateNumber(r->gpu_util_nvml[g]) : cJSON_CreateNull());
  cJSON_AddItemToObject(met, "gpu_util_nvml", nv);
  cJSON *sp = cJSON_CreateArray();
  for (int g = 0; g < r->ngpus; g++) {
    cJSON *o1 = cJSON_CreateObject();
    static const char *const k[5] = {"min", "p05", "p50", "p95", "max"};
    for (int i = 0; i < 5; i++) report_json_num(o1, k[i], r->nvml_spread ? r->nvml_spread[g][i] : NAN);
    cJSON_AddItemToArray(sp, o1);
  }
  cJSON_AddItemToObject(met, "gpu_util_nvml_samples", sp);
  cJSON *ph = cJSON_AddObjectToObject(met, "phases_s");
  for (int p = 0; p < r->nphases; p++) {
    const runner_phase_stats *x = &r->phases[p];
    cJSON *o1 = cJSON_AddObjectToObject(ph, x->name);
    cJSON_AddStringToObject(o1, "resource", x->resource);
    cJSON_AddNumberToObject(o1, "n", (double)x->n);
    report_json_num(o1, "mean", x->mean);
    report_json_num(o1, "p50", x->p50);
    report_json_num(o1, "p95", x->p95);
    report_json_num(o1, "p99", x->p99);
    report_json_num(o1, "min", x->min);
    report_json_num(o1, "max", x->max);
  }
  cJSON *m = cJSON_AddObjectToObject(doc, "measurement");
  cJSON_AddStringToObject(m, "backend", o->backend ? o->backend : "cuda");
  cJSON_AddStringToObject(m, "executor", o->executor ? o->executor : "synthetic");
  cJSON_AddStringToObject(m, "device", r->device);
  cJSON_AddStringToObject(m, "gpu_timing", r->gpu_timing);
  cJSON_AddNumberToObject(m, "nvml_samples", r->nvml_samples);
  cJSON_AddNumberToObject(m, "wall_s", r->sim.wall_s);
  cJSON_AddStringToObject(m, "notes", r->notes);
  return doc;
}

void runner_report_table(ps_buf *b, const scenario *s, const runner_opts *o, const runner_result *r, double wall_s) {
  report_summary sum;
  report_summarize(&r->sim, &sum);
  ps_buf_printf(b, "measured  %s executor, %s backend on %s; kernel times from %s\n",
                o->executor ? o->executor : "synthetic", o->backend ? o->backend : "cuda", r->device, r->gpu_timing);
  report_table(b, s, &sum, wall_s);
  ps_buf_printf(b, "\n");
  for (int g = 0; g < r->ngpus && g < REPORT_TABLE_GPUS; g++) {
    if (isfinite(r->gpu_util_nvml[g]))
      ps_buf_printf(b,
                    "  GPU %d: true utilization %.2f%%, nvidia-smi (NVML) reads %.2f%% on average; single readings "
                    "%.0f%% (p05) to %.0f%% (p95), %.0f%%..%.0f%%\n",
                    g, 100 * sum.gpu_util[g], 100 * r->gpu_util_nvml[g], 100 * r->nvml_spread[g][1],
                    100 * r->nvml_spread[g][3], 100 * r->nvml_spread[g][0], 100 * r->nvml_spread[g][4]);
  }
  ps_buf_printf(b, "\n  %-14s %-8s %8s %10s %10s %10s %10s\n", "phase", "resource", "n", "mean (s)", "p50 (s)",
                "p99 (s)", "max (s)");
  for (int p = 0; p < r->nphases; p++) {
    const runner_phase_stats *x = &r->phases[p];
    if (!x->n) continue;
    ps_buf_printf(b, "  %-14s %-8s %8lld %10.4f %10.4f %10.4f %10.4f\n", x->name, x->resource, (long long)x->n, x->mean,
                  x->p50, x->p99, x->max);
  }
  ps_buf_printf(b, "\nnote: %s\n", r->notes);
  report_summary_free(&sum);
}

void runner_report_csv(ps_buf *b, const scenario *s, const runner_result *r, const char *overrides) {
  report_summary sum;
  report_summarize(&r->sim, &sum);
  double nv = 0;
  int n = 0;
  for (int g = 0; g < r->ngpus; g++)
    if (isfinite(r->gpu_util_nvml[g])) nv += r->gpu_util_nvml[g], n++;
  report_csv_extra x = {.overrides = overrides, .gpu_timing = r->gpu_timing, .gpu_util_nvml = n ? nv / n : NAN};
  report_csv(b, s, &sum, &x);
  report_summary_free(&sum);
}
