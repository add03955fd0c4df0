/* Implementation of sim/trace.h. Timestamps are microseconds, as the format wants, written
 * from whole nanoseconds. */
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

/* A span as the trace keeps it: 32 bytes, its name interned. */
typedef struct tspan {
  int32_t worker;
  uint32_t name;
  int16_t gpu;  /* below PS_MAX_GPUS (1,024), as scenarios and the spans reader allow */
  int8_t kind;  /* 0 cpu/none/pcie phase, 1 gpu phase, 2 mutex, 3 kernel, 4 memcpy */
  float cpu_s;  /* phases from measure: the CPU seconds the phase used (0: not recorded) */
  double t0, t1;
} tspan;
_Static_assert(sizeof(tspan) == 32, "a trace keeps 32 bytes a span (trace.h)");

struct trace {
  int rep;
  size_t max;        /* spans kept at most */
  double from, to;   /* the window: spans that overlap [from, to) */
  tspan *s;
  size_t n, cap;
  int64_t dropped;   /* spans of the window past max */
  double kept_until; /* the latest end among the spans kept */
  int maxgpu, maxworker;
  strtab names;      /* the spans' names, interned */
};

trace *trace_new(int rep, size_t max_spans, double from, double to) {
  trace *t = xcalloc(1, sizeof *t);
  t->rep = rep;
  t->max = max_spans;
  t->from = from;
  t->to = to;
  t->maxgpu = t->maxworker = -1;
  t->kept_until = -INFINITY;
  return t;
}

void trace_free(trace *t) {
  if (!t) return;
  strtab_free(&t->names);
  free(t->s);
  free(t);
}

static uint32_t intern(trace *t, const char *name) { return (uint32_t)strtab_id(&t->names, name, (size_t)INT32_MAX); }

void trace_add(trace *t, const span_rec *r) {
  if (r->rep != t->rep) return;
  if (!(r->t1 >= t->from && r->t0 < t->to)) return;
  if (t->n == t->max) {
    t->dropped++;
    return;
  }
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 1024;
    if (t->cap > t->max) t->cap = t->max;
    t->s = xrealloc(t->s, t->cap * sizeof *t->s);
  }
  tspan *s = &t->s[t->n++];
  s->gpu = (int16_t)r->gpu;
  s->worker = r->worker;
  s->t0 = r->t0;
  s->t1 = r->t1;
  s->cpu_s = (float)r->cpu_s;
  if (r->kind == SPAN_KERNEL) {
    s->kind = 3;
    s->name = intern(t, r->name ? r->name : "kernel");
  } else if (r->kind == SPAN_MEMCPY) {
    s->kind = 4;
    s->name = intern(t, r->name ? r->name : "memcpy");
  } else {
    s->name = intern(t, r->phase);
    if (!strncmp(r->phase, "mutex_", 6))
      s->kind = 2;
    else if (r->resource && !strcmp(r->resource, "gpu"))
      s->kind = 1;
    else
      s->kind = 0;
  }
  if (r->t1 > t->kept_until) t->kept_until = r->t1;
  if (r->gpu > t->maxgpu) t->maxgpu = r->gpu;
  if (r->worker > t->maxworker) t->maxworker = r->worker;
}

size_t trace_count(const trace *t) { return t->n; }
int64_t trace_dropped(const trace *t) { return t->dropped; }
double trace_kept_until(const trace *t) { return t->kept_until; }

/* Tracks inside a GPU's process (Perfetto draws one thread per track): 1 = every GPU
 * phase of the GPU, 2 = kernels, 3 = memcpys, then per worker w: 10+3w = its CPU/other
 * phases, 11+3w = its GPU phases, 12+3w = its mutex. Slices on one thread must not
 * overlap, or Perfetto drops or misnests them, so a track whose slices overlap (kernels on
 * several streams, GPU phases of several workers with gpu_sharing: shared, concurrent CPU
 * phases of one call) is split into lanes: lane l > 0 of track k is thread k + LANE * l. */
#define LANE 1000
#define TRACE_MAX_LANES 64

static int track_of(const tspan *s) {
  if (s->kind == 3) return 2;
  if (s->kind == 4) return 3;
  return 10 + 3 * s->worker + (s->kind == 1 ? 1 : s->kind == 2 ? 2 : 0);
}

/* Times in whole nanoseconds, so a slice's end is the next one's start exactly when the
 * spans touch: the duration is end - start of the rounded values. */
static long long ns_of(double t) { return llround(t * 1e9); }

