/* Check suite of the plain-C Pippenger MSM (prover/msm_cpu.c) on G1 and G2: against the
 * py_ecc MSM vectors in tests/vectors, and against the naive sum of scalar
 * multiplications for small sizes, every window size and thread count, and the edge
 * cases (zero scalars, scalar 1, scalars >= r, repeated bases, P and -P, infinity). */
#include "ck.h"
#include <stdlib.h>
#include <string.h>

#include "msm.h"
#include "util.h"
#include "vectors/vec.h"

static vec_file *V;

START_TEST(test_vectors) {
  char buf[4096], *tok[VEC_MAX_TOK];
  int cases1 = 0, cases2 = 0;
  for (size_t i = 0; i < V->n; i++) {
    if (strncmp(V->lines[i], "msm_g", 5)) continue;
    vec_split(V->lines[i], buf, sizeof buf, tok, VEC_MAX_TOK);
    int g2 = tok[0][5] == '2';
    size_t n = strtoul(tok[1], NULL, 10);
    ck_assert(i + n + 1 < V->n);
    fr_t *k = xmalloc(n * sizeof *k);
    g1_affine_t *b1 = xmalloc(n * sizeof *b1);
    g2_affine_t *b2 = xmalloc(n * sizeof *b2);
    for (size_t j = 0; j < n; j++) {
      vec_split(V->lines[i + 1 + j], buf, sizeof buf, tok, VEC_MAX_TOK);
      vec_scalar(tok[0], &k[j]);
      if (g2) vec_g2(tok + 1, &b2[j]);
      else vec_g1(tok + 1, &b1[j]);
    }
    vec_split(V->lines[i + 1 + n], buf, sizeof buf, tok, VEC_MAX_TOK);
    ck_assert_str_eq(tok[0], "res");
    unsigned windows[] = {0, 1, 3, 8};
    for (unsigned w = 0; w < 4; w++) {
      if (g2) {
        g2_affine_t want, got;
        g2_jac_t r;
        vec_g2(tok + 1, &want);
        msm_cpu_g2(&r, b2, k, n, windows[w], 2);
        g2_jac_to_affine(&got, &r);
        ck_assert_msg(g2_affine_eq(&got, &want), "G2 MSM of %zu (line %zu) window %u", n, i + 1,
                      windows[w]);
      } else {
        g1_affine_t want, got;
        g1_jac_t r;
        vec_g1(tok + 1, &want);
        msm_cpu_g1(&r, b1, k, n, windows[w], 2);
        g1_jac_to_affine(&got, &r);
        ck_assert_msg(g1_affine_eq(&got, &want), "G1 MSM of %zu (line %zu) window %u", n, i + 1,
                      windows[w]);
      }
    }
    if (g2) cases2++;
    else cases1++;
    free(k);
    free(b1);
    free(b2);
    i += n + 1;
  }
  ck_assert_int_ge(cases1, 6);
  ck_assert_int_ge(cases2, 5);
}
END_TEST

/* Random canonical scalars below r, with the edge cases planted. */
static void make_case(size_t n, g1_affine_t *b1, g2_affine_t *b2, fr_t *k, uint64_t *s) {
  for (size_t i = 0; i < n; i++) {
    fr_t t;
    fr_random(&t, vec_rng, s);
    fr_to_canon(&k[i], &t);
    if (b1) g1_random(&b1[i], vec_rng, s);
    if (b2) g2_random(&b2[i], vec_rng, s);
  }
  if (n < 8) return;
  static const fr_t r = BLS_FR_R;
  memset(&k[0], 0, sizeof k[0]);          /* zero */
  memset(&k[1], 0, sizeof k[1]);
  k[1].v[0] = 1;                          /* one */
  k[2] = r;                               /* r itself: contributes nothing */
  k[3] = r;
  k[3].v[0] += 12345;                     /* r + 12345 */
  memset(&k[4], 0xff, sizeof k[4]);       /* 2^256 - 1 */
  if (b1) {
    g1_affine_set_inf(&b1[5]);            /* infinity base */
    b1[6] = b1[7];                        /* repeated base */
    if (n > 9) g1_affine_neg(&b1[8], &b1[7]); /* and its negation */
  }
  if (b2) {
    g2_affine_set_inf(&b2[5]);
    b2[6] = b2[7];
    if (n > 9) g2_affine_neg(&b2[8], &b2[7]);
  }
  if (n > 9) k[8] = k[7];                 /* P*k + (-P)*k cancels */
}

