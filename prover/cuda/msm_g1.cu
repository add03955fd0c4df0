/* The G1 bucket stage of the MSM (msm_int.cuh): msm_kernels.cuh instantiated for G1, with
 * the batch-affine bucket sums (msm_affine.h) beside the XYZZ ones. */
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
