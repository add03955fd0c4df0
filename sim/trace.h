/* Chrome Trace Event export of spans (open in Perfetto or chrome://tracing): one process
 * per GPU, a track per worker and resource, a GPU track with every GPU phase or kernel,
 * and a counter track of GPU busy (1 while at least one GPU phase or kernel runs). */
#ifndef PROVESIM_TRACE_H
#define PROVESIM_TRACE_H

#include "spans.h"
#include "util.h"

typedef struct trace trace;

/* A trace keeps 32 bytes per span (names interned), so its memory is bounded by the spans
 * it keeps: by default the first million of the window, about what Perfetto's UI loads. */
#define TRACE_MAX_SPANS 1000000

/* Only spans of replication rep that overlap [from, to) are kept (-INFINITY, INFINITY: all),
 * at most max_spans of them, the first in the order given; later ones are counted. */
trace *trace_new(int rep, size_t max_spans, double from, double to);
void trace_free(trace *t); /* accepts NULL */
void trace_add(trace *t, const span_rec *r);
size_t trace_count(const trace *t);       /* spans kept */
int64_t trace_dropped(const trace *t);    /* spans of the window past max_spans */
double trace_kept_until(const trace *t);  /* the latest end among the spans kept */
/* The Chrome Trace JSON document, appended to b. */
void trace_render(trace *t, ps_buf *b);
/* The document written to out_path as it is rendered (atomically: whole or not at all). */
int trace_write(trace *t, const char *out_path, ps_err *e);

/* Read a spans file into t and write the trace to out_path (atomically). */
int trace_convert(const char *spans_path, const char *out_path, trace *t, ps_err *e);

#endif
