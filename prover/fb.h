/* Fixed-base scalar multiplication on G1 and G2 in the plain-C backend, for key
 * generation: k_i * G for millions of scalars k_i and one base G. A table holds
 * d * 2^(w j) * G for every window j < ceil(255/w) and digit 1 <= d < 2^w, in affine form,
 * so k * G costs one addition per nonzero digit. The results are affine points (the point
 * at infinity as zeros), which are unique, so any backend that computes the same products
 * gives the same bytes (prover/backend.h, backend_fb_*). */
#ifndef PROVESIM_FB_H
#define PROVESIM_FB_H

#include <stddef.h>
#include "curve.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FB_MAX_WINDOW_G1 16
#define FB_MAX_WINDOW_G2 15

/* The table of one base: nwin windows of per = 2^w - 1 affine points, window j's digit d
 * at t[j * per + d - 1]. */
typedef struct fb_g1 {
  unsigned w, nwin;
  size_t per;
  g1_affine_t *t;
} fb_g1;
typedef struct fb_g2 {
  unsigned w, nwin;
  size_t per;
  g2_affine_t *t;
} fb_g2;

/* The window (4..cap bits) that minimises table building plus lookups for n products:
 * ceil(255/w) * (n + 2^w). */
unsigned fb_window(size_t n, unsigned cap);

/* Builds the table of gen for window w (4..16 for G1, 4..15 for G2) on every CPU. Free
 * with fb_g1_free / fb_g2_free (which accept a zeroed table). */
void fb_g1_build(fb_g1 *fb, const g1_affine_t *gen, unsigned w);
void fb_g2_build(fb_g2 *fb, const g2_affine_t *gen, unsigned w);
void fb_g1_free(fb_g1 *fb);
void fb_g2_free(fb_g2 *fb);

/* out[i] = k[i] * G for Montgomery-form scalars k (the form the setup computes them in),
 * on every CPU (threads = 0) or `threads` threads; affine accumulators share one field
 * inversion per window and chunk (Montgomery's trick). tick (may be NULL) is par_for's
 * progress callback, with the number of products done. */
void fb_g1_mul(const fb_g1 *fb, const fr_t *k, g1_affine_t *out, size_t n, int threads,
               void (*tick)(void *, size_t), void *tick_ctx);
void fb_g2_mul(const fb_g2 *fb, const fr_t *k, g2_affine_t *out, size_t n, int threads,
               void (*tick)(void *, size_t), void *tick_ctx);

#ifdef __cplusplus
}
#endif

#endif
