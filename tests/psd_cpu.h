/* prover/cuda/psf_fp64.h (Fr's product on the FP64 pipe) bound to the CPU's doubles, for
 * the suites that run it where CI runs (test_montmul, test_ntt_r4): fma() stands for the
 * GPU's __fma_rz once psd_cpu_toward_zero() has set the rounding mode, which it checks
 * fma() honours. The including file is built with -frounding-math (tests/bls.cmake), so
 * that the compiler assumes no rounding mode. */
#ifndef PROVESIM_TESTS_PSD_CPU_H
#define PROVESIM_TESTS_PSD_CPU_H

#include <check.h>
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
