/* The backend switch: each entry point of backend.h goes to the plain-C reference
 * (ntt_cpu.c, msm_cpu.c) or to the CUDA backend (prover/cuda/, when built). Results are
 * converted to the common forms here (the GPU MSM returns XYZZ, callers get Jacobian). */
#include "backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fb.h"
#include "msm.h"
#include "par.h"
#include "seed.h"

#ifdef PROVESIM_HAVE_CUDA
#include "cuda/cuda_backend.h"
#include "cuda/psc_keygen.h"
#include "cuda/psc_wins.h"
#endif

typedef enum { BK_CPU, BK_CUDA } bk_kind;

struct ps_backend {
  bk_kind kind;
  int ordinal; /* backend_ordinal */
  char device[300];
  unsigned window; /* 0 = automatic */
  pthread_mutex_t busy_mu;
  double busy_s; /* backend_busy_s */
#ifdef PROVESIM_HAVE_CUDA
  psc_dev *dev;
  /* Held from busy_begin to busy_end on a device: the handle's work buffers, held sort and
   * pinned window buffer serve one operation at a time, so two threads of one job (b_g2
   * beside ntt_h or msm, which groth16.h's graph allows) take turns; their kernels queue
   * on the one stream anyway. Uploads (backend_vec_upload, on the copy stream) do not
   * take it, so prep's upload still runs beside ntt_h. */
  pthread_mutex_t dev_mu;
#endif
};

/* The timing of one operation for backend_busy_s (busy_begin ... busy_end). */
typedef struct busy_mark {
  double t0;
#ifdef PROVESIM_HAVE_CUDA
  psc_mark *m;
#endif
} busy_mark;

static busy_mark busy_begin(ps_backend *b) {
  busy_mark k;
  memset(&k, 0, sizeof k);
  k.t0 = ps_now();
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    pthread_mutex_lock(&b->dev_mu);
    k.m = psc_mark_begin(b->dev);
  }
#else
  (void)b;
#endif
  return k;
}

/* Adds the operation's time and passes rc through. */
static int busy_end(ps_backend *b, busy_mark k, int rc) {
  double s = ps_now() - k.t0;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    s = psc_mark_end(k.m);
    pthread_mutex_unlock(&b->dev_mu);
  }
#endif
  pthread_mutex_lock(&b->busy_mu);
  b->busy_s += s;
  pthread_mutex_unlock(&b->busy_mu);
  return rc;
}

double backend_busy_s(ps_backend *b) {
  pthread_mutex_lock(&b->busy_mu);
  double s = b->busy_s;
  pthread_mutex_unlock(&b->busy_mu);
  return s;
}

size_t backend_host_peak_bytes(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? (size_t)ru.ru_maxrss * 1024 : 0; /* KiB on Linux */
}

size_t backend_g16_work_bytes(const char *name, unsigned log_n, size_t n) {
#ifdef PROVESIM_HAVE_CUDA
  if (name && !strcmp(name, "cuda"))
    return psc_msm_work_bytes(n, psc_msm_default_window(1, n)) + psc_g16_h_work_bytes(log_n);
#endif
  (void)name, (void)log_n, (void)n;
  return 0;
}

size_t backend_device_peak_bytes(ps_backend *b) {
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return psc_mem_peak(b->dev);
#endif
  (void)b;
  return 0;
}

struct backend_msm_bases {
  ps_backend *b;
  int g2;
  size_t n;
  const void *host; /* cpu: borrowed */
#ifdef PROVESIM_HAVE_CUDA
  psc_bases *dev;
#endif
};

