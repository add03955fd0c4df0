/* The groups G1 (over Fp) and G2 (over Fp2) of BLS12-381 in plain C: affine, Jacobian
 * and XYZZ forms (bls12_381.h), additions that handle every exceptional case (infinity,
 * P + P, P + (-P)), scalar multiplication, on-curve and subgroup checks. This is the
 * reference the CUDA backend is compared with. Outputs may alias inputs. */
#ifndef PROVESIM_CURVE_H
#define PROVESIM_CURVE_H

#include <stddef.h>
#include "fp.h"
#include "fp2.h"
#include "fr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- G1 (over Fp) ---- */
void g1_generator(g1_affine_t *r);
/* A random point of the subgroup: the generator times a random scalar. */
void g1_random(g1_affine_t *r, bls_rng_fn rng, void *state);
/* n random subgroup points, fast (about one addition each) but not independent: for test
 * inputs and benchmarks (e.g. MSM bases), reproducible from rng's state. */
void g1_random_many(g1_affine_t *out, size_t n, bls_rng_fn rng, void *state);

void g1_affine_set_inf(g1_affine_t *r);
int g1_affine_is_inf(const g1_affine_t *p);
void g1_jac_set_inf(g1_jac_t *r);
int g1_jac_is_inf(const g1_jac_t *p);
void g1_xyzz_set_inf(g1_xyzz_t *r);
int g1_xyzz_is_inf(const g1_xyzz_t *p);

void g1_affine_neg(g1_affine_t *r, const g1_affine_t *p);
void g1_jac_neg(g1_jac_t *r, const g1_jac_t *p);
void g1_xyzz_neg(g1_xyzz_t *r, const g1_xyzz_t *p);
/* On-curve checks; the point at infinity counts as on the curve. */
int g1_affine_is_on_curve(const g1_affine_t *p);
int g1_jac_is_on_curve(const g1_jac_t *p);
/* Subgroup checks (r * P = infinity); P must be on the curve. */
int g1_affine_in_subgroup(const g1_affine_t *p);
int g1_jac_in_subgroup(const g1_jac_t *p);
/* Equality of the points represented (any Z). */
int g1_affine_eq(const g1_affine_t *p, const g1_affine_t *q);
int g1_jac_eq(const g1_jac_t *p, const g1_jac_t *q);

void g1_jac_from_affine(g1_jac_t *r, const g1_affine_t *p);
void g1_jac_to_affine(g1_affine_t *r, const g1_jac_t *p);
void g1_xyzz_from_affine(g1_xyzz_t *r, const g1_affine_t *p);
void g1_xyzz_to_affine(g1_affine_t *r, const g1_xyzz_t *p);
void g1_xyzz_to_jac(g1_jac_t *r, const g1_xyzz_t *p);
void g1_jac_to_xyzz(g1_xyzz_t *r, const g1_jac_t *p);
/* n Jacobian points to affine with one field inversion. */
void g1_jac_batch_to_affine(g1_affine_t *out, const g1_jac_t *in, size_t n);

void g1_jac_dbl(g1_jac_t *r, const g1_jac_t *p);
void g1_jac_add(g1_jac_t *r, const g1_jac_t *p, const g1_jac_t *q);
void g1_jac_add_affine(g1_jac_t *r, const g1_jac_t *p, const g1_affine_t *q);
void g1_xyzz_dbl(g1_xyzz_t *r, const g1_xyzz_t *p);
void g1_xyzz_add(g1_xyzz_t *r, const g1_xyzz_t *p, const g1_xyzz_t *q);
void g1_xyzz_add_affine(g1_xyzz_t *r, const g1_xyzz_t *p, const g1_affine_t *q);
/* r = p - q. */
void g1_xyzz_add_affine_neg(g1_xyzz_t *r, const g1_xyzz_t *p, const g1_affine_t *q);

