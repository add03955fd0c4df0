/* Implementation of sim/trace.h. Timestamps are microseconds, as the format wants. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tspan {
  int gpu, worker, kind; /* kind: 0 cpu/none/pcie phase, 1 gpu phase, 2 mutex, 3 kernel, 4 memcpy */
  char *name;
  double t0, t1;
} tspan;

struct trace {
  int rep;
  tspan *s;
  size_t n, cap;
  int maxgpu, maxworker;
};

trace *trace_new(int rep) {
  trace *t = xcalloc(1, sizeof *t);
  t->rep = rep;
  t->maxgpu = t->maxworker = -1;
  return t;
}

void trace_free(trace *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n; i++) free(t->s[i].name);
  free(t->s);
  free(t);
}

void trace_add(trace *t, const span_rec *r) {
  if (r->rep != t->rep) return;
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 1024;
    t->s = xrealloc(t->s, t->cap * sizeof *t->s);
  }
  tspan *s = &t->s[t->n++];
  s->gpu = r->gpu;
  s->worker = r->worker;
  s->t0 = r->t0;
  s->t1 = r->t1;
  if (r->kind == SPAN_KERNEL) {
    s->kind = 3;
    s->name = xstrdup(r->name ? r->name : "kernel");
  } else if (r->kind == SPAN_MEMCPY) {
    s->kind = 4;
    s->name = xstrdup(r->name ? r->name : "memcpy");
  } else {
    s->name = xstrdup(r->phase);
    if (!strncmp(r->phase, "mutex_", 6))
      s->kind = 2;
    else if (r->resource && !strcmp(r->resource, "gpu"))
      s->kind = 1;
    else
      s->kind = 0;
  }
  if (r->gpu > t->maxgpu) t->maxgpu = r->gpu;
  if (r->worker > t->maxworker) t->maxworker = r->worker;
}

/* Thread ids inside a GPU's process: 1 = GPU (phases and kernels), then per worker w:
 * 10+3w = its CPU/other phases, 11+3w = its GPU phases, 12+3w = its mutex. */
static int tid_of(const tspan *s) {
  if (s->kind >= 3) return 1;
  return 10 + 3 * s->worker + (s->kind == 1 ? 1 : s->kind == 2 ? 2 : 0);
}

typedef struct edge {
  double t;
  int d;
} edge;

static int edge_cmp(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->t < y->t) return -1;
  if (x->t > y->t) return 1;
  return y->d - x->d; /* starts before ends at the same instant */
}

static void meta(ps_buf *b, int *first, const char *what, int pid, int tid, const char *name) {
  ps_buf_printf(b, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", *first ? "" : ",",
                what, pid, tid);
  ps_buf_json_str(b, name);
  ps_buf_append(b, "}}", 2);
  *first = 0;
}

void trace_render(trace *t, ps_buf *b) {
  int first = 1;
  char nm[96];
  ps_buf_printf(b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
  for (int g = 0; g <= t->maxgpu; g++) {
    snprintf(nm, sizeof nm, "GPU %d", g);
    meta(b, &first, "process_name", g + 1, 0, nm);
    meta(b, &first, "thread_name", g + 1, 1, "GPU (all GPU phases / kernels)");
    for (int w = 0; w <= t->maxworker; w++) {
      snprintf(nm, sizeof nm, "worker %d cpu", w);
      meta(b, &first, "thread_name", g + 1, 10 + 3 * w, nm);
      snprintf(nm, sizeof nm, "worker %d gpu", w);
      meta(b, &first, "thread_name", g + 1, 11 + 3 * w, nm);
      snprintf(nm, sizeof nm, "worker %d mutex", w);
      meta(b, &first, "thread_name", g + 1, 12 + 3 * w, nm);
    }
  }
  static const char *cats[] = {"cpu", "gpu", "mutex", "kernel", "memcpy"};
  for (size_t i = 0; i < t->n; i++) {
    const tspan *s = &t->s[i];
    ps_buf_printf(b, ",\n{\"ph\":\"X\",\"name\":");
    ps_buf_json_str(b, s->name);
    ps_buf_printf(b, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", cats[s->kind], s->gpu + 1,
                  tid_of(s), s->t0 * 1e6, (s->t1 - s->t0) * 1e6);
    if (s->kind == 1) {
      ps_buf_printf(b, ",\n{\"ph\":\"X\",\"name\":");
      ps_buf_json_str(b, s->name);
      ps_buf_printf(b, ",\"cat\":\"gpu\",\"pid\":%d,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"worker\":%d}}",
                    s->gpu + 1, s->t0 * 1e6, (s->t1 - s->t0) * 1e6, s->worker);
    }
  }
  /* Counter track: GPU busy, from kernels when there are any, else from GPU phases. */
  for (int g = 0; g <= t->maxgpu; g++) {
    int have_kernels = 0;
    for (size_t i = 0; i < t->n; i++)
      if (t->s[i].gpu == g && t->s[i].kind == 3) have_kernels = 1;
    int want = have_kernels ? 3 : 1;
    edge *e = NULL;
    size_t ne = 0;
    for (size_t i = 0; i < t->n; i++)
      if (t->s[i].gpu == g && t->s[i].kind == want) {
        e = xrealloc(e, (ne + 2) * sizeof *e);
        e[ne++] = (edge){t->s[i].t0, +1};
        e[ne++] = (edge){t->s[i].t1, -1};
      }
    if (ne) qsort(e, ne, sizeof *e, edge_cmp); /* e is NULL when this GPU has none */
    int depth = 0, was = -1;
    for (size_t i = 0; i < ne; i++) {
      depth += e[i].d;
      int busy = depth > 0;
      if (busy != was && (i + 1 == ne || e[i + 1].t != e[i].t)) {
        ps_buf_printf(b, ",\n{\"ph\":\"C\",\"name\":\"GPU busy\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"busy\":%d}}",
                      g + 1, e[i].t * 1e6, busy);
        was = busy;
      }
    }
    free(e);
  }
  ps_buf_printf(b, "\n]}\n");
}

static int add_cb(void *ctx, const span_rec *r) {
  trace_add(ctx, r);
  return 0;
}

int trace_convert(const char *spans_path, const char *out_path, int rep, ps_err *e) {
  trace *t = trace_new(rep);
  int rc = spans_read(spans_path, NULL, add_cb, t, e);
  if (rc == PS_OK && t->n == 0)
    rc = ps_fail(e, PS_EINPUT, "%s: no spans of replication %d", spans_path, rep);
  if (rc == PS_OK) {
    ps_buf b = {0};
    trace_render(t, &b);
    rc = ps_write_file_atomic(out_path, b.p, b.len, e);
    ps_buf_free(&b);
  }
  trace_free(t);
  return rc;
}
