/* ZCash-format point encodings, on top of the field byte encodings (fp.c, fp2.c). */
#include "enc.h"

#include <string.h>

#define FLAG_COMP 0x80
#define FLAG_INF 0x40
#define FLAG_SIGN 0x20

const char *enc_strerror(int code) {
  switch (code) {
  case ENC_OK: return "ok";
  case ENC_EFLAGS: return "flag bits do not match the encoding's length";
  case ENC_EINFINITY: return "point at infinity with non-zero bits";
  case ENC_ERANGE: return "coordinate not below the field modulus";
  case ENC_ENOT_ON_CURVE: return "point not on the curve";
  case ENC_ESUBGROUP: return "point not in the prime-order subgroup";
  default: return "unknown encoding error";
  }
}

void enc_g1_compress(uint8_t out[48], const g1_affine_t *p) {
  if (g1_affine_is_inf(p)) {
    memset(out, 0, 48);
    out[0] = FLAG_COMP | FLAG_INF;
    return;
  }
  fp_to_bytes(out, &p->x);
  out[0] |= FLAG_COMP;
  if (fp_is_lex_largest(&p->y)) out[0] |= FLAG_SIGN;
}

void enc_g1_uncompressed(uint8_t out[96], const g1_affine_t *p) {
  if (g1_affine_is_inf(p)) {
    memset(out, 0, 96);
    out[0] = FLAG_INF;
    return;
  }
  fp_to_bytes(out, &p->x);
  fp_to_bytes(out + 48, &p->y);
}

void enc_g2_compress(uint8_t out[96], const g2_affine_t *p) {
  if (g2_affine_is_inf(p)) {
    memset(out, 0, 96);
    out[0] = FLAG_COMP | FLAG_INF;
    return;
  }
  fp2_to_bytes(out, &p->x);
  out[0] |= FLAG_COMP;
  if (fp2_is_lex_largest(&p->y)) out[0] |= FLAG_SIGN;
}

void enc_g2_uncompressed(uint8_t out[192], const g2_affine_t *p) {
  if (g2_affine_is_inf(p)) {
    memset(out, 0, 192);
    out[0] = FLAG_INF;
    return;
  }
  fp2_to_bytes(out, &p->x);
  fp2_to_bytes(out + 96, &p->y);
}

/* Checks the flags of an encoding of n bytes whose compressed length is ncomp. Returns
 * 1 for a valid infinity, 0 for a finite point to decode, or a negative ENC_ code. On
 * return *flags holds the top byte's three flag bits. */
static int check_flags(const uint8_t *in, size_t n, size_t ncomp, uint8_t *flags) {
  if (n != ncomp && n != 2 * ncomp) return ENC_EFLAGS;
  uint8_t f = in[0] & 0xe0;
  int comp = (f & FLAG_COMP) != 0;
  if (comp != (n == ncomp)) return ENC_EFLAGS;
  if (!comp && (f & FLAG_SIGN)) return ENC_EFLAGS;
  *flags = f;
  if (f & FLAG_INF) {
    if (f & FLAG_SIGN) return ENC_EINFINITY;
    if (in[0] & 0x1f) return ENC_EINFINITY;
    for (size_t i = 1; i < n; i++) {
      if (in[i]) return ENC_EINFINITY;
    }
    return 1;
  }
  return 0;
}

int enc_g1_decode(g1_affine_t *r, const uint8_t *in, size_t n) {
  uint8_t flags, buf[48];
  int rc = check_flags(in, n, 48, &flags);
  if (rc < 0) return rc;
  if (rc == 1) {
    g1_affine_set_inf(r);
    return ENC_OK;
  }
  g1_affine_t p;
  memcpy(buf, in, 48);
  buf[0] &= 0x1f;
  if (fp_from_bytes(&p.x, buf) != FP_OK) return ENC_ERANGE;
  if (flags & FLAG_COMP) {
    fp_t rhs, b = BLS_G1_B;
    fp_sqr(&rhs, &p.x);
    fp_mul(&rhs, &rhs, &p.x);
    fp_add(&rhs, &rhs, &b);
    if (!fp_sqrt(&p.y, &rhs)) return ENC_ENOT_ON_CURVE;
    if (fp_is_lex_largest(&p.y) != ((flags & FLAG_SIGN) != 0)) fp_neg(&p.y, &p.y);
  } else {
    if (fp_from_bytes(&p.y, in + 48) != FP_OK) return ENC_ERANGE;
    /* (0, 0) is our in-memory infinity, but without the flag it is an off-curve point. */
    if (g1_affine_is_inf(&p) || !g1_affine_is_on_curve(&p)) return ENC_ENOT_ON_CURVE;
  }
  if (!g1_affine_in_subgroup(&p)) return ENC_ESUBGROUP;
  *r = p;
  return ENC_OK;
}

int enc_g2_decode(g2_affine_t *r, const uint8_t *in, size_t n) {
  uint8_t flags, buf[96];
  int rc = check_flags(in, n, 96, &flags);
  if (rc < 0) return rc;
  if (rc == 1) {
    g2_affine_set_inf(r);
    return ENC_OK;
  }
  g2_affine_t p;
  memcpy(buf, in, 96);
  buf[0] &= 0x1f;
  if (fp2_from_bytes(&p.x, buf) != FP_OK) return ENC_ERANGE;
  if (flags & FLAG_COMP) {
    fp2_t rhs, b = BLS_G2_B;
    fp2_sqr(&rhs, &p.x);
    fp2_mul(&rhs, &rhs, &p.x);
    fp2_add(&rhs, &rhs, &b);
    if (!fp2_sqrt(&p.y, &rhs)) return ENC_ENOT_ON_CURVE;
    if (fp2_is_lex_largest(&p.y) != ((flags & FLAG_SIGN) != 0)) fp2_neg(&p.y, &p.y);
  } else {
    if (fp2_from_bytes(&p.y, in + 96) != FP_OK) return ENC_ERANGE;
    if (g2_affine_is_inf(&p) || !g2_affine_is_on_curve(&p)) return ENC_ENOT_ON_CURVE;
  }
  if (!g2_affine_in_subgroup(&p)) return ENC_ESUBGROUP;
  *r = p;
  return ENC_OK;
}
