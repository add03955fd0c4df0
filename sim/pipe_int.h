/* Between the engine (pipe.c) and the replication driver (replicate.c); no other module
 * includes it. */
#ifndef PROVESIM_PIPE_INT_H
#define PROVESIM_PIPE_INT_H

#include "mser.h"
#include "pipe.h"

/* One replication of s on random stream rep, with s->warmup as it is (auto unresolved is
 * read as its number). A pilot (ms not NULL) also feeds ms each partition's latency in
 * completion order. */
int sim__run_rep(const scenario *s, int rep, sim_span_fn on_span, void *ctx, sim_metrics *out, mser *ms,
                 ps_err *e);

#endif
