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

/* Many random subgroup points at about one mixed addition each: a walk acc += S[j] over
 * 16 random seed points S with j drawn from rng, converted to affine in blocks with one
 * inversion per block. Not uniform (consecutive points are related), which is all that
 * tests and benchmarks need: distinct, valid, reproducible points. */
#define RANDOM_MANY_SEEDS 16
#define RANDOM_MANY_BLOCK 4096

void g1_random_many(g1_affine_t *out, size_t n, bls_rng_fn rng, void *state) {
  g1_affine_t seeds[RANDOM_MANY_SEEDS], start;
  for (int i = 0; i < RANDOM_MANY_SEEDS; i++) g1_random(&seeds[i], rng, state);
  g1_random(&start, rng, state);
  g1_jac_t acc, *blk = xmalloc(RANDOM_MANY_BLOCK * sizeof *blk);
  g1_jac_from_affine(&acc, &start);
  for (size_t i0 = 0; i0 < n; i0 += RANDOM_MANY_BLOCK) {
    size_t m = n - i0 < RANDOM_MANY_BLOCK ? n - i0 : RANDOM_MANY_BLOCK;
    for (size_t i = 0; i < m; i++) {
      g1_jac_add_affine(&acc, &acc, &seeds[rng(state) % RANDOM_MANY_SEEDS]);
      blk[i] = acc;
    }
    g1_jac_batch_to_affine(out + i0, blk, m);
  }
  free(blk);
}

void g2_random_many(g2_affine_t *out, size_t n, bls_rng_fn rng, void *state) {
  g2_affine_t seeds[RANDOM_MANY_SEEDS], start;
  for (int i = 0; i < RANDOM_MANY_SEEDS; i++) g2_random(&seeds[i], rng, state);
  g2_random(&start, rng, state);
  g2_jac_t acc, *blk = xmalloc(RANDOM_MANY_BLOCK * sizeof *blk);
  g2_jac_from_affine(&acc, &start);
  for (size_t i0 = 0; i0 < n; i0 += RANDOM_MANY_BLOCK) {
    size_t m = n - i0 < RANDOM_MANY_BLOCK ? n - i0 : RANDOM_MANY_BLOCK;
    for (size_t i = 0; i < m; i++) {
      g2_jac_add_affine(&acc, &acc, &seeds[rng(state) % RANDOM_MANY_SEEDS]);
      blk[i] = acc;
    }
    g2_jac_batch_to_affine(out + i0, blk, m);
  }
  free(blk);
}
