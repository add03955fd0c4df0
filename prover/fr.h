/* The scalar field Fr of BLS12-381 (255-bit group order r), plain C: the reference
 * arithmetic of NTTs and of scalars. Elements (fr_t) are in Montgomery form; a
 * "canonical" fr_t holds a plain integer (the form MSM scalars take). The byte encoding
 * is canonical big-endian (32 bytes). Outputs may alias inputs. */
#ifndef PROVESIM_FR_H
#define PROVESIM_FR_H

#include <stdint.h>
#include <stddef.h>
#include "bls12_381.h"
#include "fp.h" /* bls_rng_fn */

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of the decoders. */
#define FR_OK 0
#define FR_ERANGE -1 /* the encoded integer is >= the modulus */

void fr_zero(fr_t *r);
void fr_one(fr_t *r);
void fr_copy(fr_t *r, const fr_t *a);
int fr_is_zero(const fr_t *a);
int fr_is_one(const fr_t *a);
int fr_eq(const fr_t *a, const fr_t *b);

void fr_add(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *r, const fr_t *a, const fr_t *b);
void fr_neg(fr_t *r, const fr_t *a);
void fr_dbl(fr_t *r, const fr_t *a);
void fr_mul(fr_t *r, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *r, const fr_t *a);
/* r = a^e, where e is a canonical integer of n 32-bit limbs (least significant first). */
void fr_pow(fr_t *r, const fr_t *a, const uint32_t *e, size_t n);
/* r = 1/a (Fermat); the inverse of zero is zero. */
void fr_inv(fr_t *r, const fr_t *a);

/* Montgomery conversions of plain integers: canon holds an integer < r (8 limbs). */
void fr_from_canon(fr_t *r, const fr_t *canon);
void fr_to_canon(fr_t *canon, const fr_t *a);
void fr_from_u64(fr_t *r, uint64_t x);
/* 32-byte big-endian canonical encoding. fr_from_bytes returns FR_ERANGE (r untouched)
 * when the integer is >= r. */
void fr_to_bytes(uint8_t out[32], const fr_t *a);
int fr_from_bytes(fr_t *r, const uint8_t in[32]);
/* A uniformly random element, drawn by rejection from rng (deterministic given its state). */
void fr_random(fr_t *r, bls_rng_fn rng, void *state);

/* Reduces a canonical integer c < 2^256 modulo r in place (an MSM scalar may be >= r). */
void fr_canon_reduce(fr_t *c);
/* fr_from_canon for any integer < 2^256 (reduced modulo r first). */
void fr_from_canon_any(fr_t *r, const fr_t *canon);

#ifdef __cplusplus
}
#endif

#endif
