/* Groth16 on BLS12-381 (groth16.h): the phases of a proving call over a backend, and the
 * verifier. The keys come from g16_setup.c; g16_int.h gives the QAP and key definitions
 * both files use. */
#include "groth16.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "g16_int.h"

#include "curve.h"
#include "par.h"
#include "seed.h"
#include "fr.h"
#include "msm.h"
#include "ntt.h"
#include "pairing.h"
#include "r1cs.h"

/* ---- memory ---- */

/* Bytes of the G1 bases on a device, those that get tables: A, B_G1, L with its head
 * (g16_dkey: nvars points), H. */
static size_t g1_bases_bytes(const g16_keys *k) { return (3 * k->nvars + k->nh) * sizeof(g1_affine_t); }

static unsigned windows_of(unsigned c) { return (256 + c - 1) / c; }

size_t g16_precompute_bytes(const g16_keys *k, unsigned window) {
  return window ? windows_of(window) * g1_bases_bytes(k) : 0;
}

size_t g16_key_bytes_at(const g16_keys *k, unsigned window) {
  return g1_bases_bytes(k) + k->nvars * sizeof(g2_affine_t) + g16_precompute_bytes(k, window);
}

size_t g16_key_bytes(const g16_keys *k) { return g16_key_bytes_at(k, k->pre_window); }

size_t g16_job_bytes(const g16_keys *k, int partitions) {
  return (size_t)(partitions > 0 ? partitions : 1) * (3 * k->n + k->nvars) * sizeof(fr_t);
}

/* The MSM work buffers a cuda handle keeps, slot by slot, as prover/cuda/msm.cu's
 * msm_enqueue asks for them (psc__ws: each slot grows to its largest request): n points
 * whose bucket points take psz bytes, window c, with tables (one set of buckets, up to
 * 2^16 reduction segments) or without (ceil(256/c) sets, up to 2^10 segments each, or
 * segments of 32 buckets above 2^15 buckets: msm.cu's msm_log_segments). */
enum { WS_N = 5 };
static void msm_slots(size_t n, unsigned c, size_t psz, int tables, size_t out[WS_N]) {
  size_t nwin = windows_of(c), nb = (size_t)1 << (c - 1), sets = tables ? 1 : nwin;
  unsigned lnb = c - 1, lseg = tables ? 16 : lnb > 15 ? lnb - 5 : lnb > 12 ? lnb - 3 : 10;
  size_t nseg = (size_t)1 << (lnb < lseg ? lnb : lseg), nchunks = (n * nwin + 63) / 64;
  out[0] = 2 * n * nwin * sizeof(uint32_t);     /* digits, sorted digits */
  out[1] = 3 * sets * nb * sizeof(uint32_t);    /* bucket counts, offsets, cursors */
  out[2] = sets * nb * psz;                     /* buckets */
  out[3] = 4 * sets * nseg * psz;               /* reduction segments (two slots) */
  out[4] = nchunks * (psz + sizeof(uint32_t));  /* bucket parts and their keys */
}

size_t g16_worker_bytes_at(const g16_keys *k, const char *backend, int partitions, unsigned window) {
  if (!backend || strcmp(backend, "cuda")) return 0;
  size_t msm_n = k->nvars > k->nh ? k->nvars : k->nh;
  size_t plain = g16_job_bytes(k, partitions) + backend_g16_work_bytes(backend, k->cs->log_n, msm_n);
  if (!window) return plain;
  /* The plain MSMs' slots as backend_g16_work_bytes counts them (psc_msm_work_bytes: each
   * slot the larger of G2's points and G1's at the windows msm_gpu_window picks); a slot
   * grows where the MSMs over the tables (G1, window c) ask for more. */
  const unsigned c2 = msm_gpu_window(1, msm_n), c1 = msm_gpu_window(0, msm_n);
  size_t p[WS_N], q[WS_N], t[WS_N], extra = 0;
  msm_slots(msm_n, c2, sizeof(g2_xyzz_t), 0, p);
  msm_slots(msm_n, c1, sizeof(g1_xyzz_t), 0, q);
  for (int i = 0; i < WS_N; i++)
    if (q[i] > p[i]) p[i] = q[i];
  msm_slots(msm_n, window, sizeof(g1_xyzz_t), 1, t);
  for (int i = 0; i < WS_N; i++)
    if (t[i] > p[i]) extra += t[i] - p[i];
  return plain + extra;
}