START_TEST(test_g1_vs_naive) {
  uint64_t s = 9;
  size_t sizes[] = {1, 2, 3, 8, 10, 31, 64, 100, 257};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    size_t n = sizes[si];
    g1_affine_t *b = xmalloc(n * sizeof *b);
    fr_t *k = xmalloc(n * sizeof *k);
    make_case(n, b, NULL, k, &s);
    g1_jac_t want, got;
    msm_naive_g1(&want, b, k, n);
    for (unsigned c = 1; c <= 12; c++) {
      msm_cpu_g1(&got, b, k, n, c, c % 3);
      ck_assert_msg(g1_jac_eq(&got, &want), "n %zu window %u", n, c);
    }
    msm_cpu_g1(&got, b, k, n, 0, 0);
    ck_assert(g1_jac_eq(&got, &want));
    /* More threads than windows: the points of a window are split into chunks. */
    msm_cpu_g1(&got, b, k, n, 4, 100);
    ck_assert_msg(g1_jac_eq(&got, &want), "n %zu chunked, window 4", n);
    msm_cpu_g1(&got, b, k, n, 2, 500);
    ck_assert_msg(g1_jac_eq(&got, &want), "n %zu chunked, window 2", n);
    free(b);
    free(k);
  }
}
END_TEST

START_TEST(test_g2_vs_naive) {
  uint64_t s = 10;
  size_t sizes[] = {1, 2, 10, 40};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    size_t n = sizes[si];
    g2_affine_t *b = xmalloc(n * sizeof *b);
    fr_t *k = xmalloc(n * sizeof *k);
    make_case(n, NULL, b, k, &s);
    g2_jac_t want, got;
    msm_naive_g2(&want, b, k, n);
    unsigned windows[] = {0, 1, 2, 5, 9};
    for (unsigned w = 0; w < 5; w++) {
      msm_cpu_g2(&got, b, k, n, windows[w], 2);
      ck_assert_msg(g2_jac_eq(&got, &want), "n %zu window %u", n, windows[w]);
    }
    free(b);
    free(k);
  }
}
END_TEST

/* Degenerate inputs: empty, all-zero scalars, all-infinity bases, one base repeated
 * (every bucket hit by the same point, so doubling inside the buckets), a sum to zero. */
START_TEST(test_degenerate) {
  uint64_t s = 11;
  enum { N = 70 };
  g1_affine_t b[N];
  fr_t k[N];
  g1_jac_t got, want;
  memset(b, 0, sizeof b);
  memset(k, 0, sizeof k);
  msm_cpu_g1(&got, b, k, 0, 0, 1);
  ck_assert(g1_jac_is_inf(&got));
  make_case(N, b, NULL, k, &s);
  memset(k, 0, sizeof k);
  msm_cpu_g1(&got, b, k, N, 0, 2);
  ck_assert(g1_jac_is_inf(&got));
  make_case(N, b, NULL, k, &s);
  for (int i = 0; i < N; i++) g1_affine_set_inf(&b[i]);
  msm_cpu_g1(&got, b, k, N, 0, 2);
  ck_assert(g1_jac_is_inf(&got));
  make_case(N, b, NULL, k, &s);
  for (int i = 1; i < N; i++) b[i] = b[0];
  for (int i = 0; i < N; i++) { /* small equal scalars land in one bucket */
    memset(&k[i], 0, sizeof k[i]);
    k[i].v[0] = 3;
  }
  msm_naive_g1(&want, b, k, N);
  msm_cpu_g1(&got, b, k, N, 4, 2);
  ck_assert(g1_jac_eq(&got, &want));
  /* k * P + (r - k) * P = infinity */
  fr_t kk[2], t;
  g1_affine_t bb[2] = {b[0], b[0]};
  fr_random(&t, vec_rng, &s);
  fr_to_canon(&kk[0], &t);
  fr_neg(&t, &t);
  fr_to_canon(&kk[1], &t);
  msm_cpu_g1(&got, bb, kk, 2, 0, 1);
  ck_assert(g1_jac_is_inf(&got));
  ck_assert_uint_ge(msm_cpu_window(0, 1u << 20), 10);
  ck_assert_uint_le(msm_cpu_window(0, 1), 4);
}
END_TEST

