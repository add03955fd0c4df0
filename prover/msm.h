/* Multi-scalar multiplication on G1 and G2 in the plain-C backend: out = sum_i k_i * P_i
 * for affine bases P_i and canonical scalars k_i (fr_t limbs holding plain integers, any
 * value < 2^256; values >= r are reduced modulo r). Pippenger's bucket method with signed
 * digits: with window c a scalar is written as sum_w d_w 2^(cw), |d_w| <= 2^(c-1), so each
 * window needs 2^(c-1) buckets and a negative digit adds -P. Bases may repeat and may be
 * the point at infinity; zero scalars contribute nothing. */
#ifndef PROVESIM_MSM_H
#define PROVESIM_MSM_H

#include <stddef.h>
#include "curve.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MSM_MAX_WINDOW 24

/* out = sum_{i<n} scalars[i] * bases[i]. window = 0 picks it with msm_cpu_window; else
 * 1..MSM_MAX_WINDOW. threads = 0 uses every online CPU (windows run in parallel). The
 * inputs are borrowed for the call only. */
void msm_cpu_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                unsigned window, unsigned threads);
void msm_cpu_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n,
                unsigned window, unsigned threads);

/* The window the MSM picks for n points: the c minimising the bucket additions of the
 * cost model (255/c + 1) * (n + 2^c), at most 16. The same for G1 and G2 (g2 is for later
 * tuning). */
unsigned msm_cpu_window(int g2, size_t n);

/* The naive reference: the sum of n scalar multiplications. For tests. */
void msm_naive_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n);
void msm_naive_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n);

#ifdef __cplusplus
}
#endif

#endif
