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

typedef struct evq {
  ev *a;
  size_t n, cap;
  uint64_t seq;
} evq;

static inline int ev_less(const ev *x, const ev *y) {
  return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static inline void evq_push(evq *q, double t, uint32_t id, uint32_t ver) {
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 64;
    q->a = xrealloc(q->a, q->cap * sizeof *q->a);
  }
  ev e = {t, q->seq++, id, ver};
  size_t i = q->n++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!ev_less(&e, &q->a[p])) break;
    q->a[i] = q->a[p];
    i = p;
  }
  q->a[i] = e;
}

static inline ev evq_pop(evq *q) {
  ev top = q->a[0];
  ev last = q->a[--q->n];
  size_t i = 0, n = q->n;
  for (;;) {
    size_t l = 2 * i + 1;
    if (l >= n) break;
    size_t c = (l + 1 < n && ev_less(&q->a[l + 1], &q->a[l])) ? l + 1 : l;
    if (!ev_less(&q->a[c], &last)) break;
    q->a[i] = q->a[c];
    i = c;
  }
  if (n) q->a[i] = last;
  return top;
}

#endif
