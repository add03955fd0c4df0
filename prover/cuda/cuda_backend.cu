/* The CUDA backend's device handle: opening a GPU (with a clear failure when there is
 * none), memory accounting that names what did not fit and keeps the peak in use, device
 * time of an operation (psc_mark), pinned host memory, reusable work buffers, and the
 * field-multiplication rate measurement of prover-bench. */
#include <stdlib.h>
#include <string.h>

#include "ps_field.cuh"
#include "psc_int.cuh"
#include "psc_keygen.h"
extern "C" {
#include "../tune.h"
}

/* ---- the peak of device memory in use, per GPU, for prove's report ---- */
#define PSC_MAX_GPUS 64
static size_t mem_peak[PSC_MAX_GPUS];

/* Samples total - free on d's GPU and raises the peak. */
static void mem_sample(psc_dev *d) {
  size_t f = 0, t = 0;
  if (d->ordinal < 0 || d->ordinal >= PSC_MAX_GPUS) return;
  psc_mem_info(d, &f, &t);
  size_t used = t - f, old = __atomic_load_n(&mem_peak[d->ordinal], __ATOMIC_RELAXED);
  while (used > old && !__atomic_compare_exchange_n(&mem_peak[d->ordinal], &old, used, 0, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {
  }
}

extern "C" size_t psc_mem_peak(psc_dev *d) {
  mem_sample(d);
  return d->ordinal >= 0 && d->ordinal < PSC_MAX_GPUS ? __atomic_load_n(&mem_peak[d->ordinal], __ATOMIC_RELAXED) : 0;
}

/* ---- device time of one operation ---- */
struct psc_mark {
  psc_dev *d;
  cudaEvent_t a, b;
};

extern "C" psc_mark *psc_mark_begin(psc_dev *d) {
  psc_mark *m = (psc_mark *)xcalloc(1, sizeof *m);
  m->d = d;
  if (cudaSetDevice(d->ordinal) != cudaSuccess || cudaEventCreate(&m->a) != cudaSuccess ||
      cudaEventCreate(&m->b) != cudaSuccess || cudaEventRecord(m->a, d->stream) != cudaSuccess) {
    cudaGetLastError();
    if (m->a) cudaEventDestroy(m->a);
    if (m->b) cudaEventDestroy(m->b);
    m->a = m->b = NULL;
  }
  return m;
}

extern "C" double psc_mark_end(psc_mark *m) {
  float ms = 0;
  if (!m) return 0;
  if (m->a && (cudaEventRecord(m->b, m->d->stream) != cudaSuccess || cudaEventSynchronize(m->b) != cudaSuccess ||
               cudaEventElapsedTime(&ms, m->a, m->b) != cudaSuccess)) {
    cudaGetLastError();
    ms = 0;
  }
  mem_sample(m->d);
  if (m->a) cudaEventDestroy(m->a);
  if (m->b) cudaEventDestroy(m->b);
  free(m);
  return ms * 1e-3;
}

/* How a host thread waits for the GPU (PSC_CUDA_SYNC, ps_tune's cuda_sync): auto (CUDA's
 * default, which spins while the process has fewer contexts than cores), spin, yield or
 * block. A spinning waiter holds a core for as long as its kernels run; block frees it. */
static const unsigned psc_sync_flags[] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                                          cudaDeviceScheduleBlockingSync};

/* PSC_CUDA_LMEM=early's local memory a thread: above the most any kernel spills (ptxas, CUDA
 * 13.0, sm_90: G2's segment_sum 4,504 bytes of spill stores), 8 KiB x 2048 threads x 132
 * SMs = 2.2 GB on an H200 */
#define PSC_LMEM_EARLY_BYTES 8192

extern "C" int psc_open(int ordinal, psc_dev **out, ps_err *e) {
  int rc = PS_OK, count = 0;
  psc_dev *d = NULL;
  cudaDeviceProp prop;
  *out = NULL;
  ps_tune tune;
  /* Bad input first, whether or not a GPU is there: every tuning variable (tune.h). */
  if ((rc = ps_tune_read(&tune, e)) != PS_OK) return rc;
  const unsigned sync = psc_sync_flags[tune.cuda_sync];
  cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0) {
    cudaGetLastError();
    return ps_fail(e, PS_ERR,
                   "cuda backend: no usable NVIDIA GPU (%s); run on a machine with a GPU and "
                   "driver, or use --backend cpu",
                   ce != cudaSuccess ? cudaGetErrorString(ce) : "the driver reports 0 devices");
  }
  if (ordinal < 0 || ordinal >= count)
    return ps_fail(e, PS_EINPUT, "cuda backend: GPU %d requested, but %d GPU(s) present", ordinal, count);
  d = (psc_dev *)xcalloc(1, sizeof *d);
  d->ordinal = ordinal;
  PSC_CHECK(cudaSetDevice(ordinal));
  if (sync != cudaDeviceScheduleAuto || tune.cuda_lmem == 2)
    PSC_CHECK(cudaSetDeviceFlags(sync | (tune.cuda_lmem == 2 ? cudaDeviceLmemResizeToMax : 0u)));
  /* PSC_CUDA_LMEM=early: the local memory of every thread the GPU can hold, allocated now,
   * before this device's buffers, instead of where it lands at the first spilling launch
   * (a probe of b_g2's two modes by process, docs/validation-sessions.md) */
  if (tune.cuda_lmem == 1) PSC_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, PSC_LMEM_EARLY_BYTES));
  PSC_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  snprintf(d->name, sizeof d->name, "%s", prop.name);
  d->sm_count = prop.multiProcessorCount;
  PSC_CHECK(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
  PSC_CHECK(cudaStreamCreateWithFlags(&d->copy_stream, cudaStreamNonBlocking));
  *out = d;
  return PS_OK;
fail:
  psc_close(d); /* the stream made, if any */
  return rc;
}

