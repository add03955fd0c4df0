/* The quadratic extension Fp2 = Fp[u]/(u^2 + 1) of BLS12-381, over which G2 is defined;
 * plain C reference. An element is c0 + c1*u (fp2_t, both parts in Montgomery form).
 * The byte encoding is the one of the ZCash format: c1 first, then c0, each 48 bytes
 * big-endian. Outputs may alias inputs. */
#ifndef PROVESIM_FP2_H
#define PROVESIM_FP2_H

#include "fp.h"

#ifdef __cplusplus
extern "C" {
#endif

void fp2_zero(fp2_t *r);
void fp2_one(fp2_t *r);
int fp2_is_zero(const fp2_t *a);
int fp2_is_one(const fp2_t *a);
int fp2_eq(const fp2_t *a, const fp2_t *b);

void fp2_add(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_neg(fp2_t *r, const fp2_t *a);
void fp2_dbl(fp2_t *r, const fp2_t *a);
/* r = c0 - c1*u, which is also the Frobenius map a^p. */
void fp2_conj(fp2_t *r, const fp2_t *a);
void fp2_mul(fp2_t *r, const fp2_t *a, const fp2_t *b);
void fp2_mul_fp(fp2_t *r, const fp2_t *a, const fp_t *b);
void fp2_sqr(fp2_t *r, const fp2_t *a);
/* r = a^e, e a canonical integer of n 32-bit limbs, least significant first. */
void fp2_pow(fp2_t *r, const fp2_t *a, const uint32_t *e, size_t n);
/* r = 1/a; the inverse of zero is zero. */
void fp2_inv(fp2_t *r, const fp2_t *a);
/* If a is a square, r = a square root (which one is unspecified) and returns 1; else
 * returns 0 and leaves r unchanged. */
int fp2_sqrt(fp2_t *r, const fp2_t *a);
/* 1 if a is the lexicographically largest of {a, -a} in the ZCash sense: c1 decides,
 * or c0 when c1 = 0 (each compared with (p-1)/2). 0 for zero. */
int fp2_is_lex_largest(const fp2_t *a);

void fp2_from_u64(fp2_t *r, uint64_t c0, uint64_t c1);
/* 96 bytes: c1 then c0, each big-endian canonical. fp2_from_bytes returns FP_ERANGE (r
 * untouched) if either part is >= p. */
void fp2_to_bytes(uint8_t out[96], const fp2_t *a);
int fp2_from_bytes(fp2_t *r, const uint8_t in[96]);
void fp2_random(fp2_t *r, bls_rng_fn rng, void *state);

#ifdef __cplusplus
}
#endif

#endif
