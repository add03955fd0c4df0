/* Check suite of the CUDA backend's Montgomery multiplication, run on the CPU: the
 * operation sequence of prover/cuda/psf_mont.h (the very text the GPU compiles) is
 * executed here with an emulated PTX carry flag and compared with the reference field
 * code (fr_mul, fp_mul; Fp's squaring and its sums of 2 and 4 products with one
 * reduction too) on random operands, on edge values (0, 1, m-1, all-ones limbs
 * below m) and on operands near the top of the range, where the bounds the sequence
 * relies on are tightest. CI has no GPU; this is what keeps the GPU arithmetic honest
 * there. On the H200, tests/gpu_check.c compares the compiled kernels themselves. */
#include "ck.h"
#include <fenv.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fp.h"
#include "fr.h"
#include "vectors/vec.h"

/* The PTX carry flag, emulated. Each macro does what its PTX namesake does. */
static uint32_t cc;
/* Chains that end without carry-out must not overflow; counted here, asserted zero. */
static unsigned long overflows;
#define LO_(x, y) ((uint32_t)((uint64_t)(x) * (y)))
#define HI_(x, y) ((uint32_t)(((uint64_t)(x) * (y)) >> 32))
#define ADD3_(d, x, cin, setcc)                                         \
  do {                                                                  \
    uint64_t s_ = (uint64_t)(d) + (x) + (cin);                          \
    (d) = (uint32_t)s_;                                                 \
    if (setcc) cc = (uint32_t)(s_ >> 32);                               \
    else overflows += (s_ >> 32) != 0;                                  \
  } while (0)
#define PSF_OP_MUL_LO(d, x, y) ((d) = LO_(x, y))
#define PSF_OP_MUL_HI(d, x, y) ((d) = HI_(x, y))
#define PSF_OP_MAD_LO_CC(d, x, y) ADD3_(d, LO_(x, y), 0, 1)
#define PSF_OP_MADC_LO_CC(d, x, y) ADD3_(d, LO_(x, y), cc, 1)
#define PSF_OP_MADC_HI_CC(d, x, y) ADD3_(d, HI_(x, y), cc, 1)
#define PSF_OP_MADC_HI(d, x, y) ADD3_(d, HI_(x, y), cc, 0)
#define PSF_OP_ADD_CC(d, x) ADD3_(d, x, 0, 1)
#define PSF_OP_ADDC_CC(d, x) ADD3_(d, x, cc, 1)
#define PSF_OP_ADDC(d, x) ADD3_(d, x, cc, 0)
#define PSF_OP_MADC_HI_Z(d, x, y) \
  do {                              \
    (d) = 0;                        \
    ADD3_(d, HI_(x, y), cc, 0);     \
  } while (0)
#define PSF_OP_ADDC_Z(d) ((d) = cc)
#define SUB3_(d, x, bin, setcc)                                         \
  do {                                                                  \
    uint64_t s_ = (uint64_t)(d) - (x) - (bin);                          \
    (d) = (uint32_t)s_;                                                 \
    if (setcc) cc = (uint32_t)((s_ >> 32) & 1);                         \
    else overflows += (s_ >> 32) != 0;                                  \
  } while (0)
#define PSF_OP_SUB_CC(d, x) SUB3_(d, x, 0, 1)
#define PSF_OP_SUBC_CC(d, x) SUB3_(d, x, cc, 1)
#define PSF_OP_SUBC(d, x) SUB3_(d, x, cc, 0)
#define PSF_OP_SUB2_CC(d, x, y) \
  do {                          \
    (d) = (x);                  \
    SUB3_(d, y, 0, 1);          \
  } while (0)
#define PSF_OP_SUBC2_CC(d, x, y) \
  do {                           \
    (d) = (x);                   \
    SUB3_(d, y, cc, 1);          \
  } while (0)
#define PSF_OP_SUBC2_W(d, x, y) ((d) = (uint32_t)((uint64_t)(x) - (y) - cc)) /* wraps by design */
#define PSF_OP_ADD2_CC(d, x, y) \
  do {                          \
    (d) = (x);                  \
    ADD3_(d, y, 0, 1);          \
  } while (0)
#define PSF_OP_ADDC2_CC(d, x, y) \
  do {                           \
    (d) = (x);                   \
    ADD3_(d, y, cc, 1);          \
  } while (0)
