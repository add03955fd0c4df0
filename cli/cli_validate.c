/* `provesim validate`: a measurement (report or spans) beside the simulator's prediction
 * of the same scenario, metric by metric. A measured run is one window of the scenario, so
 * each metric is judged against the spread of single simulated windows (a prediction
 * interval), not against the confidence interval of their long-run mean. */
#define _GNU_SOURCE
#include "cli_calib.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "whatif.h"
#include "spans.h"
#include "calib.h"
#include "pipe.h"
#include "plan.h"
#include "report.h"
#include "scn.h"
#include "arrivals.h"

#define VALIDATE_WINDOWS 200
#define RENDEZVOUS_REFUSED                                                                                    \
  "measure --rendezvous made this run's workers meet before their GPU phases, so its figures are of "     \
  "that forced schedule, not of the scenario's; it is an overlap run for calibrate --overlap, not a "      \
  "measurement to validate against"

static const char validate_help[] =
    "usage: provesim validate SCENARIO --measured REPORT.json|SPANS.jsonl [--measured ...] [options]\n"
    "\n"
    "Puts a measurement of the scenario (a provesim.report/1 from `measure`, or its spans,\n"
    "whose metrics are recomputed with the simulator's window rule) beside the simulator's\n"
    "prediction, metric by metric, and says whether each measured value is inside the range\n"
    "the model predicts for it.\n"
    "\n"
    "That range is a 95% prediction interval. A measured run is one window of the scenario:\n"
    "its partitions, warm-up and cool-down. The simulator runs --windows such windows (its\n"
    "replications, each with its own random stream) and the interval runs from the 2.5th to\n"
    "the 97.5th percentile of their values: where 95% of single measured windows fall when\n"
    "the model is right. One window of a few seconds varies far more than the mean of many,\n"
    "so the 95% confidence interval of the simulated mean (simulate's) would call ordinary\n"
    "noise a disagreement. When the measurement averages n replications (a report's\n"
    "`replications`, a spans file's reps, or the runs of several --measured files), the\n"
    "interval is for the mean of n windows: the percentiles' distances from the predicted\n"
    "mean are divided by sqrt(n). Measuring twice and comparing the mean is how to see\n"
    "past a host whose speed moves between runs (docs/validation.md).\n"
    "\n"
    "Metrics: GPU utilization per GPU (error in percentage points; a report's nvidia-smi\n"
    "figure is shown beside it, without a verdict, as it counts something else), throughput,\n"
    "time inside the call, mutex wait (when the scenario has a mutex and a GPU has more than\n"
    "one worker), and partition latency p50 and p99 (reports only: spans files give no\n"
    "latency here), with relative errors (predicted - measured). A verdict is \"inside\" or\n"
    "\"outside\" the interval; with several metrics a right model still sees one outside now\n"
    "and then (about 1 in 20 each).\n"
    "\n"
    "options:\n"
    "  --measured FILE     the measurement (report JSON or spans JSON Lines) of the same\n"
    "                      scenario: the same partitions, warm-up and cool-down. Repeat it\n"
    "                      for runs made one after another: their mean is compared, with\n"
    "                      the interval of a mean of that many windows\n"
    "  --set KEY=VALUE     override a scenario or model key (repeatable)\n"
    "  --windows N         simulated windows (default 200, at least 10); replaces\n"
    "                      run.replications\n"
    "  --arrivals MODE     with Poisson or evenly spaced arrivals: replay (default) gives\n"
    "                      every simulated window the arrivals the measured run had, drawn\n"
    "                      again from its report's seed as measure drew them, so that the\n"
    "                      interval is the spread of windows with those arrivals (at 70%\n"
    "                      load other arrivals alone move p99 latency by tens of percent);\n"
    "                      it needs measure's reports or spans of one replication each,\n"
    "                      all of one seed. process: every window draws its own, as\n"
    "                      simulate does\n"
    "  --strict            exit 1 when any metric is outside its prediction interval\n"
    "  --max-error-pp X    exit 1 when a GPU's predicted mean utilization is off by more\n"
    "                      than X points\n"
    "  --json              print a provesim.validate/1 JSON document instead of the table\n"
    "  -o, --out FILE      write the table or document to FILE instead of standard output\n"
    "  --threads N         simulation threads (default: all cores); results do not depend on N\n"
    "  -h, --help          this text\n"
    "\n"
    "exit codes: 0 agreement (always, without --strict or --max-error-pp), 1 disagreement or\n"
    "a failed run, 2 bad input\n"
    "\n"
    "example (an H200 measurement of the real prover, docs/measure-results.md):\n"
    "  provesim validate docs/data/measure/h200-g16-v2/scenario.yaml \\\n"
    "      --measured docs/data/measure/h200-g16-v2/g16-kernels-w2.json \\\n"
    "      --set system.mutex=kernels --set system.workers_per_gpu=2\n"
    "  scenario  h200-groth16-2e20-v2 (model provesim-groth16-calibrated), mutex kernels, 1 GPU x 2 workers, batch 1\n"
    "  predicted 200 simulated windows of 40 partitions (warm-up 2, cool-down 2)\n"
    "  measured  docs/data/measure/h200-g16-v2/g16-kernels-w2.json, report (1 replication)\n"
    "  interval  95% prediction: where 95% of single measured windows fall when the model\n"
    "            is right (the 2.5th to 97.5th percentile of the simulated windows)\n"
    "\n"
    "    metric                     predicted  prediction interval  measured      error  verdict\n"
    "    GPU utilization, GPU 0        88.38%  [88.35%, 88.42%]       87.57%   +0.81 pp  outside\n"
    "      (nvidia-smi said)                                          90.04%\n"
    "    throughput (partitions/s)    15.6270  [15.5172, 15.7476]    15.2658      +2.4%  outside\n"
    "    time inside call, mean (s)    0.1280  [0.1270, 0.1289]       0.1313      -2.5%  outside\n"
    "    mutex wait, mean (s)          0.0269  [0.0256, 0.0283]       0.0244     +10.4%  outside\n"
    "    partition latency, p50 (s)    0.1279  [0.1268, 0.1290]       0.1305      -2.0%  outside\n"
    "    partition latency, p99 (s)    0.1330  [0.1309, 0.1351]       0.1424      -6.5%  outside\n"
    "\n"
    "  0 of 6 metrics inside their 95% prediction intervals\n"
    "\n"
    "Every metric is outside, though utilization is off by only 0.81 points: this model's\n"
    "40-partition windows vary by 0.04 points, so the gap is a miss of the model, not noise\n"
    "(calibrated on one worker, it predicts calls 2.5% shorter than two workers made). A\n"
    "measurement the model does explain, the simulator's own spans with another seed:\n"
    "  provesim simulate configs/measure-seed.yaml --set run.seed=7 --spans run.jsonl -o sim.txt\n"
    "  provesim validate configs/measure-seed.yaml --measured run.jsonl --strict\n"
    "prints \"4 of 4 metrics inside their 95% prediction intervals\" and exits 0.\n";