int backend_has_cuda(void) {
#ifdef PROVESIM_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

ps_backend *backend_open(const char *name, ps_err *e) { return backend_open_dev(name, 0, e); }

ps_backend *backend_open_dev(const char *name, int ordinal, ps_err *e) {
  if (!name || !strcmp(name, "cpu")) {
    ps_backend *b = xcalloc(1, sizeof *b);
    b->kind = BK_CPU;
    b->ordinal = ordinal;
    pthread_mutex_init(&b->busy_mu, NULL);
    snprintf(b->device, sizeof b->device, "%d CPU threads", ps_ncores());
    return b;
  }
  if (!strcmp(name, "cuda")) {
#ifdef PROVESIM_HAVE_CUDA
    psc_dev *d = NULL;
    if (psc_open(ordinal, &d, e) != PS_OK) return NULL;
    ps_backend *b = xcalloc(1, sizeof *b);
    b->kind = BK_CUDA;
    b->ordinal = ordinal;
    pthread_mutex_init(&b->busy_mu, NULL);
    pthread_mutex_init(&b->dev_mu, NULL);
    b->dev = d;
    snprintf(b->device, sizeof b->device, "%s", psc_name(d));
    return b;
#else
    (void)ordinal;
    ps_fail(e, PS_ERR,
            "cuda backend: this provesim was built without CUDA (configure with "
            "-DPROVESIM_CUDA=ON where nvcc exists); use --backend cpu");
    return NULL;
#endif
  }
  ps_fail(e, PS_EINPUT, "backend '%s': expected cpu or cuda", name);
  return NULL;
}

void backend_close(ps_backend *b) {
  if (!b) return;
#ifdef PROVESIM_HAVE_CUDA
  psc_close(b->dev);
  if (b->kind == BK_CUDA) pthread_mutex_destroy(&b->dev_mu);
#endif
  pthread_mutex_destroy(&b->busy_mu);
  free(b);
}

int backend_ordinal(const ps_backend *b) { return b->ordinal; }

const char *backend_name(const ps_backend *b) { return b->kind == BK_CUDA ? "cuda" : "cpu"; }
const char *backend_device(const ps_backend *b) { return b->device; }

int backend_ntt(ps_backend *b, fr_t *data, unsigned log_n, size_t batch, int flags, ps_err *e) {
  if (log_n < 1 || log_n > NTT_MAX_LOG_N)
    return ps_fail(e, PS_EINPUT, "NTT of size 2^%u: expected 1 <= log2(size) <= %d", log_n,
                   NTT_MAX_LOG_N);
  if (flags & ~(NTT_INVERSE | NTT_COSET | NTT_IN_BITREV | NTT_OUT_BITREV))
    return ps_fail(e, PS_EINPUT, "NTT flags 0x%x: unknown bits", (unsigned)flags);
  if (batch == 0) return PS_OK;
  busy_mark k = busy_begin(b);
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return busy_end(b, k, psc_ntt(b->dev, data, log_n, batch, flags, e));
#endif
  ntt_cpu(data, log_n, batch, flags, 0);
  return busy_end(b, k, PS_OK);
}

static int bases_new(ps_backend *b, int g2, const void *head, size_t nhead, const void *bases, size_t n,
                     backend_msm_bases **out, ps_err *e) {
  *out = NULL;
  if ((n > 0 && !bases) || (nhead > 0 && !head))
    return ps_fail(e, PS_EINPUT, "MSM bases: NULL array of %zu points", n > 0 && !bases ? n : nhead);
  if (nhead && b->kind != BK_CUDA)
    return ps_fail(e, PS_EINPUT, "MSM bases in two parts: the %s backend has no device", backend_name(b));
  backend_msm_bases *m = xcalloc(1, sizeof *m);
  m->b = b;
  m->g2 = g2;
  m->n = nhead + n;
  m->host = bases;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    int rc = psc_bases_upload(b->dev, g2, head, nhead, bases, n, &m->dev, e);
    if (rc) {
      free(m);
      return rc;
    }
    m->host = NULL;
  }
#endif
  *out = m;
  return PS_OK;
}