#define PSF_OP_MADC_LO_CC_Z(d, x, y) \
  do {                               \
    (d) = 0;                         \
    ADD3_(d, LO_(x, y), cc, 1);      \
  } while (0)
#define PSF_OP_ADDC2(d, x, y) \
  do {                        \
    (d) = (x);                \
    ADD3_(d, y, cc, 0);       \
  } while (0)
/* The accumulators of the squaring and of the Karatsuba product's plain products start
 * as a pattern: a limb read before it is written gives a wrong result. */
#define PSF_SQR_POISON_(x) memset((x), 0xa5, sizeof(x))
#include "cuda/psf_mont.h"

/* t < 2m (n limbs): subtract m when t >= m, as the GPU's psf_reduce_once does. */
static void reduce_once(uint32_t *t, const uint32_t *mod, int n) {
  int ge = 1;
  for (int j = n - 1; j >= 0; j--)
    if (t[j] != mod[j]) {
      ge = t[j] > mod[j];
      break;
    }
  if (!ge) return;
  uint64_t br = 0;
  for (int j = 0; j < n; j++) {
    uint64_t d = (uint64_t)t[j] - mod[j] - br;
    t[j] = (uint32_t)d;
    br = (d >> 32) & 1;
  }
}

/* Which sequence emu_mul runs for 8 limbs: 0 the GPU's Fr one (PSF_MONT_BODY_R1, for r's
 * low limbs 1 and 2^32 - 1), 1 the general one, which the GPU runs for Fp's 12, 2 the
 * Karatsuba product with the reduction apart (PSF_MONT_KARA_R1). */
static int fr_general;

/* r = a*b/R mod m by the GPU sequence, then one conditional subtraction. */
static void emu_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *mod,
                    uint32_t inv, int n) {
  uint32_t t[12];
  if (n == 8 && fr_general == 0) PSF_MONT_BODY_R1(8, t, a, b, mod, inv);
  else if (n == 8 && fr_general == 2) PSF_MONT_KARA_R1(8, t, a, b, mod, inv);
  else if (n == 8) PSF_MONT_BODY(8, t, a, b, mod, inv);
  else PSF_MONT_BODY(12, t, a, b, mod, inv);
  reduce_once(t, mod, n);
  memcpy(r, t, sizeof(uint32_t) * (size_t)n);
  ck_assert_msg(overflows == 0, "a carry chain without carry-out overflowed");
}

/* r = a*a/R mod p by the GPU's squaring sequence (PSF_MONT_SQR), then the subtraction. */
static void emu_sqr(uint32_t *r, const uint32_t *a, const uint32_t *mod, uint32_t inv) {
  uint32_t t[12];
  PSF_MONT_SQR(12, t, a, mod, inv);
  reduce_once(t, mod, 12);
  memcpy(r, t, sizeof t);
  ck_assert_msg(overflows == 0, "a carry chain without carry-out overflowed");
}

/* r = (x[0] y[0] + ... + x[k-1] y[k-1])/R mod p by the GPU's sum of products
 * (PSF_MONT_SUM, one reduction; k = 2 or 4), then the subtraction. */
static void emu_sum(uint32_t *r, int k, const fp_t *x, const fp_t *y, const uint32_t *mod,
                    uint32_t inv) {
  uint32_t t[12];
  const uint32_t *C[3] = {x[1].v, x[2].v, x[3].v}, *D[3] = {y[1].v, y[2].v, y[3].v};
  if (k == 2) PSF_MONT_SUM(12, t, x[0].v, y[0].v, 1, C, D, mod, inv);
  else PSF_MONT_SUM(12, t, x[0].v, y[0].v, 3, C, D, mod, inv);
  reduce_once(t, mod, 12);
  memcpy(r, t, sizeof t);
  ck_assert_msg(overflows == 0, "a carry chain without carry-out overflowed");
}

/* The reference for emu_sum: k products and k - 1 additions of the CPU field code. */
static void ref_sum(fp_t *r, int k, const fp_t *x, const fp_t *y) {
  fp_t t;
  fp_mul(r, &x[0], &y[0]);
  for (int i = 1; i < k; i++) {
    fp_mul(&t, &x[i], &y[i]);
    fp_add(r, r, &t);
  }
}

