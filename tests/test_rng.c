/* Check suite of core/rng.c: its MT19937 gives gsl_rng_mt19937's numbers for the same
 * seed, its gaussian draws are gsl_ran_gaussian_ziggurat's bit for bit (and use the same
 * numbers), and every distribution draws the same values on either generator. */
#include "ck.h"
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "rng.h"
#include "seed.h"
#include "util.h"

static const unsigned long seeds[] = {0, 1, 4357, 0xffffffffUL, 0x100000005UL, 0xdeadbeefcafef00dUL};
#define NSEEDS (sizeof seeds / sizeof seeds[0])

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

START_TEST(mt_matches_gsl) {
  for (size_t s = 0; s < NSEEDS + 3; s++) {
    unsigned long seed = s < NSEEDS ? seeds[s] : (unsigned long)ps_seed_mix(s, s * 7);
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(rng_mt19937);
    gsl_rng_set(a, seed);
    gsl_rng_set(b, seed);
    ck_assert_uint_eq(gsl_rng_max(b), gsl_rng_max(a));
    ck_assert_uint_eq(gsl_rng_min(b), gsl_rng_min(a));
    for (int i = 0; i < 100000; i++) {
      switch (i % 3) {
      case 0: ck_assert_uint_eq(rng_get(b), gsl_rng_get(a)); break;
      case 1: ck_assert(same_bits(rng_uniform(b), gsl_rng_uniform(a))); break;
      default: ck_assert_uint_eq(gsl_rng_get(b), gsl_rng_get(a)); break;
      }
    }
    gsl_rng_free(a);
    gsl_rng_free(b);
  }
}
END_TEST

START_TEST(gaussian_matches_gsl) {
  ck_assert_int_eq(rng_init(), 1); /* the fast path is on */
  const double sigma[] = {1.0, 0.03, 2.5e-7, 1e3};
  int slow = 0;
  for (size_t s = 0; s < NSEEDS; s++) {
    gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(rng_mt19937);
    gsl_rng_set(a, seeds[s]);
    gsl_rng_set(b, seeds[s]);
    for (int i = 0; i < 400000; i++) {
      double sg = sigma[i & 3];
      rng_mt *st = b->state;
      uint32_t next = st->i < RNG_MT_N ? st->out[st->i] : 0;
      slow += st->i < RNG_MT_N && (next >> 8) >= rng__zig.k[next & 0x7f];
      double x = rng_gaussian(b, sg), y = gsl_ran_gaussian_ziggurat(a, sg);
      ck_assert_msg(same_bits(x, y), "seed %lu draw %d: %.17g against GSL's %.17g", seeds[s], i, x, y);
    }
    ck_assert_uint_eq(rng_get(b), gsl_rng_get(a)); /* the same numbers were used */
    gsl_rng_free(a);
    gsl_rng_free(b);
  }
  ck_assert_int_gt(slow, 1000); /* the draws off the fast path were tested too */
}
END_TEST

START_TEST(dists_draw_the_same) {
  dist_gsl_init();
  dist d[8];
  const char *why;
  ck_assert_int_eq(dist_const(&d[0], 0.12, &why), 0);
  ck_assert_int_eq(dist_uniform(&d[1], 0.4, 0.7, &why), 0);
  ck_assert_int_eq(dist_normal(&d[2], 0.69, 0.03, &why), 0);
  ck_assert_int_eq(dist_normal(&d[3], 0.1, 0.2, &why), 0); /* often redrawn */
  ck_assert_int_eq(dist_lognormal_mean_cv(&d[4], 1.91, 0.1, &why), 0);
  ck_assert_int_eq(dist_gamma_mean_cv(&d[5], 2, 0.5, &why), 0);
  ck_assert_int_eq(dist_exponential(&d[6], 3, &why), 0);
  double *smp = xmalloc(5 * sizeof *smp);
  for (int i = 0; i < 5; i++) smp[i] = 0.5 * i;
  ck_assert_int_eq(dist_empirical(&d[7], smp, 5, &why), 0);
  gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937), *b = gsl_rng_alloc(rng_mt19937);
  gsl_rng_set(a, 42);
  gsl_rng_set(b, 42);
  for (int i = 0; i < 200000; i++) {
    const dist *x = &d[(i * 5) % 8];
    ck_assert(same_bits(dist_draw(x, b), dist_draw(x, a)));
  }
  for (int i = 0; i < 8; i++) dist_free(&d[i]);
  gsl_rng_free(a);
  gsl_rng_free(b);
}
END_TEST

int main(void) {
  Suite *su = suite_create("rng");
  TCase *tc = tcase_create("rng");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, mt_matches_gsl);
  tcase_add_test(tc, gaussian_matches_gsl);
  tcase_add_test(tc, dists_draw_the_same);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
