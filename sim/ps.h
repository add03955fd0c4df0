/* Processor sharing in O(log n) per event (sim/pipe.c's CPU pool). The jobs of one class
 * always progress at one common speed (work per second), which changes whenever the pool's
 * demand does. A class keeps a virtual clock v, the work each of its members has received
 * since the clock's origin, and its members in a queue (bq.h) keyed by virtual finish (v
 * at join plus the job's work), ties in join order. A change of speed advances the clock and
 * touches nothing else: the order of the members' finishes does not change, and only the
 * first finish is ever scheduled. Header-only, like evq.h: the event loop's hot path. */
#ifndef PROVESIM_PS_H
#define PROVESIM_PS_H

#include <stdint.h>
#include <stdlib.h>

#include "bq.h"
#include "evq.h"

/* A member: its virtual finish t, its job, and its place in the class's join order. 16
 * bytes, so that a large class's buckets take few cache lines. */
typedef struct ps_mem {
  uint32_t id;   /* with seq, the low half of the key (evq.h): ties leave in join order */
  uint32_t seq;
  uint64_t tk;   /* the virtual finish, evq_tkey */
} ps_mem;

EVQ_BQ(ps_heap, ps_mem, uint32_t)

/* After 2^32 - 1 joins to a class that never emptied, its members' join numbers become
 * their ranks 0..n-1 (the same order), so the 32-bit numbers never wrap. */
static int ps_mem_seq_cmp(const void *x, const void *y) {
  uint32_t a = (*(ps_mem *const *)x)->seq, b = (*(ps_mem *const *)y)->seq;
  return (a > b) - (a < b);
}

static inline void ps_heap_renumber(ps_heap *h) {
  ps_heap__all_far(h);
  ps_mem **by = xmalloc(h->nfar * sizeof *by);
  for (size_t i = 0; i < h->nfar; i++) by[i] = &h->far[i];
  qsort(by, h->nfar, sizeof *by, ps_mem_seq_cmp);
  for (size_t i = 0; i < h->nfar; i++) by[i]->seq = (uint32_t)i;
  h->seq = (uint32_t)h->nfar;
  free(by);
  ps_heap__settle(h);
}

typedef struct ps_cls {
  double v;      /* the virtual clock at time t */
  double t;
  double speed;  /* work per second of every member since t (> 0) */
  double due;    /* when the first member finishes, as last scheduled */
  uint64_t seq;  /* and that schedule's place in the engine's order of ties */
  ps_heap h;     /* members: tk = virtual finish, id = job; seq = join order */
} ps_cls;

/* x / speed, without the division when the speed is 1 (an unshared pool, an exclusive GPU:
 * most jobs of most scenarios), whose result is x bit for bit: a division is the longest
 * step on the path of an event. */
static inline double ps_div_speed(double x, double speed) { return speed == 1.0 ? x : x / speed; }

/* The clock at time now >= c->t. */
static inline double ps_cls_v(const ps_cls *c, double now) { return c->v + c->speed * (now - c->t); }

static inline void ps_cls_advance(ps_cls *c, double now) {
  c->v = ps_cls_v(c, now);
  c->t = now;
}

/* From now on every member runs at `speed`. */
static inline void ps_cls_set_speed(ps_cls *c, double now, double speed) {
  ps_cls_advance(c, now);
  c->speed = speed;
}

/* Job `job` joins with `work` to do at the class's current speed (an empty class starts
 * at `speed`, its clock from 0). Returns 1 when it is now the first to finish. */
static inline int ps_cls_join(ps_cls *c, double now, uint32_t job, double work, double speed) {
  if (c->h.n == 0) {
    c->v = 0;
    c->t = now;
    c->speed = speed;
    c->h.seq = 0; /* the join order matters among members only */
  } else {
    ps_cls_advance(c, now);
    if (c->h.seq == UINT32_MAX) ps_heap_renumber(&c->h);
  }
  ps_mem m = {job, c->h.seq++, evq_tkey(c->v + work)};
  return ps_heap_insert(&c->h, m);
}

