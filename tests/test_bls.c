/* Check suite of the BLS12-381 reference arithmetic (prover/fp, fr, fp2, curve, enc):
 * the generated constants, field operations, group laws in every coordinate form, and
 * agreement with the py_ecc vectors in tests/vectors (field ops, scalar multiplications,
 * encodings, bad encodings). */
#include "ck.h"
#include <stdlib.h>
#include <string.h>

#include "enc.h"
#include "vectors/vec.h"

static vec_file *V;

static int fp_eq_canon(const fp_t *a, const char *hex) {
  fp_t b;
  vec_fp(hex, &b);
  return fp_eq(a, &b);
}

static int fr_eq_canon(const fr_t *a, const char *hex) {
  fr_t b;
  vec_fr(hex, &b);
  return fr_eq(a, &b);
}

/* ---- constants ---- */
START_TEST(test_constants) {
  static const fp_t p = BLS_FP_P;
  static const fr_t r = BLS_FR_R;
  ck_assert_uint_eq((uint32_t)(p.v[0] * BLS_FP_INV32), 0xffffffffu);
  ck_assert_uint_eq((uint32_t)(r.v[0] * BLS_FR_INV32), 0xffffffffu);
  fp_t one, x;
  fp_one(&one);
  fp_from_u64(&x, 1);
  ck_assert(fp_eq(&x, &one));
  fp_to_canon(&x, &one);
  ck_assert_uint_eq(x.v[0], 1);
  fr_t w, t, fone, minus_one;
  fr_one(&fone);
  fr_neg(&minus_one, &fone);
  w = (fr_t)BLS_FR_ROOT_OF_UNITY;
  t = w;
  for (int i = 0; i < 31; i++) fr_sqr(&t, &t);
  ck_assert(fr_eq(&t, &minus_one)); /* w^(2^31) = -1: w is primitive */
  fr_sqr(&t, &t);
  ck_assert(fr_is_one(&t));
  fr_t wi = BLS_FR_ROOT_OF_UNITY_INV, g = BLS_FR_GENERATOR, gi = BLS_FR_GENERATOR_INV;
  fr_mul(&t, &w, &wi);
  ck_assert(fr_is_one(&t));
  fr_mul(&t, &g, &gi);
  ck_assert(fr_is_one(&t));
  fr_from_u64(&t, BLS_FR_GENERATOR_INT);
  ck_assert(fr_eq(&t, &g));
  fp_t b = BLS_G1_B, b3 = BLS_G1_B3;
  fp_from_u64(&x, 4);
  ck_assert(fp_eq(&x, &b));
  fp_from_u64(&x, 12);
  ck_assert(fp_eq(&x, &b3));
  g1_affine_t g1;
  g2_affine_t g2;
  g1_generator(&g1);
  g2_generator(&g2);
  ck_assert(g1_affine_is_on_curve(&g1));
  ck_assert(g1_affine_in_subgroup(&g1));
  ck_assert(g2_affine_is_on_curve(&g2));
  ck_assert(g2_affine_in_subgroup(&g2));
}
END_TEST

