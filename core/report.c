/* Implementation of sim/report.h. Every number in JSON and CSV is a deterministic
 * function of the replications' metrics (no wall times), so the same scenario and seed
 * give byte-identical reports whatever the number of threads. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scn.h"
#include "stats.h"

#define COLLECT(field, dst, dstci)                                                   \
  do {                                                                               \
    for (int i = 0; i < n; i++) x[i] = r->reps[i].field;                             \
    stats_mean_ci95(x, n, &(dst), &(dstci));                                         \
  } while (0)

void report_summarize(const sim_result *r, report_summary *s) {
  memset(s, 0, sizeof *s);
  int n = r->nreps;
  double *x = xmalloc((size_t)n * sizeof *x);
  s->nreps = n;
  s->ngpus = r->reps[0].ngpus;
  s->gpu_util = xcalloc((size_t)s->ngpus, sizeof(double));
  s->gpu_util_ci = xcalloc((size_t)s->ngpus, sizeof(double));
  for (int g = 0; g < s->ngpus; g++) COLLECT(gpu_util[g], s->gpu_util[g], s->gpu_util_ci[g]);
  COLLECT(gpu_util_mean, s->gpu_util_mean, s->gpu_util_mean_ci);
  COLLECT(throughput_pps, s->tput, s->tput_ci);
  COLLECT(lat_mean, s->lat_mean, s->lat_mean_ci);
  COLLECT(lat_p50, s->lat_p50, s->lat_p50_ci);
  COLLECT(lat_p95, s->lat_p95, s->lat_p95_ci);
  COLLECT(lat_p99, s->lat_p99, s->lat_p99_ci);
  COLLECT(mutex_wait_mean, s->wait_mean, s->wait_mean_ci);
  COLLECT(mutex_wait_p99, s->wait_p99, s->wait_p99_ci);
  COLLECT(mutex_held_mean, s->held_mean, s->held_mean_ci);
  COLLECT(call_mean, s->call_mean, s->call_mean_ci);
  COLLECT(call_p99, s->call_p99, s->call_p99_ci);
  COLLECT(cpu_util, s->cpu_util, s->cpu_util_ci);
  COLLECT(idle_mutex_cpu, s->idle_held, s->idle_held_ci);
  COLLECT(idle_no_holder, s->idle_free, s->idle_free_ci);
  COLLECT(idle_no_work, s->idle_nowork, s->idle_nowork_ci);
  COLLECT(idle_no_holder - r->reps[i].idle_no_work, s->idle_busy, s->idle_busy_ci);
  s->has_proofs = r->reps[0].has_proofs;
  for (int i = 0; i < n; i++) s->has_proofs &= r->reps[i].has_proofs;
  if (s->has_proofs) {
    COLLECT(proof_lat_mean, s->proof_mean, s->proof_mean_ci);
    COLLECT(proof_lat_p99, s->proof_p99, s->proof_p99_ci);
  }
  s->events = r->events;
  s->warmup_auto = r->warmup_auto;
  s->warmup = r->warmup;
  s->precision = r->precision;
  s->precision_reached = r->precision_reached;
  free(x);
}

void report_summary_free(report_summary *s) {
  if (!s) return;
  free(s->gpu_util);
  free(s->gpu_util_ci);
  s->gpu_util = s->gpu_util_ci = NULL;
}

/* The advice to add a worker, w workers then: "" when they fit in the GPU's memory or the
 * scenario does not say (scn_gpu_mem_over), else "; but w workers do not fit in GPU
 * memory: needs ...". */
static const char *fit_note(const scenario *s, int w, char *buf, size_t n) {
  char gm[256];
  buf[0] = 0;
  if (scn_gpu_mem_over(s, w, s->batch, gm, sizeof gm))
    snprintf(buf, n, "; but %d workers do not fit in GPU memory: %s", w, gm + 12); /* gm without "GPU memory: " */
  return buf;
}

