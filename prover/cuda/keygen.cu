/* Key generation on the GPU (psc_keygen.h, behind backend_fb_*): the setup's fixed-base
 * products k_i * G over a window table of d * 2^(w j) * G (fb.h's layout, built on the
 * host and kept on the device). A thread per product adds one table entry per nonzero
 * w-bit digit of its scalar in XYZZ form (ps_ec.cuh's mixed addition, which handles the
 * exceptional sums); then a thread per run of products, strided so that neighbouring
 * threads touch neighbouring points, brings its run to affine form with one inversion
 * (Montgomery's trick: prefix products of ZZZ, one Fermat inversion, a backward pass;
 * 1/ZZ = (ZZ / ZZZ)^2). Affine points are unique and every field value is fully reduced,
 * so the bytes equal the CPU's (fb_cpu.c). The products run in chunks on two streams with
 * pinned staging buffers, so one chunk's copies overlap the other's kernels; the host's
 * copies to and from the staging buffers run on every CPU. */
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "ps_curves.cuh"
#include "psc_int.cuh"
#include "psc_keygen.h"

#define KG_CHUNK ((size_t)1 << 22) /* products per chunk */
#define KG_RUN 32                  /* products per inversion */
#define KG_THREADS 128

struct psc_fb {
  psc_dev *d;
  int g2;
  unsigned w, nwin;
  size_t per;
  void *table; /* device: nwin * per affine points */
};

/* Bits [pos, pos + c) of a canonical scalar (c <= 24). */
__device__ __forceinline__ unsigned kg_bits(const uint32_t *k, unsigned pos, unsigned c) {
  unsigned limb = pos >> 5, sh = pos & 31;
  uint64_t w = k[limb];
  if (limb + 1 < 8) w |= (uint64_t)k[limb + 1] << 32;
  return (unsigned)(w >> sh) & ((1u << c) - 1);
}

/* The two kernels, written once for both groups (G: g1/g2, F: the coordinate field). */
#define KG_DEFINE(G, AFF, XYZZ, F, FN)                                                                     \
  __global__ void __launch_bounds__(KG_THREADS) G##_kg_mul(XYZZ *acc, const fr_t *__restrict__ k, size_t m, \
                                                           const AFF *__restrict__ tab, unsigned w,         \
                                                           unsigned nwin, size_t per) {                     \
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (i >= m) return;                                                                                    \
    fr_t s = k[i], c;                                                                                      \
    fr_from_mont_d(&c, &s);                                                                                \
    XYZZ p;                                                                                                \
    G##_set_inf_d(&p);                                                                                     \
    for (unsigned j = 0; j < nwin; j++) {                                                                  \
      unsigned pos = j * w, bits = 255 - pos < w ? 255 - pos : w;                                          \
      unsigned d = kg_bits(c.v, pos, bits);                                                                \
      if (!d) continue;                                                                                    \
      AFF a = tab[j * per + d - 1];                                                                        \
      if (!G##_aff_is_inf_d(&a)) G##_madd_d(&p, &a.x, &a.y);                                               \
    }                                                                                                      \
    acc[i] = p;                                                                                            \
  }                                                                                                        \
                                                                                                           \
  /* Thread t converts points t, t + T, t + 2T, ... (< m) to affine form. */                               \
  __global__ void __launch_bounds__(KG_THREADS) G##_kg_affine(AFF *out, const XYZZ *__restrict__ p, F *pre, \
                                                              size_t m, size_t T) {                        \
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;                                              \
    if (t >= T || t >= m) return;                                                                          \
    F acc, inv;                                                                                            \
    FN(set_one)(&acc);                                                                                     \
    size_t last = t;                                                                                       \
    for (size_t i = t; i < m; i += T) {                                                                    \
      last = i;                                                                                            \
      if (FN(is_zero)(&p[i].zz)) continue;                                                                 \
      pre[i] = acc;                                                                                        \
      F z = p[i].zzz;                                                                                      \
      FN(mul)(&acc, &acc, &z);                                                                             \
    }                                                                                                      \
    FN(inv)(&inv, &acc);                                                                                   \
    for (size_t i = last + T; i >= t + T; i -= T) {                                                        \
      XYZZ q = p[i - T];                                                                                   \
      AFF a;                                                                                               \
      if (FN(is_zero)(&q.zz)) {                                                                            \
        FN(set_zero)(&a.x);                                                                                \
        FN(set_zero)(&a.y);                                                                                \
      } else {                                                                                             \
        F wv, iz, izz, pr = pre[i - T];                                                                    \
        FN(mul)(&wv, &inv, &pr);                                                                           \
        FN(mul)(&inv, &inv, &q.zzz);                                                                       \
        FN(mul)(&iz, &q.zz, &wv);                                                                          \
        FN(mul)(&izz, &iz, &iz);                                                                           \
        FN(mul)(&a.x, &q.x, &izz);                                                                         \
        FN(mul)(&a.y, &q.y, &wv);                                                                          \
      }                                                                                                    \
      out[i - T] = a;                                                                                      \
    }                                                                                                      \
  }

