/* Fp arithmetic in Montgomery form. The stored limbs are 32-bit (the layout the GPU
 * shares); on a little-endian host twelve 32-bit limbs are the same bytes as six 64-bit
 * limbs, so the arithmetic here works on 64-bit limbs with 128-bit products (CIOS
 * Montgomery multiplication), which is several times faster than 32-bit schoolbook. */
#include "fp.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "prover/fp.c assumes a little-endian host"
#endif

#define N 6
typedef unsigned __int128 u128;

static const fp_t P_ = BLS_FP_P;
static const fp_t R2_ = BLS_FP_R2;
static const fp_t ONE_ = BLS_FP_ONE;
static const fp_t PM2_ = BLS_FP_P_MINUS_2;
static const fp_t SQRT_E_ = BLS_FP_P_PLUS_1_DIV_4;
static const fp_t HALF_ = BLS_FP_P_MINUS_1_DIV_2;
/* -p^{-1} mod 2^64 (its low half is BLS_FP_INV32; checked by the tests). */
#define INV64 0x89f3fffcfffcfffdULL

static inline void ld(uint64_t o[N], const fp_t *a) { memcpy(o, a->v, sizeof a->v); }
static inline void st(fp_t *r, const uint64_t o[N]) { memcpy(r->v, o, sizeof r->v); }

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

void fp_zero(fp_t *r) { memset(r, 0, sizeof *r); }
void fp_one(fp_t *r) { *r = ONE_; }
void fp_copy(fp_t *r, const fp_t *a) { *r = *a; }

int fp_is_zero(const fp_t *a) {
  uint32_t x = 0;
  for (int i = 0; i < BLS_FP_LIMBS; i++) x |= a->v[i];
  return x == 0;
}

int fp_eq(const fp_t *a, const fp_t *b) { return memcmp(a->v, b->v, sizeof a->v) == 0; }
int fp_is_one(const fp_t *a) { return fp_eq(a, &ONE_); }

void fp_add(fp_t *r, const fp_t *a, const fp_t *b) {
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
  /* p < 2^381, so a + b < 2^382 never carries out of the top limb. */
  if (geq_p(x, p)) sub_p(x, p);
  st(r, x);
}

void fp_dbl(fp_t *r, const fp_t *a) { fp_add(r, a, a); }

void fp_sub(fp_t *r, const fp_t *a, const fp_t *b) {
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

void fp_neg(fp_t *r, const fp_t *a) {
  if (fp_is_zero(a)) {
    fp_zero(r);
    return;
  }
  fp_sub(r, &P_, a); /* p - a, with p < 2^381 as a non-reduced "value" */
}

/* CIOS Montgomery multiplication, r = a * b / 2^384 mod p, in the "no-carry" form:
 * the modulus' top 64-bit limb is below 2^63 - 1, so the two carry chains of each row
 * (product and reduction) can be merged without the two extra words of textbook CIOS
 * (the trick gnark-crypto documents). The result before the final subtraction is < 2p. */
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b) {
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

void fp_sqr(fp_t *r, const fp_t *a) { fp_mul(r, a, a); }

void fp_pow(fp_t *r, const fp_t *a, const uint32_t *e, size_t n) {
  fp_t acc = ONE_, base = *a;
  for (size_t i = n; i-- > 0;) {
    for (int b = 31; b >= 0; b--) {
      fp_sqr(&acc, &acc);
      if ((e[i] >> b) & 1) fp_mul(&acc, &acc, &base);
    }
  }
  *r = acc;
}

void fp_inv(fp_t *r, const fp_t *a) { fp_pow(r, a, PM2_.v, BLS_FP_LIMBS); }

int fp_sqrt(fp_t *r, const fp_t *a) {
  fp_t s, chk;
  fp_pow(&s, a, SQRT_E_.v, BLS_FP_LIMBS); /* p = 3 mod 4: a^((p+1)/4) */
  fp_sqr(&chk, &s);
  if (!fp_eq(&chk, a)) return 0;
  *r = s;
  return 1;
}

/* Compares canonical integers of 12 32-bit limbs. */
static int cmp_canon(const fp_t *a, const fp_t *b) {
  for (int i = BLS_FP_LIMBS - 1; i >= 0; i--) {
    if (a->v[i] != b->v[i]) return a->v[i] > b->v[i] ? 1 : -1;
  }
  return 0;
}

int fp_is_lex_largest(const fp_t *a) {
  fp_t c;
  fp_to_canon(&c, a);
  return cmp_canon(&c, &HALF_) > 0;
}

void fp_from_canon(fp_t *r, const fp_t *canon) { fp_mul(r, canon, &R2_); }

void fp_to_canon(fp_t *canon, const fp_t *a) {
  fp_t one = {{1}};
  fp_mul(canon, a, &one);
}

void fp_from_u64(fp_t *r, uint64_t x) {
  fp_t c = {{0}};
  c.v[0] = (uint32_t)x;
  c.v[1] = (uint32_t)(x >> 32);
  fp_from_canon(r, &c);
}

void fp_to_bytes(uint8_t out[48], const fp_t *a) {
  fp_t c;
  fp_to_canon(&c, a);
  for (int i = 0; i < BLS_FP_LIMBS; i++) {
    uint32_t w = c.v[BLS_FP_LIMBS - 1 - i];
    out[4 * i] = (uint8_t)(w >> 24);
    out[4 * i + 1] = (uint8_t)(w >> 16);
    out[4 * i + 2] = (uint8_t)(w >> 8);
    out[4 * i + 3] = (uint8_t)w;
  }
}

int fp_from_bytes(fp_t *r, const uint8_t in[48]) {
  fp_t c;
  for (int i = 0; i < BLS_FP_LIMBS; i++) {
    const uint8_t *b = in + 4 * i;
    c.v[BLS_FP_LIMBS - 1 - i] =
        ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
  }
  if (cmp_canon(&c, &P_) >= 0) return FP_ERANGE;
  fp_from_canon(r, &c);
  return FP_OK;
}

void fp_random(fp_t *r, bls_rng_fn rng, void *state) {
  fp_t c;
  do {
    for (int i = 0; i < BLS_FP_LIMBS; i += 2) {
      uint64_t w = rng(state);
      c.v[i] = (uint32_t)w;
      c.v[i + 1] = (uint32_t)(w >> 32);
    }
    c.v[BLS_FP_LIMBS - 1] &= (1u << (BLS_FP_BITS - 32 * (BLS_FP_LIMBS - 1))) - 1;
  } while (cmp_canon(&c, &P_) >= 0);
  fp_from_canon(r, &c);
}