extern "C" void psc_close(psc_dev *d) {
  if (!d) return;
  cudaSetDevice(d->ordinal);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 32; j++) {
      cudaFree(d->tw[i][j]);
      cudaFree(d->tw52[i][j]);
      cudaFree(d->pw_lo[i][j]);
      cudaFree(d->pw_hi[i][j]);
    }
  for (int i = 0; i < PSC_WS_SLOTS; i++) cudaFree(d->ws[i]);
  if (d->stream) cudaStreamDestroy(d->stream);
  if (d->copy_stream) cudaStreamDestroy(d->copy_stream);
  if (d->hwin) cudaFreeHost(d->hwin);
  free(d);
}

extern "C" const char *psc_name(const psc_dev *d) { return d->name; }

extern "C" void psc_mem_info(psc_dev *d, size_t *free_b, size_t *total_b) {
  size_t f = 0, t = 0;
  cudaSetDevice(d->ordinal);
  if (cudaMemGetInfo(&f, &t) != cudaSuccess) cudaGetLastError();
  *free_b = f;
  *total_b = t;
}

int psc__alloc(psc_dev *d, void **p, size_t bytes, const char *what, ps_err *e) {
  size_t f = 0, t = 0;
  *p = NULL;
  if (bytes == 0) bytes = 1;
  cudaError_t ce = cudaMalloc(p, bytes);
  if (ce == cudaSuccess) {
    mem_sample(d);
    return PS_OK;
  }
  cudaGetLastError();
  *p = NULL;
  psc_mem_info(d, &f, &t);
  return ps_fail(e, PS_ERR,
                 "cuda backend: %s needs %.1f MiB of GPU memory, but only %.1f MiB of %.1f MiB "
                 "are free on %s (%s); use a smaller size or --backend cpu",
                 what, bytes / 1048576.0, f / 1048576.0, t / 1048576.0, d->name, cudaGetErrorString(ce));
}

int psc__ws(psc_dev *d, int slot, size_t bytes, const char *what, void **p, ps_err *e) {
  int rc;
  if (d->ws_cap[slot] >= bytes && d->ws[slot]) {
    *p = d->ws[slot];
    return PS_OK;
  }
  cudaFree(d->ws[slot]);
  d->ws[slot] = NULL;
  d->ws_cap[slot] = 0;
  if ((rc = psc__alloc(d, &d->ws[slot], bytes, what, e))) return rc;
  d->ws_cap[slot] = bytes;
  *p = d->ws[slot];
  return PS_OK;
}

extern "C" int psc_vec_upload(psc_dev *d, psc_vec **v, const fr_t *host, size_t n, ps_err *e) {
  int rc = PS_OK;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if (!*v) {
    *v = (psc_vec *)xcalloc(1, sizeof **v);
    (*v)->d = d;
  }
  if ((*v)->cap < n) {
    cudaFree((*v)->p);
    (*v)->p = NULL;
    (*v)->cap = 0;
    if ((rc = psc__alloc(d, (void **)&(*v)->p, n * sizeof(fr_t), "device vector", e))) return rc;
    (*v)->cap = n;
  }
  psc_vec_gen_bump(*v);
  PSC_CHECK(cudaMemcpyAsync((*v)->p, host, n * sizeof(fr_t), cudaMemcpyHostToDevice, d->copy_stream));
  PSC_CHECK(cudaStreamSynchronize(d->copy_stream));
fail:
  return rc;
}

