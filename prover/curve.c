/* G1 and G2 of BLS12-381 in plain C: the reference group arithmetic. The formulas are
 * written once in curve.inc and instantiated here for each group. */
#include "curve.h"

#include <stdlib.h>
#include "util.h"

static const g1_affine_t G1_GEN_ = BLS_G1_GEN;
static const g2_affine_t G2_GEN_ = BLS_G2_GEN;

void g1_generator(g1_affine_t *r) { *r = G1_GEN_; }
void g2_generator(g2_affine_t *r) { *r = G2_GEN_; }

#define G g1
#define F fp
#define FT fp_t
#define B_INIT BLS_G1_B
#include "curve.inc"
#undef G
#undef F
#undef FT
#undef B_INIT

#define G g2
#define F fp2
#define FT fp2_t
#define B_INIT BLS_G2_B
#include "curve.inc"
#undef G
#undef F
#undef FT
#undef B_INIT

void g1_random(g1_affine_t *r, bls_rng_fn rng, void *state) {
  fr_t k, kc;
  g1_jac_t j;
  fr_random(&k, rng, state);
  fr_to_canon(&kc, &k);
  g1_affine_mul(&j, &G1_GEN_, &kc);
  g1_jac_to_affine(r, &j);
}

void g2_random(g2_affine_t *r, bls_rng_fn rng, void *state) {
  fr_t k, kc;
  g2_jac_t j;
  fr_random(&k, rng, state);
  fr_to_canon(&kc, &k);
  g2_affine_mul(&j, &G2_GEN_, &kc);
  g2_jac_to_affine(r, &j);
}