size_t g16_worker_bytes(const g16_keys *k, const char *backend, int partitions) {
  return g16_worker_bytes_at(k, backend, partitions, k->pre_window);
}

void g16_keys_set_precompute(g16_keys *k, unsigned window) {
  PS_ASSERT(!k->dkeys); /* before the first context (groth16.h) */
  PS_ASSERT(window == 0 || (window >= 2 && window <= MSM_MAX_WINDOW));
  k->pre_window = window;
}

unsigned g16_keys_precompute(const g16_keys *k) { return k->pre_window; }

unsigned g16_precompute_auto(const g16_keys *k, size_t free_bytes, int workers, int partitions) {
  size_t msm_n = k->nvars > k->nh ? k->nvars : k->nh;
  unsigned lg = 0;
  while (((size_t)1 << lg) < msm_n) lg++;
  /* docs/performance.md, "Precomputed bases" (one MSM of random scalars on the H200): 16
   * up to 2^20 points; 20 from 2^21 (22 was 1.4% faster at 2^24 there, but in the prover at
   * 2^22 it made the A, B_G1 and L MSMs, whose scalars are mostly 0/1, 54% slower:
   * docs/prover.md); 22 second, having the fewest tables. */
  unsigned pick[2] = {lg <= 20 ? 16u : 20u, 22u};
  for (int i = 0; i < 2; i++) {
    double need = (double)g16_key_bytes_at(k, pick[i]) +
                  (double)(workers > 0 ? workers : 1) * (double)g16_worker_bytes_at(k, "cuda", partitions, pick[i]);
    if (need <= (double)free_bytes) return pick[i];
  }
  return 0;
}

/* ---- the proving key on a device ---- */

/* One device's copy of the proving key, shared by the contexts of one g16_keys there (the
 * workers of a GPU): the first context uploads it, the last frees it. Its bases are
 * registered through a backend handle of its own on that device, so they outlive the
 * context (and the handle) that asked first. The list in g16_keys and every refcount are
 * guarded by dkey_mu (contexts open and close rarely; an upload holds it, so a second
 * worker waits for the first's upload instead of making its own). */
typedef struct g16_dkey {
  struct g16_dkey *next;
  char backend[8];
  int ordinal, refs;
  ps_backend *b;
  backend_msm_bases *a, *b_g1, *l, *h, *b_g2;
  /* On a device, L's bases start with l_head = npub + 1 copies of the generator G1, one
   * for each variable that L leaves out (the constant and the public inputs), so that the
   * L MSM takes every variable's scalar like A and B_G1, and their sort of the witness;
   * the epilogue takes (sum of those scalars) G1 back out. 0 on the cpu backend. */
  size_t l_head;
} g16_dkey;

static pthread_mutex_t dkey_mu = PTHREAD_MUTEX_INITIALIZER;

static void dkey_free(g16_dkey *d) {
  backend_msm_bases_free(d->a);
  backend_msm_bases_free(d->b_g1);
  backend_msm_bases_free(d->l);
  backend_msm_bases_free(d->h);
  backend_msm_bases_free(d->b_g2);
  backend_close(d->b);
  free(d);
}

/* The tables of the G1 bases for window c (0: none), built once with the upload. */
static int dkey_precompute(g16_dkey *d, unsigned c, ps_err *e) {
  int rc = PS_OK;
  if (c && ((rc = backend_msm_precompute(d->a, c, e)) || (rc = backend_msm_precompute(d->b_g1, c, e)) ||
            (rc = backend_msm_precompute(d->l, c, e)) || (rc = backend_msm_precompute(d->h, c, e))))
    return rc;
  return PS_OK;
}

/* The key on b's device, uploaded if none is there yet (*uploaded = 1), with the tables
 * of k's precompute window. */
