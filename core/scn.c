/* The scenario/model loader (scn.h). scn_yaml.c copies a YAML file into a small tree of
 * our own (nodes that remember their file, line and column, or the --set override they
 * came from). Here the overrides are applied to that tree, then the tree is validated key
 * by key while the model and scenario structs are filled, so an override gets exactly the
 * checks that file content gets. Nothing here is global: every load has its own context. */
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

#include "metrics.h"
#include "spans.h"
#include "window.h"

/* ---------------------------------------------------------------------------------- */
/* Overrides. */

typedef struct ovr {
  const char *text; /* "key=value", borrowed */
  char *key;
  char **segs;
  int nsegs;
  node *val; /* owned until applied */
  loc at;
} ovr;

static void ovr_free(ovr *o) {
  free(o->key);
  for (int i = 0; i < o->nsegs; i++) free(o->segs[i]);
  free(o->segs);
  scn__node_free(o->val);
}

static int ovr_parse(ld *c, const char *text, ovr *o) {
  *o = (ovr){.text = text, .at = {NULL, text, 0, 0}};
  const char *eq = strchr(text, '=');
  if (!eq || eq == text)
    return ps_fail(c->e, PS_EINPUT, "--set %s: expected KEY=VALUE (e.g. system.workers_per_gpu=4), got \"%s\"", text,
                   text);
  o->key = xasprintf("%.*s", (int)(eq - text), text);
  for (const char *p = o->key;;) {
    const char *d = strchr(p, '.');
    size_t n = d ? (size_t)(d - p) : strlen(p);
    if (n == 0) return scn__fail_at(c, &o->at, o->key, "expected a dotted key path (like run.seed), got an empty part");
    o->segs = xrealloc(o->segs, (size_t)(o->nsegs + 1) * sizeof *o->segs);
    o->segs[o->nsegs++] = xasprintf("%.*s", (int)n, p);
    if (!d) break;
    p = d + 1;
  }
  yaml_parser_t yp;
  if (!yaml_parser_initialize(&yp)) return ps_fail(c->e, PS_ERR, "--set %s: cannot initialise the YAML parser", text);
  const char *v = eq + 1;
  yaml_parser_set_input_string(&yp, (const unsigned char *)v, strlen(v));
  /* Everything the override brings is located at the override, not in a file. */
  c->src = v, c->srclen = strlen(v);
  int rc = scn__parse_tree(c, &yp, NULL, text, o->key, &o->val);
  c->src = NULL, c->srclen = 0;
  yaml_parser_delete(&yp);
  return rc;
}

/* Set segs (relative to root, whose key path is base) to o's value, creating missing
 * mappings on the way. */
static int set_path(ld *c, node *root, const char *base, char *const *segs, int nsegs, ovr *o) {
  char p[PB];
  snprintf(p, sizeof p, "%s", base);
  node *cur = root;
  for (int i = 0; i < nsegs; i++) {
    if (cur->kind != N_MAP) {
      char g[128];
      return scn__fail_at(c, &o->at, p, "expected a mapping to set %s in, got %s", segs[i], scn__render(cur, g, sizeof g));
    }
    if (i == nsegs - 1) {
      scn__map_put(cur, segs[i], o->at, o->val);
      o->val = NULL;
      return 0;
    }
    pair *pr = scn__map_find(cur, segs[i]);
    if (!pr) pr = scn__map_put(cur, segs[i], o->at, scn__node_new(N_MAP, o->at));
    else if (scn__is_null(pr->val)) {
      scn__node_free(pr->val);
      pr->val = scn__node_new(N_MAP, o->at);
    }
    cur = pr->val;
    char q[PB];
    scn__jp(q, sizeof q, p, segs[i]);
    memcpy(p, q, sizeof p);
  }
  PS_ASSERT(0);
  return PS_EINPUT;
}

/* Is this override addressed to the model (phases.*, scopes.*, model.*)? */
static int ovr_is_model(const ovr *o) {
  return !strcmp(o->segs[0], "phases") || !strcmp(o->segs[0], "scopes") ||
         (!strcmp(o->segs[0], "model") && o->nsegs > 1);
}

static int apply_model_ovr(ld *c, node *mroot, const char *base, ovr *o) {
  char *const *segs = o->segs;
  int nsegs = o->nsegs;
  char p[PB];
  if (!strcmp(segs[0], "model")) {
    if (nsegs == 2 && !strcmp(segs[1], "name")) {
      char *k[] = {"model"};
      return set_path(c, mroot, base, k, 1, o);
    }
    if (nsegs == 2 && !strcmp(segs[1], "source")) return set_path(c, mroot, base, segs + 1, 1, o);
    if ((!strcmp(segs[1], "gpu_memory") || !strcmp(segs[1], "host_speed")) && nsegs <= 3)
      return set_path(c, mroot, base, segs + 1, nsegs - 1, o);
    if (strcmp(segs[1], "phases") && strcmp(segs[1], "scopes"))
      return scn__fail_at(c, &o->at, o->key,
                     "expected a model key (model.name, model.source, model.gpu_memory.KEY, model.host_speed.sd, "
                     "phases.NAME.KEY, scopes.NAME), got \"%s\"",
                     o->key);
    segs++, nsegs--;
  }
  if (!strcmp(segs[0], "scopes") || nsegs == 1) return set_path(c, mroot, base, segs, nsegs, o);
  /* phases.NAME[.KEY...]: the phase with that name. */
  scn__jp(p, sizeof p, base, "phases");
  node *phs = scn__opt(mroot, "phases");
  if (!phs || phs->kind != N_SEQ) {
    char g[128];
    return scn__fail_at(c, &o->at, p, "expected a list of phases to address by name, got %s", scn__render(phs, g, sizeof g));
  }
  int idx = -1;
  ps_buf names = {0};
  for (int i = 0; i < phs->n; i++) {
    node *nm = scn__opt(phs->items[i], "name");
    if (!nm || nm->kind != N_SCALAR) continue;
    ps_buf_printf(&names, "%s%s", names.len ? ", " : "", nm->str);
    if (idx < 0 && !strcmp(nm->str, segs[1])) idx = i;
  }
  char q[PB];
  scn__jp(q, sizeof q, p, segs[1]);
  if (idx < 0) {
    int rc = scn__fail_at(c, &o->at, q, "expected the name of a phase of the model (%s), got \"%s\"",
                     names.p ? names.p : "", segs[1]);
    ps_buf_free(&names);
    return rc;
  }
  ps_buf_free(&names);
  if (nsegs == 2) {
    /* The whole phase: keep its name unless the new mapping gives one. */
    if (o->val->kind == N_MAP && !scn__map_find(o->val, "name"))
      scn__map_put(o->val, "name", o->at, scn__scalar_new(o->at, segs[1], strlen(segs[1]), 1));
    scn__node_free(phs->items[idx]);
    phs->items[idx] = o->val;
    o->val = NULL;
    return 0;
  }
  return set_path(c, phs->items[idx], q, segs + 2, nsegs - 2, o);
}

