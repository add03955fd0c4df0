/* Batch-affine bucket sums of the G1 MSM (msm_kernels.cuh with MK_AFFINE, msm.cu's
 * PSC_MSM_AFFINE): the buckets are summed by a tree of additions in affine coordinates,
 * each level's additions sharing their inversions (Montgomery's trick), so an addition
 * costs about 6 multiplications (the running product, two to unwind it, the slope, its
 * square and y) and its share of the inversions (about 1.4) against 10 for a mixed XYZZ
 * addition. Written once for the kernels and for tests/test_msm_affine.c, which runs the
 * same per-thread functions on the CPU over the reference field code (CI has no GPU); on
 * the H200 tests/gpu_check.c compares the kernels themselves. Measured slower than the XYZZ bucket sums at every size from 2^20
 * to 2^26 points on the H200 (docs/performance.md, "Batch-affine bucket sums": about 19
 * ms an MSM that does not grow with n, and 0.60 against 0.48 ns an addition), so msm.cu
 * runs them only when PSC_MSM_AFFINE asks.
 *
 * The work is done per group of whole windows (keys [key0, key1), sorted positions
 * [P0, P1), P0 = start[key0]), so its buffers stay bounded:
 * - level 1: the points of bucket k (positions s_k .. s_k + m_k - 1 of the sorted array)
 *   are added in pairs (ranks 2j, 2j + 1), the odd last one copied, into slots
 *   b_k + j, b_k = (s_k - P0)/2 + (k - key0) (rounded down): a bucket's slots are
 *   contiguous, and those of two buckets never overlap since (s/2) + ceil(m/2) <=
 *   (s + m)/2 + 1. keys[slot] = k; slots between buckets keep MSA_NONE.
 * - steps of stride s = 1, 2, 4, ...: a segmented tree over aligned blocks of 2s slots.
 *   After the step of stride s, every run of one key inside an aligned block of 2s slots
 *   has its sum at its first slot there; the step joins the halves of each block, where
 *   only the run that crosses the middle r = B + s changes: its right part (at r) is added
 *   to its left part (at max(B, b_k)). So each block does at most one addition, and the
 *   sum of bucket k ends at b_k.
 * Each level runs three kernels: a thread takes MSA_PER_THREAD additions (level 1: the
 * pairs that start in its 2 MSA_PER_THREAD positions; steps: MSA_PER_THREAD blocks),
 * stores the running products of their denominators (pre[i nthr + t], before the i-th)
 * and their product (tot[t]); a thread per MSA_INV_PER_THREAD totals replaces them by
 * their inverses with one inversion; a thread then walks its additions backwards,
 * unwinding its inverse into each denominator's, and writes the sums. */
#ifndef PROVESIM_MSM_AFFINE_H
#define PROVESIM_MSM_AFFINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MSA_HD static __host__ __device__ __forceinline__
#else
#define MSA_HD static inline
#endif

#define MSA_NONE 0xffffffffu     /* keys[] of a slot no bucket uses */
#define MSA_PER_THREAD 16        /* additions (pairs, blocks) per thread of a level */
#define MSA_INV_PER_THREAD 32    /* totals per thread of the inversion */
#define MSA_GROUP_POSITIONS ((size_t)1 << 28) /* sorted positions of a group, at most (whole windows) */

/* ---- the schedule (no field arithmetic) ---- */

/* Windows per group for MSMs of n points: as many as keep the group's positions (at most
 * n a window) under MSA_GROUP_POSITIONS, at least one. */
MSA_HD unsigned msa_group_windows(size_t n, unsigned nwin) {
  size_t g = n ? MSA_GROUP_POSITIONS / n : nwin;
  if (g < 1) g = 1;
  return g > nwin ? nwin : (unsigned)g;
}

/* The buffers of a group of gw windows of nb buckets over n points (upper bounds, since
 * the positions are known only on the device): ns slots, nthr threads at most in any
 * level's kernels. */
typedef struct msa_layout {
  size_t ns, nthr;
  size_t off_keys, off_pre, off_tot, bytes; /* byte offsets in one buffer; slots at 0 */
} msa_layout;

MSA_HD size_t msa_align(size_t x) { return (x + 255) & ~(size_t)255; }