int backend_msm_bases_g1(ps_backend *b, const g1_affine_t *bases, size_t n,
                         backend_msm_bases **out, ps_err *e) {
  return bases_new(b, 0, NULL, 0, bases, n, out, e);
}
int backend_msm_bases_g2(ps_backend *b, const g2_affine_t *bases, size_t n,
                         backend_msm_bases **out, ps_err *e) {
  return bases_new(b, 1, NULL, 0, bases, n, out, e);
}
int backend_msm_bases_g1_after(ps_backend *b, const g1_affine_t *head, size_t nhead, const g1_affine_t *bases,
                               size_t n, backend_msm_bases **out, ps_err *e) {
  return bases_new(b, 0, head, nhead, bases, n, out, e);
}

void backend_msm_bases_free(backend_msm_bases *m) {
  if (!m) return;
#ifdef PROVESIM_HAVE_CUDA
  psc_bases_free(m->dev);
#endif
  free(m);
}

int backend_msm_precompute(backend_msm_bases *m, unsigned window, ps_err *e) {
  if (window < 2 || window > MSM_MAX_WINDOW)
    return ps_fail(e, PS_EINPUT, "MSM precomputation window %u: expected 2..%d bits", window, MSM_MAX_WINDOW);
#ifdef PROVESIM_HAVE_CUDA
  if (m->b->kind == BK_CUDA) return psc_bases_precompute(m->dev, window, e);
#endif
  (void)m;
  return PS_OK;
}

void backend_set_msm_window(ps_backend *b, unsigned window) { b->window = window; }

unsigned backend_msm_window(const ps_backend *b, int g2, size_t n) {
  if (b->window) return b->window;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return psc_msm_default_window(g2, n);
#endif
  return msm_cpu_window(g2, n);
}

/* The checks of every MSM entry point; scalars (host array or backend_vec) only for NULL. */
static int msm_check(ps_backend *b, backend_msm_bases *m, int g2, const void *scalars, size_t n,
                     ps_err *e) {
  if (!m || m->b->kind != b->kind || m->b->ordinal != b->ordinal)
    return ps_fail(e, PS_EINPUT, "MSM: the bases were not registered on this backend's device");
  if (m->g2 != g2)
    return ps_fail(e, PS_EINPUT, "MSM: bases registered for G%d, used for G%d", m->g2 + 1, g2 + 1);
  if (n > m->n)
    return ps_fail(e, PS_EINPUT, "MSM of %zu scalars over %zu registered bases: too few bases", n, m->n);
  if (n > 0 && !scalars) return ps_fail(e, PS_EINPUT, "MSM: NULL scalars for %zu points", n);
  if (b->window > MSM_MAX_WINDOW)
    return ps_fail(e, PS_EINPUT, "MSM window %u: expected 1..%d bits", b->window, MSM_MAX_WINDOW);
  return PS_OK;
}

static int msm_g1_run(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n, g1_jac_t *out,
                      ps_err *e) {
  int rc = msm_check(b, m, 0, scalars, n, e);
  if (rc) return rc;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    g1_xyzz_t r;
    if ((rc = psc_msm(b->dev, m->dev, scalars, n, b->window, &r, e))) return rc;
    g1_xyzz_to_jac(out, &r);
    return PS_OK;
  }
#endif
  msm_cpu_g1(out, (const g1_affine_t *)m->host, scalars, n, b->window, 0);
  return PS_OK;
}

int backend_msm_g1(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n,
                   g1_jac_t *out, ps_err *e) {
  busy_mark k = busy_begin(b);
  return busy_end(b, k, msm_g1_run(b, m, scalars, n, out, e));
}

static int msm_g2_run(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n, g2_jac_t *out,
                      ps_err *e) {
  int rc = msm_check(b, m, 1, scalars, n, e);
  if (rc) return rc;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    g2_xyzz_t r;
    if ((rc = psc_msm(b->dev, m->dev, scalars, n, b->window, &r, e))) return rc;
    g2_xyzz_to_jac(out, &r);
    return PS_OK;
  }
