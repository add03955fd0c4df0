/* The provesim.spans/1 format (shared/DESIGN.md, "Spans"): JSON Lines, a header object
 * then one object per span. Both halves write it; trace, calibrate, validate and the
 * empirical distribution read it. */
#ifndef PROVESIM_SPANS_H
#define PROVESIM_SPANS_H

#include <stdint.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPANS_SCHEMA "provesim.spans/1"

/* Bounds the reader enforces, so one line cannot take the memory or overflow an integer:
 * a line of at most SPANS_MAX_LINE bytes, ids within these ranges, times within +-1e9 s. */
#define SPANS_MAX_LINE (1 << 20)
#define SPANS_MAX_REP 1000000
#define SPANS_MAX_WORKER 100000
#define SPANS_MAX_T 1e9
#define SPANS_MAX_THREADS 1000000

typedef enum span_kind { SPAN_PHASE, SPAN_KERNEL, SPAN_MEMCPY } span_kind;

/* One span as read or written. Strings are borrowed. For kernel/memcpy spans `worker`
 * and `call` are -1 and `name` holds the kernel name; for phase spans `phase` holds the
 * phase name (or "mutex_wait"/"mutex_held"). */
typedef struct span_rec {
  span_kind kind;
  int rep, gpu, worker;
  int64_t call;
  const int64_t *partitions;
  int npartitions;
  const char *phase;    /* phase spans */
  const char *resource; /* phase spans: cpu|gpu|pcie|none */
  const char *name;     /* kernel/memcpy spans */
  int threads;          /* cpu phase spans: the threads the phase ran with; 0 = not recorded */
  double cpu_s;         /* phase spans (measure): the CPU seconds the phase used, its thread's
                           and its helpers' (par_cpu_seconds); 0 = not recorded */
  int64_t stream;       /* kernel/memcpy spans: the CUDA stream id + 1; 0 = not recorded */
  double t0, t1;
} span_rec;

typedef struct span_header {
  const char *source;   /* "sim" | "prover" */
  const char *scenario;
  const char *host;     /* may be NULL */
  const char *gpu;      /* may be NULL */
  const char *cpu;      /* the host's processor and cores; may be NULL */
  double t0_monotonic;  /* > 0: the time 0 of the file on the CLOCK_MONOTONIC clock, s */
  int cpu_cores;        /* > 0: the cores the run had (measure: the ones it was confined to;
                           simulate: the scenario's system.cpu_cores); 0: not recorded */
  int steal;            /* SPANS_STEAL_NONE: host_steal not recorded; SPANS_STEAL_VALUE: it
                           is; SPANS_STEAL_SLOT (writer only): write it as a slot of
                           SPANS_STEAL_WIDTH bytes, null until spans_put_steal fills it
                           (measure knows it only at the end of the run) */
  double host_steal;    /* the share of the run's cores' busy time the hypervisor gave to
                           other guests (steal, from /proc/stat), 0 to 1 */
  int has_seed;         /* 1: seed is recorded (measure: the run.seed its arrivals were drawn
                           from, core/arrivals.h); 0: not */
  int64_t seed;         /* 0 to 2^53 (JSON numbers are exact up to there) */
  int rendezvous;       /* 1: measure --rendezvous made the GPU's workers meet before their
                           GPU phases (an overlap run, not the scenario's schedule) */
} span_header;

/* A run that lost more than this share of its cores' busy time to steal ran on a shared
 * host: measure and calibrate say so. */
#define SPANS_STEAL_WARN 0.02
enum { SPANS_STEAL_NONE, SPANS_STEAL_VALUE, SPANS_STEAL_SLOT };
#define SPANS_STEAL_WIDTH 8
/* A header's host_steal as read: the share, or -1 when the header does not record it. */
static inline double spans_header_steal(const span_header *h) {
  return h->steal == SPANS_STEAL_VALUE ? h->host_steal : -1;
}

/* Append one JSON line (with '\n') to b. Returns the offset in b of the host_steal slot
 * (h->steal == SPANS_STEAL_SLOT), or -1 without one. */
long spans_format_header(ps_buf *b, const span_header *h);
/* Fills a host_steal slot (SPANS_STEAL_WIDTH bytes) with v, a share from 0 to 1. */
void spans_put_steal(char *slot, double v);
void spans_format(ps_buf *b, const span_rec *r);

/* Read a spans file, calling fn for every span line (the header is checked: the schema
 * must be provesim.spans/1). Strings in the record are valid during the call only.
 * hdr_fn and fn may be NULL (without fn the spans are still read and checked). Errors
 * name file:line. Returns PS_OK, PS_EINPUT or PS_ERR; a nonzero return of fn stops the
 * reading and is returned. */
/* 1 when the file (plain or .gz) begins with a provesim.spans/1 header line. */
int spans_sniff(const char *path);

typedef int (*spans_rec_fn)(void *ctx, const span_rec *r);
typedef int (*spans_hdr_fn)(void *ctx, const span_header *h);
int spans_read(const char *path, spans_hdr_fn hdr_fn, spans_rec_fn fn, void *ctx, ps_err *e);

#ifdef __cplusplus
}
#endif

#endif
