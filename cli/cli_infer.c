/* `provesim infer`: arguments, the help, and the table or provesim.infer/1 document of
 * what sim/infer.h fits from a daemon's own per-call log; writes the fitted model. */
#define _GNU_SOURCE
#include "cli_infer.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "cli.h"
#include "infer.h"
#include "scn.h"

static const char infer_help[] =
    "usage: provesim infer LOG --call-col NAME --workers N --gpu-time A[:B] -o MODEL.yaml [options]\n"
    "\n"
    "Diagnoses a proving daemon from its own coarse timing logs. Such a daemon often logs, per\n"
    "call, only the wall time of a locked call (its \"GPU time\"), and that call hides CPU work\n"
    "inside the lock: setup before the kernels, cleanup after them, and the wait for the lock.\n"
    "Given what you know (workers per GPU, the real GPU compute per partition), infer finds\n"
    "the CPU work inside the lock that makes a simulated daemon log what yours logged:\n"
    "\n"
    "  model      setup (cpu) -> gpu (your --gpu-time) -> cleanup (cpu), one lock over all\n"
    "             three, [-> time outside the lock, when start times show gaps between calls]\n"
    "  fit        Nelder-Mead on the distance between the simulated and logged deciles (and\n"
    "             means) of the call time, and of the wait, the call rate (start times) and\n"
    "             the utilization where given; common random numbers keep it smooth\n"
    "  intervals  95%, from --boot refits on block-resampled log records\n"
    "\n"
    "It reports the CPU work inside the lock per call with its interval, how the logged time\n"
    "splits into waiting, CPU work and GPU compute, the true GPU utilization, and what-ifs\n"
    "simulated with the fitted model: the lock narrowed to the GPU phase, and 1..4 workers.\n"
    "\n"
    "What the logs cannot tell: setup and cleanup both sit inside the lock, and the call\n"
    "time, the wait, the start times and the utilization all depend on their sum only. infer\n"
    "estimates the sum, says the split is not identified, and writes the model with all of it\n"
    "in setup (a convention; none of the what-ifs shown depends on it). To separate them,\n"
    "log when the GPU work starts inside the call.\n"
    "\n"
    "LOG is CSV with a header row, or JSON Lines (one object per call); --format or the\n"
    "file's name (.jsonl, .ndjson, .json) or first character ('{') tells which.\n"
    "\n"
    "the log's columns:\n"
    "  --call-col NAME     wall time of the locked call (required)\n"
    "  --call-is call|locked\n"
    "                      call (default): the column runs from entering the call to its\n"
    "                      return, the wait for the lock included (the lock is taken inside\n"
    "                      the call that is timed); locked: only the time the lock was held\n"
    "  --wait-col NAME     time waiting for the lock, when logged\n"
    "  --start-col NAME    when each call started (any origin); gives the call rate, and with\n"
    "                      --worker-col the gaps between a worker's calls\n"
    "  --worker-col NAME   which worker made the call (any text or number)\n"
    "  --unit ms|s         unit of the time columns (default ms)\n"
    "  --format auto|csv|jsonl\n"
    "\n"
    "what you know:\n"
    "  --workers N         workers per GPU (required)\n"
    "  --gpus G            GPUs (default 1); the log holds the calls of all of them\n"
    "  --gpu-time A[:B]    GPU compute per partition, seconds (or 1500ms): A, or uniform on A..B\n"
    "                      (required)\n"
    "  --util U            observed GPU utilization, 0..1 or a percentage (50%); fitted as if\n"
    "                      known to +-2 points (--util-sd)\n"
    "  --util-sd X         that uncertainty, 0..1 (default 0.02)\n"
    "  --cores C           CPU cores (default: enough that CPU work never waits for a core)\n"
    "\n"
    "the fit and the output:\n"
    "  -o, --out FILE      the fitted model to write (required)\n"
    "  --name NAME         the model's name (default: inferred)\n"
    "  --boot N            bootstrap refits for the intervals (default 30; 0: none)\n"
    "  --seed S            seed of the simulations and resamples (default 1)\n"
    "  --threads N         refits in parallel (default: all cores); results do not depend on N\n"
    "  --json              print a provesim.infer/1 JSON document instead of the table\n"
    "  -h, --help          this text\n"
    "\n"
    "exit codes: 0 success, 1 a failed run (I/O), 2 bad input (the log, options)\n"
    "\n"
    "example (docs/diagnose.md walks through it):\n"
    "  provesim infer docs/data/diagnose/field-log.csv --call-col gpu_ms \\\n"
    "      --start-col prove_start_ms --worker-col worker --workers 2 --gpu-time 1.5:2 \\\n"
    "      --util 50% -o field.yaml\n"
    "  provesim simulate configs/seed-coarse-mutex.yaml --set model=field.yaml --set system.mutex=kernels\n";

