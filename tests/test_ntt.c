/* Check suite of the plain-C NTT over Fr (prover/ntt_cpu.c): every flag combination
 * against naive polynomial evaluation on the domain (or on the coset g*H) for small
 * sizes, inverse(forward(x)) = x for many sizes, batches and thread counts, and the
 * order conventions of ntt.h. */
#include "ck.h"
#include <stdlib.h>
#include <string.h>

#include "fr.h"
#include "ntt.h"
#include "util.h"
#include "vectors/vec.h"

static void random_vec(fr_t *a, size_t n, uint64_t *s) {
  for (size_t i = 0; i < n; i++) fr_random(&a[i], vec_rng, s);
}

static size_t rev(size_t i, unsigned log_n) {
  size_t r = 0;
  for (unsigned b = 0; b < log_n; b++) r |= ((i >> b) & 1) << (log_n - 1 - b);
  return r;
}

/* The expected output of the transform selected by flags, computed naively from
 * natural-order coefficients x: evaluation X_k = sum_i x_i (c w^k)^i with c = 1 or g. */
static void naive_forward(fr_t *out, const fr_t *x, unsigned log_n, int coset) {
  size_t n = (size_t)1 << log_n;
  fr_t w, c, pt;
  ntt_root_of_unity(&w, log_n);
  c = coset ? (fr_t)BLS_FR_GENERATOR : (fr_t)BLS_FR_ONE;
  for (size_t k = 0; k < n; k++) {
    fr_t acc, pw;
    fr_zero(&acc);
    fr_one(&pw);
    pt = c; /* pt = c w^k */
    for (size_t j = 0; j < k; j++) fr_mul(&pt, &pt, &w);
    for (size_t i = 0; i < n; i++) { /* Horner would be faster; this reads like the formula */
      fr_t t;
      fr_mul(&t, &x[i], &pw);
      fr_add(&acc, &acc, &t);
      fr_mul(&pw, &pw, &pt);
    }
    out[k] = acc;
  }
}

START_TEST(test_naive_all_flags) {
  uint64_t s = 1;
  for (unsigned log_n = 1; log_n <= 6; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *x = xmalloc(n * sizeof *x), *ev = xmalloc(n * sizeof *ev), *a = xmalloc(n * sizeof *a);
    for (int flags = 0; flags < 16; flags++) {
      int inverse = flags & NTT_INVERSE, coset = flags & NTT_COSET;
      int in_rev = (flags & NTT_IN_BITREV) != 0, out_rev = (flags & NTT_OUT_BITREV) != 0;
      random_vec(x, n, &s);
      naive_forward(ev, x, log_n, coset);
      /* Forward: input x, expected ev. Inverse: input ev, expected x. */
      const fr_t *in = inverse ? ev : x, *want = inverse ? x : ev;
      for (size_t p = 0; p < n; p++) a[p] = in[in_rev ? rev(p, log_n) : p];
      ntt_cpu(a, log_n, 1, flags, 1);
      for (size_t p = 0; p < n; p++) {
        ck_assert_msg(fr_eq(&a[p], &want[out_rev ? rev(p, log_n) : p]),
                      "log_n %u flags %d position %zu", log_n, flags, p);
      }
    }
    free(x);
    free(ev);
    free(a);
  }
}
END_TEST

/* The shorthands are the flag forms. */
START_TEST(test_shorthands) {
  uint64_t s = 2;
  unsigned log_n = 5;
  size_t n = 32;
  fr_t x[32], a[32], b[32];
  random_vec(x, n, &s);
  void (*fn[4])(fr_t *, unsigned, int) = {ntt_forward, ntt_inverse, ntt_coset_forward,
                                          ntt_coset_inverse};
  int fl[4] = {0, NTT_INVERSE, NTT_COSET, NTT_INVERSE | NTT_COSET};
  for (int i = 0; i < 4; i++) {
    for (int order = 0; order < 16; order += 4) {
      memcpy(a, x, sizeof x);
      memcpy(b, x, sizeof x);
      fn[i](a, log_n, order);
      ntt_cpu(b, log_n, 1, fl[i] | order, 1);
      ck_assert(!memcmp(a, b, sizeof a));
    }
  }
  /* Bit reversal is an involution and matches the slow definition. */
  for (size_t p = 0; p < n; p++) a[p] = x[p];
  ntt_bitrev_permute(a, log_n);
  for (size_t p = 0; p < n; p++) ck_assert(fr_eq(&a[p], &x[rev(p, log_n)]));
}
END_TEST

/* inverse(forward(x)) = x for sizes 2^1 .. 2^16 in the usual pairings of orders, and
 * forward results equal between thread counts. */