static const fr_t FR_R = BLS_FR_R;
static const fp_t FP_P = BLS_FP_P;

/* Values that stress the bounds: 0, 1, m-1, m-2, and m minus a small random amount. */
static void edge_value(uint32_t *v, const uint32_t *mod, int n, int kind, uint64_t *s) {
  memset(v, 0, sizeof(uint32_t) * (size_t)n);
  if (kind == 0) return;
  if (kind == 1) {
    v[0] = 1;
    return;
  }
  memcpy(v, mod, sizeof(uint32_t) * (size_t)n);
  uint32_t sub = kind == 2 ? 1 : kind == 3 ? 2 : (uint32_t)(vec_rng(s) & 0xffff) + 1;
  uint64_t br = sub;
  for (int j = 0; j < n && br; j++) {
    uint64_t d = (uint64_t)v[j] - br;
    v[j] = (uint32_t)d;
    br = (d >> 32) & 1;
  }
}

/* The three 8-limb sequences, the GPU's first; the R1 ones rely on r's two low limbs. */
START_TEST(fr_random_operands) {
  uint64_t s = 1;
  ck_assert_uint_eq(FR_R.v[0], 1u);
  ck_assert_uint_eq(FR_R.v[1], 0xffffffffu);
  fr_general = _i;
  for (int i = 0; i < 200000; i++) {
    fr_t a, b, want, got;
    fr_random(&a, vec_rng, &s);
    fr_random(&b, vec_rng, &s);
    fr_mul(&want, &a, &b);
    emu_mul(got.v, a.v, b.v, FR_R.v, BLS_FR_INV32, 8);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fr product %d differs", i);
  }
}
END_TEST

START_TEST(fp_random_operands) {
  uint64_t s = 2;
  for (int i = 0; i < 100000; i++) {
    fp_t a, b, want, got;
    fp_random(&a, vec_rng, &s);
    fp_random(&b, vec_rng, &s);
    fp_mul(&want, &a, &b);
    emu_mul(got.v, a.v, b.v, FP_P.v, BLS_FP_INV32, 12);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fp product %d differs", i);
    fp_mul(&want, &a, &a);
    emu_sqr(got.v, a.v, FP_P.v, BLS_FP_INV32);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fp square %d differs", i);
  }
  for (int i = 0; i < 50000; i++) {
    fp_t x[4], y[4], want, got;
    for (int j = 0; j < 4; j++) {
      fp_random(&x[j], vec_rng, &s);
      fp_random(&y[j], vec_rng, &s);
    }
    for (int k = 2; k <= 4; k += 2) {
      ref_sum(&want, k, x, y);
      emu_sum(got.v, k, x, y, FP_P.v, BLS_FP_INV32);
      ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fp sum of %d products %d differs", k, i);
    }
  }
}
END_TEST

START_TEST(edge_operands) {
  uint64_t s = 3;
  for (int ka = 0; ka < 6; ka++)
    for (int kb = 0; kb < 6; kb++) {
      fr_t a, b, want, got;
      fp_t x, y, fwant, fgot;
      edge_value(a.v, FR_R.v, 8, ka, &s);
      edge_value(b.v, FR_R.v, 8, kb, &s);
      fr_mul(&want, &a, &b);
      emu_mul(got.v, a.v, b.v, FR_R.v, BLS_FR_INV32, 8);
      ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fr edge %d x %d differs", ka, kb);
      fr_general = 2; /* the Karatsuba sequence on the same operands */
      emu_mul(got.v, a.v, b.v, FR_R.v, BLS_FR_INV32, 8);
      fr_general = 0;
      ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fr edge %d x %d differs (Karatsuba)", ka, kb);
      edge_value(x.v, FP_P.v, 12, ka, &s);
      edge_value(y.v, FP_P.v, 12, kb, &s);
      fp_mul(&fwant, &x, &y);
      emu_mul(fgot.v, x.v, y.v, FP_P.v, BLS_FP_INV32, 12);
      ck_assert_msg(memcmp(&fwant, &fgot, sizeof fwant) == 0, "Fp edge %d x %d differs", ka, kb);
      fp_mul(&fwant, &x, &x);
      emu_sqr(fgot.v, x.v, FP_P.v, BLS_FP_INV32);
      ck_assert_msg(memcmp(&fwant, &fgot, sizeof fwant) == 0, "Fp edge %d squared differs", ka);
      /* sums: every pair (edge ka) x (edge kb), and the pairs' kinds rotated */
      fp_t xs[4], ys[4];
      for (int rot = 0; rot < 2; rot++) {
        for (int j = 0; j < 4; j++) {
          edge_value(xs[j].v, FP_P.v, 12, rot ? (ka + j) % 6 : ka, &s);
          edge_value(ys[j].v, FP_P.v, 12, rot ? (kb + 2 * j) % 6 : kb, &s);
        }
        for (int k = 2; k <= 4; k += 2) {
          ref_sum(&fwant, k, xs, ys);
          emu_sum(fgot.v, k, xs, ys, FP_P.v, BLS_FP_INV32);
          ck_assert_msg(memcmp(&fwant, &fgot, sizeof fwant) == 0, "Fp edge sum of %d (%d, %d, %d) differs",
                        k, ka, kb, rot);
        }
      }
    }
}
END_TEST

