/* The optimal ate pairing of BLS12-381 (see pairing.h): the Fp6/Fp12 tower, Miller loop
 * with affine steps on the twist, and the final exponentiation. */
#include "pairing.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define BLS_X_ABS 0xd201000000010000ull

/* (p^6 + 1) / r, the exponent left after the easy part f^(p^6 - 1); canonical, 32-bit
 * limbs, least significant first (computed with Python from p and r). */
static const uint32_t HARD_EXP[64] = {
    0xc0705d6au, 0x8739e1cdu, 0xe0381a16u, 0x09a5256du, 0x61c791e2u, 0x9cf0f70au, 0x7903f76eu,
    0x3a09c449u, 0x3890f133u, 0x2d727156u, 0x6fec7760u, 0x224741b3u, 0x2a12bd40u, 0x338259c2u,
    0x778e0de7u, 0x38ee1cd4u, 0x188a20b0u, 0xc3b5ef4bu, 0xe2764d7bu, 0x1d615d49u, 0xd076117du,
    0x816101ddu, 0x7ebe3afcu, 0xf007c01eu, 0x935021c3u, 0x27d7bd90u, 0x57c0b15fu, 0xc3b5e2f5u,
    0xc4f82384u, 0x5e886c94u, 0x11e63f56u, 0xee6a95dbu, 0x4a9c4f6fu, 0x2b822f51u, 0xd21b73dau,
    0x12d6a874u, 0xf499dffbu, 0x1304275eu, 0xbcb95d1fu, 0x967878feu, 0x8b2f2922u, 0x4744497fu,
    0xf0841855u, 0x85a2e707u, 0x6c802eecu, 0x9f0c5012u, 0xbd2fa489u, 0xfb46e197u, 0x9bc5f61au,
    0x548ce080u, 0x73beaa8cu, 0xcf56fb15u, 0x763bdf7cu, 0xad7375a3u, 0x179bdeccu, 0xe0ec9031u,
    0x3c48c1dau, 0x6579aea8u, 0x64cf5bb3u, 0xdbf85ae6u, 0x55ca7566u, 0x7b6f235cu, 0x14877503u,
    0x000028b3u};

/* a * (u + 1) = (a0 - a1) + (a0 + a1) u. */
static void fp2_mul_xi(fp2_t *r, const fp2_t *a) {
  fp_t t0, t1;
  fp_sub(&t0, &a->c0, &a->c1);
  fp_add(&t1, &a->c0, &a->c1);
  r->c0 = t0;
  r->c1 = t1;
}

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b) {
  fp2_add(&r->c0, &a->c0, &b->c0);
  fp2_add(&r->c1, &a->c1, &b->c1);
  fp2_add(&r->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b) {
  fp2_sub(&r->c0, &a->c0, &b->c0);
  fp2_sub(&r->c1, &a->c1, &b->c1);
  fp2_sub(&r->c2, &a->c2, &b->c2);
}

static void fp6_neg(fp6_t *r, const fp6_t *a) {
  fp2_neg(&r->c0, &a->c0);
  fp2_neg(&r->c1, &a->c1);
  fp2_neg(&r->c2, &a->c2);
}

/* Schoolbook with v^3 = xi. */
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b) {
  fp2_t a0b0, a0b1, a0b2, a1b0, a1b1, a1b2, a2b0, a2b1, a2b2, t;
  fp6_t o;
  fp2_mul(&a0b0, &a->c0, &b->c0);
  fp2_mul(&a0b1, &a->c0, &b->c1);
  fp2_mul(&a0b2, &a->c0, &b->c2);
  fp2_mul(&a1b0, &a->c1, &b->c0);
  fp2_mul(&a1b1, &a->c1, &b->c1);
  fp2_mul(&a1b2, &a->c1, &b->c2);
  fp2_mul(&a2b0, &a->c2, &b->c0);
  fp2_mul(&a2b1, &a->c2, &b->c1);
  fp2_mul(&a2b2, &a->c2, &b->c2);
  fp2_add(&t, &a1b2, &a2b1);
  fp2_mul_xi(&t, &t);
  fp2_add(&o.c0, &a0b0, &t);
  fp2_mul_xi(&t, &a2b2);
  fp2_add(&o.c1, &a0b1, &a1b0);
  fp2_add(&o.c1, &o.c1, &t);
  fp2_add(&o.c2, &a0b2, &a1b1);
  fp2_add(&o.c2, &o.c2, &a2b0);
  *r = o;
}