#endif
  msm_cpu_g2(out, (const g2_affine_t *)m->host, scalars, n, b->window, 0);
  return PS_OK;
}

int backend_msm_g2(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n,
                   g2_jac_t *out, ps_err *e) {
  busy_mark k = busy_begin(b);
  return busy_end(b, k, msm_g2_run(b, m, scalars, n, out, e));
}

int backend_has_device(const ps_backend *b) { return b->kind == BK_CUDA; }

struct backend_vec {
  ps_backend *b;
  const fr_t *host; /* cpu backend: the borrowed data */
  size_t n;
#ifdef PROVESIM_HAVE_CUDA
  psc_vec *dev;
#endif
};

int backend_vec_upload(ps_backend *b, backend_vec **v, const fr_t *host, size_t n, ps_err *e) {
  if (!*v) {
    *v = xcalloc(1, sizeof **v);
    (*v)->b = b;
  }
  if ((*v)->b != b) return ps_fail(e, PS_EINPUT, "vector upload: the vector belongs to another backend");
  (*v)->n = n;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return psc_vec_upload(b->dev, &(*v)->dev, host, n, e);
#endif
  (*v)->host = host;
  return PS_OK;
}

void backend_vec_free(backend_vec *v) {
  if (!v) return;
#ifdef PROVESIM_HAVE_CUDA
  psc_vec_free(v->dev);
#endif
  free(v);
}

struct backend_msm_deferred {
  int count, g2;
  g1_jac_t *p1; /* cpu backend: the points, computed at once */
  g2_jac_t *p2;
#ifdef PROVESIM_HAVE_CUDA
  psc_msm_wins *w; /* cuda backend: window sums, nw sets whose counts add up to count */
  int nw;
#endif
};

static backend_msm_deferred *deferred_new(int count, int g2) {
  backend_msm_deferred *d = xcalloc(1, sizeof *d);
  d->count = count;
  d->g2 = g2;
  return d;
}

void backend_msm_deferred_point(const backend_msm_deferred *d, int i, void *out_jac) {
  PS_ASSERT(d && i >= 0 && i < d->count);
  if (d->p1) {
    ((g1_jac_t *)out_jac)[0] = d->p1[i];
    return;
  }
  if (d->p2) {
    ((g2_jac_t *)out_jac)[0] = d->p2[i];
    return;
  }
#ifdef PROVESIM_HAVE_CUDA
  for (int k = 0; k < d->nw; k++) {
    if (i >= d->w[k].count) {
      i -= d->w[k].count;
      continue;
    }
    if (d->g2) {
      g2_xyzz_t r;
      psc_msm_wins_point(&d->w[k], i, &r);
      g2_xyzz_to_jac((g2_jac_t *)out_jac, &r);
    } else {
      g1_xyzz_t r;
      psc_msm_wins_point(&d->w[k], i, &r);
      g1_xyzz_to_jac((g1_jac_t *)out_jac, &r);
    }
    return;
  }
#endif
}

void backend_msm_deferred_free(backend_msm_deferred *d) {
  if (!d) return;
  free(d->p1);
  free(d->p2);
#ifdef PROVESIM_HAVE_CUDA
  for (int k = 0; k < d->nw; k++) psc_msm_wins_free(&d->w[k]);
  free(d->w);
#endif
  free(d);
}