/* A sequence that dropped a carry would still agree on most random operands; operands
 * whose limbs are mostly all-ones make every carry fire. */
START_TEST(carry_heavy_operands) {
  uint64_t s = 4;
  for (int i = 0; i < 50000; i++) {
    fr_t a, b, want, got;
    fp_t x, y, fwant, fgot;
    for (int j = 0; j < 8; j++) {
      a.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
      b.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
    }
    for (int j = 0; j < 12; j++) {
      x.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
      y.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
    }
    /* keep them below the modulus by clearing top bits (the top limb of m is smaller) */
    a.v[7] &= 0x3fffffff;
    b.v[7] &= 0x3fffffff;
    x.v[11] &= 0x0fffffff;
    y.v[11] &= 0x0fffffff;
    fr_mul(&want, &a, &b);
    emu_mul(got.v, a.v, b.v, FR_R.v, BLS_FR_INV32, 8);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fr carry-heavy %d differs", i);
    fr_general = 2;
    emu_mul(got.v, a.v, b.v, FR_R.v, BLS_FR_INV32, 8);
    fr_general = 0;
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "Fr carry-heavy %d differs (Karatsuba)", i);
    fp_mul(&fwant, &x, &y);
    emu_mul(fgot.v, x.v, y.v, FP_P.v, BLS_FP_INV32, 12);
    ck_assert_msg(memcmp(&fwant, &fgot, sizeof fwant) == 0, "Fp carry-heavy %d differs", i);
    fp_mul(&fwant, &x, &x);
    emu_sqr(fgot.v, x.v, FP_P.v, BLS_FP_INV32);
    ck_assert_msg(memcmp(&fwant, &fgot, sizeof fwant) == 0, "Fp carry-heavy square %d differs", i);
    if (i % 4) continue; /* sums on a quarter of them */
    fp_t xs[4], ys[4];
    for (int k = 0; k < 4; k++)
      for (int j = 0; j < 12; j++) {
        xs[k].v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
        ys[k].v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
        if (j == 11) xs[k].v[j] &= 0x0fffffff, ys[k].v[j] &= 0x0fffffff;
      }
    for (int k = 2; k <= 4; k += 2) {
      ref_sum(&fwant, k, xs, ys);
      emu_sum(fgot.v, k, xs, ys, FP_P.v, BLS_FP_INV32);
      ck_assert_msg(memcmp(&fwant, &fgot, sizeof fwant) == 0, "Fp carry-heavy sum of %d, %d differs", k, i);
    }
  }
}
END_TEST

/* ---- The FP64 product (prover/cuda/psf_fp64.h) on the CPU's doubles (psd_cpu.h), its
 * FMAs rounding toward zero as the GPU's __fma_rz does. */
#include "psd_cpu.h"

static const uint64_t FR_R52[5] = PSD_FR_R52;

/* got = a * w / 2^256 mod r by the FP64 sequence, fed 16 w mod r; asserts the sequence's
 * result is below 2r before the one subtraction. */
