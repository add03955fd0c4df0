/* The CUDA side of measurement (measure_exec.h): device discovery and memory, the
 * synthetic executor's spin kernel, CUDA events (the fallback clock for kernels), and
 * CUPTI activity records on the ps_now() clock. Plain C over the CUDA runtime; the spin
 * kernel is a few lines of PTX loaded through the driver API, which is dlopen'ed so the
 * binary still starts on machines without a driver. Without CUDA in the build, every
 * function says so and suggests --backend cpu. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure_exec.h"

#ifdef PROVESIM_HAVE_CUDA

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include "window.h"

#define CUDA_TRY(call)                                                                                   \
  do {                                                                                                   \
    cudaError_t err_ = (call);                                                                           \
    if (err_ != cudaSuccess)                                                                             \
      return ps_fail(e, PS_ERR, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(err_));   \
  } while (0)

int mcuda_device_count(int *n, ps_err *e) {
  int c = 0;
  cudaError_t err = cudaGetDeviceCount(&c);
  if (err != cudaSuccess || c == 0)
    return ps_fail(e, PS_ERR,
                   "no usable GPU for --backend cuda (%s); run with --backend cpu to measure on the CPU backend",
                   err != cudaSuccess ? cudaGetErrorString(err) : "the CUDA runtime sees 0 devices");
  *n = c;
  return PS_OK;
}

int mcuda_device_info(int dev, char *name, size_t nname, char *pci, size_t npci, size_t *free_b, size_t *total_b,
                      ps_err *e) {
  struct cudaDeviceProp prop;
  CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
  snprintf(name, nname, "%s", prop.name);
  CUDA_TRY(cudaDeviceGetPCIBusId(pci, (int)npci, dev));
  CUDA_TRY(cudaSetDevice(dev));
  CUDA_TRY(cudaMemGetInfo(free_b, total_b));
  return PS_OK;
}

int mcuda_sync(int dev, ps_err *e) {
  CUDA_TRY(cudaSetDevice(dev));
  CUDA_TRY(cudaDeviceSynchronize());
  return PS_OK;
}

/* ---- The spin kernel: one warp reads %globaltimer (ns) until the duration has passed.
 * %globaltimer rather than clock64: clock64 counts SM cycles at a clock that moves with
 * load and power, and CUDA 13 no longer reports the clock rate; the global timer is in
 * nanoseconds whatever the clock does. */
static const char spin_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry provesim_spin(.param .u64 provesim_spin_param_0)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [provesim_spin_param_0];\n"
    "  mov.u64 %rd2, %globaltimer;\n"
    "  add.s64 %rd3, %rd2, %rd1;\n"
    "$L_spin:\n"
    "  mov.u64 %rd4, %globaltimer;\n"
    "  setp.lt.u64 %p1, %rd4, %rd3;\n"
    "  @%p1 bra $L_spin;\n"
    "  ret;\n"
    "}\n";

typedef int cu_result;
typedef void *cu_module;
typedef void *cu_function;
static struct {
  pthread_mutex_t mu;
  int loaded;
  void *lib;
  cu_result (*module_load_data)(cu_module *, const void *);
  cu_result (*module_get_function)(cu_function *, cu_module, const char *);
  cu_result (*launch_kernel)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                             void **, void **);
  cu_result (*get_error_string)(cu_result, const char **);
  cu_function fn[PS_MAX_GPUS]; /* per device */
} drv = {.mu = PTHREAD_MUTEX_INITIALIZER};

static const char *drv_err(cu_result r) {
  const char *s = NULL;
  if (drv.get_error_string) drv.get_error_string(r, &s);
  return s ? s : "unknown driver error";
}

