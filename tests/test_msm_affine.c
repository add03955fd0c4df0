/* Check suite of the batch-affine bucket sums of the G1 MSM (prover/cuda/msm_affine.h),
 * run on the CPU: the kernels' per-thread functions, called for every thread in the order
 * of the launches (level 1, then the steps of stride 1, 2, 4, ..., each as products,
 * inversions, sums; window groups as the kernels form them), over the reference field
 * code, must give every bucket the sum of its points, computed another way (XYZZ
 * additions one by one). The sorted arrays are made as the GPU's counting sort makes
 * them; the points include infinity, repeats, negations and few distinct values, so sums
 * meet doubling and cancellation at every level. CI has no GPU; on the H200
 * tests/gpu_check.c (PSC_MSM_AFFINE=1) compares the kernels themselves. */
#include "ck.h"
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "fp.h"
#include "vectors/vec.h"

#define MSA_F fp_t
#define MSA_FINL static
#define MSA_MUL(r, a, b) fp_mul(r, a, b)
#define MSA_ADD(r, a, b) fp_add(r, a, b)
#define MSA_SUB(r, a, b) fp_sub(r, a, b)
#define MSA_EQ(a, b) fp_eq(a, b)
#define MSA_IS_ZERO(a) fp_is_zero(a)
#define MSA_SET_ONE(r) fp_one(r)
#define MSA_SET_ZERO(r) fp_zero(r)
#define MSA_NEG(r, a) fp_neg(r, a)
#define MSA_INV(r, a) fp_inv(r, a)
#define MSA_AFF g1_affine_t
#define MSA_NAME(x) cpu_##x
#include "cuda/msm_affine.h"

/* A sorted array as msm_scatter makes it: nwin windows of nb buckets over n points, the
 * digit of (window, point) drawn by `kind` (0: uniform over 0..nb, 1: mostly bucket 1 as a
 * witness's ones, 2: only buckets 1..2 so runs are long, 3: mostly empty). */
typedef struct sortset {
  size_t n, nkeys;
  unsigned nwin, nb;
  uint32_t *sorted, *start, *count;
} sortset;

static void make_sort(sortset *ss, size_t n, unsigned nwin, unsigned nb, int kind, uint64_t *rs) {
  ss->n = n, ss->nwin = nwin, ss->nb = nb, ss->nkeys = (size_t)nwin * nb;
  uint32_t *digit = calloc(n * nwin, sizeof *digit);
  ss->count = calloc(ss->nkeys, sizeof(uint32_t));
  ss->start = calloc(ss->nkeys, sizeof(uint32_t));
  for (size_t i = 0; i < n * nwin; i++) {
    uint64_t r = vec_rng(rs);
    uint32_t b;
    switch (kind) {
    case 0: b = (uint32_t)(r % (nb + 1)); break;
    case 1: b = (r % 10) < 5 ? 1 : (r % 10) < 9 ? 0 : (uint32_t)((r >> 8) % (nb + 1)); break;
    case 2: b = 1 + (uint32_t)(r % (nb < 2 ? 1 : 2)); break;
    default: b = (r % 8) == 0 ? (uint32_t)((r >> 8) % (nb + 1)) : 0; break;
    }
    digit[i] = b ? (b | (uint32_t)((r >> 40) & 1) << 31) : 0;
    if (b) ss->count[(i / n) * nb + b - 1]++;
  }
  uint32_t run = 0, total;
  for (size_t k = 0; k < ss->nkeys; k++) ss->start[k] = run, run += ss->count[k];
  total = run;
  ss->sorted = calloc(total ? total : 1, sizeof(uint32_t));
  uint32_t *cur = malloc(ss->nkeys * sizeof *cur);
  memcpy(cur, ss->start, ss->nkeys * sizeof *cur);
  for (size_t i = 0; i < n * nwin; i++) {
    uint32_t b = digit[i] & 0x7fffffffu;
    if (b) ss->sorted[cur[(i / n) * nb + b - 1]++] = (uint32_t)(i % n) | (digit[i] & 0x80000000u);
  }
  free(cur);
  free(digit);
}

static void free_sort(sortset *ss) { free(ss->sorted), free(ss->start), free(ss->count); }

/* The launch sequence of g1_msm_buckets_affine for windows of gw per group: out[k] the
 * affine sum of bucket k. Returns the most slots a group used. */
