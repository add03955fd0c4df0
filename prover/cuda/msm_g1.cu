/* The G1 bucket stage of the MSM (msm_int.cuh): msm_kernels.cuh instantiated for G1, with
 * the batch-affine bucket sums (msm_affine.h) beside the XYZZ ones. The Fp products are
 * called, one copy each (PSF_FP_CALL, ps_field.cuh), and the bucket sums are built for 6
 * blocks of 64 threads a multiprocessor (168 registers, a few spilled): on the H200 the
 * plain MSM of 2^24 points took 126.5 ms against 133.1 with the calls alone and 140.0
 * inlined (docs/performance.md, "G1's bucket sums: one copy of each product"). G2's
 * bucket sums, whose loop is as long, did not gain from the calls (106.0 against 105.5 ms
 * at 2^22), so msm_g2.cu keeps them inline. */
#define PSF_FP_CALL 1
#define MK_BUCKET_MINB 6
#include "msm_int.cuh"
#include "ps_curves.cuh"

#define MK_AFF g1_affine_t
#define MK_XYZZ g1_xyzz_t
#define MK_EC(x) g1_##x##_d
#define MK_FN(op) fp_##op##_d
#define MK_K(x) g1_##x
#define MK_PREFETCH 1
#define MK_AFFINE 1 /* the batch-affine bucket sums, G1 only */
#include "msm_kernels.cuh"