static int dkey_get(ps_backend *b, g16_keys *k, g16_dkey **out, int *uploaded, ps_err *e) {
  int rc = PS_OK;
  *out = NULL;
  *uploaded = 0;
  pthread_mutex_lock(&dkey_mu);
  for (g16_dkey *d = k->dkeys; d; d = d->next)
    if (!strcmp(d->backend, backend_name(b)) && d->ordinal == backend_ordinal(b)) {
      d->refs++;
      *out = d;
      goto out;
    }
  g16_dkey *d = xcalloc(1, sizeof *d);
  snprintf(d->backend, sizeof d->backend, "%s", backend_name(b));
  d->ordinal = backend_ordinal(b);
  g1_affine_t *head = xmalloc(((size_t)k->npub + 1) * sizeof *head);
  for (int i = 0; i <= k->npub; i++) g1_generator(&head[i]);
  if ((d->b = backend_open_dev(d->backend, d->ordinal, e)) && backend_has_device(d->b)) d->l_head = (size_t)k->npub + 1;
  if (!d->b || (rc = backend_msm_bases_g1_after(d->b, head, d->l_head, k->l, k->nl, &d->l, e)) ||
      (rc = backend_msm_bases_g1(d->b, k->a, k->nvars, &d->a, e)) ||
      (rc = backend_msm_bases_g1(d->b, k->b_g1, k->nvars, &d->b_g1, e)) ||
      (rc = backend_msm_bases_g1(d->b, k->h, k->nh, &d->h, e)) ||
      (rc = backend_msm_bases_g2(d->b, k->b_g2, k->nvars, &d->b_g2, e)) ||
      (rc = dkey_precompute(d, k->pre_window, e))) {
    if (!d->b) rc = PS_ERR;
    free(head);
    dkey_free(d);
    goto out;
  }
  free(head);
  d->refs = 1;
  d->next = k->dkeys;
  k->dkeys = d;
  *out = d;
  *uploaded = 1;
out:
  pthread_mutex_unlock(&dkey_mu);
  return rc;
}

static void dkey_put(g16_keys *k, g16_dkey *d) {
  if (!d) return;
  pthread_mutex_lock(&dkey_mu);
  if (--d->refs == 0) {
    g16_dkey **p = &k->dkeys;
    while (*p != d) p = &(*p)->next;
    *p = d->next;
  } else {
    d = NULL;
  }
  pthread_mutex_unlock(&dkey_mu);
  if (d) dkey_free(d); /* outside the lock: freeing device memory waits for the device */
}

/* ---- contexts ---- */

/* A job's buffers: z, A·z|B·z|C·z and the MSM scalars on the host (backend memory,
 * pinned with a device) and, with a device, the last two there too (synth and prep upload
 * them as they finish, outside the GPU phases, so a narrow lock does not cover the
 * copies). k partitions fit. */
typedef struct g16_bufs {
  fr_t *z, *abc, *scal;
  backend_vec *dev_abc, *dev_scal;
  int k;
} g16_bufs;

/* Makes room for k partitions (device vectors grow when uploaded into). */
static void bufs_fit(ps_backend *b, const g16_keys *K, g16_bufs *s, int k) {
  if (s->k >= k) return;
  size_t scal_bytes = (size_t)k * K->nvars * sizeof(fr_t);
  backend_host_free(b, s->abc);
  backend_host_free(b, s->scal);
  free(s->z);
  s->z = xmalloc(scal_bytes);
  s->abc = backend_host_alloc(b, (size_t)k * 3 * K->n * sizeof(fr_t));
  s->scal = backend_host_alloc(b, scal_bytes);
  s->k = k;
}

static void bufs_free(ps_backend *b, g16_bufs *s) {
  backend_host_free(b, s->abc);
  backend_host_free(b, s->scal);
  free(s->z);
  backend_vec_free(s->dev_abc);
  backend_vec_free(s->dev_scal);
  memset(s, 0, sizeof *s);
}

struct g16_ctx {
  ps_backend *b;
  const g16_keys *k;
  g16_dkey *dk;     /* the device's key, shared */
  int uploaded;     /* 1: this context's open uploaded it */
  backend_msm_bases *a, *b_g1, *l, *h, *b_g2; /* dk's */
  /* The jobs' buffers, kept for the next job: pinning and freeing hundreds of MB per call
   * costs tens of ms, and freeing pinned memory synchronises the whole device, stalling
   * the other workers' kernels. bufs_busy is set while a job uses them (a second
   * concurrent job gets its own). */
  g16_bufs bufs;
  int bufs_busy;
  unsigned threads; /* CPU threads of the jobs' CPU steps; 0 = every CPU */
};

