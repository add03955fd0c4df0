/* Implementation of sim/calib.h. Maximum-likelihood fits in closed form (normal,
 * lognormal, exponential) or by Newton's method on the shape (gamma, started from
 * Minka's approximation); log-densities are written out rather than taken as log(pdf) so
 * that large samples do not underflow. */
#include "calib.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_psi.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ivl.h"
#include "spans.h"
#include "scn.h"
#include "window.h"

static const char *family_names[] = {"auto",        "const",     "normal",  "lognormal",
                                     "gamma",       "exponential", "empirical", "uniform"};

const char *calib_family_name(calib_family f) {
  return (unsigned)f < sizeof family_names / sizeof family_names[0] ? family_names[f] : "?";
}

int calib_family_parse(const char *s) {
  for (int i = 0; i < (int)(sizeof family_names / sizeof family_names[0]); i++)
    if (!strcmp(s, family_names[i])) return i;
  return -1;
}

static int dcmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Parameters of each candidate, kept to compute the KS distance of the winner. */
typedef struct fitpar {
  double m, sd;        /* normal */
  double mu, s;        /* lognormal */
  double k, theta;     /* gamma */
  double em;           /* exponential mean */
  double lo, hi;       /* uniform */
} fitpar;

static double cdf(calib_family f, const fitpar *p, double x) {
  switch (f) {
  case CALIB_NORMAL: return gsl_cdf_gaussian_P(x - p->m, p->sd);
  case CALIB_LOGNORMAL: return x > 0 ? gsl_cdf_lognormal_P(x, p->mu, p->s) : 0;
  case CALIB_GAMMA: return gsl_cdf_gamma_P(x, p->k, p->theta);
  case CALIB_EXPONENTIAL: return gsl_cdf_exponential_P(x, p->em);
  case CALIB_UNIFORM: return x <= p->lo ? 0 : x >= p->hi ? 1 : (x - p->lo) / (p->hi - p->lo);
  default: return NAN;
  }
}