typedef struct measured {
  int ngpus;
  double util[PS_MAX_GPUS];
  double util_nvml[PS_MAX_GPUS];
  int has_nvml;
  double tput, call_mean, wait_mean;
  double lat_p50, lat_p99; /* NAN from spans */
  int nreps;               /* replications averaged, >= 1 */
  double steal;            /* the largest host_steal of the files (spans header or the
                              report's measurement), -1 when none recorded it */
  const char *kind;        /* "report" or "spans" */
  const char *what;        /* the kind, and for spans where utilization came from */
  int replayable;          /* every file measure's report or spans (with the seed in its
                              header) of one replication, all with the same run.seed:
                              their arrivals can be drawn again */
  uint64_t seed;           /* that seed */
} measured;

static double jnum(const cJSON *o, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* Element i of a JSON array as a number, NAN when it is null or not a number. */
static double jarr(const cJSON *a, int i) {
  const cJSON *x = cJSON_GetArrayItem(a, i);
  return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static int load_measured(const char *path, const scenario *s, measured *m, ps_err *e) {
  memset(m, 0, sizeof *m);
  m->lat_p50 = m->lat_p99 = NAN;
  m->steal = -1;
  if (spans_sniff(path)) {
    span_metrics sm, acc = {0};
    int r, nr = 1;
    /* Replication by replication while they read, and no further than the file's last:
     * each reading is two passes over the file. */
    for (r = 0; r < nr; r++) {
      ps_err e2;
      if (span_metrics_file(path, r, (long)s->warmup, (long)s->cooldown, &sm, r == 0 ? e : &e2) != PS_OK) break;
      if (sm.rendezvous) return ps_fail(e, PS_EINPUT, "%s: %s", path, RENDEZVOUS_REFUSED);
      nr = sm.reps_in_file;
      acc.ngpus = sm.ngpus;
      for (int g = 0; g < sm.ngpus; g++) acc.gpu_util[g] += sm.gpu_util[g];
      acc.throughput_pps += sm.throughput_pps;
      acc.call_mean += sm.call_mean;
      acc.mutex_wait_mean += isfinite(sm.mutex_wait_mean) ? sm.mutex_wait_mean : 0;
      acc.from_kernels = sm.from_kernels;
      m->steal = sm.host_steal;
    }
    if (r == 0) return PS_EINPUT;
    m->nreps = r;
    if (sm.arrivals_seed >= 0 && r == 1) { /* measure's spans of one replication */
      m->replayable = 1;
      m->seed = (uint64_t)sm.arrivals_seed;
    }
    m->ngpus = acc.ngpus;
    for (int g = 0; g < acc.ngpus; g++) m->util[g] = acc.gpu_util[g] / r;
    m->tput = acc.throughput_pps / r;
    m->call_mean = acc.call_mean / r;
    m->wait_mean = acc.mutex_wait_mean / r;
    m->kind = "spans";
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
  const cJSON *rv = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "measurement"), "rendezvous");
  if (cJSON_IsTrue(rv)) {
    cJSON_Delete(d);
    return ps_fail(e, PS_EINPUT, "%s: %s", path, RENDEZVOUS_REFUSED);
  }
  const cJSON *met = cJSON_GetObjectItemCaseSensitive(d, "metrics");
  const cJSON *gu = cJSON_GetObjectItemCaseSensitive(met, "gpu_util");
  const cJSON *gn = cJSON_GetObjectItemCaseSensitive(met, "gpu_util_nvml");
  if (!cJSON_IsArray(gu) || cJSON_GetArraySize(gu) < 1 || cJSON_GetArraySize(gu) > PS_MAX_GPUS) {
    cJSON_Delete(d);
    return ps_fail(e, PS_EINPUT, "%s: metrics.gpu_util: expected an array of 1 to %d numbers", path, PS_MAX_GPUS);
  }
  m->ngpus = cJSON_GetArraySize(gu);
  for (int g = 0; g < m->ngpus; g++) m->util[g] = jarr(gu, g);
  if (cJSON_IsArray(gn) && cJSON_GetArraySize(gn) == m->ngpus) {
    m->has_nvml = 1;
    for (int g = 0; g < m->ngpus; g++) m->util_nvml[g] = jarr(gn, g);
  }
  m->tput = jnum(met, "throughput_pps");
  m->call_mean = jnum(cJSON_GetObjectItemCaseSensitive(met, "call_s"), "mean");
  m->wait_mean = jnum(cJSON_GetObjectItemCaseSensitive(met, "mutex_wait_s"), "mean");
  const cJSON *lat = cJSON_GetObjectItemCaseSensitive(met, "latency_s");
  m->lat_p50 = jnum(lat, "p50");
  m->lat_p99 = jnum(lat, "p99");
  double nr = jnum(d, "replications");
  m->nreps = nr >= 1 && nr <= 1e6 ? (int)nr : 1;
  m->kind = m->what = "report";
  /* measure's report names its source and carries the scenario it ran, seed included */
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(d, "source");
  double seed = jnum(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "scenario"), "run"), "seed");
  if (cJSON_IsString(src) && !strcmp(src->valuestring, "prover") && m->nreps == 1 && seed >= 0 && seed < 0x1p53 &&
      seed == floor(seed)) {
    m->replayable = 1;
    m->seed = (uint64_t)seed;
  }
  double st = jnum(cJSON_GetObjectItemCaseSensitive(d, "measurement"), "host_steal");
  if (st >= 0 && st <= 1) m->steal = st;
  cJSON_Delete(d);
  return PS_OK;
}