static void put_us(ps_buf *b, const char *key, long long ns) {
  long long a = ns < 0 ? -ns : ns;
  ps_buf_printf(b, ",\"%s\":%s%lld.%03lld", key, ns < 0 ? "-" : "", a / 1000, a % 1000);
}

typedef struct slice {
  const tspan *s;
  int pid, track, tid;
  long long t0, t1;
  int copy; /* the copy of a GPU phase on the GPU's track */
} slice;

static int slice_cmp(const void *x, const void *y) {
  const slice *a = x, *b = y;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->track != b->track) return a->track < b->track ? -1 : 1;
  if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
  if (a->t1 != b->t1) return a->t1 > b->t1 ? -1 : 1; /* longer first */
  return a->s < b->s ? -1 : a->s > b->s;
}

typedef struct edge {
  long long t;
  int d;
} edge;

static int edge_cmp(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return y->d - x->d; /* starts before ends at the same instant */
}

static void meta(ps_buf *b, int *first, const char *what, int pid, int tid, const char *name) {
  ps_buf_printf(b, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", *first ? "" : ",",
                what, pid, tid);
  ps_buf_json_str(b, name);
  ps_buf_append(b, "}}", 2);
  *first = 0;
}

static void track_name(char *out, size_t n, int track, int lane) {
  char base[64];
  if (track == 1) snprintf(base, sizeof base, "GPU phases (all workers)");
  else if (track == 2) snprintf(base, sizeof base, "kernels");
  else if (track == 3) snprintf(base, sizeof base, "memcpys");
  else snprintf(base, sizeof base, "worker %d %s", (track - 10) / 3, (track - 10) % 3 == 0 ? "cpu" : (track - 10) % 3 == 1 ? "gpu" : "mutex");
  if (lane) snprintf(out, n, "%s (lane %d)", base, lane + 1);
  else snprintf(out, n, "%s", base);
}

/* Renders the document into b; with f, b is written to f whenever it passes 1 MiB (and
 * at the end), so the output needs no memory of its own. Returns 0, or errno of a failed
 * write. */