/* A duration: a number of seconds, or with a unit ("1.5", "1.5s", "1500ms"); -1 when bad. */
static double parse_dur(const char *v) {
  char *end;
  double x = strtod(v, &end);
  if (end == v || !isfinite(x) || x <= 0) return -1;
  if (!strcmp(end, "ms")) x /= 1000;
  else if (*end && strcmp(end, "s")) return -1;
  return x <= 1e6 ? x : -1;
}

/* A number rounded to 6 significant digits (documents stay short), or null. */
static void jnum(cJSON *o, const char *k, double v) {
  if (!isfinite(v)) {
    cJSON_AddNullToObject(o, k);
    return;
  }
  char b[32];
  snprintf(b, sizeof b, "%.6g", v);
  cJSON_AddNumberToObject(o, k, strtod(b, NULL));
}

static void jci(cJSON *o, const char *k, const infer_ci *c, int ident) {
  cJSON *x = cJSON_AddObjectToObject(o, k);
  jnum(x, "estimate", c->est);
  cJSON *a = cJSON_AddArrayToObject(x, "ci95");
  if (isfinite(c->lo)) {
    cJSON *t = cJSON_CreateObject();
    jnum(t, "v", c->lo);
    cJSON_AddItemToArray(a, cJSON_DetachItemFromObject(t, "v"));
    jnum(t, "v", c->hi);
    cJSON_AddItemToArray(a, cJSON_DetachItemFromObject(t, "v"));
    cJSON_Delete(t);
  }
  if (ident) cJSON_AddStringToObject(x, "identification", infer_identification(c));
}

static void jarr(cJSON *o, const char *k, const double *v, int n) {
  cJSON *a = cJSON_AddArrayToObject(o, k), *t = cJSON_CreateObject();
  for (int i = 0; i < n; i++) {
    jnum(t, "v", v[i]);
    cJSON_AddItemToArray(a, cJSON_DetachItemFromObject(t, "v"));
  }
  cJSON_Delete(t);
}

static const char split_reason[] =
    "setup and cleanup both lie inside the lock, and the call time, the wait, the start times and the "
    "utilization all depend on their sum only";

/* " 2.361 .. 2.466" or "" without an interval. */
static const char *ci_text(char *b, size_t n, const infer_ci *c, double scale, const char *fmt) {
  if (!isfinite(c->lo)) return "-";
  char f[32];
  snprintf(f, sizeof f, "%s .. %s", fmt, fmt);
  snprintf(b, n, f, c->lo * scale, c->hi * scale);
  return b;
}

/* The largest relative gap between logged and simulated call deciles. */
static double decile_gap(const infer_result *r) {
  double mx = 0;
  for (int i = 0; i < INFER_NQ; i++) mx = fmax(mx, fabs(r->sim_q[i] / r->obs_q[i] - 1));
  return mx;
}

typedef struct args {
  const char *log, *out, *name;
  infer_cols cols;
  infer_opts o;
  int json;
  const char *unit;
} args;

/* The recommendation: the lock narrowed to the GPU phase when that gains, the fewest
 * workers with which the narrow lock reaches 95% (or within a point of the best the grid
 * reaches), and whether more workers help under the present lock. */
