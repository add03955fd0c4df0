/* Internals shared by the CUDA backend's .cu files: the device handle's layout, the
 * CUDA error-checking macro and small launch helpers. */
#ifndef PROVESIM_PSC_INT_CUH
#define PROVESIM_PSC_INT_CUH

#include <cuda_runtime.h>
#include <stdio.h>

#include "cuda_backend.h"

#define PSC_WS_SLOTS 16
/* Work-buffer slots: the MSM uses 0..11 (msm.cu), then: */
#define PSC_WS_NTT_SCRATCH 12 /* the bit-reversal copy of a same-order NTT */
#define PSC_WS_NTT_DATA 13    /* psc_ntt's device copy of the host vectors */
#define PSC_WS_G16_H 14       /* psc_g16_h_vec_wins's h, canonical */

/* What a sort of MSM scalars was made from (psc_dev.sort): the vector's generation and
 * the scalars' address, count, window and bucket layout (one set of buckets for every
 * window over tables `stride` points apart, or stride 0: a set per window). */
typedef struct psc_sort_key {
  uint64_t gen;
  const fr_t *scalars;
  size_t n, stride;
  unsigned c;
} psc_sort_key;

struct psc_dev {
  int ordinal;
  char name[256];
  int sm_count;
  cudaStream_t stream;
  cudaStream_t copy_stream; /* uploads of psc_vec, beside the kernels of other handles */
  /* Pinned host memory for the window sums of a batch of MSMs (psc_msm_wins_dev). */
  void *hwin;
  size_t hwin_cap;
  /* Twiddle tables of the NTT, cached per (direction, log_n): w_n^j for j < n/2; and
   * for the FP64 product (PSC_NTT_MUL=fp64 or mixed), 16 w_n^j as fr52_t (psf_fp64.h). */
  fr_t *tw[2][32];
  void *tw52[2][32];
  /* Coset power tables (g^i, or g^-i / n for the inverse), per (direction, log_n): lo[i]
   * for i < 4096 and hi[i] for the multiples of 4096, built on first use. */
  fr_t *pw_lo[2][32], *pw_hi[2][32];
  /* Work buffers reused across calls (grown on demand): slot -> pointer, capacity. */
  void *ws[PSC_WS_SLOTS];
  size_t ws_cap[PSC_WS_SLOTS];
  /* The MSM whose digits, counts and sorted array the MSM slots hold (msm.cu), so that an
   * MSM of a later batch over the same scalars of the same psc_vec takes them as they are
   * (Groth16's B_G2 after A and B_G1). gen 0: nothing reusable held. */
  psc_sort_key sort;
};

struct psc_vec {
  psc_dev *d;
  fr_t *p;
  size_t cap; /* elements */
  /* Changes with every write to the elements (psc_vec_gen_bump): a sort of them made
   * before it is no longer theirs. Unique across vectors, so never 0 and never reused. */
  uint64_t gen;
};

/* A new generation for v's elements: called by everything that writes them. */
void psc_vec_gen_bump(psc_vec *v);

struct psc_bases {
  psc_dev *dev;
  int g2;
  size_t n;
  void *d_bases; /* g1_affine_t[n] or g2_affine_t[n] */
  /* After psc_bases_precompute(c): pre_nwin tables of n points, table j holding
   * 2^(c j) * bases[i] at j n + i (table 0 a copy of the bases); else NULL. */
  void *d_pre;
  unsigned pre_c, pre_nwin;
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

/* One NTT (flags PSC_NTT_*) of 2^log_n elements already on the device, queued on d's
 * stream; tables come from d's caches, so nothing is allocated after the first call of a
 * size (no cudaMalloc/cudaFree, which would synchronise the device). */
int psc__ntt_dev(psc_dev *d, fr_t *data, unsigned log_n, int flags, ps_err *e);

static inline unsigned psc__blocks(size_t n, unsigned threads) {
  return (unsigned)((n + threads - 1) / threads);
}

#endif
