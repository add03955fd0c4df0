/* Fp2 arithmetic on top of fp.c: Karatsuba multiplication, inversion through the norm,
 * and the square root of Adj and Rodriguez-Henriquez ("Square root computation over
 * even extension fields", Algorithm 9, for p = 3 mod 4). */
#include "fp2.h"

static const fp_t P_MINUS_3_DIV_4 = BLS_FP_P_MINUS_3_DIV_4;
static const fp_t P_MINUS_1_DIV_2 = BLS_FP_P_MINUS_1_DIV_2;

void fp2_zero(fp2_t *r) {
  fp_zero(&r->c0);
  fp_zero(&r->c1);
}

void fp2_one(fp2_t *r) {
  fp_one(&r->c0);
  fp_zero(&r->c1);
}

int fp2_is_zero(const fp2_t *a) { return fp_is_zero(&a->c0) && fp_is_zero(&a->c1); }
int fp2_is_one(const fp2_t *a) { return fp_is_one(&a->c0) && fp_is_zero(&a->c1); }
int fp2_eq(const fp2_t *a, const fp2_t *b) { return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1); }

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_add(&r->c0, &a->c0, &b->c0);
  fp_add(&r->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_sub(&r->c0, &a->c0, &b->c0);
  fp_sub(&r->c1, &a->c1, &b->c1);
}

void fp2_neg(fp2_t *r, const fp2_t *a) {
  fp_neg(&r->c0, &a->c0);
  fp_neg(&r->c1, &a->c1);
}

void fp2_dbl(fp2_t *r, const fp2_t *a) { fp2_add(r, a, a); }

void fp2_conj(fp2_t *r, const fp2_t *a) {
  r->c0 = a->c0;
  fp_neg(&r->c1, &a->c1);
}

/* (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_t t0, t1, s0, s1;
  fp_mul(&t0, &a->c0, &b->c0);
  fp_mul(&t1, &a->c1, &b->c1);
  fp_add(&s0, &a->c0, &a->c1);
  fp_add(&s1, &b->c0, &b->c1);
  fp_mul(&s0, &s0, &s1);
  fp_sub(&s0, &s0, &t0);
  fp_sub(&r->c1, &s0, &t1);
  fp_sub(&r->c0, &t0, &t1);
}

void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b) {
  fp_mul(&r->c0, &a->c0, b);
  fp_mul(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
void fp2_sqr(fp2_t *r, const fp2_t *a) {
  fp_t s, d, m;
  fp_add(&s, &a->c0, &a->c1);
  fp_sub(&d, &a->c0, &a->c1);
  fp_mul(&m, &a->c0, &a->c1);
  fp_mul(&r->c0, &s, &d);
  fp_dbl(&r->c1, &m);
}

void fp2_pow(fp2_t *r, const fp2_t *a, const uint32_t *e, size_t n) {
  fp2_t acc, base = *a;
  fp2_one(&acc);
  for (size_t i = n; i-- > 0;) {
    for (int b = 31; b >= 0; b--) {
      fp2_sqr(&acc, &acc);
      if ((e[i] >> b) & 1) fp2_mul(&acc, &acc, &base);
    }
  }
  *r = acc;
}

/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2). */
void fp2_inv(fp2_t *r, const fp2_t *a) {
  fp_t n, t;
  fp_sqr(&n, &a->c0);
  fp_sqr(&t, &a->c1);
  fp_add(&n, &n, &t);
  fp_inv(&n, &n);
  fp_mul(&r->c0, &a->c0, &n);
  fp_mul(&t, &a->c1, &n);
  fp_neg(&r->c1, &t);
}

int fp2_sqrt(fp2_t *r, const fp2_t *a) {
  fp2_t a1, alpha, a0, x0, minus_one, chk;
  if (fp2_is_zero(a)) {
    fp2_zero(r);
    return 1;
  }
  fp2_pow(&a1, a, P_MINUS_3_DIV_4.v, BLS_FP_LIMBS); /* a^((p-3)/4) */
  fp2_mul(&x0, &a1, a);                              /* a^((p+1)/4) */
  fp2_mul(&alpha, &a1, &x0);                         /* a^((p-1)/2) */
  fp2_conj(&a0, &alpha);                             /* alpha^p */
  fp2_mul(&a0, &a0, &alpha);                         /* alpha^(p+1) = a^((p^2-1)/2) */
  fp2_one(&minus_one);
  fp2_neg(&minus_one, &minus_one);
  if (fp2_eq(&a0, &minus_one)) return 0;
  if (fp2_eq(&alpha, &minus_one)) {
    /* x = u * x0 */
    fp_t t = x0.c0;
    fp_neg(&x0.c0, &x0.c1);
    x0.c1 = t;
  } else {
    fp2_t b;
    fp2_one(&b);
    fp2_add(&b, &b, &alpha);
    fp2_pow(&b, &b, P_MINUS_1_DIV_2.v, BLS_FP_LIMBS);
    fp2_mul(&x0, &b, &x0);
  }
  fp2_sqr(&chk, &x0);
  if (!fp2_eq(&chk, a)) return 0; /* cannot happen for a square; kept as a guard */
  *r = x0;
  return 1;
}

int fp2_is_lex_largest(const fp2_t *a) {
  if (!fp_is_zero(&a->c1)) return fp_is_lex_largest(&a->c1);
  return fp_is_lex_largest(&a->c0);
}

void fp2_from_u64(fp2_t *r, uint64_t c0, uint64_t c1) {
  fp_from_u64(&r->c0, c0);
  fp_from_u64(&r->c1, c1);
}

void fp2_to_bytes(uint8_t out[96], const fp2_t *a) {
  fp_to_bytes(out, &a->c1);
  fp_to_bytes(out + 48, &a->c0);
}

int fp2_from_bytes(fp2_t *r, const uint8_t in[96]) {
  fp2_t t;
  if (fp_from_bytes(&t.c1, in) != FP_OK) return FP_ERANGE;
  if (fp_from_bytes(&t.c0, in + 48) != FP_OK) return FP_ERANGE;
  *r = t;
  return FP_OK;
}

void fp2_random(fp2_t *r, bls_rng_fn rng, void *state) {
  fp_random(&r->c0, rng, state);
  fp_random(&r->c1, rng, state);
}