static void recommend(ps_buf *b, const infer_result *r, const infer_opts *o) {
  double top = 0;
  const infer_whatif *most = NULL, *enough = NULL;
  for (int i = 0; i < r->ngrid; i++) {
    const infer_whatif *w = &r->grid[i];
    if (w->narrow) top = fmax(top, w->util);
    if (!w->narrow && (!most || w->workers > most->workers)) most = w;
  }
  for (int i = 0; i < r->ngrid; i++) {
    const infer_whatif *w = &r->grid[i];
    if (w->narrow && w->util >= fmin(0.95, top - 0.01) && (!enough || w->workers < enough->workers)) enough = w;
  }
  char c1[64];
  if (r->narrow_util.est - r->util.est > 0.02) {
    ps_buf_printf(b, "narrow the lock to the GPU phase (setup and cleanup outside it).\n"
                     "  With %d worker%s per GPU the GPU then computes %.1f%% of the time instead of %.1f%% "
                     "(%s), %.2fx the calls per hour",
                  o->workers, o->workers > 1 ? "s" : "", 100 * r->narrow_util.est, 100 * r->util.est,
                  ci_text(c1, sizeof c1, &r->narrow_util, 100, "%.1f%%"), r->narrow_gain.est);
    if (enough && enough->workers != o->workers && enough->util > r->narrow_util.est + 0.01)
      ps_buf_printf(b, ";\n  with %d workers per GPU and the narrow lock, %.1f%% (%.0f calls per hour)", enough->workers,
                    100 * enough->util, 3600 * enough->pps);
    ps_buf_printf(b, ".\n");
  } else if (enough && enough->util > r->util.est + 0.02) {
    ps_buf_printf(b, "%d workers per GPU with the lock on the GPU phase: the GPU computes %.1f%% of the time instead "
                     "of %.1f%%.\n", enough->workers, 100 * enough->util, 100 * r->util.est);
  } else {
    ps_buf_printf(b, "neither a narrower lock nor more workers (up to %d) raises the utilization by 2 points: the "
                     "GPU computes %.1f%% of the time, and what holds it back lies outside the lock.\n",
                  most ? most->workers : 4, 100 * r->util.est);
    return;
  }
  if (most && most->workers > o->workers && most->util < r->util.est + 0.01)
    ps_buf_printf(b, "  With the lock over the whole call, more workers do not help (%.1f%% with %d).\n",
                  100 * most->util, most->workers);
}

