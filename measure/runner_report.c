/* The reports of `provesim measure` (runner.h): the simulator's report (core/report.h)
 * of a measured run, in JSON, as a table or as CSV, with what only a measurement has
 * added: NVML's reading beside the true utilization, per-phase time statistics, and how
 * the run was measured. Everything here reads a finished runner_result; runner.c makes it. */
#include "runner.h"
#include "spans.h"

#include <math.h>
#include <string.h>

#include "report.h"
#include "measure_exec.h"

/* measurement.gpu_clocks: per GPU, the SM clock NVML read in the windows (null when it
 * read none). */
static cJSON *clocks_json(const runner_result *r) {
  cJSON *a = cJSON_CreateArray();
  for (int g = 0; g < r->ngpus; g++) cJSON_AddItemToArray(a, mnvml_clk_json(r->clocks ? &r->clocks[g] : NULL));
  return a;
}

cJSON *runner_report_json(const scenario *s, const runner_opts *o, const runner_result *r) {
  report_summary sum;
  report_summarize(&r->sim, &sum);
  cJSON *doc = report_json(s, &sum);
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
  const runner_prover *pv = &r->prover;
  if (pv->valid) {
    /* GPU busy time per partition: the true (CUPTI) utilization of every GPU over the
     * window, per partition done in it. */
    double busy = 0;
    for (int g = 0; g < sum.ngpus; g++) busy += sum.gpu_util[g];
    report_json_num(met, "gpu_busy_s_per_partition", sum.tput > 0 ? busy / sum.tput : NAN);
  }
  cJSON *m = cJSON_AddObjectToObject(doc, "measurement");
  cJSON_AddStringToObject(m, "backend", o->backend ? o->backend : "cuda");
  cJSON_AddStringToObject(m, "executor", o->executor ? o->executor : "synthetic");
  cJSON_AddStringToObject(m, "device", r->device);
  cJSON_AddStringToObject(m, "gpu_timing", r->gpu_timing);
  cJSON_AddNumberToObject(m, "nvml_samples", r->nvml_samples);
  cJSON_AddNumberToObject(m, "wall_s", r->sim.wall_s);
  cJSON_AddStringToObject(m, "notes", r->notes);
  report_json_num(m, "host_steal", r->host_steal >= 0 ? r->host_steal : NAN);
  cJSON_AddBoolToObject(m, "rendezvous", o->rendezvous != 0);
  cJSON_AddItemToObject(m, "gpu_clocks", clocks_json(r));
  if (pv->valid) {
    cJSON *x = cJSON_AddObjectToObject(m, "prover"), *y;
    cJSON_AddNumberToObject(x, "constraints", (double)pv->constraints);
    report_json_num(x, "key_gpu_bytes", pv->key_gpu_bytes);
    report_json_num(x, "worker_gpu_bytes", pv->worker_gpu_bytes);
    cJSON *pc = cJSON_AddObjectToObject(x, "precompute");
    cJSON_AddNumberToObject(pc, "window", pv->precompute_window);
    report_json_num(pc, "table_bytes", pv->precompute_bytes);
    report_json_num(x, "key_upload_s", pv->key_upload_s);
    y = cJSON_AddObjectToObject(x, "first_call");
    cJSON_AddNumberToObject(y, "workers", pv->first_calls);
    report_json_num(y, "wall_s", pv->first_call_s);
    report_json_num(y, "gpu_s", pv->first_gpu_s);
    y = cJSON_AddObjectToObject(x, "steady");
    cJSON_AddNumberToObject(y, "calls", (double)pv->steady_calls);
    report_json_num(y, "wall_p50_s", pv->steady_p50_s);
    report_json_num(y, "wall_p95_s", pv->steady_p95_s);
    report_json_num(y, "wall_mean_s", pv->steady_mean_s);
    report_json_num(y, "gpu_p50_s", pv->steady_gpu_p50_s);
    report_json_num(y, "gpu_mean_s", pv->steady_gpu_mean_s);
    report_json_num(x, "peak_gpu_bytes", pv->peak_gpu_bytes);
    report_json_num(x, "peak_host_rss_bytes", pv->peak_host_bytes);
  }
  report_summary_free(&sum);
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
    if (r->clocks) mnvml_clk_line(b, g, &r->clocks[g]);
  }
  ps_buf_printf(b, "\n  %-14s %-8s %8s %10s %10s %10s %10s\n", "phase", "resource", "n", "mean (s)", "p50 (s)",
                "p99 (s)", "max (s)");
  for (int p = 0; p < r->nphases; p++) {
    const runner_phase_stats *x = &r->phases[p];
    if (!x->n) continue;
    ps_buf_printf(b, "  %-14s %-8s %8lld %10.4f %10.4f %10.4f %10.4f\n", x->name, x->resource, (long long)x->n, x->mean,
                  x->p50, x->p99, x->max);
  }
  const runner_prover *pv = &r->prover;
  if (pv->valid) {
    double busy = 0;
    for (int g = 0; g < sum.ngpus; g++) busy += sum.gpu_util[g];
    ps_buf_printf(b, "\nprover (2^%d constraints):\n", (int)(log2((double)pv->constraints) + 0.5));
    if (pv->key_gpu_bytes > 0 && pv->worker_gpu_bytes > 0)
      ps_buf_printf(b, "  GPU memory: one proving key of %.2f GiB per GPU, shared by its %d worker%s, + %.2f GiB of "
                    "buffers per worker = %.2f GiB per GPU (estimate); peak in use %.2f GiB (cudaMemGetInfo)\n",
                    pv->key_gpu_bytes / 1073741824.0, s->workers_per_gpu, s->workers_per_gpu > 1 ? "s" : "",
                    pv->worker_gpu_bytes / 1073741824.0,
                    (pv->key_gpu_bytes + s->workers_per_gpu * pv->worker_gpu_bytes) / 1073741824.0,
                    pv->peak_gpu_bytes / 1073741824.0);
    /* On cpu the backend's time is the wall time of its operations, not a GPU's. */
    const char *gw = isfinite(pv->peak_gpu_bytes) ? "GPU" : "backend";
    ps_buf_printf(b, "  key upload %.3f s; first call %.3f s (%s %.3f s), mean of %d worker%s; steady state %lld calls, "
                  "p50 %.3f s, p95 %.3f s (%s %.3f s per call, p50)\n",
                  pv->key_upload_s, pv->first_call_s, gw, pv->first_gpu_s, pv->first_calls, pv->first_calls == 1 ? "" : "s",
                  (long long)pv->steady_calls, pv->steady_p50_s, pv->steady_p95_s, gw, pv->steady_gpu_p50_s);
    ps_buf_printf(b, "  GPU busy per partition %.3f s (kernel time over the window); peak host RSS %.2f GiB\n",
                  sum.tput > 0 ? busy / sum.tput : NAN, pv->peak_host_bytes / 1073741824.0);
  }
  if (r->host_steal > SPANS_STEAL_WARN)
    ps_buf_printf(b, "\nhost: the hypervisor took %.1f%% of the run's cores' busy time for other guests (steal): "
                  "the host was shared, and this run ran slower than it would on a quiet one\n", 100 * r->host_steal);
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
