/* G1 and G2 device point arithmetic: ps_ec.cuh instantiated over Fp and over Fp2. */
#ifndef PROVESIM_PS_CURVES_CUH
#define PROVESIM_PS_CURVES_CUH

#include "ps_field.cuh"

#define EC_INL PSF_INL
#define EC_F fp_t
#define EC_AFF g1_affine_t
#define EC_XYZZ g1_xyzz_t
#define EC_NAME(x) g1_##x##_d
#define EC_FN(op) fp_##op##_d
#include "ps_ec.cuh"
#undef EC_F
#undef EC_AFF
#undef EC_XYZZ
#undef EC_NAME
#undef EC_FN
#undef EC_INL

#define EC_INL PSF_INL
#define EC_F fp2_t
#define EC_AFF g2_affine_t
#define EC_XYZZ g2_xyzz_t
#define EC_NAME(x) g2_##x##_d
#define EC_FN(op) fp2_##op##_d
#include "ps_ec.cuh"
#undef EC_F
#undef EC_AFF
#undef EC_XYZZ
#undef EC_NAME
#undef EC_FN
#undef EC_INL

#endif