static void render_text(ps_buf *b, const args *A, const infer_result *r) {
  const infer_opts *o = &A->o;
  const infer_cols *c = &A->cols;
  char c1[64], c2[64];
  ps_buf_printf(b, "log       %s: %zu calls; columns (%s): call %s (%s)", A->log, r->n, A->unit, c->call,
                o->call_has_wait ? "the wait for the lock included" : "the time the lock was held");
  if (c->wait) ps_buf_printf(b, ", wait %s", c->wait);
  if (c->start) ps_buf_printf(b, ", start %s", c->start);
  if (c->worker) ps_buf_printf(b, ", worker %s", c->worker);
  ps_buf_printf(b, "\nknown     %d GPU%s x %d worker%s, GPU compute ", o->gpus, o->gpus > 1 ? "s" : "", o->workers,
                o->workers > 1 ? "s" : "");
  if (o->gpu_hi > o->gpu_lo) ps_buf_printf(b, "%.4g..%.4g s per partition (uniform)", o->gpu_lo, o->gpu_hi);
  else ps_buf_printf(b, "%.4g s per partition", o->gpu_lo);
  if (r->has_util) ps_buf_printf(b, ", observed utilization %.1f%%", 100 * o->util);
  if (o->cores > 0) ps_buf_printf(b, ", %d CPU cores", o->cores);
  ps_buf_printf(b, "\nfit       %d parameters to %d statistics by simulation (%zu calls each), %d bootstrap refits "
                   "in blocks of %d calls; %d simulations\n\n",
                r->nparams, r->nstats, r->sim_calls, r->boot_done, r->block, r->evals);

  const char *row = "  %-50s %8.3f%s  %-17s  %s\n";
  ps_buf_printf(b, "%-53s%8s    %-17s  %s\n", "what the logs imply", "estimate", "95% CI", "identified");
  ps_buf_printf(b, row, "CPU work inside the lock per call (setup+cleanup)", r->cpu_lock.est, " s",
                ci_text(c1, sizeof c1, &r->cpu_lock, 1, "%.3f"), infer_identification(&r->cpu_lock));
  ps_buf_printf(b, row, "  its variation (cv of a lognormal)", r->cpu_cv.est, "  ",
                ci_text(c2, sizeof c2, &r->cpu_cv, 1, "%.3f"), infer_identification(&r->cpu_cv));
  if (r->outside == INFER_OUT_NONE)
    ps_buf_printf(b, "  %-50s     none: %s\n", "time outside the lock between a worker's calls", r->outside_why);
  else
    ps_buf_printf(b, row, "time outside the lock between a worker's calls", r->outside_s.est, " s",
                  ci_text(c1, sizeof c1, &r->outside_s, 1, "%.3f"),
                  r->outside == INFER_OUT_SEEN ? "seen in the gaps between calls" : infer_identification(&r->outside_s));
  ps_buf_printf(b, "  %-50s     not identified: both lie inside the lock, and\n"
                   "  %-50s     every logged quantity depends on their sum only;\n"
                   "  %-50s     the model puts all of it in setup (a convention)\n",
                "split between setup and cleanup", "", "");

  double cpu = r->cpu_lock.est, g = r->gpu_mean, w = o->call_has_wait ? r->wait_s : 0, sum = w + cpu + g;
  ps_buf_printf(b, "\nthe logged time per call, mean %.3f s (the model's: %.3f s)\n", r->logged_s, r->sim_mean);
  if (o->call_has_wait)
    ps_buf_printf(b, "  waiting for the lock        %7.3f s  %5.1f%%%s\n", w, 100 * w / sum,
                  r->has_wait ? "  (logged)" : "  (simulated: the log does not time it)");
  ps_buf_printf(b, "  CPU work inside the lock    %7.3f s  %5.1f%%\n", cpu, 100 * cpu / sum);
  ps_buf_printf(b, "  GPU compute                 %7.3f s  %5.1f%%\n", g, 100 * g / sum);
  if (!o->call_has_wait)
    ps_buf_printf(b, "  (and %.3f s waiting for the lock before it, %s)\n", r->wait_s,
                  r->has_wait ? "logged" : "simulated");
  if (r->outside != INFER_OUT_NONE)
    ps_buf_printf(b, "  (and %.3f s outside the lock between calls, not in the logged time)\n", r->outside_s.est);

  ps_buf_printf(b, "\nGPU utilization (kernel time, simulated from the fit)  %.1f%%  (%s)", 100 * r->util.est,
                ci_text(c1, sizeof c1, &r->util, 100, "%.1f%%"));
  if (r->has_util) ps_buf_printf(b, "; observed: %.1f%%", 100 * r->obs_util);
  ps_buf_printf(b, "\n");
  if (r->has_util && fabs(r->obs_util - r->util.est) > 0.05)
    ps_buf_printf(b, "note: the observed utilization is %.1f points %s the logs imply; nvidia-smi's figure "
                     "counts sampling periods with any kernel running and can read far above the kernel time\n",
                  100 * fabs(r->obs_util - r->util.est), r->obs_util > r->util.est ? "above what" : "below what");

  ps_buf_printf(b, "\nhow well the model reproduces the log (call time, s)\n  %-8s", "");
  for (int i = 0; i < INFER_NQ; i++) ps_buf_printf(b, " %6d%%", 10 * (i + 1));
  ps_buf_printf(b, "    mean\n  %-8s", "logged");
  for (int i = 0; i < INFER_NQ; i++) ps_buf_printf(b, " %7.3f", r->obs_q[i]);
  ps_buf_printf(b, " %7.3f\n  %-8s", r->obs_mean, "model");
  for (int i = 0; i < INFER_NQ; i++) ps_buf_printf(b, " %7.3f", r->sim_q[i]);
  ps_buf_printf(b, " %7.3f\n", r->sim_mean);
  if (r->has_wait) {
    ps_buf_printf(b, "  wait, s\n  %-8s", "logged");
    for (int i = 0; i < INFER_NQ; i++) ps_buf_printf(b, " %7.3f", r->obs_wq[i]);
    ps_buf_printf(b, " %7.3f\n  %-8s", r->obs_wmean, "model");
    for (int i = 0; i < INFER_NQ; i++) ps_buf_printf(b, " %7.3f", r->sim_wq[i]);
    ps_buf_printf(b, " %7.3f\n", r->sim_wmean);
  }
  if (r->has_start)
    ps_buf_printf(b, "  calls per hour: logged %.1f, model %.1f\n", 3600 * r->obs_pps, 3600 * r->sim_pps);
  double gap = decile_gap(r);
  double thr = fmax(0.03, 4 * (r->obs_q[INFER_NQ - 1] - r->obs_q[0]) / 2.56 / r->obs_mean / sqrt((double)r->n));
  if (gap > thr)
    ps_buf_printf(b, "warning: the model misses a logged decile by %.1f%%, more than sampling explains: the daemon "
                     "does something this model lacks (time outside the lock: log start times and workers; a "
                     "wrong --gpu-time or --workers; a log that is not of one steady run)\n", 100 * gap);

  ps_buf_printf(b, "\nwhat-if (simulated with the fitted model)\n");
  ps_buf_printf(b, "  workers     lock over the call        lock on the GPU phase\n");
  ps_buf_printf(b, "  per GPU     utilization  calls/hour   utilization  calls/hour\n");
  for (int i = 0; i + 1 < r->ngrid; i += 2) {
    const infer_whatif *a = &r->grid[i], *n = &r->grid[i + 1];
    char wl[16];
    snprintf(wl, sizeof wl, "%d%s", a->workers, a->workers == o->workers ? " (now)" : "");
    ps_buf_printf(b, "  %-10s  %10.1f%%  %10.1f   %10.1f%%  %10.1f\n", wl, 100 * a->util, 3600 * a->pps,
                  100 * n->util, 3600 * n->pps);
  }
  ps_buf_printf(b, "\nrecommendation: ");
  recommend(b, r, o);
}