const char *report_bottleneck(const scenario *s, const report_summary *m, char *buf, size_t n) {
  char fit[320];
  double u = m->gpu_util_mean, h = m->idle_held, f = m->idle_free;
  if (u >= 0.95) {
    snprintf(buf, n, "GPU busy: the GPU%s compute%s %.1f%% of the window; more throughput needs more GPUs or "
                     "faster kernels",
             s->gpus > 1 ? "s" : "", s->gpus > 1 ? "" : "s", 100 * u);
  } else if (h >= f && s->workers_per_gpu == 1) {
    snprintf(buf, n,
             "too few workers: the GPU idles %.1f%% of the window while its only worker does CPU work; add "
             "workers (--set system.workers_per_gpu=2)%s%s",
             100 * (h + f), s->mutex_from >= 0 ? " with a mutex scope narrower than the CPU work" : "",
             fit_note(s, 2, fit, sizeof fit));
  } else if (h >= f) {
    /* Offer the model's other scopes, narrowest (fewest phases) first. */
    char alt[200] = "";
    size_t used = 0;
    int cur = s->mutex_to - s->mutex_from;
    for (int w = 0; w < cur; w++)
      for (int i = 0; i < s->model->nscopes; i++) {
        const scope *sc = &s->model->scopes[i];
        if (sc->to - sc->from != w) continue;
        if (sc->from < s->mutex_from || sc->to > s->mutex_to) continue;
        int k = snprintf(alt + used, sizeof alt - used, "%s--set system.mutex=%s", used ? " or " : "", sc->name);
        if (k > 0 && used + (size_t)k < sizeof alt) used += (size_t)k;
      }
    /* More workers help only when some phase runs outside the region, so that CPU work
     * of one worker overlaps another's hold of the lock. */
    int outside = s->mutex_from > 0 || s->mutex_to < s->model->nphases - 1;
    char more[512] = "";
    if (outside)
      snprintf(more, sizeof more, ", or add workers so their CPU work overlaps the wait for the lock "
                                  "(--set system.workers_per_gpu=%d)%s", s->workers_per_gpu + 1,
               fit_note(s, s->workers_per_gpu + 1, fit, sizeof fit));
    snprintf(buf, n,
             "mutex held without kernels: for %.1f%% of the window the GPU idles while a worker holds its "
             "mutex for CPU work or a barrier; %s%s%s",
             100 * h, used ? "narrow the scope: " : "start the scope after the CPU-side wait ({from: PHASE, to: PHASE})",
             alt, more);
  } else if (m->cpu_util >= 0.9) {
    snprintf(buf, n, "CPU cores: %.1f%% of %d cores are busy; the GPU idles %.1f%% of the window waiting for CPU "
                     "phases; add cores or lower threads per phase",
             100 * m->cpu_util, s->cpu_cores, 100 * f);
  } else if (m->idle_nowork >= m->idle_busy) {
    snprintf(buf, n, "offered load: the GPU idles %.1f%% of the window while a worker waits for work; work "
                     "arrives slower than it could be served",
             100 * m->idle_nowork);
  } else {
    snprintf(buf, n, "too few workers: the GPU idles %.1f%% of the window with the mutex free while every "
                     "worker is busy elsewhere; add workers per GPU (system.workers_per_gpu=%d)%s",
             100 * m->idle_busy, s->workers_per_gpu + 1, fit_note(s, s->workers_per_gpu + 1, fit, sizeof fit));
  }
  return buf;
}

void report_json_num(cJSON *o, const char *k, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(o, k, v);
  else
    cJSON_AddNullToObject(o, k);
}