START_TEST(test_roundtrip_sizes) {
  uint64_t s = 3;
  for (unsigned log_n = 1; log_n <= 16; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *x = xmalloc(n * sizeof *x), *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
    random_vec(x, n, &s);
    for (int coset = 0; coset <= NTT_COSET; coset += NTT_COSET) {
      memcpy(a, x, n * sizeof *a);
      ntt_cpu(a, log_n, 1, coset | NTT_OUT_BITREV, 1);
      memcpy(b, x, n * sizeof *b);
      ntt_cpu(b, log_n, 1, coset | NTT_OUT_BITREV, 4); /* stage-parallel from 2^12 */
      ck_assert_msg(!memcmp(a, b, n * sizeof *a), "threads differ at log_n %u", log_n);
      ntt_cpu(a, log_n, 1, coset | NTT_INVERSE | NTT_IN_BITREV, 3);
      ck_assert_msg(!memcmp(a, x, n * sizeof *a), "roundtrip log_n %u coset %d", log_n, coset);
      ntt_cpu(a, log_n, 1, coset, 0);
      ntt_cpu(a, log_n, 1, coset | NTT_INVERSE, 2);
      ck_assert_msg(!memcmp(a, x, n * sizeof *a), "natural roundtrip log_n %u", log_n);
    }
    free(x);
    free(a);
    free(b);
  }
}
END_TEST

/* A batch transforms each vector as a single call would, on any thread count. */
START_TEST(test_batch) {
  uint64_t s = 4;
  unsigned log_n = 10;
  size_t n = 1024, batch = 5;
  fr_t *x = xmalloc(batch * n * sizeof *x), *a = xmalloc(batch * n * sizeof *a);
  random_vec(x, batch * n, &s);
  for (unsigned threads = 1; threads <= 8; threads *= 2) {
    for (int flags = 0; flags < 16; flags += 3) {
      memcpy(a, x, batch * n * sizeof *a);
      ntt_cpu(a, log_n, batch, flags, threads);
      for (size_t v = 0; v < batch; v++) {
        fr_t *one = xmalloc(n * sizeof *one);
        memcpy(one, x + v * n, n * sizeof *one);
        ntt_cpu(one, log_n, 1, flags, 1);
        ck_assert_msg(!memcmp(one, a + v * n, n * sizeof *one), "batch %zu flags %d threads %u", v,
                      flags, threads);
        free(one);
      }
    }
  }
  free(x);
  free(a);
}
END_TEST

/* A polynomial product through the NTT equals the schoolbook product (a use of the
 * convention, not only of the inverse property). */
START_TEST(test_convolution) {
  uint64_t s = 5;
  unsigned log_n = 7;
  size_t n = 128, m = 64;
  fr_t a[128], b[128], want[128];
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  random_vec(a, m, &s);
  random_vec(b, m, &s);
  for (size_t k = 0; k < n; k++) fr_zero(&want[k]);
  for (size_t i = 0; i < m; i++) {
    for (size_t j = 0; j < m; j++) {
      fr_t t;
      fr_mul(&t, &a[i], &b[j]);
      fr_add(&want[i + j], &want[i + j], &t);
    }
  }
  ntt_cpu(a, log_n, 1, NTT_COSET | NTT_OUT_BITREV, 1);
  ntt_cpu(b, log_n, 1, NTT_COSET | NTT_OUT_BITREV, 1);
  for (size_t k = 0; k < n; k++) fr_mul(&a[k], &a[k], &b[k]);
  ntt_cpu(a, log_n, 1, NTT_COSET | NTT_INVERSE | NTT_IN_BITREV, 1);
  for (size_t k = 0; k < n; k++) ck_assert(fr_eq(&a[k], &want[k]));
}
END_TEST

/* 2^20 on all CPUs (2^16 in unoptimised builds): round trip, and the time, printed. */
START_TEST(test_large) {
  uint64_t s = 6;
#ifdef NDEBUG
  unsigned log_n = 20;
#else
  unsigned log_n = 16;
#endif
  size_t n = (size_t)1 << log_n;
  fr_t *x = xmalloc(n * sizeof *x), *a = xmalloc(n * sizeof *a);
  random_vec(x, n, &s);
  memcpy(a, x, n * sizeof *a);
  double t0 = ps_now();
  ntt_cpu(a, log_n, 1, NTT_COSET, 0);
  double t1 = ps_now();
  ntt_cpu(a, log_n, 1, NTT_COSET | NTT_INVERSE, 0);
  ck_assert(!memcmp(a, x, n * sizeof *a));
  fprintf(stderr, "ntt 2^%u coset forward (natural order): %.3f s\n", log_n, t1 - t0);
  free(x);
  free(a);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ntt");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_naive_all_flags);
  tcase_add_test(tc, test_shorthands);
  tcase_add_test(tc, test_roundtrip_sizes);
  tcase_add_test(tc, test_batch);
  tcase_add_test(tc, test_convolution);
  tcase_add_test(tc, test_large);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}
