/* Fr arithmetic in Montgomery form, the same scheme as fp.c (64-bit limbs over the
 * shared 32-bit layout, CIOS multiplication) for the 255-bit group order r. */
#include "fr.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "prover/fr.c assumes a little-endian host"
#endif

#define N 4
typedef unsigned __int128 u128;

static const fr_t P_ = BLS_FR_R;
static const fr_t R2_ = BLS_FR_R2;
static const fr_t ONE_ = BLS_FR_ONE;
static const fr_t PM2_ = BLS_FR_R_MINUS_2;
/* -r^{-1} mod 2^64 (its low half is BLS_FR_INV32; checked by the tests). */
#define INV64 0xfffffffeffffffffULL

static inline void ld(uint64_t o[N], const fr_t *a) { memcpy(o, a->v, sizeof a->v); }
static inline void st(fr_t *r, const uint64_t o[N]) { memcpy(r->v, o, sizeof r->v); }

/* a >= p, with a given as 64-bit limbs. */
static inline int geq_p(const uint64_t a[N], const uint64_t p[N]) {
  for (int i = N - 1; i >= 0; i--) {
    if (a[i] != p[i]) return a[i] > p[i];
  }
  return 1;
}

static inline void sub_p(uint64_t a[N], const uint64_t p[N]) {
  uint64_t borrow = 0;
  for (int i = 0; i < N; i++) {
    u128 d = (u128)a[i] - p[i] - borrow;
    a[i] = (uint64_t)d;
    borrow = (uint64_t)(d >> 64) & 1;
  }
}

void fr_zero(fr_t *r) { memset(r, 0, sizeof *r); }
void fr_one(fr_t *r) { *r = ONE_; }
void fr_copy(fr_t *r, const fr_t *a) { *r = *a; }

int fr_is_zero(const fr_t *a) {
  uint32_t x = 0;
  for (int i = 0; i < BLS_FR_LIMBS; i++) x |= a->v[i];
  return x == 0;
}

int fr_eq(const fr_t *a, const fr_t *b) { return memcmp(a->v, b->v, sizeof a->v) == 0; }
int fr_is_one(const fr_t *a) { return fr_eq(a, &ONE_); }

void fr_add(fr_t *r, const fr_t *a, const fr_t *b) {
  uint64_t x[N], y[N], p[N];
  ld(x, a);
  ld(y, b);
  ld(p, &P_);
  uint64_t c = 0;
  for (int i = 0; i < N; i++) {
    u128 s = (u128)x[i] + y[i] + c;
    x[i] = (uint64_t)s;
    c = (uint64_t)(s >> 64);
  }
  /* r < 2^255, so a + b < 2^256 never carries out of the top limb. */
  if (geq_p(x, p)) sub_p(x, p);
  st(r, x);
}

void fr_dbl(fr_t *r, const fr_t *a) { fr_add(r, a, a); }

void fr_sub(fr_t *r, const fr_t *a, const fr_t *b) {
  uint64_t x[N], y[N], p[N];
  ld(x, a);
  ld(y, b);
  uint64_t borrow = 0;
  for (int i = 0; i < N; i++) {
    u128 d = (u128)x[i] - y[i] - borrow;
    x[i] = (uint64_t)d;
    borrow = (uint64_t)(d >> 64) & 1;
  }
  if (borrow) {
    ld(p, &P_);
    uint64_t c = 0;
    for (int i = 0; i < N; i++) {
      u128 s = (u128)x[i] + p[i] + c;
      x[i] = (uint64_t)s;
      c = (uint64_t)(s >> 64);
    }
  }
  st(r, x);
}

void fr_neg(fr_t *r, const fr_t *a) {
  if (fr_is_zero(a)) {
    fr_zero(r);
    return;
  }
  fr_sub(r, &P_, a); /* p - a, with r as a non-reduced "value" */
}

