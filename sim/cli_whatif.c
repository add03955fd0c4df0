/* The what-if subcommands (see cli_whatif.h): `sweep` runs a grid of scenario overrides on
 * a pool of threads, one simulation per point and one thread per simulation, so the output
 * depends only on the grid; `plan` searches GPUs, workers per GPU, batch, mutex scope and
 * cores for the cheapest configuration that meets a target; `estimate` puts the analytic
 * models of analytic.h beside the simulation. Output files are written whole at the end, so
 * a failing run leaves none behind. */
#define _GNU_SOURCE
#include "cli_whatif.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analytic.h"
#include "pipe.h"
#include "report.h"
#include "scn.h"

/* ================================================================ shared helpers */

static int usage_error(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "provesim %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (provesim %s --help)\n", cmd);
  return PS_EXIT_USAGE;
}

/* The value of `--opt VALUE` or `--opt=VALUE`, or NULL when it is missing. */
static const char *optval(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=') return argv[*i] + n + 1;
  if (!strcmp(argv[*i], name)) {
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
  }
  return NULL;
}

static int is_opt(const char *a, const char *name) {
  size_t n = strlen(name);
  return !strcmp(a, name) || (!strncmp(a, name, n) && a[n] == '=');
}

static int ncores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

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

/* Rewrites the loader's "--set K=V: ..." prefix for a message about a --vary value. */
static void print_load_error(const char *cmd, const char *msg, int from_vary) {
  if (from_vary && !strncmp(msg, "--set ", 6))
    fprintf(stderr, "provesim %s: --vary %s\n", cmd, msg + 6);
  else
    fprintf(stderr, "provesim %s: %s\n", cmd, msg);
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

static void json_num(cJSON *o, const char *k, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(o, k, v);
  else
    cJSON_AddNullToObject(o, k);
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

/* ---------------------------------------------------------------- a pool of jobs */

/* Runs fn(ctx, i) for i = 0..n-1 on `jobs` threads, drawing indices from a shared counter.
 * When progress is set (stderr is a terminal), the calling thread draws a bar with an ETA. */
typedef struct jobpool {
  int n;
  void (*fn)(void *ctx, int i);
  void *ctx;
  atomic_int next, done;
} jobpool;

static void *jobpool_main(void *arg) {
  jobpool *p = arg;
  for (;;) {
    int i = atomic_fetch_add(&p->next, 1);
    if (i >= p->n) break;
    p->fn(p->ctx, i);
    atomic_fetch_add(&p->done, 1);
  }
  return NULL;
}

static void progress_draw(const char *label, int done, int n, double elapsed) {
  const int width = 30;
  int fill = n > 0 ? (int)((double)width * done / n) : width;
  char bar[64];
  for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
  bar[width] = 0;
  char eta[32] = "ETA --";
  if (done > 0 && done < n) {
    double left = elapsed / done * (n - done);
    if (left >= 60)
      snprintf(eta, sizeof eta, "ETA %dm%02ds", (int)(left / 60), (int)fmod(left, 60));
    else
      snprintf(eta, sizeof eta, "ETA %.0fs", ceil(left));
  } else if (done >= n) {
    snprintf(eta, sizeof eta, "%.1fs", elapsed);
  }
  fprintf(stderr, "\r%s [%s] %d/%d %3d%%  %s\033[K", label, bar, done, n, n ? 100 * done / n : 100, eta);
  fflush(stderr);
}

static void jobpool_run(int n, int jobs, void (*fn)(void *, int), void *ctx, const char *progress_label) {
  jobpool p = {.n = n, .fn = fn, .ctx = ctx};
  atomic_init(&p.next, 0);
  atomic_init(&p.done, 0);
  if (jobs > n) jobs = n;
  if (jobs < 1) jobs = 1;
  double t0 = ps_now();
  pthread_t *th = xcalloc((size_t)jobs, sizeof *th);
  for (int k = 0; k < jobs; k++) PS_ASSERT(pthread_create(&th[k], NULL, jobpool_main, &p) == 0);
  if (progress_label) {
    struct timespec ts = {0, 100 * 1000 * 1000};
    while (atomic_load(&p.done) < n) {
      progress_draw(progress_label, atomic_load(&p.done), n, ps_now() - t0);
      nanosleep(&ts, NULL);
    }
  }
  for (int k = 0; k < jobs; k++) pthread_join(th[k], NULL);
  if (progress_label) {
    progress_draw(progress_label, n, n, ps_now() - t0);
    fputs("\r\033[K", stderr);
    fflush(stderr);
  }
  free(th);
}

/* The bottleneck's short name: the text before the first ':' of report_bottleneck. */
static void short_limit(const char *line, char *out, size_t n) {
  const char *c = strchr(line, ':');
  size_t k = c ? (size_t)(c - line) : strlen(line);
  if (k >= n) k = n - 1;
  memcpy(out, line, k);
  out[k] = 0;
}

/* Mean time of one call of k partitions of a phase, as pipe.c draws it. */
static double phase_call_mean(const phase *ph, int k) {
  double t = ph->has_fixed ? dist_mean(&ph->fixed) : 0;
  if (ph->nscale > 0) {
    double sc = k <= ph->nscale ? ph->scale[k - 1] : ph->scale[ph->nscale - 1] * (double)k / ph->nscale;
    return t + sc * dist_mean(&ph->time);
  }
  return t + k * dist_mean(&ph->time);
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

typedef struct vary {
  char *key;
  char **vals;
  int nvals;
} vary;

static void vary_free(vary *v) {
  free(v->key);
  for (int i = 0; i < v->nvals; i++) free(v->vals[i]);
  free(v->vals);
  memset(v, 0, sizeof *v);
}

static void vary_push(vary *v, const char *s, size_t n) {
  v->vals = xrealloc(v->vals, (size_t)(v->nvals + 1) * sizeof *v->vals);
  char *t = xmalloc(n + 1);
  memcpy(t, s, n);
  t[n] = 0;
  v->vals[v->nvals++] = t;
}

static int is_int_text(const char *s, size_t n) {
  size_t i = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) i++;
  if (i == n) return 0;
  for (; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return 0;
  return 1;
}

#define SWEEP_MAX_POINTS 1000000

/* Parses "KEY=VALUES" into v. Returns 0, or -1 with e filled (nothing kept). */
static int vary_parse(const char *arg, vary *v, ps_err *e) {
  memset(v, 0, sizeof *v);
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg) {
    ps_fail(e, PS_EINPUT, "--vary %s: expected KEY=VALUES (e.g. system.workers_per_gpu=1..8)", arg);
    return -1;
  }
  v->key = xmalloc((size_t)(eq - arg) + 1);
  memcpy(v->key, arg, (size_t)(eq - arg));
  v->key[eq - arg] = 0;
  const char *spec = eq + 1;
  while (isspace((unsigned char)*spec)) spec++;
  if (!*spec) {
    ps_fail(e, PS_EINPUT, "--vary %s: expected values after '=', got nothing", arg);
    goto fail;
  }
  const char *dots = strstr(spec, "..");
  if (dots && spec[0] != '{' && spec[0] != '[' && spec[0] != '"' && spec[0] != '\'' && !strpbrk(spec, ",;")) {
    /* A range A..B or A..B:STEP. */
    const char *colon = strchr(dots + 2, ':');
    size_t la = (size_t)(dots - spec), lb = colon ? (size_t)(colon - dots - 2) : strlen(dots + 2);
    char a[64], b[64], st[64] = "1";
    if (la == 0 || la >= sizeof a || lb == 0 || lb >= sizeof b || (colon && strlen(colon + 1) >= sizeof st)) {
      ps_fail(e, PS_EINPUT, "--vary %s: expected a range FROM..TO or FROM..TO:STEP with numbers", arg);
      goto fail;
    }
    memcpy(a, spec, la);
    a[la] = 0;
    memcpy(b, dots + 2, lb);
    b[lb] = 0;
    if (colon) strcpy(st, colon + 1);
    double x0, x1, dx;
    if (parse_num(a, &x0) || parse_num(b, &x1) || parse_num(st, &dx)) {
      ps_fail(e, PS_EINPUT, "--vary %s: expected a range FROM..TO or FROM..TO:STEP with numbers", arg);
      goto fail;
    }
    int ints = is_int_text(a, la) && is_int_text(b, lb) && is_int_text(st, strlen(st));
    if (!colon && !ints) {
      ps_fail(e, PS_EINPUT, "--vary %s: a range of non-integers needs a step (FROM..TO:STEP)", arg);
      goto fail;
    }
    if (!(dx > 0)) {
      ps_fail(e, PS_EINPUT, "--vary %s: expected a step > 0, got %s", arg, st);
      goto fail;
    }
    if (x1 < x0) {
      ps_fail(e, PS_EINPUT, "--vary %s: empty range: expected FROM <= TO, got %s..%s", arg, a, b);
      goto fail;
    }
    double cnt = floor((x1 - x0) / dx + 1e-9) + 1;
    if (cnt > SWEEP_MAX_POINTS) {
      ps_fail(e, PS_EINPUT, "--vary %s: %.0f values; at most %d", arg, cnt, SWEEP_MAX_POINTS);
      goto fail;
    }
    for (long k = 0; k < (long)cnt; k++) {
      char t[64];
      if (ints)
        snprintf(t, sizeof t, "%lld", (long long)llround(x0 + (double)k * dx));
      else
        snprintf(t, sizeof t, "%.10g", x0 + (double)k * dx);
      vary_push(v, t, strlen(t));
    }
    return 0;
  }
  /* A list: ';' separates when present outside brackets and quotes, else ','. */
  char sep = ',';
  {
    int depth = 0;
    char q = 0;
    for (const char *p = spec; *p; p++) {
      if (q) {
        if (*p == q) q = 0;
      } else if (*p == '"' || *p == '\'') {
        q = *p;
      } else if (*p == '{' || *p == '[') {
        depth++;
      } else if (*p == '}' || *p == ']') {
        depth--;
      } else if (*p == ';' && depth == 0) {
        sep = ';';
      }
    }
  }
  int depth = 0;
  char q = 0;
  const char *start = spec;
  for (const char *p = spec;; p++) {
    if (*p && q) {
      if (*p == q) q = 0;
      continue;
    }
    if (*p == '"' || *p == '\'') {
      q = *p;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      depth--;
    } else if (!*p || (*p == sep && depth == 0)) {
      const char *s0 = start, *s1 = p;
      while (s0 < s1 && isspace((unsigned char)*s0)) s0++;
      while (s1 > s0 && isspace((unsigned char)s1[-1])) s1--;
      if (s1 == s0) {
        ps_fail(e, PS_EINPUT, "--vary %s: empty value in the list (value %d)", arg, v->nvals + 1);
        goto fail;
      }
      vary_push(v, s0, (size_t)(s1 - s0));
      if (!*p) break;
      start = p + 1;
    }
  }
  if (depth != 0 || q) {
    ps_fail(e, PS_EINPUT, "--vary %s: unbalanced brackets or quotes", arg);
    goto fail;
  }
  return 0;
fail:
  vary_free(v);
  return -1;
}

typedef struct spoint {
  const char **sets; /* base overrides, then one per vary; borrowed strings */
  char **own;        /* the "key=value" strings this point owns (one per vary) */
  scenario *s;
  report_summary sum;
  int rc;
  ps_err err;
  char limit[512];
} spoint;

typedef struct sweep_ctx {
  const char *path;
  int nsets; /* base + vary overrides per point */
  spoint *pts;
} sweep_ctx;

static void sweep_job(void *ctx, int i) {
  sweep_ctx *c = ctx;
  spoint *p = &c->pts[i];
  p->rc = scn_load(c->path, p->sets, c->nsets, &p->s, &p->err);
  if (p->rc != PS_OK) return;
  sim_opts o = {.threads = 1};
  sim_result *r = NULL;
  p->rc = sim_run(p->s, &o, &r, &p->err);
  if (p->rc != PS_OK) return;
  report_summarize(r, &p->sum);
  report_bottleneck(p->s, &p->sum, p->limit, sizeof p->limit);
  sim_result_free(r);
}

static double pph_of(const scenario *s, double pps) {
  return pps * 3600.0 / (s->partitions_per_proof > 0 ? s->partitions_per_proof : 1);
}

static void sweep_table(ps_buf *b, const vary *vs, int nv, const spoint *pts, int n) {
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
    const spoint *p = &pts[i];
    for (int k = 0; k < nv; k++) ps_buf_printf(b, "%-*s  ", w[k], strchr(p->own[k], '=') + 1);
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

static void sweep_csv(ps_buf *b, const vary *vs, int nv, const spoint *pts, int n) {
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
    const spoint *p = &pts[i];
    const scenario *s = p->s;
    const report_summary *m = &p->sum;
    ps_buf_printf(b, "%d", i);
    for (int k = 0; k < nv; k++) {
      ps_buf_append(b, ",", 1);
      csv_field(b, strchr(p->own[k], '=') + 1);
    }
    ps_buf_append(b, ",", 1);
    csv_field(b, s->name);
    ps_buf_printf(b, ",%d,%d,%d,%d,", s->gpus, s->workers_per_gpu, s->cpu_cores, s->batch);
    csv_field(b, s->mutex_name ? s->mutex_name : "none");
    csv_num(b, m->gpu_util_mean);
    csv_num(b, m->gpu_util_mean_ci);
    csv_num(b, m->tput);
    csv_num(b, m->tput_ci);
    csv_num(b, pph_of(s, m->tput));
    csv_num(b, pph_of(s, m->tput_ci));
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

static void sweep_json(ps_buf *b, const char *path, const vary *vs, int nv, const spoint *pts, int n) {
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
    const spoint *p = &pts[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "point", i);
    cJSON *set = cJSON_AddObjectToObject(o, "values");
    for (int k = 0; k < nv; k++) cJSON_AddItemToObject(set, vs[k].key, json_value(strchr(p->own[k], '=') + 1));
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
  vary *vs = xcalloc((size_t)argc + 1, sizeof *vs);
  int nsets = 0, nv = 0, jobs = 0, quiet = 0, rc = PS_EXIT_USAGE;
  spoint *pts = NULL;
  long npts = 0;
  ps_err e = {{0}};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(sweep_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (is_opt(a, "--vary")) {
      if (!(v = optval(argc, argv, &i, "--vary"))) goto missing;
      if (vary_parse(v, &vs[nv], &e)) {
        fprintf(stderr, "provesim sweep: %s\n", e.msg);
        goto done;
      }
      for (int k = 0; k < nv; k++)
        if (!strcmp(vs[k].key, vs[nv].key)) {
          fprintf(stderr, "provesim sweep: --vary %s: the key is varied twice\n", vs[nv].key);
          vary_free(&vs[nv]);
          goto done;
        }
      nv++;
    } else if (is_opt(a, "--set")) {
      if (!(v = optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = usage_error("sweep", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (is_opt(a, "--jobs") || !strcmp(a, "-j")) {
      if (!(v = optval(argc, argv, &i, a[1] == 'j' ? "-j" : "--jobs"))) goto missing;
      if (parse_int(v, 1, 4096, &jobs)) {
        rc = usage_error("sweep", "--jobs: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (is_opt(a, "--csv")) {
      if (!(v = optval(argc, argv, &i, "--csv"))) goto missing;
      csvf = v;
    } else if (is_opt(a, "--json")) {
      if (!(v = optval(argc, argv, &i, "--json"))) goto missing;
      jsonf = v;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
    } else if (a[0] == '-' && a[1]) {
      rc = usage_error("sweep", "unknown option %s", a);
      goto done;
    } else if (!path) {
      path = a;
    } else {
      rc = usage_error("sweep", "unexpected argument %s: one scenario at a time", a);
      goto done;
    }
    continue;
  missing:
    rc = usage_error("sweep", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = usage_error("sweep", "%s", "expected a scenario file");
    goto done;
  }
  if (nv == 0) {
    rc = usage_error("sweep", "%s", "expected at least one --vary KEY=VALUES");
    goto done;
  }

  /* Check the scenario, then every value of every --vary on its own, so a bad value is
   * reported as such before anything runs. */
  {
    scenario *s = NULL;
    int lr = scn_load(path, sets, nsets, &s, &e);
    if (lr != PS_OK) {
      print_load_error("sweep", e.msg, 0);
      rc = lr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
      goto done;
    }
    scn_free(s);
    for (int k = 0; k < nv; k++)
      for (int j = 0; j < vs[k].nvals; j++) {
        char *kv = xasprintf("%s=%s", vs[k].key, vs[k].vals[j]);
        sets[nsets] = kv;
        lr = scn_load(path, sets, nsets + 1, &s, &e);
        free(kv);
        sets[nsets] = NULL;
        if (lr != PS_OK) {
          print_load_error("sweep", e.msg, 1);
          rc = lr == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
          goto done;
        }
        scn_free(s);
      }
  }

  npts = 1;
  for (int k = 0; k < nv; k++) {
    npts *= vs[k].nvals;
    if (npts > SWEEP_MAX_POINTS) {
      fprintf(stderr, "provesim sweep: the grid has more than %d points\n", SWEEP_MAX_POINTS);
      goto done;
    }
  }
  pts = xcalloc((size_t)npts, sizeof *pts);
  for (long i = 0; i < npts; i++) {
    spoint *p = &pts[i];
    p->sets = xcalloc((size_t)(nsets + nv), sizeof *p->sets);
    p->own = xcalloc((size_t)nv, sizeof *p->own);
    for (int k = 0; k < nsets; k++) p->sets[k] = sets[k];
    long rest = i;
    for (int k = nv - 1; k >= 0; k--) {
      int j = (int)(rest % vs[k].nvals);
      rest /= vs[k].nvals;
      p->own[k] = xasprintf("%s=%s", vs[k].key, vs[k].vals[j]);
      p->sets[nsets + k] = p->own[k];
    }
  }
  sweep_ctx ctx = {.path = path, .nsets = nsets + nv, .pts = pts};
  if (jobs <= 0) jobs = ncores();
  jobpool_run((int)npts, jobs, sweep_job, &ctx, isatty(2) ? "sweep" : NULL);

  for (long i = 0; i < npts; i++)
    if (pts[i].rc != PS_OK) {
      fprintf(stderr, "provesim sweep: point %ld (", i);
      for (int k = 0; k < nv; k++) fprintf(stderr, "%s%s", k ? " " : "", pts[i].own[k]);
      fprintf(stderr, "): %s\n", pts[i].err.msg);
      rc = pts[i].rc == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
      goto done;
    }

  rc = PS_EXIT_OK;
  ps_buf cb = {0}, jb = {0};
  if (csvf) sweep_csv(&cb, vs, nv, pts, (int)npts);
  if (jsonf) sweep_json(&jb, path, vs, nv, pts, (int)npts);
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
    sweep_table(&tb, vs, nv, pts, (int)npts);
    fwrite(tb.p, 1, tb.len, stdout);
    ps_buf_free(&tb);
  }
done:
  for (long i = 0; i < npts; i++) {
    for (int k = 0; k < nv; k++) free(pts[i].own[k]);
    free(pts[i].own);
    free((void *)pts[i].sets);
    if (pts[i].s) report_summary_free(&pts[i].sum);
    scn_free(pts[i].s);
  }
  free(pts);
  for (int k = 0; k < nv; k++) vary_free(&vs[k]);
  free(vs);
  free(sets);
  return rc;
}

int sim_cmd_plan(int argc, char **argv) { (void)argc; (void)argv; return 2; }
int sim_cmd_estimate(int argc, char **argv) { (void)argc; (void)argv; return 2; }
int whatif_saturation(const scenario *s, int max_workers, whatif_sat *out, ps_err *e) { return 0; }
const char *whatif_saturation_line(const scenario *s, char *buf, size_t n) { return buf; }
