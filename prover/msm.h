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

/* The window the CUDA backend's MSM picks for n points over plain bases (psc_msm_default_
 * window; here so that the CPU-only code sizing its work buffers, g16_worker_bytes_at,
 * follows the same rule). Measured on the H200 (docs/performance.md):
 * - 16 bits from 2^20 points, 8 from 2^6, else 4. Chosen when a thread summed a whole
 *   bucket, so the top window (bits (W-1)c .. 254 of W = ceil(256/c)) had to keep enough
 *   bits to spread the points; c = 16 (15 bits on top) and c = 8 (7) did. The chunked
 *   bucket sums no longer serialise (c = 12 at 2^18: 13.6 ms against 17.5 ms at 10); below
 *   2^23 the table has not been re-tuned for them.
 * - G1 at 2^24 (more than 2^23 points): 17 bits, whose 16th window holds only the carry
 *   of the 15th's signed digit (a point about half the time), so about half a window's
 *   mixed additions fewer: 123.8 against 126.5 ms (PSC_MSM_WINDOW=17, "G1's bucket sums:
 *   one copy of each product"). It makes the MSM sample its scalars first (a witness
 *   keeps 16, see msm_window in cuda/msm.cu); a sample of host scalars is short
 *   (MSM_SAMPLE_HOST), since 65,536 scalars read far apart in host memory cost what the
 *   window saved (148.0 against 148.1 ms before, "Squares by their own sequence"). G1 at
 *   2^23 keeps 16: 17 bits gave 63.1 against 64.0 ms without the sample, too little to
 *   pay for it. G2 at 2^21 and 2^22: 15 bits 2-4% slower, 17 level to 3% slower.
 * - G1 from 2^25: 20 bits, 13 windows (19% fewer mixed additions for 2^19 buckets a
 *   window to reduce): 541.8 against 591.0 ms at 2^26, 285.4 against 299.0 at 2^25
 *   ("Wider windows for dense scalars"). G2 is not measured there. */
static inline unsigned msm_gpu_window(int g2, size_t n) {
  unsigned lg = 0;
  while (((size_t)1 << lg) < n) lg++;
  if (!g2 && lg >= 25) return 20;
  if (!g2 && lg == 24) return 17;
  return lg >= 20 ? 16 : lg >= 6 ? 8 : 4;
}

/* The naive reference: the sum of n scalar multiplications. For tests. */
void msm_naive_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n);
void msm_naive_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n);

#ifdef __cplusplus
}
#endif

#endif
