/* A bucketed priority queue over evq.h's 128-bit keys, in the binary heap's exact order
 * (smallest key first; keys are unique). A large queue cuts the keys' time halves into
 * BQ_NB buckets of 2^shift time keys each from `base`, and keys past the last bucket wait
 * unsorted in `far`; every key of a bucket is below every key of the next, and below every
 * key of far. The first entry is always known (`min`), so a pop scans the rest of its
 * bucket, or the next non-empty bucket found in a bitmap, instead of walking down a heap's
 * levels: a few loads that do not depend on each other. When the buckets run dry, far is
 * cut anew from its smallest key. A small queue (BQ_SMALL entries or fewer) keeps them in
 * far as a binary heap, whose few levels cost less than the buckets' bookkeeping: the
 * engine's queues are small in a small farm and large in a large one. The same order
 * whatever the layout, since no two keys are equal. Header-only: the event loop's hot
 * path. */
#ifndef PROVESIM_BQ_H
#define PROVESIM_BQ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "util.h"

/* BQ_NB buckets; a cut aims at BQ_PER entries a bucket; a bucket of more than BQ_BIG at a
 * pop is cut narrower; BQ_SMALL entries or fewer make a small queue. */
enum { BQ_LOG = 8, BQ_NB = 1 << BQ_LOG, BQ_PER = 2, BQ_BIG = 48, BQ_SMALL = 16 };

static inline uint64_t bq__tk(const void *e) {
  uint64_t k;
  memcpy(&k, (const char *)e + 8, sizeof k);
  return k;
}