static void fp64_mul(fr_t *got, const fr_t *a, const fr_t *w) {
  fr_t w16 = *w;
  for (int k = 0; k < 4; k++) fr_dbl(&w16, &w16);
  ck_assert_msg(!psd_cpu_fr_mul(got->v, a->v, w16.v), "the FP64 sequence left a value of 2r or more");
}

/* a mod r for any 8 words (a < 2^256 < 3r). */
static void fr_mod_any(fr_t *r, const fr_t *a) {
  *r = *a;
  for (int k = 0; k < 2; k++) reduce_once(r->v, FR_R.v, 8);
}

START_TEST(fp64_constants) {
  uint64_t l[5];
  psd_limbs(l, FR_R.v);
  for (int k = 0; k < 5; k++) ck_assert_msg(l[k] == FR_R52[k], "r's 52-bit limb %d", k);
  ck_assert_msg(((FR_R52[0] * PSD_FR_NINV52 + 1) & PSD_M52) == 0, "-r^-1 mod 2^52");
  /* each limb has the words' bits it should, and the limbs give the words back */
  uint64_t s = 7;
  for (int i = 0; i < 10000; i++) {
    uint32_t x[8], y[8];
    for (int j = 0; j < 8; j++) x[j] = (uint32_t)vec_rng(&s);
    psd_limbs(l, x);
    for (int k = 0; k < 5; k++) ck_assert(l[k] <= PSD_M52);
    for (int k = 0; k < 5; k++) {
      uint64_t v = 0; /* limb k by bits, from the words */
      for (int b = 0; b < 52 && 52 * k + b < 256; b++) v |= (uint64_t)(x[(52 * k + b) / 32] >> ((52 * k + b) % 32) & 1) << b;
      ck_assert_msg(l[k] == v, "limb %d of value %d", k, i);
    }
    psd_words(y, l);
    ck_assert_msg(memcmp(x, y, sizeof x) == 0, "the limbs of value %d back to words", i);
  }
}
END_TEST

/* Random a < r and w < r, every a of 8 random words (up to 2^256 - 1, the bound the NTT's
 * unreduced inputs may reach), and the edge values of both, against fr_mul. */
START_TEST(fp64_products) {
  int mode = psd_cpu_toward_zero();
  uint64_t s = 11;
  fr_t a, w, am, want, got;
  for (int i = 0; i < 200000; i++) {
    fr_random(&a, vec_rng, &s);
    fr_random(&w, vec_rng, &s);
    fr_mul(&want, &a, &w);
    fp64_mul(&got, &a, &w);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "FP64 product %d differs", i);
    for (int j = 0; j < 8; j++) a.v[j] = (uint32_t)vec_rng(&s);
    fr_mod_any(&am, &a);
    fr_mul(&want, &am, &w);
    fp64_mul(&got, &a, &w);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "FP64 product %d (a of any 256 bits) differs", i);
  }
  for (int ka = 0; ka < 6; ka++)
    for (int kw = 0; kw < 5; kw++)
      for (int rep = 0; rep < 20; rep++) {
        edge_value(w.v, FR_R.v, 8, kw, &s);
        if (ka == 5) memset(a.v, 0xff, sizeof a.v); /* 2^256 - 1 */
        else edge_value(a.v, FR_R.v, 8, ka, &s);
        fr_mod_any(&am, &a);
        fr_mul(&want, &am, &w);
        fp64_mul(&got, &a, &w);
        ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "FP64 edge product (%d, %d) differs", ka, kw);
      }
  fesetround(mode);
}
END_TEST

/* Operands whose limbs are all at or near 2^52 - 1, where every column is fullest and
 * every limb product's low word is largest. */
START_TEST(fp64_full_limbs) {
  int mode = psd_cpu_toward_zero();
  uint64_t s = 13;
  for (int i = 0; i < 20000; i++) {
    fr_t a, w, am, want, got;
    for (int j = 0; j < 8; j++) a.v[j] = 0xffffffffu - (uint32_t)(vec_rng(&s) & (i & 1 ? 0xff : 0));
    /* w just below r: r - small */
    edge_value(w.v, FR_R.v, 8, 4, &s);
    fr_mod_any(&am, &a);
    fr_mul(&want, &am, &w);
    fp64_mul(&got, &a, &w);
    ck_assert_msg(memcmp(&want, &got, sizeof want) == 0, "FP64 full-limb product %d differs", i);
  }
  fesetround(mode);
}
END_TEST

