/* The staged segment sums of the MSM's bucket reduction (msm_kernels.cuh, segment_sum_staged,
 * PSC_MSM_SEGSUM=staged). The plain kernel gives each thread one (window, segment) and
 * lets it read its segment's buckets itself, from the last to the first: neighbouring
 * threads read points a segment apart (3 KiB for G2's segments of 8 buckets), a
 * different stretch of memory for every lane of a load. The staged kernel keeps the
 * threads and their order of additions, but at each step the block's T threads first copy
 * the T buckets of that step into shared memory together, 16 bytes a thread at a time:
 * word q of the block's T x W words (W 16-byte words a point) is word q mod W of slot
 * q / W's point, so neighbouring threads read neighbouring words. Written once for the
 * kernel and for tests/test_msm_seg.c, which runs the same copy and sums on the CPU (CI
 * has no GPU). */
#ifndef PROVESIM_MSM_SEG_H
#define PROVESIM_MSM_SEG_H

#include <stddef.h>

#ifdef __CUDACC__
#define MSM_SEG_HD static __host__ __device__ __forceinline__
#else
#define MSM_SEG_HD static inline
#endif

/* The bucket (its index among the windows' nwin x nb buckets) that word q of the block
 * starting at (window, segment) id0 copies at step i, or -1 when word q's slot has no
 * segment (id0 + q / W at or past total, the windows' 2^log_nseg segments each). Segment
 * j of window w holds buckets j 2^log_lseg .. (j + 1) 2^log_lseg - 1 of the window. */
MSM_SEG_HD long long msm_seg_src(unsigned q, unsigned W, size_t id0, size_t total, unsigned nb, unsigned log_nseg,
                                 unsigned log_lseg, unsigned i) {
  size_t id = id0 + q / W;
  if (id >= total) return -1;
  size_t w = id >> log_nseg, j = id & (((size_t)1 << log_nseg) - 1);
  return (long long)(w * nb + (j << log_lseg) + i);
}

#endif
