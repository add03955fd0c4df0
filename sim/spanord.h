/* Spans of parallel replications delivered in replication order, in bounded memory.
 *
 * The replication at the head (the lowest one not yet finished) hands its spans straight
 * to the consumer. The others, running ahead on other threads, buffer theirs; when the
 * buffers together would pass `cap` bytes, a thread waits until its replication becomes
 * the head. par_for starts replications in increasing order, so the head is always
 * running and never waits: the stream is the one a single thread gives, and memory stays
 * within cap plus one span whatever the number of partitions. The consumer is called by
 * one thread at a time (not always the same one). */
#ifndef PROVESIM_SPANORD_H
#define PROVESIM_SPANORD_H

#include <stddef.h>

#include "pipe.h"

typedef struct span_order span_order;

span_order *span_order_new(int nreps, size_t cap, sim_span_fn fn, void *ctx);
/* A sim_span_fn: ctx is the span_order, and sp->rep says which replication. */
void span_order_add(void *ctx, const sim_span *sp);
/* Replication rep has ended (successfully or not): it gives up the head, and the
 * finished replications after it are delivered. */
void span_order_done(span_order *o, int rep);
/* The largest number of bytes the buffers held at once (for tests). */
size_t span_order_peak(const span_order *o);
void span_order_free(span_order *o);

#endif
