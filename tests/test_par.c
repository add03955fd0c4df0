/* Check suite of par_for (common/par.c): every item runs once whatever the threads, and
 * par_cpu_seconds counts the CPU time of the helpers a call ran, joined, beside the calling
 * thread's own. CPU time, not wall time, is asserted: each item burns a fixed amount of
 * its thread's CPU clock, which a loaded machine stretches in wall time only. */
#include "ck.h"
#include <stdatomic.h>
#include <stdlib.h>

#include "par.h"

#define ITEMS 24
#define BURN 0.005 /* CPU seconds an item burns */

typedef struct job {
  atomic_int seen[ITEMS];
} job;

static void burn(double s) {
  double end = par_thread_cpu() + s;
  volatile unsigned x = 0;
  while (par_thread_cpu() < end)
    for (int i = 0; i < 1000; i++) x += (unsigned)i;
}

static void items(void *ctx, size_t lo, size_t hi) {
  job *j = ctx;
  for (size_t i = lo; i < hi; i++) {
    atomic_fetch_add(&j->seen[i], 1);
    burn(BURN);
  }
}

/* 24 items of 5 ms of CPU each on 1, 2 and 4 threads: each item once, and the caller's
 * par_cpu_seconds grows by their 0.12 s whoever ran them (at most 20% more: the threads'
 * start and the clock's reads). */
START_TEST(cpu_of_helpers_counted) {
  ck_assert(par_thread_cpu() > 0);
  for (int threads = 1; threads <= 4; threads *= 2) {
    job j;
    for (int i = 0; i < ITEMS; i++) atomic_init(&j.seen[i], 0);
    double c0 = par_cpu_seconds(), own0 = par_thread_cpu();
    par_for(ITEMS, 1, threads, items, &j, NULL, NULL);
    double used = par_cpu_seconds() - c0, own = par_thread_cpu() - own0;
    for (int i = 0; i < ITEMS; i++) ck_assert_int_eq(atomic_load(&j.seen[i]), 1);
    ck_assert_msg(used >= ITEMS * BURN && used <= 1.2 * ITEMS * BURN, "%d threads: %.4f CPU s for %.3f burnt", threads,
                  used, ITEMS * BURN);
    /* The caller's own clock holds only its share when helpers ran. */
    if (threads == 1) ck_assert(own >= ITEMS * BURN);
    else ck_assert(own <= used);
  }
}
END_TEST

/* par_cpu_credit adds to the calling thread's count only. */
START_TEST(credit_adds) {
  double c0 = par_cpu_seconds();
  par_cpu_credit(2.5);
  double d = par_cpu_seconds() - c0;
  ck_assert_msg(d >= 2.5 && d < 2.6, "%.4f", d);
}
END_TEST

int main(void) {
  Suite *s = suite_create("par");
  TCase *tc = tcase_create("par");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cpu_of_helpers_counted);
  tcase_add_test(tc, credit_adds);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int f = srunner_ntests_failed(r);
  srunner_free(r);
  return f ? EXIT_FAILURE : EXIT_SUCCESS;
}