/* ---- fields ---- */
START_TEST(test_field_vectors) {
  char buf[4096], *tok[VEC_MAX_TOK];
  int nfp = 0, nfr = 0, nfp2 = 0;
  for (size_t i = 0; i < V->n; i++) {
    int nt = vec_split(V->lines[i], buf, sizeof buf, tok, VEC_MAX_TOK);
    const char *op = tok[0];
    if (strncmp(op, "fp_", 3) == 0) {
      fp_t a, b, r;
      vec_fp(tok[1], &a);
      nfp++;
      if (!strcmp(op, "fp_add") || !strcmp(op, "fp_sub") || !strcmp(op, "fp_mul")) {
        ck_assert_int_eq(nt, 4);
        vec_fp(tok[2], &b);
        if (op[3] == 'a') fp_add(&r, &a, &b);
        else if (op[3] == 's') fp_sub(&r, &a, &b);
        else fp_mul(&r, &a, &b);
        ck_assert_msg(fp_eq_canon(&r, tok[3]), "line %s", V->lines[i]);
        if (op[3] == 'm') { /* square agrees with mul */
          fp_sqr(&r, &a);
          fp_mul(&b, &a, &a);
          ck_assert(fp_eq(&r, &b));
        }
      } else if (!strcmp(op, "fp_inv")) {
        fp_inv(&r, &a);
        ck_assert_msg(fp_eq_canon(&r, tok[2]), "line %s", V->lines[i]);
      } else if (!strcmp(op, "fp_sqrt")) {
        int ok = fp_sqrt(&r, &a);
        ck_assert_int_eq(ok, strcmp(tok[2], "none") != 0);
        if (ok) {
          fp_neg(&b, &r);
          ck_assert_msg(fp_eq_canon(&r, tok[2]) || fp_eq_canon(&b, tok[2]), "line %s", V->lines[i]);
        }
      } else {
        ck_abort_msg("unknown record %s", op);
      }
    } else if (strncmp(op, "fr_", 3) == 0) {
      fr_t a, b, r;
      vec_fr(tok[1], &a);
      nfr++;
      if (!strcmp(op, "fr_inv")) {
        fr_inv(&r, &a);
        ck_assert_msg(fr_eq_canon(&r, tok[2]), "line %s", V->lines[i]);
        continue;
      }
      vec_fr(tok[2], &b);
      if (!strcmp(op, "fr_add")) fr_add(&r, &a, &b);
      else if (!strcmp(op, "fr_sub")) fr_sub(&r, &a, &b);
      else if (!strcmp(op, "fr_mul")) fr_mul(&r, &a, &b);
      else ck_abort_msg("unknown record %s", op);
      ck_assert_msg(fr_eq_canon(&r, tok[3]), "line %s", V->lines[i]);
    } else if (strncmp(op, "fp2_", 4) == 0) {
      fp2_t a, b, r, e;
      vec_fp2(tok + 1, &a);
      nfp2++;
      if (!strcmp(op, "fp2_add") || !strcmp(op, "fp2_mul")) {
        vec_fp2(tok + 3, &b);
        vec_fp2(tok + 5, &e);
        if (op[4] == 'a') fp2_add(&r, &a, &b);
        else fp2_mul(&r, &a, &b);
        ck_assert_msg(fp2_eq(&r, &e), "line %s", V->lines[i]);
        if (op[4] == 'a') { /* sub undoes add */
          fp2_sub(&r, &r, &b);
          ck_assert(fp2_eq(&r, &a));
        } else {
          fp2_sqr(&r, &a);
          fp2_mul(&e, &a, &a);
          ck_assert(fp2_eq(&r, &e));
        }
      } else if (!strcmp(op, "fp2_inv")) {
        vec_fp2(tok + 3, &e);
        fp2_inv(&r, &a);
        ck_assert_msg(fp2_eq(&r, &e), "line %s", V->lines[i]);
      } else if (!strcmp(op, "fp2_sqrt")) {
        int ok = fp2_sqrt(&r, &a);
        ck_assert_int_eq(ok, strcmp(tok[3], "none") != 0);
        if (ok) {
          vec_fp2(tok + 3, &e);
          fp2_neg(&b, &r);
          ck_assert_msg(fp2_eq(&r, &e) || fp2_eq(&b, &e), "line %s", V->lines[i]);
        }
      } else {
        ck_abort_msg("unknown record %s", op);
      }
    }
  }
  ck_assert_int_gt(nfp, 100);
  ck_assert_int_gt(nfr, 100);
  ck_assert_int_gt(nfp2, 100);
}
END_TEST

