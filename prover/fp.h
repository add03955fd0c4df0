/* The base field Fp of BLS12-381 (381-bit prime p), plain C: the reference arithmetic
 * that the CUDA backend is tested against. Elements (fp_t, bls12_381.h) are kept in
 * Montgomery form; the byte encodings are canonical big-endian, as every BLS12-381
 * library writes them. All functions allow their outputs to alias their inputs. */
#ifndef PROVESIM_FP_H
#define PROVESIM_FP_H

#include <stdint.h>
#include <stddef.h>
#include "bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A caller-supplied 64-bit pseudo-random generator (deterministic, e.g. splitmix64):
 * returns the next 64 random bits of its state. Shared by fp_, fr_ and fp2_random. */
typedef uint64_t (*bls_rng_fn)(void *state);

/* Return codes of the decoders. */
#define FP_OK 0
#define FP_ERANGE -1 /* the encoded integer is >= the modulus */

void fp_zero(fp_t *r);
void fp_one(fp_t *r);
void fp_copy(fp_t *r, const fp_t *a);
int fp_is_zero(const fp_t *a);
int fp_is_one(const fp_t *a);
int fp_eq(const fp_t *a, const fp_t *b);

void fp_add(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *r, const fp_t *a, const fp_t *b);
void fp_neg(fp_t *r, const fp_t *a);
void fp_dbl(fp_t *r, const fp_t *a);
void fp_mul(fp_t *r, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *r, const fp_t *a);
/* r = a^e, where e is a canonical integer of n 32-bit limbs (least significant first). */
void fp_pow(fp_t *r, const fp_t *a, const uint32_t *e, size_t n);
/* r = 1/a (Fermat); the inverse of zero is zero. */
void fp_inv(fp_t *r, const fp_t *a);
/* If a is a square, r = a square root of a (which one is unspecified) and returns 1;
 * otherwise returns 0 and leaves r unchanged. */
int fp_sqrt(fp_t *r, const fp_t *a);
/* 1 if the canonical value of a is > (p-1)/2, the "lexicographically largest" of a and
 * -a in the sense of the ZCash encoding of points; 0 otherwise (also for zero). */
int fp_is_lex_largest(const fp_t *a);

/* Montgomery conversions of plain integers: canon holds an integer < p (12 limbs). */
void fp_from_canon(fp_t *r, const fp_t *canon);
void fp_to_canon(fp_t *canon, const fp_t *a);
void fp_from_u64(fp_t *r, uint64_t x);
/* 48-byte big-endian canonical encoding. fp_from_bytes returns FP_ERANGE (r untouched)
 * when the integer is >= p. */
void fp_to_bytes(uint8_t out[48], const fp_t *a);
int fp_from_bytes(fp_t *r, const uint8_t in[48]);
/* A uniformly random element, drawn by rejection from rng (deterministic given its state). */
void fp_random(fp_t *r, bls_rng_fn rng, void *state);

#ifdef __cplusplus
}
#endif

#endif