static size_t run_affine(const sortset *ss, const g1_affine_t *bases, unsigned gw, g1_affine_t *out) {
  msa_layout L;
  msa_layout_of(&L, ss->n, gw, ss->nb, sizeof(g1_affine_t), sizeof(fp_t));
  g1_affine_t *slots = malloc(L.ns * sizeof *slots);
  uint32_t *keys = malloc(L.ns * sizeof *keys);
  fp_t *pre = malloc((size_t)MSA_PER_THREAD * L.nthr * sizeof *pre);
  fp_t *tot = malloc(L.nthr * sizeof *tot);
  for (unsigned w0 = 0; w0 < ss->nwin; w0 += gw) {
    const unsigned g = ss->nwin - w0 < gw ? ss->nwin - w0 : gw;
    const size_t key0 = (size_t)w0 * ss->nb, key1 = key0 + (size_t)g * ss->nb;
    msa_layout G;
    msa_layout_of(&G, ss->n, g, ss->nb, sizeof(g1_affine_t), sizeof(fp_t));
    ck_assert_uint_le(G.ns, L.ns);
    ck_assert_uint_le(G.nthr, L.nthr);
    for (size_t i = 0; i < G.ns; i++) {
      keys[i] = MSA_NONE;
      memset(&slots[i], 0x5a, sizeof slots[i]); /* poison: every slot read must be written */
    }
    size_t nthr = msa_level1_threads((size_t)g * ss->n);
    ck_assert_uint_le(nthr, L.nthr);
    for (size_t t = 0; t < nthr; t++)
      cpu_level1_prod(t, nthr, ss->sorted, ss->start, ss->count, bases, key0, key1, pre, tot);
    for (size_t u = 0; u < msa_invert_threads(nthr); u++) cpu_invert(u, nthr, tot);
    for (size_t t = 0; t < nthr; t++)
      cpu_level1_sum(t, nthr, ss->sorted, ss->start, ss->count, bases, key0, key1, pre, tot, slots, keys);
    for (size_t s = 1; s < G.ns; s <<= 1) {
      nthr = msa_step_threads(G.ns, s);
      ck_assert_uint_le(nthr, L.nthr);
      for (size_t t = 0; t < nthr; t++) cpu_step_prod(t, nthr, s, G.ns, keys, ss->start, key0, slots, pre, tot);
      for (size_t u = 0; u < msa_invert_threads(nthr); u++) cpu_invert(u, nthr, tot);
      for (size_t t = 0; t < nthr; t++) cpu_step_sum(t, nthr, s, G.ns, keys, ss->start, key0, slots, pre, tot);
    }
    const uint32_t p0 = ss->start[key0];
    for (size_t k = key0; k < key1; k++) {
      if (!ss->count[k]) {
        g1_affine_set_inf(&out[k]);
        continue;
      }
      const size_t b = msa_slot_base(ss->start[k], p0, k, key0);
      ck_assert_uint_lt(b, G.ns);
      ck_assert_uint_eq(keys[b], k);
      out[k] = slots[b];
    }
  }
  free(slots), free(keys), free(pre), free(tot);
  return L.ns;
}

/* Bucket k's sum, one XYZZ addition per point. */
static void bucket_ref(const sortset *ss, const g1_affine_t *bases, size_t k, g1_affine_t *out) {
  g1_xyzz_t acc;
  g1_xyzz_set_inf(&acc);
  for (uint32_t p = ss->start[k]; p < ss->start[k] + ss->count[k]; p++) {
    const uint32_t v = ss->sorted[p];
    if (v >> 31) g1_xyzz_add_affine_neg(&acc, &acc, &bases[v & 0x7fffffffu]);
    else g1_xyzz_add_affine(&acc, &acc, &bases[v & 0x7fffffffu]);
  }
  g1_xyzz_to_affine(out, &acc);
}

/* Bases: `distinct` random points repeated, with infinity, and negations among them. */
static g1_affine_t *make_bases(size_t n, size_t distinct, uint64_t *rs) {
  g1_affine_t *d = malloc(distinct * sizeof *d), *b = malloc(n * sizeof *b);
  g1_random_many(d, distinct, vec_rng, rs);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = vec_rng(rs);
    b[i] = d[r % distinct];
    if ((r >> 20) % 5 == 0) g1_affine_neg(&b[i], &b[i]);
    if ((r >> 30) % 23 == 0) g1_affine_set_inf(&b[i]);
  }
  free(d);
  return b;
}