/* The spin function on device dev (the caller has made dev current). */
static int spin_function(int dev, cu_function *out, ps_err *e) {
  pthread_mutex_lock(&drv.mu);
  int rc = PS_OK;
  if (!drv.loaded) {
    drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv.lib) {
      rc = ps_fail(e, PS_ERR, "cannot load the CUDA driver (libcuda.so.1): %s", dlerror());
      goto out;
    }
    *(void **)&drv.module_load_data = dlsym(drv.lib, "cuModuleLoadData");
    *(void **)&drv.module_get_function = dlsym(drv.lib, "cuModuleGetFunction");
    *(void **)&drv.launch_kernel = dlsym(drv.lib, "cuLaunchKernel");
    *(void **)&drv.get_error_string = dlsym(drv.lib, "cuGetErrorString");
    if (!drv.module_load_data || !drv.module_get_function || !drv.launch_kernel) {
      rc = ps_fail(e, PS_ERR, "the CUDA driver lacks cuModuleLoadData/cuModuleGetFunction/cuLaunchKernel");
      goto out;
    }
    drv.loaded = 1;
  }
  if (dev < 0 || dev >= PS_MAX_GPUS) {
    rc = ps_fail(e, PS_ERR, "GPU %d: at most %d GPUs", dev, PS_MAX_GPUS);
    goto out;
  }
  if (!drv.fn[dev]) {
    cu_module mod;
    cu_result r = drv.module_load_data(&mod, spin_ptx);
    if (r != 0) {
      rc = ps_fail(e, PS_ERR, "GPU %d: loading the spin kernel (cuModuleLoadData): %s", dev, drv_err(r));
      goto out;
    }
    r = drv.module_get_function(&drv.fn[dev], mod, "provesim_spin");
    if (r != 0) {
      rc = ps_fail(e, PS_ERR, "GPU %d: cuModuleGetFunction(provesim_spin): %s", dev, drv_err(r));
      goto out;
    }
  }
  *out = drv.fn[dev];
out:
  pthread_mutex_unlock(&drv.mu);
  return rc;
}

struct mcuda_spin {
  int dev;
  cudaStream_t stream;
  cudaEvent_t ref, e0, e1;
  double ref_host;
  cu_function fn;
};

int mcuda_spin_open(int dev, mcuda_spin **out, ps_err *e) {
  CUDA_TRY(cudaSetDevice(dev));
  CUDA_TRY(cudaFree(0)); /* makes the primary context current for the driver API */
  cu_function fn = NULL;
  int rc = spin_function(dev, &fn, e);
  if (rc != PS_OK) return rc;
  mcuda_spin *s = xcalloc(1, sizeof *s);
  s->dev = dev;
  s->fn = fn;
  cudaError_t err;
  if ((err = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) != cudaSuccess ||
      (err = cudaEventCreate(&s->ref)) != cudaSuccess || (err = cudaEventCreate(&s->e0)) != cudaSuccess ||
      (err = cudaEventCreate(&s->e1)) != cudaSuccess || (err = cudaEventRecord(s->ref, s->stream)) != cudaSuccess ||
      (err = cudaEventSynchronize(s->ref)) != cudaSuccess) {
    free(s);
    return ps_fail(e, PS_ERR, "GPU %d: stream and events for the spin kernel: %s", dev, cudaGetErrorString(err));
  }
  s->ref_host = ps_now();
  *out = s;
  return PS_OK;
}

int mcuda_spin_run(mcuda_spin *s, double seconds, int events, double *k0, double *k1, ps_err *e) {
  CUDA_TRY(cudaSetDevice(s->dev));
  unsigned long long ns = seconds > 0 ? (unsigned long long)(seconds * 1e9) : 0;
  void *params[] = {&ns};
  if (events) CUDA_TRY(cudaEventRecord(s->e0, s->stream));
  cu_result r = drv.launch_kernel(s->fn, 1, 1, 1, 32, 1, 1, 0, (void *)s->stream, params, NULL);
  if (r != 0) return ps_fail(e, PS_ERR, "GPU %d: launching the spin kernel: %s", s->dev, drv_err(r));
  if (events) CUDA_TRY(cudaEventRecord(s->e1, s->stream));
  CUDA_TRY(cudaStreamSynchronize(s->stream));
  *k0 = *k1 = 0;
  if (events) {
    float a, b;
    CUDA_TRY(cudaEventElapsedTime(&a, s->ref, s->e0));
    CUDA_TRY(cudaEventElapsedTime(&b, s->ref, s->e1));
    *k0 = s->ref_host + 1e-3 * a;
    *k1 = s->ref_host + 1e-3 * b;
  }
  return PS_OK;
}

void mcuda_spin_close(mcuda_spin *s) {
  if (!s) return;
  cudaSetDevice(s->dev);
  cudaStreamSynchronize(s->stream);
  cudaEventDestroy(s->ref);
  cudaEventDestroy(s->e0);
  cudaEventDestroy(s->e1);
  cudaStreamDestroy(s->stream);
  free(s);
}

/* ---- CUPTI ---- */

#ifdef PROVESIM_HAVE_CUPTI
#include <cupti.h>
#include "cupti_names.h"

