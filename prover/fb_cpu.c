/* Fixed-base scalar multiplication in plain C (fb.h): the window tables and the products
 * of the setup, on every CPU. The reference for the CUDA backend's key generation
 * (prover/cuda/keygen.cu), which must give the same affine points. */
#include "fb.h"

#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "util.h"

/* Bits [off, off + w) of a canonical scalar (w <= 24). */
static unsigned scalar_bits(const fr_t *k, unsigned off, unsigned w) {
  uint64_t v = 0;
  unsigned limb = off / 32, sh = off % 32;
  for (unsigned i = 0; i < 2 && limb + i < BLS_FR_LIMBS; i++) v |= (uint64_t)k->v[limb + i] << (32 * i);
  return (unsigned)((v >> sh) & ((1u << w) - 1));
}

/* ---- fixed-base scalar multiplication: a table of d * 2^(w i) * G for every window i
 * and digit d, so k * G costs one mixed addition per window. Written once for both
 * groups. ---- */

unsigned fb_window(size_t n, unsigned cap) {
  unsigned best = 4;
  double bestc = 1e300;
  for (unsigned w = 4; w <= cap; w++) {
    double c = (double)((255 + w - 1) / w) * ((double)n + (double)(1u << w));
    if (c < bestc) bestc = c, best = w;
  }
  return best;
}

