/* The what-if logic of whatif.h: --vary value lists, sweep grids run with par_for (one
 * simulation per point, one thread per simulation, so the results depend only on the
 * grid), and the saturation point that simulate's "why" section prints. Nothing here
 * writes to a stream; the CLI renders the results. */
#define _GNU_SOURCE
#include "whatif.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe.h"
#include "precision.h"
#include "scn.h"

/* ================================================================ --vary values */

void whatif_vary_free(whatif_vary *v) {
  free(v->key);
  for (int i = 0; i < v->nvals; i++) free(v->vals[i]);
  free(v->vals);
  memset(v, 0, sizeof *v);
}

static void vary_push(whatif_vary *v, const char *s, size_t n) {
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

/* A range FROM..TO or FROM..TO:STEP (spec points at FROM, dots at the ".."). */
static int vary_range(const char *arg, const char *spec, const char *dots, whatif_vary *v, ps_err *e) {
  const char *colon = strchr(dots + 2, ':');
  size_t la = (size_t)(dots - spec), lb = colon ? (size_t)(colon - dots - 2) : strlen(dots + 2);
  char a[64], b[64], st[64] = "1";
  if (la == 0 || la >= sizeof a || lb == 0 || lb >= sizeof b || (colon && strlen(colon + 1) >= sizeof st))
    return ps_fail(e, PS_EINPUT, "--vary %s: expected a range FROM..TO or FROM..TO:STEP with numbers", arg);
  memcpy(a, spec, la);
  a[la] = 0;
  memcpy(b, dots + 2, lb);
  b[lb] = 0;
  if (colon) strcpy(st, colon + 1);
  double x0, x1, dx;
  if (ps_parse_num(a, &x0) || ps_parse_num(b, &x1) || ps_parse_num(st, &dx))
    return ps_fail(e, PS_EINPUT, "--vary %s: expected a range FROM..TO or FROM..TO:STEP with numbers", arg);
  int ints = is_int_text(a, la) && is_int_text(b, lb) && is_int_text(st, strlen(st));
  if (!colon && !ints)
    return ps_fail(e, PS_EINPUT, "--vary %s: a range of non-integers needs a step (FROM..TO:STEP)", arg);
  if (!(dx > 0)) return ps_fail(e, PS_EINPUT, "--vary %s: expected a step > 0, got %s", arg, st);
  if (x1 < x0) return ps_fail(e, PS_EINPUT, "--vary %s: empty range: expected FROM <= TO, got %s..%s", arg, a, b);
  double cnt = floor((x1 - x0) / dx + 1e-9) + 1;
  if (cnt > WHATIF_MAX_POINTS)
    return ps_fail(e, PS_EINPUT, "--vary %s: %.0f values; at most %d", arg, cnt, WHATIF_MAX_POINTS);
  for (long k = 0; k < (long)cnt; k++) {
    char t[64];
    if (ints)
      snprintf(t, sizeof t, "%lld", (long long)llround(x0 + (double)k * dx));
    else
      snprintf(t, sizeof t, "%.10g", x0 + (double)k * dx);
    vary_push(v, t, strlen(t));
  }
  return PS_OK;
}

/* The list separator: ';' when one appears outside brackets and quotes, else ','. */
static char vary_list_sep(const char *spec) {
  int depth = 0;
  char q = 0, sep = ',';
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
  return sep;
}

static int vary_list(const char *arg, const char *spec, whatif_vary *v, ps_err *e) {
  char sep = vary_list_sep(spec);
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
      if (s1 == s0) return ps_fail(e, PS_EINPUT, "--vary %s: empty value in the list (value %d)", arg, v->nvals + 1);
      vary_push(v, s0, (size_t)(s1 - s0));
      if (!*p) break;
      start = p + 1;
    }
  }
  if (depth != 0 || q) return ps_fail(e, PS_EINPUT, "--vary %s: unbalanced brackets or quotes", arg);
  return PS_OK;
}

