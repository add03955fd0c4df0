/* Check suite of the radix-4 steps of the GPU NTT (prover/cuda/ntt_r4.h), run on the CPU:
 * the pass structure of ntt.cu (passes of k stages over blocks of 2^(k+c) elements, stage
 * pairs as radix-4 groups, a last radix-2 stage when k is odd) with the header's index
 * arithmetic and butterfly order, over the reference field code, must equal the
 * reference NTT (prover/ntt_cpu.c) for DIF (natural -> bit-reversed) and DIT
 * (bit-reversed -> natural), for many sizes and pass shapes. CI has no GPU; on the H200
 * tests/gpu_check.c compares the kernels themselves. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ntt_r4.h"
#include "fr.h"
#include "ntt.h"
#include "vectors/vec.h"

static void fadd(fr_t *r, const fr_t *a, const fr_t *b) { fr_add(r, a, b); }
static void fsub(fr_t *r, const fr_t *a, const fr_t *b) { fr_sub(r, a, b); }
static void fmul(fr_t *r, const fr_t *a, const fr_t *b) { fr_mul(r, a, b); }

/* One pass (stages s .. s+k-1) over all blocks, as the kernel does it. */
static void pass(fr_t *d, const fr_t *tw, unsigned log_n, unsigned s, unsigned k, unsigned c, int dit) {
  const unsigned L = log_n - s - k, nel = 1u << (k + c), cmask = (1u << c) - 1;
  fr_t *sh = malloc(sizeof(fr_t) * nel);
  for (size_t blk = 0; blk < ((size_t)1 << (log_n - k - c)); blk++) {
    const size_t lo_group = blk & ((1u << (L - c)) - 1), hi = blk >> (L - c);
    const size_t base = (hi << (log_n - s)) | (lo_group << c);
    for (unsigned e = 0; e < nel; e++) sh[e] = d[base | ((size_t)(e >> c) << L) | (e & cmask)];
    for (unsigned step = 0; step + 1 < k; step += 2) {
      unsigned t_big = dit ? k - 2 - step : step, lH = k - 1 - t_big;
      for (unsigned g = 0; g < nel / 4; g++) {
        ntt_r4_group gr;
        ntt_r4_group_at(&gr, g, c, lH, L, lo_group << c, s + t_big);
        fr_t x[4], w[3];
        int has[3];
        for (int i = 0; i < 4; i++) x[i] = sh[gr.e[i]];
        for (int i = 0; i < 3; i++) {
          has[i] = gr.ti[i] != 0;
          if (has[i]) w[i] = tw[gr.ti[i]];
        }
        NTT_R4_BUTTERFLIES(fr_t, x, w, has, dit, fadd, fsub, fmul);
        for (int i = 0; i < 4; i++) sh[gr.e[i]] = x[i];
      }
    }
    if (k & 1) { /* the last stage executed, radix 2 */
      unsigned t = dit ? 0 : k - 1, lhr = k - 1 - t, hr = 1u << lhr;
      for (unsigned j = 0; j < nel / 2; j++) {
        unsigned col = j & cmask, q = j >> c, r0 = ((q >> lhr) << (lhr + 1)) | (q & (hr - 1));
        unsigned e0 = (r0 << c) | col, e1 = ((r0 + hr) << c) | col;
        size_t ti = ((((size_t)(q & (hr - 1))) << L) | (lo_group << c) | col) << (s + t);
        fr_t a = sh[e0], b = sh[e1], x, y;
        if (!dit) {
          fr_add(&x, &a, &b);
          fr_sub(&y, &a, &b);
          if (ti) fr_mul(&y, &y, &tw[ti]);
        } else {
          if (ti) fr_mul(&b, &b, &tw[ti]);
          fr_add(&x, &a, &b);
          fr_sub(&y, &a, &b);
        }
        sh[e0] = x;
        sh[e1] = y;
      }
    }
    for (unsigned e = 0; e < nel; e++) d[base | ((size_t)(e >> c) << L) | (e & cmask)] = sh[e];
  }
  free(sh);
}

/* ntt.cu's run_network: pre-passes of at most max_k stages, then a last pass of log_block. */
static void network(fr_t *d, const fr_t *tw, unsigned log_n, unsigned log_block, unsigned max_k, int dit) {
  unsigned ps[32], pk[32], np = 0;
  if (log_n <= log_block) {
    ps[0] = 0, pk[0] = log_n, np = 1;
  } else {
    unsigned rest = log_n - log_block, npre = (rest + max_k - 1) / max_k, s = 0;
    for (unsigned i = 0; i < npre; i++) {
      unsigned k = rest / (npre - i);
      ps[np] = s, pk[np++] = k;
      s += k, rest -= k;
    }
    ps[np] = s, pk[np++] = log_block;
  }
  for (unsigned ii = 0; ii < np; ii++) {
    unsigned i = dit ? np - 1 - ii : ii, s = ps[i], k = pk[i], L = log_n - s - k;
    unsigned c = log_block - k < L ? log_block - k : L;
    pass(d, tw, log_n, s, k, c, dit);
  }
}

START_TEST(r4_network_equals_reference) {
  static const unsigned shapes[][2] = {{10, 8}, {6, 4}, {5, 5}, {7, 3}, {4, 2}};
  uint64_t st = 5;
  for (unsigned log_n = 1; log_n <= 13; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *x = malloc(sizeof(fr_t) * n), *want = malloc(sizeof(fr_t) * n), *got = malloc(sizeof(fr_t) * n);
    fr_t *tw = malloc(sizeof(fr_t) * (n / 2 + 1)), w;
    for (size_t i = 0; i < n; i++) fr_random(&x[i], vec_rng, &st);
    ntt_root_of_unity(&w, log_n);
    fr_one(&tw[0]);
    for (size_t j = 1; j < n / 2; j++) fr_mul(&tw[j], &tw[j - 1], &w);
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
      for (int dit = 0; dit <= 1; dit++) {
        memcpy(want, x, sizeof(fr_t) * n);
        ntt_cpu(want, log_n, 1, dit ? NTT_IN_BITREV : NTT_OUT_BITREV, 1);
        memcpy(got, x, sizeof(fr_t) * n);
        network(got, tw, log_n, shapes[sh][0], shapes[sh][1], dit);
        ck_assert_msg(memcmp(want, got, sizeof(fr_t) * n) == 0, "2^%u %s, blocks of 2^%u, passes of <= %u stages",
                      log_n, dit ? "DIT" : "DIF", shapes[sh][0], shapes[sh][1]);
      }
    }
    free(x), free(want), free(got), free(tw);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("ntt_r4");
  TCase *tc = tcase_create("network");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, r4_network_equals_reference);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
