/* Implementation of sim/calib.h: calib_model, a model from spans files read as streams
 * (what each phase keeps while reading, the passes, the busy share from kernel records in
 * time order), and the model as YAML. The fits themselves are in calib_fit.c, the overlap
 * run in calib_overlap.c, span_metrics_file in spanmetrics.c. */
#include "calib.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ivl.h"
#include "spans.h"
#include "scn.h"
#include "window.h"

/* ---------------------------------------------------------------- ranks */

static int ranks_worker(calib__ranks *r, int rep, int gpu, int worker, int add) {
  char key[48];
  snprintf(key, sizeof key, "%d %d %d", rep, gpu, worker);
  int id = strtab_id(&r->tab, key, add ? (size_t)INT_MAX : r->tab.n);
  if (id >= 0 && (size_t)id >= r->cap) {
    size_t nc = r->cap ? 2 * r->cap : 16;
    r->first = xrealloc(r->first, nc * sizeof *r->first);
    r->nfirst = xrealloc(r->nfirst, nc * sizeof *r->nfirst);
    r->last = xrealloc(r->last, nc * sizeof *r->last);
    for (size_t i = r->cap; i < nc; i++) r->first[i] = NULL, r->nfirst[i] = 0, r->last[i] = INT64_MIN;
    r->cap = nc;
  }
  return id;
}

void calib__ranks_add(calib__ranks *r, int rep, int gpu, int worker, int64_t call) {
  if (r->skip <= 0) return;
  int id = ranks_worker(r, rep, gpu, worker, 1);
  if (call < r->last[id]) r->disorder = 1;
  else r->last[id] = call;
  int64_t *f = r->first[id];
  int n = r->nfirst[id];
  if (n == r->skip && call >= f[n - 1]) return; /* past the first calls (the usual case: calls in order) */
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (f[mid] < call) lo = mid + 1;
    else hi = mid;
  }
  if (lo < n && f[lo] == call) return;
  if (!f) f = r->first[id] = xmalloc((size_t)r->skip * sizeof *f);
  if (n == r->skip) n--; /* the largest leaves */
  memmove(f + lo + 1, f + lo, (size_t)(n - lo) * sizeof *f);
  f[lo] = call;
  r->nfirst[id] = n + 1;
}

int calib__ranks_kept(calib__ranks *r, int rep, int gpu, int worker, int64_t call) {
  if (r->skip <= 0) return 1;
  int id = ranks_worker(r, rep, gpu, worker, 0);
  /* A worker with no more than skip calls has them all left out. */
  return id >= 0 && r->nfirst[id] == r->skip && call > r->first[id][r->skip - 1];
}

