/* Check suite of the radix-4 steps of the GPU NTT (prover/cuda/ntt_r4.h), run on the CPU:
 * the pass structure of ntt.cu (passes of k stages over blocks of 2^(k+c) elements, stage
 * pairs as radix-4 groups, a last radix-2 stage when k is odd) with the header's index
 * arithmetic and butterfly order, over the reference field code, must equal the
 * reference NTT (prover/ntt_cpu.c) for DIF (natural -> bit-reversed) and DIT
 * (bit-reversed -> natural), for many sizes and pass shapes. CI has no GPU; on the H200
 * tests/gpu_check.c compares the kernels themselves. */
#include "ck.h"
#include <fenv.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ntt_r4.h"
#include "fr.h"
#include "ntt.h"
#include "vectors/vec.h"

static void fadd(fr_t *r, const fr_t *a, const fr_t *b) { fr_add(r, a, b); }
static void fsub(fr_t *r, const fr_t *a, const fr_t *b) { fr_sub(r, a, b); }

/* The product modes of ntt.cu (PSC_NTT_MUL): 0 Montgomery's everywhere; 2 (fp64) and 3
 * (mixed) take the FP64 product (prover/cuda/psf_fp64.h, on the CPU's doubles with its
 * FMAs rounding toward zero) for the twiddles NTT_R4_W52 names, fed from a table of 16 w. */
#include "psd_cpu.h"

static int mul_mode;
static const fr_t *tw16; /* 16 w^j, for the FP64 product */

/* r = a * w^ti, by the product twiddle i (0..2, or -1 in a radix-2 stage) takes. */
static void mul_tw(fr_t *r, const fr_t *a, const fr_t *tw, size_t ti, int i) {
  if (!NTT_R4_W52(mul_mode, i)) {
    fr_mul(r, a, &tw[ti]);
    return;
  }
  psd_cpu_fr_mul(r->v, a->v, tw16[ti].v);
}
#define MUL_TI(r, a, g, i) mul_tw(r, a, tw, (g).ti[i], i)

/* PSC_NTT_TW=shared: each tile's twiddles staged first (ntt_tw_slot_index), then read by
 * their slots (the group's ts, ntt_tw_slot); tws is the current tile's table. */
static int staged;
static fr_t *tws;
#define MUL_TS(r, a, g, i) fr_mul(r, a, &tws[(g).ts[i]])

/* The kernel's grid for this test's passes: tiles a block (0: a resident count of 3). */
static unsigned tiles_per_block;

/* One pass (stages s .. s+k-1) over all tiles, as the kernel does it: block b of
 * ntt_r4_grid's grid does tiles b, b + grid, ...; every tile must come exactly once. */