void g16_ctx_close(g16_ctx *c) {
  if (!c) return;
  bufs_free(c->b, &c->bufs);
  /* The keys are const to contexts except for their list of device keys (dkey_mu). */
  dkey_put((g16_keys *)c->k, c->dk);
  free(c);
}

void g16_ctx_set_threads(g16_ctx *c, unsigned threads) { c->threads = threads; }

void g16_ctx_reserve(g16_ctx *c, int k) {
  PS_ASSERT(k >= 1 && !c->bufs_busy);
  bufs_fit(c->b, c->k, &c->bufs, k);
}

int g16_ctx_reserved(const g16_ctx *c) { return c->bufs.k; }

int g16_ctx_open(ps_backend *b, const g16_keys *k, g16_ctx **out, ps_err *e) {
  *out = NULL;
  g16_ctx *c = xcalloc(1, sizeof *c);
  c->b = b;
  c->k = k;
  int rc = dkey_get(b, (g16_keys *)k, &c->dk, &c->uploaded, e);
  if (rc) {
    free(c);
    return rc;
  }
  c->a = c->dk->a, c->b_g1 = c->dk->b_g1, c->l = c->dk->l, c->h = c->dk->h, c->b_g2 = c->dk->b_g2;
  *out = c;
  return PS_OK;
}

const void *g16_ctx_device_key(const g16_ctx *c, int *holders, int *uploaded) {
  if (holders) {
    pthread_mutex_lock(&dkey_mu);
    *holders = c->dk->refs;
    pthread_mutex_unlock(&dkey_mu);
  }
  if (uploaded) *uploaded = c->uploaded;
  return c->dk;
}

/* ---- jobs ---- */

struct g16_job {
  g16_ctx *c;
  int k;
  uint64_t *seeds, rng_seed;
  fr_t *z;    /* k * nvars, Montgomery */
  fr_t *abc;  /* k * 3n (backend host memory): A z | B z | C z per partition; then h */
  fr_t *scal; /* k * nvars (backend host memory): canonical z */
  g16_bufs *bufs; /* the context's, or own */
  g16_bufs own;
  /* With a device: the MSMs of ntt_h (H), msm (A, B_G1, L per partition) and b_g2, their
   * window sums not yet combined into points; the epilogue does that, on the CPU, outside
   * a lock that covers the GPU phases. */
  backend_msm_deferred *def_h, *def_msm, *def_b2;
  g1_jac_t *h_acc, *a_acc, *b1_acc, *l_acc;
  g2_jac_t *b2_acc;
  g16_proof *proofs;
  /* phases done, one flag each (written by the phase's thread) */
  int synth_done, prep_done, ntt_done, msm_done, bg2_done, epi_done;
};

g16_job *g16_job_new(g16_ctx *c, int k, const uint64_t *instance_seeds, uint64_t rng_seed) {
  PS_ASSERT(k >= 1);
  const g16_keys *K = c->k;
  g16_job *j = xcalloc(1, sizeof *j);
  j->c = c;
  j->k = k;
  j->seeds = xmalloc((size_t)k * sizeof *j->seeds);
  memcpy(j->seeds, instance_seeds, (size_t)k * sizeof *j->seeds);
  j->rng_seed = rng_seed;
  if (c->bufs_busy) {
    j->bufs = &j->own;
  } else {
    j->bufs = &c->bufs;
    c->bufs_busy = 1;
  }
  bufs_fit(c->b, K, j->bufs, k);
  j->z = j->bufs->z;
  j->abc = j->bufs->abc;
  j->scal = j->bufs->scal;
  j->h_acc = xcalloc((size_t)k, sizeof *j->h_acc);
  j->a_acc = xcalloc((size_t)k, sizeof *j->a_acc);
  j->b1_acc = xcalloc((size_t)k, sizeof *j->b1_acc);
  j->l_acc = xcalloc((size_t)k, sizeof *j->l_acc);
  j->b2_acc = xcalloc((size_t)k, sizeof *j->b2_acc);
  j->proofs = xcalloc((size_t)k, sizeof *j->proofs);
  return j;
}