cJSON *report_json(const scenario *s, const report_summary *m) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.report/1");
  cJSON_AddStringToObject(root, "source", "sim");
  cJSON *sj = scn_to_json(s);
  if (m->warmup_auto) { /* the resolved warm-up is the one MSER-5 chose */
    cJSON *run = cJSON_GetObjectItem(sj, "run");
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)m->warmup);
    cJSON_ReplaceItemInObject(run, "warmup", cJSON_CreateRaw(b));
  }
  cJSON_AddItemToObject(root, "scenario", sj);
  cJSON *met = cJSON_AddObjectToObject(root, "metrics");
  cJSON *gu = cJSON_AddArrayToObject(met, "gpu_util");
  for (int g = 0; g < m->ngpus; g++) cJSON_AddItemToArray(gu, cJSON_CreateNumber(m->gpu_util[g]));
  report_json_num(met, "gpu_util_mean", m->gpu_util_mean);
  report_json_num(met, "throughput_pps", m->tput);
  report_json_num(met, "proofs_per_hour", report_proofs_per_hour(s, m->tput));
  cJSON *lat = cJSON_AddObjectToObject(met, "latency_s");
  report_json_num(lat, "mean", m->lat_mean);
  report_json_num(lat, "p50", m->lat_p50);
  report_json_num(lat, "p95", m->lat_p95);
  report_json_num(lat, "p99", m->lat_p99);
  if (m->has_proofs) {
    cJSON *pl = cJSON_AddObjectToObject(met, "proof_latency_s");
    report_json_num(pl, "mean", m->proof_mean);
    report_json_num(pl, "p99", m->proof_p99);
  }
  cJSON *mw = cJSON_AddObjectToObject(met, "mutex_wait_s");
  report_json_num(mw, "mean", m->wait_mean);
  report_json_num(mw, "p99", m->wait_p99);
  cJSON *mh = cJSON_AddObjectToObject(met, "mutex_held_s");
  report_json_num(mh, "mean", m->held_mean);
  cJSON *cs = cJSON_AddObjectToObject(met, "call_s");
  report_json_num(cs, "mean", m->call_mean);
  report_json_num(cs, "p99", m->call_p99);
  report_json_num(met, "cpu_util", m->cpu_util);
  cJSON *idle = cJSON_AddObjectToObject(met, "gpu_idle");
  report_json_num(idle, "mutex_held", m->idle_held);
  report_json_num(idle, "mutex_free", m->idle_free);
  report_json_num(idle, "mutex_free_workers_busy", m->idle_busy);
  report_json_num(idle, "mutex_free_no_work", m->idle_nowork);
  char buf[512];
  cJSON_AddStringToObject(met, "bottleneck", report_bottleneck(s, m, buf, sizeof buf));
  cJSON *ci = cJSON_AddObjectToObject(root, "ci95");
  cJSON *guc = cJSON_AddArrayToObject(ci, "gpu_util");
  for (int g = 0; g < m->ngpus; g++)
    cJSON_AddItemToArray(guc, isfinite(m->gpu_util_ci[g]) ? cJSON_CreateNumber(m->gpu_util_ci[g]) : cJSON_CreateNull());
  report_json_num(ci, "gpu_util_mean", m->gpu_util_mean_ci);
  report_json_num(ci, "throughput_pps", m->tput_ci);
  report_json_num(ci, "latency_mean_s", m->lat_mean_ci);
  report_json_num(ci, "latency_p99_s", m->lat_p99_ci);
  report_json_num(ci, "mutex_wait_mean_s", m->wait_mean_ci);
  report_json_num(ci, "call_mean_s", m->call_mean_ci);
  report_json_num(ci, "cpu_util", m->cpu_util_ci);
  if (m->stab.has) {
    const report_stability *st = &m->stab;
    cJSON *so = cJSON_AddObjectToObject(root, "stability");
    report_json_num(so, "offered_pps", st->offered_pps);
    report_json_num(so, "capacity_pps", st->capacity_pps);
    if (isfinite(st->capacity_pps)) cJSON_AddStringToObject(so, "capacity_bound", st->bound);
    else cJSON_AddNullToObject(so, "capacity_bound");
    report_json_num(so, "utilization_offered", st->utilization);
    cJSON_AddBoolToObject(so, "unstable", st->unstable);
  }
  if (m->precision) { /* the outcome of run.precision; the request is scenario.run.precision */
    cJSON *po = cJSON_AddObjectToObject(root, "precision");
    cJSON_AddNumberToObject(po, "target", s->prec_target);
    report_json_num(po, "reached", m->precision_reached);
    cJSON_AddBoolToObject(po, "met", m->precision_reached <= s->prec_target);
    cJSON_AddBoolToObject(po, "capped", !(m->precision_reached <= s->prec_target));
  }
  cJSON_AddNumberToObject(root, "replications", m->nreps);
  cJSON_AddNumberToObject(root, "events", (double)m->events);
  return root;
}