static cJSON *render_json(const args *A, const infer_result *r) {
  const infer_opts *o = &A->o;
  const infer_cols *c = &A->cols;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.infer/1");
  cJSON *lg = cJSON_AddObjectToObject(root, "log");
  cJSON_AddStringToObject(lg, "path", A->log);
  cJSON_AddNumberToObject(lg, "records", (double)r->n);
  cJSON_AddStringToObject(lg, "unit", A->unit);
  cJSON_AddBoolToObject(lg, "call_includes_wait", o->call_has_wait);
  cJSON *cols = cJSON_AddObjectToObject(lg, "columns");
  const char *cn[4] = {c->call, c->wait, c->start, c->worker}, *ck[4] = {"call", "wait", "start", "worker"};
  for (int i = 0; i < 4; i++)
    if (cn[i]) cJSON_AddStringToObject(cols, ck[i], cn[i]);
    else cJSON_AddNullToObject(cols, ck[i]);
  cJSON *kn = cJSON_AddObjectToObject(root, "known");
  cJSON_AddNumberToObject(kn, "gpus", o->gpus);
  cJSON_AddNumberToObject(kn, "workers_per_gpu", o->workers);
  cJSON *gt = cJSON_AddObjectToObject(kn, "gpu_time_s");
  jnum(gt, "min", o->gpu_lo);
  jnum(gt, "max", o->gpu_hi);
  jnum(gt, "mean", r->gpu_mean);
  jnum(kn, "gpu_util_observed", o->util);
  if (o->cores > 0) cJSON_AddNumberToObject(kn, "cpu_cores", o->cores);
  else cJSON_AddNullToObject(kn, "cpu_cores");
  cJSON *ft = cJSON_AddObjectToObject(root, "fit");
  cJSON_AddNumberToObject(ft, "parameters", r->nparams);
  cJSON_AddNumberToObject(ft, "statistics", r->nstats);
  cJSON_AddNumberToObject(ft, "simulated_calls", (double)r->sim_calls);
  cJSON_AddNumberToObject(ft, "simulations", r->evals);
  cJSON_AddNumberToObject(ft, "bootstrap", r->boot_done);
  cJSON_AddNumberToObject(ft, "block", r->block);
  jnum(ft, "distance", r->distance);
  jnum(ft, "max_decile_error", decile_gap(r));
  cJSON *es = cJSON_AddObjectToObject(root, "estimates");
  jci(es, "cpu_in_lock_s", &r->cpu_lock, 1);
  jci(es, "cpu_in_lock_cv", &r->cpu_cv, 1);
  cJSON *sp = cJSON_AddObjectToObject(es, "split");
  cJSON_AddBoolToObject(sp, "identified", 0);
  cJSON_AddStringToObject(sp, "reason", split_reason);
  cJSON_AddStringToObject(sp, "convention", "all of the CPU work inside the lock in setup, cleanup 0 s");
  static const char *const okind[] = {"none", "fitted", "seen"};
  jci(es, "outside_s", &r->outside_s, r->outside == INFER_OUT_FREE);
  cJSON *os = cJSON_GetObjectItem(es, "outside_s");
  cJSON_AddStringToObject(os, "kind", okind[r->outside]);
  if (r->outside_why) cJSON_AddStringToObject(os, "why_none", r->outside_why);
  jnum(os, "observed_gap_mean", r->gap_mean);
  cJSON *pc = cJSON_AddObjectToObject(root, "per_call_s");
  jnum(pc, "logged", r->logged_s);
  jnum(pc, "model", r->sim_mean);
  jnum(pc, "wait", r->wait_s);
  cJSON_AddBoolToObject(pc, "wait_logged", r->has_wait);
  jnum(pc, "cpu_in_lock", r->cpu_lock.est);
  jnum(pc, "gpu", r->gpu_mean);
  jci(root, "gpu_util", &r->util, 0);
  jnum(cJSON_GetObjectItem(root, "gpu_util"), "observed", r->obs_util);
  cJSON *nl = cJSON_AddObjectToObject(root, "narrow_lock");
  jci(nl, "gpu_util", &r->narrow_util, 0);
  jci(nl, "throughput_gain", &r->narrow_gain, 0);
  cJSON *wi = cJSON_AddArrayToObject(root, "whatif");
  for (int i = 0; i < r->ngrid; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddNumberToObject(x, "workers_per_gpu", r->grid[i].workers);
    cJSON_AddStringToObject(x, "lock", r->grid[i].narrow ? "gpu" : "call");
    jnum(x, "gpu_util", r->grid[i].util);
    jnum(x, "calls_per_hour", 3600 * r->grid[i].pps);
    jnum(x, "mutex_wait_s", r->grid[i].wait_s);
    cJSON_AddItemToArray(wi, x);
  }
  cJSON *fq = cJSON_AddObjectToObject(root, "fit_quality");
  cJSON *cq = cJSON_AddObjectToObject(fq, "call_s");
  jarr(cq, "logged_deciles", r->obs_q, INFER_NQ);
  jarr(cq, "model_deciles", r->sim_q, INFER_NQ);
  jnum(cq, "logged_mean", r->obs_mean);
  jnum(cq, "model_mean", r->sim_mean);
  if (r->has_wait) {
    cJSON *wq = cJSON_AddObjectToObject(fq, "wait_s");
    jarr(wq, "logged_deciles", r->obs_wq, INFER_NQ);
    jarr(wq, "model_deciles", r->sim_wq, INFER_NQ);
    jnum(wq, "logged_mean", r->obs_wmean);
    jnum(wq, "model_mean", r->sim_wmean);
  }
  if (r->has_start) {
    cJSON *rt = cJSON_AddObjectToObject(fq, "calls_per_hour");
    jnum(rt, "logged", 3600 * r->obs_pps);
    jnum(rt, "model", 3600 * r->sim_pps);
  }
  ps_buf rb = {0};
  recommend(&rb, r, o);
  /* One line: each line break and the indent after it become a space. */
  size_t k = 0;
  for (size_t i = 0; i < rb.len; i++) {
    if (rb.p[i] != '\n') rb.p[k++] = rb.p[i];
    else if (i + 1 < rb.len) {
      rb.p[k++] = ' ';
      while (i + 1 < rb.len && rb.p[i + 1] == ' ') i++;
    }
  }
  if (rb.p) rb.p[k] = 0;
  cJSON_AddStringToObject(root, "recommendation", rb.p ? rb.p : "");
  ps_buf_free(&rb);
  cJSON_AddStringToObject(root, "model", A->out);
  return root;
}

