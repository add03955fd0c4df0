/* Radix-2 NTT over Fr in plain C. Decimation in frequency (Gentleman-Sande) maps natural
 * order to bit-reversed order, decimation in time (Cooley-Tukey) maps bit-reversed to
 * natural; one bit-reversal permutation gives the two other order combinations. One
 * twiddle table w^j, j < n/2, serves every stage (stage of half-span h reads it with
 * stride n/2h). Work is split with par_for: whole vectors of a batch when there are
 * enough, otherwise each vector in two or three parallel steps (vector_steps). */
#include "ntt.h"

#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "fr.h"
#include "par.h"
#include "util.h"

/* Below this size a vector is transformed on one thread. */
#define NTT_PAR_MIN_LOG 12
/* The largest hl of vector_steps: local blocks of 2^11 elements (64 KiB) stay in cache. */
#define NTT_LOCAL_MAX_HALF ((size_t)1 << 10)

void ntt_root_of_unity(fr_t *w, unsigned log_n) {
  PS_ASSERT(log_n <= BLS_FR_TWO_ADICITY);
  fr_t r = BLS_FR_ROOT_OF_UNITY;
  for (unsigned i = log_n; i < BLS_FR_TWO_ADICITY; i++) fr_sqr(&r, &r);
  *w = r;
}

static inline size_t bitrev(size_t i, unsigned log_n) {
  uint64_t x = i;
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
  x = __builtin_bswap64(x);
  return (size_t)(x >> (64 - log_n));
}