void g16_job_free(g16_job *j) {
  if (!j) return;
  free(j->seeds);
  backend_msm_deferred_free(j->def_h);
  backend_msm_deferred_free(j->def_msm);
  backend_msm_deferred_free(j->def_b2);
  if (j->bufs == &j->own) bufs_free(j->c->b, &j->own);
  else j->c->bufs_busy = 0;
  free(j->h_acc), free(j->a_acc), free(j->b1_acc), free(j->l_acc), free(j->b2_acc);
  free(j->proofs);
  free(j);
}

static int order_error(ps_err *e, const char *phase, const char *needs) {
  return ps_fail(e, PS_EINPUT, "g16_%s: called before g16_%s (phases must follow the graph of groth16.h)",
                 phase, needs);
}

int g16_synth(g16_job *j, ps_err *e) {
  const g16_keys *K = j->c->k;
  for (int p = 0; p < j->k; p++) {
    fr_t *z = j->z + (size_t)p * K->nvars, *abc = j->abc + (size_t)p * 3 * K->n;
    r1cs_witness(K->cs, j->seeds[p], z);
    r1cs_eval(K->cs, z, abc, abc + K->n, abc + 2 * K->n, j->c->threads);
  }
  /* With a device, A·z, B·z, C·z go up now, while another worker may hold the GPU. */
  if (backend_has_device(j->c->b)) {
    int rc = backend_vec_upload(j->c->b, &j->bufs->dev_abc, j->abc, (size_t)j->k * 3 * K->n, e);
    if (rc) return rc;
  }
  j->synth_done = 1;
  return PS_OK;
}

typedef struct canon_job {
  const fr_t *in;
  fr_t *out;
} canon_job;

static void canon_range(void *ctx, size_t lo, size_t hi) {
  canon_job *c = ctx;
  for (size_t i = lo; i < hi; i++) fr_to_canon(&c->out[i], &c->in[i]);
}

int g16_prep(g16_job *j, ps_err *e) {
  if (!j->synth_done) return order_error(e, "prep", "synth");
  canon_job c = {j->z, j->scal};
  par_for((size_t)j->k * j->c->k->nvars, 1 << 14, (int)j->c->threads, canon_range, &c, NULL, NULL);
  if (backend_has_device(j->c->b)) { /* the MSM scalars go up now, as A·z.. in synth */
    int rc = backend_vec_upload(j->c->b, &j->bufs->dev_scal, j->scal, (size_t)j->k * j->c->k->nvars, e);
    if (rc) return rc;
  }
  j->prep_done = 1;
  return PS_OK;
}

typedef struct quot_job {
  const fr_t *a, *b, *c;
  fr_t *out;
} quot_job;

/* h's values on the coset as MSM scalars: canonical a b - c. */
static void quot_range(void *ctx, size_t lo, size_t hi) {
  quot_job *q = ctx;
  for (size_t i = lo; i < hi; i++) {
    fr_t t;
    fr_mul(&t, &q->a[i], &q->b[i]);
    fr_sub(&t, &t, &q->c[i]);
    fr_to_canon(&q->out[i], &t);
  }
}

/* h = (a b - c) / Z, where Z = g^n - 1 is the same at every point of the coset gH (g = 7):
 * its values there, times the key's H bases (the coset's Lagrange basis at tau, with
 * Z(tau)/(delta Z) folded in: g16_setup.c), give h(tau) Z(tau)/delta in one MSM of n
 * points. So h's values on the coset are all the prover needs: 3 inverse NTTs and 3 coset
 * NTTs a partition, no inverse NTT back to its coefficients. */