#define KG_FP(op) fp_##op##_d
#define KG_FP2(op) fp2_##op##_d
KG_DEFINE(g1, g1_affine_t, g1_xyzz_t, fp_t, KG_FP)
KG_DEFINE(g2, g2_affine_t, g2_xyzz_t, fp2_t, KG_FP2)

extern "C" int psc_fb_upload(psc_dev *d, int g2, const void *table, unsigned w, unsigned nwin, psc_fb **out,
                             ps_err *e) {
  int rc = PS_OK;
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  psc_fb *t = (psc_fb *)xcalloc(1, sizeof *t);
  *out = NULL;
  if (w < 1 || w > 24 || nwin * w < 255) {
    free(t);
    return ps_fail(e, PS_EINPUT, "fixed-base table: window %u with %u windows does not cover 255 bits", w, nwin);
  }
  t->d = d;
  t->g2 = g2;
  t->w = w;
  t->nwin = nwin;
  t->per = ((size_t)1 << w) - 1;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if ((rc = psc__alloc(d, &t->table, nwin * t->per * psz, g2 ? "fixed-base table (G2)" : "fixed-base table (G1)", e)))
    goto fail;
  PSC_CHECK(cudaMemcpy(t->table, table, nwin * t->per * psz, cudaMemcpyHostToDevice));
  *out = t;
  return PS_OK;
fail:
  cudaFree(t->table);
  free(t);
  return rc;
}

extern "C" void psc_fb_free(psc_fb *t) {
  if (!t) return;
  cudaSetDevice(t->d->ordinal);
  cudaFree(t->table);
  free(t);
}

/* A copy between pageable and pinned host memory on every CPU: the key's arrays are
 * fresh, so a single thread would spend the setup in their first-touch page faults. */
typedef struct kg_copy {
  char *dst;
  const char *src;
} kg_copy;

static void kg_copy_range(void *ctx, size_t lo, size_t hi) {
  kg_copy *c = (kg_copy *)ctx;
  memcpy(c->dst + lo, c->src + lo, hi - lo);
}

static void kg_memcpy(void *dst, const void *src, size_t bytes) {
  kg_copy c = {(char *)dst, (const char *)src};
  par_for(bytes, (size_t)1 << 20, 0, kg_copy_range, &c, NULL, NULL);
}

/* One chunk's buffers and stream. */
typedef struct kg_slot {
  cudaStream_t s;
  cudaEvent_t done;
  fr_t *d_k;
  void *d_acc, *d_pre, *d_out;
  fr_t *h_k;   /* pinned staging of the scalars */
  void *h_out; /* pinned staging of the products */
  int busy;
  size_t off, m;
} kg_slot;

