/* Kernel-busy time of a recording (record.h). */
#include "record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivl.h"
#include "spans.h"

typedef struct kiv {
  int dev;
  ivl v;
} kiv;

typedef struct rs_ctx {
  record_summary *s;
  kiv *k;
  size_t n, cap;
} rs_ctx;

static int rs_hdr(void *ctx, const span_header *h) {
  rs_ctx *c = ctx;
  c->s->t0_monotonic = h->t0_monotonic > 0 ? h->t0_monotonic : NAN;
  return 0;
}

static int rs_rec(void *ctx, const span_rec *r) {
  rs_ctx *c = ctx;
  record_summary *s = c->s;
  if (r->gpu + 1 > s->ngpus) s->ngpus = r->gpu + 1;
  if (r->kind != SPAN_PHASE) {
    if (r->worker + 1 > s->threads) s->threads = r->worker + 1;
    if (r->worker < 0) s->unattributed++;
  }
  if (r->kind == SPAN_MEMCPY) {
    s->memcpys[r->gpu]++;
    return 0;
  }
  if (r->kind == SPAN_PHASE) {
    s->nvtx++;
    return 0;
  }
  s->kernels[r->gpu]++;
  if (r->t0 < s->first) s->first = r->t0;
  if (r->t1 > s->last) s->last = r->t1;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 4096;
    c->k = xrealloc(c->k, c->cap * sizeof *c->k);
  }
  c->k[c->n++] = (kiv){r->gpu, {r->t0, r->t1}};
  return 0;
}

/* By device (ivl_merge orders each device's intervals). */
static int kiv_cmp(const void *a, const void *b) {
  const kiv *x = a, *y = b;
  return (x->dev > y->dev) - (x->dev < y->dev);
}

int record_summarize(const char *path, double w0, double w1, record_summary *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  out->first = INFINITY;
  out->t0_monotonic = NAN;
  out->last = -INFINITY;
  rs_ctx c = {.s = out};
  int rc = spans_read(path, rs_hdr, rs_rec, &c, e);
  if (rc != PS_OK) {
    free(c.k);
    return rc;
  }
  if (isnan(w1)) w1 = c.n ? out->last : w0;
  out->w0 = w0;
  out->w1 = w1;
  if (c.n) qsort(c.k, c.n, sizeof *c.k, kiv_cmp);
  ivl *v = xmalloc((c.n + 1) * sizeof *v);
  for (size_t i = 0; i < c.n;) {
    size_t j = i;
    while (j < c.n && c.k[j].dev == c.k[i].dev) j++;
    for (size_t q = i; q < j; q++) v[q - i] = c.k[q].v;
    out->busy[c.k[i].dev] = ivl_clip_len(v, ivl_merge(v, j - i), w0, w1);
    i = j;
  }
  free(v);
  free(c.k);
  return PS_OK;
}