/* a * v = xi c2 + c0 v + c1 v^2. */
static void fp6_mul_v(fp6_t *r, const fp6_t *a) {
  fp6_t o;
  fp2_mul_xi(&o.c0, &a->c2);
  o.c1 = a->c0;
  o.c2 = a->c1;
  *r = o;
}

void fp6_inv(fp6_t *r, const fp6_t *a) {
  fp2_t t0, t1, t2, s, d;
  /* t0 = c0^2 - xi c1 c2, t1 = xi c2^2 - c0 c1, t2 = c1^2 - c0 c2. */
  fp2_sqr(&t0, &a->c0);
  fp2_mul(&s, &a->c1, &a->c2);
  fp2_mul_xi(&s, &s);
  fp2_sub(&t0, &t0, &s);
  fp2_sqr(&t1, &a->c2);
  fp2_mul_xi(&t1, &t1);
  fp2_mul(&s, &a->c0, &a->c1);
  fp2_sub(&t1, &t1, &s);
  fp2_sqr(&t2, &a->c1);
  fp2_mul(&s, &a->c0, &a->c2);
  fp2_sub(&t2, &t2, &s);
  /* d = c0 t0 + xi (c2 t1 + c1 t2). */
  fp2_mul(&d, &a->c2, &t1);
  fp2_mul(&s, &a->c1, &t2);
  fp2_add(&d, &d, &s);
  fp2_mul_xi(&d, &d);
  fp2_mul(&s, &a->c0, &t0);
  fp2_add(&d, &d, &s);
  fp2_inv(&d, &d);
  fp2_mul(&r->c0, &t0, &d);
  fp2_mul(&r->c1, &t1, &d);
  fp2_mul(&r->c2, &t2, &d);
}

void fp12_one(fp12_t *r) {
  memset(r, 0, sizeof *r);
  fp2_one(&r->c0.c0);
}

static int fp6_is_zero(const fp6_t *a) {
  return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

int fp12_is_one(const fp12_t *a) {
  return fp2_is_one(&a->c0.c0) && fp2_is_zero(&a->c0.c1) && fp2_is_zero(&a->c0.c2) &&
         fp6_is_zero(&a->c1);
}

int fp12_eq(const fp12_t *a, const fp12_t *b) {
  return fp2_eq(&a->c0.c0, &b->c0.c0) && fp2_eq(&a->c0.c1, &b->c0.c1) &&
         fp2_eq(&a->c0.c2, &b->c0.c2) && fp2_eq(&a->c1.c0, &b->c1.c0) &&
         fp2_eq(&a->c1.c1, &b->c1.c1) && fp2_eq(&a->c1.c2, &b->c1.c2);
}

/* Karatsuba over Fp6 with w^2 = v. */
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b) {
  fp6_t t0, t1, s0, s1, o1;
  fp6_mul(&t0, &a->c0, &b->c0);
  fp6_mul(&t1, &a->c1, &b->c1);
  fp6_add(&s0, &a->c0, &a->c1);
  fp6_add(&s1, &b->c0, &b->c1);
  fp6_mul(&o1, &s0, &s1);
  fp6_sub(&o1, &o1, &t0);
  fp6_sub(&o1, &o1, &t1);
  fp6_mul_v(&t1, &t1);
  fp6_add(&r->c0, &t0, &t1);
  r->c1 = o1;
}

void fp12_sqr(fp12_t *r, const fp12_t *a) { fp12_mul(r, a, a); }

void fp12_conj(fp12_t *r, const fp12_t *a) {
  r->c0 = a->c0;
  fp6_neg(&r->c1, &a->c1);
}

/* (a0 + a1 w)^-1 = (a0 - a1 w) / (a0^2 - v a1^2). */
void fp12_inv(fp12_t *r, const fp12_t *a) {
  fp6_t t0, t1;
  fp6_mul(&t0, &a->c0, &a->c0);
  fp6_mul(&t1, &a->c1, &a->c1);
  fp6_mul_v(&t1, &t1);
  fp6_sub(&t0, &t0, &t1);
  fp6_inv(&t0, &t0);
  fp6_t c1;
  fp6_mul(&c1, &a->c1, &t0);
  fp6_mul(&r->c0, &a->c0, &t0);
  fp6_neg(&r->c1, &c1);
}

void fp12_pow(fp12_t *r, const fp12_t *a, const uint32_t *e, size_t n) {
  fp12_t acc, base = *a;
  fp12_one(&acc);
  for (size_t i = n; i-- > 0;)
    for (int bit = 31; bit >= 0; bit--) {
      fp12_sqr(&acc, &acc);
      if ((e[i] >> bit) & 1) fp12_mul(&acc, &acc, &base);
    }
  *r = acc;
}

