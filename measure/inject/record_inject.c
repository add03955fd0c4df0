/* The CUPTI injection library behind `provesim record` (libprovesim_record.so). CUDA loads
 * it into an unmodified program when CUDA_INJECTION64_PATH names it, the documented way
 * profilers attach, and calls InitializeInjection at the program's first CUDA call. It then
 * records, with CUPTI's activity API:
 *   - every kernel and memcpy, with its device and stream, and the thread that launched
 *     it (worker = the thread's index in order of appearance, -1 when not known): a
 *     callback on every CUDA runtime and driver call notes its correlation id and thread
 *     in a table of the last 2^20 calls (8 MiB), and the kernel's record is looked up
 *     there (no thread when another tool already subscribed to CUPTI's callbacks);
 *   - NVTX push/pop and start/end ranges, where the program has them, as phase spans named
 *     like the range on the thread that opened it (worker = the thread's index in order
 *     of first range). The recorder sets NVTX_INJECTION64_PATH to this library too, and
 *     InitializeInjectionNvtx2 hands NVTX to the copy of CUPTI this library runs with
 *     (a program such as PyTorch may have loaded its own);
 * and writes them as provesim.spans/1 to $PROVESIM_RECORD_OUT: times in seconds from the
 * library's start, taken from CLOCK_MONOTONIC, with that start in the header
 * ("t0_monotonic") so the recorder can cut its window. CUPTI hands over full buffers (8 MiB
 * each) at least every 500 ms and at exit; each is written out and freed, so memory stays
 * bounded by the buffers in flight. $PROVESIM_RECORD_DURATION (seconds) stops recording
 * after that long: everything is flushed, activity is disabled, the file is closed, and the
 * program runs on untouched.
 *
 * Nothing here may disturb the program: errors go to stderr once, prefixed, and turn the
 * recording off; they never exit or abort. Only the two entry points are exported. */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cupti_names.h"
#include "spans.h"
#include "util.h"

#define EXPORT __attribute__((visibility("default")))
#define BUF_BYTES (8u << 20)
#define MAX_OPEN 4096    /* NVTX ranges open at once; more are dropped (counted) */
#define MAX_THREADS 4096 /* threads with NVTX ranges */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static int active;     /* recording and writing */
static uint64_t base_ns;
static ps_buf wbuf;
static long dropped;

typedef struct open_range {
  uint32_t id;
  uint32_t tid;
  uint64_t t0;
  char *name;
} open_range;
static open_range open_r[MAX_OPEN];
static int nopen;
static uint32_t threads[MAX_THREADS];
static int nthreads;

/* Correlation id -> launching thread, for the last calls: one 64-bit word per slot
 * (id << 32 | thread), written by the calling threads and read by CUPTI's. */
#define CORR_BITS 20
static uint64_t *corr_tab;
static CUpti_SubscriberHandle subscriber;
static long launched_known, launched_unknown;

static void CUPTIAPI on_api(void *u, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *cbdata) {
  (void)u, (void)dom, (void)cbid;
  const CUpti_CallbackData *d = cbdata;
  if (!corr_tab || d->callbackSite != CUPTI_API_ENTER || !d->correlationId) return;
  uint32_t i = (d->correlationId * 2654435761u) >> (32 - CORR_BITS);
  __atomic_store_n(&corr_tab[i], (uint64_t)d->correlationId << 32 | (uint32_t)syscall(SYS_gettid), __ATOMIC_RELAXED);
}

static int thread_index(uint32_t tid);

/* The launching thread's index, or -1 (mu held). */
static int corr_thread(uint32_t corr) {
  if (!corr_tab || !corr) return -1;
  uint64_t v = __atomic_load_n(&corr_tab[(corr * 2654435761u) >> (32 - CORR_BITS)], __ATOMIC_RELAXED);
  if ((uint32_t)(v >> 32) != corr) {
    launched_unknown++;
    return -1;
  }
  launched_known++;
  return thread_index((uint32_t)v);
}

static uint64_t CUPTIAPI mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double rel(uint64_t ns) { return ns >= base_ns ? 1e-9 * (double)(ns - base_ns) : -1e-9 * (double)(base_ns - ns); }

static void warn(const char *what, CUptiResult r) {
  const char *s = "?";
  cuptiGetResultString(r, &s);
  fprintf(stderr, "provesim record: %s: %s (recording off)\n", what, s);
}

/* Write what is buffered (mu held). */
static void write_out(void) {
  if (out && wbuf.len) {
    if (fwrite(wbuf.p, 1, wbuf.len, out) != wbuf.len) {
      fprintf(stderr, "provesim record: cannot write the recording (recording off)\n");
      active = 0;
    }
  }
  wbuf.len = 0;
}

static int thread_index(uint32_t tid) {
  for (int i = 0; i < nthreads; i++)
    if (threads[i] == tid) return i;
  if (nthreads == MAX_THREADS) return MAX_THREADS - 1;
  threads[nthreads] = tid;
  return nthreads++;
}