/* Several measurements of the same scenario as one: each metric the mean over every
 * replication of every file (a file of n replications weighs n), so that the prediction
 * interval is that of the mean of all their windows. Latency only when every file has it
 * (reports); nvidia-smi's figure only when every file has it. m holds the first file's
 * measurement and receives the mean; x is the next file's. */
static int merge_measured(measured *m, const measured *x, const char *first, const char *path, ps_err *e) {
  if (x->ngpus != m->ngpus)
    return ps_fail(e, PS_EINPUT, "%s: %d GPU%s measured, but %s has %d: expected measurements of the same scenario",
                   path, x->ngpus, x->ngpus == 1 ? "" : "s", first, m->ngpus);
  double a = m->nreps, b = x->nreps, t = a + b;
#define MIX(f) (m->f = (a * m->f + b * x->f) / t)
  for (int g = 0; g < m->ngpus; g++) {
    MIX(util[g]);
    MIX(util_nvml[g]);
  }
  MIX(tput);
  MIX(call_mean);
  MIX(wait_mean);
  MIX(lat_p50);
  MIX(lat_p99);
#undef MIX
  m->has_nvml &= x->has_nvml;
  m->nreps += x->nreps;
  m->replayable = m->replayable && x->replayable && m->seed == x->seed;
  if (x->steal > m->steal) m->steal = x->steal;
  if (strcmp(m->kind, x->kind)) m->kind = m->what = "reports and spans";
  return PS_OK;
}