static int g16_h_run(ps_backend *b, backend_vec *abc, unsigned log_n, int k, backend_msm_bases *bases, size_t nh,
                     backend_msm_deferred **out, ps_err *e) {
  *out = NULL;
  if (b->kind != BK_CUDA)
    return ps_fail(e, PS_EINPUT, "Groth16 H: the %s backend has no device; compute H on the CPU", backend_name(b));
  int rc = msm_check(b, bases, 0, abc, nh, e);
  if (rc) return rc;
  size_t n = (size_t)1 << log_n;
  if (k < 1 || log_n < 1 || log_n > NTT_MAX_LOG_N || nh > n || !abc || abc->n < (size_t)k * 3 * n)
    return ps_fail(e, PS_EINPUT, "Groth16 H: domain 2^%u, %d partitions, %zu bases: the vector or the bases do not fit",
                   log_n, k, nh);
#ifdef PROVESIM_HAVE_CUDA
  backend_msm_deferred *d = deferred_new(k, 0);
  d->w = xcalloc((size_t)k, sizeof *d->w);
  for (int p = 0; p < k; p++) {
    ps_err inner;
    if ((rc = psc_g16_h_vec_wins(b->dev, abc->dev, (size_t)p * 3 * n, log_n, bases->dev, nh, &d->w[p], &inner))) {
      backend_msm_deferred_free(d);
      return ps_fail(e, rc, "partition %d: %s", p, inner.msg);
    }
    d->nw++;
  }
  *out = d;
  return PS_OK;
#else
  return ps_fail(e, PS_ERR, "Groth16 H: no CUDA in this build");
#endif
}

int backend_g16_h_vec_deferred(ps_backend *b, backend_vec *abc, unsigned log_n, int k, backend_msm_bases *bases,
                               size_t nh, backend_msm_deferred **out, ps_err *e) {
  busy_mark bm = busy_begin(b);
  return busy_end(b, bm, g16_h_run(b, abc, log_n, k, bases, nh, out, e));
}

static int msm_vec_deferred_run(ps_backend *b, int g2, int count, backend_msm_bases *const *m, backend_vec *s,
                                const size_t *off, const size_t *n, backend_msm_deferred **out, ps_err *e) {
  int rc;
  *out = NULL;
  if (count < 1) return ps_fail(e, PS_EINPUT, "MSM batch of %d: expected at least 1 MSM", count);
  if (!s || s->b != b) return ps_fail(e, PS_EINPUT, "MSM: the scalars were not uploaded to this backend");
  for (int i = 0; i < count; i++) {
    if ((rc = msm_check(b, m[i], g2, s, n[i], e))) return rc;
    if (off[i] + n[i] > s->n)
      return ps_fail(e, PS_EINPUT, "MSM %d: scalars %zu..%zu of a vector of %zu", i, off[i], off[i] + n[i], s->n);
  }
  backend_msm_deferred *d = deferred_new(count, g2);
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    psc_bases **pb = xcalloc((size_t)count, sizeof *pb);
    for (int i = 0; i < count; i++) pb[i] = m[i]->dev;
    d->w = xcalloc(1, sizeof *d->w);
    rc = psc_msm_vec_wins(b->dev, count, pb, s->dev, off, n, b->window, &d->w[0], e);
    free(pb);
    if (rc) {
      backend_msm_deferred_free(d);
      return rc;
    }
    d->nw = 1;
    *out = d;
    return PS_OK;
  }
#endif
  if (g2) d->p2 = xcalloc((size_t)count, sizeof *d->p2);
  else d->p1 = xcalloc((size_t)count, sizeof *d->p1);
  for (int i = 0; i < count; i++) {
    if (g2) msm_cpu_g2(&d->p2[i], (const g2_affine_t *)m[i]->host, s->host + off[i], n[i], b->window, 0);
    else msm_cpu_g1(&d->p1[i], (const g1_affine_t *)m[i]->host, s->host + off[i], n[i], b->window, 0);
  }
  *out = d;
  return PS_OK;
}

static int msm_vec_deferred(ps_backend *b, int g2, int count, backend_msm_bases *const *m, backend_vec *s,
                            const size_t *off, const size_t *n, backend_msm_deferred **out, ps_err *e) {
  busy_mark k = busy_begin(b);
  return busy_end(b, k, msm_vec_deferred_run(b, g2, count, m, s, off, n, out, e));
}

int backend_msm_g1_vec_deferred(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s,
                                const size_t *off, const size_t *n, backend_msm_deferred **out, ps_err *e) {
  return msm_vec_deferred(b, 0, count, m, s, off, n, out, e);
}