int calib_fit(const double *x, size_t n, calib_family want, calib_fit_result *out, ps_err *e) {
  dist_gsl_init();
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 8; i++) out->loglik[i] = NAN;
  if (n == 0) return ps_fail(e, PS_EINPUT, "no samples to fit");
  double sum = 0, minx = INFINITY, maxx = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]) || x[i] < 0) return ps_fail(e, PS_EINPUT, "sample %zu is %g: expected seconds >= 0", i, x[i]);
    sum += x[i];
    if (x[i] < minx) minx = x[i];
    if (x[i] > maxx) maxx = x[i];
  }
  double mean = sum / (double)n, ss = 0;
  for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
  double sd_mle = sqrt(ss / (double)n), sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
  out->n = n;
  out->mean = mean;
  out->cv = mean > 0 ? sd / mean : 0;
  const char *why = NULL;

  int constant = n == 1 || sd_mle <= 1e-9 * fmax(mean, 1e-12);
  if (want == CALIB_CONST || (want == CALIB_AUTO && constant)) {
    out->family = CALIB_CONST;
    return dist_const(&out->d, mean, &why) ? ps_fail(e, PS_EINPUT, "const fit: expected %s", why) : PS_OK;
  }
  if (want == CALIB_EMPIRICAL) {
    double *cp = xmalloc(n * sizeof *cp);
    memcpy(cp, x, n * sizeof *cp);
    out->family = CALIB_EMPIRICAL;
    return dist_empirical(&out->d, cp, n, &why) ? ps_fail(e, PS_EINPUT, "empirical fit: expected %s", why) : PS_OK;
  }
  if (constant) return ps_fail(e, PS_EINPUT, "%zu samples all equal %g: only a const distribution fits", n, mean);

  fitpar p = {.m = mean, .sd = sd_mle, .em = mean, .lo = minx, .hi = maxx};
  /* uniform: the MLE is the sample's range */
  out->loglik[CALIB_UNIFORM] = -(double)n * log(maxx - minx);
  const double L2PI = log(2 * M_PI);
  /* normal */
  double ll = 0;
  for (size_t i = 0; i < n; i++) ll += -0.5 * L2PI - log(p.sd) - (x[i] - p.m) * (x[i] - p.m) / (2 * p.sd * p.sd);
  out->loglik[CALIB_NORMAL] = ll;
  /* exponential */
  if (mean > 0) out->loglik[CALIB_EXPONENTIAL] = -(double)n * log(mean) - sum / mean;
  if (minx > 0) {
    /* lognormal */
    double sl = 0, sl2 = 0;
    for (size_t i = 0; i < n; i++) sl += log(x[i]);
    p.mu = sl / (double)n;
    for (size_t i = 0; i < n; i++) sl2 += (log(x[i]) - p.mu) * (log(x[i]) - p.mu);
    p.s = sqrt(sl2 / (double)n);
    if (p.s > 0) {
      ll = 0;
      for (size_t i = 0; i < n; i++) {
        double lx = log(x[i]);
        ll += -lx - log(p.s) - 0.5 * L2PI - (lx - p.mu) * (lx - p.mu) / (2 * p.s * p.s);
      }
      out->loglik[CALIB_LOGNORMAL] = ll;
    }
    /* gamma: s = ln(mean) - mean(ln x) > 0 by Jensen. */
    double s = log(mean) - p.mu;
    if (s > 0) {
      double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
      for (int it = 0; it < 20; it++) {
        double f = log(k) - gsl_sf_psi(k) - s, df = 1 / k - gsl_sf_psi_1(k);
        double nk = k - f / df;
        if (!(nk > 0)) nk = k / 2;
        if (fabs(nk - k) < 1e-12 * k) {
          k = nk;
          break;
        }
        k = nk;
      }
      p.k = k;
      p.theta = mean / k;
      ll = 0;
      double lg = lgamma(k), lt = log(p.theta);
      for (size_t i = 0; i < n; i++) ll += (k - 1) * log(x[i]) - x[i] / p.theta - lg - k * lt;
      out->loglik[CALIB_GAMMA] = ll;
    }
  }

  calib_family best = CALIB_AUTO;
  if (want != CALIB_AUTO) {
    if (!isfinite(out->loglik[want]))
      return ps_fail(e, PS_EINPUT, "a %s distribution cannot fit these samples%s", calib_family_name(want),
                     minx <= 0 ? " (some durations are 0)" : "");
    best = want;
  } else {
    double best_aic = INFINITY;
    for (int f = CALIB_NORMAL; f <= CALIB_UNIFORM; f++) {
      if (f == CALIB_EMPIRICAL || !isfinite(out->loglik[f])) continue;
      double aic = 2.0 * (f == CALIB_EXPONENTIAL ? 1 : 2) - 2 * out->loglik[f];
      if (aic < best_aic) {
        best_aic = aic;
        best = (calib_family)f;
      }
    }
  }
  out->family = best;
  int rc = 0;
  switch (best) {
  case CALIB_NORMAL: rc = dist_normal(&out->d, p.m, p.sd, &why); break;
  case CALIB_LOGNORMAL: rc = dist_lognormal_mu_sigma(&out->d, p.mu, p.s, &why); break;
  case CALIB_GAMMA: rc = dist_gamma_mean_cv(&out->d, p.k * p.theta, 1 / sqrt(p.k), &why); break;
  case CALIB_EXPONENTIAL: rc = dist_exponential(&out->d, p.em, &why); break;
  case CALIB_UNIFORM: rc = dist_uniform(&out->d, p.lo, p.hi, &why); break;
  default: PS_ASSERT(0);
  }
  if (rc) return ps_fail(e, PS_EINPUT, "%s fit: expected %s", calib_family_name(best), why);
  /* Kolmogorov-Smirnov distance of the chosen fit. */
  double *srt = xmalloc(n * sizeof *srt);
  memcpy(srt, x, n * sizeof *srt);
  qsort(srt, n, sizeof *srt, dcmp);
  double D = 0;
  for (size_t i = 0; i < n; i++) {
    double F = cdf(best, &p, srt[i]);
    D = fmax(D, fmax((double)(i + 1) / (double)n - F, F - (double)i / (double)n));
  }
  free(srt);
  out->ks = D;
  return PS_OK;
}

/* ---------------------------------------------------------------- calib_model */

typedef struct obs {
  int file, rep, gpu, worker;
  int64_t call;
  int phase; /* index in the template */
  int k;
  int thr;  /* threads the phase ran with; 0 = not recorded */
  double d, t0;
  int rank; /* call's rank within its (file, rep, gpu, worker) */
} obs;

/* A kernel record: which run and GPU it belongs to, and its interval. */
typedef struct kspan {
  int file, rep, gpu;
  ivl v;
} kspan;