/* ---------------------------------------------------------------------------------- */
/* Scenarios. */

static const char *const SCN_KEYS[] = {"scenario", "description", "model", "system", "workload", "run", "prover", NULL};
static const char *const SYS_KEYS[] = {"gpus",        "workers_per_gpu", "cpu_cores", "batch",       "mutex",
                                       "gpu_sharing", "cpu_sharing",     "threads",   "gpu_mem_gib", "host_steal",
                                       NULL};

/* system.host_steal: {share: S, exponent: K}: a host whose hypervisor takes S of the cores'
 * busy time (0 to 0.9) slows every cpu phase by (1 - S)^-K (K from 0 to 4, default 1: the
 * time a core is lost; calibrate's --steal-exponent measures it for a host). The loader
 * scales the model's cpu phases once, so every command that reads the scenario sees the
 * same slower host. */
static int rd_host_steal(ld *c, scenario *s, node *n) {
  static const char *const keys[] = {"share", "exponent", NULL};
  const char *what = "a share from 0 to 0.9 of the cores' busy time that the hypervisor gives other guests "
                     "(measure records it as host_steal)";
  node *x;
  s->host_steal = 0, s->host_steal_exponent = 1;
  if (!n) return 0;
  if (scn__check_map(c, n, "system.host_steal", keys) || scn__req(c, n, "system.host_steal", "share", what, &x))
    return -1;
  if (scn__rd_num(c, x, "system.host_steal.share", 0, 0, &s->host_steal)) return -1;
  if (s->host_steal > 0.9) return scn__expect(c, x, "system.host_steal.share", what);
  if ((x = scn__opt(n, "exponent"))) {
    if (scn__rd_num(c, x, "system.host_steal.exponent", 0, 0, &s->host_steal_exponent)) return -1;
    if (s->host_steal_exponent > 4)
      return scn__expect(c, x, "system.host_steal.exponent",
                         "a number from 0 to 4 (cpu phases take (1 - share)^-exponent as long; 1: the time lost)");
  }
  if (s->host_steal > 0) {
    double f = pow(1 - s->host_steal, -s->host_steal_exponent);
    for (int p = 0; p < s->model->nphases; p++) {
      phase *ph = &s->model->phases[p];
      if (ph->resource != RES_CPU) continue;
      dist_scale(&ph->time, f);
      if (ph->has_fixed) dist_scale(&ph->fixed, f);
    }
  }
  return 0;
}

/* system.threads: {per_worker: share|all|N, keep_core: true|false} (model.h, thr_mode). */
static int rd_threads(ld *c, scenario *s, node *n) {
  static const char *const keys[] = {"per_worker", "keep_core", NULL};
  node *x;
  s->thr = THR_SHARE;
  s->keep_core = 1;
  if (!n) return 0;
  if (scn__check_map(c, n, "system.threads", keys)) return -1;
  if ((x = scn__opt(n, "per_worker"))) {
    int64_t v;
    if (x->kind == N_SCALAR && !x->quoted && !strcmp(x->str, "share")) s->thr = THR_SHARE;
    else if (x->kind == N_SCALAR && !x->quoted && !strcmp(x->str, "all")) s->thr = THR_ALL;
    else if (!scn__scalar_i64(x, &v) && v >= 1 && v <= s->cpu_cores) {
      s->thr = THR_FIXED;
      s->thr_n = (int)v;
    } else {
      char what[160];
      snprintf(what, sizeof what, "share (the cores split among the workers), all (every worker uses every core), "
               "or an integer from 1 to %d (system.cpu_cores)", s->cpu_cores);
      return scn__expect(c, x, "system.threads.per_worker", what);
    }
  }
  if ((x = scn__opt(n, "keep_core"))) {
    static const char *const v[] = {"false", "true", NULL};
    if (scn__rd_enum(c, x, "system.threads.keep_core", v, &s->keep_core)) return -1;
  }
  return 0;
}
static const char *const WL_KEYS[] = {"partitions", "arrivals", NULL};
static const char *const ARR_KEYS[] = {"process", "proofs_per_hour", "partitions_per_proof", "trace", "rate_scale", NULL};
static const char *const RUN_KEYS[] = {"warmup", "cooldown", "replications", "seed", "precision", NULL};
static const char *const PREC_KEYS[] = {"target", "metrics", "max_replications", "batch", NULL};
#define PREC_MAX_DEFAULT 200
#define PREC_BATCH_DEFAULT 10
static const char *const PROVER_KEYS[] = {"circuit", "constraints", "precompute", NULL};

static int scope_index(const model *m, const char *name) {
  for (int i = 0; i < m->nscopes; i++)
    if (!strcmp(m->scopes[i].name, name)) return i;
  return -1;
}