START_TEST(test_field_bytes) {
  uint64_t s = 1;
  uint8_t b48[48], b32[32], b96[96];
  for (int i = 0; i < 50; i++) {
    fp_t a, b;
    fr_t x, y;
    fp2_t u, w;
    fp_random(&a, vec_rng, &s);
    fp_to_bytes(b48, &a);
    ck_assert_int_eq(fp_from_bytes(&b, b48), FP_OK);
    ck_assert(fp_eq(&a, &b));
    fr_random(&x, vec_rng, &s);
    fr_to_bytes(b32, &x);
    ck_assert_int_eq(fr_from_bytes(&y, b32), FR_OK);
    ck_assert(fr_eq(&x, &y));
    fp2_random(&u, vec_rng, &s);
    fp2_to_bytes(b96, &u);
    ck_assert_int_eq(fp2_from_bytes(&w, b96), FP_OK);
    ck_assert(fp2_eq(&u, &w));
  }
  /* p and r themselves are out of range; p - 1 and r - 1 are not. */
  fp_t p = BLS_FP_P, a;
  fr_t r = BLS_FR_R, x;
  for (int i = 0; i < 12; i++) {
    uint32_t w = p.v[11 - i];
    for (int j = 0; j < 4; j++) b48[4 * i + j] = (uint8_t)(w >> (24 - 8 * j));
  }
  fp_one(&a);
  ck_assert_int_eq(fp_from_bytes(&a, b48), FP_ERANGE);
  ck_assert(fp_is_one(&a)); /* untouched on error */
  memset(b48, 0xff, 48);
  ck_assert_int_eq(fp_from_bytes(&a, b48), FP_ERANGE);
  for (int i = 0; i < 8; i++) {
    uint32_t w = r.v[7 - i];
    for (int j = 0; j < 4; j++) b32[4 * i + j] = (uint8_t)(w >> (24 - 8 * j));
  }
  ck_assert_int_eq(fr_from_bytes(&x, b32), FR_ERANGE);
  b32[31] -= 1;
  ck_assert_int_eq(fr_from_bytes(&x, b32), FR_OK);
  fr_t one, m1;
  fr_one(&one);
  fr_add(&m1, &x, &one);
  ck_assert(fr_is_zero(&m1));
  /* Reduction of scalars >= r. */
  fr_t k = r;
  k.v[0] += 5;
  fr_canon_reduce(&k);
  ck_assert_uint_eq(k.v[0], 5);
  for (int i = 1; i < 8; i++) ck_assert_uint_eq(k.v[i], 0);
  /* Determinism of the random draws. */
  uint64_t s1 = 42, s2 = 42;
  fp_t r1, r2;
  fp_random(&r1, vec_rng, &s1);
  fp_random(&r2, vec_rng, &s2);
  ck_assert(fp_eq(&r1, &r2));
}
END_TEST

START_TEST(test_field_laws) {
  uint64_t s = 7;
  for (int i = 0; i < 200; i++) {
    fp_t a, b, c, t, u;
    fp_random(&a, vec_rng, &s);
    fp_random(&b, vec_rng, &s);
    fp_random(&c, vec_rng, &s);
    /* (a + b) c = ac + bc */
    fp_add(&t, &a, &b);
    fp_mul(&t, &t, &c);
    fp_mul(&u, &a, &c);
    fp_mul(&b, &b, &c);
    fp_add(&u, &u, &b);
    ck_assert(fp_eq(&t, &u));
    fp_neg(&t, &a);
    fp_add(&t, &t, &a);
    ck_assert(fp_is_zero(&t));
    fp_inv(&t, &a);
    fp_mul(&t, &t, &a);
    ck_assert(fp_is_one(&t));
    fp_sqr(&t, &a);
    ck_assert(fp_sqrt(&u, &t));
    fp_sqr(&u, &u);
    ck_assert(fp_eq(&u, &t));
    fp2_t x, y, z;
    fp2_random(&x, vec_rng, &s);
    fp2_inv(&y, &x);
    fp2_mul(&z, &x, &y);
    ck_assert(fp2_is_one(&z));
    fp2_sqr(&y, &x);
    ck_assert(fp2_sqrt(&z, &y));
    fp2_sqr(&z, &z);
    ck_assert(fp2_eq(&z, &y));
  }
  fp_t z;
  fp_zero(&z);
  fp_inv(&z, &z);
  ck_assert(fp_is_zero(&z));
  ck_assert(fp_sqrt(&z, &z) && fp_is_zero(&z));
}
END_TEST