static mdev_sink cupti_sink;
static void *cupti_ctx;
static double cupti_offset; /* seconds added to CUPTI time to get ps_now() time */
static int cupti_started;

static uint64_t CUPTIAPI mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CUPTI's activity buffers come from a pool: buffers of BUF_BYTES, touched once when made
 * and reused after CUPTI hands them back, never more than BUF_MAX, and one queue for every
 * thread (mcupti_start). A fresh buffer per
 * request let host memory creep for as long as a run measured (on an H200, 15 KB a
 * partition over 2,000 partitions: pages touched as records filled them, freed buffers the
 * allocator kept), and CUPTI hands over a buffer only when it is full, so a small buffer
 * also brings the kernel records to the folder sooner (1 MiB holds about 4,000 records, a
 * second or two of a busy H200). When all BUF_MAX are out, CUPTI gets none and drops the
 * records it cannot store; the report counts them (mcupti_dropped). */
#define BUF_BYTES ((size_t)1 << 20)
#define BUF_MAX 64
static pthread_mutex_t buf_mu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *buf_free[BUF_MAX];
static int buf_nfree, buf_made;
static unsigned long buf_dropped; /* records CUPTI could not store, from every completed buffer's queue */
static int buf_fresh;             /* mcupti_fresh_buffers: the way before the pool, for paired runs */

void mcupti_fresh_buffers(int on) {
  buf_fresh = on;
}

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
  uint8_t *b = NULL;
  if (buf_fresh) {
    *size = 8u << 20;
    *buffer = aligned_alloc(8, *size);
    *max_records = 0;
    return;
  }
  pthread_mutex_lock(&buf_mu);
  if (buf_nfree)
    b = buf_free[--buf_nfree];
  else if (buf_made < BUF_MAX && (b = aligned_alloc(64, BUF_BYTES)) != NULL) {
    memset(b, 0, BUF_BYTES); /* touched now, so the run's memory does not grow as records fill it */
    buf_made++;
  }
  pthread_mutex_unlock(&buf_mu);
  *buffer = b;
  *size = b ? BUF_BYTES : 0;
  *max_records = 0;
}

static void buf_release(CUcontext ctx, uint32_t stream, uint8_t *b) {
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
  pthread_mutex_lock(&buf_mu);
  buf_dropped += dropped;
  if (b && !buf_fresh && buf_nfree < BUF_MAX)
    buf_free[buf_nfree++] = b;
  else
    free(b); /* NULL, or a fresh buffer */
  pthread_mutex_unlock(&buf_mu);
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  CUpti_Activity *rec = NULL;
  while (buffer && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const CUpti_ActivityKernel10 *k = (const void *)rec;
      if (k->start == 0 || k->end < k->start) continue; /* incomplete (a forced flush of work in flight) */
      if (cupti_sink)
        cupti_sink(cupti_ctx, (int)k->deviceId, SPAN_KERNEL, k->name, 1e-9 * (double)k->start + cupti_offset,
                         1e-9 * (double)k->end + cupti_offset);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const CUpti_ActivityMemcpy6 *m = (const void *)rec;
      if (m->start == 0 || m->end < m->start) continue;
      if (cupti_sink)
        cupti_sink(cupti_ctx, (int)m->deviceId, SPAN_MEMCPY, mcupti_copy_kind(m->copyKind),
                         1e-9 * (double)m->start + cupti_offset, 1e-9 * (double)m->end + cupti_offset);
    }
  }
  buf_release(ctx, stream, buffer);
}

unsigned long mcupti_dropped(void) {
  pthread_mutex_lock(&buf_mu);
  unsigned long r = buf_dropped;
  pthread_mutex_unlock(&buf_mu);
  return r;
}

