/* Chrome Trace Event export of spans (open in Perfetto or chrome://tracing): one process
 * per GPU, a track per worker and resource, a GPU track with every GPU phase or kernel,
 * and a counter track of GPU busy (1 while at least one GPU phase or kernel runs). */
#ifndef PROVESIM_TRACE_H
#define PROVESIM_TRACE_H

#include "spans.h"
#include "util.h"

typedef struct trace trace;

/* Only spans of replication rep are kept. */
trace *trace_new(int rep);
void trace_free(trace *t); /* accepts NULL */
void trace_add(trace *t, const span_rec *r);
/* The Chrome Trace JSON document, appended to b. */
void trace_render(trace *t, ps_buf *b);

/* Read a spans file and write the trace to out (atomically). */
int trace_convert(const char *spans_path, const char *out_path, int rep, ps_err *e);

#endif
