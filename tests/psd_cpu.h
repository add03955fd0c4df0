/* prover/cuda/psf_fp64.h (Fr's product on the FP64 pipe) bound to the CPU's doubles, for
 * the suites that run it where CI runs (test_montmul, test_ntt_r4): fma() stands for the
 * GPU's __fma_rz once psd_cpu_toward_zero() has set the rounding mode, which it checks
 * fma() honours. The including file is built with -frounding-math (tests/bls.cmake), so
 * that the compiler assumes no rounding mode. */
#ifndef PROVESIM_TESTS_PSD_CPU_H
#define PROVESIM_TESTS_PSD_CPU_H

#include "ck.h"
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t psd_bits_(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static double psd_dbl_(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}
#define PSD_FN static inline
#define PSD_FMA_RZ(x, y, z) fma(x, y, z)
#define PSD_BITS(x) psd_bits_(x)
#define PSD_DBL(u) psd_dbl_(u)
#include "cuda/psf_fp64.h"
#include "bls12_381.h"

/* r = a * w16 / 2^260 mod m for BLS12-381's r (fr_mul's a * w / 2^256 when w16 = 16 w) by
 * the FP64 sequence, then one subtraction of m when its result is m or more, as the GPU's
 * fr_mul_fp64_d does. Returns 1 when the sequence left 2m or more (so r is still m or
 * more), which its bounds rule out. */
static inline int psd_cpu_fr_mul(uint32_t r[8], const uint32_t a[8], const uint32_t w16[8]) {
  static const uint64_t m52[5] = PSD_FR_R52;
  static const fr_t m = BLS_FR_R;
  double wd[5], md[5];
  uint32_t t[8], s[8];
  for (int k = 0; k < 5; k++) md[k] = (double)m52[k];
  psd_split(wd, w16);
  psd_mont_mul(t, a, wd, md, PSD_FR_NINV52);
  for (int pass = 0; pass < 2; pass++) { /* subtract m once; a second subtraction tests the result */
    uint64_t br = 0;
    for (int k = 0; k < 8; k++) {
      uint64_t d = (uint64_t)t[k] - m.v[k] - br;
      s[k] = (uint32_t)d;
      br = (d >> 32) & 1;
    }
    if (br) { /* t < m */
      if (!pass) memcpy(r, t, sizeof t);
      return 0;
    }
    if (!pass) memcpy(r, s, sizeof s);
    memcpy(t, s, sizeof s);
  }
  return 1;
}

/* Sets rounding toward zero and returns the mode it replaced. (2^51 + 1) * 3 + 2^104 lies
 * 1.5 steps of 2^52 above 2^104: toward zero gives 1 step, to nearest 2. */
static inline int psd_cpu_toward_zero(void) {
  int old = fegetround();
  ck_assert_int_eq(fesetround(FE_TOWARDZERO), 0);
  volatile double x = 0x1p51 + 1, y = 3;
  ck_assert_msg(fma(x, y, 0x1p104) == 0x1p104 + 0x1p52, "fma() ignores the rounding mode");
  return old;
}

#endif