int g16_ntt_h(g16_job *j, ps_err *e) {
  if (!j->synth_done) return order_error(e, "ntt_h", "synth");
  const g16_keys *K = j->c->k;
  size_t n = K->n;
  unsigned log_n = K->cs->log_n;
  int rc;
  /* With a device, all of it runs there, on the vectors synth uploaded. */
  if (backend_has_device(j->c->b)) {
    backend_msm_deferred_free(j->def_h);
    j->def_h = NULL;
    if ((rc = backend_g16_h_vec_deferred(j->c->b, j->bufs->dev_abc, log_n, j->k, j->c->h, K->nh, &j->def_h, e)))
      return rc;
    j->ntt_done = 1;
    return PS_OK;
  }
  /* Coefficients of A z, B z, C z (3 inverse NTTs per partition), then their values on
   * the coset 7H (3 coset NTTs). */
  if ((rc = backend_ntt(j->c->b, j->abc, log_n, (size_t)3 * j->k, NTT_INVERSE, e))) return rc;
  if ((rc = backend_ntt(j->c->b, j->abc, log_n, (size_t)3 * j->k, NTT_COSET, e))) return rc;
  /* Partition p's h goes to abc[p n ..], below its own inputs and over inputs already
   * consumed. */
  for (int p = 0; p < j->k; p++) {
    fr_t *src = j->abc + (size_t)p * 3 * n, *h = j->abc + (size_t)p * n;
    quot_job q = {src, src + n, src + 2 * n, h};
    par_for(n, 1 << 13, (int)j->c->threads, quot_range, &q, NULL, NULL);
    if ((rc = backend_msm_g1(j->c->b, j->c->h, h, K->nh, &j->h_acc[p], e))) return rc;
  }
  j->ntt_done = 1;
  return PS_OK;
}

/* Where partition p's MSMs are in the device batches of g16_msm and g16_b_g2 (k
 * partitions): L, A, B_G1 for each partition in order (one sort of the partition's witness
 * for the three); B_G2 from the last partition to the first, so that the first takes the
 * sort the msm phase left on the device (when msm ran first) and the others make their
 * own. */
#define MSM_L(p) (3 * (p))
#define MSM_A(p) (3 * (p) + 1)
#define MSM_B1(p) (3 * (p) + 2)
#define MSM_B2(k, p) ((k) - 1 - (p))

int g16_msm(g16_job *j, ps_err *e) {
  if (!j->prep_done) return order_error(e, "msm", "prep");
  if (!j->ntt_done) return order_error(e, "msm", "ntt_h");
  const g16_keys *K = j->c->k;
  int rc;
  if (backend_has_device(j->c->b)) {
    /* L, A, B_G1 of every partition back to back on the uploaded scalars (MSM_A and so on
     * below): L over every variable when its bases have their head (g16_dkey), so that A
     * and B_G1 take L's sort of the witness, and so can B_G2 after them (g16_b_g2). */
    const size_t head = j->c->dk->l_head; /* npub + 1 on a device */
    int cnt = 3 * j->k;
    backend_msm_bases **m = xmalloc((size_t)cnt * sizeof *m);
    size_t *off = xmalloc((size_t)cnt * sizeof *off), *n = xmalloc((size_t)cnt * sizeof *n);
    for (int p = 0; p < j->k; p++) {
      size_t base = (size_t)p * K->nvars;
      m[MSM_L(p)] = j->c->l, off[MSM_L(p)] = base + K->npub + 1 - head, n[MSM_L(p)] = K->nl + head;
      m[MSM_A(p)] = j->c->a, off[MSM_A(p)] = base, n[MSM_A(p)] = K->nvars;
      m[MSM_B1(p)] = j->c->b_g1, off[MSM_B1(p)] = base, n[MSM_B1(p)] = K->nvars;
    }
    backend_msm_deferred_free(j->def_msm);
    j->def_msm = NULL;
    rc = backend_msm_g1_vec_deferred(j->c->b, cnt, m, j->bufs->dev_scal, off, n, &j->def_msm, e);
    free(m), free(off), free(n);
    if (rc) return rc;
    j->msm_done = 1;
    return PS_OK;
  }
  for (int p = 0; p < j->k; p++) {
    const fr_t *s = j->scal + (size_t)p * K->nvars;
    if ((rc = backend_msm_g1(j->c->b, j->c->a, s, K->nvars, &j->a_acc[p], e)) ||
        (rc = backend_msm_g1(j->c->b, j->c->b_g1, s, K->nvars, &j->b1_acc[p], e)) ||
        (rc = backend_msm_g1(j->c->b, j->c->l, s + K->npub + 1, K->nl, &j->l_acc[p], e)))
      return rc;
  }
  j->msm_done = 1;
  return PS_OK;
}