int whatif_vary_parse(const char *arg, whatif_vary *v, ps_err *e) {
  memset(v, 0, sizeof *v);
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg)
    return ps_fail(e, PS_EINPUT, "--vary %s: expected KEY=VALUES (e.g. system.workers_per_gpu=1..8)", arg);
  const char *spec = eq + 1;
  while (isspace((unsigned char)*spec)) spec++;
  if (!*spec) return ps_fail(e, PS_EINPUT, "--vary %s: expected values after '=', got nothing", arg);
  v->key = xmalloc((size_t)(eq - arg) + 1);
  memcpy(v->key, arg, (size_t)(eq - arg));
  v->key[eq - arg] = 0;
  const char *dots = strstr(spec, "..");
  int rc;
  if (dots && spec[0] != '{' && spec[0] != '[' && spec[0] != '"' && spec[0] != '\'' && !strpbrk(spec, ",;"))
    rc = vary_range(arg, spec, dots, v, e);
  else
    rc = vary_list(arg, spec, v, e);
  if (rc != PS_OK) whatif_vary_free(v);
  return rc;
}

/* ================================================================ sweeps */

const char *whatif_point_value(const whatif_point *p, int k) {
  return strchr(p->own[k], '=') + 1;
}

/* Loads path with sets[0..nsets) and, when kv is set, kv after them. A failing --vary
 * value's message names it as --vary instead of the loader's --set. */
static int sweep_check_load(const char *path, const char **sets, int nsets, const char *kv, ps_err *e) {
  scenario *s = NULL;
  sets[nsets] = kv;
  int rc = scn_load(path, sets, nsets + (kv != NULL), &s, e);
  sets[nsets] = NULL;
  scn_free(s);
  if (rc != PS_OK && kv && e && !strncmp(e->msg, "--set ", 6)) {
    ps_err t = *e;
    ps_fail(e, rc, "--vary %s", t.msg + 6);
  }
  return rc;
}

void whatif_point_clear(const whatif_sweep *sw, whatif_point *p) {
  for (int k = 0; k < sw->nv && p->own; k++) free(p->own[k]);
  free(p->own);
  free((void *)p->sets);
  if (p->s) report_summary_free(&p->sum);
  scn_free(p->s);
  memset(p, 0, sizeof *p);
}

void whatif_sweep_free(whatif_sweep *sw) {
  if (!sw) return;
  for (long i = 0; sw->pts && i < sw->npts; i++) whatif_point_clear(sw, &sw->pts[i]);
  free(sw->pts);
  free(sw);
}

int whatif_sweep_new(const char *path, const char *const *sets, int nsets, const whatif_vary *vs, int nv,
                     whatif_sweep **out, ps_err *e) {
  *out = NULL;
  if (nv < 1) return ps_fail(e, PS_EINPUT, "expected at least one --vary KEY=VALUES");
  /* The base overrides with room for one more, the value being checked. */
  const char **chk = xcalloc((size_t)nsets + 1, sizeof *chk);
  for (int k = 0; k < nsets; k++) chk[k] = sets[k];
  int rc = sweep_check_load(path, chk, nsets, NULL, e);
  for (int k = 0; k < nv && rc == PS_OK; k++)
    for (int j = 0; j < vs[k].nvals && rc == PS_OK; j++) {
      char *kv = xasprintf("%s=%s", vs[k].key, vs[k].vals[j]);
      rc = sweep_check_load(path, chk, nsets, kv, e);
      free(kv);
    }
  free(chk);
  if (rc != PS_OK) return rc;

  long npts = 1;
  for (int k = 0; k < nv; k++) {
    npts *= vs[k].nvals;
    if (npts > WHATIF_MAX_POINTS)
      return ps_fail(e, PS_EINPUT, "the grid has more than %d points", WHATIF_MAX_POINTS);
  }
  whatif_sweep *sw = xcalloc(1, sizeof *sw);
  sw->path = path;
  sw->sets = sets;
  sw->vs = vs;
  sw->nv = nv;
  sw->nsets = nsets;
  sw->npts = npts;
  *out = sw;
  return PS_OK;
}