/* "12.3%  ±0.4%" style cells. */
static void cell(ps_buf *b, const char *label, double v, double ci, double scale, const char *unit, int prec) {
  char vs[64], cs[64];
  snprintf(vs, sizeof vs, "%.*f%s", prec, v * scale, unit);
  if (isfinite(ci))
    snprintf(cs, sizeof cs, "±%.*f%s", prec, ci * scale, unit);
  else
    snprintf(cs, sizeof cs, "(1 rep)");
  ps_buf_printf(b, "  %-34s %14s  %-14s\n", label, vs, cs);
}

void report_table(ps_buf *b, const scenario *s, const report_summary *m, double wall_s) {
  const char *mx = s->mutex_name ? s->mutex_name : "none";
  ps_buf_printf(b, "scenario  %s (model %s)\n", s->name, s->model->name);
  ps_buf_printf(b, "system    %d GPU%s x %d worker%s, %d CPU cores, batch %d, mutex %s", s->gpus,
                s->gpus > 1 ? "s" : "", s->workers_per_gpu, s->workers_per_gpu > 1 ? "s" : "", s->cpu_cores,
                s->batch, mx);
  if (s->mutex_from >= 0)
    ps_buf_printf(b, " [%s..%s]", s->model->phases[s->mutex_from].name, s->model->phases[s->mutex_to].name);
  ps_buf_printf(b, "\nrun       %d replication%s x %lld partitions (warm-up %lld%s), %lld events in %.2f s\n",
                m->nreps, m->nreps > 1 ? "s" : "", (long long)s->partitions,
                (long long)(m->warmup_auto ? m->warmup : s->warmup), m->warmup_auto ? ", chosen by MSER-5" : "",
                (long long)m->events, wall_s);
  if (m->precision) {
    char names[64] = "";
    for (int k = 0, n = 0; k < RM_COUNT; k++)
      if (s->prec_metrics >> k & 1)
        n += snprintf(names + n, sizeof names - (size_t)n, "%s%s", n ? ", " : "", run_metric_name((run_metric)k));
    ps_buf_printf(b, "precision ±%.3g%% (the widest 95%% CI of %s, relative to its mean): ",
                  100 * m->precision_reached, names);
    if (m->precision_reached <= s->prec_target)
      ps_buf_printf(b, "target ±%.3g%% met with %d replications\n", 100 * s->prec_target, m->nreps);
    else
      ps_buf_printf(b, "target ±%.3g%% NOT met: stopped at the cap, run.precision.max_replications = %d\n",
                    100 * s->prec_target, s->prec_max);
  }
  if (m->stab.has) {
    const report_stability *st = &m->stab;
    ps_buf_printf(b, "load      arrivals offer %.4g partitions/s", st->offered_pps);
    if (isfinite(st->capacity_pps))
      ps_buf_printf(b, ", %.1f%% of the capacity (at most %.4g partitions/s by the %s)\n",
                    100 * st->utilization, st->capacity_pps, st->bound);
    else
      ps_buf_printf(b, "; no capacity bound applies to this model\n");
    if (st->unstable) {
      char line[512];
      ps_buf_printf(b, "\nWARNING: %s\n", report_unstable_line(st, line, sizeof line));
    }
  }
  ps_buf_printf(b, "\n");
  ps_buf_printf(b, "  %-34s %14s  %-14s\n", "metric", "mean", "95% CI");
  for (int g = 0; g < m->ngpus && g < REPORT_TABLE_GPUS; g++) {
    char l[64];
    snprintf(l, sizeof l, "GPU utilization, GPU %d", g);
    cell(b, l, m->gpu_util[g], m->gpu_util_ci[g], 100, "%", 2);
  }
  if (m->ngpus > REPORT_TABLE_GPUS)
    ps_buf_printf(b, "  (GPUs %d to %d not shown: --json lists every GPU)\n", REPORT_TABLE_GPUS, m->ngpus - 1);
  if (m->ngpus > 1) cell(b, "GPU utilization, mean of GPUs", m->gpu_util_mean, m->gpu_util_mean_ci, 100, "%", 2);
  cell(b, "throughput (partitions/s)", m->tput, m->tput_ci, 1, "", 4);
  cell(b, "throughput (partitions/hour)", m->tput, m->tput_ci, 3600, "", 1);
  cell(b, "partition latency, mean (s)", m->lat_mean, m->lat_mean_ci, 1, "", 3);
  cell(b, "partition latency, p50 (s)", m->lat_p50, m->lat_p50_ci, 1, "", 3);
  cell(b, "partition latency, p95 (s)", m->lat_p95, m->lat_p95_ci, 1, "", 3);
  cell(b, "partition latency, p99 (s)", m->lat_p99, m->lat_p99_ci, 1, "", 3);
  if (m->has_proofs) {
    cell(b, "proof latency, mean (s)", m->proof_mean, m->proof_mean_ci, 1, "", 3);
    cell(b, "proof latency, p99 (s)", m->proof_p99, m->proof_p99_ci, 1, "", 3);
  }
  cell(b, "mutex wait per call, mean (s)", m->wait_mean, m->wait_mean_ci, 1, "", 3);
  cell(b, "mutex wait per call, p99 (s)", m->wait_p99, m->wait_p99_ci, 1, "", 3);
  if (s->mutex_from >= 0) cell(b, "mutex held per call, mean (s)", m->held_mean, m->held_mean_ci, 1, "", 3);
  cell(b, "time inside prove call, mean (s)", m->call_mean, m->call_mean_ci, 1, "", 3);
  cell(b, "time inside prove call, p99 (s)", m->call_p99, m->call_p99_ci, 1, "", 3);
  cell(b, "CPU utilization", m->cpu_util, m->cpu_util_ci, 100, "%", 2);
  cell(b, "GPU idle, mutex held by CPU work", m->idle_held, m->idle_held_ci, 100, "%", 2);
  cell(b, "GPU idle, workers busy elsewhere", m->idle_busy, m->idle_busy_ci, 100, "%", 2);
  cell(b, "GPU idle, no work for a worker", m->idle_nowork, m->idle_nowork_ci, 100, "%", 2);
  char buf[512];
  ps_buf_printf(b, "\nlimited by: %s\n", report_bottleneck(s, m, buf, sizeof buf));
  if (m->held_mean > 0 && s->mutex_from >= 0)
    ps_buf_printf(b,
                  "note: a log that times the locked region would report %.2f s of \"GPU time\" per call; "
                  "the GPU computed %.2f s of it\n",
                  m->held_mean, m->tput > 0 ? m->gpu_util_mean * s->gpus * s->batch / m->tput : 0.0);
}