/* ---- Lazy reduction (psf_mont.h, "Lazy reduction"; the NTT's PSC_NTT_REDUCE=lazy) ---- */
#include "cuda/ntt_r4.h"

static const fr_t FR_2R = BLS_FR_2R;

/* a < b as 8-limb integers */
static int lt8(const uint32_t *a, const uint32_t *b) {
  for (int j = 7; j >= 0; j--)
    if (a[j] != b[j]) return a[j] < b[j];
  return 0;
}
/* x + r (x < r, so below 2r and 2^256) */
static void plus_r(fr_t *x) {
  uint64_t c = 0;
  for (int j = 0; j < 8; j++) {
    c += (uint64_t)x->v[j] + FR_R.v[j];
    x->v[j] = (uint32_t)c;
    c >>= 32;
  }
}
/* A lazily reduced value: below r, or the same plus r; edge kinds 6.. give 2r - 1, r and
 * r + 1 */
static void lazy_value(fr_t *x, int kind, uint64_t *s) {
  if (kind < 6) {
    edge_value(x->v, FR_R.v, 8, kind, s);
    if (vec_rng(s) & 1) plus_r(x);
    return;
  }
  if (kind == 6) {
    edge_value(x->v, FR_R.v, 8, 2, s), plus_r(x); /* 2r - 1 */
  } else if (kind == 7) {
    *x = FR_R;
  } else if (kind == 8) {
    memset(x, 0, sizeof *x), x->v[0] = 1, plus_r(x);
  } else {
    fr_random(x, vec_rng, s);
    if (vec_rng(s) & 1) plus_r(x);
  }
}

/* The device functions of ps_field.cuh, on the emulated flag: each asserts that its result
 * is below 2r and that no chain without carry-out overflowed. */
static void lz_mul(fr_t *r, const fr_t *w, const fr_t *x) {
  uint32_t t[8];
  PSF_MONT_BODY_R1(8, t, w->v, x->v, FR_R.v, BLS_FR_INV32);
  ck_assert_msg(overflows == 0, "a carry chain without carry-out overflowed");
  ck_assert_msg(lt8(t, FR_2R.v), "the lazy product left a value of 2r or more");
  memcpy(r->v, t, sizeof t);
}
static void lz_add(fr_t *r, const fr_t *a, const fr_t *b) {
  PSF_ADD_LAZY(8, r->v, a->v, b->v, FR_2R.v);
  ck_assert_msg(lt8(r->v, FR_2R.v), "the lazy sum left a value of 2r or more");
}
static void lz_sub(fr_t *r, const fr_t *a, const fr_t *b) {
  PSF_SUB_LAZY(8, r->v, a->v, b->v, FR_2R.v);
  ck_assert_msg(lt8(r->v, FR_2R.v), "the lazy difference left a value of 2r or more");
}