/* ---------------------------------------------------------------- the comparison */

typedef enum vmetric { V_UTIL, V_TPUT, V_CALL, V_WAIT, V_P50, V_P99 } vmetric;

/* Each metric's JSON name and unit, and its label in the table (utilization adds the GPU). */
static const struct {
  const char *name, *unit, *label;
} vinfo[] = {
    [V_UTIL] = {"gpu_util", "fraction", "GPU utilization"},
    [V_TPUT] = {"throughput", "partitions/s", "throughput (partitions/s)"},
    [V_CALL] = {"call_mean", "s", "time inside call, mean (s)"},
    [V_WAIT] = {"mutex_wait_mean", "s", "mutex wait, mean (s)"},
    [V_P50] = {"latency_p50", "s", "partition latency, p50 (s)"},
    [V_P99] = {"latency_p99", "s", "partition latency, p99 (s)"},
};

/* One row of the comparison. */
typedef struct vrow {
  vmetric metric;
  int gpu;             /* V_UTIL: which GPU */
  double pred, lo, hi; /* the predicted mean and its 95% prediction interval */
  double meas, nvml;   /* the measurement and (V_UTIL) nvidia-smi's figure; NAN when absent */
  double err;          /* predicted - measured: pp for V_UTIL, % of the measurement for the
                          others; NAN when undefined */
  int verdict;         /* 1 inside, 0 outside, -1 none (nothing measured) */
} vrow;

static double rep_value(const sim_metrics *r, vmetric k, int gpu) {
  switch (k) {
  case V_UTIL: return r->gpu_util[gpu];
  case V_TPUT: return r->throughput_pps;
  case V_CALL: return r->call_mean;
  case V_WAIT: return r->mutex_wait_mean;
  case V_P50: return r->lat_p50;
  case V_P99: return r->lat_p99;
  }
  return NAN;
}

/* The q-quantile of the sorted x[0..n), n >= 1, linear between order statistics (the
 * definition numpy and R use by default). */
static double quantile(const double *x, int n, double q) {
  double h = q * (n - 1);
  int i = (int)h;
  if (i >= n - 1) return x[n - 1];
  return x[i] + (h - i) * (x[i + 1] - x[i]);
}

/* Fills r's prediction from the simulated windows: the mean, and the 95% prediction
 * interval of the mean of n measured windows. For n = 1 that is the 2.5th and 97.5th
 * percentiles of the windows' values; for n > 1 their distances from the mean are divided
 * by sqrt(n) (exact for normal spreads, and the mean of several windows is closer to normal
 * than one). The interval always contains the mean. Windows without the metric (NaN) are
 * left out; x is scratch space of res->nreps entries. Returns 0, or -1 when no window has
 * the metric. */
static int predict(const sim_result *res, vrow *r, int n, double *x) {
  int k = 0;
  double sum = 0;
  for (int i = 0; i < res->nreps; i++) {
    double v = rep_value(&res->reps[i], r->metric, r->gpu);
    if (isfinite(v)) x[k++] = v, sum += v;
  }
  if (!k) return -1;
  qsort(x, (size_t)k, sizeof *x, ps_cmp_double);
  double mean = sum / k, shrink = 1 / sqrt((double)n);
  r->pred = mean;
  r->lo = fmin(mean, mean - (mean - quantile(x, k, 0.025)) * shrink);
  r->hi = fmax(mean, mean + (quantile(x, k, 0.975) - mean) * shrink);
  return 0;
}

/* The measured side of row r, its error and its verdict. */
static void compare(vrow *r, double meas) {
  r->meas = meas;
  r->err = NAN;
  r->verdict = -1;
  if (!isfinite(meas)) return;
  if (r->metric == V_UTIL) r->err = 100 * (r->pred - meas);
  else if (meas != 0) r->err = 100 * (r->pred - meas) / meas;
  r->verdict = r->lo <= meas && meas <= r->hi;
}