static const char *cupti_err(CUptiResult r) {
  const char *s = NULL;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

int mcupti_start(mdev_sink sink, void *ctx, const char **how, ps_err *e) {
  CUptiResult cr;
  cupti_sink = sink;
  cupti_ctx = ctx;
  if (!cupti_started) {
    if (cuptiActivityRegisterTimestampCallback(mono_ns) == CUPTI_SUCCESS) {
      cupti_offset = 0;
      *how = "timestamps from CLOCK_MONOTONIC through cuptiActivityRegisterTimestampCallback";
    } else {
      /* The offset from the tightest of a few bracketed readings. */
      double best = 1e9;
      for (int i = 0; i < 16; i++) {
        uint64_t c;
        double a = ps_now();
        if ((cr = cuptiGetTimestamp(&c)) != CUPTI_SUCCESS)
          return ps_fail(e, PS_ERR, "cuptiGetTimestamp: %s", cupti_err(cr));
        double b = ps_now();
        if (b - a < best) {
          best = b - a;
          cupti_offset = 0.5 * (a + b) - 1e-9 * (double)c;
        }
      }
      *how = "CUPTI clock joined to CLOCK_MONOTONIC by a measured offset";
    }
    /* One queue for every thread's records (CUPTI's default is a buffer per thread). A
     * buffer is handed over when full, so with a buffer per thread the records of a thread
     * that launches less came seconds after a busier one's: later than the folder's horizon
     * allows (runner_fold.c), and utilization read low. One queue fills in time order. */
    if (!buf_fresh) {
      uint8_t one_queue = 0;
      size_t sz = sizeof one_queue;
      if ((cr = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &sz, &one_queue)) !=
          CUPTI_SUCCESS)
        return ps_fail(e, PS_ERR, "cuptiActivitySetAttribute(PER_THREAD_ACTIVITY_BUFFER): %s", cupti_err(cr));
    }
    if ((cr = cuptiActivityRegisterCallbacks(buf_requested, buf_completed)) != CUPTI_SUCCESS)
      return ps_fail(e, PS_ERR, "cuptiActivityRegisterCallbacks: %s", cupti_err(cr));
  } else {
    *how = cupti_offset == 0 ? "timestamps from CLOCK_MONOTONIC through cuptiActivityRegisterTimestampCallback"
                             : "CUPTI clock joined to CLOCK_MONOTONIC by a measured offset";
  }
  if ((cr = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS)
    return ps_fail(e, PS_ERR, "cuptiActivityEnable(CONCURRENT_KERNEL): %s", cupti_err(cr));
  if ((cr = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY)) != CUPTI_SUCCESS) {
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    return ps_fail(e, PS_ERR, "cuptiActivityEnable(MEMCPY): %s", cupti_err(cr));
  }
  cupti_started = 1;
  return PS_OK;
}

void mcupti_flush(void) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void mcupti_flush_complete(void) {
  cuptiActivityFlushAll(0);
}

void mcupti_flush_period(unsigned ms) {
  cuptiActivityFlushPeriod(ms);
}

void mcupti_stop(void) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
  cupti_sink = NULL;
  cupti_ctx = NULL;
}

#else /* CUDA without CUPTI */

int mcupti_start(mdev_sink sink, void *ctx, const char **how, ps_err *e) {
  *how = NULL;
  return ps_fail(e, PS_ERR, "this build found no CUPTI (libcupti) at configure time");
}

void mcupti_flush(void) {}
void mcupti_flush_complete(void) {}
void mcupti_flush_period(unsigned ms) {
  (void)ms;
}
void mcupti_stop(void) {}
unsigned long mcupti_dropped(void) {
  return 0;
}
void mcupti_fresh_buffers(int on) {
  (void)on;
}

#endif

#else /* no CUDA in this build */

static int no_cuda(ps_err *e) {
  return ps_fail(e, PS_ERR,
                 "this provesim was built without CUDA (configure with -DPROVESIM_CUDA=ON where nvcc is installed); "
                 "run with --backend cpu");
}

int mcuda_device_count(int *n, ps_err *e) {
  *n = 0;
  return no_cuda(e);
}

int mcuda_device_info(int dev, char *name, size_t nname, char *pci, size_t npci, size_t *free_b, size_t *total_b,
                      ps_err *e) {
  return no_cuda(e);
}

int mcuda_sync(int dev, ps_err *e) {
  return no_cuda(e);
}

int mcuda_spin_open(int dev, mcuda_spin **out, ps_err *e) {
  *out = NULL;
  return no_cuda(e);
}

int mcuda_spin_run(mcuda_spin *s, double seconds, int events, double *k0, double *k1, ps_err *e) {
  return no_cuda(e);
}

void mcuda_spin_close(mcuda_spin *s) {
  (void)s;
}

int mcupti_start(mdev_sink sink, void *ctx, const char **how, ps_err *e) {
  *how = NULL;
  return no_cuda(e);
}

void mcupti_flush(void) {}
void mcupti_flush_complete(void) {}
void mcupti_flush_period(unsigned ms) {
  (void)ms;
}
void mcupti_stop(void) {}
unsigned long mcupti_dropped(void) {
  return 0;
}
void mcupti_fresh_buffers(int on) {
  (void)on;
}

#endif