/* ---- curves ---- */
START_TEST(test_g1_group_laws) {
  uint64_t s = 3;
  g1_affine_t a, b, inf;
  g1_jac_t ja, jb, r1, r2, t;
  g1_xyzz_t xa, xb, x1;
  g1_affine_set_inf(&inf);
  for (int i = 0; i < 20; i++) {
    g1_random(&a, vec_rng, &s);
    g1_random(&b, vec_rng, &s);
    ck_assert(g1_affine_is_on_curve(&a));
    g1_jac_from_affine(&ja, &a);
    g1_jac_from_affine(&jb, &b);
    /* Give the Jacobian points a non-trivial Z: 2P + (-P) = P. */
    g1_affine_t na;
    g1_affine_neg(&na, &a);
    g1_jac_dbl(&t, &ja);
    g1_jac_add_affine(&ja, &t, &na);
    g1_jac_dbl(&t, &jb);
    g1_jac_neg(&jb, &jb);
    g1_jac_add(&jb, &t, &jb);
    g1_jac_add(&r1, &ja, &jb);
    g1_jac_add(&r2, &jb, &ja);
    ck_assert(g1_jac_eq(&r1, &r2));
    ck_assert(g1_jac_is_on_curve(&r1));
    g1_jac_add_affine(&r2, &jb, &a);
    g1_jac_t ja2;
    g1_jac_from_affine(&ja2, &a);
    g1_jac_add(&t, &jb, &ja2);
    ck_assert(g1_jac_eq(&r2, &t));
    ck_assert(g1_jac_eq(&r1, &t));
    /* XYZZ agrees with Jacobian. */
    g1_xyzz_from_affine(&xa, &a);
    g1_jac_to_xyzz(&xb, &jb);
    g1_xyzz_add(&x1, &xa, &xb);
    g1_xyzz_to_jac(&r1, &x1);
    ck_assert(g1_jac_eq(&r1, &t));
    g1_xyzz_add_affine(&x1, &xb, &a);
    g1_xyzz_to_jac(&r1, &x1);
    ck_assert(g1_jac_eq(&r1, &t));
    /* Doubling through the addition formulas (P + P). */
    g1_jac_dbl(&r1, &jb);
    g1_jac_add(&r2, &jb, &jb);
    ck_assert(g1_jac_eq(&r1, &r2));
    g1_xyzz_add(&x1, &xb, &xb);
    g1_xyzz_to_jac(&r2, &x1);
    ck_assert(g1_jac_eq(&r1, &r2));
    g1_xyzz_dbl(&x1, &xb);
    g1_xyzz_to_jac(&r2, &x1);
    ck_assert(g1_jac_eq(&r1, &r2));
    g1_xyzz_from_affine(&xa, &a);
    g1_xyzz_add_affine(&x1, &xa, &a);
    g1_jac_from_affine(&ja2, &a);
    g1_jac_dbl(&r1, &ja2);
    g1_xyzz_to_jac(&r2, &x1);
    ck_assert(g1_jac_eq(&r1, &r2));
    g1_jac_add_affine(&r2, &ja2, &a);
    ck_assert(g1_jac_eq(&r1, &r2));
    /* P + (-P) = infinity, in every form. */
    g1_jac_neg(&r1, &jb);
    g1_jac_add(&r2, &jb, &r1);
    ck_assert(g1_jac_is_inf(&r2));
    g1_xyzz_neg(&x1, &xb);
    g1_xyzz_add(&x1, &xb, &x1);
    ck_assert(g1_xyzz_is_inf(&x1));
    g1_xyzz_add_affine_neg(&x1, &xa, &a);
    ck_assert(g1_xyzz_is_inf(&x1));
    g1_jac_from_affine(&ja2, &a);
    g1_jac_add_affine(&r2, &ja2, &na);
    ck_assert(g1_jac_is_inf(&r2));
    /* Infinity is the identity. */
    g1_jac_add_affine(&r2, &jb, &inf);
    ck_assert(g1_jac_eq(&r2, &jb));
    g1_jac_set_inf(&r1);
    g1_jac_add(&r2, &r1, &jb);
    ck_assert(g1_jac_eq(&r2, &jb));
    g1_jac_add_affine(&r2, &r1, &a);
    ck_assert(g1_jac_eq(&r2, &ja2));
    g1_jac_dbl(&r2, &r1);
    ck_assert(g1_jac_is_inf(&r2));
    /* Conversions round-trip. */
    g1_affine_t back;
    g1_jac_to_affine(&back, &jb);
    g1_jac_from_affine(&r1, &back);
    ck_assert(g1_jac_eq(&r1, &jb));
    g1_xyzz_to_affine(&back, &xb);
    g1_jac_from_affine(&r1, &back);
    ck_assert(g1_jac_eq(&r1, &jb));
    ck_assert(!g1_jac_eq(&r1, &ja2) || g1_affine_eq(&back, &a));
  }
  /* Batch conversion, with an infinity inside. */
  g1_jac_t js[5];
  g1_affine_t as[5], e;
  for (int i = 0; i < 5; i++) {
    g1_random(&a, vec_rng, &s);
    g1_jac_from_affine(&js[i], &a);
    g1_jac_dbl(&js[i], &js[i]);
  }
  g1_jac_set_inf(&js[2]);
  g1_jac_batch_to_affine(as, js, 5);
  for (int i = 0; i < 5; i++) {
    g1_jac_to_affine(&e, &js[i]);
    ck_assert(g1_affine_eq(&e, &as[i]));
  }
  ck_assert(g1_affine_is_inf(&as[2]));
}
END_TEST