static int render(trace *t, ps_buf *b, FILE *f) {
  int first = 1, err = 0;
#define TRACE_FLUSH()                                                                          \
  do {                                                                                         \
    if (f && b->len > (1u << 20)) {                                                            \
      if (!err && fwrite(b->p, 1, b->len, f) != b->len) err = errno ? errno : EIO;             \
      b->len = 0;                                                                              \
    }                                                                                          \
  } while (0)
  char nm[96];
  /* The slices: every span with finite times on its own track, plus a copy of each GPU
   * phase on the GPU's track. */
  slice *sl = xmalloc((2 * t->n + 1) * sizeof *sl);
  size_t ns = 0;
  for (size_t i = 0; i < t->n; i++) {
    const tspan *s = &t->s[i];
    if (!isfinite(s->t0) || !isfinite(s->t1) || fabs(s->t0) > 9e9 || fabs(s->t1) > 9e9) continue;
    long long a = ns_of(s->t0), z = ns_of(s->t1);
    if (z < a) z = a;
    sl[ns++] = (slice){s, s->gpu + 1, track_of(s), 0, a, z, 0};
    if (s->kind == 1) sl[ns++] = (slice){s, s->gpu + 1, 1, 0, a, z, 1};
  }
  if (ns) qsort(sl, ns, sizeof *sl, slice_cmp);
  /* Lanes: in start order, each slice goes to the first lane of its track that is free
   * (a slice that ends no later than the lane's last also nests, but a separate lane keeps
   * every track flat). */
  long long lane_end[TRACE_MAX_LANES];
  for (size_t i = 0; i < ns;) {
    size_t j = i;
    int nl = 0;
    while (j < ns && sl[j].pid == sl[i].pid && sl[j].track == sl[i].track) {
      int l = 0;
      while (l < nl && lane_end[l] > sl[j].t0) l++;
      if (l == TRACE_MAX_LANES) l = TRACE_MAX_LANES - 1; /* beyond this, Perfetto nests them */
      if (l == nl) {
        nl++;
        lane_end[l] = sl[j].t1;
      } else if (sl[j].t1 > lane_end[l]) {
        lane_end[l] = sl[j].t1;
      }
      sl[j].tid = sl[j].track + LANE * l;
      j++;
    }
    i = j;
  }
  ps_buf_printf(b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
  for (int g = 0; g <= t->maxgpu; g++) {
    snprintf(nm, sizeof nm, "GPU %d", g);
    meta(b, &first, "process_name", g + 1, 0, nm);
  }
  /* Thread names, once per (pid, tid) used, in the sorted order. */
  for (size_t i = 0; i < ns; i++) {
    int seen = 0;
    for (size_t k = i; k-- > 0 && sl[k].pid == sl[i].pid && sl[k].track == sl[i].track;)
      if (sl[k].tid == sl[i].tid) {
        seen = 1;
        break;
      }
    if (seen) continue;
    track_name(nm, sizeof nm, sl[i].track, sl[i].tid / LANE);
    meta(b, &first, "thread_name", sl[i].pid, sl[i].tid, nm);
  }
  static const char *cats[] = {"cpu", "gpu", "mutex", "kernel", "memcpy"};
  for (size_t i = 0; i < ns; i++) {
    const slice *x = &sl[i];
    ps_buf_printf(b, ",\n{\"ph\":\"X\",\"name\":");
    ps_buf_json_str(b, strtab_name(&t->names, (int)x->s->name));
    ps_buf_printf(b, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d", cats[x->s->kind], x->pid, x->tid);
    put_us(b, "ts", x->t0);
    put_us(b, "dur", x->t1 - x->t0);
    if (x->copy && x->s->cpu_s > 0)
      ps_buf_printf(b, ",\"args\":{\"worker\":%d,\"cpu_s\":%.6f}", x->s->worker, (double)x->s->cpu_s);
    else if (x->copy)
      ps_buf_printf(b, ",\"args\":{\"worker\":%d}", x->s->worker);
    else if (x->s->cpu_s > 0)
      ps_buf_printf(b, ",\"args\":{\"cpu_s\":%.6f}", (double)x->s->cpu_s);
    ps_buf_append(b, "}", 1);
    TRACE_FLUSH();
  }
  /* Counter track: GPU busy, from kernels when there are any, else from GPU phases. */
  for (int g = 0; g <= t->maxgpu; g++) {
    int have_kernels = 0;
    for (size_t i = 0; i < ns; i++)
      if (sl[i].pid == g + 1 && sl[i].s->kind == 3) have_kernels = 1;
    int want = have_kernels ? 3 : 1;
    edge *e = NULL;
    size_t ne = 0;
    for (size_t i = 0; i < ns; i++)
      if (sl[i].pid == g + 1 && sl[i].s->kind == want && !sl[i].copy) {
        e = xrealloc(e, (ne + 2) * sizeof *e);
        e[ne++] = (edge){sl[i].t0, +1};
        e[ne++] = (edge){sl[i].t1, -1};
      }
    if (ne) qsort(e, ne, sizeof *e, edge_cmp); /* e is NULL when this GPU has none */
    int depth = 0, was = -1;
    for (size_t i = 0; i < ne; i++) {
      depth += e[i].d;
      int busy = depth > 0;
      if (busy != was && (i + 1 == ne || e[i + 1].t != e[i].t)) {
        ps_buf_printf(b, ",\n{\"ph\":\"C\",\"name\":\"GPU busy\",\"pid\":%d", g + 1);
        put_us(b, "ts", e[i].t);
        ps_buf_printf(b, ",\"args\":{\"busy\":%d}}", busy);
        was = busy;
        TRACE_FLUSH();
      }
    }
    free(e);
  }
  ps_buf_printf(b, "\n]}\n");
  free(sl);
  if (f && b->len) {
    if (!err && fwrite(b->p, 1, b->len, f) != b->len) err = errno ? errno : EIO;
    b->len = 0;
  }
#undef TRACE_FLUSH
  return err;
}

void trace_render(trace *t, ps_buf *b) { (void)render(t, b, NULL); }

int trace_write(trace *t, const char *out_path, ps_err *e) {
  ps_outfile o;
  if (ps_out_open(&o, out_path, e) != PS_OK) return PS_ERR;
  ps_buf b = {0};
  int err = render(t, &b, o.f);
  ps_buf_free(&b);
  if (err) {
    ps_out_abort(&o);
    return ps_fail(e, PS_ERR, "%s: cannot write: %s", out_path, strerror(err));
  }
  return ps_out_commit(&o, e);
}

static int add_cb(void *ctx, const span_rec *r) {
  trace_add(ctx, r);
  return 0;
}

int trace_convert(const char *spans_path, const char *out_path, trace *t, ps_err *e) {
  int rc = spans_read(spans_path, NULL, add_cb, t, e);
  if (rc == PS_OK && t->n == 0)
    rc = ps_fail(e, PS_EINPUT, "%s: no spans of replication %d%s", spans_path, t->rep,
                 isinf(t->from) && isinf(t->to) ? "" : " in the window --from/--to");
  if (rc == PS_OK) rc = trace_write(t, out_path, e);
  return rc;
}