#define EVQ_BQ(H, E, SEQ)                                                                       \
  typedef struct H##_bkt {                                                                      \
    E *a;                                                                                       \
    uint32_t n, cap;                                                                            \
  } H##_bkt;                                                                                    \
                                                                                                \
  typedef struct H {                                                                            \
    E *min;        /* the first entry (valid while n > 0): in bucket mb, or in far if !big */   \
    size_t n;      /* entries in all */                                                         \
    E *far;        /* the entries past the last bucket, or all n of them (!big: a heap) */      \
    size_t nfar, capfar; /* nfar: while big */                                                  \
    int big;       /* the buckets are in use (and not empty) */                                 \
    uint32_t mb;                                                                                \
    SEQ seq;       /* the next entry's sequence number */                                       \
    unsigned shift;                                                                             \
    uint64_t base; /* bucket i holds time keys base + [i, i + 1) 2^shift; 0 also those below */ \
    H##_bkt *b;    /* BQ_NB buckets */                                                          \
    uint64_t bm[BQ_NB / 64]; /* the buckets that have entries */                                \
  } H;                                                                                          \
                                                                                                \
  static inline void H##_free(H *q) {                                                           \
    if (q->b)                                                                                   \
      for (int i = 0; i < BQ_NB; i++) free(q->b[i].a);                                          \
    free(q->b);                                                                                 \
    free(q->far);                                                                               \
    memset(q, 0, sizeof *q);                                                                    \
  }                                                                                             \
                                                                                                \
  /* The bucket of time key k, or BQ_NB for far. */                                             \
  static inline uint64_t H##__bucket(const H *q, uint64_t k) {                                  \
    uint64_t d = k >= q->base ? (k - q->base) >> q->shift : 0;                                  \
    return d < BQ_NB ? d : BQ_NB;                                                               \
  }                                                                                             \
                                                                                                \
  static inline E *H##__far_add(H *q, E e) {                                                    \
    if (q->nfar == q->capfar) {                                                                 \
      q->capfar = q->capfar ? 2 * q->capfar : 16;                                               \
      q->far = xrealloc(q->far, q->capfar * sizeof(E));                                         \
    }                                                                                           \
    E *p = &q->far[q->nfar++];                                                                  \
    *p = e;                                                                                     \
    return p;                                                                                   \
  }                                                                                             \
                                                                                                \
  /* Appends e to bucket i; returns where it landed (min is kept valid). */                     \
  static inline E *H##__put(H *q, uint32_t i, E e) {                                            \
    H##_bkt *bk = &q->b[i];                                                                     \
    if (bk->n == bk->cap) {                                                                     \
      E *old = bk->a;                                                                           \
      bk->cap = bk->cap ? 2 * bk->cap : 4;                                                      \
      bk->a = xrealloc(bk->a, bk->cap * sizeof(E));                                             \
      if (q->big && q->mb == i) q->min = bk->a + (q->min - old);                                \
    }                                                                                           \
    q->bm[i >> 6] |= (uint64_t)1 << (i & 63);                                                   \
    E *p = &bk->a[bk->n++];                                                                     \
    *p = e;                                                                                     \
    return p;                                                                                   \
  }                                                                                             \
                                                                                                \
  /* The smallest of the n > 0 entries at a. */                                                 \
  static inline E *H##__least(E *a, size_t n) {                                                 \
    E *m = a;                                                                                   \
    evq_u128 mk = evq__key(m);                                                                  \
    for (size_t j = 1; j < n; j++) {                                                            \
      evq_u128 k = evq__key(&a[j]);                                                             \
      if (k < mk) mk = k, m = &a[j];                                                            \
    }                                                                                           \
    return m;                                                                                   \
  }                                                                                             \
                                                                                                \
  /* The buckets are empty and far is not: cut the buckets from far's smallest key, 2^shift     \
   * keys each (shift < 0: about BQ_PER entries a bucket at far's mean gap); what is past       \
   * them stays in far. Sets min. */                                                            \
  static __attribute__((noinline, unused)) void H##__refill(H *q, int shift) {                  \
    uint64_t lo = UINT64_MAX, hi = 0;                                                           \
    for (size_t j = 0; j < q->nfar; j++) {                                                      \
      uint64_t k = bq__tk(&q->far[j]);                                                          \
      lo = k < lo ? k : lo;                                                                     \
      hi = k > hi ? k : hi;                                                                     \
    }                                                                                           \
    if (shift < 0) {                                                                            \
      uint64_t gap = (hi - lo) / q->nfar * BQ_PER;                                              \
      shift = gap ? 64 - __builtin_clzll(gap) - 1 : 0;                                          \
    }                                                                                           \
    if (!q->b) q->b = xcalloc(BQ_NB, sizeof *q->b);                                             \
    q->base = lo;                                                                               \
    q->shift = (unsigned)shift;                                                                 \
    q->big = 0; /* min is not yet valid */                                                      \
    size_t keep = 0;                                                                            \
    for (size_t j = 0; j < q->nfar; j++) {                                                      \
      uint64_t i = H##__bucket(q, bq__tk(&q->far[j]));                                          \
      if (i < BQ_NB)                                                                            \
        H##__put(q, (uint32_t)i, q->far[j]);                                                    \
      else                                                                                      \
        q->far[keep++] = q->far[j];                                                             \
    }                                                                                           \
    q->nfar = keep;                                                                             \
    q->big = 1;                                                                                 \
    q->mb = 0; /* lo's bucket */                                                                \
    q->min = H##__least(q->b[0].a, q->b[0].n);                                                  \
  }                                                                                             \
                                                                                                \
  /* Every entry goes back to far, as in a small queue (to rewrite keys). */                    \
  static inline void H##__all_far(H *q) {                                                       \
    if (!q->big) {                                                                              \
      q->nfar = q->n;                                                                           \
      return;                                                                                   \
    }                                                                                           \
    for (uint32_t i = 0; i < BQ_NB; i++) {                                                      \
      if (!(q->bm[i >> 6] >> (i & 63) & 1)) continue;                                           \
      for (uint32_t j = 0; j < q->b[i].n; j++) H##__far_add(q, q->b[i].a[j]);                   \
      q->b[i].n = 0;                                                                            \
    }                                                                                           \
    memset(q->bm, 0, sizeof q->bm);                                                             \
    q->big = 0;                                                                                 \
  }                                                                                             \
                                                                                                \
  /* e goes into the small queue's binary heap (far, with min = far) from slot i up; returns    \
   * where it landed. */                                                                        \
  static inline size_t H##__sift_up(H *q, size_t i, E e) {                                      \
    E *a = q->far;                                                                              \
    while (i > 0) {                                                                             \
      size_t p = (i - 1) / 2;                                                                   \
      if (!(evq__key(&e) < evq__key(&a[p]))) break;                                             \
      a[i] = a[p];                                                                              \
      i = p;                                                                                    \
    }                                                                                           \
    a[i] = e;                                                                                   \
    return i;                                                                                   \
  }                                                                                             \
                                                                                                \
  /* After __all_far or a change of far's keys (in the same order): cut buckets for a large     \
   * queue, or make far a small queue's heap. */                                                \
  static inline void H##__settle(H *q) {                                                        \
    if (q->n > BQ_SMALL) {                                                                      \
      H##__refill(q, -1);                                                                       \
      return;                                                                                   \
    }                                                                                           \
    for (size_t i = 1; i < q->n; i++) H##__sift_up(q, i, q->far[i]);                            \
    q->min = q->far;                                                                            \
  }                                                                                             \
                                                                                                \
  /* Insert into a large queue. */                                                              \
  static inline int H##__insert_big(H *q, E e) {                                                \
    uint64_t i = H##__bucket(q, bq__tk(&e));                                                    \
    q->n++;                                                                                     \
    if (i == BQ_NB) {                                                                           \
      H##__far_add(q, e);                                                                       \
      return 0;                                                                                 \
    }                                                                                           \
    E *p = H##__put(q, (uint32_t)i, e);                                                         \
    if (evq__key(&e) < evq__key(q->min)) {                                                      \
      q->min = p;                                                                               \
      q->mb = (uint32_t)i;                                                                      \
      return 1;                                                                                 \
    }                                                                                           \
    return 0;                                                                                   \
  }                                                                                             \
                                                                                                \
  /* Insert into an empty queue (a small one: n == 0 leaves no buckets in use). */              \
  static inline __attribute__((unused)) void H##__insert_empty(H *q, E e) {                     \
    if (q->capfar == 0) {                                                                       \
      q->capfar = 16;                                                                           \
      q->far = xrealloc(q->far, q->capfar * sizeof(E));                                         \
    }                                                                                           \
    q->far[0] = e;                                                                              \
    q->n = 1;                                                                                   \
    q->min = q->far;                                                                            \
  }                                                                                             \
                                                                                                \
  /* Returns 1 when e is now the first. */                                                      \
  static inline int H##_insert(H *q, E e) {                                                     \
    if (q->big) return H##__insert_big(q, e);                                                   \
    if (q->n == 1 && q->capfar > 1) { /* the heap's step from one entry, without its loop */    \
      E *a = q->far;                                                                            \
      q->n = 2;                                                                                 \
      if (evq__key(&e) < evq__key(a)) {                                                         \
        a[1] = a[0];                                                                            \
        a[0] = e;                                                                               \
        return 1;                                                                               \
      }                                                                                         \
      a[1] = e;                                                                                 \
      return 0;                                                                                 \
    }                                                                                           \
    if (q->n == q->capfar) { /* a binary heap */                                                \
      q->capfar = q->capfar ? 2 * q->capfar : 16;                                               \
      q->far = xrealloc(q->far, q->capfar * sizeof(E));                                         \
      q->min = q->far;                                                                          \
    }                                                                                           \
    size_t i = H##__sift_up(q, q->n++, e);                                                      \
    if (q->n > BQ_SMALL) {                                                                      \
      q->nfar = q->n;                                                                           \
      H##__refill(q, -1);                                                                       \
    }                                                                                           \
    return i == 0;                                                                              \
  }                                                                                             \
                                                                                                \
  /* Pop's rare cases, out of line: the first's bucket is too coarse, or it and the rest of     \
   * its bitmap word are empty. */                                                              \
  static __attribute__((noinline, unused)) void H##__pop_slow(H *q, H##_bkt *bk) {              \
    if (bk->n) { /* too coarse: cut narrower buckets */                                         \
      H##__all_far(q);                                                                          \
      H##__refill(q, q->shift > 4 ? (int)q->shift - 4 : 0);                                     \
      return;                                                                                   \
    }                                                                                           \
    uint32_t w = q->mb >> 6;                                                                    \
    uint64_t m = 0;                                                                             \
    while (!m && ++w < BQ_NB / 64) m = q->bm[w];                                                \
    if (m) {                                                                                    \
      q->mb = w * 64 + (uint32_t)__builtin_ctzll(m);                                            \
      q->min = H##__least(q->b[q->mb].a, q->b[q->mb].n);                                        \
      return;                                                                                   \
    }                                                                                           \
    q->big = 0; /* the buckets ran dry: what is left is in far */                               \
    H##__settle(q);                                                                             \
  }                                                                                             \
                                                                                                \
  /* Pop from a large queue. */                                                                 \
  static inline E H##__pop_big(H *q) {                                                          \
    E top = *q->min;                                                                            \
    q->n--;                                                                                     \
    H##_bkt *bk = &q->b[q->mb];                                                                 \
    *q->min = bk->a[--bk->n];                                                                   \
    if (bk->n) {                                                                                \
      if (bk->n <= BQ_BIG || q->shift == 0)                                                     \
        q->min = H##__least(bk->a, bk->n);                                                      \
      else                                                                                      \
        H##__pop_slow(q, bk);                                                                   \
      return top;                                                                               \
    }                                                                                           \
    /* The next bucket, in the bitmap (the buckets before mb are empty). */                     \
    uint64_t m = q->bm[q->mb >> 6] &= ~((uint64_t)1 << (q->mb & 63));                           \
    if (m) {                                                                                    \
      q->mb = (q->mb & ~63u) + (uint32_t)__builtin_ctzll(m);                                    \
      q->min = H##__least(q->b[q->mb].a, q->b[q->mb].n);                                        \
    } else {                                                                                    \
      H##__pop_slow(q, bk);                                                                     \
    }                                                                                           \
    return top;                                                                                 \
  }                                                                                             \
                                                                                                \
  /* The first entry leaves; the queue must not be empty. */                                    \
  static inline E H##_pop(H *q) {                                                               \
    if (q->big) return H##__pop_big(q);                                                         \
    { /* a binary heap's pop */                                                                 \
      E *a = q->far;                                                                            \
      E top = a[0];                                                                             \
      if (q->n <= 2) { /* its steps from one or two entries, without the loop */                \
        if (--q->n) a[0] = a[1];                                                                \
        return top;                                                                             \
      }                                                                                         \
      E last = a[--q->n];                                                                       \
      size_t i = 0, n = q->n;                                                                   \
      for (;;) {                                                                                \
        size_t l = 2 * i + 1;                                                                   \
        if (l + 1 >= n) { /* one child, or none */                                              \
          if (l < n && evq__key(&a[l]) < evq__key(&last)) {                                     \
            a[i] = a[l];                                                                        \
            i = l;                                                                              \
          }                                                                                     \
          break;                                                                                \
        }                                                                                       \
        size_t c = l + (evq__key(&a[l + 1]) < evq__key(&a[l]));                                 \
        if (!(evq__key(&a[c]) < evq__key(&last))) break;                                        \
        a[i] = a[c];                                                                            \
        i = c;                                                                                  \
      }                                                                                         \
      if (n) a[i] = last;                                                                       \
      return top;                                                                               \
    }                                                                                           \
  }

#endif