START_TEST(test_g2_group_laws) {
  uint64_t s = 4;
  g2_affine_t a, b;
  g2_jac_t ja, jb, r1, r2;
  g2_xyzz_t xa, xb, x1;
  for (int i = 0; i < 6; i++) {
    g2_random(&a, vec_rng, &s);
    g2_random(&b, vec_rng, &s);
    ck_assert(g2_affine_is_on_curve(&a));
    g2_jac_from_affine(&ja, &a);
    g2_jac_from_affine(&jb, &b);
    g2_jac_dbl(&jb, &jb);
    g2_jac_add(&r1, &ja, &jb);
    g2_jac_add_affine(&r2, &jb, &a);
    ck_assert(g2_jac_eq(&r1, &r2));
    ck_assert(g2_jac_is_on_curve(&r1));
    g2_xyzz_from_affine(&xa, &a);
    g2_jac_to_xyzz(&xb, &jb);
    g2_xyzz_add(&x1, &xb, &xa);
    g2_xyzz_to_jac(&r2, &x1);
    ck_assert(g2_jac_eq(&r1, &r2));
    g2_xyzz_add_affine(&x1, &xb, &a);
    g2_xyzz_to_jac(&r2, &x1);
    ck_assert(g2_jac_eq(&r1, &r2));
    g2_jac_dbl(&r1, &jb);
    g2_jac_add(&r2, &jb, &jb);
    ck_assert(g2_jac_eq(&r1, &r2));
    g2_xyzz_dbl(&x1, &xb);
    g2_xyzz_to_jac(&r2, &x1);
    ck_assert(g2_jac_eq(&r1, &r2));
    g2_jac_neg(&r1, &jb);
    g2_jac_add(&r2, &r1, &jb);
    ck_assert(g2_jac_is_inf(&r2));
    g2_xyzz_add_affine_neg(&x1, &xa, &a);
    ck_assert(g2_xyzz_is_inf(&x1));
    g2_jac_add_affine(&r2, &ja, &a);
    g2_jac_dbl(&r1, &ja);
    ck_assert(g2_jac_eq(&r1, &r2));
  }
}
END_TEST