typedef struct collect_ctx {
  const model *m;
  ps_buf host, gpu, cpu; /* the spans headers' host, gpu and cpu, distinct values joined by "; " */
  int file;
  obs *o;
  size_t n, cap;
  kspan *k;
  size_t nk, capk;
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

static int collect_cb(void *ctx, const span_rec *r) {
  collect_ctx *c = ctx;
  if (r->kind == SPAN_KERNEL) {
    if (c->nk == c->capk) {
      c->capk = c->capk ? 2 * c->capk : 1024;
      c->k = xrealloc(c->k, c->capk * sizeof *c->k);
    }
    c->k[c->nk++] = (kspan){c->file, r->rep, r->gpu, {r->t0, r->t1}};
    return 0;
  }
  if (r->kind != SPAN_PHASE) return 0;
  int p = scn_phase_index(c->m, r->phase);
  if (p < 0) return 0; /* mutex spans and phases the template does not name */
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 1024;
    c->o = xrealloc(c->o, c->cap * sizeof *c->o);
  }
  c->o[c->n++] = (obs){.file = c->file, .rep = r->rep, .gpu = r->gpu, .worker = r->worker, .call = r->call,
                       .phase = p, .k = r->npartitions > 0 ? r->npartitions : 1, .thr = r->threads,
                       .d = r->t1 - r->t0,
                       .t0 = r->t0};
  return 0;
}

static int kspan_cmp(const void *a, const void *b) {
  const kspan *x = a, *y = b;
  if (x->file != y->file) return x->file < y->file ? -1 : 1;
  if (x->rep != y->rep) return x->rep < y->rep ? -1 : 1;
  if (x->gpu != y->gpu) return x->gpu < y->gpu ? -1 : 1;
  return (x->v.a > y->v.a) - (x->v.a < y->v.a);
}

/* Sorts the kernel records by (file, rep, gpu) and merges each group's intervals in
 * place; returns the new count (groups stay contiguous and in order). */
static size_t kspan_merge(kspan *k, size_t n) {
  if (n == 0) return 0; /* k may be NULL */
  qsort(k, n, sizeof *k, kspan_cmp);
  size_t out = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && k[j].file == k[i].file && k[j].rep == k[i].rep && k[j].gpu == k[i].gpu) j++;
    ivl *v = xmalloc((j - i) * sizeof *v);
    for (size_t q = i; q < j; q++) v[q - i] = k[q].v;
    size_t m = ivl_merge(v, j - i);
    for (size_t q = 0; q < m; q++) k[out + q] = (kspan){k[i].file, k[i].rep, k[i].gpu, v[q]};
    out += m;
    free(v);
    i = j;
  }
  return out;
}

/* Kernel time of (file, rep, gpu) inside [t0, t1], from merged records. */
static double kspan_busy(const kspan *k, size_t n, int file, int rep, int gpu, double t0, double t1) {
  size_t lo = 0, hi = n;
  while (lo < hi) { /* first record of the group */
    size_t mid = (lo + hi) / 2;
    const kspan *x = &k[mid];
    int less = x->file != file ? x->file < file : x->rep != rep ? x->rep < rep : x->gpu < gpu;
    if (less) lo = mid + 1;
    else hi = mid;
  }
  double sum = 0;
  for (size_t i = lo; i < n && k[i].file == file && k[i].rep == rep && k[i].gpu == gpu && k[i].v.a < t1; i++) {
    double a = k[i].v.a > t0 ? k[i].v.a : t0, b = k[i].v.b < t1 ? k[i].v.b : t1;
    if (b > a) sum += b - a;
  }
  return sum;
}

static int obs_by_worker_call(const void *a, const void *b) {
  const obs *x = a, *y = b;
#define CMP(f) \
  if (x->f != y->f) return x->f < y->f ? -1 : 1;
  CMP(file) CMP(rep) CMP(gpu) CMP(worker) CMP(call)
#undef CMP
  return 0;
}

/* The thread counts phase p's observations ran with (kept, one-partition-size calls of
 * size kmin): how many distinct ones, and the first two, for messages. */
static int thread_counts(const collect_ctx *c, int p, int skip_calls, int kmin, int *nzero, int seen[2]) {
  int n = 0;
  *nzero = 0;
  int *v = xmalloc((c->n + 1) * sizeof *v);
  size_t nv = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->o[i].phase == p && c->o[i].rank >= skip_calls && c->o[i].k == kmin) {
      if (c->o[i].thr == 0) (*nzero)++;
      else v[nv++] = c->o[i].thr;
    }
  for (size_t i = 0; i < nv; i++) {
    int dup = 0;
    for (size_t j = 0; j < i && !dup; j++) dup = v[j] == v[i];
    if (!dup) {
      if (n < 2) seen[n] = v[i];
      n++;
    }
    if (n > 64) break; /* enough to know it is more than one */
  }
  free(v);
  return n;
}