/* The member that finishes first; the class must not be empty. */
static inline uint32_t ps_cls_first(const ps_cls *c) { return c->h.min->id; }

/* When the first member finishes: never before now (a finish the clock has already passed,
 * by rounding, is now). */
static inline double ps_cls_due(const ps_cls *c, double now) {
  double t = c->t + ps_div_speed(evq_tval(c->h.min->tk) - c->v, c->speed);
  return t < now ? now : t;
}

/* The clock's origin moves to now: every member's key drops by the clock's value, which is
 * returned, and the clock restarts from 0. Keys and clock stay small, so a finish is as
 * precise late in a long run as early on (a clock of 10^6 would leave finishes only to
 * 10^-10); O(members), done once the clock passes PS_CLS_REBASE. The subtraction keeps
 * the members' order: a key k >= s / 2 (every key is about the clock s or above) loses s
 * exactly up to 2 s (Sterbenz), and above that distinct keys stay distinct unless they are
 * adjacent doubles whose difference with s falls halfway between two (work left above s,
 * itself above 16, in two members one unit in the last place apart). Such a pair would tie
 * and leave in join order; the binary heap this queue replaced left it in the order of its
 * layout. */
#define PS_CLS_REBASE 16.0

static inline double ps_cls_rebase(ps_cls *c, double now) {
  ps_cls_advance(c, now);
  double s = c->v;
  ps_heap__all_far(&c->h);
  for (size_t i = 0; i < c->h.nfar; i++) c->h.far[i].tk = evq_tkey(evq_tval(c->h.far[i].tk) - s);
  ps_heap__settle(&c->h);
  c->v = 0;
  return s;
}

/* The first member leaves (it has finished); returns it. */
static inline uint32_t ps_cls_leave(ps_cls *c) { return ps_heap_pop(&c->h).id; }

/* A pool's classes, and which have members: a change of the pool's share visits those. */
typedef struct ps_pool {
  ps_cls *cls;
  int ncls;
  int *act, *pos, nact; /* the classes with members; pos: where class c is in act */
} ps_pool;

static inline void ps_pool_init(ps_pool *p, int ncls) {
  p->cls = xcalloc((size_t)ncls, sizeof *p->cls);
  p->act = xcalloc((size_t)ncls, sizeof *p->act);
  p->pos = xcalloc((size_t)ncls, sizeof *p->pos);
  p->ncls = ncls;
  p->nact = 0;
}

static inline void ps_pool_free(ps_pool *p) {
  if (p->cls)
    for (int c = 0; c < p->ncls; c++) ps_heap_free(&p->cls[c].h);
  free(p->cls);
  free(p->act);
  free(p->pos);
}

/* ps_cls_join on class c of the pool. */
static inline int ps_pool_join(ps_pool *p, int c, double now, uint32_t job, double work, double speed) {
  if (p->cls[c].h.n == 0) {
    p->pos[c] = p->nact;
    p->act[p->nact++] = c;
  }
  return ps_cls_join(&p->cls[c], now, job, work, speed);
}

/* ps_pool_join on class c when it is empty: the same state (its clock from 0 at now, at
 * `speed`; the job its first), without the queue's general insert. */
static inline void ps_pool_join_empty(ps_pool *p, int c, double now, uint32_t job, double work, double speed) {
  ps_cls *k = &p->cls[c];
  p->pos[c] = p->nact;
  p->act[p->nact++] = c;
  k->v = 0;
  k->t = now;
  k->speed = speed;
  k->h.seq = 1;
  ps_mem m = {job, 0, evq_tkey(0.0 + work)};
  ps_heap__insert_empty(&k->h, m);
}

/* ps_cls_leave on class c of the pool. */
static inline uint32_t ps_pool_leave(ps_pool *p, int c) {
  uint32_t job = ps_cls_leave(&p->cls[c]);
  if (p->cls[c].h.n == 0) {
    int last = p->act[--p->nact];
    p->act[p->pos[c]] = last;
    p->pos[last] = p->pos[c];
  }
  return job;
}

#endif