int sim_cmd_infer(int argc, char **argv) {
  args A = {.cols = {.unit = 1e-3, .unit_name = "milliseconds", .format = INFER_FMT_AUTO},
            .o = {.gpus = 1, .util = NAN, .util_sd = 0.02, .call_has_wait = 1, .boot = 30, .seed = 1},
            .unit = "ms"};
  const char *C = "infer";
  int rc = PS_EXIT_USAGE;
  infer_log L = {0};
  infer_result R = {0};
  model *m = NULL;
  ps_buf yb = {0}, ob = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
#define OPT(name) (cli_is_opt(a, name) && ((v = cli_optval(argc, argv, &i, name)) || (v = NULL, 1)))
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(infer_help, stdout);
      return PS_EXIT_OK;
    } else if (!strcmp(a, "--json")) {
      A.json = 1;
      continue;
    }
    v = NULL;
    if (OPT("--call-col")) A.cols.call = v;
    else if (OPT("--wait-col")) A.cols.wait = v;
    else if (OPT("--start-col")) A.cols.start = v;
    else if (OPT("--worker-col")) A.cols.worker = v;
    else if (OPT("--name")) A.name = v;
    else if (OPT("--out") || (!strcmp(a, "-o") && ((v = cli_optval(argc, argv, &i, "-o")) || 1))) A.out = v;
    else if (OPT("--call-is")) {
      if (v && strcmp(v, "call") && strcmp(v, "locked"))
        return cli_usage_error(C, "--call-is: expected call or locked, got \"%s\"", v);
      if (v) A.o.call_has_wait = !strcmp(v, "call");
    } else if (OPT("--unit")) {
      if (v && strcmp(v, "ms") && strcmp(v, "s")) return cli_usage_error(C, "--unit: expected ms or s, got \"%s\"", v);
      if (v) {
        A.unit = !strcmp(v, "ms") ? "ms" : "s";
        A.cols.unit = !strcmp(v, "ms") ? 1e-3 : 1;
        A.cols.unit_name = !strcmp(v, "ms") ? "milliseconds" : "seconds";
      }
    } else if (OPT("--format")) {
      if (v && strcmp(v, "auto") && strcmp(v, "csv") && strcmp(v, "jsonl"))
        return cli_usage_error(C, "--format: expected auto, csv or jsonl, got \"%s\"", v);
      if (v) A.cols.format = !strcmp(v, "csv") ? INFER_FMT_CSV : !strcmp(v, "jsonl") ? INFER_FMT_JSONL : INFER_FMT_AUTO;
    } else if (OPT("--workers")) {
      if (v && ps_parse_int(v, 1, 100000, &A.o.workers))
        return cli_usage_error(C, "--workers: expected an integer from 1 to 100000, got \"%s\"", v);
    } else if (OPT("--gpus")) {
      if (v && ps_parse_int(v, 1, PS_MAX_GPUS, &A.o.gpus))
        return cli_usage_error(C, "--gpus: expected an integer from 1 to 1024, got \"%s\"", v);
    } else if (OPT("--cores")) {
      if (v && ps_parse_int(v, 1, SCN_MAX_CORES, &A.o.cores))
        return cli_usage_error(C, "--cores: expected an integer from 1 to 1000000, got \"%s\"", v);
    } else if (OPT("--boot")) {
      if (v && ps_parse_int(v, 0, 10000, &A.o.boot))
        return cli_usage_error(C, "--boot: expected an integer from 0 to 10000, got \"%s\"", v);
    } else if (OPT("--threads")) {
      if (v && ps_parse_int(v, 1, 256, &A.o.threads))
        return cli_usage_error(C, "--threads: expected an integer from 1 to 256, got \"%s\"", v);
    } else if (OPT("--seed")) {
      char *end;
      if (v) {
        A.o.seed = strtoull(v, &end, 10);
        if (!*v || *end || *v == '-') return cli_usage_error(C, "--seed: expected an integer >= 0, got \"%s\"", v);
      }
    } else if (OPT("--gpu-time")) {
      if (v) {
        const char *colon = strchr(v, ':');
        char lo[64];
        snprintf(lo, sizeof lo, "%.*s", colon ? (int)(colon - v) : 63, v);
        A.o.gpu_lo = parse_dur(lo);
        A.o.gpu_hi = colon ? parse_dur(colon + 1) : A.o.gpu_lo;
        if (A.o.gpu_lo <= 0 || A.o.gpu_hi < A.o.gpu_lo)
          return cli_usage_error(C, "--gpu-time: expected seconds of GPU compute per partition, A or A:B with "
                                    "0 < A <= B (1.75, 1.5:2, 1500ms:2s), got \"%s\"", v);
      }
    } else if (OPT("--util") || OPT("--util-sd")) {
      int sd = cli_is_opt(a, "--util-sd");
      if (v) {
        char *end;
        double x = strtod(v, &end);
        if (end != v && !strcmp(end, "%")) x /= 100;
        else if (end == v || *end) x = NAN;
        if (!(x >= 0 && x <= 1) || (sd && x == 0))
          return cli_usage_error(C, sd ? "--util-sd: expected a number above 0, at most 1 (or a percentage), got \"%s\""
                                       : "--util: expected a utilization from 0 to 1 (or a percentage, 50%%), got \"%s\"", v);
        *(sd ? &A.o.util_sd : &A.o.util) = x;
      }
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error(C, "unknown option %s", a);
    } else {
      if (A.log) return cli_usage_error(C, "expected one log file, got a second: %s", a);
      A.log = a;
      continue;
    }
    if (!v) return cli_usage_error(C, "%s: expected a value", a);