void report_csv_header(ps_buf *b) {
  ps_buf_printf(b, "point,overrides,scenario,gpus,workers_per_gpu,cpu_cores,batch,mutex,gpu_util,gpu_util_ci95,"
                   "throughput_pps,throughput_pps_ci95,proofs_per_hour,proofs_per_hour_ci95,latency_mean_s,"
                   "latency_mean_s_ci95,latency_p50_s,latency_p95_s,latency_p99_s,latency_p99_s_ci95,"
                   "proof_latency_mean_s,proof_latency_p99_s,proof_latency_p99_s_ci95,mutex_wait_mean_s,"
                   "mutex_wait_mean_s_ci95,mutex_held_mean_s,call_mean_s,cpu_util,cpu_util_ci95,gpu_idle_mutex_held,"
                   "gpu_idle_mutex_free,limited_by,offered_pps,capacity_pps,unstable,replications,events,source,"
                   "gpu_util_nvml,gpu_timing\n");
}

void report_csv_row(ps_buf *b, const scenario *s, const report_summary *m, const report_csv_extra *x) {
  static const report_csv_extra none = {0};
  if (!x) x = &none;
  double pf = report_proofs_per_hour(s, 1.0);
  ps_buf_printf(b, "%ld,", x->point);
  ps_buf_csv_field(b, x->overrides ? x->overrides : "");
  ps_buf_append(b, ",", 1);
  ps_buf_csv_field(b, s->name);
  ps_buf_printf(b, ",%d,%d,%d,%d,", s->gpus, s->workers_per_gpu, s->cpu_cores, s->batch);
  ps_buf_csv_field(b, s->mutex_name ? s->mutex_name : "none");
  const double v[] = {m->gpu_util_mean, m->gpu_util_mean_ci, m->tput, m->tput_ci, m->tput * pf, m->tput_ci * pf,
                      m->lat_mean, m->lat_mean_ci, m->lat_p50, m->lat_p95, m->lat_p99, m->lat_p99_ci,
                      m->has_proofs ? m->proof_mean : NAN, m->has_proofs ? m->proof_p99 : NAN,
                      m->has_proofs ? m->proof_p99_ci : NAN, m->wait_mean, m->wait_mean_ci, m->held_mean,
                      m->call_mean, m->cpu_util, m->cpu_util_ci, m->idle_held, m->idle_free};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) ps_buf_csv_num(b, v[i]);
  char line[512], lim[64];
  report_limit_name(report_bottleneck(s, m, line, sizeof line), lim, sizeof lim);
  ps_buf_append(b, ",", 1);
  ps_buf_csv_field(b, lim);
  const report_stability *st = &m->stab;
  ps_buf_csv_num(b, st->has ? st->offered_pps : NAN);
  ps_buf_csv_num(b, st->has ? st->capacity_pps : NAN);
  ps_buf_printf(b, ",%s", st->has ? (st->unstable ? "1" : "0") : "");
  ps_buf_printf(b, ",%d,%lld,%s", m->nreps, (long long)m->events, x->gpu_timing ? "prover" : "sim");
  if (x->gpu_timing) {
    ps_buf_csv_num(b, x->gpu_util_nvml);
    ps_buf_append(b, ",", 1);
    ps_buf_csv_field(b, x->gpu_timing);
    ps_buf_append(b, "\n", 1);
  } else {
    ps_buf_append(b, ",,\n", 3);
  }
}