/* psz: bytes of an affine point; fsz: of a field element. */
MSA_HD void msa_layout_of(msa_layout *l, size_t n, unsigned gw, size_t nb, size_t psz, size_t fsz) {
  const size_t npos = (size_t)gw * n, nkeys = (size_t)gw * nb;
  l->ns = npos / 2 + nkeys + 1;
  const size_t t1 = (npos + 2 * MSA_PER_THREAD - 1) / (2 * MSA_PER_THREAD);
  const size_t ts = ((l->ns + 1) / 2 + MSA_PER_THREAD - 1) / MSA_PER_THREAD;
  l->nthr = t1 > ts ? t1 : ts;
  l->off_keys = msa_align(l->ns * psz);
  l->off_pre = l->off_keys + msa_align(l->ns * sizeof(uint32_t));
  l->off_tot = l->off_pre + msa_align((size_t)MSA_PER_THREAD * l->nthr * fsz);
  l->bytes = l->off_tot + msa_align(l->nthr * fsz);
}

/* Threads of level 1 over a group of at most npos positions, and of the step of stride s
 * over ns slots (blocks whose middle r = 2 s q + s is a slot). */
MSA_HD size_t msa_level1_threads(size_t npos) { return (npos + 2 * MSA_PER_THREAD - 1) / (2 * MSA_PER_THREAD); }
MSA_HD size_t msa_step_blocks(size_t ns, size_t s) { return ns > s ? (ns - s + 2 * s - 1) / (2 * s) : 0; }
MSA_HD size_t msa_step_threads(size_t ns, size_t s) {
  return (msa_step_blocks(ns, s) + MSA_PER_THREAD - 1) / MSA_PER_THREAD;
}

/* The first slot of bucket k (start_k its first sorted position). */
MSA_HD size_t msa_slot_base(uint32_t start_k, uint32_t p0, size_t k, size_t key0) {
  return (size_t)((start_k - p0) >> 1) + (k - key0);
}

/* The last key in [lo, hi) whose start is <= p (start[lo] <= p). Empty buckets share the
 * start of the next, so the key found holds p when p < the group's end. */