static int rd_mutex(ld *c, scenario *s, node *n) {
  model *m = s->model;
  if (!n) {
    int k = scope_index(m, "call");
    s->mutex_name = xstrdup(k >= 0 ? "call" : "none");
    s->mutex_from = k >= 0 ? m->scopes[k].from : -1;
    s->mutex_to = k >= 0 ? m->scopes[k].to : -1;
    return 0;
  }
  if (n->kind == N_MAP) {
    if (scn__rd_region(c, m, n, "system.mutex", &s->mutex_from, &s->mutex_to)) return PS_EINPUT;
    s->mutex_name = xstrdup("custom");
    return 0;
  }
  if (n->kind == N_SCALAR && !strcmp(n->str, "none")) {
    s->mutex_name = xstrdup("none");
    s->mutex_from = s->mutex_to = -1;
    return 0;
  }
  int k = n->kind == N_SCALAR ? scope_index(m, n->str) : -1;
  if (k < 0) {
    char names[400], what[520];
    scn__list_names(names, sizeof names, m, 1);
    snprintf(what, sizeof what, "none, a scope of the model (%s) or {from: PHASE, to: PHASE}",
             m->nscopes ? names : "it offers none");
    return scn__expect(c, n, "system.mutex", what);
  }
  s->mutex_name = xstrdup(m->scopes[k].name);
  s->mutex_from = m->scopes[k].from;
  s->mutex_to = m->scopes[k].to;
  return 0;
}

/* Pick, of two nodes in a cross-check, the one an override set (so the error names the
 * override that caused it), else a (which may be NULL). */
static const node *pick(const node *a, const node *b) {
  if (b && b->at.origin && !(a && a->at.origin)) return b;
  return a ? a : b;
}

/* run.precision: a number (the target), or {target, metrics, max_replications, batch}
 * (docs/model.md, "Run to a precision"). *maxn receives the max_replications node, if any,
 * for the check against run.replications. */
static int rd_precision(ld *c, scenario *s, node *x, node **maxn) {
  static const char tw[] = "a number from 0.0001 to 0.5 (the 95% CI half-width relative to the mean)";
  node *tn = x, *y;
  s->prec_metrics = 1u << RM_THROUGHPUT | 1u << RM_GPU_UTIL;
  s->prec_max = PREC_MAX_DEFAULT;
  s->prec_batch = PREC_BATCH_DEFAULT;
  if (x->kind == N_MAP) {
    if (scn__check_map(c, x, "run.precision", PREC_KEYS) ||
        scn__req(c, x, "run.precision", "target", tw, &tn))
      return PS_EINPUT;
    if ((y = scn__opt(x, "metrics"))) {
      if (y->kind != N_SEQ || y->n == 0)
        return scn__expect(c, y, "run.precision.metrics", "a non-empty list of " RUN_METRIC_NAMES);
      s->prec_metrics = 0;
      for (int i = 0; i < y->n; i++) {
        int k = y->items[i]->kind == N_SCALAR ? run_metric_parse(y->items[i]->str) : -1;
        if (k < 0) {
          char pi[64];
          snprintf(pi, sizeof pi, "run.precision.metrics[%d]", i);
          return scn__expect(c, y->items[i], pi, "one of " RUN_METRIC_NAMES);
        }
        s->prec_metrics |= 1u << k;
      }
    }
    int64_t v;
    if ((y = scn__opt(x, "max_replications"))) {
      if (scn__rd_int(c, y, "run.precision.max_replications", 2, SCN_MAX_REPLICATIONS, &v)) return PS_EINPUT;
      s->prec_max = (int)v;
      *maxn = y;
    }
    if ((y = scn__opt(x, "batch"))) {
      if (scn__rd_int(c, y, "run.precision.batch", 1, SCN_MAX_REPLICATIONS, &v)) return PS_EINPUT;
      s->prec_batch = (int)v;
    }
  }
  if (scn__scalar_double(tn, &s->prec_target) || !(s->prec_target >= 1e-4 && s->prec_target <= 0.5))
    return scn__expect(c, tn, tn == x ? "run.precision" : "run.precision.target",
                       "a number from 0.0001 to 0.5 (the 95% CI half-width relative to the mean), or {target, "
                       "metrics, max_replications, batch}");
  return 0;
}

/* workload.arrivals: {process: poisson|fixed, proofs_per_hour: X} or {trace: FILE,
 * rate_scale: F}, with partitions_per_proof. *tn receives the trace: node, if any. */
static int rd_arrivals(ld *c, scenario *s, node *x, node **tn) {
  node *y;
  if (scn__check_map(c, x, "workload.arrivals", ARR_KEYS)) return PS_EINPUT;
  if ((y = scn__opt(x, "partitions_per_proof")) &&
      scn__rd_i(c, y, "workload.arrivals.partitions_per_proof", 1, &s->partitions_per_proof))
    return PS_EINPUT;
  node *t = scn__opt(x, "trace");
  if (!t) {
    static const char *const procs[] = {"poisson", "fixed", NULL};
    int pk;
    if ((y = scn__opt(x, "rate_scale")))
      return scn__expect(c, y, "workload.arrivals.rate_scale", "no rate_scale without workload.arrivals.trace (it "
                         "scales a trace; set proofs_per_hour instead)");
    if (scn__req(c, x, "workload.arrivals", "process", "one of poisson, fixed (or trace: FILE)", &y) ||
        scn__rd_enum(c, y, "workload.arrivals.process", procs, &pk))
      return PS_EINPUT;
    s->arrivals = pk == 0 ? ARR_POISSON : ARR_FIXED;
    if (scn__req(c, x, "workload.arrivals", "proofs_per_hour", "a number > 0", &y) ||
        scn__rd_num(c, y, "workload.arrivals.proofs_per_hour", 0, 1, &s->proofs_per_hour))
      return PS_EINPUT;
    return 0;
  }
  /* A trace gives the times itself. */
  static const char *const beside[] = {"process", "proofs_per_hour", NULL};
  for (int i = 0; beside[i]; i++)
    if ((y = scn__opt(x, beside[i]))) {
      char p[PB], what[160];
      scn__jp(p, sizeof p, "workload.arrivals", beside[i]);
      snprintf(what, sizeof what, "no %s beside workload.arrivals.trace (the trace gives the arrival times; "
               "rate_scale scales them)", beside[i]);
      return scn__expect(c, y, p, what);
    }
  const char *file;
  if (scn__rd_str(c, t, "workload.arrivals.trace", &file)) return PS_EINPUT;
  if (!*file) return scn__expect(c, t, "workload.arrivals.trace", "the name of an arrivals file (CSV or JSON Lines)");
  if ((y = scn__opt(x, "rate_scale")) &&
      (scn__scalar_double(y, &s->rate_scale) || !(s->rate_scale >= 1e-3 && s->rate_scale <= 1e3)))
    return scn__expect(c, y, "workload.arrivals.rate_scale", "a number from 0.001 to 1000 (the trace's gaps are "
                       "divided by it)");
  char *tpath = scn__relative_to(t->at.origin ? NULL : t->at.file, file);
  int rc = scn__load_trace(c, t, "workload.arrivals.trace", tpath, &s->trace_t, &s->ntrace);
  free(tpath);
  if (rc) return rc;
  for (int64_t i = 0; i < s->ntrace; i++) s->trace_t[i] /= s->rate_scale;
  s->trace_path = xstrdup(file);
  s->arrivals = ARR_TRACE;
  *tn = t;
  return 0;
}

