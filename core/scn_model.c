/* The scenario loader's model half (scn_int.h): distributions and phase graphs read from
 * the tree, with every parameter, phase reference, scope and `after` cycle checked and
 * reported at its file:line:col. scn.c applies overrides and builds scenarios around the
 * model this file builds. */
#define _GNU_SOURCE
#include "scn.h"
#include "scn_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "spans.h"
#include "window.h"

/* ---------------------------------------------------------------------------------- */
/* Distributions. */

typedef struct dparam {
  const char *name;
  node *n;
  double v;
} dparam;

static int word_in(const char *text, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
    int left = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (left && right) return 1;
  }
  return 0;
}

/* A constructor refused the parameters: blame the one parameter its reason names, or
 * the whole mapping when it names several. */
static int dist_refused(ld *c, const node *m, const char *path, const dparam *ps, int np, const char *why) {
  int hit = -1, hits = 0, ohit = -1, ohits = 0;
  for (int i = 0; i < np; i++)
    if (ps[i].n && word_in(why, ps[i].name)) {
      hit = i, hits++;
      if (ps[i].n->at.origin) ohit = i, ohits++;
    }
  /* Of several named parameters, the one an override set is the one to blame. */
  if (hits > 1 && ohits == 1 && !m->at.origin) hit = ohit, hits = 1;
  if (hits == 1) {
    char p[PB];
    scn__jp(p, sizeof p, path, ps[hit].name);
    return scn__expect(c, ps[hit].n, p, why);
  }
  return scn__expect(c, m, path, why);
}

typedef struct emp_ctx {
  const char *phase;
  double *v;
  size_t n, cap;
} emp_ctx;

static int emp_collect(void *ctx, const span_rec *r) {
  emp_ctx *x = ctx;
  if (r->kind != SPAN_PHASE || !r->phase || strcmp(r->phase, x->phase)) return 0;
  double t = r->t1 - r->t0;
  if (r->npartitions > 1) t /= r->npartitions;
  if (x->n == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 64;
    x->v = xrealloc(x->v, x->cap * sizeof *x->v);
  }
  x->v[x->n++] = t;
  return 0;
}

static const char *const DIST_KINDS[] = {"const", "uniform", "normal", "lognormal", "gamma", "exponential", "empirical", NULL};

