/* span_metrics_file (calib.h): the DESIGN's metrics recomputed from a spans file, in two
 * streaming passes, holding one record per call and one interval per GPU span of the
 * window, never the spans themselves.
 *
 * Pass 1 gathers the calls: for each (gpu, worker, call) its first start, last end and
 * partitions, in an open-addressing table; their ends give the window (core/window.h).
 * Pass 2 sums the mutex waits that end in the window and keeps the GPU intervals (kernels
 * when the file has any, else GPU phases) that overlap it, clipped to it, for the union. */
#include "calib.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ivl.h"
#include "spans.h"
#include "window.h"

typedef struct callrec {
  int32_t gpu, worker;
  int64_t call;
  double t0, t1;
  int k;
} callrec;

typedef struct sm_ctx {
  int rep, bad_gpu, have_kernels, maxgpu;
  double steal; /* the header's host_steal, -1 when not recorded */
  int64_t seed; /* measure's run.seed from the header, -1 when not recorded */
  int rendezvous;
  int maxrep;   /* the largest replication number in the file */
  /* pass 1: the calls, and their table (slot: index + 1, 0 = empty) */
  callrec *c;
  size_t n, cap;
  uint32_t *slot;
  size_t nslot;
  /* pass 2 */
  double w0, w1, wait_sum;
  long wait_n;
  ivl **iv;
  size_t *niv, *civ;
} sm_ctx;

static uint64_t call_hash(int gpu, int worker, int64_t call) {
  uint64_t h = (uint64_t)call * 0x9E3779B97F4A7C15ull;
  h ^= ((uint64_t)(uint32_t)gpu << 32 | (uint32_t)worker) * 0xC2B2AE3D27D4EB4Full;
  return h ^ (h >> 29);
}

static void table_grow(sm_ctx *c) {
  size_t n = c->nslot ? 2 * c->nslot : 1024;
  uint32_t *slot = xcalloc(n, sizeof *slot);
  for (size_t i = 0; i < c->n; i++) {
    size_t h = call_hash(c->c[i].gpu, c->c[i].worker, c->c[i].call) & (n - 1);
    while (slot[h]) h = (h + 1) & (n - 1);
    slot[h] = (uint32_t)(i + 1);
  }
  free(c->slot);
  c->slot = slot;
  c->nslot = n;
}

static int phase_kind(const span_rec *r) {
  if (r->kind == SPAN_KERNEL) return 2;
  if (!strcmp(r->phase, "mutex_wait")) return 3;
  if (!strcmp(r->phase, "mutex_held")) return 4;
  return r->resource && !strcmp(r->resource, "gpu") ? 1 : 0;
}

static int pass1(void *ctx, const span_rec *r) {
  sm_ctx *c = ctx;
  if (r->rep > c->maxrep) c->maxrep = r->rep;
  if (r->rep != c->rep || r->kind == SPAN_MEMCPY) return 0;
  if (r->gpu < 0 || r->gpu >= PS_MAX_GPUS) {
    c->bad_gpu = 1;
    return 1;
  }
  if (r->gpu > c->maxgpu) c->maxgpu = r->gpu;
  if (r->kind == SPAN_KERNEL) {
    c->have_kernels = 1;
    return 0;
  }
  if (2 * (c->n + 1) > c->nslot) table_grow(c);
  size_t h = call_hash(r->gpu, r->worker, r->call) & (c->nslot - 1);
  for (; c->slot[h]; h = (h + 1) & (c->nslot - 1)) {
    callrec *x = &c->c[c->slot[h] - 1];
    if (x->gpu == r->gpu && x->worker == r->worker && x->call == r->call) {
      x->t0 = fmin(x->t0, r->t0);
      x->t1 = fmax(x->t1, r->t1);
      return 0;
    }
  }
  if (c->n == c->cap) c->c = xrealloc(c->c, (c->cap = c->cap ? 2 * c->cap : 4096) * sizeof *c->c);
  /* A call's partitions are those of the first span read of it. */
  c->c[c->n] = (callrec){r->gpu, r->worker, r->call, r->t0, r->t1, r->npartitions > 0 ? r->npartitions : 1};
  c->slot[h] = (uint32_t)++c->n;
  return 0;
}