static int build_scenario(ld *c, const char *path, node *root, ovr *ovs, int nov, scenario *s) {
  char p[PB];
  node *x, *y;
  const char *str = NULL;
  if (scn__check_map(c, root, "", SCN_KEYS)) return PS_EINPUT;
  s->path = xstrdup(path);
  if (scn__req(c, root, "", "scenario", "the scenario's name (a string)", &x) || scn__rd_str(c, x, "scenario", &str))
    return PS_EINPUT;
  s->name = xstrdup(str);
  if ((x = scn__opt(root, "description"))) {
    if (scn__rd_str(c, x, "description", &str)) return PS_EINPUT;
    s->description = xstrdup(str);
    /* A folded or literal block keeps its final line break; a report has no use for it. */
    for (size_t n = strlen(s->description); n > 0 && s->description[n - 1] == '\n'; n--) s->description[n - 1] = 0;
  }

  /* The model: inline, or a file named relative to the scenario. */
  node *mroot = NULL, *mfile = NULL;
  const char *mbase = "model";
  char *mpath = NULL;
  if (scn__req(c, root, "", "model", "a model file name or an inline model mapping", &x)) return PS_EINPUT;
  if (x->kind == N_MAP) {
    mroot = x;
  } else if (x->kind == N_SCALAR) {
    mpath = scn__relative_to(x->at.origin ? NULL : x->at.file, x->str);
    if (scn__load_file(c, mpath, "model", &x->at, "model", &mfile)) {
      free(mpath);
      return PS_EINPUT;
    }
    mroot = mfile;
    mbase = "";
  } else {
    return scn__expect(c, x, "model", "a model file name or an inline model mapping");
  }
  int rc = 0;
  for (int i = 0; i < nov && !rc; i++)
    if (ovr_is_model(&ovs[i])) rc = apply_model_ovr(c, mroot, mbase, &ovs[i]);
  if (!rc) rc = scn__build_model(c, mroot, mbase, mpath, &s->model);
  free(mpath);
  if (rc) {
    scn__node_free(mfile);
    return rc;
  }

  /* system */
  node *sys = scn__opt(root, "system");
  if (sys && scn__check_map(c, sys, "system", SYS_KEYS)) goto fail;
  s->gpus = s->workers_per_gpu = s->batch = 1;
  s->cpu_cores = 32;
  struct {
    const char *key;
    int *dst;
  } ints[] = {{"gpus", &s->gpus}, {"workers_per_gpu", &s->workers_per_gpu}, {"cpu_cores", &s->cpu_cores}, {"batch", &s->batch}};
  /* Every count is bounded, so no accepted scenario runs out of memory: the most GPUs,
   * cores per simulation, and partitions per call (a worker keeps each one's state). */
  static const int64_t hi[] = {PS_MAX_GPUS, SCN_MAX_WORKERS, SCN_MAX_CORES, SCN_MAX_BATCH};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if ((x = scn__opt(sys, ints[i].key))) {
      int64_t v = 0;
      scn__jp(p, sizeof p, "system", ints[i].key);
      if (scn__rd_int(c, x, p, 1, hi[i], &v)) goto fail;
      *ints[i].dst = (int)v;
    }
  if ((int64_t)s->gpus * s->workers_per_gpu > SCN_MAX_WORKERS) {
    node *wn = scn__opt(sys, "workers_per_gpu");
    char what[160];
    snprintf(what, sizeof what, "at most %d workers in all (gpus x workers_per_gpu; %d x %d would take about %.0f MiB "
             "per simulation thread)", SCN_MAX_WORKERS, s->gpus, s->workers_per_gpu,
             (double)s->gpus * s->workers_per_gpu * SCN_WORKER_BYTES / 1048576.0);
    scn__expect(c, wn ? wn : scn__opt(sys, "gpus"), "system.workers_per_gpu", what);
    goto fail;
  }
  if (rd_mutex(c, s, scn__opt(sys, "mutex"))) goto fail;
  s->gpu_shared = s->model->gpu_overlap;
  if ((x = scn__opt(sys, "gpu_sharing"))) {
    static const char *const v[] = {"exclusive", "shared", NULL};
    if (scn__rd_enum(c, x, "system.gpu_sharing", v, &s->gpu_shared)) goto fail;
  }
  if ((x = scn__opt(sys, "cpu_sharing"))) {
    static const char *const v[] = {"ps", "fifo", NULL};
    if (scn__rd_enum(c, x, "system.cpu_sharing", v, &s->cpu_fifo)) goto fail;
  }
  if (rd_threads(c, s, scn__opt(sys, "threads"))) goto fail;
  if (rd_host_steal(c, s, scn__opt(sys, "host_steal"))) goto fail;
  if ((x = scn__opt(sys, "gpu_mem_gib"))) {
    if (scn__rd_num(c, x, "system.gpu_mem_gib", 0, 1, &s->gpu_mem_gib)) goto fail;
    if (s->gpu_mem_gib > SCN_MAX_GIB) {
      scn__expect(c, x, "system.gpu_mem_gib", "a number > 0 and at most 1000000 (GiB of one GPU)");
      goto fail;
    }
  }

  /* workload */
  node *wl = scn__opt(root, "workload");
  if (!wl) {
    scn__fail_at(c, &root->at, "workload.partitions", "expected an integer >= 1, got nothing");
    goto fail;
  }
  if (scn__check_map(c, wl, "workload", WL_KEYS)) goto fail;
  s->arrivals = ARR_CLOSED;
  s->partitions_per_proof = 1;
  s->rate_scale = 1;
  node *trn = NULL; /* workload.arrivals.trace */
  if ((x = scn__opt(wl, "arrivals")) && rd_arrivals(c, s, x, &trn)) goto fail;
  /* With a trace, partitions defaults to every partition its arrivals bring, and may
   * not ask for more. */
  node *pn = scn__opt(wl, "partitions");
  if (trn && !pn) {
    s->partitions = s->ntrace * s->partitions_per_proof;
  } else if (scn__req(c, wl, "workload", "partitions", "an integer >= 1", &pn) ||
             scn__rd_int(c, pn, "workload.partitions", 1, INT64_MAX, &s->partitions)) {
    goto fail;
  } else if (trn && s->partitions > s->ntrace * s->partitions_per_proof) {
    char what[200];
    snprintf(what, sizeof what, "an integer from 1 to %" PRId64 " (the trace's %" PRId64 " arrivals x %d partitions "
             "per proof)", s->ntrace * s->partitions_per_proof, s->ntrace, s->partitions_per_proof);
    int at_trace = pick(pn, trn) == trn;
    scn__expect(c, at_trace ? trn : pn, at_trace ? "workload.arrivals.trace" : "workload.partitions", what);
    goto fail;
  }
  if (!pn) pn = trn; /* where a cross-check with partitions points */

  /* run */
  node *run = scn__opt(root, "run");
  if (run && scn__check_map(c, run, "run", RUN_KEYS)) goto fail;
  s->replications = 1;
  s->seed = 1;
  node *wn = scn__opt(run, "warmup");
  if (wn && wn->kind == N_SCALAR && !wn->quoted && !strcmp(wn->str, "auto")) {
    s->warmup_auto = 1;
  } else if (wn && (scn__scalar_i64(wn, &s->warmup) || s->warmup < 0)) {
    scn__expect(c, wn, "run.warmup", "an integer >= 0, or auto (chosen by MSER-5 from a pilot run)");
    goto fail;
  }
  node *cn = scn__opt(run, "cooldown");
  if (cn && scn__rd_int(c, cn, "run.cooldown", 0, INT64_MAX, &s->cooldown)) goto fail;
  if ((x = scn__opt(run, "replications"))) {
    int64_t v = 0;
    if (scn__rd_int(c, x, "run.replications", 1, SCN_MAX_REPLICATIONS, &v)) goto fail;
    s->replications = (int)v;
  }
  node *precn = scn__opt(run, "precision"), *pmaxn = NULL;
  if (precn && rd_precision(c, s, precn, &pmaxn)) goto fail;
  if ((x = scn__opt(run, "seed"))) {
    int ok = x->kind == N_SCALAR && !x->quoted && x->str[0] && x->str[0] != '-';
    for (const char *q = x->str; ok && *q; q++) ok = isdigit((unsigned char)*q) || (q == x->str && *q == '+');
    errno = 0;
    unsigned long long v = ok ? strtoull(x->str, NULL, 10) : 0;
    if (!ok || errno == ERANGE) {
      scn__expect(c, x, "run.seed", "an integer from 0 to 18446744073709551615");
      goto fail;
    }
    s->seed = (uint64_t)v;
  }

  /* prover (read by measure, ignored by the simulator) */
  if ((x = scn__opt(root, "prover"))) {
    if (scn__check_map(c, x, "prover", PROVER_KEYS)) goto fail;
    if ((y = scn__opt(x, "circuit"))) {
      if (scn__rd_str(c, y, "prover.circuit", &str)) goto fail;
      s->prover_circuit = xstrdup(str);
    }
    if ((y = scn__opt(x, "constraints"))) {
      int64_t v = 0;
      int ok = !scn__scalar_i64(y, &v) && v >= 1;
      if (!ok && y->kind == N_SCALAR && !strncmp(y->str, "2^", 2)) {
        char *end;
        errno = 0;
        long e = strtol(y->str + 2, &end, 10);
        if (end != y->str + 2 && !*end && !errno && e >= 0 && e <= 62) v = (int64_t)1 << e, ok = 1;
      }
      if (!ok) {
        scn__expect(c, y, "prover.constraints", "an integer >= 1 or a power of two written \"2^N\" (N from 0 to 62)");
        goto fail;
      }
      s->prover_constraints = v;
    }
    if ((y = scn__opt(x, "precompute"))) {
      int64_t v = 0;
      if (y->kind == N_SCALAR && !y->quoted && !strcmp(y->str, "off")) s->prover_precompute = 0;
      else if (y->kind == N_SCALAR && !y->quoted && !strcmp(y->str, "auto")) s->prover_precompute = -1;
      else if (!scn__scalar_i64(y, &v) && v >= 2 && v <= 24) s->prover_precompute = (int)v;
      else {
        scn__expect(c, y, "prover.precompute", "off, auto, or a window in bits from 2 to 24 (e.g. 20)");
        goto fail;
      }
    }
  }

  /* Checks across keys. */
  if (s->warmup >= s->partitions) {
    const node *at = pick(wn, pn);
    char what[160];
    if (at == wn) {
      snprintf(what, sizeof what, "an integer from 0 to %" PRId64 " (fewer than workload.partitions, %" PRId64 ")",
               s->partitions - 1, s->partitions);
      scn__expect(c, wn, "run.warmup", what);
    } else {
      if (pn == trn)
        snprintf(what, sizeof what, "a trace of more than run.warmup (%" PRId64 ") partitions (it brings %" PRId64 ")",
                 s->warmup, s->partitions);
      else
        snprintf(what, sizeof what, "an integer > run.warmup (%" PRId64 ")", s->warmup);
      scn__expect(c, pn, pn == trn ? "workload.arrivals.trace" : "workload.partitions", what);
    }
    goto fail;
  }
  if (s->cooldown > s->partitions - s->warmup - 1) {
    /* The window runs from the warmup-th completion to the (partitions - cooldown)-th. */
    const node *at = cn;
    if (!cn->at.origin) at = pn->at.origin ? pn : wn && wn->at.origin ? wn : cn;
    char what[200];
    if (at == cn) {
      snprintf(what, sizeof what, "an integer from 0 to %" PRId64 " (workload.partitions - run.warmup - 1)",
               s->partitions - s->warmup - 1);
      scn__expect(c, cn, "run.cooldown", what);
    } else if (at == pn) {
      if (pn == trn)
        snprintf(what, sizeof what, "a trace of more than run.warmup + run.cooldown (%" PRId64 ") partitions (it "
                 "brings %" PRId64 ")", s->warmup + s->cooldown, s->partitions);
      else
        snprintf(what, sizeof what, "an integer > run.warmup + run.cooldown (%" PRId64 ")", s->warmup + s->cooldown);
      scn__expect(c, pn, pn == trn ? "workload.arrivals.trace" : "workload.partitions", what);
    } else {
      snprintf(what, sizeof what, "an integer from 0 to %" PRId64 " (workload.partitions - run.cooldown - 1)",
               s->partitions - s->cooldown - 1);
      scn__expect(c, wn, "run.warmup", what);
    }
    goto fail;
  }
  if (precn && s->prec_max < s->replications) {
    /* The cap given explicitly must leave room for the first round; the default grows to it. */
    node *rn = scn__opt(run, "replications");
    if (!pmaxn) {
      s->prec_max = s->replications;
    } else {
      char what[160];
      if (pick(pmaxn, rn) == rn) {
        snprintf(what, sizeof what, "an integer from 1 to %d (run.precision.max_replications)", s->prec_max);
        scn__expect(c, rn, "run.replications", what);
      } else {
        snprintf(what, sizeof what, "an integer from %d (run.replications, the first round) to %d", s->replications,
                 SCN_MAX_REPLICATIONS);
        scn__expect(c, pmaxn, "run.precision.max_replications", what);
      }
      goto fail;
    }
  }
  node *mphs = scn__opt(mroot, "phases");
  for (int i = 0; i < s->model->nphases; i++) {
    phase *ph = &s->model->phases[i];
    node *it = mphs->items[i];
    char pp[PB];
    scn__phase_path(pp, sizeof pp, mbase, it, i);
    if (ph->threads_all) ph->threads = scn_worker_threads(s, s->cpu_cores);
    if (ph->threads > s->cpu_cores) {
      node *tn = scn__opt(it, "threads"), *coren = scn__opt(sys, "cpu_cores");
      char what[PB];
      scn__jp(p, sizeof p, pp, "threads");
      if (pick(coren, tn) == coren) {
        snprintf(what, sizeof what, "an integer >= %d (phase %s wants threads: %d)", ph->threads, ph->name, ph->threads);
        scn__expect(c, coren, "system.cpu_cores", what);
      } else {
        snprintf(what, sizeof what, "an integer from 1 to %d (system.cpu_cores)", s->cpu_cores);
        scn__expect(c, tn, p, what);
      }
      goto fail;
    }
    if (ph->nscale && s->batch > ph->nscale) {
      node *bn = scn__opt(sys, "batch"), *sn = scn__opt(scn__opt(it, "batch"), "scale");
      char what[PB];
      if (pick(bn, sn) == bn) {
        snprintf(what, sizeof what, "an integer from 1 to %d (phase %s's batch.scale has %d multipliers)", ph->nscale,
                 ph->name, ph->nscale);
        scn__expect(c, bn, "system.batch", what);
      } else {
        scn__jp(p, sizeof p, pp, "batch.scale");
        snprintf(what, sizeof what, "at least %d multipliers (system.batch is %d)", s->batch, s->batch);
        scn__expect(c, sn, p, what);
      }
      goto fail;
    }
  }
  scn__node_free(mfile);
  return 0;
fail:
  scn__node_free(mfile);
  return PS_EINPUT;
}