int g16_b_g2(g16_job *j, ps_err *e) {
  if (!j->prep_done) return order_error(e, "b_g2", "prep");
  const g16_keys *K = j->c->k;
  int rc;
  if (backend_has_device(j->c->b)) {
    backend_msm_bases **m = xmalloc((size_t)j->k * sizeof *m);
    size_t *off = xmalloc((size_t)j->k * sizeof *off), *n = xmalloc((size_t)j->k * sizeof *n);
    for (int p = 0; p < j->k; p++) {
      const int i = MSM_B2(j->k, p);
      m[i] = j->c->b_g2, off[i] = (size_t)p * K->nvars, n[i] = K->nvars;
    }
    backend_msm_deferred_free(j->def_b2);
    j->def_b2 = NULL;
    rc = backend_msm_g2_vec_deferred(j->c->b, j->k, m, j->bufs->dev_scal, off, n, &j->def_b2, e);
    free(m), free(off), free(n);
    if (rc) return rc;
  } else {
    for (int p = 0; p < j->k; p++)
      if ((rc = backend_msm_g2(j->c->b, j->c->b_g2, j->scal + (size_t)p * K->nvars, K->nvars, &j->b2_acc[p], e)))
        return rc;
  }
  j->bg2_done = 1;
  return PS_OK;
}

int g16_epilogue(g16_job *j, ps_err *e) {
  if (!j->msm_done) return order_error(e, "epilogue", "msm");
  if (!j->bg2_done) return order_error(e, "epilogue", "b_g2");
  const g16_keys *K = j->c->k;
  /* The device MSMs' last step: window sums to points, here on the CPU. */
  for (int p = 0; p < j->k; p++) {
    if (j->def_h) backend_msm_deferred_point(j->def_h, p, &j->h_acc[p]);
    if (j->def_msm) {
      backend_msm_deferred_point(j->def_msm, MSM_A(p), &j->a_acc[p]);
      backend_msm_deferred_point(j->def_msm, MSM_B1(p), &j->b1_acc[p]);
      backend_msm_deferred_point(j->def_msm, MSM_L(p), &j->l_acc[p]);
      if (j->c->dk->l_head) { /* L's head: minus (sum of the first l_head scalars) G1 */
        const fr_t *z = j->z + (size_t)p * K->nvars;
        fr_t s, sc;
        fr_zero(&s);
        for (size_t i = 0; i < j->c->dk->l_head; i++) fr_add(&s, &s, &z[i]);
        fr_neg(&s, &s);
        fr_to_canon(&sc, &s);
        g1_affine_t gen;
        g1_jac_t t;
        g1_generator(&gen);
        g1_affine_mul(&t, &gen, &sc);
        g1_jac_add(&j->l_acc[p], &j->l_acc[p], &t);
      }
    }
    if (j->def_b2) backend_msm_deferred_point(j->def_b2, MSM_B2(j->k, p), &j->b2_acc[p]);
  }
  for (int p = 0; p < j->k; p++) {
    uint64_t st = j->rng_seed ^ (0xb11d1e5ull * (uint64_t)(p + 1));
    fr_t r, s, rs, rc, sc, rsc;
    g16__nonzero_random(&r, &st);
    g16__nonzero_random(&s, &st);
    fr_mul(&rs, &r, &s);
    fr_neg(&rs, &rs);
    fr_to_canon(&rc, &r);
    fr_to_canon(&sc, &s);
    fr_to_canon(&rsc, &rs);
    g1_jac_t a, b1, c, t;
    g2_jac_t b2, t2;
    /* A = alpha + sum z_i A_i + r delta */
    g1_affine_mul(&t, &K->delta_g1, &rc);
    g1_jac_add(&a, &j->a_acc[p], &t);
    g1_jac_add_affine(&a, &a, &K->alpha_g1);
    /* B = beta + sum z_i B_i + s delta, in G2 and G1 */
    g2_affine_mul(&t2, &K->delta_g2, &sc);
    g2_jac_add(&b2, &j->b2_acc[p], &t2);
    g2_jac_add_affine(&b2, &b2, &K->beta_g2);
    g1_affine_mul(&t, &K->delta_g1, &sc);
    g1_jac_add(&b1, &j->b1_acc[p], &t);
    g1_jac_add_affine(&b1, &b1, &K->beta_g1);
    /* C = L + H + s A + r B_G1 - r s delta */
    g1_jac_add(&c, &j->l_acc[p], &j->h_acc[p]);
    g1_jac_mul(&t, &a, &sc);
    g1_jac_add(&c, &c, &t);
    g1_jac_mul(&t, &b1, &rc);
    g1_jac_add(&c, &c, &t);
    g1_affine_mul(&t, &K->delta_g1, &rsc);
    g1_jac_add(&c, &c, &t);
    g1_jac_to_affine(&j->proofs[p].a, &a);
    g2_jac_to_affine(&j->proofs[p].b, &b2);
    g1_jac_to_affine(&j->proofs[p].c, &c);
  }
  j->epi_done = 1;
  return PS_OK;
}

