/* The engine's event heap (sim/pipe.c): a binary heap ordered by (time, insertion
 * sequence), so ties break the same way on every run. Header-only: the event loop's
 * hottest code, kept inlinable. */
#ifndef PROVESIM_EVQ_H
#define PROVESIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* An event: job events carry the job id and the job's version at scheduling time (a job
 * rescheduled by a rate change bumps its version, which turns older events stale). */
enum { EV_JOB = 0, EV_ARRIVAL = 1 };

typedef struct ev {
  double t;
  uint64_t seq;
  uint32_t id;   /* job id, or unused for arrivals */
  uint32_t ver;  /* job version; type in the top bit */
} ev;

#define EV_TYPE_BIT 0x80000000u

/* A binary heap of entries of type E, which have members t (double) and seq (unsigned,
 * distinct), ordered by (t, seq): the type H and H_insert, H_pop. Two heaps share it: the
 * engine's events (evq, below) and a cpu class's members (ps.h, 16-byte entries). */
#define EVQ_HEAP(H, E, SEQ)                                                                     \
  typedef struct H {                                                                            \
    E *a;                                                                                       \
    size_t n, cap;                                                                              \
    SEQ seq; /* the next entry's sequence number */                                             \
  } H;                                                                                          \
                                                                                                \
  static inline int H##_less(const E *x, const E *y) {                                          \
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);                                    \
  }                                                                                             \
                                                                                                \
  /* H_less without branches, for the pop's choice between two children: which child is the  \
   * smaller is a coin toss in a large heap, and a mispredicted branch per level costs more   \
   * than the few instructions that compute it. */                                             \
  static inline size_t H##_less_nb(const E *x, const E *y) {                                    \
    return (size_t)((x->t < y->t) | ((x->t == y->t) & (x->seq < y->seq)));                      \
  }                                                                                             \
                                                                                                \
  static inline void H##_insert(H *q, E e) {                                                    \
    if (q->n == q->cap) {                                                                       \
      q->cap = q->cap ? 2 * q->cap : 64;                                                        \
      q->a = xrealloc(q->a, q->cap * sizeof *q->a);                                             \
    }                                                                                           \
    size_t i = q->n++;                                                                          \
    while (i > 0) {                                                                             \
      size_t p = (i - 1) / 2;                                                                   \
      if (!H##_less(&e, &q->a[p])) break;                                                       \
      q->a[i] = q->a[p];                                                                        \
      i = p;                                                                                    \
    }                                                                                           \
    q->a[i] = e;                                                                                \
  }                                                                                             \
                                                                                                \
  static inline E H##_pop(H *q) {                                                               \
    E *a = q->a;                                                                                \
    E top = a[0];                                                                               \
    E last = a[--q->n];                                                                         \
    size_t i = 0, n = q->n;                                                                     \
    for (;;) {                                                                                  \
      size_t l = 2 * i + 1;                                                                     \
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

EVQ_HEAP(evq, ev, uint64_t)

static inline void evq_push(evq *q, double t, uint32_t id, uint32_t ver) {
  ev e = {t, q->seq++, id, ver};
  evq_insert(q, e);
}

#endif
