/* Check suite of the CUDA MSM's staged segment sums (prover/cuda/msm_seg.h), run on the
 * CPU: a block's copy of each step's buckets, word by word as msm_seg_src maps them, fills
 * every slot that has a segment exactly once and no other, from that segment's bucket of
 * the step; and the sums the threads then make are the plain kernel's (each thread walking
 * its own segment), for G1's and G2's point sizes (12 and 24 words), windows of 1 to 19,
 * segments of 1 to 8 buckets and 1 to 2^10 a window, and a last block that is not full.
 * Points stand in as words added modulo 2^64 (a commutative group, as the curve's is). */
#include "ck.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/msm_seg.h"

#define T 64 /* the kernel's block (msm_kernels.cuh) */

typedef struct word {
  uint64_t a, b;
} word;

static void add(word *x, const word *y, unsigned W) {
  for (unsigned k = 0; k < W; k++) x[k].a += y[k].a, x[k].b += y[k].b;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

static void check_shape(unsigned W, unsigned nwin, unsigned log_nseg, unsigned log_lseg) {
  const unsigned nseg = 1u << log_nseg, lseg = 1u << log_lseg, nb = nseg * lseg;
  const size_t total = (size_t)nwin * nseg, nbk = (size_t)nwin * nb;
  word *buckets = malloc(nbk * W * sizeof *buckets);
  for (size_t i = 0; i < nbk * W; i++) buckets[i] = (word){mix(2 * i + 1), mix(2 * i + 2)};
  /* the plain kernel: thread id walks its own segment from the last bucket to the first */
  word *acc0 = calloc(total * W, sizeof *acc0), *run0 = calloc(total * W, sizeof *run0);
  for (size_t id = 0; id < total; id++) {
    const word *b = buckets + ((id / nseg) * nb + (id % nseg) * lseg) * W;
    for (int i = (int)lseg - 1; i >= 0; i--) {
      add(run0 + id * W, b + (size_t)i * W, W);
      add(acc0 + id * W, run0 + id * W, W);
    }
  }
  /* the staged kernel, block by block */
  word *sh = malloc((size_t)T * W * sizeof *sh);
  int *hits = malloc((size_t)T * W * sizeof *hits);
  for (size_t id0 = 0; id0 < total; id0 += T) {
    word acc[T][24], run[T][24];
    memset(acc, 0, sizeof acc), memset(run, 0, sizeof run);
    for (int i = (int)lseg - 1; i >= 0; i--) {
      memset(hits, 0, (size_t)T * W * sizeof *hits);
      for (unsigned q = 0; q < T * W; q++) { /* every thread's share of the copy */
        long long bk = msm_seg_src(q, W, id0, total, nb, log_nseg, log_lseg, (unsigned)i);
        size_t id = id0 + q / W;
        if (id >= total) {
          ck_assert_int_eq(bk, -1);
          continue;
        }
        ck_assert_int_eq(bk, (long long)((id / nseg) * nb + (id % nseg) * lseg + (unsigned)i));
        sh[q] = buckets[(size_t)bk * W + q % W];
        hits[q]++;
      }
      for (unsigned t = 0; t < T && id0 + t < total; t++) {
        for (unsigned k = 0; k < W; k++) ck_assert_int_eq(hits[t * W + k], 1);
        add(run[t], sh + (size_t)t * W, W);
        add(acc[t], run[t], W);
      }
    }
    for (unsigned t = 0; t < T && id0 + t < total; t++) {
      ck_assert_msg(!memcmp(acc[t], acc0 + (id0 + t) * W, W * sizeof(word)) &&
                        !memcmp(run[t], run0 + (id0 + t) * W, W * sizeof(word)),
                    "W %u, %u windows, 2^%u segments of 2^%u: thread %zu", W, nwin, log_nseg, log_lseg, id0 + t);
    }
  }
  free(buckets), free(acc0), free(run0), free(sh), free(hits);
}

START_TEST(staged_sums_are_the_threads_own) {
  const unsigned Ws[] = {12, 24}, wins[] = {1, 3, 19}, segs[] = {0, 2, 5, 10}, lens[] = {0, 1, 3};
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 3; b++)
      for (int c = 0; c < 4; c++)
        for (int d = 0; d < 3; d++) /* up to 2^16 buckets: the larger shapes repeat the smaller */
          if ((size_t)wins[b] << (segs[c] + lens[d]) <= (size_t)1 << 16) check_shape(Ws[a], wins[b], segs[c], lens[d]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("msm_seg");
  TCase *tc = tcase_create("msm_seg");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, staged_sums_are_the_threads_own);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int f = srunner_ntests_failed(r);
  srunner_free(r);
  return f ? EXIT_FAILURE : EXIT_SUCCESS;
}