/* r = k * p, k a canonical integer (fr_t limbs, not Montgomery), any value < 2^256. */
void g1_jac_mul(g1_jac_t *r, const g1_jac_t *p, const fr_t *k);
void g1_affine_mul(g1_jac_t *r, const g1_affine_t *p, const fr_t *k);

/* ---- G2 (over Fp2) ---- */
void g2_generator(g2_affine_t *r);
/* A random point of the subgroup: the generator times a random scalar. */
void g2_random(g2_affine_t *r, bls_rng_fn rng, void *state);
/* n random subgroup points, fast (about one addition each) but not independent: for test
 * inputs and benchmarks (e.g. MSM bases), reproducible from rng's state. */
void g2_random_many(g2_affine_t *out, size_t n, bls_rng_fn rng, void *state);

void g2_affine_set_inf(g2_affine_t *r);
int g2_affine_is_inf(const g2_affine_t *p);
void g2_jac_set_inf(g2_jac_t *r);
int g2_jac_is_inf(const g2_jac_t *p);
void g2_xyzz_set_inf(g2_xyzz_t *r);
int g2_xyzz_is_inf(const g2_xyzz_t *p);

void g2_affine_neg(g2_affine_t *r, const g2_affine_t *p);
void g2_jac_neg(g2_jac_t *r, const g2_jac_t *p);
void g2_xyzz_neg(g2_xyzz_t *r, const g2_xyzz_t *p);
/* On-curve checks; the point at infinity counts as on the curve. */
int g2_affine_is_on_curve(const g2_affine_t *p);
int g2_jac_is_on_curve(const g2_jac_t *p);
/* Subgroup checks (r * P = infinity); P must be on the curve. */
int g2_affine_in_subgroup(const g2_affine_t *p);
int g2_jac_in_subgroup(const g2_jac_t *p);
/* Equality of the points represented (any Z). */
int g2_affine_eq(const g2_affine_t *p, const g2_affine_t *q);
int g2_jac_eq(const g2_jac_t *p, const g2_jac_t *q);

void g2_jac_from_affine(g2_jac_t *r, const g2_affine_t *p);
void g2_jac_to_affine(g2_affine_t *r, const g2_jac_t *p);
void g2_xyzz_from_affine(g2_xyzz_t *r, const g2_affine_t *p);
void g2_xyzz_to_affine(g2_affine_t *r, const g2_xyzz_t *p);
void g2_xyzz_to_jac(g2_jac_t *r, const g2_xyzz_t *p);
void g2_jac_to_xyzz(g2_xyzz_t *r, const g2_jac_t *p);
/* n Jacobian points to affine with one field inversion. */
void g2_jac_batch_to_affine(g2_affine_t *out, const g2_jac_t *in, size_t n);

void g2_jac_dbl(g2_jac_t *r, const g2_jac_t *p);
void g2_jac_add(g2_jac_t *r, const g2_jac_t *p, const g2_jac_t *q);
void g2_jac_add_affine(g2_jac_t *r, const g2_jac_t *p, const g2_affine_t *q);
void g2_xyzz_dbl(g2_xyzz_t *r, const g2_xyzz_t *p);
void g2_xyzz_add(g2_xyzz_t *r, const g2_xyzz_t *p, const g2_xyzz_t *q);
void g2_xyzz_add_affine(g2_xyzz_t *r, const g2_xyzz_t *p, const g2_affine_t *q);
/* r = p - q. */
void g2_xyzz_add_affine_neg(g2_xyzz_t *r, const g2_xyzz_t *p, const g2_affine_t *q);

/* r = k * p, k a canonical integer (fr_t limbs, not Montgomery), any value < 2^256. */
void g2_jac_mul(g2_jac_t *r, const g2_jac_t *p, const fr_t *k);
void g2_affine_mul(g2_jac_t *r, const g2_affine_t *p, const fr_t *k);

#ifdef __cplusplus
}
#endif

#endif