static int rd_dist(ld *c, node *n, const char *path, dist *d) {
  const char *why = NULL;
  double v;
  if (n->kind == N_SCALAR && !scn__scalar_double(n, &v)) {
    if (dist_const(d, v, &why)) return scn__expect(c, n, path, why);
    return 0;
  }
  if (n->kind != N_MAP)
    return scn__expect(c, n, path, "a distribution: a number of seconds or a mapping {dist: KIND, ...}");
  node *kn;
  int kind;
  char p[PB];
  scn__jp(p, sizeof p, path, "dist");
  if (scn__req(c, n, path, "dist", "one of const, uniform, normal, lognormal, gamma, exponential, empirical", &kn) ||
      scn__rd_enum(c, kn, p, DIST_KINDS, &kind))
    return PS_EINPUT;
  static const char *const keys[][5] = {
      {"dist", "value", NULL}, {"dist", "min", "max", NULL},     {"dist", "mean", "sd", NULL},
      {"dist", "mean", "cv", "mu", "sigma"}, {"dist", "mean", "cv", NULL}, {"dist", "mean", NULL},
      {"dist", "samples", "file", "phase", NULL}};
  const char *klist[6] = {0};
  for (int i = 0; i < 5 && keys[kind][i]; i++) klist[i] = keys[kind][i];
  if (scn__check_map(c, n, path, klist)) return PS_EINPUT;

  dparam ps[4] = {{0}};
  int np = 0;
  /* The numeric parameters this kind takes, in the order they are named. */
  const char *names[4] = {0};
  if (kind == DIST_LOGNORMAL) {
    int ms = scn__opt(n, "mu") || scn__opt(n, "sigma"), mc = scn__opt(n, "mean") || scn__opt(n, "cv");
    if (ms && mc) {
      const char *k = scn__opt(n, "mu") ? "mu" : "sigma";
      scn__jp(p, sizeof p, path, k);
      return scn__fail_at(c, &scn__map_find(n, k)->at, p, "expected either {mean, cv} or {mu, sigma}, got both kinds of parameter");
    }
    names[0] = ms ? "mu" : "mean";
    names[1] = ms ? "sigma" : "cv";
    np = 2;
  } else if (kind != DIST_EMPIRICAL) {
    for (int i = 1; i < 5 && keys[kind][i]; i++) names[np++] = keys[kind][i];
  }
  for (int i = 0; i < np; i++) {
    ps[i].name = names[i];
    if (scn__req(c, n, path, names[i], "a number", &ps[i].n)) return PS_EINPUT;
    scn__jp(p, sizeof p, path, names[i]);
    if (scn__rd_num(c, ps[i].n, p, -INFINITY, 0, &ps[i].v)) return PS_EINPUT;
    if (fabs(ps[i].v) > SCN_MAX_TIME) return scn__expect(c, ps[i].n, p, "a number from -1e9 to 1e9 (seconds, or a shape)");
  }
  int rc = 0;
  switch ((dist_kind)kind) {
  case DIST_CONST: rc = dist_const(d, ps[0].v, &why); break;
  case DIST_UNIFORM: rc = dist_uniform(d, ps[0].v, ps[1].v, &why); break;
  case DIST_NORMAL: rc = dist_normal(d, ps[0].v, ps[1].v, &why); break;
  case DIST_LOGNORMAL:
    rc = names[0][0] == 'm' && names[0][1] == 'u' ? dist_lognormal_mu_sigma(d, ps[0].v, ps[1].v, &why)
                                                  : dist_lognormal_mean_cv(d, ps[0].v, ps[1].v, &why);
    break;
  case DIST_GAMMA: rc = dist_gamma_mean_cv(d, ps[0].v, ps[1].v, &why); break;
  case DIST_EXPONENTIAL: rc = dist_exponential(d, ps[0].v, &why); break;
  case DIST_EMPIRICAL: {
    node *sn = scn__opt(n, "samples"), *fn = scn__opt(n, "file"), *pn = scn__opt(n, "phase");
    if (sn && (fn || pn)) {
      const char *k = fn ? "file" : "phase";
      scn__jp(p, sizeof p, path, k);
      return scn__fail_at(c, &scn__map_find(n, k)->at, p, "expected either samples or {file, phase}, got both");
    }
    double *xs = NULL;
    size_t nx = 0;
    if (sn || !(fn || pn)) {
      if (scn__req(c, n, path, "samples", "a list of numbers >= 0 (or file and phase)", &sn)) return PS_EINPUT;
      scn__jp(p, sizeof p, path, "samples");
      if (sn->kind != N_SEQ || sn->n == 0) return scn__expect(c, sn, p, "a non-empty list of numbers >= 0");
      xs = xmalloc((size_t)sn->n * sizeof *xs);
      for (int i = 0; i < sn->n; i++) {
        char pi[PB + 16];
        snprintf(pi, sizeof pi, "%s[%d]", p, i);
        if (scn__rd_num(c, sn->items[i], pi, 0, 0, &xs[i]) ||
            (xs[i] > SCN_MAX_TIME && scn__expect(c, sn->items[i], pi, "a number from 0 to 1e9 (seconds)"))) {
          free(xs);
          return PS_EINPUT;
        }
      }
      nx = (size_t)sn->n;
    } else {
      const char *file, *ph;
      char pf[PB], pp[PB];
      scn__jp(pf, sizeof pf, path, "file");
      scn__jp(pp, sizeof pp, path, "phase");
      if (scn__req(c, n, path, "file", "a spans file (provesim.spans/1)", &fn) || scn__rd_str(c, fn, pf, &file) ||
          scn__req(c, n, path, "phase", "the name of a phase in the spans file", &pn) || scn__rd_str(c, pn, pp, &ph))
        return PS_EINPUT;
      char *fpath = scn__relative_to(fn->at.origin ? NULL : fn->at.file, file);
      emp_ctx x = {.phase = ph};
      ps_err se;
      int src = spans_read(fpath, NULL, emp_collect, &x, &se);
      if (src) {
        free(x.v);
        rc = scn__fail_at(c, &fn->at, pf, "expected a readable provesim.spans/1 file, got \"%s\" (%s)", fpath, se.msg);
        free(fpath);
        return rc;
      }
      if (x.n == 0) {
        rc = scn__fail_at(c, &pn->at, pp, "expected a phase with spans in %s, got \"%s\" (no span has that phase)", fpath, ph);
        free(fpath);
        return rc;
      }
      free(fpath);
      xs = x.v;
      nx = x.n;
    }
    if (dist_empirical(d, xs, nx, &why)) return scn__expect(c, scn__opt(n, "samples") ? scn__opt(n, "samples") : n, path, why);
    return 0;
  }
  }
  if (rc) return dist_refused(c, n, path, ps, np, why);
  /* Parameters in range can still give a mean no simulation can use (lognormal mu = 900). */
  double m = dist_mean(d);
  if (!(m <= SCN_MAX_TIME)) {
    char what[96];
    snprintf(what, sizeof what, "a distribution whose mean is at most 1e9 s (this one's is %g s)", m);
    return scn__expect(c, n, path, what);
  }
  return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Models. */

static const char *const RES_NAMES[] = {"cpu", "gpu", "pcie", "none", NULL};
static const char *const MODEL_KEYS[] = {"model",      "source",     "provenance", "gpu_overlap", "gpu_pairs",
                                         "cpu_contention", "host_speed", "mutex_overhead", "gpu_memory", "phases",
                                         "scopes", NULL};
static const char *const PHASE_KEYS[] = {"name",  "resource", "threads",      "time", "fixed",   "scaling",
                                         "batch", "after",    "host_mem_gib", "busy", "host_threads", "run_mode", NULL};

/* scaling: {serial: F} (Amdahl) or {table: {threads: [1, k...], speedup: [1, s...]}}. */
static int rd_scaling(ld *c, node *x, const char *pp, phase *ph) {
  static const char *const keys[] = {"serial", "table", NULL};
  static const char *const tkeys[] = {"threads", "speedup", NULL};
  char p[PB];
  scn__jp(p, sizeof p, pp, "scaling");
  if (ph->resource != RES_CPU)
    return scn__expect(c, x, p, "no scaling: key on a gpu/pcie/none phase (scaling says how a cpu phase's time "
                                "depends on its cores)");
  if (scn__check_map(c, x, p, keys)) return -1;
  node *se = scn__opt(x, "serial"), *tb = scn__opt(x, "table");
  if (!!se == !!tb) return scn__expect(c, x, p, "one of {serial: F} (Amdahl's law) or {table: {threads: [...], speedup: [...]}}");
  if (se) {
    scn__jp(p, sizeof p, pp, "scaling.serial");
    if (scn__rd_num(c, se, p, 0, 0, &ph->serial)) return -1;
    if (ph->serial > 1) return scn__expect(c, se, p, "a number from 0 to 1 (the share of the one-core time that does not run in parallel)");
    ph->law = SCALE_AMDAHL;
    return 0;
  }
  scn__jp(p, sizeof p, pp, "scaling.table");
  if (scn__check_map(c, tb, p, tkeys)) return -1;
  node *tk, *ts;
  if (scn__req(c, tb, p, "threads", "a list of core counts, ascending from 1", &tk) ||
      scn__req(c, tb, p, "speedup", "a list of speedups over one core, one per core count, from 1", &ts))
    return -1;
  scn__jp(p, sizeof p, pp, "scaling.table.threads");
  if (tk->kind != N_SEQ || tk->n < 2 || tk->n > 4096)
    return scn__expect(c, tk, p, "a list of 2 to 4096 core counts, ascending from 1");
  scn__jp(p, sizeof p, pp, "scaling.table.speedup");
  if (ts->kind != N_SEQ || ts->n != tk->n) {
    char what[96];
    snprintf(what, sizeof what, "a list of %d speedups (one per entry of scaling.table.threads)", tk->n);
    return scn__expect(c, ts, p, what);
  }
  ph->ntab = tk->n;
  ph->tab_k = xmalloc((size_t)tk->n * sizeof *ph->tab_k);
  ph->tab_speedup = xmalloc((size_t)tk->n * sizeof *ph->tab_speedup);
  for (int k = 0; k < tk->n; k++) {
    char pk[PB + 48];
    int v;
    snprintf(pk, sizeof pk, "%s.scaling.table.threads[%d]", pp, k);
    if (scn__rd_i(c, tk->items[k], pk, 1, &v)) return -1;
    if ((k == 0 && v != 1) || (k > 0 && v <= ph->tab_k[k - 1]))
      return scn__expect(c, tk->items[k], pk, k == 0 ? "1 (the table starts at one core)" : "a core count above the previous one");
    ph->tab_k[k] = v;
    snprintf(pk, sizeof pk, "%s.scaling.table.speedup[%d]", pp, k);
    if (scn__rd_num(c, ts->items[k], pk, 0, 1, &ph->tab_speedup[k])) return -1;
    if (k == 0 && ph->tab_speedup[0] != 1) return scn__expect(c, ts->items[k], pk, "1 (the speedup of one core over itself)");
  }
  ph->law = SCALE_TABLE;
  return 0;
}

/* "a, b, c" of the model's phase names (or scope names), for error messages. */
void scn__list_names(char *out, size_t cap, const model *m, int scopes) {
  out[0] = 0;
  int n = scopes ? m->nscopes : m->nphases;
  for (int i = 0; i < n; i++) {
    const char *s = scopes ? m->scopes[i].name : m->phases[i].name;
    if (strlen(out) + strlen(s) + 8 > cap) {
      strncat(out, ", ...", cap - strlen(out) - 1);
      break;
    }
    if (i) strcat(out, ", ");
    strcat(out, s);
  }
}

/* A phase name given as a value (in after, scopes, mutex): its index. */
static int rd_phase_ref(ld *c, const model *m, const node *n, const char *path, int *out) {
  if (n->kind == N_SCALAR && !scn__is_null(n)) {
    int i = scn_phase_index(m, n->str);
    if (i >= 0) {
      *out = i;
      return 0;
    }
  }
  char names[400], what[480];
  scn__list_names(names, sizeof names, m, 0);
  snprintf(what, sizeof what, "the name of a phase of the model (%s)", names);
  return scn__expect(c, n, path, what);
}

/* A {from: PHASE, to: PHASE} region. */
int scn__rd_region(ld *c, const model *m, const node *n, const char *path, int *from, int *to) {
  static const char *const keys[] = {"from", "to", NULL};
  node *fn, *tn;
  char p[PB];
  if (scn__check_map(c, n, path, keys) || scn__req(c, n, path, "from", "a phase name", &fn) ||
      scn__req(c, n, path, "to", "a phase name", &tn))
    return PS_EINPUT;
  scn__jp(p, sizeof p, path, "from");
  if (rd_phase_ref(c, m, fn, p, from)) return PS_EINPUT;
  scn__jp(p, sizeof p, path, "to");
  if (rd_phase_ref(c, m, tn, p, to)) return PS_EINPUT;
  if (*to < *from) {
    char what[PB];
    snprintf(what, sizeof what, "a phase listed no earlier than from (%s) in phases", m->phases[*from].name);
    return scn__expect(c, tn, p, what);
  }
  return 0;
}

/* The key path of phase i: phases.NAME when it has a name, phases[i] otherwise. */
void scn__phase_path(char *out, size_t cap, const char *base, const node *item, int i) {
  const node *nm = scn__opt(item, "name");
  char ph[PB];
  scn__jp(ph, sizeof ph, base, "phases");
  char idx[24];
  snprintf(idx, sizeof idx, "[%d]", i);
  const char *named[] = {ph, ".", nm ? nm->str : "", NULL}, *indexed[] = {ph, idx, NULL};
  scn__cat_path(out, cap, (nm && nm->kind == N_SCALAR) ? named : indexed);
}

/* Find a cycle in the after graph; on success returns 0, else fills cyc[0..*len-1]
 * (each waits for the next, and the last for the first) and returns 1. */
static int find_cycle(const model *m, int *cyc, int *len) {
  int n = m->nphases, rc = 0;
  int *color = xcalloc((size_t)n, sizeof *color), *stack = xmalloc((size_t)n * sizeof *stack),
      *edge = xmalloc((size_t)n * sizeof *edge);
  for (int s = 0; s < n && !rc; s++) {
    if (color[s]) continue;
    int top = 0;
    stack[top] = s, edge[top] = 0, color[s] = 1;
    while (top >= 0 && !rc) {
      int u = stack[top];
      if (edge[top] < m->phases[u].nafter) {
        int w = m->phases[u].after[edge[top]++];
        if (color[w] == 1) {
          int k = top;
          while (stack[k] != w) k--;
          *len = 0;
          for (int j = k; j <= top; j++) cyc[(*len)++] = stack[j];
          rc = 1;
        } else if (!color[w]) {
          top++;
          stack[top] = w, edge[top] = 0, color[w] = 1;
        }
      } else {
        color[u] = 2;
        top--;
      }
    }
  }
  free(color);
  free(stack);
  free(edge);
  return rc;
}

/* A model key that is a map of numbers from 0 to max: NAME: {KEY: v, OPT: v2, ...} with
 * keys[0] required and keys[1..] (NULL-terminated) optional (gpu_overlap: {interference: s,
 * first: s1}, host_speed: {sd: S}, mutex_overhead: {acquire: A, release: R, handover: H});
 * outs[i] receives keys[i]'s value, and has[i] (when has is not NULL) whether keys[i] was
 * there. `what` says what keys[0] is when it is missing. */
static int rd_num_map(ld *c, node *x, const char *base, const char *name, const char *what, double max,
                      const char *const *keys, double *const *outs, int *has) {
  char p[PB], pk[64];
  node *kn;
  scn__jp(p, sizeof p, base, name);
  if (scn__check_map(c, x, p, keys) || scn__req(c, x, p, keys[0], what, &kn)) return 1;
  for (int i = 0; keys[i]; i++) {
    node *v = i ? scn__opt(x, keys[i]) : kn;
    if (has) has[i] = v != NULL;
    if (!v) continue;
    snprintf(pk, sizeof pk, "%s.%s", name, keys[i]);
    scn__jp(p, sizeof p, base, pk);
    if (scn__rd_num(c, v, p, 0, 0, outs[i])) return 1;
    if (*outs[i] > max) {
      char e[64];
      snprintf(e, sizeof e, "a number from 0 to %g", max);
      scn__expect(c, v, p, e);
      return 1;
    }
  }
  return 0;
}

/* gpu_pairs: {P: {Q: r, ...}, ...} (model.pair_rate): GPU phase P beside exactly one other
 * GPU phase, of phase Q, runs at r of its solo speed, 0 < r <= 2 (docs/design.md). */
static int rd_gpu_pairs(ld *c, node *x, const char *base, model *m) {
  char p[PB], pk[PB + 64], pq[PB + 128];
  scn__jp(p, sizeof p, base, "gpu_pairs");
  if (x->kind != N_MAP || x->n == 0)
    return scn__expect(c, x, p, "a mapping {PHASE: {PHASE: RATE, ...}, ...} of GPU phases (the rate of the first "
                       "beside the second, of its solo speed)");
  size_t np = (size_t)m->nphases;
  m->pair_rate = xcalloc(np * np, sizeof *m->pair_rate);
  for (int i = 0; i < x->n; i++) {
    const pair *a = &x->pairs[i];
    node an = {.kind = N_SCALAR, .at = a->at, .str = a->key};
    int pi = -1;
    snprintf(pk, sizeof pk, "%s.%.60s", p, a->key);
    if (rd_phase_ref(c, m, &an, pk, &pi)) return -1;
    if (m->phases[pi].resource != RES_GPU) return scn__expect(c, &an, pk, "the name of a gpu phase");
    if (a->val->kind != N_MAP || a->val->n == 0)
      return scn__expect(c, a->val, pk, "a mapping {PHASE: RATE, ...}: the rate of this phase beside each GPU phase named");
    for (int k = 0; k < a->val->n; k++) {
      const pair *b = &a->val->pairs[k];
      node bn = {.kind = N_SCALAR, .at = b->at, .str = b->key};
      int qi = -1;
      snprintf(pq, sizeof pq, "%s.%.60s", pk, b->key);
      if (rd_phase_ref(c, m, &bn, pq, &qi)) return -1;
      if (m->phases[qi].resource != RES_GPU) return scn__expect(c, &bn, pq, "the name of a gpu phase");
      double v;
      if (scn__rd_num(c, b->val, pq, 0, 1, &v)) return -1;
      if (v > 2) return scn__expect(c, b->val, pq, "a number > 0 and <= 2 (the share of its solo speed)");
      m->pair_rate[(size_t)pi * np + (size_t)qi] = v;
    }
  }
  return 0;
}

/* gpu_memory: {shared_gib: K, per_worker_gib: W, per_partition_gib: P}, GiB per GPU
 * (model.h): K and W required, P 0 by default, each from 0 to SCN_MAX_GIB. */
static int rd_gpu_memory(ld *c, node *x, const char *base, model *m) {
  static const char *const keys[] = {"shared_gib", "per_worker_gib", "per_partition_gib", NULL};
  static const char *const what[] = {"GiB once per GPU (the proving key and the CUDA context)",
                                     "GiB per worker (its work buffers)", NULL};
  double *dst[] = {&m->gpu_shared_gib, &m->gpu_worker_gib, &m->gpu_part_gib};
  char p[PB], q[PB], w[160];
  scn__jp(p, sizeof p, base, "gpu_memory");
  if (x->kind != N_MAP)
    return scn__expect(c, x, p, "a mapping {shared_gib: K, per_worker_gib: W, per_partition_gib: P} (GiB per GPU)");
  if (scn__check_map(c, x, p, keys)) return -1;
  for (int i = 0; i < 3; i++) {
    node *v = scn__opt(x, keys[i]);
    if (!v && what[i]) {
      snprintf(w, sizeof w, "a number >= 0, %s", what[i]);
      scn__req(c, x, p, keys[i], w, &v); /* absent or null: fails with file, line and key */
      return -1;
    }
    if (!v) continue;
    scn__jp(q, sizeof q, p, keys[i]);
    if (scn__rd_num(c, v, q, 0, 0, dst[i])) return -1;
    if (*dst[i] > SCN_MAX_GIB) {
      snprintf(w, sizeof w, "a number from 0 to %.0f (GiB)", SCN_MAX_GIB);
      return scn__expect(c, v, q, w);
    }
  }
  m->has_gpu_mem = 1;
  return 0;
}

/* Build a model from the mapping mn; base is the key path of mn ("" for a model file,
 * "model" for an inline model). */
int scn__build_model(ld *c, node *mn, const char *base, const char *path, model **out) {
  char p[PB], pp[PB];
  model *m = xcalloc(1, sizeof *m);
  node *x, *phs;
  const char *s = NULL;
  int rc = PS_EINPUT;
  if (scn__check_map(c, mn, base, MODEL_KEYS)) goto fail;
  scn__jp(p, sizeof p, base, "model");
  if (scn__req(c, mn, base, "model", "the model's name (a string)", &x) || scn__rd_str(c, x, p, &s)) goto fail;
  m->name = xstrdup(s);
  if ((x = scn__opt(mn, "source"))) {
    scn__jp(p, sizeof p, base, "source");
    if (scn__rd_str(c, x, p, &s)) goto fail;
    m->source = xstrdup(s);
  }
  if ((x = scn__opt(mn, "provenance"))) {
    scn__jp(p, sizeof p, base, "provenance");
    if (x->kind != N_MAP || x->n > 64) {
      scn__expect(c, x, p, "a map of up to 64 strings (gpu, host, commit, spans, date, ...)");
      goto fail;
    }
    m->prov_k = xcalloc((size_t)x->n + 1, sizeof *m->prov_k);
    m->prov_v = xcalloc((size_t)x->n + 1, sizeof *m->prov_v);
    for (int i = 0; i < x->n; i++) {
      char pk[PB + 64];
      snprintf(pk, sizeof pk, "%s.%.60s", p, x->pairs[i].key);
      if (scn__rd_str(c, x->pairs[i].val, pk, &s)) goto fail;
      m->prov_k[i] = xstrdup(x->pairs[i].key);
      m->prov_v[i] = xstrdup(s);
      m->nprov = i + 1;
    }
  }
  m->interference = 1;
  if ((x = scn__opt(mn, "gpu_overlap"))) {
    static const char *const keys[] = {"interference", "first", NULL};
    double *const outs[] = {&m->interference, &m->interference_first};
    int has[2];
    if (rd_num_map(c, x, base, "gpu_overlap",
                   "a number >= 0 (0: overlapping GPU phases do not slow each other; 1: they share the GPU as "
                   "processor sharing)", 100, keys, outs, has))
      goto fail;
    m->has_first = has[1];
    m->gpu_overlap = 1;
  }
  if ((x = scn__opt(mn, "cpu_contention"))) {
    scn__jp(p, sizeof p, base, "cpu_contention");
    if (scn__rd_num(c, x, p, 0, 0, &m->cpu_contention)) goto fail;
    if (m->cpu_contention > 100) {
      scn__expect(c, x, p, "a number from 0 to 100 (each other cpu phase running slows a cpu phase by 1/(1 + c))");
      goto fail;
    }
  }
  if ((x = scn__opt(mn, "host_speed"))) {
    static const char *const keys[] = {"sd", NULL};
    double *const outs[] = {&m->host_speed_sd};
    if (rd_num_map(c, x, base, "host_speed",
                   "the run-to-run standard deviation of the host's CPU speed, a number from 0 to 1 (0.04: a run's "
                   "cpu phases take 4% longer or shorter, one standard deviation)", 1, keys, outs, NULL))
      goto fail;
  }
  if ((x = scn__opt(mn, "mutex_overhead"))) {
    static const char *const keys[] = {"acquire", "release", "handover", NULL};
    double *const outs[] = {&m->mutex_acquire_s, &m->mutex_release_s, &m->mutex_handover_s};
    if (rd_num_map(c, x, base, "mutex_overhead",
                   "the seconds from acquiring the mutex to the start of its region's first phase, a number from 0 "
                   "to 1 (optional: release, from the end of the region's last phase to the release; handover, "
                   "from a release to the acquire of a worker waiting for it)",
                   1, keys, outs, NULL))
      goto fail;
  }
  if ((x = scn__opt(mn, "gpu_memory")) && rd_gpu_memory(c, x, base, m)) goto fail;
  m->path = path ? xstrdup(path) : NULL;
  scn__jp(p, sizeof p, base, "phases");
  if (scn__req(c, mn, base, "phases", "a non-empty list of phases", &phs)) goto fail;
  if (phs->kind != N_SEQ || phs->n == 0) {
    scn__expect(c, phs, p, "a non-empty list of phases");
    goto fail;
  }
  m->phases = xcalloc((size_t)phs->n, sizeof *m->phases);
  /* First the names, so after/scopes can refer to phases listed later. */
  for (int i = 0; i < phs->n; i++) {
    node *it = phs->items[i];
    scn__phase_path(pp, sizeof pp, base, it, i);
    if (scn__check_map(c, it, pp, PHASE_KEYS)) goto fail;
    scn__jp(p, sizeof p, pp, "name");
    if (scn__req(c, it, pp, "name", "the phase's name", &x) || scn__rd_name(c, x, p, &s)) goto fail;
    if (!strcmp(s, "mutex_wait") || !strcmp(s, "mutex_held")) {
      scn__expect(c, x, p, "a name other than mutex_wait and mutex_held (spans use those)");
      goto fail;
    }
    if (scn_phase_index(m, s) >= 0) {
      scn__expect(c, x, p, "a name no other phase has");
      goto fail;
    }
    m->phases[i].name = xstrdup(s);
    m->nphases = i + 1;
  }
  for (int i = 0; i < phs->n; i++) {
    node *it = phs->items[i];
    phase *ph = &m->phases[i];
    int r;
    scn__phase_path(pp, sizeof pp, base, it, i);
    scn__jp(p, sizeof p, pp, "resource");
    if (scn__req(c, it, pp, "resource", "one of cpu, gpu, pcie, none", &x) || scn__rd_enum(c, x, p, RES_NAMES, &r)) goto fail;
    ph->resource = (res_kind)r;
    ph->threads = 1;
    if ((x = scn__opt(it, "threads"))) {
      scn__jp(p, sizeof p, pp, "threads");
      if (x->kind == N_SCALAR && !x->quoted && !strcmp(x->str, "all")) {
        ph->threads_all = 1;
      } else {
        int64_t v;
        if (x->kind != N_SCALAR || scn__scalar_i64(x, &v) || v < 1 || v > SCN_MAX_CORES) {
          scn__expect(c, x, p, "an integer from 1 to 1000000, or all (the worker's threads under system.threads)");
          goto fail;
        }
        ph->threads = (int)v;
      }
      if (ph->resource != RES_CPU && (ph->threads != 1 || ph->threads_all)) {
        char what[96];
        snprintf(what, sizeof what, "1 for a %s phase (threads counts CPU cores)", RES_NAMES[r]);
        scn__expect(c, x, p, what);
        goto fail;
      }
    }
    if ((x = scn__opt(it, "scaling")) && rd_scaling(c, x, pp, ph)) goto fail;
    if (ph->threads_all && ph->law == SCALE_NONE) {
      scn__jp(p, sizeof p, pp, "scaling");
      scn__fail_at(c, &it->at, p, "expected a scaling law for a phase with threads: all ({serial: F} or a table), "
                   "since its time then depends on the cores; got nothing");
      goto fail;
    }
    scn__jp(p, sizeof p, pp, "time");
    if (scn__req(c, it, pp, "time", "a distribution (seconds per partition)", &x) || rd_dist(c, x, p, &ph->time)) goto fail;
    if ((x = scn__opt(it, "fixed"))) {
      scn__jp(p, sizeof p, pp, "fixed");
      if (rd_dist(c, x, p, &ph->fixed)) goto fail;
      ph->has_fixed = 1;
    }
    if ((x = scn__opt(it, "batch"))) {
      static const char *const bkeys[] = {"scale", "serial", NULL};
      node *sc, *se;
      scn__jp(p, sizeof p, pp, "batch");
      if (scn__check_map(c, x, p, bkeys) || scn__req(c, x, p, "scale", "a non-empty list of numbers > 0", &sc)) goto fail;
      scn__jp(p, sizeof p, pp, "batch.scale");
      if (sc->kind != N_SEQ || sc->n == 0) {
        scn__expect(c, sc, p, "a non-empty list of numbers > 0 (multipliers for k = 1, 2, ...)");
        goto fail;
      }
      ph->scale = xmalloc((size_t)sc->n * sizeof *ph->scale);
      ph->nscale = sc->n;
      for (int k = 0; k < sc->n; k++) {
        char pk[PB + 16];
        snprintf(pk, sizeof pk, "%s[%d]", p, k);
        if (scn__rd_num(c, sc->items[k], pk, 0, 1, &ph->scale[k])) goto fail;
      }
      if ((se = scn__opt(x, "serial"))) { /* each batch size's own Amdahl share */
        scn__jp(p, sizeof p, pp, "batch.serial");
        if (ph->law != SCALE_AMDAHL) {
          scn__expect(c, se, p, "no batch.serial on a phase without scaling: {serial: F} (it is each batch size's "
                      "Amdahl share)");
          goto fail;
        }
        if (se->kind != N_SEQ || se->n != sc->n) {
          char what[PB];
          snprintf(what, sizeof what, "a list of %d numbers from 0 to 1, one for each multiplier of batch.scale", sc->n);
          scn__expect(c, se, p, what);
          goto fail;
        }
        ph->bserial = xmalloc((size_t)se->n * sizeof *ph->bserial);
        for (int k = 0; k < se->n; k++) {
          char pk[PB + 16];
          snprintf(pk, sizeof pk, "%s[%d]", p, k);
          if (scn__rd_num(c, se->items[k], pk, 0, 0, &ph->bserial[k])) goto fail;
          if (ph->bserial[k] > 1) {
            scn__expect(c, se->items[k], pk, "a number from 0 to 1 (the share of the one-core time that does not run "
                        "in parallel)");
            goto fail;
          }
        }
        if (fabs(ph->bserial[0] - ph->serial) > 1e-6) {
          char what[PB];
          scn__jp(p, sizeof p, pp, "batch.serial[0]");
          snprintf(what, sizeof what, "%.6g, the phase's scaling.serial (the first entry is a call of one partition)",
                   ph->serial);
          scn__expect(c, se->items[0], p, what);
          goto fail;
        }
      }
    }
    if ((x = scn__opt(it, "host_mem_gib"))) {
      scn__jp(p, sizeof p, pp, "host_mem_gib");
      if (scn__rd_num(c, x, p, 0, 0, &ph->host_mem_gib)) goto fail;
    }
    ph->busy = 1;
    if ((x = scn__opt(it, "busy"))) {
      scn__jp(p, sizeof p, pp, "busy");
      if (ph->resource != RES_GPU) {
        scn__expect(c, x, p, "no busy: key on a cpu/pcie/none phase (busy is the kernel share of a gpu phase)");
        goto fail;
      }
      if (scn__rd_num(c, x, p, 0, 1, &ph->busy)) goto fail;
      if (ph->busy > 1) {
        scn__expect(c, x, p, "a number > 0 and <= 1 (the share of the phase's time the GPU executes kernels)");
        goto fail;
      }
    }
    if ((x = scn__opt(it, "host_threads"))) {
      scn__jp(p, sizeof p, pp, "host_threads");
      if (ph->resource != RES_GPU) {
        scn__expect(c, x, p, "no host_threads: key on a cpu/pcie/none phase (host_threads are the host side of a gpu phase)");
        goto fail;
      }
      if (scn__rd_num(c, x, p, 0, 0, &ph->host_threads)) goto fail;
      if (ph->host_threads > 64) {
        scn__expect(c, x, p, "a number from 0 to 64 (host threads; a fraction is kept to 1/64 of a thread)");
        goto fail;
      }
    }
    if ((x = scn__opt(it, "run_mode"))) { /* {share: P, scale: R} */
      static const char *const keys[] = {"share", "scale", NULL};
      static const char *const what[] = {"a number between 0 and 1, exclusive (the chance that a run takes the "
                                         "phase's slow mode)",
                                         "a number from 1 to 10 (the slow mode's times over the distribution's)"};
      double *const outs[] = {&ph->mode_share, &ph->mode_scale};
      char pm[PB];
      scn__jp(pm, sizeof pm, pp, "run_mode");
      if (scn__check_map(c, x, pm, keys)) goto fail;
      for (int k = 0; k < 2; k++) {
        node *v;
        if (scn__req(c, x, pm, keys[k], what[k], &v)) goto fail;
        scn__jp(p, sizeof p, pm, keys[k]);
        if (scn__rd_num(c, v, p, 0, 0, outs[k])) goto fail;
        if (k ? !(*outs[k] >= 1 && *outs[k] <= 10) : !(*outs[k] > 0 && *outs[k] < 1)) {
          scn__expect(c, v, p, what[k]);
          goto fail;
        }
      }
    }
    pair *ap = scn__map_find(it, "after");
    if (!ap || scn__is_null(ap->val)) {
      if (i > 0) {
        ph->after = xmalloc(sizeof *ph->after);
        ph->after[0] = i - 1;
        ph->nafter = 1;
      }
    } else {
      x = ap->val;
      scn__jp(p, sizeof p, pp, "after");
      if (x->kind != N_SEQ) {
        scn__expect(c, x, p, "a list of phase names ([] for the start of the call)");
        goto fail;
      }
      ph->after = xmalloc((size_t)(x->n ? x->n : 1) * sizeof *ph->after);
      for (int k = 0; k < x->n; k++) {
        char pk[PB + 16];
        snprintf(pk, sizeof pk, "%s[%d]", p, k);
        int w = -1;
        if (rd_phase_ref(c, m, x->items[k], pk, &w)) goto fail;
        for (int j = 0; j < ph->nafter; j++)
          if (ph->after[j] == w) {
            scn__expect(c, x->items[k], pk, "each phase once in after");
            goto fail;
          }
        ph->after[ph->nafter++] = w;
      }
    }
  }
  int *cyc = xmalloc((size_t)m->nphases * sizeof *cyc), clen;
  if (find_cycle(m, cyc, &clen)) {
    /* Blame an explicit after list on the cycle (a default edge only points back to
     * the previous phase, so every cycle has one), preferring one set by an override. */
    int blame = -1;
    for (int k = 0; k < clen; k++) {
      pair *ap = scn__map_find(phs->items[cyc[k]], "after");
      if (ap && !scn__is_null(ap->val) && (blame < 0 || ap->val->at.origin)) blame = k;
    }
    PS_ASSERT(blame >= 0);
    ps_buf b = {0};
    for (int k = 0; k <= clen; k++) ps_buf_printf(&b, "%s%s", k ? " -> " : "", m->phases[cyc[(blame + k) % clen]].name);
    node *it = phs->items[cyc[blame]];
    scn__phase_path(pp, sizeof pp, base, it, cyc[blame]);
    scn__jp(p, sizeof p, pp, "after");
    scn__fail_at(c, &scn__map_find(it, "after")->val->at, p,
            "expected phases whose after lists form no cycle, got the cycle %s (each waits for the next)", b.p);
    ps_buf_free(&b);
    free(cyc);
    goto fail;
  }
  free(cyc);
  if ((x = scn__opt(mn, "scopes"))) {
    scn__jp(pp, sizeof pp, base, "scopes");
    if (x->kind != N_MAP) {
      scn__expect(c, x, pp, "a mapping of scope names to {from: PHASE, to: PHASE}");
      goto fail;
    }
    m->scopes = xcalloc((size_t)(x->n ? x->n : 1), sizeof *m->scopes);
    for (int k = 0; k < x->n; k++) {
      pair *sp = &x->pairs[k];
      scn__jp(p, sizeof p, pp, sp->key);
      node keyn = {.kind = N_SCALAR, .at = sp->at, .str = sp->key};
      if (scn__rd_name(c, &keyn, p, &s)) goto fail;
      if (!strcmp(s, "none")) {
        scn__fail_at(c, &sp->at, p, "expected a scope name other than none, got \"none\" (it is reserved: it means no mutex)");
        goto fail;
      }
      scope *sc = &m->scopes[m->nscopes];
      if (scn__rd_region(c, m, sp->val, p, &sc->from, &sc->to)) goto fail;
      sc->name = xstrdup(s);
      m->nscopes++;
    }
  }
  if ((x = scn__opt(mn, "gpu_pairs"))) {
    if (!m->gpu_overlap) {
      scn__jp(p, sizeof p, base, "gpu_pairs");
      scn__expect(c, x, p, "gpu_pairs beside a gpu_overlap key (its law holds for the pairs not listed and for three "
                  "or more at once; calibrate --overlap writes both)");
      goto fail;
    }
    if (rd_gpu_pairs(c, x, base, m)) goto fail;
  }
  *out = m;
  return 0;
fail:
  scn_model_free(m);
  return rc;
}

const char *scn_res_name(res_kind r) { return (unsigned)r < 4 ? RES_NAMES[r] : "?"; }

void scn_model_free(model *m) {
  if (!m) return;
  free(m->name);
  free(m->source);
  free(m->path);
  for (int i = 0; i < m->nprov; i++) free(m->prov_k[i]), free(m->prov_v[i]);
  free(m->prov_k);
  free(m->prov_v);
  for (int i = 0; i < m->nphases; i++) {
    phase *p = &m->phases[i];
    free(p->name);
    dist_free(&p->time);
    dist_free(&p->fixed);
    free(p->scale);
    free(p->bserial);
    free(p->tab_k);
    free(p->tab_speedup);
    free(p->after);
  }
  /* A model freed while being built may have phases allocated past nphases. */
  free(m->phases);
  for (int i = 0; i < m->nscopes; i++) free(m->scopes[i].name);
  free(m->scopes);
  free(m->pair_rate);
  free(m);
}

int scn_phase_index(const model *m, const char *name) {
  for (int i = 0; i < m->nphases; i++)
    if (m->phases[i].name && !strcmp(m->phases[i].name, name)) return i;
  return -1;
}