void report_csv(ps_buf *b, const scenario *s, const report_summary *m, const report_csv_extra *x) {
  report_csv_header(b);
  report_csv_row(b, s, m, x);
}

double report_proofs_per_hour(const scenario *s, double pps) {
  return pps * 3600.0 / (s->partitions_per_proof > 0 ? s->partitions_per_proof : 1);
}

double report_offered_pps(const scenario *s) {
  int ppp = s->partitions_per_proof > 0 ? s->partitions_per_proof : 1;
  switch (s->arrivals) {
  case ARR_CLOSED: return NAN;
  case ARR_POISSON:
  case ARR_FIXED: return s->proofs_per_hour * ppp / 3600.0;
  case ARR_TRACE: {
    /* The mean rate of the arrivals the run replays: their gaps' mean, one proof each. */
    int64_t used = (s->partitions + ppp - 1) / ppp;
    double span = used >= 2 ? s->trace_t[used - 1] - s->trace_t[0] : 0;
    return span > 0 ? (double)(used - 1) * ppp / span : NAN;
  }
  }
  return NAN;
}

const char *report_unstable_line(const report_stability *st, char *buf, size_t n) {
  snprintf(buf, n,
           "unstable: the arrivals offer %.4g partitions/s, %.1f%% of the most the system can serve "
           "(%.4g partitions/s); the queue grows for as long as the run lasts, so the latency figures "
           "grow with the run length and describe no steady state",
           st->offered_pps, 100 * st->utilization, st->capacity_pps);
  return buf;
}

void report_limit_name(const char *line, char *out, size_t n) {
  size_t k = strcspn(line, ":");
  if (k >= n) k = n - 1;
  memcpy(out, line, k);
  out[k] = 0;
}