void psc_vec_gen_bump(psc_vec *v) {
  static uint64_t last; /* shared by every vector of the process */
  v->gen = __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

extern "C" void psc_vec_free(psc_vec *v) {
  if (!v) return;
  cudaSetDevice(v->d->ordinal);
  cudaFree(v->p);
  free(v);
}

extern "C" void *psc_host_alloc(size_t bytes, int *pinned) {
  void *p = NULL;
  if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocDefault) == cudaSuccess) {
    *pinned = 1;
    return p;
  }
  cudaGetLastError();
  *pinned = 0;
  return xmalloc(bytes ? bytes : 1);
}

extern "C" void psc_host_free(void *p, int pinned) {
  if (!p) return;
  if (pinned)
    cudaFreeHost(p);
  else
    free(p);
}

/* ---- field multiplication rate ---- */
#define FB_ITERS 256
#define FB_CHAINS 4

__global__ void bench_fr_mul(fr_t *out, uint32_t seed) {
  fr_t x[FB_CHAINS], y = c_fr_one;
  y.v[0] ^= seed;
  for (int c = 0; c < FB_CHAINS; c++) {
    x[c] = c_fr_one;
    x[c].v[0] += threadIdx.x + c + blockIdx.x;
  }
  for (int i = 0; i < FB_ITERS; i++)
#pragma unroll
    for (int c = 0; c < FB_CHAINS; c++) fr_mul_d(&x[c], &x[c], &y);
  fr_t s = x[0];
  for (int c = 1; c < FB_CHAINS; c++) fr_add_d(&s, &s, &x[c]);
  if (fr_is_zero_d(&s)) out[0] = s; /* keeps the work alive */
}

__global__ void bench_fp_mul(fp_t *out, uint32_t seed) {
  fp_t x[FB_CHAINS], y = c_fp_one;
  y.v[0] ^= seed;
  for (int c = 0; c < FB_CHAINS; c++) {
    x[c] = c_fp_one;
    x[c].v[0] += threadIdx.x + c + blockIdx.x;
  }
  for (int i = 0; i < FB_ITERS; i++)
#pragma unroll
    for (int c = 0; c < FB_CHAINS; c++) fp_mul_d(&x[c], &x[c], &y);
  fp_t s = x[0];
  for (int c = 1; c < FB_CHAINS; c++) fp_add_d(&s, &s, &x[c]);
  if (fp_is_zero_d(&s)) out[0] = s;
}

/* Fp squarings, x = x^2 in each chain (fp_sqr_d, the sequence the curve formulas use). */
__global__ void bench_fp_sqr(fp_t *out, uint32_t seed) {
  fp_t x[FB_CHAINS];
  for (int c = 0; c < FB_CHAINS; c++) {
    x[c] = c_fp_one;
    x[c].v[0] += threadIdx.x + c + blockIdx.x + seed;
  }
  for (int i = 0; i < FB_ITERS; i++)
#pragma unroll
    for (int c = 0; c < FB_CHAINS; c++) fp_sqr_d(&x[c], &x[c]);
  fp_t s = x[0];
  for (int c = 1; c < FB_CHAINS; c++) fp_add_d(&s, &s, &x[c]);
  if (fp_is_zero_d(&s)) out[0] = s;
}

extern "C" int psc_bench_field(psc_dev *d, int fp, double *mults_per_s, ps_err *e) {
  int rc = PS_OK;
  void *out = NULL;
  cudaEvent_t ev0 = NULL, ev1 = NULL;
  unsigned threads = 256, blocks = (unsigned)d->sm_count * 16;
  float best = 1e30f;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if ((rc = psc__alloc(d, &out, sizeof(fp_t), "field benchmark", e))) return rc;
  PSC_CHECK(cudaEventCreate(&ev0));
  PSC_CHECK(cudaEventCreate(&ev1));
  for (int r = 0; r < 4; r++) {
    float t;
    PSC_CHECK(cudaEventRecord(ev0, d->stream));
    if (fp == 2)
      bench_fp_sqr<<<blocks, threads, 0, d->stream>>>((fp_t *)out, 12345u + r);
    else if (fp)
      bench_fp_mul<<<blocks, threads, 0, d->stream>>>((fp_t *)out, 12345u + r);
    else
      bench_fr_mul<<<blocks, threads, 0, d->stream>>>((fr_t *)out, 12345u + r);
    PSC_CHECK_LAUNCH();
    PSC_CHECK(cudaEventRecord(ev1, d->stream));
    PSC_CHECK(cudaEventSynchronize(ev1));
    PSC_CHECK(cudaEventElapsedTime(&t, ev0, ev1));
    if (r > 0 && t < best) best = t; /* the first run is the warm-up */
  }
  *mults_per_s = (double)blocks * threads * FB_ITERS * FB_CHAINS / (best * 1e-3);
fail:
  if (ev0) cudaEventDestroy(ev0);
  if (ev1) cudaEventDestroy(ev1);
  cudaFree(out);
  return rc;
}