/* The CUDA backend's window rule (msm_gpu_window, which the CPU-side buffer sizing
 * follows): 17 bits for G1 from just above 2^23 points to 2^24, whose last window then
 * lies past the 255 bits of r and holds only a carry; 20 from 2^25; G2 keeps 16. */
START_TEST(test_gpu_window_table) {
  ck_assert_uint_eq(msm_gpu_window(0, 1), 4);
  ck_assert_uint_eq(msm_gpu_window(0, 64), 8);
  ck_assert_uint_eq(msm_gpu_window(0, (size_t)1 << 20), 16);
  ck_assert_uint_eq(msm_gpu_window(0, (size_t)1 << 23), 16);
  ck_assert_uint_eq(msm_gpu_window(0, ((size_t)1 << 23) + 1), 17);
  ck_assert_uint_eq(msm_gpu_window(0, (size_t)1 << 24), 17);
  ck_assert_uint_eq(msm_gpu_window(0, ((size_t)1 << 24) + 1), 20);
  ck_assert_uint_eq(msm_gpu_window(0, (size_t)1 << 26), 20);
  ck_assert_uint_eq(msm_gpu_window(1, (size_t)1 << 24), 16);
  ck_assert_uint_eq(msm_gpu_window(1, (size_t)1 << 26), 16);
  /* at 17 bits the first W - 1 of W = ceil(256/17) windows cover r's 255 bits */
  const unsigned c = 17, w = (256 + c - 1) / c;
  ck_assert_uint_ge((w - 1) * c, 255);
  ck_assert_uint_lt((w - 2) * c, 255);
}
END_TEST

/* A larger G1 MSM on g1_random_many bases: Pippenger with the chosen window against a
 * different window and chunking (the naive sum would take too long), and its time. */
START_TEST(test_g1_large) {
  uint64_t s = 12;
  size_t n = 1 << 12;
  g1_affine_t *b = xmalloc(n * sizeof *b);
  fr_t *k = xmalloc(n * sizeof *k);
  g1_random_many(b, n, vec_rng, &s);
  for (size_t i = 0; i < n; i++) {
    fr_t t;
    fr_random(&t, vec_rng, &s);
    fr_to_canon(&k[i], &t);
  }
  g1_jac_t r1, r2;
  double t0 = ps_now();
  msm_cpu_g1(&r1, b, k, n, 0, 0);
  double t1 = ps_now();
  msm_cpu_g1(&r2, b, k, n, 5, 150); /* 52 windows x 3 chunks */
  fprintf(stderr, "msm G1 2^12 (window %u): %.3f s\n", msm_cpu_window(0, n), t1 - t0);
  ck_assert(g1_jac_eq(&r1, &r2));
  ck_assert(g1_jac_is_on_curve(&r1));
  for (size_t i = 0; i < n; i += 97) {
    ck_assert(g1_affine_is_on_curve(&b[i]));
    ck_assert(!g1_affine_is_inf(&b[i]));
  }
  ck_assert(!g1_affine_eq(&b[0], &b[1]));
  free(b);
  free(k);
}
END_TEST

/* G2 on g2_random_many bases: two windows and chunked threads agree. */
START_TEST(test_g2_many) {
  uint64_t s = 13;
  size_t n = 300;
  g2_affine_t *b = xmalloc(n * sizeof *b);
  fr_t *k = xmalloc(n * sizeof *k);
  g2_random_many(b, n, vec_rng, &s);
  for (size_t i = 0; i < n; i++) {
    fr_t t;
    fr_random(&t, vec_rng, &s);
    fr_to_canon(&k[i], &t);
  }
  ck_assert(g2_affine_in_subgroup(&b[0]) && g2_affine_in_subgroup(&b[n - 1]));
  g2_jac_t r1, r2;
  msm_cpu_g2(&r1, b, k, n, 0, 0);
  msm_cpu_g2(&r2, b, k, n, 3, 200);
  ck_assert(g2_jac_eq(&r1, &r2));
  free(b);
  free(k);
}
END_TEST

int main(void) {
  V = vec_load();
  if (!V) return 1;
  Suite *s = suite_create("msm");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_vectors);
  tcase_add_test(tc, test_g1_vs_naive);
  tcase_add_test(tc, test_g2_vs_naive);
  tcase_add_test(tc, test_degenerate);
  tcase_add_test(tc, test_gpu_window_table);
  tcase_add_test(tc, test_g1_large);
  tcase_add_test(tc, test_g2_many);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  vec_free(V);
  return failed;
}