extern "C" int psc_fb_mul(psc_fb *t, const fr_t *k, size_t n, void *out_affine, void (*tick)(void *, size_t),
                          void *tick_ctx, ps_err *e) {
  int rc = PS_OK;
  psc_dev *d = t->d;
  const int g2 = t->g2;
  const size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  const size_t xsz = g2 ? sizeof(g2_xyzz_t) : sizeof(g1_xyzz_t), fsz = g2 ? sizeof(fp2_t) : sizeof(fp_t);
  const size_t ch = n < KG_CHUNK ? n : KG_CHUNK, nch = (n + ch - 1) / ch;
  kg_slot sl[2];
  cudaEvent_t start = NULL;
  memset(sl, 0, sizeof sl);
  if (n == 0) return PS_OK;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  /* The slots' streams start after the work already on d's stream, and d's stream waits
   * for them at the end, so events on d's stream (psc_mark) span the whole operation. */
  PSC_CHECK(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
  PSC_CHECK(cudaEventRecord(start, d->stream));
  for (int i = 0; i < 2; i++) {
    kg_slot *s = &sl[i];
    PSC_CHECK(cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking));
    PSC_CHECK(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming));
    PSC_CHECK(cudaStreamWaitEvent(s->s, start, 0));
    if ((rc = psc__alloc(d, (void **)&s->d_k, ch * sizeof(fr_t), "key generation scalars", e)) ||
        (rc = psc__alloc(d, &s->d_acc, ch * xsz, "key generation sums", e)) ||
        (rc = psc__alloc(d, &s->d_pre, ch * fsz, "key generation inversion", e)) ||
        (rc = psc__alloc(d, &s->d_out, ch * psz, "key generation products", e)))
      goto fail;
    PSC_CHECK(cudaHostAlloc((void **)&s->h_k, ch * sizeof(fr_t), cudaHostAllocDefault));
    PSC_CHECK(cudaHostAlloc(&s->h_out, ch * psz, cudaHostAllocDefault));
    if (nch == 1) break;
  }
  /* Chunk c goes to slot c % 2; before refilling a slot, its previous chunk is copied out. */
  for (size_t c = 0; c < nch + 2; c++) {
    kg_slot *s = &sl[nch == 1 ? 0 : c % 2];
    if (s->busy) {
      PSC_CHECK(cudaEventSynchronize(s->done));
      kg_memcpy((char *)out_affine + s->off * psz, s->h_out, s->m * psz);
      s->busy = 0;
      if (tick) tick(tick_ctx, s->off + s->m);
    }
    if (c >= nch) continue;
    s->off = c * ch;
    s->m = n - s->off < ch ? n - s->off : ch;
    kg_memcpy(s->h_k, k + s->off, s->m * sizeof(fr_t));
    PSC_CHECK(cudaMemcpyAsync(s->d_k, s->h_k, s->m * sizeof(fr_t), cudaMemcpyHostToDevice, s->s));
    size_t T = (s->m + KG_RUN - 1) / KG_RUN;
    if (g2) {
      g2_kg_mul<<<psc__blocks(s->m, KG_THREADS), KG_THREADS, 0, s->s>>>(
          (g2_xyzz_t *)s->d_acc, s->d_k, s->m, (const g2_affine_t *)t->table, t->w, t->nwin, t->per);
      PSC_CHECK_LAUNCH();
      g2_kg_affine<<<psc__blocks(T, KG_THREADS), KG_THREADS, 0, s->s>>>(
          (g2_affine_t *)s->d_out, (const g2_xyzz_t *)s->d_acc, (fp2_t *)s->d_pre, s->m, T);
    } else {
      g1_kg_mul<<<psc__blocks(s->m, KG_THREADS), KG_THREADS, 0, s->s>>>(
          (g1_xyzz_t *)s->d_acc, s->d_k, s->m, (const g1_affine_t *)t->table, t->w, t->nwin, t->per);
      PSC_CHECK_LAUNCH();
      g1_kg_affine<<<psc__blocks(T, KG_THREADS), KG_THREADS, 0, s->s>>>(
          (g1_affine_t *)s->d_out, (const g1_xyzz_t *)s->d_acc, (fp_t *)s->d_pre, s->m, T);
    }
    PSC_CHECK_LAUNCH();
    PSC_CHECK(cudaMemcpyAsync(s->h_out, s->d_out, s->m * psz, cudaMemcpyDeviceToHost, s->s));
    PSC_CHECK(cudaEventRecord(s->done, s->s));
    s->busy = 1;
  }
  for (int i = 0; i < 2; i++)
    if (sl[i].s) PSC_CHECK(cudaStreamWaitEvent(d->stream, sl[i].done, 0));
fail:
  for (int i = 0; i < 2; i++) {
    kg_slot *s = &sl[i];
    if (s->s) cudaStreamSynchronize(s->s);
    cudaFree(s->d_k), cudaFree(s->d_acc), cudaFree(s->d_pre), cudaFree(s->d_out);
    if (s->h_k) cudaFreeHost(s->h_k);
    if (s->h_out) cudaFreeHost(s->h_out);
    if (s->done) cudaEventDestroy(s->done);
    if (s->s) cudaStreamDestroy(s->s);
  }
  if (start) cudaEventDestroy(start);
  return rc;
}