static void pass(fr_t *d, const fr_t *tw, unsigned log_n, unsigned s, unsigned k, unsigned c, int dit) {
  const unsigned L = log_n - s - k, nel = 1u << (k + c), cmask = (1u << c) - 1;
  const unsigned ntiles = 1u << (log_n - k - c), grid = ntt_r4_grid(ntiles, tiles_per_block, 3);
  const unsigned nslots = ntt_tw_nslots(k, c);
  fr_t *sh = malloc(sizeof(fr_t) * nel);
  ck_assert_uint_le(nslots, nel); /* the kernel gives the table a tile's room */
  tws = malloc(sizeof(fr_t) * nslots);
  unsigned *seen = calloc(ntiles, sizeof *seen), order = 0;
  for (unsigned bk = 0; bk < grid; bk++)
    for (size_t blk = bk; blk < ntiles; blk += grid) {
      seen[blk]++, order++;
      const size_t lo_group = blk & ((1u << (L - c)) - 1), hi = blk >> (L - c);
      const size_t base = (hi << (log_n - s)) | (lo_group << c);
      for (unsigned e = 0; e < nel; e++) sh[e] = d[base | ((size_t)(e >> c) << L) | (e & cmask)];
      for (unsigned e = 0; staged && e < nslots; e++) tws[e] = tw[ntt_tw_slot_index(e, c, k, L, lo_group << c, s)];
      for (unsigned step = 0; step + 1 < k; step += 2) {
        unsigned t_big = dit ? k - 2 - step : step, lH = k - 1 - t_big;
        for (unsigned g = 0; g < nel / 4; g++) {
          ntt_r4_group gr;
          ntt_r4_group_at(&gr, g, c, lH, L, lo_group << c, s + t_big);
          fr_t x[4];
          int has[3];
          for (int i = 0; i < 4; i++) x[i] = sh[gr.e[i]];
          for (int i = 0; i < 3; i++) {
            has[i] = gr.ti[i] != 0;
            ck_assert_uint_lt(gr.ts[i], nslots);
            ck_assert_uint_eq(ntt_tw_slot_index(gr.ts[i], c, k, L, lo_group << c, s), gr.ti[i]);
          }
          if (staged) NTT_R4_BUTTERFLIES(fr_t, x, gr, has, dit, fadd, fsub, MUL_TS);
          else NTT_R4_BUTTERFLIES(fr_t, x, gr, has, dit, fadd, fsub, MUL_TI);
          for (int i = 0; i < 4; i++) sh[gr.e[i]] = x[i];
        }
      }
      if (k & 1) { /* the last stage executed, radix 2 */
        unsigned t = dit ? 0 : k - 1, lhr = k - 1 - t, hr = 1u << lhr;
        for (unsigned j = 0; j < nel / 2; j++) {
          unsigned col = j & cmask, q = j >> c, r0 = ((q >> lhr) << (lhr + 1)) | (q & (hr - 1));
          unsigned e0 = (r0 << c) | col, e1 = ((r0 + hr) << c) | col;
          size_t ti = ((((size_t)(q & (hr - 1))) << L) | (lo_group << c) | col) << (s + t);
          const unsigned ts = ntt_tw_slot(lhr, q & (hr - 1), c, col);
          ck_assert_uint_eq(ntt_tw_slot_index(ts, c, k, L, lo_group << c, s), ti);
          const fr_t *tab = staged ? tws : tw;
          const size_t at = staged ? ts : ti;
          fr_t a = sh[e0], b = sh[e1], x, y;
          if (!dit) {
            fr_add(&x, &a, &b);
            fr_sub(&y, &a, &b);
            if (ti) mul_tw(&y, &y, tab, at, -1);
          } else {
            if (ti) mul_tw(&b, &b, tab, at, -1);
            fr_add(&x, &a, &b);
            fr_sub(&y, &a, &b);
          }
          sh[e0] = x;
          sh[e1] = y;
        }
      }
      for (unsigned e = 0; e < nel; e++) d[base | ((size_t)(e >> c) << L) | (e & cmask)] = sh[e];
    }
  for (unsigned t = 0; t < ntiles; t++) ck_assert_msg(seen[t] == 1, "tile %u of %u done %u times", t, ntiles, seen[t]);
  ck_assert_uint_eq(order, ntiles);
  free(sh);
  free(tws);
  free(seen);
}

/* ntt.cu's run_network: the passes of ntt_pass_layout_split (even: PSC_NTT_SPLIT=even), each
 * over its blocks. */
static void network(fr_t *d, const fr_t *tw, unsigned log_n, unsigned log_block, unsigned max_k, int even, int dit) {
  unsigned ps[32], pk[32], np = ntt_pass_layout_split(log_n, log_block, max_k, even, ps, pk);
  for (unsigned ii = 0; ii < np; ii++) {
    unsigned i = dit ? np - 1 - ii : ii, s = ps[i], k = pk[i], L = log_n - s - k;
    unsigned c = log_block - k < L ? log_block - k : L;
    pass(d, tw, log_n, s, k, c, dit);
  }
}