static void row_label(char *o, size_t n, const vrow *r) {
  if (r->metric == V_UTIL) snprintf(o, n, "%s, GPU %d", vinfo[V_UTIL].label, r->gpu);
  else snprintf(o, n, "%s", vinfo[r->metric].label);
}

static void fmt_val(char *o, size_t n, const vrow *r, double v) {
  if (!isfinite(v)) snprintf(o, n, "-");
  else if (r->metric == V_UTIL) snprintf(o, n, "%.2f%%", 100 * v);
  else snprintf(o, n, "%.4f", v);
}

static const char *verdict_name(int v) { return v < 0 ? NULL : v ? "inside" : "outside"; }

/* How the simulated windows' arrivals came (open scenarios only). */
typedef enum varr { VA_CLOSED, VA_REPLAYED, VA_PROCESS, VA_CANNOT } varr;
static const char varr_why[] = "the arrivals cannot be drawn again (that needs measure's reports or spans of one "
                               "replication each, all of one seed, recorded in spans since 2026-12-02)";

static void render_table(ps_buf *b, const scenario *s, const measured *m, const char *const *meas, int nmeas,
                         int windows, varr arrivals, const vrow *rows, int nrows) {
  ps_buf_printf(b, "scenario  %s (model %s), mutex %s, %d GPU%s x %d workers, batch %d\n", s->name, s->model->name,
                s->mutex_name ? s->mutex_name : "none", s->gpus, s->gpus > 1 ? "s" : "", s->workers_per_gpu, s->batch);
  ps_buf_printf(b, "predicted %d simulated windows of %lld partitions (warm-up %lld, cool-down %lld)\n", windows,
                (long long)s->partitions, (long long)s->warmup, (long long)s->cooldown);
  ps_buf_printf(b, "measured  %s, %s (%d replication%s)\n", meas[0], m->what, m->nreps, m->nreps == 1 ? "" : "s");
  for (int i = 1; i < nmeas; i++) ps_buf_printf(b, "   and    %s\n", meas[i]);
  if (arrivals == VA_REPLAYED)
    ps_buf_printf(b, "arrivals  replayed: every window gets the measured run's %lld proof arrivals (seed %llu),\n"
                     "          drawn again as measure drew them\n", (long long)s->ntrace, (unsigned long long)m->seed);
  else if (arrivals == VA_PROCESS)
    ps_buf_printf(b, "arrivals  each window draws its own from the scenario's process (--arrivals process)\n");
  else if (arrivals == VA_CANNOT)
    ps_buf_printf(b, "arrivals  each window draws its own from the scenario's process: %s\n", varr_why);
  if (m->nreps == 1)
    ps_buf_printf(b, "interval  95%% prediction: where 95%% of single measured windows fall when the model\n"
                     "          is right (the 2.5th to 97.5th percentile of the simulated windows)\n\n");
  else
    ps_buf_printf(b, "interval  95%% prediction: where 95%% of means of %d measured windows fall when the\n"
                     "          model is right (the simulated windows' 2.5th and 97.5th percentiles, their\n"
                     "          distances from the mean divided by sqrt(%d))\n\n", m->nreps, m->nreps);
  ps_buf_printf(b, "  %-26s %9s  %-19s %9s %10s  %s\n", "metric", "predicted", "prediction interval", "measured",
                "error", "verdict");
  if (m->ngpus != s->gpus)
    ps_buf_printf(b, "  (the measurement has %d GPUs, the scenario %d: comparing the first %d)\n", m->ngpus, s->gpus,
                  m->ngpus < s->gpus ? m->ngpus : s->gpus);
  for (int i = 0; i < nrows; i++) {
    const vrow *r = &rows[i];
    char l[64], p[32], lo[32], hi[32], iv[72], me[32], er[32];
    row_label(l, sizeof l, r);
    fmt_val(p, sizeof p, r, r->pred);
    fmt_val(lo, sizeof lo, r, r->lo);
    fmt_val(hi, sizeof hi, r, r->hi);
    snprintf(iv, sizeof iv, "[%s, %s]", lo, hi);
    fmt_val(me, sizeof me, r, r->meas);
    if (!isfinite(r->err)) snprintf(er, sizeof er, "-");
    else if (r->metric == V_UTIL) snprintf(er, sizeof er, "%+.2f pp", r->err);
    else snprintf(er, sizeof er, "%+.1f%%", r->err);
    ps_buf_printf(b, "  %-26s %9s  %-19s %9s %10s  %s\n", l, p, iv, me, er,
                  r->verdict < 0 ? "-" : verdict_name(r->verdict));
    if (isfinite(r->nvml)) {
      fmt_val(me, sizeof me, r, r->nvml);
      ps_buf_printf(b, "  %-26s %9s  %-19s %9s\n", "  (nvidia-smi said)", "", "", me);
    }
  }
  int in = 0, out = 0;
  for (int i = 0; i < nrows; i++) in += rows[i].verdict == 1, out += rows[i].verdict == 0;
  ps_buf_printf(b, "\n%d of %d metrics inside their 95%% prediction intervals\n", in, in + out);
  if (m->steal > SPANS_STEAL_WARN)
    ps_buf_printf(b, "note: the measured run%s lost up to %.1f%% of its cores' busy time to other guests of the host "
                  "(hypervisor steal): the host was shared, so its cpu phases ran slower than on a quiet host\n",
                  nmeas > 1 ? "s" : "", 100 * m->steal);
}