void ntt_bitrev_permute(fr_t *a, unsigned log_n) {
  size_t n = (size_t)1 << log_n;
  for (size_t i = 0; i < n; i++) {
    size_t j = bitrev(i, log_n);
    if (i < j) {
      fr_t t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}

/* tw[j] = base^j for j < count. */
static void powers(fr_t *tw, size_t count, const fr_t *base) {
  fr_one(&tw[0]);
  for (size_t j = 1; j < count; j++) fr_mul(&tw[j], &tw[j - 1], base);
}

/* One butterfly on x, y with twiddle w (NULL for w^0 = 1). */
static inline void butterfly(fr_t *x, fr_t *y, const fr_t *w, int dit) {
  fr_t a = *x, b = *y;
  if (!dit) {
    fr_add(x, &a, &b);
    fr_sub(y, &a, &b);
    if (w) fr_mul(y, y, w);
  } else {
    if (w) fr_mul(&b, &b, w);
    fr_add(x, &a, &b);
    fr_sub(y, &a, &b);
  }
}

/* One stage of half-span h over the butterfly range [b0, b1) of a vector of n elements
 * (butterfly index q = block * h + j: it joins positions k = 2 block h + j and k + h). */
static void stage(fr_t *d, size_t n, size_t h, const fr_t *tw, int dit, size_t b0, size_t b1) {
  size_t stride = n / (2 * h);
  for (size_t q = b0; q < b1; q++) {
    size_t j = q & (h - 1), k = (q - j) * 2 + j;
    butterfly(&d[k], &d[k + h], j ? &tw[j * stride] : NULL, dit);
  }
}

/* The butterflies of the same stage (span divides h) whose positions k have k mod span in
 * [r0, r1): k mod span = j mod span, so they are those with j mod span in [r0, r1). */
static void stage_classes(fr_t *d, size_t n, size_t h, const fr_t *tw, int dit, size_t span,
                          size_t r0, size_t r1) {
  size_t stride = n / (2 * h);
  for (size_t blk = 0; blk < n; blk += 2 * h)
    for (size_t j0 = 0; j0 < h; j0 += span)
      for (size_t j = j0 + r0; j < j0 + r1; j++)
        butterfly(&d[blk + j], &d[blk + j + h], j ? &tw[j * stride] : NULL, dit);
}

/* Per-index factors f(i) = first * base^i without an n-element table: f(i) =
 * hi[i >> SCALE_LO_BITS] * lo[i & (2^SCALE_LO_BITS - 1)], with lo[j] = base^j and
 * hi[j] = first * base^(j 2^SCALE_LO_BITS); one extra multiplication per element. */
#define SCALE_LO_BITS 10
typedef struct {
  fr_t *lo, *hi;
} scale_tab;

static void scale_tab_init(scale_tab *t, size_t n, const fr_t *base, const fr_t *first) {
  size_t nlo = (size_t)1 << SCALE_LO_BITS, nhi = (n + nlo - 1) / nlo;
  if (nlo > n) nlo = n;
  t->lo = xmalloc(nlo * sizeof *t->lo);
  t->hi = xmalloc(nhi * sizeof *t->hi);
  powers(t->lo, nlo, base);
  fr_t step = *base;
  for (unsigned b = 0; b < SCALE_LO_BITS; b++) fr_sqr(&step, &step);
  t->hi[0] = *first;
  for (size_t j = 1; j < nhi; j++) fr_mul(&t->hi[j], &t->hi[j - 1], &step);
}

/* Multiplies position p by f(idx(p)), where idx is p or rev(p). */
static inline void scale_at(fr_t *d, const scale_tab *t, unsigned log_n, int rev, size_t p) {
  const size_t mask = ((size_t)1 << SCALE_LO_BITS) - 1;
  size_t i = rev ? bitrev(p, log_n) : p;
  fr_t f;
  fr_mul(&f, &t->hi[i >> SCALE_LO_BITS], &t->lo[i & mask]);
  fr_mul(&d[p], &d[p], &f);
}

static void scale_range(fr_t *d, const scale_tab *t, unsigned log_n, int rev, size_t p0, size_t p1) {
  for (size_t p = p0; p < p1; p++) scale_at(d, t, log_n, rev, p);
}

/* The shared plan of one call. */
typedef struct {
  fr_t *data;
  unsigned log_n;
  size_t n;
  int flags;
  const fr_t *tw;       /* w^j (or w^-j for the inverse), j < n/2 */
  const scale_tab *pre;  /* per-index factors before the transform, or NULL */
  const scale_tab *post; /* per-index factors after it, or NULL */
  /* Step-parallel: the vector in hand and hl (see vector_steps). */
  fr_t *d;
  size_t hl;
} plan;

/* The whole transform of one vector on one thread. */
static void one_vector(const plan *pl, fr_t *d) {
  size_t n = pl->n, half = n / 2;
  int in_rev = (pl->flags & NTT_IN_BITREV) != 0, out_rev = (pl->flags & NTT_OUT_BITREV) != 0;
  if (pl->pre) scale_range(d, pl->pre, pl->log_n, in_rev, 0, n);
  if (!in_rev) { /* DIF: natural -> bit-reversed */
    for (size_t h = half; h >= 1; h >>= 1) stage(d, n, h, pl->tw, 0, 0, half);
    if (!out_rev) ntt_bitrev_permute(d, pl->log_n);
  } else { /* DIT: bit-reversed -> natural */
    for (size_t h = 1; h < n; h <<= 1) stage(d, n, h, pl->tw, 1, 0, half);
    if (out_rev) ntt_bitrev_permute(d, pl->log_n);
  }
  if (pl->post) scale_range(d, pl->post, pl->log_n, out_rev, 0, n);
}

/* par_for bodies. Batch-parallel: vectors [lo, hi). */
static void batch_range(void *ctx, size_t lo, size_t hi) {
  const plan *pl = ctx;
  for (size_t v = lo; v < hi; v++) one_vector(pl, pl->data + v * pl->n);
}

/* The wide stages (vector_steps) on the classes [r0, r1) mod 2 hl. */
static void wide_range(void *ctx, size_t r0, size_t r1) {
  const plan *pl = ctx;
  fr_t *d = pl->d;
  size_t n = pl->n, span = 2 * pl->hl;
  int in_rev = (pl->flags & NTT_IN_BITREV) != 0, out_rev = (pl->flags & NTT_OUT_BITREV) != 0;
  if (!in_rev) {
    if (pl->pre)
      for (size_t b = 0; b < n; b += span) scale_range(d, pl->pre, pl->log_n, 0, b + r0, b + r1);
    for (size_t h = n / 2; h > pl->hl; h >>= 1) stage_classes(d, n, h, pl->tw, 0, span, r0, r1);
  } else {
    for (size_t h = span; h < n; h <<= 1) stage_classes(d, n, h, pl->tw, 1, span, r0, r1);
    if (pl->post && !out_rev)
      for (size_t b = 0; b < n; b += span) scale_range(d, pl->post, pl->log_n, 0, b + r0, b + r1);
  }
}

/* The local stages (vector_steps) on butterflies [lo, hi), multiples of hl: positions
 * [2 lo, 2 hi). */
static void local_range(void *ctx, size_t lo, size_t hi) {
  const plan *pl = ctx;
  fr_t *d = pl->d;
  int in_rev = (pl->flags & NTT_IN_BITREV) != 0, out_rev = (pl->flags & NTT_OUT_BITREV) != 0;
  if (!in_rev) {
    for (size_t h = pl->hl; h >= 1; h >>= 1) stage(d, pl->n, h, pl->tw, 0, lo, hi);
    if (pl->post && out_rev) scale_range(d, pl->post, pl->log_n, 1, 2 * lo, 2 * hi);
  } else {
    if (pl->pre) scale_range(d, pl->pre, pl->log_n, 1, 2 * lo, 2 * hi);
    for (size_t h = 1; h <= pl->hl; h <<= 1) stage(d, pl->n, h, pl->tw, 1, lo, hi);
  }
}

/* Positions [lo, hi): each swaps the pair it is the lower end of (so no element is moved
 * twice), then applies the factors after to the final values of its positions. */
static void permute_range(void *ctx, size_t lo, size_t hi) {
  const plan *pl = ctx;
  fr_t *d = pl->d;
  int out_rev = (pl->flags & NTT_OUT_BITREV) != 0;
  for (size_t i = lo; i < hi; i++) {
    size_t j = bitrev(i, pl->log_n);
    if (i > j) continue;
    if (i < j) {
      fr_t t = d[i];
      d[i] = d[j];
      d[j] = t;
      if (pl->post) scale_at(d, pl->post, pl->log_n, out_rev, j);
    }
    if (pl->post) scale_at(d, pl->post, pl->log_n, out_rev, i);
  }
}

/* Step-parallel: one vector on T threads, with the butterflies of one_vector. For a block
 * size 2 hl, the stages of half-span h <= hl ("local") join positions of the same block
 * of 2 hl consecutive ones, and those of h > hl ("wide") positions equal mod 2 hl. So the
 * wide stages run as one par_for over the classes mod 2 hl, the local ones as one over the
 * blocks, each piece independent of the others; DIF does wide then local, DIT local then
 * wide. The factors before go with the first of the two, those after with the last, or
 * with the permutation when there is one (a third par_for). */
static void vector_steps(plan *pl, fr_t *d, int T) {
  size_t half = pl->n / 2, span = 2 * pl->hl;
  /* Pieces of the wide step: a few per thread, at least 2 classes (adjacent positions
   * share a cache line). */
  size_t wide_grain = span / (4 * (size_t)T);
  if (wide_grain < 2) wide_grain = 2;
  pl->d = d;
  if (!(pl->flags & NTT_IN_BITREV)) {
    par_for(span, wide_grain, T, wide_range, pl, NULL, NULL);
    par_for(half, pl->hl, T, local_range, pl, NULL, NULL);
  } else {
    par_for(half, pl->hl, T, local_range, pl, NULL, NULL);
    par_for(span, wide_grain, T, wide_range, pl, NULL, NULL);
  }
  if (!(pl->flags & NTT_IN_BITREV) == !(pl->flags & NTT_OUT_BITREV))
    par_for(pl->n, span, T, permute_range, pl, NULL, NULL);
}

void ntt_cpu(fr_t *data, unsigned log_n, size_t batch, int flags, unsigned threads) {
  PS_ASSERT(log_n >= 1 && log_n <= NTT_MAX_LOG_N);
  if (batch == 0) return;
  size_t n = (size_t)1 << log_n;
  int inverse = (flags & NTT_INVERSE) != 0, coset = (flags & NTT_COSET) != 0;
  plan pl = {.data = data, .log_n = log_n, .n = n, .flags = flags};

  fr_t w, *tw = xmalloc(n / 2 * sizeof *tw);
  scale_tab scale = {NULL, NULL};
  ntt_root_of_unity(&w, log_n);
  if (inverse) fr_inv(&w, &w);
  powers(tw, n / 2, &w);
  pl.tw = tw;
  if (coset || inverse) {
    /* Forward coset: x_i *= g^i before. Inverse: y_i *= (1/n) g^-i after (coset), or
     * 1/n alone. */
    fr_t base, first;
    if (coset) {
      base = inverse ? (fr_t)BLS_FR_GENERATOR_INV : (fr_t)BLS_FR_GENERATOR;
    } else {
      fr_one(&base);
    }
    if (inverse) {
      fr_from_u64(&first, n);
      fr_inv(&first, &first);
    } else {
      fr_one(&first);
    }
    scale_tab_init(&scale, n, &base, &first);
    if (inverse) pl.post = &scale;
    else pl.pre = &scale;
  }

  unsigned T = threads ? threads : (unsigned)ps_ncores();
  if (T > 1 && batch >= T) {
    par_for(batch, 1, (int)T, batch_range, &pl, NULL, NULL);
  } else if (T > 1 && log_n >= NTT_PAR_MIN_LOG) {
    /* hl: at most NTT_LOCAL_MAX_HALF, and at least 4 T blocks where the size allows. */
    size_t half = n / 2, hl = NTT_LOCAL_MAX_HALF;
    while (hl > 1 && half / hl < 4 * (size_t)T) hl >>= 1;
    PS_ASSERT(hl < half);
    pl.hl = hl;
    for (size_t v = 0; v < batch; v++) vector_steps(&pl, data + v * n, (int)T);
  } else {
    for (size_t v = 0; v < batch; v++) one_vector(&pl, data + v * n);
  }
  free(tw);
  free(scale.lo);
  free(scale.hi);
}

void ntt_forward(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV), 0);
}

void ntt_inverse(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, NTT_INVERSE | (order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV)), 0);
}

void ntt_coset_forward(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, NTT_COSET | (order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV)), 0);
}

void ntt_coset_inverse(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, NTT_INVERSE | NTT_COSET | (order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV)), 0);
}
