/* The optimal ate pairing of BLS12-381 in plain C, used by the Groth16 verifier. The
 * tower is Fp6 = Fp2[v]/(v^3 - (u + 1)), Fp12 = Fp6[w]/(w^2 - v); G2 lives on the M-type
 * twist and is mapped into E(Fp12) by (x, y) -> (x / w^2, y / w^3). The Miller loop runs
 * over |x| = 0xd201000000010000 and conjugates at the end (x is negative); the final
 * exponentiation raises to exactly (p^12 - 1) / r, so e(P, Q) equals the pairing of blst
 * and zkcrypto, and is the inverse (the conjugate) of py_ecc's, which skips the
 * conjugation. Simplicity over speed: affine line steps and a square-and-multiply hard
 * part (a few tens of milliseconds per check). Outputs may alias inputs. */
#ifndef PROVESIM_PAIRING_H
#define PROVESIM_PAIRING_H

#include <stddef.h>

#include "curve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { fp2_t c0, c1, c2; } fp6_t;  /* c0 + c1 v + c2 v^2 */
typedef struct { fp6_t c0, c1; } fp12_t;     /* c0 + c1 w */

void fp6_add(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_mul(fp6_t *r, const fp6_t *a, const fp6_t *b);
void fp6_inv(fp6_t *r, const fp6_t *a);

void fp12_one(fp12_t *r);
int fp12_is_one(const fp12_t *a);
int fp12_eq(const fp12_t *a, const fp12_t *b);
void fp12_mul(fp12_t *r, const fp12_t *a, const fp12_t *b);
void fp12_sqr(fp12_t *r, const fp12_t *a);
void fp12_inv(fp12_t *r, const fp12_t *a);
/* c0 - c1 w: the Frobenius map a^(p^6), the inverse of a unitary element. */
void fp12_conj(fp12_t *r, const fp12_t *a);
/* r = a^e, e a canonical integer of n 32-bit limbs, least significant first. */
void fp12_pow(fp12_t *r, const fp12_t *a, const uint32_t *e, size_t n);

/* f = prod_i f_{|x|, Q_i}(P_i), conjugated: the Miller loop of the product of n pairings.
 * Pairs where P_i or Q_i is the point at infinity contribute 1. */
void pairing_miller(fp12_t *f, const g1_affine_t *p, const g2_affine_t *q, size_t n);
/* r = f^((p^12 - 1) / r). */
void pairing_final_exp(fp12_t *r, const fp12_t *f);
/* r = e(p, q). */
void pairing(fp12_t *r, const g1_affine_t *p, const g2_affine_t *q);
/* 1 when prod_i e(P_i, Q_i) = 1 (one final exponentiation for the product), else 0. */
int pairing_product_is_one(const g1_affine_t *p, const g2_affine_t *q, size_t n);

#ifdef __cplusplus
}
#endif

#endif
