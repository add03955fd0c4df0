/* The MSM's sort in two steps (msm_sort.cuh), its index arithmetic written once for the
 * kernels and for tests/test_msm_group.c, which runs it on the CPU against a plain
 * counting sort (CI has no GPU).
 *
 * A point's key is its bucket's index in the sorted array's bucket order. The keys are cut
 * into groups of 2^gshift consecutive keys. The first step appends each (point, key) to
 * its group's run in a staging array, piece by piece of the scalars (a piece's runs lie in
 * its own part of the array, from lo * nwin for scalars lo .. hi); the second takes the
 * runs group by group, each group's runs of every piece in turn, and puts each point at
 * its bucket's cursor. A group's buckets then lie in one short stretch of the sorted
 * array, so the writes of the second step, and its cursors, stay in the L2 cache; a
 * scatter straight from the digits writes all over the array (at 2^24 points over
 * precomputed bases, 201 million points in 804 MB). The staging array holds the point's
 * word as the sorted array will (point index and sign) and, beside it, the key's low
 * gshift bits, so gshift is at most 16. By default the second step goes a block of
 * positions at a time, its points counted per key in shared memory (msm_agg_span), which
 * gains from narrow groups: groups of 2^12 keys (msm_group_shift_default). A point at a
 * time in run order (msm_group_run, PSC_MSM_PLACE=point), wider groups sorted faster
 * (2^24 points at window 22 on the H200: 5.7 ms at 2^16 keys a group, 5.8 at 2^14, 7.7 at
 * 2^12, 10.3 at 2^10), so there a group spans 2^16 keys (docs/performance.md, "The sort's
 * second step a block at a time" and "The second step in bigger blocks"). */
#ifndef PROVESIM_MSM_GROUP_H
#define PROVESIM_MSM_GROUP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MSG_HD static __host__ __device__ __forceinline__
#else
#define MSG_HD static inline
#endif

#define MSM_GROUP_LOG_DEFAULT 0 /* log2 of the groups, at least: as few as KEY_BITS allow */
#define MSM_GROUP_KEY_BITS 16   /* the staged low bits of a key */
#define MSM_GROUP_LOG_MAX 12    /* the most groups (a block's shared counters) */

/* log2 of the keys a group spans for nkeys keys and at least 2^log_groups groups (as many as
 * MSM_GROUP_KEY_BITS leave needed), or 0 for one key a group. */
MSG_HD unsigned msm_group_shift(size_t nkeys, unsigned log_groups) {
  unsigned lk = 0;
  while (((size_t)1 << lk) < nkeys) lk++;
  unsigned s = lk > log_groups ? lk - log_groups : 0;
  return s > MSM_GROUP_KEY_BITS ? MSM_GROUP_KEY_BITS : s;
}

/* log2 of the keys a group spans by default: 2^MSM_GROUP_AGG_LOG_KEYS placing a block at a
 * time (agg), else as wide as MSM_GROUP_KEY_BITS allows; in both, no more than
 * 2^MSM_GROUP_LOG_MAX groups. At 2^24 points over bases precomputed for window 22 (2^21
 * keys) on the H200, a block at a time: 99.9 ms at 2^12 keys a group, 100.0 at 2^11, against
 * 101.6 a point at a time (docs/performance.md, "The second step in bigger blocks"). */
#define MSM_GROUP_AGG_LOG_KEYS 12
MSG_HD unsigned msm_group_shift_default(size_t nkeys, int agg) {
  if (!agg) return msm_group_shift(nkeys, MSM_GROUP_LOG_DEFAULT);
  unsigned lk = 0;
  while (((size_t)1 << lk) < nkeys) lk++;
  unsigned s = lk < MSM_GROUP_AGG_LOG_KEYS ? lk : MSM_GROUP_AGG_LOG_KEYS;
  if (lk - s > MSM_GROUP_LOG_MAX) s = lk - MSM_GROUP_LOG_MAX;
  return s > MSM_GROUP_KEY_BITS ? MSM_GROUP_KEY_BITS : s;
}

/* The groups of nkeys keys at 2^gshift keys a group. */
MSG_HD unsigned msm_group_count(size_t nkeys, unsigned gshift) {
  return (unsigned)((nkeys + ((size_t)1 << gshift) - 1) >> gshift);
}

/* The run that staged position t of the second step's order belongs to: tab[0..nseg] are
 * the runs' starts in that order (tab[nseg] = the total, tab non-decreasing, t < total),
 * and the answer is the last s with tab[s] <= t, so empty runs are passed over. */
MSG_HD unsigned msm_group_run(const uint32_t *tab, unsigned nseg, uint32_t t) {
  unsigned lo = 0, hi = nseg; /* tab[lo] <= t < tab[hi] */
  while (hi - lo > 1) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (tab[mid] <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* msm_group_run for position t given r = msm_group_run for an earlier position t0 <= t:
 * steps on from r, past empty runs (a block of the second step searches once, for its
 * first position, and its threads step on from there). */
MSG_HD unsigned msm_group_run_from(const uint32_t *tab, unsigned r, uint32_t t) {
  while (tab[r + 1] <= t) r++;
  return r;
}

/* The second step's order: run s is group s / pieces of piece s % pieces, and its length
 * is cnt[piece * ngroups + group] (the first step's counts, piece-major). */
MSG_HD uint32_t msm_group_run_len(const uint32_t *cnt, unsigned s, unsigned pieces, unsigned ngroups) {
  return cnt[(size_t)(s % pieces) * ngroups + s / pieces];
}

/* The staged position of position t of the second step's order, which lies in run r:
 * where run r begins in the staging array (start[], piece-major like the counts) plus t's
 * place in the run (tab: the runs' starts in that order). */
MSG_HD size_t msm_group_run_at(const uint32_t *tab, const uint32_t *start, unsigned r, unsigned pieces,
                               unsigned ngroups, size_t t) {
  return (size_t)start[(size_t)(r % pieces) * ngroups + r / pieces] + (t - tab[r]);
}

/* msm_group_run for position t among runs lo .. hi (tab[lo] <= t < tab[hi + 1]). */
MSG_HD unsigned msm_group_run_in(const uint32_t *tab, unsigned lo, unsigned hi, uint32_t t) {
  hi++; /* tab[lo] <= t < tab[hi] */
  while (hi - lo > 1) {
    const unsigned mid = lo + (hi - lo) / 2;
    if (tab[mid] <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* The second step a block at a time, its points counted per key in shared memory
 * (msm_group_place_agg): a block takes positions t0 .. t1 - 1 of the run order (t0 < t1),
 * which lie in runs r0 .. r1 and so in groups r0 / pieces .. r1 / pieces; its local key
 * for group g and low bits lo is ((g - g0) << gshift) | lo, and it needs as many counters
 * as msm_agg_span returns (or the points go one at a time, on the global cursors, where
 * that is more than the block holds). */
MSG_HD size_t msm_agg_span(unsigned r0, unsigned r1, unsigned pieces, unsigned gshift) {
  return ((size_t)(r1 / pieces - r0 / pieces) + 1) << gshift;
}

#endif