const char *whatif_grid_value(const whatif_sweep *sw, long i, int k) {
  long rest = i;
  for (int q = sw->nv - 1; q > k; q--) rest /= sw->vs[q].nvals;
  return sw->vs[k].vals[rest % sw->vs[k].nvals];
}

void whatif_point_make(const whatif_sweep *sw, long i, whatif_point *p) {
  memset(p, 0, sizeof *p);
  p->sets = xcalloc((size_t)(sw->nsets + sw->nv), sizeof *p->sets);
  p->own = xcalloc((size_t)sw->nv, sizeof *p->own);
  for (int k = 0; k < sw->nsets; k++) p->sets[k] = sw->sets[k];
  for (int k = 0; k < sw->nv; k++) {
    p->own[k] = xasprintf("%s=%s", sw->vs[k].key, whatif_grid_value(sw, i, k));
    p->sets[sw->nsets + k] = p->own[k];
  }
}

int whatif_point_run(const whatif_sweep *sw, whatif_point *p) {
  p->rc = scn_load(sw->path, p->sets, sw->nsets + sw->nv, &p->s, &p->err);
  if (p->rc != PS_OK) return p->rc;
  sim_opts o = {.threads = 1};
  sim_result *r = NULL;
  p->rc = prec_run(p->s, &o, &r, &p->err); /* sim_run, or to run.precision */
  if (p->rc != PS_OK) return p->rc;
  report_summarize(r, &p->sum);
  report_bottleneck(p->s, &p->sum, p->limit, sizeof p->limit);
  sim_result_free(r);
  return PS_OK;
}

int whatif_point_fail(const whatif_sweep *sw, const whatif_point *p, long i, ps_err *e) {
  ps_buf b = {0};
  ps_buf_printf(&b, "point %ld (", i);
  for (int k = 0; k < sw->nv; k++) ps_buf_printf(&b, "%s%s", k ? " " : "", p->own[k]);
  ps_buf_printf(&b, "): %s", p->err.msg);
  int rc = ps_fail(e, p->rc, "%s", b.p);
  ps_buf_free(&b);
  return rc;
}

static void sweep_range(void *ctx, size_t lo, size_t hi) {
  whatif_sweep *sw = ctx;
  for (size_t i = lo; i < hi; i++) whatif_point_run(sw, &sw->pts[i]);
}

int whatif_sweep_run(whatif_sweep *sw, int jobs, par_tick_fn tick, void *tick_ctx, ps_err *e) {
  if (!sw->pts) {
    sw->pts = xcalloc((size_t)sw->npts, sizeof *sw->pts);
    for (long i = 0; i < sw->npts; i++) whatif_point_make(sw, i, &sw->pts[i]);
  }
  par_for((size_t)sw->npts, 1, jobs > 0 ? jobs : ps_ncores(), sweep_range, sw, tick, tick_ctx);
  for (long i = 0; i < sw->npts; i++)
    if (sw->pts[i].rc != PS_OK) return whatif_point_fail(sw, &sw->pts[i], i, e);
  return PS_OK;
}

/* ================================================================ saturation */

typedef struct sat_ctx {
  const scenario *s;
  whatif_sat *out;
  int *rc;
  ps_err *errs;
} sat_ctx;

/* A short closed run of s (borrowed) with w workers per GPU and the GPU shared or not (-1:
 * as s says): about 60 calls a worker, at most 3 replications, on the calling thread. */
static int short_run(const scenario *s, int w, int shared, double *util, double *tput, ps_err *e) {
  scenario t = *s; /* a shallow copy: sim_run only reads it */
  t.workers_per_gpu = w;
  if (shared >= 0) t.gpu_shared = shared;
  t.arrivals = ARR_CLOSED;
  int64_t want = 60LL * s->gpus * w * s->batch;
  if (want < 300) want = 300;
  t.partitions = s->partitions < want ? s->partitions : want;
  t.warmup = t.partitions / 10;
  int64_t cool = (int64_t)s->gpus * w * s->batch;
  t.cooldown = cool < t.partitions / 10 ? cool : t.partitions / 10;
  t.replications = s->replications < 3 ? s->replications : 3;
  sim_opts o = {.threads = 1};
  sim_result *r = NULL;
  int rc = sim_run(&t, &o, &r, e);
  if (rc != PS_OK) return rc;
  report_summary m;
  report_summarize(r, &m);
  *util = m.gpu_util_mean;
  *tput = m.tput;
  report_summary_free(&m);
  sim_result_free(r);
  return PS_OK;
}