static int pass2(void *ctx, const span_rec *r) {
  sm_ctx *c = ctx;
  if (r->rep != c->rep || r->kind == SPAN_MEMCPY) return 0;
  int kind = phase_kind(r);
  if (kind == 3 && r->t1 > c->w0 && r->t1 <= c->w1) {
    c->wait_sum += r->t1 - r->t0;
    c->wait_n++;
  }
  if (kind != (c->have_kernels ? 2 : 1) || r->t1 < c->w0 || r->t0 > c->w1) return 0;
  int g = r->gpu;
  if (c->niv[g] == c->civ[g]) c->iv[g] = xrealloc(c->iv[g], (c->civ[g] = c->civ[g] ? 2 * c->civ[g] : 256) * sizeof(ivl));
  c->iv[g][c->niv[g]++] = (ivl){fmax(r->t0, c->w0), fmin(r->t1, c->w1)};
  return 0;
}

static int by_end(const void *a, const void *b) {
  const callrec *x = a, *y = b;
  return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

static int steal_hdr(void *ctx, const span_header *h) {
  sm_ctx *c = ctx;
  c->steal = spans_header_steal(h);
  c->seed = h->has_seed && h->source && !strcmp(h->source, "prover") ? h->seed : -1;
  c->rendezvous = h->rendezvous;
  return 0;
}

int span_metrics_file(const char *path, int rep, long warmup, long cooldown, span_metrics *out, ps_err *e) {
  sm_ctx c = {.rep = rep, .maxgpu = -1, .steal = -1, .seed = -1};
  int rc = spans_read(path, steal_hdr, pass1, &c, e);
  if (rc != PS_OK) {
    if (c.bad_gpu) rc = ps_fail(e, PS_EINPUT, "%s: a span names a GPU outside 0..%d", path, PS_MAX_GPUS - 1);
    goto out;
  }
  memset(out, 0, sizeof *out);
  out->host_steal = c.steal;
  out->reps_in_file = c.maxrep + 1;
  out->arrivals_seed = c.seed;
  out->rendezvous = c.rendezvous;
  long total = 0;
  for (size_t i = 0; i < c.n; i++) total += c.c[i].k;
  if (c.n == 0 || total - cooldown <= warmup) {
    rc = ps_fail(e, PS_EINPUT, "%s: replication %d has %ld partitions, too few for warm-up %ld and cool-down %ld", path,
                 rep, total, warmup, cooldown);
    goto out;
  }
  qsort(c.c, c.n, sizeof *c.c, by_end);
  win W;
  win_init(&W, total, warmup, cooldown);
  for (size_t i = 0; i < c.n; i++) win_complete(&W, c.c[i].t1, c.c[i].k);
  char *where = xasprintf("%s, replication %d", path, rep);
  rc = win_check(&W, where, e);
  free(where);
  if (rc != PS_OK) goto out;
  c.w0 = W.t0, c.w1 = W.t1;
  out->window_s = win_length(&W);
  out->completed = total - cooldown - warmup;
  out->throughput_pps = (double)out->completed / out->window_s;
  out->from_kernels = c.have_kernels;
  out->ngpus = c.maxgpu + 1;
  double cs = 0;
  long cn = 0;
  for (size_t i = 0; i < c.n; i++)
    if (c.c[i].t1 > c.w0 && c.c[i].t1 <= c.w1) {
      cs += c.c[i].t1 - c.c[i].t0;
      cn++;
    }
  out->call_mean = cn ? cs / (double)cn : NAN;
  /* The calls are done with: pass 2 holds only the window's GPU intervals. */
  free(c.c), c.c = NULL;
  free(c.slot), c.slot = NULL;
  c.iv = xcalloc((size_t)out->ngpus, sizeof *c.iv);
  c.niv = xcalloc((size_t)out->ngpus, sizeof *c.niv);
  c.civ = xcalloc((size_t)out->ngpus, sizeof *c.civ);
  rc = spans_read(path, NULL, pass2, &c, e);
  if (rc != PS_OK) goto out;
  out->mutex_wait_mean = c.wait_n ? c.wait_sum / (double)c.wait_n : NAN;
  double um = 0;
  for (int g = 0; g < out->ngpus; g++) {
    out->gpu_util[g] = win_busy_share(&W, c.iv[g], c.niv[g]);
    um += out->gpu_util[g];
  }
  out->gpu_util_mean = out->ngpus ? um / out->ngpus : NAN;
out:
  if (c.iv)
    for (int g = 0; g <= c.maxgpu; g++) free(c.iv[g]);
  free(c.iv), free(c.niv), free(c.civ);
  free(c.c);
  free(c.slot);
  return rc;
}