/* ---------------------------------------------------------------------------------- */
/* Public API. */

int scn_load(const char *path, const char *const *overrides, int noverrides, scenario **out, ps_err *e) {
  ld c = {.e = e};
  node *root = NULL;
  ovr *ovs = xcalloc((size_t)(noverrides > 0 ? noverrides : 1), sizeof *ovs);
  int nov = 0, rc;
  scenario *s = NULL;
  if ((rc = scn__load_file(&c, path, "scenario", NULL, NULL, &root))) goto out;
  for (; nov < noverrides; nov++)
    if ((rc = ovr_parse(&c, overrides[nov], &ovs[nov]))) {
      nov++;
      goto out;
    }
  /* Scenario keys now, in order; model keys once the model's tree is at hand. */
  for (int i = 0; i < nov; i++)
    if (!ovr_is_model(&ovs[i]) && (rc = set_path(&c, root, "", ovs[i].segs, ovs[i].nsegs, &ovs[i]))) goto out;
  s = xcalloc(1, sizeof *s);
  if ((rc = build_scenario(&c, path, root, ovs, nov, s))) goto out;
  *out = s;
  s = NULL;
out:
  scn_free(s);
  for (int i = 0; i < nov; i++) ovr_free(&ovs[i]);
  free(ovs);
  scn__node_free(root);
  scn__ld_done(&c);
  return rc;
}