#define FB_DEFINE(G, F, FT, AFF, JAC)                                                                  \
  typedef struct fb_##G##_bld {                                                                   \
    fb_##G *fb;                                                                                 \
    JAC *bases; /* 2^(w j) G per window j */                                                    \
  } fb_##G##_bld;                                                                                 \
                                                                                                \
  static void fb_##G##_build_range(void *ctx, size_t lo, size_t hi) {                             \
    fb_##G##_bld *bl = ctx;                                                                       \
    fb_##G *fb = bl->fb;                                                                        \
    JAC *tmp = xmalloc(fb->per * sizeof *tmp);                                                  \
    for (size_t i = lo; i < hi; i++) {                                                          \
      tmp[0] = bl->bases[i];                                                                    \
      for (size_t d = 1; d < fb->per; d++) G##_jac_add(&tmp[d], &tmp[d - 1], &bl->bases[i]);    \
      G##_jac_batch_to_affine(fb->t + i * fb->per, tmp, fb->per);                               \
    }                                                                                           \
    free(tmp);                                                                                  \
  }                                                                                             \
                                                                                                \
  void fb_##G##_build(fb_##G *fb, const AFF *gen, unsigned w) {                                   \
    fb_##G##_bld bl = {fb, NULL};                                                                 \
    fb->w = w;                                                                                  \
    fb->nwin = (255 + w - 1) / w;                                                               \
    fb->per = ((size_t)1 << w) - 1;                                                             \
    fb->t = xmalloc(fb->nwin * fb->per * sizeof *fb->t);                                        \
    bl.bases = xmalloc(fb->nwin * sizeof *bl.bases);                                            \
    G##_jac_from_affine(&bl.bases[0], gen);                                                     \
    for (unsigned i = 1; i < fb->nwin; i++) {                                                   \
      bl.bases[i] = bl.bases[i - 1];                                                            \
      for (unsigned j = 0; j < w; j++) G##_jac_dbl(&bl.bases[i], &bl.bases[i]);                 \
    }                                                                                           \
    par_for(fb->nwin, 1, 0, fb_##G##_build_range, &bl, NULL, NULL);                               \
    free(bl.bases);                                                                             \
  }                                                                                             \
                                                                                                \
  typedef struct fb_##G##_job {                                                                   \
    const fb_##G *fb;                                                                           \
    const fr_t *k;                                                                              \
    AFF *out;                                                                                   \
  } fb_##G##_job;                                                                                 \
                                                                                                \
  /* The chunk's k[i] G, window by window, with affine accumulators: each window's additions   \
   * share one field inversion (Montgomery's trick). The rare exceptional sums (equal x)        \
   * go through the Jacobian formulas. */                                                       \
  static void fb_##G##_many_range(void *ctx, size_t lo, size_t hi) {                              \
    fb_##G##_job *j = ctx;                                                                        \
    const fb_##G *fb = j->fb;                                                                   \
    size_t m = hi - lo;                                                                         \
    AFF *acc = j->out + lo;                                                                     \
    fr_t *k = xmalloc(m * sizeof *k);                                                           \
    FT *den = xmalloc(m * sizeof *den), *pre = xmalloc(m * sizeof *pre);                        \
    const AFF **add = xmalloc(m * sizeof *add);                                                 \
    unsigned char *live = xcalloc(m, 1);                                                        \
    for (size_t e = 0; e < m; e++) {                                                            \
      fr_to_canon(&k[e], &j->k[lo + e]);                                                        \
      G##_affine_set_inf(&acc[e]);                                                              \
    }                                                                                           \
    for (unsigned i = 0; i < fb->nwin; i++) {                                                   \
      unsigned bits = 255 - i * fb->w < fb->w ? 255 - i * fb->w : fb->w;                        \
      FT run;                                                                                   \
      F##_one(&run);                                                                            \
      for (size_t e = 0; e < m; e++) {                                                          \
        unsigned d = scalar_bits(&k[e], i * fb->w, bits);                                       \
        add[e] = NULL;                                                                          \
        if (!d) continue;                                                                       \
        const AFF *t = &fb->t[i * fb->per + d - 1];                                             \
        if (!live[e]) {                                                                         \
          acc[e] = *t;                                                                          \
          live[e] = 1;                                                                          \
        } else if (!memcmp(&acc[e].x, &t->x, 4) && F##_eq(&acc[e].x, &t->x)) {                 \
          JAC r;                                                                                \
          G##_jac_from_affine(&r, &acc[e]);                                                     \
          G##_jac_add_affine(&r, &r, t);                                                        \
          G##_jac_to_affine(&acc[e], &r);                                                       \
          live[e] = !G##_jac_is_inf(&r);                                                        \
        } else {                                                                                \
          add[e] = t;                                                                           \
          F##_sub(&den[e], &t->x, &acc[e].x);                                                   \
          pre[e] = run;                                                                         \
          F##_mul(&run, &run, &den[e]);                                                         \
        }                                                                                       \
      }                                                                                         \
      FT inv;                                                                                   \
      F##_inv(&inv, &run);                                                                      \
      for (size_t e = m; e-- > 0;) {                                                            \
        if (!add[e]) continue;                                                                  \
        FT di, lam, x3, y3;                                                                     \
        F##_mul(&di, &inv, &pre[e]);                                                            \
        F##_mul(&inv, &inv, &den[e]);                                                           \
        F##_sub(&lam, &add[e]->y, &acc[e].y);                                                   \
        F##_mul(&lam, &lam, &di);                                                               \
        F##_sqr(&x3, &lam);                                                                     \
        F##_sub(&x3, &x3, &acc[e].x);                                                           \
        F##_sub(&x3, &x3, &add[e]->x);                                                          \
        F##_sub(&y3, &acc[e].x, &x3);                                                           \
        F##_mul(&y3, &y3, &lam);                                                                \
        F##_sub(&y3, &y3, &acc[e].y);                                                           \
        acc[e].x = x3;                                                                          \
        acc[e].y = y3;                                                                          \
      }                                                                                         \
    }                                                                                           \
    for (size_t e = 0; e < m; e++)                                                              \
      if (!live[e]) G##_affine_set_inf(&acc[e]);                                                \
    free(k), free(den), free(pre), free(add), free(live);                                       \
  }                                                                                             \
                                                                                                \
  void fb_##G##_mul(const fb_##G *fb, const fr_t *k, AFF *out, size_t n, int threads,              \
                  void (*tick)(void *, size_t), void *tick_ctx) {                               \
    fb_##G##_job j = {fb, k, out};                                                                \
    par_for(n, 2048, threads, fb_##G##_many_range, &j, tick, tick_ctx);                           \
  }                                                                                             \
                                                                                                \
  void fb_##G##_free(fb_##G *fb) {                                                                \
    free(fb->t);                                                                                \
    fb->t = NULL;                                                                               \
  }

FB_DEFINE(g1, fp, fp_t, g1_affine_t, g1_jac_t)
FB_DEFINE(g2, fp2, fp2_t, g2_affine_t, g2_jac_t)
