/* The scalar field Fr of BLS12-381 in Montgomery form: the generic arithmetic of field.inc
 * instantiated for the 255-bit group order r (four 64-bit limbs), plus what only Fr needs,
 * the reduction of canonical MSM scalars that may be >= r. */
#include "fr.h"

#include <string.h>

#define F fr
#define FT fr_t
#define NW 4
#define BITS BLS_FR_BITS
#define MOD_INIT BLS_FR_R
#define R2_INIT BLS_FR_R2
#define ONE_INIT BLS_FR_ONE
#define MODM2_INIT BLS_FR_R_MINUS_2
#define INV64 0xfffffffeffffffffULL /* -m^{-1} mod 2^64 */
#define OK_RC FR_OK
#define ERANGE_RC FR_ERANGE
#include "field.inc"

_Static_assert((uint32_t)INV64 == BLS_FR_INV32, "INV64 extends the 32-bit factor the GPU uses");

void fr_canon_reduce(fr_t *c) {
  while (fr_cmp_canon_(c, &fr_mod_) >= 0) {
    uint64_t x[NW], m[NW];
    fr_ld_(x, c);
    fr_ld_(m, &fr_mod_);
    fr_sub_mod_(x, m);
    fr_st_(c, x);
  }
}

void fr_from_canon_any(fr_t *r, const fr_t *canon) {
  fr_t c = *canon;
  fr_canon_reduce(&c);
  fr_from_canon(r, &c);
}
