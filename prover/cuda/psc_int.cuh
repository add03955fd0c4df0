/* Internals shared by the CUDA backend's .cu files: the device handle's layout, the
 * CUDA error-checking macro and small launch helpers. */
#ifndef PROVESIM_PSC_INT_CUH
#define PROVESIM_PSC_INT_CUH

#include <cuda_runtime.h>
#include <stdio.h>

#include "cuda_backend.h"

#define PSC_WS_SLOTS 16

struct psc_dev {
  int ordinal;
  char name[256];
  int sm_count;
  cudaStream_t stream;
  /* Twiddle tables of the NTT, cached per (log_n, direction): w_n^j for j < n/2. */
  fr_t *tw[2][32];
  /* Work buffers reused across calls (grown on demand): slot -> pointer, capacity. */
  void *ws[PSC_WS_SLOTS];
  size_t ws_cap[PSC_WS_SLOTS];
};

struct psc_bases {
  psc_dev *dev;
  int g2;
  size_t n;
  void *d_bases; /* g1_affine_t[n] or g2_affine_t[n] */
};

/* Checks a CUDA call; on failure fills e with file:line, the call and CUDA's message,
 * and jumps to the enclosing function's `fail` label. Needs `ps_err *e` and `int rc`. */
#define PSC_CHECK(call)                                                                 \
  do {                                                                                  \
    cudaError_t psc_e_ = (call);                                                        \
    if (psc_e_ != cudaSuccess) {                                                        \
      rc = ps_fail(e, PS_ERR, "%s:%d: %s: %s", __FILE__, __LINE__, #call,               \
                   cudaGetErrorString(psc_e_));                                         \
      goto fail;                                                                        \
    }                                                                                   \
  } while (0)
/* Checks the last launch. */
#define PSC_CHECK_LAUNCH() PSC_CHECK(cudaGetLastError())

/* Allocates device memory after checking that it is free, naming the need. */
int psc__alloc(psc_dev *d, void **p, size_t bytes, const char *what, ps_err *e);

/* A work buffer of at least `bytes` in slot `slot` of d, kept for later calls. */
int psc__ws(psc_dev *d, int slot, size_t bytes, const char *what, void **p, ps_err *e);

static inline unsigned psc__blocks(size_t n, unsigned threads) {
  return (unsigned)((n + threads - 1) / threads);
}

#endif