/* The line through the untwisted T with slope lambda (on the twist), evaluated at P and
 * multiplied by w^3 (a factor of Fp4 that the final exponentiation removes):
 * (lambda x_T - y_T) - lambda x_P v + y_P v w. */
static void line_eval(fp12_t *l, const fp2_t *lambda, const g2_affine_t *t, const g1_affine_t *p) {
  memset(l, 0, sizeof *l);
  fp2_mul(&l->c0.c0, lambda, &t->x);
  fp2_sub(&l->c0.c0, &l->c0.c0, &t->y);
  fp2_mul_fp(&l->c0.c1, lambda, &p->x);
  fp2_neg(&l->c0.c1, &l->c0.c1);
  l->c1.c1.c0 = p->y;
}

/* T = 2T, multiplying f by the tangent line at T evaluated at P. */
static void step_dbl(fp12_t *f, g2_affine_t *t, const g1_affine_t *p) {
  fp2_t lambda, num, den, x3, y3;
  fp2_sqr(&num, &t->x);
  fp2_t three;
  fp2_add(&three, &num, &num);
  fp2_add(&num, &three, &num);
  fp2_dbl(&den, &t->y);
  fp2_inv(&den, &den);
  fp2_mul(&lambda, &num, &den);
  fp12_t l;
  line_eval(&l, &lambda, t, p);
  fp12_mul(f, f, &l);
  fp2_sqr(&x3, &lambda);
  fp2_sub(&x3, &x3, &t->x);
  fp2_sub(&x3, &x3, &t->x);
  fp2_sub(&y3, &t->x, &x3);
  fp2_mul(&y3, &y3, &lambda);
  fp2_sub(&y3, &y3, &t->y);
  t->x = x3;
  t->y = y3;
}

/* T = T + Q, multiplying f by the line through T and Q evaluated at P. T != +-Q holds
 * throughout the loop for points of the subgroup. */
static void step_add(fp12_t *f, g2_affine_t *t, const g2_affine_t *q, const g1_affine_t *p) {
  fp2_t lambda, num, den, x3, y3;
  fp2_sub(&num, &q->y, &t->y);
  fp2_sub(&den, &q->x, &t->x);
  fp2_inv(&den, &den);
  fp2_mul(&lambda, &num, &den);
  fp12_t l;
  line_eval(&l, &lambda, t, p);
  fp12_mul(f, f, &l);
  fp2_sqr(&x3, &lambda);
  fp2_sub(&x3, &x3, &t->x);
  fp2_sub(&x3, &x3, &q->x);
  fp2_sub(&y3, &t->x, &x3);
  fp2_mul(&y3, &y3, &lambda);
  fp2_sub(&y3, &y3, &t->y);
  t->x = x3;
  t->y = y3;
}

void pairing_miller(fp12_t *f, const g1_affine_t *p, const g2_affine_t *q, size_t n) {
  fp12_one(f);
  g2_affine_t *t = xmalloc((n ? n : 1) * sizeof *t);
  char *skip = xcalloc(n ? n : 1, 1);
  for (size_t i = 0; i < n; i++) {
    t[i] = q[i];
    skip[i] = g1_affine_is_inf(&p[i]) || g2_affine_is_inf(&q[i]);
  }
  for (int bit = 62; bit >= 0; bit--) {
    fp12_sqr(f, f);
    for (size_t i = 0; i < n; i++)
      if (!skip[i]) step_dbl(f, &t[i], &p[i]);
    if ((BLS_X_ABS >> bit) & 1)
      for (size_t i = 0; i < n; i++)
        if (!skip[i]) step_add(f, &t[i], &q[i], &p[i]);
  }
  fp12_conj(f, f);
  free(t);
  free(skip);
}

void pairing_final_exp(fp12_t *r, const fp12_t *f) {
  fp12_t g, fi;
  fp12_inv(&fi, f);
  fp12_conj(&g, f);
  fp12_mul(&g, &g, &fi); /* f^(p^6 - 1) */
  fp12_pow(r, &g, HARD_EXP, sizeof HARD_EXP / sizeof HARD_EXP[0]);
}

void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q) {
  fp12_t f;
  pairing_miller(&f, p, q, 1);
  pairing_final_exp(r, &f);
}

int pairing_product_is_one(const g1_affine_t *p, const g2_affine_t *q, size_t n) {
  fp12_t f, r;
  pairing_miller(&f, p, q, n);
  pairing_final_exp(&r, &f);
  return fp12_is_one(&r);
}