/* An NVTX marker record (mu held): a start opens a range, its end closes it into a span. */
static void marker(const CUpti_ActivityMarker2 *m) {
  if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    if (nopen == MAX_OPEN) {
      dropped++;
      return;
    }
    open_r[nopen++] = (open_range){m->id, m->objectId.pt.threadId, m->timestamp, xstrdup(m->name ? m->name : "nvtx")};
  } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    for (int i = 0; i < nopen; i++)
      if (open_r[i].id == m->id) {
        span_rec r = {.kind = SPAN_PHASE, .rep = 0, .gpu = 0, .worker = thread_index(open_r[i].tid), .call = -1,
                      .phase = open_r[i].name, .resource = "none", .t0 = rel(open_r[i].t0), .t1 = rel(m->timestamp)};
        if (r.t1 >= r.t0) spans_format(&wbuf, &r);
        free(open_r[i].name);
        open_r[i] = open_r[--nopen];
        return;
      }
  }
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = aligned_alloc(8, BUF_BYTES);
  *size = *buffer ? BUF_BYTES : 0;
  *max_records = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  (void)ctx, (void)stream, (void)size;
  pthread_mutex_lock(&mu);
  CUpti_Activity *rec = NULL;
  while (active && buffer && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    span_rec r = {.rep = 0, .worker = -1, .call = -1};
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const CUpti_ActivityKernel10 *k = (const void *)rec;
      r.kind = SPAN_KERNEL, r.gpu = (int)k->deviceId, r.name = k->name ? k->name : "kernel";
      r.stream = (int64_t)k->streamId + 1;
      r.worker = corr_thread(k->correlationId);
      r.t0 = rel(k->start), r.t1 = rel(k->end);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const CUpti_ActivityMemcpy6 *m = (const void *)rec;
      r.kind = SPAN_MEMCPY, r.gpu = (int)m->deviceId, r.name = mcupti_copy_kind(m->copyKind);
      r.stream = (int64_t)m->streamId + 1;
      r.worker = corr_thread(m->correlationId);
      r.t0 = rel(m->start), r.t1 = rel(m->end);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MARKER) {
      marker((const void *)rec);
      continue;
    } else {
      continue;
    }
    if (r.gpu < 0 || r.gpu >= PS_MAX_GPUS || !(r.t1 >= r.t0)) continue;
    spans_format(&wbuf, &r);
    if (wbuf.len > (1u << 20)) write_out();
  }
  write_out();
  if (out) fflush(out);
  pthread_mutex_unlock(&mu);
  free(buffer);
}

static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                           CUPTI_ACTIVITY_KIND_MARKER};

/* Flush everything, stop recording and close the file: at exit, or after the duration. */
static void finish(void) {
  pthread_mutex_lock(&mu);
  int was = active && out;
  pthread_mutex_unlock(&mu);
  if (!was) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) cuptiActivityDisable(kinds[i]);
  pthread_mutex_lock(&mu);
  write_out();
  if (dropped) fprintf(stderr, "provesim record: %ld NVTX ranges dropped (more than %d open at once)\n", dropped, MAX_OPEN);
  if (launched_unknown && launched_known)
    fprintf(stderr, "provesim record: %ld of %ld kernels and memcpys without their launching thread\n", launched_unknown,
            launched_known + launched_unknown);
  if (out) fclose(out);
  out = NULL;
  active = 0;
  pthread_mutex_unlock(&mu);
}

static void *stopper(void *p) {
  double s = *(double *)p;
  free(p);
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
  finish();
  return NULL;
}

/* NVTX's injection entry point, forwarded to the CUPTI this library is bound to. */
EXPORT int InitializeInjectionNvtx2(const void *get_export_table) {
  Dl_info info;
  if (!dladdr((void *)cuptiGetVersion, &info) || !info.dli_fname) return 0;
  void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (!h) return 0;
  int (*fn)(const void *);
  *(void **)&fn = dlsym(h, "InitializeInjectionNvtx2");
  int r = fn ? fn(get_export_table) : 0;
  dlclose(h);
  return r;
}

EXPORT int InitializeInjection(void) {
  const char *path = getenv("PROVESIM_RECORD_OUT");
  if (!path || !*path) return 1; /* loaded without the recorder: do nothing */
  out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "provesim record: cannot open %s (recording off)\n", path);
    return 1;
  }
  CUptiResult r;
  if ((r = cuptiActivityRegisterTimestampCallback(mono_ns)) != CUPTI_SUCCESS) {
    warn("cuptiActivityRegisterTimestampCallback", r);
    fclose(out), out = NULL;
    return 1;
  }
  base_ns = mono_ns();
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const char *name = getenv("PROVESIM_RECORD_NAME");
  span_header h = {.source = "record", .scenario = name ? name : "", .host = host,
                   .t0_monotonic = 1e-9 * (double)base_ns};
  spans_format_header(&wbuf, &h);
  if ((r = cuptiActivityRegisterCallbacks(buf_requested, buf_completed)) != CUPTI_SUCCESS) {
    warn("cuptiActivityRegisterCallbacks", r);
    fclose(out), out = NULL;
    return 1;
  }
  /* The launching threads: a callback on every runtime and driver call (skipped when
   * another tool has CUPTI's callbacks). */
  corr_tab = calloc((size_t)1 << CORR_BITS, sizeof *corr_tab);
  if (corr_tab && cuptiSubscribe(&subscriber, on_api, NULL) == CUPTI_SUCCESS) {
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  } else {
    free(corr_tab);
    corr_tab = NULL;
  }
  active = 1;
  write_out();
  fflush(out);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if ((r = cuptiActivityEnable(kinds[i])) != CUPTI_SUCCESS && kinds[i] != CUPTI_ACTIVITY_KIND_MARKER) {
      warn("cuptiActivityEnable", r);
      active = 0;
      return 1;
    }
  cuptiActivityFlushPeriod(500);
  atexit(finish);
  const char *d = getenv("PROVESIM_RECORD_DURATION");
  if (d && *d) {
    double *s = malloc(sizeof *s);
    pthread_t t;
    if (s && (*s = strtod(d, NULL)) > 0 && pthread_create(&t, NULL, stopper, s) == 0) pthread_detach(t);
    else free(s);
  }
  return 1;
}