/* Worker counts lo+1..hi: a short run of each, results by worker count. */
static void sat_range(void *ctx, size_t lo, size_t hi) {
  sat_ctx *c = ctx;
  for (size_t i = lo; i < hi; i++) {
    int w = (int)i + 1;
    c->rc[i] = short_run(c->s, w, -1, &c->out->util[w], &c->out->tput[w], &c->errs[i]);
  }
}

int whatif_saturation(const scenario *s, int max_workers, whatif_sat *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  if (max_workers <= 0) max_workers = s->workers_per_gpu * 2 > 8 ? s->workers_per_gpu * 2 : 8;
  if (max_workers > WHATIF_SAT_MAX) max_workers = WHATIF_SAT_MAX;
  out->nworkers = max_workers;
  sat_ctx c = {.s = s, .out = out};
  c.rc = xcalloc((size_t)max_workers, sizeof *c.rc);
  c.errs = xcalloc((size_t)max_workers, sizeof *c.errs);
  par_for((size_t)max_workers, 1, 0, sat_range, &c, NULL, NULL);
  int rc = PS_OK;
  for (int i = 0; i < max_workers; i++)
    if (c.rc[i] != PS_OK) {
      rc = c.rc[i];
      if (e) *e = c.errs[i];
      break;
    }
  free(c.rc);
  free(c.errs);
  if (rc != PS_OK) return rc;
  out->saturation = max_workers;
  for (int w = 1; w <= max_workers; w++) {
    int flat = 1;
    for (int v = w + 1; v <= max_workers; v++)
      if (out->util[v] > out->util[w] + 0.01) flat = 0;
    if (flat) {
      out->saturation = w;
      break;
    }
  }
  return PS_OK;
}

const char *whatif_saturation_line(const scenario *s, char *buf, size_t n) {
  whatif_sat sat;
  ps_err e = {0};
  if (whatif_saturation(s, 0, &sat, &e) != PS_OK) {
    snprintf(buf, n, "saturation: not computed (%s)", e.msg);
    return buf;
  }
  int k = sat.saturation, m = sat.nworkers;
  if (k >= m)
    snprintf(buf, n, "saturation: GPU utilization still rises at %d workers per GPU (%.1f%%); this scenario runs %d", m,
             100 * sat.util[m], s->workers_per_gpu);
  else
    snprintf(buf, n,
             "saturation: GPU utilization stops rising beyond %d worker%s per GPU (%.1f%%; %d workers: %.1f%%); "
             "this scenario runs %d",
             k, k > 1 ? "s" : "", 100 * sat.util[k], m, 100 * sat.util[m], s->workers_per_gpu);
  return buf;
}

/* ================================================================ GPU sharing */

const char *whatif_sharing_line(const scenario *s, char *buf, size_t n) {
  buf[0] = 0;
  if (!s->gpu_shared) return buf;
  double u[2], x[2];
  ps_err e = {0};
  for (int sh = 0; sh < 2; sh++)
    if (short_run(s, s->workers_per_gpu, sh, &u[sh], &x[sh], &e) != PS_OK) {
      snprintf(buf, n, "GPU sharing: not compared (%s)", e.msg);
      return buf;
    }
  if (fabs(u[1] - u[0]) < 0.01 && fabs(x[1] - x[0]) <= 0.01 * x[1]) return buf;
  snprintf(buf, n,
           "GPU sharing: this scenario shares the GPU (%.1f%%, %.4g partitions/s); one GPU phase at a time "
           "(system.gpu_sharing=exclusive) gives %.1f%%, %.4g partitions/s. On the H200 a scenario like this "
           "measured near one or the other from run to run (docs/validation.md, \"Where it misses\")",
           100 * u[1], x[1], 100 * u[0], x[0]);
  return buf;
}
