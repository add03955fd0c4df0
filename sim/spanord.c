/* Implementation of sim/spanord.h: one mutex and one condition variable; a replication
 * that has become the head and emptied its buffer delivers without taking the lock. */
#include "spanord.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

typedef struct rep_buf {
  sim_span *sp;
  size_t n, cap;
  int64_t *parts;
  size_t np, pcap;
  int direct; /* the head, its buffer delivered: spans go straight to the consumer */
  int done;
} rep_buf;

struct span_order {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int nreps, head;
  size_t cap, bytes, peak;
  sim_span_fn fn;
  void *ctx;
  rep_buf *b;
};

span_order *span_order_new(int nreps, size_t cap, sim_span_fn fn, void *ctx) {
  span_order *o = xcalloc(1, sizeof *o);
  pthread_mutex_init(&o->mu, NULL);
  pthread_cond_init(&o->cv, NULL);
  o->nreps = nreps;
  o->cap = cap;
  o->fn = fn;
  o->ctx = ctx;
  o->b = xcalloc((size_t)(nreps > 0 ? nreps : 1), sizeof *o->b);
  return o;
}

static size_t span_bytes(const sim_span *sp) {
  return sizeof *sp + (size_t)sp->npartitions * sizeof(int64_t);
}

/* Hands rep's buffered spans to the consumer and empties the buffer. Called with the lock
 * held, by the thread that owns the head. */
static void deliver(span_order *o, rep_buf *b) {
  for (size_t j = 0; j < b->n; j++) {
    sim_span c = b->sp[j];
    o->bytes -= span_bytes(&c);
    c.partitions = b->parts + (uintptr_t)c.partitions;
    o->fn(o->ctx, &c);
  }
  free(b->sp);
  free(b->parts);
  b->sp = NULL, b->parts = NULL;
  b->n = b->cap = b->np = b->pcap = 0;
}

static void buffer(span_order *o, rep_buf *b, const sim_span *sp) {
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 1024;
    b->sp = xrealloc(b->sp, b->cap * sizeof *b->sp);
  }
  if (b->np + (size_t)sp->npartitions > b->pcap) {
    while (b->np + (size_t)sp->npartitions > b->pcap) b->pcap = b->pcap ? 2 * b->pcap : 1024;
    b->parts = xrealloc(b->parts, b->pcap * sizeof *b->parts);
  }
  sim_span c = *sp;
  memcpy(b->parts + b->np, sp->partitions, (size_t)sp->npartitions * sizeof *b->parts);
  c.partitions = (const int64_t *)(uintptr_t)b->np; /* an offset until delivery */
  b->np += (size_t)sp->npartitions;
  b->sp[b->n++] = c;
  o->bytes += span_bytes(sp);
  if (o->bytes > o->peak) o->peak = o->bytes;
}

void span_order_add(void *ctx, const sim_span *sp) {
  span_order *o = ctx;
  rep_buf *b = &o->b[sp->rep];
  if (b->direct) {
    o->fn(o->ctx, sp);
    return;
  }
  pthread_mutex_lock(&o->mu);
  /* Over the cap, a replication behind the head waits for its turn; the head never does. */
  while (o->head != sp->rep && o->bytes + span_bytes(sp) > o->cap) pthread_cond_wait(&o->cv, &o->mu);
  if (o->head == sp->rep) {
    deliver(o, b);
    b->direct = 1;
    pthread_mutex_unlock(&o->mu);
    o->fn(o->ctx, sp);
    return;
  }
  buffer(o, b, sp);
  pthread_mutex_unlock(&o->mu);
}

void span_order_done(span_order *o, int rep) {
  pthread_mutex_lock(&o->mu);
  o->b[rep].done = 1;
  if (rep == o->head) {
    deliver(o, &o->b[rep]);
    while (o->head < o->nreps && o->b[o->head].done) deliver(o, &o->b[o->head++]);
    pthread_cond_broadcast(&o->cv);
  }
  pthread_mutex_unlock(&o->mu);
}

size_t span_order_peak(const span_order *o) { return o->peak; }

void span_order_free(span_order *o) {
  if (!o) return;
  for (int i = 0; i < o->nreps; i++) free(o->b[i].sp), free(o->b[i].parts);
  free(o->b);
  pthread_cond_destroy(&o->cv);
  pthread_mutex_destroy(&o->mu);
  free(o);
}
