/* Check suite of the GPU MSM's sort in two steps (prover/cuda/msm_group.h), run on the
 * CPU as msm_sort.cuh's kernels run it: each piece's counts of the groups, its runs'
 * starts (from lo * nwin), the first step appending (word, low key bits) to the runs,
 * the run table in group-major order, and the second step putting each staged point at
 * its bucket's cursor, a point at a time (msm_group_place) and a block at a time
 * (msm_group_place_agg). The sorted array must hold, in each bucket's range, exactly the
 * points of that bucket, for keys spread, skewed onto one bucket, or confined to a few
 * groups, over one piece and eight, and at group widths up to the 16-bit cap. CI has no
 * GPU; on the H200 tests/gpu_check.c compares the MSMs themselves. */
#include "ck.h"
#include <stdlib.h>
#include <string.h>

#include "cuda/msm_group.h"

static uint64_t rng_state;
static uint32_t rnd(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

enum { SPREAD, ONE_BUCKET, FEW_GROUPS, WITH_ZEROS };

static unsigned long agg_blocks[2]; /* blocks of the block-at-a-time step: one point at a time, counted */

/* Sorts n scalars' nwin keys each (key[i * nwin + w], or UINT32_MAX for a zero digit),
 * whose word is i * nwin + w, through the two steps in `pieces` pieces, and checks the
 * result against the bucket of every word. */
static void run_sort(size_t n, unsigned nwin, size_t nkeys, unsigned log_groups, unsigned pieces, int kind) {
  const size_t m = n * nwin;
  uint32_t *key = malloc(m * sizeof *key);
  for (size_t j = 0; j < m; j++) {
    uint32_t k = rnd() % (uint32_t)nkeys;
    if (kind == ONE_BUCKET) k = (uint32_t)(nkeys / 3);
    if (kind == FEW_GROUPS) k = (rnd() & 1) ? (uint32_t)(nkeys - 1) : k % 5;
    if (kind == WITH_ZEROS && rnd() % 3 == 0) k = UINT32_MAX;
    key[j] = k;
  }
  const unsigned gshift = msm_group_shift(nkeys, log_groups), ng = msm_group_count(nkeys, gshift);
  ck_assert_uint_le(gshift, MSM_GROUP_KEY_BITS);
  ck_assert_uint_ge((size_t)ng << gshift, nkeys);
  ck_assert_uint_lt((size_t)(ng - 1) << gshift, nkeys);
  /* the bucket counts and their exclusive scan (cursor = start) */
  uint32_t *count = calloc(nkeys, sizeof *count), *start = malloc(nkeys * sizeof *start),
           *cursor = malloc(nkeys * sizeof *cursor);
  for (size_t j = 0; j < m; j++)
    if (key[j] != UINT32_MAX) count[key[j]]++;
  uint32_t run = 0;
  for (size_t k = 0; k < nkeys; k++) start[k] = cursor[k] = run, run += count[k];
  const uint32_t total = run;
  /* step one, piece by piece */
  uint32_t *gcnt = calloc((size_t)pieces * ng, sizeof *gcnt), *gstart = calloc((size_t)pieces * ng, sizeof *gstart),
           *gcur = calloc((size_t)pieces * ng, sizeof *gcur), *stage = malloc(m * sizeof *stage);
  uint16_t *klo = malloc(m * sizeof *klo);
  unsigned char *written = calloc(m, 1);
  for (unsigned q = 0; q < pieces; q++) {
    const size_t lo = n * q / pieces, hi = n * (q + 1) / pieces;
    uint32_t *qc = gcnt + (size_t)q * ng;
    for (size_t j = lo * nwin; j < hi * nwin; j++)
      if (key[j] != UINT32_MAX) qc[key[j] >> gshift]++;
    uint32_t at = (uint32_t)(lo * nwin); /* msm_group_scan, one piece */
    for (unsigned g = 0; g < ng; g++) {
      gstart[(size_t)q * ng + g] = gcur[(size_t)q * ng + g] = at;
      at += msm_group_run_len(qc, g, 1, ng);
    }
    ck_assert_uint_le(at, hi * nwin); /* the piece's runs stay in its own part */
    for (size_t j = lo * nwin; j < hi * nwin; j++) {
      if (key[j] == UINT32_MAX) continue;
      const uint32_t pos = gcur[(size_t)q * ng + (key[j] >> gshift)]++;
      ck_assert(!written[pos]);
      written[pos] = 1;
      stage[pos] = (uint32_t)j;
      klo[pos] = (uint16_t)(key[j] & ((1u << gshift) - 1));
    }
  }
  /* the run table, group-major (msm_group_scan over pieces * ng runs) */
  const unsigned nruns = pieces * ng;
  uint32_t *tab = malloc(((size_t)nruns + 1) * sizeof *tab);
  run = 0;
  for (unsigned s = 0; s < nruns; s++) tab[s] = run, run += msm_group_run_len(gcnt, s, pieces, ng);
  tab[nruns] = run;
  ck_assert_uint_eq(tab[nruns], total);
  /* step two */
  uint32_t *sorted = malloc((total ? total : 1) * sizeof *sorted);
  uint32_t last_key = 0;
  unsigned r0 = 0; /* msm_group_place: a block of 64 searches once, its threads step on */
  for (uint32_t t = 0; t < total; t++) {
    if (t % 64 == 0) r0 = msm_group_run(tab, nruns, t);
    const unsigned r = msm_group_run_from(tab, r0, t);
    ck_assert_uint_eq(r, msm_group_run(tab, nruns, t));
    ck_assert(tab[r] <= t && t < tab[r + 1]);
    const unsigned g = r / pieces;
    const size_t at = msm_group_run_at(tab, gstart, r, pieces, ng, t);
    ck_assert(written[at] == 1);
    written[at] = 2;
    const uint32_t k = ((uint32_t)g << gshift) | klo[at];
    ck_assert_uint_ge(k >> gshift, last_key >> gshift); /* groups in order */
    last_key = k;
    sorted[cursor[k]++] = stage[at];
  }
  /* step two a block at a time (msm_group_place_agg), blocks of 64 positions: counters per
   * local key when the block's groups span at most cap keys, else a point at a time on
   * the global cursors */
  uint32_t *sorted_agg = malloc((total ? total : 1) * sizeof *sorted_agg);
  uint32_t *cur2 = malloc(nkeys * sizeof *cur2);
  memcpy(cur2, start, nkeys * sizeof *cur2);
  const size_t cap = (size_t)2 << gshift; /* two groups' keys: some blocks take each path */
  enum { CH = 64 };
  uint32_t *cnt = malloc(cap * sizeof *cnt), lk[CH], rank[CH], word[CH];
  for (uint32_t t0 = 0; t0 < total; t0 += CH) {
    const uint32_t t1 = t0 + CH < total ? t0 + CH : total;
    const unsigned a0 = msm_group_run(tab, nruns, t0), a1 = msm_group_run_in(tab, a0, nruns - 1, t1 - 1);
    ck_assert_uint_eq(a1, msm_group_run(tab, nruns, t1 - 1));
    const unsigned g0 = a0 / pieces;
    const size_t span = msm_agg_span(a0, a1, pieces, gshift);
    const int agg = span <= cap;
    agg_blocks[agg]++;
    if (agg) memset(cnt, 0, span * sizeof *cnt);
    for (uint32_t t = t0; t < t1; t++) {
      const unsigned r = msm_group_run_in(tab, a0, a1, t);
      ck_assert_uint_eq(r, msm_group_run(tab, nruns, t));
      const unsigned g = r / pieces;
      const size_t at = msm_group_run_at(tab, gstart, r, pieces, ng, t);
      const uint32_t local = ((g - g0) << gshift) | klo[at];
      if (agg) {
        ck_assert_uint_lt(local, span);
        word[t - t0] = stage[at], lk[t - t0] = local, rank[t - t0] = cnt[local]++;
      } else {
        sorted_agg[cur2[((size_t)g << gshift) | klo[at]]++] = stage[at];
      }
    }
    if (!agg) continue;
    for (size_t j = 0; j < span; j++) {
      const uint32_t c = cnt[j];
      if (c) cnt[j] = cur2[((size_t)g0 << gshift) + j], cur2[((size_t)g0 << gshift) + j] += c;
    }
    for (uint32_t t = t0; t < t1; t++) sorted_agg[cnt[lk[t - t0]] + rank[t - t0]] = word[t - t0];
  }
  /* every bucket's range holds its own points, each once */
  for (size_t k = 0; k < nkeys; k++) {
    ck_assert_uint_eq(cursor[k], start[k] + count[k]);
    ck_assert_uint_eq(cur2[k], start[k] + count[k]);
    for (uint32_t p = start[k]; p < cursor[k]; p++) {
      ck_assert_uint_eq(key[sorted[p]], k);
      ck_assert_uint_eq(key[sorted_agg[p]], k);
    }
  }
  for (size_t j = 0; j < m; j++) ck_assert(written[j] != 1);
  free(key), free(count), free(start), free(cursor), free(gcnt), free(gstart), free(gcur), free(stage);
  free(klo), free(written), free(tab), free(sorted), free(sorted_agg), free(cur2), free(cnt);
}

START_TEST(test_shift_and_count) {
  /* at least 2^log_groups groups, a group's low bits at most 16 */
  ck_assert_uint_eq(msm_group_shift((size_t)1 << 21, 7), 14);
  ck_assert_uint_eq(msm_group_count((size_t)1 << 21, 14), 128);
  ck_assert_uint_eq(msm_group_shift(15u << 16, 7), 13); /* window 17 */
  ck_assert_uint_eq(msm_group_count(15u << 16, 13), 120);
  ck_assert_uint_eq(msm_group_shift(11u << 23, 7), 16); /* 27 bits of keys: capped */
  ck_assert_uint_eq(msm_group_count(11u << 23, 16), 1408);
  ck_assert_uint_eq(msm_group_shift(100, 7), 0); /* fewer keys than groups: a key each */
  ck_assert_uint_eq(msm_group_count(100, 0), 100);
  ck_assert_uint_eq(msm_group_shift(1, 7), 0);
  /* the default (MSM_GROUP_LOG_DEFAULT 0): groups of 2^16 keys, fewer keys one group */
  ck_assert_uint_eq(msm_group_shift((size_t)1 << 21, MSM_GROUP_LOG_DEFAULT), 16); /* precomputed, c = 22 */
  ck_assert_uint_eq(msm_group_count((size_t)1 << 21, 16), 32);
  ck_assert_uint_eq(msm_group_shift(100, MSM_GROUP_LOG_DEFAULT), 7);
  ck_assert_uint_eq(msm_group_count(100, 7), 1);
  ck_assert_uint_eq(msm_group_count(1, 0), 1);
  /* the defaults by the second step: a point at a time as above; a block at a time groups
   * of 2^12 keys, but never more than 2^MSM_GROUP_LOG_MAX groups */
  ck_assert_uint_eq(msm_group_shift_default((size_t)1 << 21, 0), 16);
  ck_assert_uint_eq(msm_group_shift_default((size_t)1 << 21, 1), 12); /* precomputed, c = 22 */
  ck_assert_uint_eq(msm_group_count((size_t)1 << 21, 12), 512);
  ck_assert_uint_eq(msm_group_shift_default(15u << 16, 1), 12); /* window 17, plain bases */
  ck_assert_uint_eq(msm_group_shift_default(11u << 23, 1), 15); /* 27 bits of keys: 2^12 groups */
  ck_assert_uint_eq(msm_group_count(11u << 23, 15), 2816);
  ck_assert_uint_eq(msm_group_shift_default((size_t)1 << 24, 1), 12); /* 2^12 groups exactly */
  ck_assert_uint_eq(msm_group_shift_default(100, 1), 7);            /* fewer keys: one group */
  ck_assert_uint_eq(msm_group_shift_default(1, 1), 0);
}
END_TEST

START_TEST(test_run_lookup) {
  /* empty runs are passed over: positions 0..2 in run 2, 3 in run 5 */
  const uint32_t tab[] = {0, 0, 0, 3, 3, 3, 4};
  ck_assert_uint_eq(msm_group_run(tab, 6, 0), 2);
  ck_assert_uint_eq(msm_group_run(tab, 6, 2), 2);
  ck_assert_uint_eq(msm_group_run(tab, 6, 3), 5);
  ck_assert_uint_eq(msm_group_run_from(tab, 2, 3), 5); /* stepping on past empty runs */
  ck_assert_uint_eq(msm_group_run_from(tab, 2, 2), 2);
  ck_assert_uint_eq(msm_group_run_from(tab, 5, 3), 5);
  const uint32_t one[] = {0, 7};
  ck_assert_uint_eq(msm_group_run(one, 1, 6), 0);
  /* group-major order over piece-major counts */
  const uint32_t cnt[] = {1, 2, 3, 10, 20, 30}; /* piece 0: groups 0..2, piece 1: groups 0..2 */
  ck_assert_uint_eq(msm_group_run_len(cnt, 0, 2, 3), 1);
  ck_assert_uint_eq(msm_group_run_len(cnt, 1, 2, 3), 10);
  ck_assert_uint_eq(msm_group_run_len(cnt, 2, 2, 3), 2);
  ck_assert_uint_eq(msm_group_run_len(cnt, 5, 2, 3), 30);
}
END_TEST

START_TEST(test_sorts) {
  rng_state = 12345;
  static const unsigned pieces[] = {1, 8};
  for (int kind = SPREAD; kind <= WITH_ZEROS; kind++)
    for (int p = 0; p < 2; p++) {
      run_sort(3000, 12, (size_t)1 << 13, 7, pieces[p], kind); /* merged-like: one set of buckets */
      run_sort(2000, 15, 15u << 8, 7, pieces[p], kind);       /* a set per window */
      run_sort(777, 3, 100, 7, pieces[p], kind);               /* a key a group */
      run_sort(5, 4, (size_t)1 << 20, 2, pieces[p], kind);     /* 5 scalars in 8 pieces: some pieces empty */
      run_sort(1000, 5, 5u << 10, 0, pieces[p], kind);         /* the default: as few groups as 16 bits allow */
    }
  run_sort(4096, 2, (size_t)3 << 17, 1, 8, SPREAD); /* 2^19 keys at 2 groups: the 16-bit cap */
  run_sort(4096, 2, (size_t)3 << 17, 0, 8, SPREAD); /* the default at 2^19 keys: 8 groups of 2^16 */
  ck_assert_uint_gt(agg_blocks[0], 0); /* both ways of the block-at-a-time step were taken */
  ck_assert_uint_gt(agg_blocks[1], 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("msm_group");
  TCase *tc = tcase_create("core");
  /* A guard against a hang, not a time limit: test_sorts takes about 0.1 s here (40 s
   * while each passing assertion was a system call, before tests/ck.h), and a shared
   * machine under ASan can take many times that. */
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_shift_and_count);
  tcase_add_test(tc, test_run_lookup);
  tcase_add_test(tc, test_sorts);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