int scn_load_model(const char *path, model **out, ps_err *e) {
  ld c = {.e = e};
  node *root = NULL;
  int rc = scn__load_file(&c, path, "model", NULL, NULL, &root);
  if (!rc) rc = scn__build_model(&c, root, "", path, out);
  scn__node_free(root);
  scn__ld_done(&c);
  return rc;
}


void scn_free(scenario *s) {
  if (!s) return;
  free(s->name);
  free(s->description);
  free(s->path);
  scn_model_free(s->model);
  free(s->mutex_name);
  free(s->prover_circuit);
  free(s->trace_path);
  free(s->trace_t);
  free(s);
}



static void add_i64(cJSON *o, const char *key, int64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  cJSON_AddRawToObject(o, key, b);
}

static cJSON *dist_json(const dist *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "dist", dist_kind_name(d->kind));
  switch (d->kind) {
  case DIST_CONST: cJSON_AddNumberToObject(o, "value", d->a); break;
  case DIST_UNIFORM:
    cJSON_AddNumberToObject(o, "min", d->a);
    cJSON_AddNumberToObject(o, "max", d->b);
    break;
  case DIST_NORMAL:
    cJSON_AddNumberToObject(o, "mu", d->a);
    cJSON_AddNumberToObject(o, "sd", d->b);
    break;
  case DIST_LOGNORMAL:
    cJSON_AddNumberToObject(o, "mu", d->a);
    cJSON_AddNumberToObject(o, "sigma", d->b);
    break;
  case DIST_GAMMA:
    cJSON_AddNumberToObject(o, "shape", d->a);
    cJSON_AddNumberToObject(o, "scale", d->b);
    break;
  case DIST_EXPONENTIAL: break;
  case DIST_EMPIRICAL: {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < d->n; i++) lo = fmin(lo, d->samples[i]), hi = fmax(hi, d->samples[i]);
    add_i64(o, "n", (int64_t)d->n);
    cJSON_AddNumberToObject(o, "min", lo);
    cJSON_AddNumberToObject(o, "max", hi);
    break;
  }
  }
  cJSON_AddNumberToObject(o, "mean", dist_mean(d));
  return o;
}