static char *render_json(const char *path, const scenario *s, const char *const *sets, int nsets, const measured *m,
                         const char *const *meas, int nmeas, int windows, varr arrivals, const vrow *rows,
                         int nrows, double worst) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.validate/1");
  cJSON *sc = cJSON_AddObjectToObject(root, "scenario");
  cJSON_AddStringToObject(sc, "path", path);
  cJSON_AddStringToObject(sc, "name", s->name);
  cJSON *ov = cJSON_AddArrayToObject(sc, "overrides");
  for (int i = 0; i < nsets; i++) cJSON_AddItemToArray(ov, cJSON_CreateString(sets[i]));
  cJSON *me = cJSON_AddObjectToObject(root, "measured");
  cJSON_AddStringToObject(me, "path", meas[0]);
  if (nmeas > 1) {
    cJSON *pa = cJSON_AddArrayToObject(me, "paths");
    for (int i = 0; i < nmeas; i++) cJSON_AddItemToArray(pa, cJSON_CreateString(meas[i]));
  }
  cJSON_AddStringToObject(me, "kind", m->kind);
  cJSON_AddNumberToObject(me, "replications", m->nreps);
  report_json_num(me, "host_steal", m->steal >= 0 ? m->steal : NAN);
  cJSON_AddNumberToObject(root, "windows", windows);
  if (arrivals != VA_CLOSED) { /* replayed, or each window its own (and why) */
    cJSON *ar = cJSON_AddObjectToObject(root, "arrivals");
    cJSON_AddStringToObject(ar, "mode", arrivals == VA_REPLAYED ? "replayed" : "process");
    if (arrivals == VA_REPLAYED) {
      cJSON_AddNumberToObject(ar, "seed", (double)m->seed);
      cJSON_AddNumberToObject(ar, "proofs", (double)s->ntrace);
    } else if (arrivals == VA_CANNOT) {
      cJSON_AddStringToObject(ar, "why", varr_why);
    }
  }
  cJSON_AddNumberToObject(root, "level", 0.95);
  cJSON *arr = cJSON_AddArrayToObject(root, "metrics");
  int in = 0, out = 0;
  for (int i = 0; i < nrows; i++) {
    const vrow *r = &rows[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "metric", vinfo[r->metric].name);
    if (r->metric == V_UTIL) cJSON_AddNumberToObject(o, "gpu", r->gpu);
    cJSON_AddStringToObject(o, "unit", vinfo[r->metric].unit);
    report_json_num(o, "predicted", r->pred);
    report_json_num(o, "pi_low", r->lo);
    report_json_num(o, "pi_high", r->hi);
    report_json_num(o, "measured", r->meas);
    if (r->metric == V_UTIL && isfinite(r->nvml)) report_json_num(o, "measured_nvml", r->nvml);
    report_json_num(o, "error", r->err);
    cJSON_AddStringToObject(o, "error_unit", r->metric == V_UTIL ? "pp" : "%");
    if (r->verdict < 0) cJSON_AddNullToObject(o, "verdict");
    else cJSON_AddStringToObject(o, "verdict", verdict_name(r->verdict));
    cJSON_AddItemToArray(arr, o);
    in += r->verdict == 1, out += r->verdict == 0;
  }
  cJSON_AddNumberToObject(root, "inside", in);
  cJSON_AddNumberToObject(root, "outside", out);
  report_json_num(root, "utilization_error_max_pp", worst);
  char *txt = cJSON_Print(root);
  cJSON_Delete(root);
  return txt;
}