#undef OPT
  }
  if (!A.log) return cli_usage_error(C, "%s", "expected the log file (CSV or JSON Lines)");
  if (!A.cols.call) return cli_usage_error(C, "%s", "expected --call-col NAME, the column with the locked call's wall time");
  if (!A.o.workers) return cli_usage_error(C, "%s", "expected --workers N, the workers per GPU");
  if (!(A.o.gpu_lo > 0)) return cli_usage_error(C, "%s", "expected --gpu-time A[:B], the GPU compute per partition");
  if (!A.out) return cli_usage_error(C, "%s", "expected -o MODEL.yaml, the fitted model to write");
  A.cols.wait_in_call = A.o.call_has_wait;
  if (cli_check_outputs(C, &A.out, 1)) return PS_EXIT_USAGE;

  ps_err e = {0};
  if (infer_log_read(A.log, &A.cols, &L, &e) != PS_OK) {
    fprintf(stderr, "provesim infer: %s\n", e.msg);
    goto done;
  }
  cli_progress bar;
  int tty = isatty(2);
  if (tty) {
    cli_progress_start(&bar, "infer", 1 + (size_t)A.o.boot);
    A.o.progress = cli_progress_tick;
    A.o.progress_ctx = &bar;
  }
  int ir = infer_run(&L, &A.o, &R, &e);
  if (tty) cli_progress_end(&bar);
  if (ir != PS_OK) {
    fprintf(stderr, "provesim infer: %s\n", e.msg);
    rc = ps_exit_failed(ir);
    goto done;
  }
  ps_buf src = {0};
  ps_buf_printf(&src, "inferred by provesim infer from %s (%zu calls, %d worker%s per GPU, GPU compute %.4g", A.log,
                R.n, A.o.workers, A.o.workers > 1 ? "s" : "", A.o.gpu_lo);
  if (A.o.gpu_hi > A.o.gpu_lo) ps_buf_printf(&src, "..%.4g", A.o.gpu_hi);
  ps_buf_printf(&src, " s): CPU work inside the lock %.4g s per call (cv %.3g); setup and cleanup are not separable "
                      "from such logs, so setup holds all of it and cleanup is 0 (a convention)",
                R.cpu_lock.est, R.cpu_cv.est);
  m = infer_model(&R, &A.o, A.name ? A.name : "inferred", src.p);
  ps_buf_free(&src);
  calib_set_provenance(m, "log", A.log);
  calib_model_yaml(&yb, m);
  if (A.json) {
    cJSON *doc = render_json(&A, &R);
    char *t = cJSON_Print(doc);
    ps_buf_printf(&ob, "%s\n", t);
    free(t);
    cJSON_Delete(doc);
  } else {
    render_text(&ob, &A, &R);
    ps_buf_printf(&ob, "wrote %s (setup holds all the CPU work inside the lock; the split is not identified)\n", A.out);
  }
  if (cli_write_out(C, A.out, &yb)) {
    rc = PS_EXIT_FAIL;
    goto done;
  }
  if (ps_write_stdout(ob.p, ob.len, &e) != PS_OK) {
    fprintf(stderr, "provesim infer: %s\n", e.msg);
    ps_out_remove(A.out);
    rc = PS_EXIT_FAIL;
    goto done;
  }
  rc = PS_EXIT_OK;
done:
  scn_model_free(m);
  infer_result_free(&R);
  infer_log_free(&L);
  ps_buf_free(&yb);
  ps_buf_free(&ob);
  return rc;
}