/* CIOS Montgomery multiplication, r = a * b / 2^256 mod r, in the "no-carry" form:
 * the modulus' top 64-bit limb is below 2^63 - 1, so the two carry chains of each row
 * (product and reduction) can be merged without the two extra words of textbook CIOS
 * (the trick gnark-crypto documents). The result before the final subtraction is < 2r. */
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b) {
  uint64_t x[N], y[N], p[N], t[N];
  ld(x, a);
  ld(y, b);
  ld(p, &P_);
  memset(t, 0, sizeof t);
  for (int i = 0; i < N; i++) {
    u128 s = (u128)x[0] * y[i] + t[0];
    uint64_t hi_a = (uint64_t)(s >> 64);
    uint64_t m = (uint64_t)s * INV64;
    u128 q = (u128)m * p[0] + (uint64_t)s;
    uint64_t hi_c = (uint64_t)(q >> 64);
    for (int j = 1; j < N; j++) {
      s = (u128)x[j] * y[i] + t[j] + hi_a;
      hi_a = (uint64_t)(s >> 64);
      q = (u128)m * p[j] + (uint64_t)s + hi_c;
      hi_c = (uint64_t)(q >> 64);
      t[j - 1] = (uint64_t)q;
    }
    t[N - 1] = hi_c + hi_a;
  }
  if (geq_p(t, p)) sub_p(t, p);
  st(r, t);
}

void fr_sqr(fr_t *r, const fr_t *a) { fr_mul(r, a, a); }

void fr_pow(fr_t *r, const fr_t *a, const uint32_t *e, size_t n) {
  fr_t acc = ONE_, base = *a;
  for (size_t i = n; i-- > 0;) {
    for (int b = 31; b >= 0; b--) {
      fr_sqr(&acc, &acc);
      if ((e[i] >> b) & 1) fr_mul(&acc, &acc, &base);
    }
  }
  *r = acc;
}

void fr_inv(fr_t *r, const fr_t *a) { fr_pow(r, a, PM2_.v, BLS_FR_LIMBS); }

/* Compares canonical integers of 12 32-bit limbs. */
static int cmp_canon(const fr_t *a, const fr_t *b) {
  for (int i = BLS_FR_LIMBS - 1; i >= 0; i--) {
    if (a->v[i] != b->v[i]) return a->v[i] > b->v[i] ? 1 : -1;
  }
  return 0;
}

void fr_from_canon(fr_t *r, const fr_t *canon) { fr_mul(r, canon, &R2_); }

void fr_to_canon(fr_t *canon, const fr_t *a) {
  fr_t one = {{1}};
  fr_mul(canon, a, &one);
}

void fr_from_u64(fr_t *r, uint64_t x) {
  fr_t c = {{0}};
  c.v[0] = (uint32_t)x;
  c.v[1] = (uint32_t)(x >> 32);
  fr_from_canon(r, &c);
}

void fr_to_bytes(uint8_t out[32], const fr_t *a) {
  fr_t c;
  fr_to_canon(&c, a);
  for (int i = 0; i < BLS_FR_LIMBS; i++) {
    uint32_t w = c.v[BLS_FR_LIMBS - 1 - i];
    out[4 * i] = (uint8_t)(w >> 24);
    out[4 * i + 1] = (uint8_t)(w >> 16);
    out[4 * i + 2] = (uint8_t)(w >> 8);
    out[4 * i + 3] = (uint8_t)w;
  }
}

int fr_from_bytes(fr_t *r, const uint8_t in[32]) {
  fr_t c;
  for (int i = 0; i < BLS_FR_LIMBS; i++) {
    const uint8_t *b = in + 4 * i;
    c.v[BLS_FR_LIMBS - 1 - i] =
        ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
  }
  if (cmp_canon(&c, &P_) >= 0) return FR_ERANGE;
  fr_from_canon(r, &c);
  return FR_OK;
}

void fr_random(fr_t *r, bls_rng_fn rng, void *state) {
  fr_t c;
  do {
    for (int i = 0; i < BLS_FR_LIMBS; i += 2) {
      uint64_t w = rng(state);
      c.v[i] = (uint32_t)w;
      c.v[i + 1] = (uint32_t)(w >> 32);
    }
    c.v[BLS_FR_LIMBS - 1] &= (1u << (BLS_FR_BITS - 32 * (BLS_FR_LIMBS - 1))) - 1;
  } while (cmp_canon(&c, &P_) >= 0);
  fr_from_canon(r, &c);
}

void fr_canon_reduce(fr_t *c) {
  static const fr_t r = BLS_FR_R;
  while (cmp_canon(c, &r) >= 0) {
    uint64_t x[N], p[N];
    ld(x, c);
    ld(p, &r);
    sub_p(x, p);
    st(c, x);
  }
}

void fr_from_canon_any(fr_t *r, const fr_t *canon) {
  fr_t c = *canon;
  fr_canon_reduce(&c);
  fr_from_canon(r, &c);
}