/* Amdahl's law by least squares over the observations y = d/k at t threads:
 * y = s + q / t, s >= 0 and q >= 0. Sets the serial share s / (s + q) and the one-core
 * time s + q. */
static void fit_amdahl(const collect_ctx *c, int p, int skip_calls, int kmin, double *serial, double *t1) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < c->n; i++) {
    const obs *o = &c->o[i];
    if (o->phase != p || o->rank < skip_calls || o->k != kmin || o->thr == 0) continue;
    double x = 1.0 / o->thr, y = o->d / kmin;
    n++, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
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

int calib_model(model *tmpl, const char *const *files, int nfiles, calib_family want, int skip_calls,
                calib_phase_report **reports, ps_err *e) {
  collect_ctx c = {.m = tmpl};
  for (int f = 0; f < nfiles; f++) {
    c.file = f;
    int rc = spans_read(files[f], collect_hdr, collect_cb, &c, e);
    if (rc != PS_OK) {
      free(c.o);
      free(c.k);
      ps_buf_free(&c.host);
      ps_buf_free(&c.gpu);
      ps_buf_free(&c.cpu);
      return rc;
    }
  }
  if (c.gpu.len) calib_set_provenance(tmpl, "gpu", c.gpu.p);
  if (c.host.len) calib_set_provenance(tmpl, "host", c.host.p);
  if (c.cpu.len) calib_set_provenance(tmpl, "cpu", c.cpu.p);
  ps_buf_free(&c.host);
  ps_buf_free(&c.gpu);
  ps_buf_free(&c.cpu);
  c.nk = kspan_merge(c.k, c.nk);
  /* Rank calls within each worker, to leave the first skip_calls out. */
  if (c.n) qsort(c.o, c.n, sizeof *c.o, obs_by_worker_call); /* c.o is NULL when empty */
  for (size_t i = 0; i < c.n; i++) {
    if (i == 0) {
      c.o[i].rank = 0;
      continue;
    }
    obs *a = &c.o[i - 1], *b = &c.o[i];
    int same_worker = a->file == b->file && a->rep == b->rep && a->gpu == b->gpu && a->worker == b->worker;
    b->rank = !same_worker ? 0 : a->call == b->call ? a->rank : a->rank + 1;
  }
  calib_phase_report *rep = xcalloc((size_t)tmpl->nphases, sizeof *rep);
  double *buf = xmalloc((c.n + 1) * sizeof *buf);
  int rc = PS_OK;
  for (int p = 0; p < tmpl->nphases && rc == PS_OK; p++) {
    phase *ph = &tmpl->phases[p];
    rep[p].phase = ph->name;
    int kmax = 0, kmin = 0;
    for (size_t i = 0; i < c.n; i++) {
      if (c.o[i].phase != p) continue;
      if (c.o[i].rank < skip_calls) {
        rep[p].skipped++;
        continue;
      }
      if (c.o[i].k > kmax) kmax = c.o[i].k;
      if (!kmin || c.o[i].k < kmin) kmin = c.o[i].k;
    }
    if (kmax == 0) {
      if (nfiles == 1)
        rc = ps_fail(e, PS_EINPUT, "%s: phase %s: no spans of this phase (after skipping %d warm-up calls)", files[0],
                     ph->name, skip_calls);
      else
        rc = ps_fail(e, PS_EINPUT, "phase %s: no spans of this phase in the %d spans files (after skipping %d warm-up calls)",
                     ph->name, nfiles, skip_calls);
      break;
    }
    /* The scaling law: a cpu phase whose template has one is fitted from two or more
     * thread counts; one without must not have run at several. */
    int nzero, seen[2] = {0, 0};
    int nthr = thread_counts(&c, p, skip_calls, kmin, &nzero, seen);
    rep[p].nthreads = nthr;
    if (ph->law == SCALE_TABLE) {
      rc = ps_fail(e, PS_EINPUT, "phase %s: calibrate fits Amdahl's law; the template's scaling: table is for a law you "
                   "measured yourself (write scaling: {serial: 0} in the template to have calibrate fit one)", ph->name);
      break;
    }
    if (ph->law == SCALE_AMDAHL) {
      if (nzero > 0) {
        rc = ps_fail(e, PS_EINPUT, "phase %s: %d span%s without a thread count (\"threads\"): a scaling law needs the "
                     "threads each span ran with; record the runs again with this provesim's measure", ph->name, nzero,
                     nzero == 1 ? "" : "s");
        break;
      }
      if (nthr < 2) {
        rc = ps_fail(e, PS_EINPUT, "phase %s: every span ran at %d threads, and one thread count cannot identify "
                     "how the phase scales; add a run at another count (e.g. measure --set "
                     "system.threads.per_worker=%d)", ph->name, seen[0], seen[0] > 2 ? seen[0] / 2 : seen[0] * 4);
        break;
      }
      double t1 = 0;
      fit_amdahl(&c, p, skip_calls, kmin, &ph->serial, &t1);
      rep[p].serial = ph->serial;
      /* From here on every duration is the one-core time it stands for. */
      double sp = t1 * ph->serial, q = t1 - sp;
      for (size_t i = 0; i < c.n; i++)
        if (c.o[i].phase == p && c.o[i].thr > 0) c.o[i].d *= t1 / (sp + q / c.o[i].thr);
    } else if (nthr > 1) {
      rc = ps_fail(e, PS_EINPUT, "phase %s ran at %d different thread counts (%d and %d, ...) but the template gives it "
                   "no scaling law: say  threads: all  and  scaling: {serial: 0}  in the template to fit one, or "
                   "calibrate from runs at one thread count", ph->name, nthr, seen[0], seen[1]);
      break;
    }
    /* The time distribution: calls of the smallest k seen, per partition. */
    size_t nb = 0;
    for (size_t i = 0; i < c.n; i++)
      if (c.o[i].phase == p && c.o[i].rank >= skip_calls && c.o[i].k == kmin) buf[nb++] = c.o[i].d / kmin;
    calib_fit_result fr;
    rc = calib_fit(buf, nb, want, &fr, e);
    if (rc != PS_OK) {
      char msg[sizeof e->msg];
      snprintf(msg, sizeof msg, "%s", e->msg);
      rc = ps_fail(e, PS_EINPUT, "phase %s: %s", ph->name, msg);
      break;
    }
    rep[p].fit = fr;
    rep[p].busy = -1;
    /* A GPU phase's busy share: kernel time inside its spans over their length. */
    if (ph->resource == RES_GPU && c.nk > 0) {
      double kt = 0, dt = 0;
      for (size_t i = 0; i < c.n; i++)
        if (c.o[i].phase == p && c.o[i].rank >= skip_calls) {
          const obs *o = &c.o[i];
          kt += kspan_busy(c.k, c.nk, o->file, o->rep, o->gpu, o->t0, o->t0 + o->d);
          dt += o->d;
        }
      if (dt > 0 && kt > 0) {
        double f = kt / dt;
        ph->busy = f > 0.9995 ? 1 : f;
        rep[p].busy = ph->busy;
      }
    }
    dist_free(&ph->time);
    dist_copy(&ph->time, &fr.d);
    if (ph->has_fixed) dist_free(&ph->fixed);
    ph->has_fixed = 0; /* the per-call part is inside the fitted time and the multipliers */
    free(ph->scale);
    ph->scale = NULL;
    ph->nscale = 0;
    /* Batch multipliers when calls of k = 1, 2, ..., K partitions were all seen. */
    if (kmin == 1 && kmax > 1) {
      double *sum = xcalloc((size_t)kmax + 1, sizeof *sum);
      long *cnt = xcalloc((size_t)kmax + 1, sizeof *cnt);
      for (size_t i = 0; i < c.n; i++)
        if (c.o[i].phase == p && c.o[i].rank >= skip_calls) {
          sum[c.o[i].k] += c.o[i].d;
          cnt[c.o[i].k]++;
        }
      int K = 1;
      while (K < kmax && cnt[K + 1] > 0) K++;
      if (K > 1) {
        ph->scale = xmalloc((size_t)K * sizeof *ph->scale);
        double m1 = sum[1] / (double)cnt[1];
        for (int k = 1; k <= K; k++) ph->scale[k - 1] = (sum[k] / (double)cnt[k]) / m1;
        ph->nscale = K;
      }
      rep[p].nscale = ph->nscale;
      free(sum);
      free(cnt);
    }
  }
  free(buf);
  free(c.o);
  free(c.k);
  if (rc != PS_OK) {
    for (int p = 0; p < tmpl->nphases; p++) dist_free(&rep[p].fit.d);
    free(rep);
    return rc;
  }
  *reports = rep;
  return PS_OK;
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
  if (m->gpu_overlap) ps_buf_printf(b, "gpu_overlap: {interference: %.4f}\n", m->interference);
  if (m->cpu_contention > 0) ps_buf_printf(b, "cpu_contention: %.4f\n", m->cpu_contention);
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
    if (ph->host_threads) ps_buf_printf(b, "    host_threads: %d\n", ph->host_threads);
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