int backend_msm_g2_vec_deferred(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s,
                                const size_t *off, const size_t *n, backend_msm_deferred **out, ps_err *e) {
  return msm_vec_deferred(b, 1, count, m, s, off, n, out, e);
}

static int msm_vec(ps_backend *b, int g2, int count, backend_msm_bases *const *m, backend_vec *s, const size_t *off,
                   const size_t *n, void *out, ps_err *e) {
  backend_msm_deferred *d;
  int rc = msm_vec_deferred(b, g2, count, m, s, off, n, &d, e);
  if (rc) return rc;
  for (int i = 0; i < count; i++)
    backend_msm_deferred_point(d, i, g2 ? (void *)&((g2_jac_t *)out)[i] : (void *)&((g1_jac_t *)out)[i]);
  backend_msm_deferred_free(d);
  return PS_OK;
}

int backend_msm_g1_vec(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s, const size_t *off,
                       const size_t *n, g1_jac_t *out, ps_err *e) {
  return msm_vec(b, 0, count, m, s, off, n, out, e);
}

int backend_msm_g2_vec(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s, const size_t *off,
                       const size_t *n, g2_jac_t *out, ps_err *e) {
  return msm_vec(b, 1, count, m, s, off, n, out, e);
}

/* ---- fixed-base products ---- */

struct backend_fb {
  ps_backend *b;
  int g2;
  fb_g1 t1; /* the host table (cpu: used; cuda: freed after the upload) */
  fb_g2 t2;
#ifdef PROVESIM_HAVE_CUDA
  psc_fb *dev;
#endif
};

static int fb_new(ps_backend *b, int g2, const void *gen, size_t n_hint, backend_fb **out, ps_err *e) {
  *out = NULL;
  if (!gen) return ps_fail(e, PS_EINPUT, "fixed-base table: NULL base point");
  backend_fb *t = xcalloc(1, sizeof *t);
  t->b = b;
  t->g2 = g2;
  if (g2) fb_g2_build(&t->t2, gen, fb_window(n_hint, FB_MAX_WINDOW_G2));
  else fb_g1_build(&t->t1, gen, fb_window(n_hint, FB_MAX_WINDOW_G1));
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) {
    int rc = g2 ? psc_fb_upload(b->dev, 1, t->t2.t, t->t2.w, t->t2.nwin, &t->dev, e)
                : psc_fb_upload(b->dev, 0, t->t1.t, t->t1.w, t->t1.nwin, &t->dev, e);
    fb_g1_free(&t->t1);
    fb_g2_free(&t->t2);
    if (rc) {
      free(t);
      return rc;
    }
  }
#endif
  *out = t;
  return PS_OK;
}

int backend_fb_g1(ps_backend *b, const g1_affine_t *gen, size_t n_hint, backend_fb **out, ps_err *e) {
  return fb_new(b, 0, gen, n_hint, out, e);
}
int backend_fb_g2(ps_backend *b, const g2_affine_t *gen, size_t n_hint, backend_fb **out, ps_err *e) {
  return fb_new(b, 1, gen, n_hint, out, e);
}

int backend_fb_mul(backend_fb *t, const fr_t *k, size_t n, void *out_affine, void (*tick)(void *, size_t),
                   void *tick_ctx, ps_err *e) {
  if (n == 0) return PS_OK;
  if (!k || !out_affine) return ps_fail(e, PS_EINPUT, "fixed-base products: NULL scalars or output for %zu points", n);
  busy_mark bm = busy_begin(t->b);
#ifdef PROVESIM_HAVE_CUDA
  if (t->b->kind == BK_CUDA) return busy_end(t->b, bm, psc_fb_mul(t->dev, k, n, out_affine, tick, tick_ctx, e));
#endif
  if (t->g2) fb_g2_mul(&t->t2, k, out_affine, n, 0, tick, tick_ctx);
  else fb_g1_mul(&t->t1, k, out_affine, n, 0, tick, tick_ctx);
  return busy_end(t->b, bm, PS_OK);
}