/* Every shape and size against the reference NTT under product mode `mode`. */
static void networks_equal_reference(int mode) {
  /* blocks of 2^[0], passes of at most [1] stages, [2]: the even split */
  static const unsigned shapes[][3] = {{10, 8, 0}, {8, 7, 0}, {8, 6, 0}, {9, 7, 0}, {6, 4, 0}, {5, 5, 0},
                                       {7, 3, 0}, {7, 7, 0}, {4, 2, 0}, {8, 4, 1},  {6, 3, 1}, {5, 4, 1}};
  uint64_t st = 5;
  int rmode = mode ? psd_cpu_toward_zero() : fegetround();
  mul_mode = mode;
  for (unsigned log_n = 1; log_n <= 13; log_n++) {
    size_t n = (size_t)1 << log_n;
    fr_t *x = malloc(sizeof(fr_t) * n), *want = malloc(sizeof(fr_t) * n), *got = malloc(sizeof(fr_t) * n);
    fr_t *tw = malloc(sizeof(fr_t) * (n / 2 + 1)), *t16 = malloc(sizeof(fr_t) * (n / 2 + 1)), w;
    for (size_t i = 0; i < n; i++) fr_random(&x[i], vec_rng, &st);
    ntt_root_of_unity(&w, log_n);
    fr_one(&tw[0]);
    for (size_t j = 1; j < n / 2; j++) fr_mul(&tw[j], &tw[j - 1], &w);
    for (size_t j = 0; j < n / 2; j++) {
      t16[j] = tw[j];
      for (int k = 0; k < 4; k++) fr_dbl(&t16[j], &t16[j]);
    }
    tw16 = t16;
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++) {
      for (int dit = 0; dit <= 1; dit++) {
        memcpy(want, x, sizeof(fr_t) * n);
        ntt_cpu(want, log_n, 1, dit ? NTT_IN_BITREV : NTT_OUT_BITREV, 1);
        memcpy(got, x, sizeof(fr_t) * n);
        network(got, tw, log_n, shapes[sh][0], shapes[sh][1], (int)shapes[sh][2], dit);
        ck_assert_msg(memcmp(want, got, sizeof(fr_t) * n) == 0,
                      "2^%u %s, blocks of 2^%u, passes of <= %u stages%s, product mode %d", log_n,
                      dit ? "DIT" : "DIF", shapes[sh][0], shapes[sh][1], shapes[sh][2] ? " (even)" : "", mode);
      }
    }
    free(x), free(want), free(got), free(tw), free(t16);
  }
  fesetround(rmode);
  mul_mode = 0;
}

/* Looped over the tiles a block does: 1, the default 2, 3 and 0 (resident blocks). */
START_TEST(r4_network_equals_reference) {
  static const unsigned tpb[] = {1, 2, 3, 0};
  tiles_per_block = tpb[_i];
  networks_equal_reference(0);
}
END_TEST

/* PSC_NTT_TW=shared: the tile's twiddles from its staged table, for each number of tiles a
 * block (the kernel stages the next tile's table with its data). */
START_TEST(r4_network_staged_twiddles) {
  static const unsigned tpb[] = {1, 2, 0};
  tiles_per_block = tpb[_i];
  staged = 1;
  networks_equal_reference(0);
  staged = 0;
}
END_TEST

/* PSC_NTT_MUL=fp64 (2) and mixed (3): the FP64 product where NTT_R4_W52 says, its table
 * of 16 w. */
START_TEST(r4_network_fp64_products) {
  tiles_per_block = 1;
  networks_equal_reference(_i);
}
END_TEST

/* The default layout: blocks of 2^8, passes of at most 7 stages (8 at 2^23), so 2^20 runs
 * as 6 + 6 + 8 stages, 2^23 as 7 + 8 + 8, 2^24 as 5 + 5 + 6 + 8 and 2^27 as 6 + 6 + 7 + 8;
 * every layout's stages add up to the size, and no pass is longer than its block. */
START_TEST(default_layout_by_size) {
  unsigned lb, mk, ps[32], pk[32];
  static const struct { unsigned log_n, lb, np, k[5]; } want[] = {
      {8, 8, 1, {8}}, {9, 8, 2, {1, 8}}, {16, 8, 3, {4, 4, 8}}, {20, 8, 3, {6, 6, 8}}, {21, 8, 3, {6, 7, 8}},
      {23, 8, 3, {7, 8, 8}},       {24, 8, 4, {5, 5, 6, 8}}, {26, 8, 4, {6, 6, 6, 8}}, {27, 8, 4, {6, 6, 7, 8}}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    ntt_default_layout(want[i].log_n, &lb, &mk);
    unsigned np = ntt_pass_layout(want[i].log_n, lb, mk, ps, pk);
    ck_assert_msg(lb == want[i].lb && np == want[i].np, "2^%u: blocks of 2^%u, %u passes", want[i].log_n, lb, np);
    for (unsigned j = 0; j < np; j++)
      ck_assert_msg(pk[j] == want[i].k[j] && ps[j] == (j ? ps[j - 1] + pk[j - 1] : 0),
                    "2^%u: pass %u has %u stages from %u", want[i].log_n, j, pk[j], ps[j]);
  }
  for (unsigned log_n = 1; log_n <= 30; log_n++) {
    ntt_default_layout(log_n, &lb, &mk);
    unsigned np = ntt_pass_layout(log_n, lb, mk, ps, pk), sum = 0;
    for (unsigned j = 0; j < np; j++) {
      ck_assert_msg(pk[j] >= 1 && pk[j] <= lb && (j + 1 == np || pk[j] <= mk), "2^%u pass %u: %u stages", log_n, j, pk[j]);
      sum += pk[j];
    }
    ck_assert_msg(sum == log_n, "2^%u: the passes add up to %u stages", log_n, sum);
  }
}
END_TEST