void calib__ranks_free(calib__ranks *r) {
  for (size_t i = 0; i < r->cap; i++) free(r->first[i]);
  free(r->first);
  free(r->nfirst);
  free(r->last);
  strtab_free(&r->tab);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- steal */

/* Here, beside the ranks, as both are shared by every reader of spans in sim/calib*.c. */
double calib__steal_factor(double steal, double k) {
  return steal > 0 && steal < 1 && k > 0 ? pow(1 - steal, k) : 1;
}

/* ---------------------------------------------------------------- calib_model */

#define CALIB_REREAD 1 /* a worker's calls out of order: read again, with a first pass */

/* Amdahl's least squares over the kept calls of k partitions of a phase with a scaling
 * law, y = d at t threads (x = 1 / t), and the thread counts seen: the first, and whether
 * another came (then the calls of k get a law of their own, batch.serial). */
typedef struct kamdahl {
  double an, sx, sy, sxx, sxy;
  int thr0, multi;
} kamdahl;

/* What calib_model keeps of one template phase while it reads. The fit uses the kept
 * spans of the fewest partitions seen (kmin): when a smaller k appears, what was
 * gathered for the larger one is dropped. */
typedef struct phstate {
  int kmin, kmax, skipped;
  calib_acc acc;            /* durations / kmin (a phase with a scaling law: the last pass) */
  int nzero, nthr, seen[2]; /* thread counts: spans without one, distinct ones (up to 65) */
  int thr[65];
  double an, sx, sy, sxx, sxy; /* Amdahl's least squares: x = 1 / threads, y = d / kmin */
  double *ksum;             /* per k, the kept spans' durations summed, and counted */
  long *kcnt;
  int *kruns, *klast;       /* per k, the runs (files) that gave such calls; the last one + 1 */
  int kcap;
  kamdahl *kfit;            /* a scaling law: per k, Amdahl's sums of the calls of k (kfcap) */
  int kfcap;
  double kt, dt;            /* gpu phases: kernel time inside the kept spans, their length */
  double ct, cdt;           /* gpu phases: the kept spans' cpu_s and the length of those spans */
  long cn, cmiss;           /* gpu phases: kept spans with cpu_s, and without */
  double t1;                /* a scaling law: the fitted one-core time */
  int ready;                /* a scaling law: fitted, its durations wanted in the last pass */
} phstate;

/* A kept GPU phase span waiting for the kernels that may still overlap it. */
typedef struct pend {
  int phase;
  double t0, t1;
} pend;

/* One (rep, gpu) of the file being read: the union of its kernel records of the moment
 * (ascending, disjoint) and its pending spans. Records come in order of start, so once a
 * record starts at or after a span's end, no kernel still to come overlaps that span;
 * kernel intervals that end before every pending span and before the latest start are
 * dropped. */
typedef struct kgroup {
  int rep, gpu;
  double latest;   /* the latest start of the group's records so far */
  double dropped;  /* kernel intervals ending at or before this are gone */
  double done;     /* the latest end of a span already measured */
  ivl *u;
  size_t nu, cu;
  pend *p;
  size_t np, cp;
} kgroup;

typedef struct collect_ctx {
  const model *m;
  const char *path;
  ps_buf host, gpu, cpu; /* the spans headers' host, gpu and cpu, distinct values joined by "; " */
  calib__ranks *rk;      /* the file's */
  int online;            /* ranks found as the file is read, its calls being in order */
  phstate *ph;
  int last;              /* the last pass: the phases with a scaling law */
  long nkernels;         /* kernel records in every file so far */
  int file;
  double steal_k;        /* calib_read.steal_exponent */
  double *quiet;         /* per file: its cpu spans' factor (calib__steal_factor of its header) */
  strtab wtab;           /* the workers of every file, "file rep gpu worker", keys of the samples */
  int32_t (*wk)[4];      /* by key: file, rep, gpu, worker */
  int32_t last_w[4];     /* the worker of the last key, and the key */
  uint32_t last_key;
  strtab gtab;           /* the file's (rep, gpu) groups */
  kgroup *g;
  size_t ng;
  ps_err *e;
} collect_ctx;

static void add_distinct(ps_buf *b, const char *v) {
  if (!v || !*v) return;
  size_t n = strlen(v);
  for (const char *p = b->p; p && (p = strstr(p, v)); p += n)
    if ((p == b->p || p[-1] == ' ') && (p[n] == 0 || p[n] == ';')) return;
  if (b->len) ps_buf_append(b, "; ", 2);
  ps_buf_append(b, v, n);
}

static int collect_hdr(void *ctx, const span_header *h) {
  collect_ctx *c = ctx;
  if (h->rendezvous)
    return ps_fail(c->e, PS_EINPUT, "%s: measure --rendezvous made this run's workers meet before their GPU "
                   "phases, so its phase times are of that forced overlap: pass it as --overlap %s", c->path, c->path);
  c->quiet[c->file] = calib__steal_factor(spans_header_steal(h), c->steal_k);
  add_distinct(&c->host, h->host);
  add_distinct(&c->gpu, h->gpu);
  add_distinct(&c->cpu, h->cpu);
  return 0;
}

/* Sets key to value in the model's provenance (added at the end when new). */
void calib_set_provenance(model *m, const char *key, const char *value) {
  for (int i = 0; i < m->nprov; i++)
    if (!strcmp(m->prov_k[i], key)) {
      free(m->prov_v[i]);
      m->prov_v[i] = xstrdup(value);
      return;
    }
  m->prov_k = xrealloc(m->prov_k, (size_t)(m->nprov + 1) * sizeof *m->prov_k);
  m->prov_v = xrealloc(m->prov_v, (size_t)(m->nprov + 1) * sizeof *m->prov_v);
  m->prov_k[m->nprov] = xstrdup(key);
  m->prov_v[m->nprov++] = xstrdup(value);
}

static int rank_cb(void *ctx, const span_rec *r) {
  collect_ctx *c = ctx;
  if (r->kind == SPAN_PHASE && scn_phase_index(c->m, r->phase) >= 0)
    calib__ranks_add(c->rk, r->rep, r->gpu, r->worker, r->call);
  return 0;
}

/* The key of the span's worker: the old order of a phase's durations (by file, rep, gpu,
 * worker, then as read) is restored from it before a fit. */
static uint32_t worker_key(collect_ctx *c, const span_rec *r) {
  int32_t w[4] = {c->file, r->rep, r->gpu, r->worker};
  if (c->wtab.n && !memcmp(w, c->last_w, sizeof w)) return c->last_key;
  char key[64];
  snprintf(key, sizeof key, "%d %d %d %d", w[0], w[1], w[2], w[3]);
  size_t n = c->wtab.n, id = (size_t)strtab_id(&c->wtab, key, (size_t)INT_MAX);
  if (id == n) {
    c->wk = xrealloc(c->wk, (n + 1) * sizeof *c->wk);
    memcpy(c->wk[n], w, sizeof w);
  }
  memcpy(c->last_w, w, sizeof w);
  return c->last_key = (uint32_t)id;
}

typedef struct wkey {
  int32_t w[4];
  uint32_t key;
} wkey;

static int by_worker(const void *a, const void *b) {
  const wkey *x = a, *y = b;
  for (int i = 0; i < 4; i++)
    if (x->w[i] != y->w[i]) return x->w[i] < y->w[i] ? -1 : 1;
  return 0;
}

static kgroup *group_of(collect_ctx *c, int rep, int gpu) {
  if (c->ng && c->g[c->ng - 1].rep == rep && c->g[c->ng - 1].gpu == gpu) return &c->g[c->ng - 1];
  char key[32];
  snprintf(key, sizeof key, "%d %d", rep, gpu);
  size_t id = (size_t)strtab_id(&c->gtab, key, (size_t)INT_MAX);
  if (id == c->ng) {
    c->g = xrealloc(c->g, (c->ng + 1) * sizeof *c->g);
    c->g[c->ng++] = (kgroup){.rep = rep, .gpu = gpu, .latest = -INFINITY, .dropped = -INFINITY, .done = -INFINITY};
  }
  return &c->g[id];
}

/* Adds kernel interval v to the group's union (usually at its end). */
static void union_add(kgroup *g, ivl v) {
  size_t i = g->nu;
  while (i > 0 && g->u[i - 1].a > v.a) i--; /* records in order of start: i = nu */
  if (i > 0 && g->u[i - 1].b >= v.a) { /* joins the interval before */
    i--;
    if (v.b > g->u[i].b) g->u[i].b = v.b;
  } else {
    if (g->nu == g->cu) g->u = xrealloc(g->u, (g->cu = g->cu ? 2 * g->cu : 64) * sizeof *g->u);
    memmove(g->u + i + 1, g->u + i, (g->nu - i) * sizeof *g->u);
    g->u[i] = v;
    g->nu++;
  }
  size_t j = i + 1; /* it may now reach the ones after it */
  while (j < g->nu && g->u[j].a <= g->u[i].b) {
    if (g->u[j].b > g->u[i].b) g->u[i].b = g->u[j].b;
    j++;
  }
  memmove(g->u + i + 1, g->u + j, (g->nu - j) * sizeof *g->u);
  g->nu -= j - i - 1;
}

/* Measures the pending spans that no kernel still to come can overlap (all when flush),
 * then drops the kernel intervals no span needs. */
static void group_settle(collect_ctx *c, kgroup *g, int flush) {
  size_t k = 0;
  double lim = g->latest;
  for (size_t i = 0; i < g->np; i++) {
    pend *q = &g->p[i];
    if (flush || q->t1 <= g->latest) {
      c->ph[q->phase].kt += ivl_clip_len(g->u, g->nu, q->t0, q->t1);
      if (q->t1 > g->done) g->done = q->t1;
    } else {
      if (q->t0 < lim) lim = q->t0;
      g->p[k++] = *q;
    }
  }
  g->np = k;
  size_t d = 0;
  while (d < g->nu && g->u[d].b <= lim) d++;
  if (d > 0 && (d >= 64 || 2 * d >= g->nu)) {
    g->dropped = fmax(g->dropped, g->u[d - 1].b);
    memmove(g->u, g->u + d, (g->nu - d) * sizeof *g->u);
    g->nu -= d;
  }
}

static void groups_free(collect_ctx *c) {
  for (size_t i = 0; i < c->ng; i++) free(c->g[i].u), free(c->g[i].p);
  free(c->g);
  c->g = NULL;
  c->ng = 0;
  strtab_free(&c->gtab);
}

static void acc_reset(calib_acc *a) {
  calib_acc_free(a);
  calib_acc_init(a, calib_sample_cap());
}

/* Adds a kept span's duration d (the one-core time, for a phase with a scaling law) of k
 * partitions, from file `file`, to the sums of the batch multipliers. */
static void batch_add(phstate *s, int k, double d, int file) {
  if (k >= s->kcap) {
    int nc = s->kcap ? s->kcap : 4;
    while (nc <= k) nc *= 2;
    s->ksum = xrealloc(s->ksum, (size_t)nc * sizeof *s->ksum);
    s->kcnt = xrealloc(s->kcnt, (size_t)nc * sizeof *s->kcnt);
    s->kruns = xrealloc(s->kruns, (size_t)nc * sizeof *s->kruns);
    s->klast = xrealloc(s->klast, (size_t)nc * sizeof *s->klast);
    for (int i = s->kcap; i < nc; i++) s->ksum[i] = 0, s->kcnt[i] = 0, s->kruns[i] = 0, s->klast[i] = 0;
    s->kcap = nc;
  }
  s->ksum[k] += d;
  s->kcnt[k]++;
  if (s->klast[k] != file + 1) s->kruns[k]++, s->klast[k] = file + 1; /* files are read one after another */
}

/* Adds a kept call of k partitions, d seconds at t threads, to Amdahl's sums for k. */
static void kfit_add(phstate *s, int k, int t, double d) {
  if (k >= s->kfcap) {
    int nc = s->kfcap ? s->kfcap : 4;
    while (nc <= k) nc *= 2;
    s->kfit = xrealloc(s->kfit, (size_t)nc * sizeof *s->kfit);
    memset(s->kfit + s->kfcap, 0, (size_t)(nc - s->kfcap) * sizeof *s->kfit);
    s->kfcap = nc;
  }
  kamdahl *a = &s->kfit[k];
  double x = 1.0 / t;
  a->an++, a->sx += x, a->sy += d, a->sxx += x * x, a->sxy += x * d;
  if (!a->thr0) a->thr0 = t;
  else if (a->thr0 != t) a->multi = 1;
}

static int collect_cb(void *ctx, const span_rec *r) {
  collect_ctx *c = ctx;
  if (c->last) { /* the phases with a scaling law, their durations as one-core times */
    int p = r->kind == SPAN_PHASE ? scn_phase_index(c->m, r->phase) : -1;
    if (p < 0 || !c->ph[p].ready || !calib__ranks_kept(c->rk, r->rep, r->gpu, r->worker, r->call)) return 0;
    phstate *s = &c->ph[p];
    const phase *ph = &c->m->phases[p];
    int k = r->npartitions > 0 ? r->npartitions : 1;
    double d = (r->t1 - r->t0) * (ph->resource == RES_CPU ? c->quiet[c->file] : 1), sp = s->t1 * ph->serial, q = s->t1 - sp;
    if (r->threads > 0) d *= s->t1 / (sp + q / r->threads);
    batch_add(s, k, d, c->file);
    if (k == s->kmin) calib_acc_add(&s->acc, d / s->kmin, worker_key(c, r));
    return 0;
  }
  if (r->kind == SPAN_MEMCPY) return 0;
  kgroup *g = NULL;
  if (r->kind == SPAN_KERNEL || c->nkernels > 0) {
    g = group_of(c, r->rep, r->gpu);
    if (r->t0 > g->latest) g->latest = r->t0;
  }
  if (r->kind == SPAN_KERNEL) {
    if (r->t0 < g->done) {
      ps_fail(c->e, PS_EINPUT, "%s: a kernel record of replication %d, GPU %d starts at %.9f s, before the end (%.9f s) "
              "of a GPU phase span already measured: calibrate reads kernel records in order of start within each GPU, "
              "as measure writes them; sort the file by t0", c->path, r->rep, r->gpu, r->t0, g->done);
      return PS_EINPUT;
    }
    c->nkernels++;
    union_add(g, (ivl){r->t0, r->t1});
    group_settle(c, g, 0);
    return 0;
  }
  int p = scn_phase_index(c->m, r->phase);
  if (p < 0) { /* mutex spans and phases the template does not name */
    if (g) group_settle(c, g, 0);
    return 0;
  }
  phstate *s = &c->ph[p];
  const phase *ph = &c->m->phases[p];
  if (c->online) { /* every smaller call number of the worker seen before: its rank is known */
    calib__ranks_add(c->rk, r->rep, r->gpu, r->worker, r->call);
    if (c->rk->disorder) return CALIB_REREAD;
  }
  if (!calib__ranks_kept(c->rk, r->rep, r->gpu, r->worker, r->call)) {
    s->skipped++;
    if (g) group_settle(c, g, 0);
    return 0;
  }
  int k = r->npartitions > 0 ? r->npartitions : 1;
  double d = (r->t1 - r->t0) * (ph->resource == RES_CPU ? c->quiet[c->file] : 1);
  if (k > s->kmax) s->kmax = k;
  if (!s->kmin || k < s->kmin) { /* the fit starts again with the fewer partitions */
    s->kmin = k;
    acc_reset(&s->acc);
    s->nzero = s->nthr = 0;
    s->an = s->sx = s->sy = s->sxx = s->sxy = 0;
  }
  if (ph->law == SCALE_AMDAHL && r->threads > 0) kfit_add(s, k, r->threads, d);
  if (k == s->kmin) {
    if (r->threads == 0) s->nzero++;
    else {
      double x = 1.0 / r->threads, y = d / s->kmin;
      s->an++, s->sx += x, s->sy += y, s->sxx += x * x, s->sxy += x * y;
      int dup = 0;
      for (int i = 0; i < s->nthr && i < 65 && !dup; i++) dup = s->thr[i] == r->threads;
      if (!dup && s->nthr < 65) {
        if (s->nthr < 2) s->seen[s->nthr] = r->threads;
        s->thr[s->nthr++] = r->threads;
      }
    }
    if (ph->law != SCALE_AMDAHL) calib_acc_add(&s->acc, d / s->kmin, worker_key(c, r));
  }
  if (ph->law != SCALE_AMDAHL) batch_add(s, k, d, c->file);
  if (ph->resource == RES_GPU) {
    s->dt += d;
    if (r->cpu_s > 0) s->ct += r->cpu_s, s->cdt += d, s->cn++;
    else s->cmiss++;
    if (!g) { /* no kernel record yet: the first ones may still overlap it */
      g = group_of(c, r->rep, r->gpu);
      if (r->t0 > g->latest) g->latest = r->t0;
    }
    if (r->t0 < g->dropped) {
      ps_fail(c->e, PS_EINPUT, "%s: a span of phase %s (replication %d, GPU %d) starts at %.9f s, after kernel records "
              "up to %.9f s were read past it: calibrate reads spans in order of start within each GPU, as measure "
              "writes them; sort the file by t0", c->path, ph->name, r->rep, r->gpu, r->t0, g->dropped);
      return PS_EINPUT;
    }
    if (g->np == g->cp) g->p = xrealloc(g->p, (g->cp = g->cp ? 2 * g->cp : 16) * sizeof *g->p);
    g->p[g->np++] = (pend){p, r->t0, r->t1};
  }
  if (g) group_settle(c, g, 0);
  return 0;
}

/* Reads one file in pass `last` (0: everything but the scaling laws' fits; 1: those). */
static int collect_file(collect_ctx *c, int file, const char *path, int last) {
  c->file = file;
  c->path = path;
  c->last = last;
  int rc = spans_read(path, last ? NULL : collect_hdr, collect_cb, c, c->e);
  if (rc == PS_OK)
    for (size_t i = 0; i < c->ng; i++) group_settle(c, &c->g[i], 1);
  groups_free(c);
  return rc;
}

/* Amdahl's law by least squares over the observations y = d/k at t threads:
 * y = s + q / t, s >= 0 and q >= 0. Sets the serial share s / (s + q) and the one-core
 * time s + q. */
static void fit_amdahl(double n, double sx, double sy, double sxx, double sxy, double *serial, double *t1) {
  double den = n * sxx - sx * sx;
  double q = den > 0 ? (n * sxy - sx * sy) / den : 0, s = (sy - q * sx) / n;
  if (q < 0) { /* slower with more threads: no parallel part */
    q = 0;
    s = sy / n;
  }
  if (s < 0) { /* through the origin: all parallel */
    s = 0;
    q = sxx > 0 ? sxy / sxx : 0;
  }
  *t1 = s + q;
  *serial = *t1 > 0 ? s / *t1 : 1;
}

/* The checks of phase p once the files are read, and its scaling law; PS_OK or the
 * reason it cannot be fitted. */
static int phase_check(model *tmpl, phstate *s, int p, int nfiles, const char *const *files, int skip_calls,
                       calib_phase_report *rp, ps_err *e) {
  phase *ph = &tmpl->phases[p];
  rp->phase = ph->name;
  rp->skipped = s->skipped;
  rp->busy = -1;
  if (s->kmax == 0) {
    if (nfiles == 1)
      return ps_fail(e, PS_EINPUT, "%s: phase %s: no spans of this phase (after skipping %d warm-up calls)", files[0],
                     ph->name, skip_calls);
    return ps_fail(e, PS_EINPUT, "phase %s: no spans of this phase in the %d spans files (after skipping %d warm-up calls)",
                   ph->name, nfiles, skip_calls);
  }
  /* The scaling law: a cpu phase whose template has one is fitted from two or more
   * thread counts; one without must not have run at several. */
  rp->nthreads = s->nthr;
  if (ph->law == SCALE_TABLE)
    return ps_fail(e, PS_EINPUT, "phase %s: calibrate fits Amdahl's law; the template's scaling: table is for a law you "
                   "measured yourself (write scaling: {serial: 0} in the template to have calibrate fit one)", ph->name);
  if (ph->law == SCALE_AMDAHL) {
    if (s->nzero > 0)
      return ps_fail(e, PS_EINPUT, "phase %s: %d span%s without a thread count (\"threads\"): a scaling law needs the "
                     "threads each span ran with; record the runs again with this provesim's measure", ph->name, s->nzero,
                     s->nzero == 1 ? "" : "s");
    if (s->nthr < 2)
      return ps_fail(e, PS_EINPUT, "phase %s: every span ran at %d threads, and one thread count cannot identify "
                     "how the phase scales; add a run at another count (e.g. measure --set "
                     "system.threads.per_worker=%d)", ph->name, s->seen[0], s->seen[0] > 2 ? s->seen[0] / 2 : s->seen[0] * 4);
    fit_amdahl(s->an, s->sx, s->sy, s->sxx, s->sxy, &ph->serial, &s->t1);
    rp->serial = ph->serial;
    s->ready = 1; /* from here on every duration is the one-core time it stands for */
  } else if (s->nthr > 1) {
    return ps_fail(e, PS_EINPUT, "phase %s ran at %d different thread counts (%d and %d, ...) but the template gives it "
                   "no scaling law: say  threads: all  and  scaling: {serial: 0}  in the template to fit one, or "
                   "calibrate from runs at one thread count", ph->name, s->nthr, s->seen[0], s->seen[1]);
  }
  return PS_OK;
}

/* Phase p's fit, busy share and batch multipliers into the template. */
static int phase_fit(model *tmpl, phstate *s, int p, calib_family want, long nkernels, int fit_host,
                     calib_phase_report *rp, ps_err *e) {
  phase *ph = &tmpl->phases[p];
  calib_fit_result fr;
  if (calib_fit_acc(&s->acc, want, &fr, e) != PS_OK) {
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%s", e->msg);
    return ps_fail(e, PS_EINPUT, "phase %s: %s", ph->name, msg);
  }
  rp->fit = fr;
  /* A GPU phase's busy share: kernel time inside its spans over their length. */
  if (ph->resource == RES_GPU && nkernels > 0 && s->dt > 0 && s->kt > 0) {
    double f = s->kt / s->dt;
    ph->busy = f > 0.9995 ? 1 : f;
    rp->busy = ph->busy;
  }
  /* A GPU phase's host threads: the CPU time its spans used (cpu_s, measure's) over their
   * length, when every kept span has it; the template's otherwise (rp->host_spans says
   * how many had it). */
  rp->host_threads = -1;
  rp->host_spans = s->cn, rp->host_missing = s->cmiss;
  if (ph->resource == RES_GPU && fit_host && s->cn > 0 && s->cmiss == 0 && s->cdt > 0) {
    double h = s->ct / s->cdt;
    if (h > 64) h = 64; /* the model's limit */
    ph->host_threads = h;
    rp->host_threads = h;
  }
  dist_free(&ph->time);
  dist_copy(&ph->time, &fr.d);
  if (ph->has_fixed) dist_free(&ph->fixed);
  ph->has_fixed = 0; /* the per-call part is inside the fitted time and the multipliers */
  free(ph->scale);
  free(ph->bserial);
  ph->scale = NULL;
  ph->bserial = NULL;
  ph->nscale = 0;
  /* Batch multipliers when calls of k = 1, 2, ..., K partitions were all seen. */
  if (s->kmin == 1 && s->kmax > 1) {
    int K = 1;
    while (K < s->kmax && K + 1 < s->kcap && s->kcnt[K + 1] > 0) K++;
    if (K > 1) {
      ph->scale = xmalloc((size_t)K * sizeof *ph->scale);
      double m1 = s->ksum[1] / (double)s->kcnt[1];
      for (int k = 1; k <= K; k++) ph->scale[k - 1] = (s->ksum[k] / (double)s->kcnt[k]) / m1;
      ph->nscale = K;
      for (int k = 2; k <= K; k++)
        if (!rp->batch_runs || s->kruns[k] < rp->batch_runs) rp->batch_runs = s->kruns[k], rp->batch_runs_k = k;
      /* Calls of k partitions seen at two or more thread counts get a law of their own:
       * their one-core time against one partition's and their serial share. */
      int own = 0;
      for (int k = 2; k <= K; k++) own |= k < s->kfcap && s->kfit[k].multi;
      if (ph->law == SCALE_AMDAHL && own) {
        ph->bserial = xmalloc((size_t)K * sizeof *ph->bserial);
        ph->bserial[0] = ph->serial;
        for (int k = 2; k <= K; k++) {
          const kamdahl *a = k < s->kfcap ? &s->kfit[k] : NULL;
          ph->bserial[k - 1] = ph->serial;
          if (a && a->multi) {
            double t1k;
            fit_amdahl(a->an, a->sx, a->sy, a->sxx, a->sxy, &ph->bserial[k - 1], &t1k);
            ph->scale[k - 1] = t1k / s->t1;
          }
        }
      }
      for (int k = 2; k <= K && ph->law == SCALE_AMDAHL; k++)
        if (k < s->kfcap && s->kfit[k].thr0 && !s->kfit[k].multi && rp->one_thr_k == 0)
          rp->one_thr_k = k, rp->one_thr_t = s->kfit[k].thr0;
    }
    rp->nscale = ph->nscale;
  }
  return PS_OK;
}

/* calib_model, with the warm-up calls ranked as the files are read (online: a worker's
 * calls must come in order of number, else CALIB_REREAD and nothing changed) or in a
 * first pass over each file. */
static int model_read(model *tmpl, const char *const *files, int nfiles, calib_family want, const calib_read *rd,
                      int online, calib_phase_report **reports, ps_err *e) {
  collect_ctx c = {.m = tmpl, .e = e, .online = online, .steal_k = rd->steal_exponent};
  const int skip_calls = rd->skip_calls;
  int np = tmpl->nphases, rc = PS_OK;
  c.ph = xcalloc((size_t)np, sizeof *c.ph);
  for (int p = 0; p < np; p++) calib_acc_init(&c.ph[p].acc, calib_sample_cap());
  calib__ranks *rk = xcalloc((size_t)nfiles, sizeof *rk);
  c.quiet = xmalloc((size_t)(nfiles > 0 ? nfiles : 1) * sizeof *c.quiet);
  for (int f = 0; f < nfiles; f++) c.quiet[f] = 1;
  calib_phase_report *rep = xcalloc((size_t)np, sizeof *rep);
  for (int f = 0; f < nfiles && rc == PS_OK; f++) {
    rk[f].skip = skip_calls;
    c.rk = &rk[f];
    if (skip_calls > 0 && !online) rc = spans_read(files[f], NULL, rank_cb, &c, e);
    if (rc == PS_OK) rc = collect_file(&c, f, files[f], 0);
  }
  if (rc != PS_OK) goto out;
  if (c.gpu.len) calib_set_provenance(tmpl, "gpu", c.gpu.p);
  if (c.host.len) calib_set_provenance(tmpl, "host", c.host.p);
  if (c.cpu.len) calib_set_provenance(tmpl, "cpu", c.cpu.p);
  /* The checks in phase order up to the first that fails (its message kept), then the fits
   * of the phases before it: the first failure in phase order is the one reported. */
  ps_err check = {0};
  int pf = np, laws = 0;
  for (int p = 0; p < np && pf == np; p++)
    if (phase_check(tmpl, &c.ph[p], p, nfiles, files, skip_calls, &rep[p], &check) != PS_OK) pf = p;
    else laws += c.ph[p].ready;
  for (int f = 0; f < nfiles && laws && rc == PS_OK; f++) {
    c.rk = &rk[f];
    rc = collect_file(&c, f, files[f], 1);
  }
  /* Each sample back in the order of the workers' numbers, as the fits always took it. */
  uint32_t nw = (uint32_t)c.wtab.n, *rank = xmalloc((nw + 1) * sizeof *rank);
  wkey *order = xmalloc((nw + 1) * sizeof *order);
  for (uint32_t i = 0; i < nw; i++) order[i] = (wkey){{c.wk[i][0], c.wk[i][1], c.wk[i][2], c.wk[i][3]}, i};
  if (nw) qsort(order, nw, sizeof *order, by_worker);
  for (uint32_t i = 0; i < nw; i++) rank[order[i].key] = i;
  for (int p = 0; p < pf && rc == PS_OK; p++) calib_acc_order(&c.ph[p].acc, rank, nw);
  free(order), free(rank);
  for (int p = 0; p < pf && rc == PS_OK; p++) rc = phase_fit(tmpl, &c.ph[p], p, want, c.nkernels, !rd->template_host_threads, &rep[p], e);
  if (rc == PS_OK && pf < np) {
    if (e) *e = check;
    rc = PS_EINPUT;
  }
  if (rc == PS_OK) { /* a phase whose durations passed the sample cap: where it shows */
    ps_buf v = {0};
    for (int p = 0; p < np; p++)
      if (rep[p].fit.nsample < rep[p].fit.n && rep[p].fit.family != CALIB_CONST)
        ps_buf_printf(&v, "%sphase %s: %s from a reservoir of %zu of its %zu durations (fixed seed)", v.len ? "; " : "",
                      rep[p].phase, want == CALIB_EMPIRICAL ? "empirical samples" : "KS distance", rep[p].fit.nsample,
                      rep[p].fit.n);
    if (v.len) calib_set_provenance(tmpl, "sample", v.p);
    ps_buf_free(&v);
  }
out:
  for (int p = 0; p < np; p++) {
    calib_acc_free(&c.ph[p].acc);
    free(c.ph[p].ksum);
    free(c.ph[p].kcnt);
    free(c.ph[p].kruns);
    free(c.ph[p].klast);
    free(c.ph[p].kfit);
  }
  free(c.ph);
  free(c.quiet);
  for (int f = 0; f < nfiles; f++) calib__ranks_free(&rk[f]);
  free(rk);
  groups_free(&c);
  strtab_free(&c.wtab);
  free(c.wk);
  ps_buf_free(&c.host);
  ps_buf_free(&c.gpu);
  ps_buf_free(&c.cpu);
  if (rc != PS_OK) {
    for (int p = 0; p < np; p++) dist_free(&rep[p].fit.d);
    free(rep);
    return rc;
  }
  *reports = rep;
  return PS_OK;
}

int calib_model(model *tmpl, const char *const *files, int nfiles, calib_family want, const calib_read *rd,
                calib_phase_report **reports, ps_err *e) {
  int rc = model_read(tmpl, files, nfiles, want, rd, rd->skip_calls > 0, reports, e);
  if (rc == CALIB_REREAD) rc = model_read(tmpl, files, nfiles, want, rd, 0, reports, e);
  return rc;
}

/* ---------------------------------------------------------------- YAML */

/* A YAML double-quoted scalar: every character kept, with ", \ and control characters
 * escaped (YAML 1.1, section 5.7), so it reads back as the same string. */
static void yaml_str(ps_buf *b, const char *s) {
  ps_buf_append(b, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      ps_buf_append(b, "\\", 1);
      ps_buf_append(b, s, 1);
    } else if (c == '\n') {
      ps_buf_append(b, "\\n", 2);
    } else if (c == '\t') {
      ps_buf_append(b, "\\t", 2);
    } else if (c < 0x20 || c == 0x7f) {
      ps_buf_printf(b, "\\x%02x", c);
    } else {
      ps_buf_append(b, s, 1);
    }
  }
  ps_buf_append(b, "\"", 1);
}

