/* Fr's Montgomery product on the FP64 pipe: r = a * w / 2^260 mod m for BLS12-381's r,
 * with the limb products done by double-precision fused multiply-adds instead of integer
 * multiplies. Written once for two masters, as psf_mont.h is: the CUDA backend compiles it
 * (ps_field.cuh, fr_mul_fp64_d) and tests/test_montmul.c runs the same text on the CPU
 * against the reference field code.
 *
 * Why. On sm_90 the integer product (psf_mont.h) keeps the FMA-heavy pipe busy: 110 wide
 * multiplies a product, each taking the pipe for two issue slots, while the FP64 pipe
 * (as wide as the integer multiplier on an H100/H200) idles. A 52 x 52-bit limb product
 * costs two FMAs and one add on that pipe and covers 2.6 times the bits of a 32 x 32-bit
 * one, so the 5 x 5 limb product and its 5-limb Montgomery reduction take about 165 FP64
 * instructions, and the integer pipes keep only the additions (docs/performance.md,
 * "Fr's product on the FP64 pipe").
 *
 * The limb product. For integers x, y < 2^52 held exactly as doubles:
 *   t = fma_rz(x, y, 2^104)      lies in [2^104, 2^105), where a double's step is 2^52,
 *                                so t = 2^104 + h 2^52 with h = floor(xy / 2^52), and the
 *                                low 52 bits of t's encoding are h;
 *   v = (2^104 + 2^52) - t       = (1 - h) 2^52, exact (both terms are multiples of 2^52
 *                                below 2^105);
 *   l = fma_rz(x, y, v)          = xy - h 2^52 + 2^52, in [2^52, 2^53) where the step is
 *                                1: exact, and the low 52 bits of l's encoding are
 *                                xy mod 2^52.
 * So the two words of the product are the encodings of l and t less fixed offsets
 * (0x433 << 52 and 0x467 << 52), whose low 52 bits are zero. Each column of the product
 * is the 64-bit sum of the encodings that land on it, started at minus the sum of their
 * offsets (columns, rounds and terms are fixed, so the offsets are constants), and holds
 * the column's true value once every term has landed.
 *
 * The reduction runs column by column (5 rounds of 52 bits, so R = 2^260): u = column i
 * mod 2^52, q = u * (-m^-1) mod 2^52 (an integer multiply), then q * m's limbs are added
 * as above, which clears column i's low 52 bits; its carry goes to column i + 1. For
 * a < 2^256 and w < m, the result (a w + Q m) / 2^260 < 2m, and the caller subtracts m
 * once if needed. The factor is 2^-260, not the integer product's 2^-256, so a caller
 * that wants fr_mul's value a w / 2^256 passes 16 w mod m (the NTT's twiddles are
 * tables, scaled once).
 *
 * Bounds: every limb and q below 2^52; a column holds at most 9 product terms, 9
 * reduction terms and a carry below 2^8, so its true value stays below 2^57.
 *
 * The including file defines:
 *   PSD_FN              the functions' storage class
 *   PSD_FMA_RZ(x,y,z)   x*y + z rounded toward zero (double; on the CPU the caller sets
 *                       FE_TOWARDZERO)
 *   PSD_BITS(x)         the encoding of double x as uint64_t; PSD_DBL(u) the double
 *                       whose encoding is u */
#ifndef PROVESIM_PSF_FP64_H
#define PROVESIM_PSF_FP64_H

#include <stdint.h>

#ifdef __CUDACC__
#define PSD_UNROLL _Pragma("unroll")
#else
#define PSD_UNROLL
#endif

#define PSD_M52 ((((uint64_t)1) << 52) - 1)
#define PSD_T_BITS ((uint64_t)0x467 << 52) /* 2^104: the offset of t's encoding */
#define PSD_L_BITS ((uint64_t)0x433 << 52) /* 2^52: the offset of l's encoding */
#define PSD_2P52 0x1p52
#define PSD_2P104 0x1p104
#define PSD_2P104_2P52 (0x1p104 + 0x1p52) /* exact: 53 significant bits */

/* BLS12-381's r in 52-bit limbs, and -r^-1 mod 2^52 (tests/test_montmul.c checks both
 * against BLS_FR_R). */
#define PSD_FR_R52 {0xfffff00000001ull, 0x2fffe5bfefffull, 0x9a1d80553bda4ull, 0x7d483339d8080ull, 0x73eda753299dull}
#define PSD_FR_NINV52 0xffffeffffffffull

