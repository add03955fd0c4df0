/* What msm.cu (with msm_sort.cuh: digits, sort, Horner) shares with the group files
 * msm_g1.cu and msm_g2.cu (bucket sums and bucket reduction, one translation unit per
 * group so the two compile in parallel): the work buffers of one MSM and the launch
 * sequence's entry points. */
#ifndef PROVESIM_MSM_INT_CUH
#define PROVESIM_MSM_INT_CUH

#include "msm_seg.h"
#include "psc_int.cuh"

#define MSM_MERGE_LOG_G 7 /* log2 of the segments merged per block */
#define MSM_CHUNK 64      /* sorted positions summed per thread */

typedef struct msm_bufs {
  fr_t *scalars;
  uint32_t *digit, *sorted, *count, *start, *cursor, *part;
  uint32_t *head;
  void *buckets, *seg_acc, *seg_sum, *parts;
  void *aff; /* the batch-affine bucket sums' buffer (g1_msm_affine_bytes), or NULL */
} msm_bufs;

/* The shape of one MSM's bucket stage: nwin windows of nb buckets (nkeys = nwin nb),
 * nchunks chunks of MSM_CHUNK sorted positions, 2^log_nseg segments of 2^log_lseg buckets
 * per window. */
typedef struct msm_shape {
  unsigned nwin, nb, log_nseg, log_lseg;
  size_t nkeys, nchunks;
  int seg_staged; /* the segment sums with each step's buckets staged (PSC_MSM_SEGSUM=staged) */
} msm_shape;

/* Sums the buckets (bases: the group's affine points on the device) and reduces each
 * window to its sum; *win receives the device address of the nwin window sums (XYZZ).
 * ev (NULL or 2 events) is recorded after the bucket sums and after the segment sums. */
int g1_msm_buckets(psc_dev *d, const msm_bufs *m, const msm_shape *sh, const void *bases, void **win,
                   cudaEvent_t *ev, ps_err *e);
int g2_msm_buckets(psc_dev *d, const msm_bufs *m, const msm_shape *sh, const void *bases, void **win,
                   cudaEvent_t *ev, ps_err *e);

/* The G1 bucket sums in affine coordinates with shared inversions (msm_affine.h), then
 * the same reduction; n: the MSM's points. m->aff holds g1_msm_affine_bytes(n, nwin, nb). */
int g1_msm_buckets_affine(psc_dev *d, const msm_bufs *m, const msm_shape *sh, size_t n, const void *bases,
                          void **win, cudaEvent_t *ev, ps_err *e);
size_t g1_msm_affine_bytes(size_t n, unsigned nwin, unsigned nb);

/* Fills b->d_pre: tables 1 .. nwin-1 from table 0 (which the caller has copied), each
 * point doubled c times from the previous table's and brought back to affine form. */
int g1_msm_precompute(psc_dev *d, psc_bases *b, unsigned c, unsigned nwin, ps_err *e);
int g2_msm_precompute(psc_dev *d, psc_bases *b, unsigned c, unsigned nwin, ps_err *e);

#endif