void backend_fb_free(backend_fb *t) {
  if (!t) return;
  fb_g1_free(&t->t1);
  fb_g2_free(&t->t2);
#ifdef PROVESIM_HAVE_CUDA
  psc_fb_free(t->dev);
#endif
  free(t);
}

/* Host buffers carry a 64-byte header recording whether they are pinned. */
#define HOST_HDR 64

void *backend_host_alloc(ps_backend *b, size_t bytes) {
  int pinned = 0;
  unsigned char *p;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA)
    p = psc_host_alloc(bytes + HOST_HDR, &pinned);
  else
#endif
    p = xmalloc(bytes + HOST_HDR);
  memcpy(p, &pinned, sizeof pinned);
  return p + HOST_HDR;
}

void backend_host_free(ps_backend *b, void *q) {
  if (!q) return;
  unsigned char *p = (unsigned char *)q - HOST_HDR;
  int pinned;
  memcpy(&pinned, p, sizeof pinned);
#ifdef PROVESIM_HAVE_CUDA
  if (pinned) {
    psc_host_free(p, 1);
    return;
  }
#endif
  (void)b;
  free(p);
}

/* ---- measurements ---- */

#define CPU_FB_ITERS 200000

typedef struct fb_ctx {
  int fp;
  double *rates; /* one per chain */
} fb_ctx;

/* Chains [lo, hi), each timing CPU_FB_ITERS dependent multiplications on its own. */
static void field_range(void *p, size_t lo, size_t hi) {
  fb_ctx *a = p;
  for (size_t k = lo; k < hi; k++) {
    double t0 = ps_now();
    if (a->fp) {
      fp_t x[4], y;
      fp_from_u64(&y, 0x1234567);
      for (int c = 0; c < 4; c++) fp_from_u64(&x[c], 7 + c);
      for (int i = 0; i < CPU_FB_ITERS / 4; i++)
        for (int c = 0; c < 4; c++) {
          if (a->fp == 2) fp_sqr(&x[c], &x[c]);
          else fp_mul(&x[c], &x[c], &y);
        }
      if (fp_is_zero(&x[0]) && fp_is_zero(&x[3])) a->rates[k] = -1;
    } else {
      fr_t x[4], y;
      fr_from_u64(&y, 0x1234567);
      for (int c = 0; c < 4; c++) fr_from_u64(&x[c], 7 + c);
      for (int i = 0; i < CPU_FB_ITERS / 4; i++)
        for (int c = 0; c < 4; c++) fr_mul(&x[c], &x[c], &y);
      if (fr_is_zero(&x[0]) && fr_is_zero(&x[3])) a->rates[k] = -1;
    }
    a->rates[k] = CPU_FB_ITERS / (ps_now() - t0);
  }
}

int backend_bench_field(ps_backend *b, int fp, double *mults_per_s, ps_err *e) {
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return psc_bench_field(b->dev, fp, mults_per_s, e);
#endif
  /* One chain per online CPU, on as many threads; the rates add up. */
  int nt = ps_ncores();
  fb_ctx c = {fp, xcalloc((size_t)nt, sizeof *c.rates)};
  par_for((size_t)nt, 1, nt, field_range, &c, NULL, NULL);
  double sum = 0;
  for (int i = 0; i < nt; i++) sum += c.rates[i];
  free(c.rates);
  *mults_per_s = sum;
  return PS_OK;
}