/* A name: plain when it is a word that YAML reads back as the same string (letters,
 * digits, '_' and '-', starting with a letter or '_', not a boolean or null), quoted
 * otherwise. */
static void yaml_name(ps_buf *b, const char *s) {
  static const char *const special[] = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", NULL};
  int plain = isalpha((unsigned char)s[0]) || s[0] == '_';
  for (const char *p = s; *p && plain; p++) plain = isalnum((unsigned char)*p) || *p == '_' || *p == '-';
  for (int i = 0; plain && special[i]; i++) plain = strcasecmp(s, special[i]) != 0;
  if (plain)
    ps_buf_append(b, s, strlen(s));
  else
    yaml_str(b, s);
}

static void yaml_dist(ps_buf *b, const dist *d) {
  switch (d->kind) {
  case DIST_CONST: ps_buf_printf(b, "{dist: const, value: %.10g}", d->a); break;
  case DIST_UNIFORM: ps_buf_printf(b, "{dist: uniform, min: %.10g, max: %.10g}", d->a, d->b); break;
  case DIST_NORMAL: ps_buf_printf(b, "{dist: normal, mean: %.10g, sd: %.10g}", d->a, d->b); break;
  case DIST_LOGNORMAL: ps_buf_printf(b, "{dist: lognormal, mu: %.10g, sigma: %.10g}", d->a, d->b); break;
  case DIST_GAMMA: ps_buf_printf(b, "{dist: gamma, mean: %.10g, cv: %.10g}", d->a * d->b, 1 / sqrt(d->a)); break;
  case DIST_EXPONENTIAL: ps_buf_printf(b, "{dist: exponential, mean: %.10g}", d->a); break;
  case DIST_EMPIRICAL:
    ps_buf_printf(b, "{dist: empirical, samples: [");
    for (size_t i = 0; i < d->n; i++) ps_buf_printf(b, i ? ", %.9g" : "%.9g", d->samples[i]);
    ps_buf_printf(b, "]}");
    break;
  }
}

