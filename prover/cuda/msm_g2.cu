/* The G2 bucket stage of the MSM (msm_int.cuh): msm_kernels.cuh instantiated for G2. */
#include "msm_int.cuh"
#include "ps_curves.cuh"

#define MK_AFF g2_affine_t
#define MK_XYZZ g2_xyzz_t
#define MK_EC(x) g2_##x##_d
#define MK_FN(op) fp2_##op##_d
#define MK_K(x) g2_##x
#include "msm_kernels.cuh"
