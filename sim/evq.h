/* The engine's event queue (sim/pipe.c), ordered by (time, insertion sequence), so ties
 * break the same way on every run; the time and sequence are compared as one 128-bit
 * integer. The queue is bq.h's bucketed one; the binary heap here (EVQ_HEAP), which it
 * replaced, is the tests' reference for its order. Header-only: the event loop's hottest
 * code, kept inlinable. */
#ifndef PROVESIM_EVQ_H
#define PROVESIM_EVQ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A time as a heap key: the bits of a double, mapped so that unsigned comparison of the
 * keys is the order of the times (the sign bit set for a time >= +0, every bit flipped for
 * a negative one). The heaps compare keys with integer instructions, whose chain per level
 * is shorter than that of a floating-point comparison and its tie test. Exact both ways;
 * only -0.0 sorts just below +0.0 (the engine's times are never -0.0). */
static inline uint64_t evq_tkey(double t) {
  uint64_t u;
  memcpy(&u, &t, sizeof u);
  return u ^ ((uint64_t)((int64_t)u >> 63) | 0x8000000000000000ull);
}

static inline double evq_tval(uint64_t k) {
  uint64_t u = k ^ (((uint64_t)((int64_t)k >> 63) ^ ~0ull) | 0x8000000000000000ull);
  double t;
  memcpy(&t, &u, sizeof t);
  return t;
}

/* An event: job events carry the job id and the job's version at scheduling time (a job
 * rescheduled by a rate change bumps its version, which turns older events stale). */
enum { EV_JOB = 0, EV_ARRIVAL = 1 };

typedef struct ev {
  uint64_t seq;  /* the heap's key: (tk, seq), as one 128-bit number */
  uint64_t tk;   /* the time, evq_tkey */
  uint32_t id;   /* job id, or unused for arrivals */
  uint32_t ver;  /* job version; type in the top bit */
} ev;

#define EV_TYPE_BIT 0x80000000u

/* An entry's key: its first 16 bytes as a 128-bit number, the second 8 bytes (the time's
 * key) high. */
typedef unsigned __int128 evq_u128;

static inline evq_u128 evq__key(const void *e) {
  uint64_t lo, hi;
  memcpy(&lo, e, sizeof lo);
  memcpy(&hi, (const char *)e + 8, sizeof hi);
  return ((evq_u128)hi << 64) | lo;
}

/* A binary heap of entries of type E, whose first 16 bytes are their key (evq__key: a time
 * key and, below it, a sequence number that no other entry shares), smallest first: the
 * type H and H_insert, H_pop. The engine's queues (evq, below, and a cpu class's members,
 * ps.h) are bq.h's, in the same order; tests/test_pipe.c compares them with this heap. */
#define EVQ_HEAP(H, E, SEQ)                                                                     \
  typedef struct H {                                                                            \
    E *a;                                                                                       \
    size_t n, cap;                                                                              \
    SEQ seq;   /* the next entry's sequence number */                                           \
    void *mem; /* a's allocation: a[1] starts 32 bytes into a cache line */                     \
  } H;                                                                                          \
                                                                                                \
  /* x's key below y's, as a number (a compare and a subtract with borrow): for the pop's    \
   * choice between two children, which is a coin toss in a large heap, and for the tests    \
   * that end a sift, one branch on it instead of one per half of the key. */                 \
  static inline size_t H##_less_nb(const E *x, const E *y) {                                    \
    size_t b = (size_t)(evq__key(x) < evq__key(y));                                            \
    __asm__("" : "+r"(b));                                                                      \
    return b;                                                                                   \
  }                                                                                             \
                                                                                                \
  static inline int H##_less(const E *x, const E *y) { return H##_less_nb(x, y) != 0; }         \
                                                                                                \
  /* Entries of 16 bytes then lie so that a node's two children share a cache line and its  \
   * four grandchildren fill one. */                                                          \
  static inline void H##_grow(H *q) {                                                           \
    size_t cap = q->cap ? 2 * q->cap : 64;                                                      \
    char *mem = xmalloc(cap * sizeof(E) + 128);                                                 \
    E *a = (E *)((((uintptr_t)mem + 63) & ~(uintptr_t)63) + 64 - 3 * sizeof(E) % 64);          \
    if (q->n) memcpy(a, q->a, q->n * sizeof(E));                                                \
    free(q->mem);                                                                               \
    q->mem = mem;                                                                               \
    q->a = a;                                                                                   \
    q->cap = cap;                                                                               \
  }                                                                                             \
                                                                                                \
  static inline void H##_free(H *q) {                                                           \
    free(q->mem);                                                                               \
    q->mem = NULL;                                                                              \
    q->a = NULL;                                                                                \
    q->n = q->cap = 0;                                                                          \
  }                                                                                             \
                                                                                                \
  /* Returns where e landed: 0 when it is now the first. */                                  \
  static inline size_t H##_insert(H *q, E e) {                                                  \
    if (q->n == q->cap) H##_grow(q);                                                            \
    size_t i = q->n++;                                                                          \
    while (i > 0) {                                                                             \
      size_t p = (i - 1) / 2;                                                                   \
      if (!H##_less(&e, &q->a[p])) break;                                                       \
      q->a[i] = q->a[p];                                                                        \
      i = p;                                                                                    \
    }                                                                                           \
    q->a[i] = e;                                                                                \
    return i;                                                                                   \
  }                                                                                             \
                                                                                                \
  static inline E H##_pop(H *q) {                                                               \
    E *a = q->a;                                                                                \
    E top = a[0];                                                                               \
    E last = a[--q->n];                                                                         \
    size_t i = 0, n = q->n;                                                                     \
    for (;;) {                                                                                  \
      size_t l = 2 * i + 1;                                                                     \
      __builtin_prefetch((const char *)a + (2 * l + 1) * sizeof(E));                            \
      if (l + 1 >= n) { /* one child, or none */                                                \
        if (l < n && H##_less(&a[l], &last)) {                                                  \
          a[i] = a[l];                                                                          \
          i = l;                                                                                \
        }                                                                                       \
        break;                                                                                  \
      }                                                                                         \
      size_t c = l + H##_less_nb(&a[l + 1], &a[l]);                                             \
      if (!H##_less(&a[c], &last)) break;                                                       \
      a[i] = a[c];                                                                              \
      i = c;                                                                                    \
    }                                                                                           \
    if (n) a[i] = last;                                                                         \
    return top;                                                                                 \
  }

#include "bq.h"

EVQ_BQ(evq, ev, uint64_t)

static inline void evq_push(evq *q, double t, uint32_t id, uint32_t ver) {
  ev e = {q->seq++, evq_tkey(t), id, ver};
  evq_insert(q, e);
}

#endif