/* The 52-bit limbs of x (8 words of 32 bits, x < 2^256). */
PSD_FN void psd_limbs(uint64_t l[5], const uint32_t x[8]) {
  l[0] = ((uint64_t)x[1] << 32 | x[0]) & PSD_M52;
  l[1] = ((uint64_t)x[3] << 44 | (uint64_t)x[2] << 12 | x[1] >> 20) & PSD_M52;
  l[2] = ((uint64_t)x[4] << 24 | x[3] >> 8) & PSD_M52;
  l[3] = ((uint64_t)x[6] << 36 | (uint64_t)x[5] << 4 | x[4] >> 28) & PSD_M52;
  l[4] = (uint64_t)x[7] << 16 | x[6] >> 16;
}

/* x's 8 words of 32 bits from its 52-bit limbs l (x < 2^256). */
PSD_FN void psd_words(uint32_t x[8], const uint64_t l[5]) {
  x[0] = (uint32_t)l[0];
  x[1] = (uint32_t)(l[0] >> 32 | l[1] << 20);
  x[2] = (uint32_t)(l[1] >> 12);
  x[3] = (uint32_t)(l[1] >> 44 | l[2] << 8);
  x[4] = (uint32_t)(l[2] >> 24 | l[3] << 28);
  x[5] = (uint32_t)(l[3] >> 4);
  x[6] = (uint32_t)(l[3] >> 36 | l[4] << 16);
  x[7] = (uint32_t)(l[4] >> 16);
}

/* An integer below 2^52 as a double: its encoding with 2^52's exponent, less 2^52. The
 * exponent goes in by an addition, not an OR (the same bits, since u < 2^52), which the
 * compiler may issue to the FMA-heavy pipe instead of the ALU. */
PSD_FN double psd_dbl(uint64_t u) { return PSD_DBL(PSD_L_BITS + u) - PSD_2P52; }

/* x as five doubles, each a 52-bit limb. */
PSD_FN void psd_split(double d[5], const uint32_t x[8]) {
  uint64_t l[5];
  psd_limbs(l, x);
  PSD_UNROLL for (int k = 0; k < 5; k++) d[k] = psd_dbl(l[k]);
}

/* The number of limb pairs (i, j), i, j < 5, with i + j = k. */
#define PSD_NPAIRS_(k) ((k) < 0 || (k) > 8 ? 0 : (k) < 5 ? (k) + 1 : 9 - (k))

/* x*y's two words added into columns lo and hi (their encodings; see above). */
#define PSD_PROD_(x, y, lo, hi)                       \
  do {                                                \
    const double t_ = PSD_FMA_RZ(x, y, PSD_2P104);    \
    const double l_ = PSD_FMA_RZ(x, y, PSD_2P104_2P52 - t_); \
    (lo) += PSD_BITS(l_);                             \
    (hi) += PSD_BITS(t_);                             \
  } while (0)

/* r = a * w / 2^260 mod m, below 2m (8 words): a < 2^256 as words, w < m as limbs
 * (psd_split), m as limb doubles md and ninv = -m^-1 mod 2^52. */
PSD_FN void psd_mont_mul(uint32_t r[8], const uint32_t a[8], const double w[5], const double md[5],
                         uint64_t ninv) {
  double x[5];
  uint64_t c[10];
  psd_split(x, a);
  /* Each column starts at minus the offsets of the terms that will land on it: product
   * and reduction each put the low word of the pairs with i + j = k and the high word of
   * those with i + j = k - 1 there. */
  PSD_UNROLL for (int k = 0; k < 10; k++)
    c[k] = (uint64_t)0 - 2 * ((uint64_t)PSD_NPAIRS_(k) * PSD_L_BITS + (uint64_t)PSD_NPAIRS_(k - 1) * PSD_T_BITS);
  PSD_UNROLL for (int i = 0; i < 5; i++)
    PSD_UNROLL for (int j = 0; j < 5; j++) PSD_PROD_(x[i], w[j], c[i + j], c[i + j + 1]);
  PSD_UNROLL for (int i = 0; i < 5; i++) {
    const uint64_t q = ((c[i] & PSD_M52) * ninv) & PSD_M52;
    const double qd = psd_dbl(q);
    PSD_UNROLL for (int j = 0; j < 5; j++) PSD_PROD_(qd, md[j], c[i + j], c[i + j + 1]);
    c[i + 1] += c[i] >> 52; /* column i is now a multiple of 2^52 */
  }
  PSD_UNROLL for (int k = 5; k < 9; k++) {
    c[k + 1] += c[k] >> 52;
    c[k] &= PSD_M52;
  }
  psd_words(r, c + 5);
}

#endif
