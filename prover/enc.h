/* The standard byte encodings of BLS12-381 points (the ZCash serialization that the
 * common libraries - blst, arkworks, py_ecc, zkcrypto - read and write), so other tools
 * can read our points. G1: 48 bytes compressed, 96 uncompressed; G2: 96 / 192, with each
 * Fp2 coordinate written c1 first, then c0. Coordinates are big-endian. The three top
 * bits of the first byte are flags: 0x80 compressed, 0x40 point at infinity (all other
 * bits zero), 0x20 (compressed only) y is the lexicographically largest of {y, -y}. */
#ifndef PROVESIM_ENC_H
#define PROVESIM_ENC_H

#include <stdint.h>
#include "curve.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ENC_G1_COMPRESSED 48
#define ENC_G1_UNCOMPRESSED 96
#define ENC_G2_COMPRESSED 96
#define ENC_G2_UNCOMPRESSED 192

/* Decoder return codes: 0 on success, negative on error (the output is then untouched). */
#define ENC_OK 0
#define ENC_EFLAGS -1       /* compression flag does not match the length, or sign set when uncompressed */
#define ENC_EINFINITY -2    /* infinity flag set but other bits non-zero */
#define ENC_ERANGE -3       /* a coordinate is >= p */
#define ENC_ENOT_ON_CURVE -4 /* no y for x (compressed) or (x, y) not on the curve */
#define ENC_ESUBGROUP -5    /* on the curve but not in the prime-order subgroup */

/* A static English description of an ENC_ code. */
const char *enc_strerror(int code);

void enc_g1_compress(uint8_t out[48], const g1_affine_t *p);
void enc_g1_uncompressed(uint8_t out[96], const g1_affine_t *p);
void enc_g2_compress(uint8_t out[96], const g2_affine_t *p);
void enc_g2_uncompressed(uint8_t out[192], const g2_affine_t *p);

/* Decode n bytes (48 or 96 for G1, 96 or 192 for G2; the compression flag must agree
 * with n), checking flags, field range, curve equation and subgroup membership. A length
 * other than these returns ENC_EFLAGS. */
int enc_g1_decode(g1_affine_t *r, const uint8_t *in, size_t n);
int enc_g2_decode(g2_affine_t *r, const uint8_t *in, size_t n);

#ifdef __cplusplus
}
#endif

#endif