/* PSC_NTT_SPLIT=even: the pre-passes of the plain split's number, even counts but at most one
 * (when their sum is odd), each within max_k, shortest first; the plain split where an even
 * count would pass max_k. */
START_TEST(even_layout) {
  unsigned ps[32], pk[32], qs[32], qk[32];
  static const struct { unsigned log_n, lb, mk, np, k[5]; } want[] = {
      {24, 8, 7, 4, {4, 6, 6, 8}}, {22, 8, 8, 3, {6, 8, 8}}, {22, 8, 7, 3, {7, 7, 8}}, {23, 8, 7, 4, {4, 5, 6, 8}},
      {20, 8, 7, 3, {6, 6, 8}},    {26, 8, 7, 4, {6, 6, 6, 8}}, {21, 8, 7, 3, {6, 7, 8}}, {27, 8, 7, 4, {6, 6, 7, 8}}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    unsigned np = ntt_pass_layout_split(want[i].log_n, want[i].lb, want[i].mk, 1, ps, pk);
    ck_assert_msg(np == want[i].np, "2^%u, at most %u: %u passes", want[i].log_n, want[i].mk, np);
    for (unsigned j = 0; j < np; j++)
      ck_assert_msg(pk[j] == want[i].k[j] && ps[j] == (j ? ps[j - 1] + pk[j - 1] : 0),
                    "2^%u, at most %u: pass %u has %u stages from %u", want[i].log_n, want[i].mk, j, pk[j], ps[j]);
  }
  for (unsigned lb = 4; lb <= 11; lb++)
    for (unsigned mk = 1; mk <= lb; mk++)
      for (unsigned log_n = 1; log_n <= 30; log_n++) {
        unsigned np = ntt_pass_layout_split(log_n, lb, mk, 1, ps, pk), nq = ntt_pass_layout(log_n, lb, mk, qs, qk);
        unsigned sum = 0, odd = 0, even_taken = 1;
        ck_assert_msg(np == nq, "2^%u lb %u mk %u: %u passes against %u", log_n, lb, mk, np, nq);
        for (unsigned j = 0; j < np; j++) {
          ck_assert_msg(pk[j] >= 1 && (j + 1 == np ? pk[j] <= lb : pk[j] <= mk), "2^%u lb %u mk %u pass %u: %u", log_n,
                        lb, mk, j, pk[j]);
          ck_assert_msg(j + 1 == np || j == 0 || pk[j] >= pk[j - 1], "2^%u lb %u mk %u: not shortest first", log_n,
                        lb, mk);
          sum += pk[j];
          if (j + 1 < np) odd += pk[j] & 1, even_taken &= pk[j] == qk[j];
        }
        ck_assert_msg(sum == log_n, "2^%u lb %u mk %u: %u stages", log_n, lb, mk, sum);
        /* either the plain split, or at most one odd pre-pass */
        ck_assert_msg(even_taken || odd <= 1, "2^%u lb %u mk %u: %u odd pre-passes", log_n, lb, mk, odd);
      }
}
END_TEST

int main(void) {
  Suite *s = suite_create("ntt_r4");
  TCase *tc = tcase_create("network");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, r4_network_equals_reference, 0, 4);
  tcase_add_loop_test(tc, r4_network_fp64_products, 2, 4);
  tcase_add_loop_test(tc, r4_network_staged_twiddles, 0, 3);
  tcase_add_test(tc, default_layout_by_size);
  tcase_add_test(tc, even_layout);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
