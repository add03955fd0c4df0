/* Check suite of sim/spanord.c: spans of parallel replications reach the consumer in
 * replication order, the same stream as one thread gives, with the buffers held under
 * their cap however far the other replications run ahead. */
#include "ck.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "spanord.h"

enum { NREP = 12 };

typedef struct sink {
  int64_t *seen; /* rep * 1e6 + index, in delivery order */
  size_t n, cap;
} sink;

static void take(void *ctx, const sim_span *sp) {
  sink *k = ctx;
  if (k->n == k->cap) k->seen = xrealloc(k->seen, (k->cap = k->cap ? 2 * k->cap : 1024) * sizeof *k->seen);
  ck_assert_int_eq(sp->npartitions, 1);
  k->seen[k->n++] = sp->rep * 1000000 + sp->partitions[0];
}

typedef struct job {
  span_order *o;
  int spans[NREP];
} job;

static void reps(void *ctx, size_t lo, size_t hi) {
  job *J = ctx;
  for (size_t r = lo; r < hi; r++) {
    for (int64_t i = 0; i < J->spans[r]; i++) {
      sim_span sp = {.rep = (int)r, .partitions = &i, .npartitions = 1, .phase = "p", .resource = "cpu"};
      span_order_add(J->o, &sp);
    }
    span_order_done(J->o, (int)r);
  }
}

static void run(int threads, size_t cap, sink *k, size_t *peak) {
  job J = {0};
  /* Uneven replications: a long head (rep 0) lets the others run ahead and fill the cap. */
  for (int r = 0; r < NREP; r++) J.spans[r] = r == 0 ? 200000 : 1000 + 3000 * (r % 4);
  J.o = span_order_new(NREP, cap, take, k);
  par_for(NREP, 1, threads, reps, &J, NULL, NULL);
  *peak = span_order_peak(J.o);
  span_order_free(J.o);
}

START_TEST(order_and_bound) {
  sink one = {0}, many = {0};
  size_t p1, p4;
  size_t cap = 64 * 1024;
  run(1, cap, &one, &p1);
  run(4, cap, &many, &p4);
  ck_assert_uint_eq(one.n, many.n);
  ck_assert(memcmp(one.seen, many.seen, one.n * sizeof *one.seen) == 0);
  /* The stream is replication by replication, each in its own order. */
  for (size_t i = 1; i < one.n; i++) ck_assert(one.seen[i] > one.seen[i - 1]);
  ck_assert_uint_eq(p1, 0); /* one thread: every replication is the head when it runs */
  ck_assert_uint_le(p4, cap);
  free(one.seen), free(many.seen);
}
END_TEST

/* A cap of zero still delivers everything: the replications behind the head wait. */
START_TEST(zero_cap_delivers) {
  sink k = {0};
  size_t peak;
  run(3, 0, &k, &peak);
  ck_assert_uint_eq(peak, 0);
  size_t want = 0;
  for (int r = 0; r < NREP; r++) want += r == 0 ? 200000 : 1000 + 3000 * (r % 4);
  ck_assert_uint_eq(k.n, want);
  free(k.seen);
}
END_TEST

int main(void) {
  Suite *s = suite_create("spanord");
  TCase *tc = tcase_create("spanord");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, order_and_bound);
  tcase_add_test(tc, zero_cap_delivers);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int f = srunner_ntests_failed(r);
  srunner_free(r);
  return f ? EXIT_FAILURE : EXIT_SUCCESS;
}