START_TEST(test_mul_vectors) {
  char buf[4096], *tok[VEC_MAX_TOK];
  int n1 = 0, n2 = 0;
  g1_affine_t g1, p1, e1;
  g2_affine_t g2, p2, e2;
  g1_generator(&g1);
  g2_generator(&g2);
  for (size_t i = 0; i < V->n; i++) {
    if (strncmp(V->lines[i], "g1_mul", 6) && strncmp(V->lines[i], "g2_mul", 6)) continue;
    vec_split(V->lines[i], buf, sizeof buf, tok, VEC_MAX_TOK);
    fr_t k;
    if (!strcmp(tok[0], "g1_mul") || !strcmp(tok[0], "g1_mulp")) {
      int at = 1;
      p1 = g1;
      if (tok[0][6] == 'p') at += vec_g1(tok + at, &p1);
      vec_scalar(tok[at++], &k);
      vec_g1(tok + at, &e1);
      g1_jac_t r, ej;
      g1_affine_mul(&r, &p1, &k);
      g1_jac_from_affine(&ej, &e1);
      ck_assert_msg(g1_jac_eq(&r, &ej), "line %s", V->lines[i]);
      g1_affine_t ra;
      g1_jac_to_affine(&ra, &r);
      ck_assert(g1_affine_eq(&ra, &e1));
      n1++;
    } else {
      int at = 1;
      p2 = g2;
      if (tok[0][6] == 'p') at += vec_g2(tok + at, &p2);
      vec_scalar(tok[at++], &k);
      vec_g2(tok + at, &e2);
      g2_jac_t r, ej;
      g2_affine_mul(&r, &p2, &k);
      g2_jac_from_affine(&ej, &e2);
      ck_assert_msg(g2_jac_eq(&r, &ej), "line %s", V->lines[i]);
      n2++;
    }
  }
  ck_assert_int_gt(n1, 20);
  ck_assert_int_gt(n2, 10);
}
END_TEST

/* ---- encodings ---- */
START_TEST(test_enc_vectors) {
  char buf[4096], *tok[VEC_MAX_TOK];
  uint8_t want_c[96], want_u[192], got[192];
  int n1 = 0, n2 = 0;
  for (size_t i = 0; i < V->n; i++) {
    if (strncmp(V->lines[i], "g1_enc ", 7) && strncmp(V->lines[i], "g2_enc ", 7)) continue;
    vec_split(V->lines[i], buf, sizeof buf, tok, VEC_MAX_TOK);
    if (tok[0][1] == '1') {
      g1_affine_t p, d;
      int at = 1 + vec_g1(tok + 1, &p);
      ck_assert_int_eq(vec_hex_bytes(tok[at], want_c, sizeof want_c), 48);
      ck_assert_int_eq(vec_hex_bytes(tok[at + 1], want_u, sizeof want_u), 96);
      enc_g1_compress(got, &p);
      ck_assert_msg(!memcmp(got, want_c, 48), "compress: line %s", V->lines[i]);
      enc_g1_uncompressed(got, &p);
      ck_assert_msg(!memcmp(got, want_u, 96), "uncompressed: line %s", V->lines[i]);
      ck_assert_int_eq(enc_g1_decode(&d, want_c, 48), ENC_OK);
      ck_assert(g1_affine_eq(&d, &p));
      ck_assert_int_eq(enc_g1_decode(&d, want_u, 96), ENC_OK);
      ck_assert(g1_affine_eq(&d, &p));
      n1++;
    } else {
      g2_affine_t p, d;
      int at = 1 + vec_g2(tok + 1, &p);
      ck_assert_int_eq(vec_hex_bytes(tok[at], want_c, sizeof want_c), 96);
      ck_assert_int_eq(vec_hex_bytes(tok[at + 1], want_u, sizeof want_u), 192);
      enc_g2_compress(got, &p);
      ck_assert_msg(!memcmp(got, want_c, 96), "compress: line %s", V->lines[i]);
      enc_g2_uncompressed(got, &p);
      ck_assert_msg(!memcmp(got, want_u, 192), "uncompressed: line %s", V->lines[i]);
      ck_assert_int_eq(enc_g2_decode(&d, want_c, 96), ENC_OK);
      ck_assert(g2_affine_eq(&d, &p));
      ck_assert_int_eq(enc_g2_decode(&d, want_u, 192), ENC_OK);
      ck_assert(g2_affine_eq(&d, &p));
      n2++;
    }
  }
  ck_assert_int_ge(n1, 10);
  ck_assert_int_ge(n2, 6);
}
END_TEST