void calib_model_yaml(ps_buf *b, const model *m) {
  static const char *res[] = {"cpu", "gpu", "pcie", "none"};
  ps_buf_printf(b, "model: ");
  yaml_name(b, m->name);
  ps_buf_printf(b, "\n");
  if (m->source) {
    ps_buf_printf(b, "source: ");
    yaml_str(b, m->source);
    ps_buf_printf(b, "\n");
  }
  if (m->nprov > 0) {
    ps_buf_printf(b, "provenance:\n");
    for (int i = 0; i < m->nprov; i++) {
      ps_buf_printf(b, "  ");
      yaml_name(b, m->prov_k[i]);
      ps_buf_printf(b, ": ");
      yaml_str(b, m->prov_v[i]);
      ps_buf_printf(b, "\n");
    }
  }
  if (m->gpu_overlap && m->has_first)
    ps_buf_printf(b, "gpu_overlap: {interference: %.4f, first: %.4f}\n", m->interference, m->interference_first);
  else if (m->gpu_overlap)
    ps_buf_printf(b, "gpu_overlap: {interference: %.4f}\n", m->interference);
  if (m->pair_rate) { /* gpu_pairs: {P: {Q: r, ...}, ...}, the phases in model order */
    const char *sep = "gpu_pairs: {";
    for (int p = 0; p < m->nphases; p++) {
      const char *in = "{";
      for (int q = 0; q < m->nphases; q++) {
        double r = m->pair_rate[p * m->nphases + q];
        if (r <= 0) continue;
        if (*in == '{') {
          ps_buf_printf(b, "%s", sep);
          yaml_name(b, m->phases[p].name);
          ps_buf_printf(b, ": ");
          sep = ", ";
        }
        ps_buf_printf(b, "%s", in);
        yaml_name(b, m->phases[q].name);
        ps_buf_printf(b, ": %.4f", r);
        in = ", ";
      }
      if (*in == ',') ps_buf_printf(b, "}");
    }
    if (*sep == ',') ps_buf_printf(b, "}\n");
  }
  if (m->cpu_contention > 0) ps_buf_printf(b, "cpu_contention: %.4f\n", m->cpu_contention);
  if (m->host_speed_sd > 0) ps_buf_printf(b, "host_speed: {sd: %.4f}\n", m->host_speed_sd);
  if (m->mutex_handover_s > 0)
    ps_buf_printf(b, "mutex_overhead: {acquire: %.4g, release: %.4g, handover: %.4g}\n", m->mutex_acquire_s,
                  m->mutex_release_s, m->mutex_handover_s);
  else if (m->mutex_acquire_s > 0 || m->mutex_release_s > 0)
    ps_buf_printf(b, "mutex_overhead: {acquire: %.4g, release: %.4g}\n", m->mutex_acquire_s, m->mutex_release_s);
  if (m->has_gpu_mem) /* the template's, as given: calibrate measures time, not memory */
    ps_buf_printf(b, "gpu_memory: {shared_gib: %.17g, per_worker_gib: %.17g, per_partition_gib: %.17g}\n",
                  m->gpu_shared_gib, m->gpu_worker_gib, m->gpu_part_gib);
  ps_buf_printf(b, "phases:\n");
  for (int p = 0; p < m->nphases; p++) {
    const phase *ph = &m->phases[p];
    ps_buf_printf(b, "  - name: ");
    yaml_name(b, ph->name);
    ps_buf_printf(b, "\n    resource: %s\n", res[ph->resource]);
    if (ph->resource == RES_CPU && ph->threads_all) ps_buf_printf(b, "    threads: all\n");
    else if (ph->resource == RES_CPU) ps_buf_printf(b, "    threads: %d\n", ph->threads);
    if (ph->law == SCALE_AMDAHL) ps_buf_printf(b, "    scaling: {serial: %.6g}\n", ph->serial);
    if (ph->law == SCALE_TABLE) {
      ps_buf_printf(b, "    scaling: {table: {threads: [");
      for (int k = 0; k < ph->ntab; k++) ps_buf_printf(b, k ? ", %.0f" : "%.0f", ph->tab_k[k]);
      ps_buf_printf(b, "], speedup: [");
      for (int k = 0; k < ph->ntab; k++) ps_buf_printf(b, k ? ", %.6g" : "%.6g", ph->tab_speedup[k]);
      ps_buf_printf(b, "]}}\n");
    }
    ps_buf_printf(b, "    time: ");
    yaml_dist(b, &ph->time);
    ps_buf_printf(b, "\n");
    if (ph->has_fixed) {
      ps_buf_printf(b, "    fixed: ");
      yaml_dist(b, &ph->fixed);
      ps_buf_printf(b, "\n");
    }
    if (ph->nscale > 0) {
      ps_buf_printf(b, "    batch: {scale: [");
      for (int k = 0; k < ph->nscale; k++) ps_buf_printf(b, k ? ", %.6g" : "%.6g", ph->scale[k]);
      if (ph->bserial) {
        ps_buf_printf(b, "], serial: [");
        for (int k = 0; k < ph->nscale; k++) ps_buf_printf(b, k ? ", %.6g" : "%.6g", ph->bserial[k]);
      }
      ps_buf_printf(b, "]}\n");
    }
    ps_buf_printf(b, "    after: [");
    for (int i = 0; i < ph->nafter; i++) {
      if (i) ps_buf_printf(b, ", ");
      yaml_name(b, m->phases[ph->after[i]].name);
    }
    ps_buf_printf(b, "]\n");
    if (ph->host_mem_gib > 0) ps_buf_printf(b, "    host_mem_gib: %.6g\n", ph->host_mem_gib);
    if (ph->resource == RES_GPU && ph->busy < 1) ps_buf_printf(b, "    busy: %.4f\n", ph->busy);
    if (ph->host_threads > 0) ps_buf_printf(b, "    host_threads: %.6g\n", ph->host_threads);
    if (ph->mode_share > 0) ps_buf_printf(b, "    run_mode: {share: %.4f, scale: %.4f}\n", ph->mode_share, ph->mode_scale);
  }
  if (m->nscopes > 0) {
    ps_buf_printf(b, "scopes:\n");
    for (int i = 0; i < m->nscopes; i++) {
      ps_buf_printf(b, "  ");
      yaml_name(b, m->scopes[i].name);
      ps_buf_printf(b, ": {from: ");
      yaml_name(b, m->phases[m->scopes[i].from].name);
      ps_buf_printf(b, ", to: ");
      yaml_name(b, m->phases[m->scopes[i].to].name);
      ps_buf_printf(b, "}\n");
    }
  }
}