int sim_cmd_validate(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  const char **sets = xcalloc((size_t)argc, sizeof *sets), **meas = xcalloc((size_t)argc, sizeof *meas);
  int nmeas = 0;
  int nsets = 0, threads = 0, windows = VALIDATE_WINDOWS, strict = 0, json = 0, rc = PS_EXIT_USAGE, replay = 1;
  varr arrivals = VA_CLOSED;
  double max_pp = NAN;
  scenario *s = NULL;
  sim_result *res = NULL;
  vrow *rows = NULL;
  double *scratch = NULL;
  ps_buf b = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(validate_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--measured")) {
      if (!(v = cli_optval(argc, argv, &i, "--measured"))) goto missing;
      meas[nmeas++] = v;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--max-error-pp")) {
      if (!(v = cli_optval(argc, argv, &i, "--max-error-pp"))) goto missing;
      if (ps_parse_num(v, &max_pp) || !(max_pp >= 0)) {
        rc = cli_usage_error("validate", "--max-error-pp: expected a number >= 0, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--windows")) {
      if (!(v = cli_optval(argc, argv, &i, "--windows"))) goto missing;
      if (ps_parse_int(v, 10, 1000000, &windows)) {
        rc = cli_usage_error("validate", "--windows: expected an integer from 10 to 1000000, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--arrivals")) {
      if (!(v = cli_optval(argc, argv, &i, "--arrivals"))) goto missing;
      if (strcmp(v, "replay") && strcmp(v, "process")) {
        rc = cli_usage_error("validate", "--arrivals: expected replay or process, got \"%s\"", v);
        goto done;
      }
      replay = !strcmp(v, "replay");
    } else if (!strcmp(a, "--strict")) {
      strict = 1;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (cli_is_opt(a, "--out") || !strcmp(a, "-o")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out"))) goto missing;
      out = v;
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      if (ps_parse_int(v, 1, 1000000, &threads)) {
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
  if (!path || !nmeas) {
    rc = cli_usage_error("validate", "%s", "expected SCENARIO and --measured FILE");
    goto done;
  }
  if (cli_check_outputs("validate", &out, 1)) goto done;
  ps_err e = {0};
  int lr = scn_load(path, sets, nsets, &s, &e);
  measured m;
  char gm[512]; /* the engine does not model memory: a scenario that does not fit still runs */
  if (lr == PS_OK && scn_gpu_mem_over(s, s->workers_per_gpu, s->batch, gm, sizeof gm))
    fprintf(stderr, "provesim validate: warning: %s; the prover would not start, the simulation runs anyway\n", gm);
  if (lr == PS_OK && scn_batch_unmeasured(s, gm, sizeof gm)) fprintf(stderr, "provesim validate: warning: %s\n", gm);
  if (lr == PS_OK) lr = load_measured(meas[0], s, &m, &e);
  for (int i = 1; i < nmeas && lr == PS_OK; i++) {
    measured x;
    lr = load_measured(meas[i], s, &x, &e);
    if (lr == PS_OK) lr = merge_measured(&m, &x, meas[0], meas[i], &e);
  }
  if (lr == PS_OK && (s->arrivals == ARR_POISSON || s->arrivals == ARR_FIXED)) {
    /* Like with like: every simulated window gets the arrivals the measured run had,
     * drawn again as measure drew them, so that the prediction interval is the spread of
     * windows with those arrivals. */
    if (replay && m.replayable) {
      int64_t np;
      double *t = arrivals_measured(s, m.seed, 0, &np);
      free(s->trace_t);
      free(s->trace_path);
      s->trace_t = t, s->ntrace = np, s->rate_scale = 1, s->arrivals = ARR_TRACE;
      s->trace_path = xstrdup("(the measured run's arrivals)");
      arrivals = VA_REPLAYED;
    } else {
      arrivals = replay ? VA_CANNOT : VA_PROCESS;
    }
  }
  if (lr == PS_OK) {
    s->replications = windows;
    sim_opts o = {.threads = threads};
    cli_progress bar;
    int show = isatty(2) && (double)windows * (double)s->partitions >= 2e6;
    if (show) {
      cli_progress_start(&bar, "validate", (size_t)windows);
      o.progress = cli_progress_tick;
      o.progress_ctx = &bar;
    }
    lr = sim_run(s, &o, &res, &e);
    if (show) cli_progress_end(&bar);
  }
  if (lr != PS_OK) {
    fprintf(stderr, "provesim validate: %s\n", e.msg);
    rc = ps_exit_failed(lr);
    goto done;
  }

  /* The rows: every GPU both sides have, then the scalar metrics. */
  int ng = m.ngpus < s->gpus ? m.ngpus : s->gpus, nrows = 0;
  rows = xcalloc((size_t)ng + 5, sizeof *rows);
  scratch = xcalloc((size_t)res->nreps, sizeof *scratch);
  for (int g = 0; g < ng; g++) rows[nrows++] = (vrow){.metric = V_UTIL, .gpu = g};
  rows[nrows++] = (vrow){.metric = V_TPUT};
  rows[nrows++] = (vrow){.metric = V_CALL};
  /* With one worker on a GPU nobody waits for its mutex: the model says 0, and what a run
   * measures is the lock's own cost (microseconds), which would read as a -100% miss. */
  if (s->mutex_from >= 0 && s->workers_per_gpu > 1) rows[nrows++] = (vrow){.metric = V_WAIT};
  if (!strcmp(m.kind, "report")) { /* every file a report */
    rows[nrows++] = (vrow){.metric = V_P50};
    rows[nrows++] = (vrow){.metric = V_P99};
  }
  double worst = 0;
  int outside = 0, k = 0;
  for (int i = 0; i < nrows; i++) {
    vrow *r = &rows[i];
    if (predict(res, r, m.nreps, scratch)) continue; /* no window has it: no row */
    double v = NAN;
    switch (r->metric) {
    case V_UTIL: v = m.util[r->gpu]; break;
    case V_TPUT: v = m.tput; break;
    case V_CALL: v = m.call_mean; break;
    case V_WAIT: v = m.wait_mean; break;
    case V_P50: v = m.lat_p50; break;
    case V_P99: v = m.lat_p99; break;
    }
    compare(r, v);
    r->nvml = r->metric == V_UTIL && m.has_nvml ? m.util_nvml[r->gpu] : NAN;
    if (r->metric == V_UTIL && isfinite(r->err) && fabs(r->err) > worst) worst = fabs(r->err);
    outside += r->verdict == 0;
    rows[k++] = *r;
  }
  nrows = k;

  /* The verdicts that set the exit code. */
  ps_buf verdict = {0};
  int fail = 0;
  if (isfinite(max_pp)) {
    int ok = worst <= max_pp;
    ps_buf_printf(&verdict, "%s: the largest utilization error is %.2f pp (limit %.2f pp)\n", ok ? "agree" : "DISAGREE",
                  worst, max_pp);
    fail |= !ok;
  }
  if (strict) {
    if (outside)
      ps_buf_printf(&verdict, "strict: DISAGREE: %d metric%s outside %s 95%% prediction interval%s\n", outside,
                    outside == 1 ? "" : "s", outside == 1 ? "its" : "their", outside == 1 ? "" : "s");
    else
      ps_buf_printf(&verdict, "strict: agree: every metric inside its 95%% prediction interval\n");
    fail |= outside > 0;
  }
  if (json) {
    char *txt = render_json(path, s, sets, nsets, &m, meas, nmeas, windows, arrivals, rows, nrows, worst);
    ps_buf_printf(&b, "%s\n", txt);
    free(txt);
    /* The document carries the verdicts; a disagreement is also said where a person sees it. */
    for (char *l = fail ? verdict.p : NULL, *nl; l && *l; l = nl + 1) {
      nl = strchr(l, '\n');
      fprintf(stderr, "provesim validate: %.*s\n", (int)(nl - l), l);
    }
  } else {
    render_table(&b, s, &m, meas, nmeas, windows, arrivals, rows, nrows);
    char sh[512]; /* a shared GPU whose law moves the answer: the range, beside the measurement */
    if (*whatif_sharing_line(s, sh, sizeof sh)) ps_buf_printf(&b, "\n%s\n", sh);
    if (verdict.len) ps_buf_printf(&b, "\n%s", verdict.p);
  }
  ps_buf_free(&verdict);
  rc = fail ? PS_EXIT_FAIL : PS_EXIT_OK;
  if (out) {
    if (cli_write_out("validate", out, &b)) rc = PS_EXIT_FAIL;
  } else if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim validate: %s\n", e.msg);
    rc = PS_EXIT_FAIL;
  }
done:
  ps_buf_free(&b);
  free(rows);
  free(scratch);
  sim_result_free(res);
  scn_free(s);
  free(sets);
  free(meas);
  return rc;
}