MSA_HD size_t msa_key_at(const uint32_t *start, size_t lo, size_t hi, uint32_t p) {
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (start[mid] <= p) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* Level 1's walk over the positions [a, b) of thread t: items in order, each a pair
 * (p, p + 1) of one bucket (ranks 2j, 2j + 1; p + 1 may lie past b) or the odd last point
 * of a bucket, with its slot. A thread has at most MSA_PER_THREAD pairs. */
typedef struct msa_walk {
  size_t k, key0, key1;
  uint32_t p0, p, b, s, end;
} msa_walk;

/* Returns 0 when thread t has no positions. */
MSA_HD int msa_walk_init(msa_walk *w, const uint32_t *start, const uint32_t *count, size_t key0, size_t key1,
                         size_t t) {
  const uint32_t p0 = start[key0], p1 = start[key1 - 1] + count[key1 - 1];
  const uint64_t a = (uint64_t)p0 + (uint64_t)t * 2 * MSA_PER_THREAD;
  if (a >= p1) return 0;
  w->key0 = key0;
  w->key1 = key1;
  w->p0 = p0;
  w->p = (uint32_t)a;
  w->b = (uint32_t)(a + 2 * MSA_PER_THREAD < p1 ? a + 2 * MSA_PER_THREAD : p1);
  w->k = msa_key_at(start, key0, key1, w->p);
  w->s = start[w->k];
  w->end = w->s + count[w->k];
  return 1;
}

/* The next item: returns 0 at the end; else *p, *pair (1: p and p + 1), *slot, *key. */
MSA_HD int msa_walk_next(msa_walk *w, const uint32_t *start, const uint32_t *count, uint32_t *p, int *pair,
                         size_t *slot, size_t *key) {
  while (w->p < w->b) {
    while (w->p >= w->end) { /* the next bucket that holds w->p */
      size_t k = w->k + 1;
      if (!(k < w->key1 && count[k] != 0)) k = msa_key_at(start, w->k + 1, w->key1, w->p);
      w->k = k;
      w->s = start[k];
      w->end = w->s + count[k];
    }
    const uint32_t r = w->p - w->s;
    if (r & 1) { /* the right point of a pair that began before */
      w->p++;
      continue;
    }
    *p = w->p;
    *pair = w->p + 1 < w->end;
    *slot = msa_slot_base(w->s, w->p0, w->k, w->key0) + r / 2;
    *key = w->k;
    w->p += *pair ? 2 : 1;
    return 1;
  }
  return 0;
}

/* Block q of the step of stride s over ns slots: 1 when the run crossing its middle
 * joins, with *dst (its left part's first slot in the block) and *src (= the middle). */
MSA_HD int msa_join(const uint32_t *keys, const uint32_t *start, uint32_t p0, size_t key0, size_t ns, size_t s,
                    size_t q, size_t *dst, size_t *src) {
  const size_t B = 2 * s * q, r = B + s;
  if (r >= ns) return 0;
  const uint32_t k = keys[r];
  if (k == MSA_NONE || keys[r - 1] != k) return 0;
  const size_t b = msa_slot_base(start[k], p0, k, key0);
  *dst = b > B ? b : B;
  *src = r;
  return 1;
}

#endif

/* ---- the per-thread work, over a field given by the includer ----
 * Define before including: MSA_F (the field type), MSA_FINL (storage of the functions:
 * static __device__ __forceinline__, or static inline), MSA_MUL(r, a, b), MSA_ADD,
 * MSA_SUB, MSA_EQ(a, b), MSA_IS_ZERO(a), MSA_SET_ONE(r), MSA_SET_ZERO(r), MSA_NEG(r, a),
 * MSA_INV(r, a) on pointers, MSA_AFF (the affine point type, fields x and y; (0, 0) is
 * infinity) and MSA_NAME(x) (prefixes the names). */
#if defined(MSA_F) && !defined(PROVESIM_MSM_AFFINE_FIELD)
#define PROVESIM_MSM_AFFINE_FIELD

/* What P + Q needs: kind and the denominator whose inverse it takes (1 when none). */
enum { MSA_COPY_P, MSA_COPY_Q, MSA_TO_INF, MSA_ADD_PQ, MSA_DBL_P };

MSA_FINL int MSA_NAME(kind)(const MSA_AFF *P, const MSA_AFF *Q, MSA_F *d) {
  const int inf_p = MSA_IS_ZERO(&P->x) && MSA_IS_ZERO(&P->y), inf_q = MSA_IS_ZERO(&Q->x) && MSA_IS_ZERO(&Q->y);
  MSA_SET_ONE(d);
  if (inf_q) return MSA_COPY_P;
  if (inf_p) return MSA_COPY_Q;
  if (!MSA_EQ(&P->x, &Q->x)) {
    MSA_SUB(d, &Q->x, &P->x);
    return MSA_ADD_PQ;
  }
  if (MSA_EQ(&P->y, &Q->y)) {
    MSA_ADD(d, &P->y, &P->y);
    return MSA_DBL_P;
  }
  return MSA_TO_INF;
}

/* The denominator of P + Q for the products, reading y only when x alone does not decide
 * (equal x, or x = 0: infinity is (0, 0), and no point of G1 has x = 0). */
MSA_FINL void MSA_NAME(denom)(const MSA_AFF *P, const MSA_AFF *Q, uint32_t negp, uint32_t negq, MSA_F *d) {
  const MSA_F x1 = P->x, x2 = Q->x;
  if (!MSA_EQ(&x1, &x2) && !MSA_IS_ZERO(&x1) && !MSA_IS_ZERO(&x2)) {
    MSA_SUB(d, &x2, &x1);
    return;
  }
  MSA_AFF a = *P, b = *Q;
  if (negp) MSA_NEG(&a.y, &a.y);
  if (negq) MSA_NEG(&b.y, &b.y);
  MSA_NAME(kind)(&a, &b, d);
}

/* *R = P + Q of kind `kind`, inv the inverse of its denominator (used by the two kinds
 * that divide). R may alias P or Q. */
MSA_FINL void MSA_NAME(finish)(MSA_AFF *R, const MSA_AFF *P, const MSA_AFF *Q, int kind, const MSA_F *inv) {
  MSA_F lam, t, x3;
  switch (kind) {
  case MSA_COPY_P: *R = *P; return;
  case MSA_COPY_Q: *R = *Q; return;
  case MSA_TO_INF:
    MSA_SET_ZERO(&R->x);
    MSA_SET_ZERO(&R->y);
    return;
  case MSA_ADD_PQ: MSA_SUB(&t, &Q->y, &P->y); break;
  default: /* MSA_DBL_P: 3 x^2 / 2y */
    MSA_MUL(&lam, &P->x, &P->x);
    MSA_ADD(&t, &lam, &lam);
    MSA_ADD(&t, &t, &lam);
    break;
  }
  MSA_MUL(&lam, &t, inv);
  MSA_MUL(&t, &lam, &lam);
  MSA_SUB(&t, &t, &P->x);
  MSA_SUB(&x3, &t, &Q->x);
  MSA_SUB(&t, &P->x, &x3);
  MSA_MUL(&t, &lam, &t);
  MSA_SUB(&R->y, &t, &P->y);
  R->x = x3;
}

/* The point of sorted position p: bases[index], y negated when bit 31 is set. */
MSA_FINL void MSA_NAME(point)(MSA_AFF *a, const MSA_AFF *bases, uint32_t v) {
  *a = bases[v & 0x7fffffffu];
  if (v >> 31) MSA_NEG(&a->y, &a->y);
}

/* Level 1, first kernel: thread t (< nthr) of the group's positions. */
MSA_FINL void MSA_NAME(level1_prod)(size_t t, size_t nthr, const uint32_t *sorted, const uint32_t *start,
                                    const uint32_t *count, const MSA_AFF *bases, size_t key0, size_t key1,
                                    MSA_F *pre, MSA_F *tot) {
  MSA_F acc, d;
  MSA_SET_ONE(&acc);
  msa_walk w;
  if (msa_walk_init(&w, start, count, key0, key1, t)) {
    uint32_t p;
    int pair;
    size_t slot, key, i = 0;
    while (msa_walk_next(&w, start, count, &p, &pair, &slot, &key)) {
      if (!pair) continue;
      const uint32_t u = sorted[p], v = sorted[p + 1];
      MSA_NAME(denom)(&bases[u & 0x7fffffffu], &bases[v & 0x7fffffffu], u >> 31, v >> 31, &d);
      pre[i * nthr + t] = acc;
      MSA_MUL(&acc, &acc, &d);
      i++;
    }
  }
  tot[t] = acc;
}

/* Level 1, last kernel: the pairs' sums and the odd points into their slots. */
MSA_FINL void MSA_NAME(level1_sum)(size_t t, size_t nthr, const uint32_t *sorted, const uint32_t *start,
                                   const uint32_t *count, const MSA_AFF *bases, size_t key0, size_t key1,
                                   const MSA_F *pre, const MSA_F *tot, MSA_AFF *slots, uint32_t *keys) {
  msa_walk w;
  if (!msa_walk_init(&w, start, count, key0, key1, t)) return;
  uint32_t pp[MSA_PER_THREAD], ps[MSA_PER_THREAD], pk[MSA_PER_THREAD];
  uint32_t p;
  int pair, np = 0;
  size_t slot, key;
  while (msa_walk_next(&w, start, count, &p, &pair, &slot, &key)) {
    if (pair) {
      pp[np] = p, ps[np] = (uint32_t)slot, pk[np] = (uint32_t)key;
      np++;
    } else {
      MSA_NAME(point)(&slots[slot], bases, sorted[p]);
      keys[slot] = (uint32_t)key;
    }
  }
  MSA_F inv = tot[t], d, di;
  for (int i = np - 1; i >= 0; i--) {
    MSA_AFF P, Q;
    MSA_NAME(point)(&P, bases, sorted[pp[i]]);
    MSA_NAME(point)(&Q, bases, sorted[pp[i] + 1]);
    const int kind = MSA_NAME(kind)(&P, &Q, &d);
    if (kind >= MSA_ADD_PQ) {
      MSA_MUL(&di, &inv, &pre[(size_t)i * nthr + t]);
      MSA_MUL(&inv, &inv, &d);
    }
    MSA_NAME(finish)(&P, &P, &Q, kind, &di);
    slots[ps[i]] = P;
    keys[ps[i]] = pk[i];
  }
}

/* A step of stride s, first kernel: thread t (< nthr) of blocks t, t + nthr, t + 2 nthr,
 * ... (MSA_PER_THREAD of them at most; neighbouring threads read neighbouring slots). */
MSA_FINL void MSA_NAME(step_prod)(size_t t, size_t nthr, size_t s, size_t ns, const uint32_t *keys,
                                  const uint32_t *start, size_t key0, const MSA_AFF *slots, MSA_F *pre,
                                  MSA_F *tot) {
  MSA_F acc, d;
  MSA_SET_ONE(&acc);
  const uint32_t p0 = start[key0];
  const size_t nblk = msa_step_blocks(ns, s);
  size_t i = 0, dst, src;
  for (size_t q = t; q < nblk; q += nthr) {
    if (!msa_join(keys, start, p0, key0, ns, s, q, &dst, &src)) continue;
    MSA_NAME(denom)(&slots[dst], &slots[src], 0, 0, &d);
    pre[i * nthr + t] = acc;
    MSA_MUL(&acc, &acc, &d);
    i++;
  }
  tot[t] = acc;
}

/* A step, last kernel: slots[dst] += slots[src] for each joining block, backwards. */
MSA_FINL void MSA_NAME(step_sum)(size_t t, size_t nthr, size_t s, size_t ns, const uint32_t *keys,
                                 const uint32_t *start, size_t key0, MSA_AFF *slots, const MSA_F *pre,
                                 const MSA_F *tot) {
  const uint32_t p0 = start[key0];
  const size_t nblk = msa_step_blocks(ns, s);
  uint32_t jd[MSA_PER_THREAD], js[MSA_PER_THREAD];
  int nj = 0;
  size_t dst, src;
  for (size_t q = t; q < nblk; q += nthr)
    if (msa_join(keys, start, p0, key0, ns, s, q, &dst, &src)) jd[nj] = (uint32_t)dst, js[nj] = (uint32_t)src, nj++;
  if (!nj) return;
  MSA_F inv = tot[t], d, di;
  for (int i = nj - 1; i >= 0; i--) {
    MSA_AFF P = slots[jd[i]], Q = slots[js[i]];
    const int kind = MSA_NAME(kind)(&P, &Q, &d);
    if (kind >= MSA_ADD_PQ) {
      MSA_MUL(&di, &inv, &pre[(size_t)i * nthr + t]);
      MSA_MUL(&inv, &inv, &d);
    }
    MSA_NAME(finish)(&P, &P, &Q, kind, &di);
    slots[jd[i]] = P;
  }
}

/* Threads of the inversion over ntot totals. */
MSA_HD size_t msa_invert_threads(size_t ntot) { return (ntot + MSA_INV_PER_THREAD - 1) / MSA_INV_PER_THREAD; }

/* The middle kernel of a level: thread u (< nu = msa_invert_threads(ntot)) replaces
 * tot[u], tot[u + nu], ... (MSA_INV_PER_THREAD of them at most) by their inverses with one
 * inversion, skipped when all of them are 1 (threads with no additions; the inverse of 1
 * is 1). No total is 0: every denominator is a nonzero difference of x, 2y (y != 0 on G1,
 * which has no point of order 2) or 1. */
MSA_FINL void MSA_NAME(invert)(size_t u, size_t ntot, MSA_F *tot) {
  MSA_F pre[MSA_INV_PER_THREAD], acc, one, x;
  MSA_SET_ONE(&acc);
  MSA_SET_ONE(&one);
  const size_t nu = msa_invert_threads(ntot);
  int m = 0, all_one = 1;
  for (size_t j = u; j < ntot; j += nu, m++) {
    pre[m] = acc;
    all_one &= MSA_EQ(&tot[j], &one);
    MSA_MUL(&acc, &acc, &tot[j]);
  }
  if (all_one) return;
  MSA_INV(&acc, &acc);
  for (int i = m - 1; i >= 0; i--) {
    const size_t j = u + (size_t)i * nu;
    x = tot[j];
    MSA_MUL(&tot[j], &acc, &pre[i]);
    MSA_MUL(&acc, &acc, &x);
  }
}

#endif