static void check_case(size_t n, unsigned nwin, unsigned nb, int kind, size_t distinct, unsigned gw, uint64_t seed) {
  uint64_t rs = seed;
  sortset ss;
  g1_affine_t *bases = make_bases(n, distinct, &rs);
  make_sort(&ss, n, nwin, nb, kind, &rs);
  g1_affine_t *got = malloc(ss.nkeys * sizeof *got);
  run_affine(&ss, bases, gw, got);
  size_t bad = 0;
  for (size_t k = 0; k < ss.nkeys; k++) {
    g1_affine_t want;
    bucket_ref(&ss, bases, k, &want);
    if (!g1_affine_eq(&want, &got[k]) || !g1_affine_is_on_curve(&got[k])) bad++;
  }
  if (bad)
    fprintf(stderr, "n %zu, %u windows of %u buckets, kind %d, %zu distinct points, %u windows a group: %zu of %zu buckets wrong\n",
            n, nwin, nb, kind, distinct, gw, bad, ss.nkeys);
  ck_assert_uint_eq(bad, 0);
  free(got);
  free(bases);
  free_sort(&ss);
}

START_TEST(affine_buckets_equal_reference) {
  uint64_t seed = 1;
  static const size_t ns[] = {1, 2, 3, 7, 33, 100, 1000, 4097};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    for (int kind = 0; kind < 4; kind++) {
      check_case(ns[i], 4, 8, kind, ns[i] < 5 ? ns[i] : 64, 4, seed++);
      check_case(ns[i], 5, 2, kind, 3, 2, seed++); /* few points, long runs: doubling, cancelling */
      check_case(ns[i], 3, 16, kind, ns[i], 1, seed++);
    }
  /* long runs through many steps, groups of one and of all windows */
  check_case(20000, 2, 4, 2, 5, 1, seed++);
  check_case(20000, 3, 64, 1, 2000, 3, seed++);
}
END_TEST

/* The schedule alone: level 1 covers every position once, in pairs of one bucket, and a
 * bucket's slots are contiguous and disjoint from the others'. */
START_TEST(level1_walk_covers_positions) {
  uint64_t rs = 99;
  for (int kind = 0; kind < 4; kind++) {
    sortset ss;
    make_sort(&ss, 777, 3, 5, kind, &rs);
    const size_t key0 = 0, key1 = ss.nkeys, total = ss.start[key1 - 1] + ss.count[key1 - 1];
    msa_layout L;
    msa_layout_of(&L, ss.n, ss.nwin, ss.nb, 96, 48);
    unsigned char *seen = calloc(total + 1, 1);
    uint32_t *owner = malloc(L.ns * sizeof *owner);
    for (size_t i = 0; i < L.ns; i++) owner[i] = MSA_NONE;
    const size_t nthr = msa_level1_threads(ss.n * ss.nwin);
    for (size_t t = 0; t < nthr; t++) {
      msa_walk w;
      if (!msa_walk_init(&w, ss.start, ss.count, key0, key1, t)) continue;
      uint32_t p;
      int pair, np = 0;
      size_t slot, key;
      while (msa_walk_next(&w, ss.start, ss.count, &p, &pair, &slot, &key)) {
        ck_assert(p >= ss.start[key] && p < ss.start[key] + ss.count[key]);
        ck_assert_uint_eq((p - ss.start[key]) % 2, 0);
        ck_assert_uint_eq(slot, msa_slot_base(ss.start[key], 0, key, 0) + (p - ss.start[key]) / 2);
        ck_assert_uint_lt(slot, L.ns);
        ck_assert_uint_eq(owner[slot], MSA_NONE);
        owner[slot] = (uint32_t)key;
        seen[p]++;
        if (pair) {
          ck_assert_uint_lt(p + 1, ss.start[key] + ss.count[key]);
          seen[p + 1]++;
          np++;
        }
      }
      ck_assert_int_le(np, MSA_PER_THREAD);
    }
    for (size_t p = 0; p < total; p++) ck_assert_uint_eq(seen[p], 1);
    for (size_t k = 0; k < ss.nkeys; k++) {
      const size_t b = msa_slot_base(ss.start[k], 0, k, 0), h = (ss.count[k] + 1) / 2;
      for (size_t j = 0; j < h; j++) ck_assert_uint_eq(owner[b + j], k);
    }
    free(seen), free(owner);
    free_sort(&ss);
  }
}
END_TEST

START_TEST(group_windows) {
  ck_assert_uint_eq(msa_group_windows((size_t)1 << 24, 16), 16);
  ck_assert_uint_eq(msa_group_windows((size_t)1 << 26, 13), 4);
  ck_assert_uint_eq(msa_group_windows((size_t)1 << 29, 13), 1);
  ck_assert_uint_eq(msa_group_windows(1000, 32), 32);
}
END_TEST

int main(void) {
  Suite *s = suite_create("msm_affine");
  TCase *tc = tcase_create("buckets");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, level1_walk_covers_positions);
  tcase_add_test(tc, group_windows);
  tcase_add_test(tc, affine_buckets_equal_reference);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed;
}