static int err_code(const char *name) {
  if (!strcmp(name, "flags")) return ENC_EFLAGS;
  if (!strcmp(name, "infinity")) return ENC_EINFINITY;
  if (!strcmp(name, "range")) return ENC_ERANGE;
  if (!strcmp(name, "curve")) return ENC_ENOT_ON_CURVE;
  if (!strcmp(name, "subgroup")) return ENC_ESUBGROUP;
  ck_abort_msg("unknown error name %s", name);
  return 0;
}

START_TEST(test_enc_errors) {
  char buf[4096], *tok[VEC_MAX_TOK];
  uint8_t data[192];
  int n = 0;
  g1_affine_t p1, g1;
  g2_affine_t p2, g2;
  g1_generator(&g1);
  g2_generator(&g2);
  for (size_t i = 0; i < V->n; i++) {
    if (strncmp(V->lines[i], "g1_bad ", 7) && strncmp(V->lines[i], "g2_bad ", 7)) continue;
    vec_split(V->lines[i], buf, sizeof buf, tok, VEC_MAX_TOK);
    int len = vec_hex_bytes(tok[1], data, sizeof data);
    ck_assert_int_gt(len, 0);
    int want = err_code(tok[2]), got;
    p1 = g1;
    p2 = g2;
    if (tok[0][1] == '1') {
      got = enc_g1_decode(&p1, data, (size_t)len);
      ck_assert(g1_affine_eq(&p1, &g1)); /* untouched on error */
    } else {
      got = enc_g2_decode(&p2, data, (size_t)len);
      ck_assert(g2_affine_eq(&p2, &g2));
    }
    ck_assert_msg(got == want, "%s: got %d (%s), want %d (%s)", V->lines[i], got, enc_strerror(got),
                  want, enc_strerror(want));
    n++;
  }
  ck_assert_int_ge(n, 15);
  /* Lengths that are neither encoding. */
  memset(data, 0, sizeof data);
  data[0] = 0xc0;
  ck_assert_int_eq(enc_g1_decode(&p1, data, 47), ENC_EFLAGS);
  ck_assert_int_eq(enc_g2_decode(&p2, data, 48), ENC_EFLAGS);
  ck_assert_int_eq(enc_g1_decode(&p1, data, 48), ENC_OK);
  ck_assert(g1_affine_is_inf(&p1));
  ck_assert_str_eq(enc_strerror(ENC_ESUBGROUP), "point not in the prime-order subgroup");
}
END_TEST

START_TEST(test_enc_roundtrip) {
  uint64_t s = 11;
  uint8_t b[192];
  for (int i = 0; i < 20; i++) {
    g1_affine_t p, d;
    g1_random(&p, vec_rng, &s);
    if (i & 1) g1_affine_neg(&p, &p);
    enc_g1_compress(b, &p);
    ck_assert_int_eq(enc_g1_decode(&d, b, 48), ENC_OK);
    ck_assert(g1_affine_eq(&p, &d));
  }
  for (int i = 0; i < 6; i++) {
    g2_affine_t p, d;
    g2_random(&p, vec_rng, &s);
    if (i & 1) g2_affine_neg(&p, &p);
    enc_g2_compress(b, &p);
    ck_assert_int_eq(enc_g2_decode(&d, b, 96), ENC_OK);
    ck_assert(g2_affine_eq(&p, &d));
    enc_g2_uncompressed(b, &p);
    ck_assert_int_eq(enc_g2_decode(&d, b, 192), ENC_OK);
    ck_assert(g2_affine_eq(&p, &d));
  }
}
END_TEST

int main(void) {
  V = vec_load();
  if (!V) return 1;
  Suite *s = suite_create("bls");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_constants);
  tcase_add_test(tc, test_field_vectors);
  tcase_add_test(tc, test_field_bytes);
  tcase_add_test(tc, test_field_laws);
  tcase_add_test(tc, test_g1_group_laws);
  tcase_add_test(tc, test_g2_group_laws);
  tcase_add_test(tc, test_mul_vectors);
  tcase_add_test(tc, test_enc_vectors);
  tcase_add_test(tc, test_enc_errors);
  tcase_add_test(tc, test_enc_roundtrip);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  vec_free(V);
  return failed;
}