int backend_bench_ntt(ps_backend *b, unsigned log_n, int flags, int reps, double *median_ms,
                      ps_err *e) {
  if (reps < 1) reps = 1;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return psc_bench_ntt(b->dev, log_n, flags, reps, median_ms, e);
#endif
  if (log_n < 1 || log_n > NTT_MAX_LOG_N)
    return ps_fail(e, PS_EINPUT, "NTT of size 2^%u: expected 1 <= log2(size) <= %d", log_n,
                   NTT_MAX_LOG_N);
  size_t n = (size_t)1 << log_n;
  fr_t *a = xmalloc(n * sizeof *a);
  double *ms = xcalloc((size_t)reps, sizeof *ms);
  uint64_t st = 42;
  for (size_t i = 0; i < n; i++) fr_random(&a[i], ps_splitmix64, &st);
  for (int r = 0; r < reps; r++) {
    double t0 = ps_now();
    ntt_cpu(a, log_n, 1, flags, 0);
    ms[r] = (ps_now() - t0) * 1e3;
  }
  *median_ms = ps_sort_median(ms, (size_t)reps);
  free(ms);
  free(a);
  return PS_OK;
}

int backend_bench_msm(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n,
                      int reps, double *median_ms, ps_err *e) {
  int rc = PS_OK;
  if (reps < 1) reps = 1;
  if ((rc = msm_check(b, m, m ? m->g2 : 0, scalars, n, e))) return rc;
#ifdef PROVESIM_HAVE_CUDA
  if (b->kind == BK_CUDA) return psc_bench_msm(b->dev, m->dev, scalars, n, b->window, reps, median_ms, e);
#endif
  double *ms = xcalloc((size_t)reps, sizeof *ms);
  for (int r = 0; r < reps && rc == PS_OK; r++) {
    double t0 = ps_now();
    if (m->g2) {
      g2_jac_t o;
      rc = backend_msm_g2(b, m, scalars, n, &o, e);
    } else {
      g1_jac_t o;
      rc = backend_msm_g1(b, m, scalars, n, &o, e);
    }
    ms[r] = (ps_now() - t0) * 1e3;
  }
  *median_ms = ps_sort_median(ms, (size_t)reps);
  free(ms);
  return rc;
}

/* ---- random inputs ---- */

typedef struct rnd_ctx {
  int kind; /* 0 g1, 1 g2, 2 scalars (canonical), 3 Fr (Montgomery) */
  void *out;
  uint64_t seed;
} rnd_ctx;

/* Fixed chunks of RND_CHUNK items, each drawn from its own stream, so the result does not
 * depend on the number of threads. The chunk starting at lo seeds its stream with
 * seed ^ (0x5851f42d4c957f2d * (lo + 1)), as it always has: changing it would change every
 * benchmark's and gpu_check's inputs. */
#define RND_CHUNK ((size_t)1 << 16)

static void rnd_range(void *p, size_t lo, size_t hi) {
  const rnd_ctx *j = p;
  uint64_t st = j->seed ^ (0x5851f42d4c957f2dull * (lo + 1));
  size_t n = hi - lo;
  switch (j->kind) {
  case 0: g1_random_many((g1_affine_t *)j->out + lo, n, ps_splitmix64, &st); break;
  case 1: g2_random_many((g2_affine_t *)j->out + lo, n, ps_splitmix64, &st); break;
  default:
    for (size_t i = lo; i < hi; i++) fr_random((fr_t *)j->out + i, ps_splitmix64, &st);
    break;
  }
}

static void random_fill(int kind, void *out, size_t n, uint64_t seed) {
  rnd_ctx c = {kind, out, seed};
  par_for(n, RND_CHUNK, 0, rnd_range, &c, NULL, NULL);
}

void backend_random_g1(g1_affine_t *out, size_t n, uint64_t seed) { random_fill(0, out, n, seed); }
void backend_random_g2(g2_affine_t *out, size_t n, uint64_t seed) { random_fill(1, out, n, seed); }
void backend_random_scalars(fr_t *out, size_t n, uint64_t seed) { random_fill(2, out, n, seed); }
void backend_random_fr(fr_t *out, size_t n, uint64_t seed) { random_fill(3, out, n, seed); }
