/* The base field Fp of BLS12-381 in Montgomery form: the generic arithmetic of field.inc
 * instantiated for the 381-bit prime p (six 64-bit limbs), plus what only Fp needs, the
 * square root (p = 3 mod 4) and the "lexicographically largest" test of point encodings. */
#include "fp.h"

#include <string.h>

#define F fp
#define FT fp_t
#define NW 6
#define BITS BLS_FP_BITS
#define MOD_INIT BLS_FP_P
#define R2_INIT BLS_FP_R2
#define ONE_INIT BLS_FP_ONE
#define MODM2_INIT BLS_FP_P_MINUS_2
#define INV64 0x89f3fffcfffcfffdULL /* -m^{-1} mod 2^64 */
#define OK_RC FP_OK
#define ERANGE_RC FP_ERANGE
#include "field.inc"

_Static_assert((uint32_t)INV64 == BLS_FP_INV32, "INV64 extends the 32-bit factor the GPU uses");

static const fp_t SQRT_E_ = BLS_FP_P_PLUS_1_DIV_4;
static const fp_t HALF_ = BLS_FP_P_MINUS_1_DIV_2;

int fp_sqrt(fp_t *r, const fp_t *a) {
  fp_t s, chk;
  fp_pow(&s, a, SQRT_E_.v, BLS_FP_LIMBS); /* p = 3 mod 4: a^((p+1)/4) */
  fp_sqr(&chk, &s);
  if (!fp_eq(&chk, a)) return 0;
  *r = s;
  return 1;
}

int fp_is_lex_largest(const fp_t *a) {
  fp_t c;
  fp_to_canon(&c, a);
  return fp_cmp_canon_(&c, &HALF_) > 0;
}