START_TEST(lazy_operations) {
  uint64_t s = 5;
  fr_t r2 = FR_R;
  plus_r(&r2);
  ck_assert_msg(memcmp(&r2, &FR_2R, sizeof r2) == 0, "BLS_FR_2R is r + r");
  for (int i = 0; i < 100000; i++) {
    const int ka = i < 100 ? i / 10 : 9, kb = i < 100 ? i % 10 : 9;
    fr_t w, a, b, ca, cb, want, got, cg;
    fr_random(&w, vec_rng, &s);
    if (i < 100) edge_value(w.v, FR_R.v, 8, i % 6, &s);
    lazy_value(&a, ka, &s);
    lazy_value(&b, kb, &s);
    fr_mod_any(&ca, &a), fr_mod_any(&cb, &b);
    fr_mul(&want, &w, &ca);
    lz_mul(&got, &w, &a);
    fr_mod_any(&cg, &got);
    ck_assert_msg(memcmp(&want, &cg, sizeof want) == 0, "lazy product %d (%d) differs", i, ka);
    fr_add(&want, &ca, &cb);
    lz_add(&got, &a, &b);
    fr_mod_any(&cg, &got);
    ck_assert_msg(memcmp(&want, &cg, sizeof want) == 0, "lazy sum %d (%d, %d) differs", i, ka, kb);
    fr_sub(&want, &ca, &cb);
    lz_sub(&got, &a, &b);
    fr_mod_any(&cg, &got);
    ck_assert_msg(memcmp(&want, &cg, sizeof want) == 0, "lazy difference %d (%d, %d) differs", i, ka, kb);
  }
  /* carry-heavy: words mostly all ones, below 2r by the top word */
  for (int i = 0; i < 50000; i++) {
    fr_t w, a, b, ca, cb, want, got, cg;
    for (int j = 0; j < 8; j++) {
      w.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
      a.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
      b.v[j] = (vec_rng(&s) & 3) ? 0xffffffffu : (uint32_t)vec_rng(&s);
    }
    w.v[7] &= 0x3fffffff, a.v[7] &= 0xbfffffff, b.v[7] &= 0xbfffffff;
    if (!lt8(a.v, FR_2R.v) || !lt8(b.v, FR_2R.v)) continue;
    fr_mod_any(&ca, &a), fr_mod_any(&cb, &b);
    fr_mul(&want, &w, &ca);
    lz_mul(&got, &w, &a);
    fr_mod_any(&cg, &got);
    ck_assert_msg(memcmp(&want, &cg, sizeof want) == 0, "carry-heavy lazy product %d differs", i);
    fr_add(&want, &ca, &cb);
    lz_add(&got, &a, &b);
    fr_mod_any(&cg, &got);
    ck_assert_msg(memcmp(&want, &cg, sizeof want) == 0, "carry-heavy lazy sum %d differs", i);
    fr_sub(&want, &ca, &cb);
    lz_sub(&got, &a, &b);
    fr_mod_any(&cg, &got);
    ck_assert_msg(memcmp(&want, &cg, sizeof want) == 0, "carry-heavy lazy difference %d differs", i);
  }
}
END_TEST

/* The radix-4 butterflies of the NTT's passes (ntt_r4.h's NTT_R4_BUTTERFLIES, the macro the
 * kernel expands) with the lazy operations, as a lazily reduced pass runs them, against the
 * same macro with the reference field code: groups fed back into themselves for 24
 * steps (the stage pairs of a transform of 2^48), DIF and DIT, every
 * combination of twiddles present, and the canonical results equal at every step. */
#define REF_ADD(r, a, b) fr_add(r, a, b)
#define REF_SUB(r, a, b) fr_sub(r, a, b)
#define REF_MUL(r, a, w, i) fr_mul(r, a, &(w)[i])
#define LZ_MUL(r, a, w, i) lz_mul(r, &(w)[i], a)
START_TEST(lazy_butterflies) {
  uint64_t s = 6;
  for (int g = 0; g < 4000; g++) {
    const int dit = g & 1;
    bool has[3] = {(g >> 1) & 1, (g >> 2) & 1, (g >> 3) & 1};
    fr_t x[4], y[4], w[3];
    for (int i = 0; i < 4; i++) {
      fr_random(&x[i], vec_rng, &s);
      y[i] = x[i];
    }
    for (int step = 0; step < 24; step++) {
      for (int i = 0; i < 3; i++) fr_random(&w[i], vec_rng, &s);
      if (step == 0 && g < 16) edge_value(w[0].v, FR_R.v, 8, 2, &s); /* r - 1 */
      NTT_R4_BUTTERFLIES(fr_t, y, w, has, dit, REF_ADD, REF_SUB, REF_MUL);
      NTT_R4_BUTTERFLIES(fr_t, x, w, has, dit, lz_add, lz_sub, LZ_MUL);
      for (int i = 0; i < 4; i++) {
        fr_t c;
        fr_mod_any(&c, &x[i]);
        ck_assert_msg(memcmp(&c, &y[i], sizeof c) == 0, "group %d, step %d, element %d differs", g, step, i);
      }
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("montmul");
  TCase *tc = tcase_create("gpu sequence");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, fr_random_operands, 0, 3);
  tcase_add_test(tc, fp_random_operands);
  tcase_add_test(tc, edge_operands);
  tcase_add_test(tc, carry_heavy_operands);
  tcase_add_test(tc, fp64_constants);
  tcase_add_test(tc, fp64_products);
  tcase_add_test(tc, fp64_full_limbs);
  tcase_add_test(tc, lazy_operations);
  tcase_add_test(tc, lazy_butterflies);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