static void add_str_or_null(cJSON *o, const char *key, const char *s) {
  if (s) cJSON_AddStringToObject(o, key, s);
  else cJSON_AddNullToObject(o, key);
}

cJSON *scn_to_json(const scenario *s) {
  const model *m = s->model;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "scenario", s->name);
  add_str_or_null(o, "description", s->description);

  cJSON *mj = cJSON_AddObjectToObject(o, "model");
  cJSON_AddStringToObject(mj, "model", m->name);
  add_str_or_null(mj, "source", m->source);
  cJSON *phs = cJSON_AddArrayToObject(mj, "phases");
  for (int i = 0; i < m->nphases; i++) {
    const phase *p = &m->phases[i];
    cJSON *pj = cJSON_CreateObject();
    cJSON_AddStringToObject(pj, "name", p->name);
    cJSON_AddStringToObject(pj, "resource", scn_res_name(p->resource));
    cJSON_AddNumberToObject(pj, "threads", p->threads);
    if (p->threads_all) cJSON_AddTrueToObject(pj, "threads_all");
    if (p->law == SCALE_AMDAHL) {
      cJSON_AddNumberToObject(cJSON_AddObjectToObject(pj, "scaling"), "serial", p->serial);
    } else if (p->law == SCALE_TABLE) {
      cJSON *t = cJSON_AddObjectToObject(cJSON_AddObjectToObject(pj, "scaling"), "table");
      cJSON_AddItemToObject(t, "threads", cJSON_CreateDoubleArray(p->tab_k, p->ntab));
      cJSON_AddItemToObject(t, "speedup", cJSON_CreateDoubleArray(p->tab_speedup, p->ntab));
    }
    cJSON_AddItemToObject(pj, "time", dist_json(&p->time));
    if (p->has_fixed) cJSON_AddItemToObject(pj, "fixed", dist_json(&p->fixed));
    else cJSON_AddNullToObject(pj, "fixed");
    if (p->nscale) {
      cJSON *b = cJSON_AddObjectToObject(pj, "batch");
      cJSON_AddItemToObject(b, "scale", cJSON_CreateDoubleArray(p->scale, p->nscale));
      if (p->bserial) cJSON_AddItemToObject(b, "serial", cJSON_CreateDoubleArray(p->bserial, p->nscale));
    } else {
      cJSON_AddNullToObject(pj, "batch");
    }
    cJSON *af = cJSON_AddArrayToObject(pj, "after");
    for (int k = 0; k < p->nafter; k++) cJSON_AddItemToArray(af, cJSON_CreateString(m->phases[p->after[k]].name));
    cJSON_AddNumberToObject(pj, "host_mem_gib", p->host_mem_gib);
    if (p->resource == RES_GPU) cJSON_AddNumberToObject(pj, "busy", p->busy);
    if (p->host_threads) cJSON_AddNumberToObject(pj, "host_threads", p->host_threads);
    if (p->mode_share > 0) {
      cJSON *rm = cJSON_AddObjectToObject(pj, "run_mode");
      cJSON_AddNumberToObject(rm, "share", p->mode_share);
      cJSON_AddNumberToObject(rm, "scale", p->mode_scale);
    }
    cJSON_AddItemToArray(phs, pj);
  }
  if (m->has_gpu_mem) { /* only when given, so the echo of every model without it stays as it was */
    cJSON *gm = cJSON_AddObjectToObject(mj, "gpu_memory");
    cJSON_AddNumberToObject(gm, "shared_gib", m->gpu_shared_gib);
    cJSON_AddNumberToObject(gm, "per_worker_gib", m->gpu_worker_gib);
    cJSON_AddNumberToObject(gm, "per_partition_gib", m->gpu_part_gib);
  }
  cJSON *sc = cJSON_AddObjectToObject(mj, "scopes");
  for (int i = 0; i < m->nscopes; i++) {
    cJSON *r = cJSON_AddObjectToObject(sc, m->scopes[i].name);
    cJSON_AddStringToObject(r, "from", m->phases[m->scopes[i].from].name);
    cJSON_AddStringToObject(r, "to", m->phases[m->scopes[i].to].name);
  }

  cJSON *sys = cJSON_AddObjectToObject(o, "system");
  cJSON_AddNumberToObject(sys, "gpus", s->gpus);
  cJSON_AddNumberToObject(sys, "workers_per_gpu", s->workers_per_gpu);
  cJSON_AddNumberToObject(sys, "cpu_cores", s->cpu_cores);
  cJSON_AddNumberToObject(sys, "batch", s->batch);
  cJSON *mx = cJSON_AddObjectToObject(sys, "mutex");
  cJSON_AddStringToObject(mx, "scope", s->mutex_name);
  add_str_or_null(mx, "from", s->mutex_from >= 0 ? m->phases[s->mutex_from].name : NULL);
  add_str_or_null(mx, "to", s->mutex_to >= 0 ? m->phases[s->mutex_to].name : NULL);
  cJSON_AddStringToObject(sys, "gpu_sharing", s->gpu_shared ? "shared" : "exclusive");
  if (m->gpu_overlap) cJSON_AddNumberToObject(sys, "gpu_interference", m->interference);
  if (m->gpu_overlap && m->has_first) cJSON_AddNumberToObject(sys, "gpu_interference_first", m->interference_first);
  if (m->pair_rate) { /* gpu_pairs: {P: {Q: r}}, the phases in model order */
    cJSON *gp = cJSON_AddObjectToObject(sys, "gpu_pairs");
    for (int p = 0; p < m->nphases; p++)
      for (int q = 0; q < m->nphases; q++) {
        double r = m->pair_rate[p * m->nphases + q];
        if (r <= 0) continue;
        cJSON *row = cJSON_GetObjectItemCaseSensitive(gp, m->phases[p].name);
        if (!row) row = cJSON_AddObjectToObject(gp, m->phases[p].name);
        cJSON_AddNumberToObject(row, m->phases[q].name, r);
      }
  }
  if (m->cpu_contention > 0) cJSON_AddNumberToObject(sys, "cpu_contention", m->cpu_contention);
  if (m->host_speed_sd > 0) cJSON_AddNumberToObject(sys, "host_speed_sd", m->host_speed_sd);
  if (m->mutex_acquire_s > 0 || m->mutex_release_s > 0 || m->mutex_handover_s > 0) {
    cJSON *mo = cJSON_AddObjectToObject(sys, "mutex_overhead");
    cJSON_AddNumberToObject(mo, "acquire", m->mutex_acquire_s);
    cJSON_AddNumberToObject(mo, "release", m->mutex_release_s);
    cJSON_AddNumberToObject(mo, "handover", m->mutex_handover_s);
  }
  cJSON_AddStringToObject(sys, "cpu_sharing", s->cpu_fifo ? "fifo" : "ps");
  cJSON *th = cJSON_AddObjectToObject(sys, "threads");
  if (s->thr == THR_FIXED) cJSON_AddNumberToObject(th, "per_worker", s->thr_n);
  else cJSON_AddStringToObject(th, "per_worker", s->thr == THR_ALL ? "all" : "share");
  cJSON_AddBoolToObject(th, "keep_core", s->keep_core);
  cJSON_AddNumberToObject(th, "threads_per_worker", scn_worker_threads(s, s->cpu_cores));
  if (s->gpu_mem_gib > 0) cJSON_AddNumberToObject(sys, "gpu_mem_gib", s->gpu_mem_gib);
  if (s->host_steal > 0) {
    cJSON *hs = cJSON_AddObjectToObject(sys, "host_steal");
    cJSON_AddNumberToObject(hs, "share", s->host_steal);
    cJSON_AddNumberToObject(hs, "exponent", s->host_steal_exponent);
  }

  cJSON *wl = cJSON_AddObjectToObject(o, "workload");
  add_i64(wl, "partitions", s->partitions);
  if (s->arrivals == ARR_CLOSED) {
    cJSON_AddNullToObject(wl, "arrivals");
  } else {
    cJSON *a = cJSON_AddObjectToObject(wl, "arrivals");
    if (s->arrivals == ARR_TRACE) {
      /* The trace as replayed: its file, the scale, and the arrivals the run uses. */
      int64_t used = (s->partitions + s->partitions_per_proof - 1) / s->partitions_per_proof;
      cJSON_AddStringToObject(a, "process", "trace");
      cJSON_AddStringToObject(a, "trace", s->trace_path);
      cJSON_AddNumberToObject(a, "rate_scale", s->rate_scale);
      add_i64(a, "arrivals", s->ntrace);
      add_i64(a, "arrivals_used", used);
      cJSON_AddNumberToObject(a, "first_s", s->trace_t[0]);
      cJSON_AddNumberToObject(a, "last_s", s->trace_t[used - 1]);
    } else {
      cJSON_AddStringToObject(a, "process", s->arrivals == ARR_POISSON ? "poisson" : "fixed");
      cJSON_AddNumberToObject(a, "proofs_per_hour", s->proofs_per_hour);
    }
    cJSON_AddNumberToObject(a, "partitions_per_proof", s->partitions_per_proof);
  }

  cJSON *run = cJSON_AddObjectToObject(o, "run");
  add_i64(run, "warmup", s->warmup);
  if (s->warmup_auto) cJSON_AddStringToObject(run, "warmup_auto", "mser-5");
  add_i64(run, "cooldown", s->cooldown);
  cJSON_AddNumberToObject(run, "replications", s->replications);
  if (s->prec_target > 0) {
    cJSON *pr = cJSON_AddObjectToObject(run, "precision");
    cJSON_AddNumberToObject(pr, "target", s->prec_target);
    cJSON *ms = cJSON_AddArrayToObject(pr, "metrics");
    for (int k = 0; k < RM_COUNT; k++)
      if (s->prec_metrics >> k & 1) cJSON_AddItemToArray(ms, cJSON_CreateString(run_metric_name((run_metric)k)));
    cJSON_AddNumberToObject(pr, "max_replications", s->prec_max);
    cJSON_AddNumberToObject(pr, "batch", s->prec_batch);
  }
  char b[32];
  snprintf(b, sizeof b, "%" PRIu64, s->seed);
  cJSON_AddRawToObject(run, "seed", b);

  cJSON *pv = cJSON_AddObjectToObject(o, "prover");
  add_str_or_null(pv, "circuit", s->prover_circuit);
  add_i64(pv, "constraints", s->prover_constraints);
  /* Only when set, so the echo of every scenario without it stays as it was. */
  if (s->prover_precompute > 0) cJSON_AddNumberToObject(pv, "precompute", s->prover_precompute);
  else if (s->prover_precompute < 0) cJSON_AddStringToObject(pv, "precompute", "auto");
  return o;
}