const g16_proof *g16_job_proof(const g16_job *j, int i) {
  PS_ASSERT(j->epi_done && i >= 0 && i < j->k);
  return &j->proofs[i];
}

const fr_t *g16_job_public(const g16_job *j, int i, int *npublic) {
  PS_ASSERT(j->synth_done && i >= 0 && i < j->k);
  if (npublic) *npublic = j->c->k->npub;
  return j->z + (size_t)i * j->c->k->nvars + 1;
}

int g16_prove(g16_ctx *c, uint64_t instance_seed, uint64_t rng_seed, g16_proof *out, fr_t *pub, int *npub,
              ps_err *e) {
  g16_job *j = g16_job_new(c, 1, &instance_seed, rng_seed);
  int rc;
  if ((rc = g16_synth(j, e)) || (rc = g16_prep(j, e)) || (rc = g16_ntt_h(j, e)) ||
      (rc = g16_msm(j, e)) || (rc = g16_b_g2(j, e)) || (rc = g16_epilogue(j, e))) {
    g16_job_free(j);
    return rc;
  }
  *out = j->proofs[0];
  int np;
  const fr_t *pp = g16_job_public(j, 0, &np);
  if (pub) memcpy(pub, pp, (size_t)np * sizeof *pub);
  if (npub) *npub = np;
  g16_job_free(j);
  return PS_OK;
}

/* ---- verification ---- */

static int g1_valid(const g1_affine_t *p) { return g1_affine_is_on_curve(p) && g1_affine_in_subgroup(p); }
static int g2_valid(const g2_affine_t *p) { return g2_affine_is_on_curve(p) && g2_affine_in_subgroup(p); }

int g16_verify(const g16_vk *vk, const g16_proof *p, const fr_t *pub, int npub, ps_err *e) {
  if (!vk || !p || (npub > 0 && !pub)) return ps_fail(e, PS_EINPUT, "verify: NULL argument");
  if (vk->nic != npub + 1)
    return ps_fail(e, PS_EINPUT, "verify: %d public inputs, but the verifying key expects %d", npub,
                   vk->nic - 1);
  if (!g1_valid(&p->a) || !g2_valid(&p->b) || !g1_valid(&p->c))
    return ps_fail(e, PS_EINPUT, "verify: a proof point is not on the curve or not in the subgroup");
  if (!g1_valid(&vk->alpha_g1) || !g2_valid(&vk->beta_g2) || !g2_valid(&vk->gamma_g2) ||
      !g2_valid(&vk->delta_g2))
    return ps_fail(e, PS_EINPUT, "verify: a verifying-key point is not on the curve or not in the subgroup");
  for (int i = 0; i < vk->nic; i++)
    if (!g1_valid(&vk->ic[i]))
      return ps_fail(e, PS_EINPUT, "verify: IC[%d] of the verifying key is not a valid G1 point", i);
  g1_jac_t acc, t;
  g1_jac_from_affine(&acc, &vk->ic[0]);
  for (int i = 0; i < npub; i++) {
    fr_t c;
    fr_to_canon(&c, &pub[i]);
    g1_affine_mul(&t, &vk->ic[i + 1], &c);
    g1_jac_add(&acc, &acc, &t);
  }
  g1_affine_t ps[4];
  g2_affine_t qs[4] = {p->b, vk->beta_g2, vk->gamma_g2, vk->delta_g2};
  ps[0] = p->a;
  g1_affine_neg(&ps[1], &vk->alpha_g1);
  g1_jac_to_affine(&ps[2], &acc);
  g1_affine_neg(&ps[2], &ps[2]);
  g1_affine_neg(&ps[3], &p->c);
  return pairing_product_is_one(ps, qs, 4);
}
