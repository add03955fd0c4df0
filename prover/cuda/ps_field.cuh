/* Device arithmetic of BLS12-381's fields for the CUDA backend: Fr (8 limbs) and Fp (12
 * limbs) in Montgomery form with 32-bit limbs, and Fp2 = Fp[u]/(u^2+1). The layouts and
 * constants come from prover/bls12_381.h, shared with the plain-C backend, so a value
 * copied between host and device needs no conversion. Multiplication is CIOS Montgomery
 * with PTX carry chains split into even and odd limbs (psf_mont.h explains why, and
 * tests/test_montmul.c checks the sequence on the CPU); both moduli leave a spare top
 * bit, so one conditional subtraction ends it. */
#ifndef PROVESIM_PS_FIELD_CUH
#define PROVESIM_PS_FIELD_CUH

#include <stdint.h>

#include "../bls12_381.h"

static __constant__ fp_t c_fp_p = BLS_FP_P;
static __constant__ fp_t c_fp_one = BLS_FP_ONE;
static __constant__ fp_t c_fp_pm2 = BLS_FP_P_MINUS_2;
static __constant__ fr_t c_fr_r = BLS_FR_R;
static __constant__ fr_t c_fr_one = BLS_FR_ONE;
static __constant__ fr_t c_fr_2r = BLS_FR_2R; /* the lazily reduced values' bound (psf_mont.h) */
/* Fr's -r^-1 mod 2^32 is W - 1. Given as a literal, ptxas turns each reduction step's m
 * into a negation and then leaves 6 of the step's 8 lo/hi product pairs unfused (an
 * IMAD.X and an IMAD.HI.U32.X each instead of one IMAD.WIDE.U32.X; nvdisasm of fr_mul_d:
 * 192 multiply instructions against 125 read from here). Read from constant memory, the
 * value is opaque to it and every pair fuses. */
static __constant__ uint32_t c_fr_inv32 = BLS_FR_INV32;

#define PSF_INL static __device__ __forceinline__

/* Field elements, and points made of them, moved between registers and device memory 16
 * bytes at a time. fr_t and fp_t are structs of 32-bit words, so a plain copy is a load
 * or store a word: an Fr twiddle read was 8 load instructions, each its own L1 request
 * when a warp's lanes read scattered entries. Every device array of them is 16-byte
 * aligned: cudaMalloc returns 256-byte aligned memory and the types' sizes are multiples
 * of 16 bytes. psf_ldg reads through the read-only path: only for data no thread writes
 * while the kernel runs. */
template <bool RO, typename T> PSF_INL void psf_ld_(T *r, const T *p) {
  static_assert(sizeof(T) % 16 == 0, "a whole number of 16-byte vectors");
  const uint4 *s = reinterpret_cast<const uint4 *>(p);
  uint32_t *w = reinterpret_cast<uint32_t *>(r);
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 16; i++) {
    const uint4 u = RO ? __ldg(&s[i]) : s[i];
    w[4 * i] = u.x, w[4 * i + 1] = u.y, w[4 * i + 2] = u.z, w[4 * i + 3] = u.w;
  }
}
template <typename T> PSF_INL void psf_ld(T *r, const T *p) { psf_ld_<false>(r, p); }
template <typename T> PSF_INL void psf_ldg(T *r, const T *p) { psf_ld_<true>(r, p); }
template <typename T> PSF_INL void psf_st(T *p, const T *v) {
  static_assert(sizeof(T) % 16 == 0, "a whole number of 16-byte vectors");
  uint4 *d = reinterpret_cast<uint4 *>(p);
  const uint32_t *w = reinterpret_cast<const uint32_t *>(v);
#pragma unroll
  for (unsigned i = 0; i < sizeof(T) / 16; i++) d[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
}

/* PTX for the carry-chain operations of psf_mont.h. A pair madc.lo.cc/madc.hi.cc of one
 * product on adjacent limbs becomes a single IMAD.WIDE.U32.X on sm_90. The statements
 * are volatile so the compiler keeps their order, which carries the flag between them. */
#define PSF_OP_MUL_LO(d, x, y) asm volatile("mul.lo.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_MUL_HI(d, x, y) asm volatile("mul.hi.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_MAD_LO_CC(d, x, y) asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(x), "r"(y))
#define PSF_OP_MADC_LO_CC(d, x, y) asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(x), "r"(y))
#define PSF_OP_MADC_HI_CC(d, x, y) asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(x), "r"(y))
#define PSF_OP_MADC_HI(d, x, y) asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(x), "r"(y))
#define PSF_OP_ADD_CC(d, x) asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define PSF_OP_ADDC_CC(d, x) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define PSF_OP_ADDC(d, x) asm volatile("addc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define PSF_OP_MADC_HI_Z(d, x, y) asm volatile("madc.hi.u32 %0, %1, %2, 0;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_ADDC_Z(d) asm volatile("addc.u32 %0, 0, 0;" : "=r"(d))
#define PSF_OP_SUB_CC(d, x) asm volatile("sub.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define PSF_OP_SUBC_CC(d, x) asm volatile("subc.cc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define PSF_OP_SUBC(d, x) asm volatile("subc.u32 %0, %0, %1;" : "+r"(d) : "r"(x))
#define PSF_OP_ADD2_CC(d, x, y) asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_ADDC2_CC(d, x, y) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_ADDC2(d, x, y) asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_MADC_LO_CC_Z(d, x, y) asm volatile("madc.lo.cc.u32 %0, %1, %2, 0;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_SUB2_CC(d, x, y) asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_SUBC2_CC(d, x, y) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#define PSF_OP_SUBC2_W(d, x, y) asm volatile("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y))
#include "psf_mont.h"

/* r = t - m if t >= m else t (t < 2m, N limbs). */
#define PSF_REDUCE_ONCE(N)                                                                 \
  PSF_INL void psf_reduce_once_##N(uint32_t *r, const uint32_t *t, const uint32_t *mod) {  \
    uint32_t s[N], borrow;                                                                 \
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(mod[0]));                   \
    _Pragma("unroll") for (int j = 1; j < N; j++)                                          \
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[j]) : "r"(t[j]), "r"(mod[j]));                \
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));                                              \
    _Pragma("unroll") for (int j = 0; j < N; j++) r[j] = borrow ? t[j] : s[j];             \
  }                                                                                        \
  /* r = a + b mod m (a, b < m; m has a spare top bit so a + b fits). */                  \
  PSF_INL void psf_add_##N(uint32_t *r, const uint32_t *a, const uint32_t *b,              \
                           const uint32_t *mod) {                                          \
    uint32_t t[N];                                                                         \
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));                     \
    _Pragma("unroll") for (int j = 1; j < N; j++)                                          \
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));                  \
    psf_reduce_once_##N(r, t, mod);                                                        \
  }                                                                                        \
  /* r = a - b mod m. */                                                                   \
  PSF_INL void psf_sub_##N(uint32_t *r, const uint32_t *a, const uint32_t *b,              \
                           const uint32_t *mod) {                                          \
    uint32_t t[N], s[N], borrow;                                                           \
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(b[0]));                     \
    _Pragma("unroll") for (int j = 1; j < N; j++)                                          \
      asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(t[j]) : "r"(a[j]), "r"(b[j]));                  \
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));                                              \
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(mod[0]));                   \
    _Pragma("unroll") for (int j = 1; j < N; j++)                                          \
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[j]) : "r"(t[j]), "r"(mod[j]));                \
    _Pragma("unroll") for (int j = 0; j < N; j++) r[j] = borrow ? s[j] : t[j];             \
  }                                                                                        \
  PSF_INL int psf_is_zero_##N(const uint32_t *a) {                                         \
    uint32_t x = 0;                                                                        \
    _Pragma("unroll") for (int j = 0; j < N; j++) x |= a[j];                               \
    return x == 0;                                                                         \
  }                                                                                        \
  PSF_INL int psf_eq_##N(const uint32_t *a, const uint32_t *b) {                           \
    uint32_t x = 0;                                                                        \
    _Pragma("unroll") for (int j = 0; j < N; j++) x |= a[j] ^ b[j];                        \
    return x == 0;                                                                         \
  }

PSF_REDUCE_ONCE(8)
PSF_REDUCE_ONCE(12)

/* ---- Fr ---- */
PSF_INL void fr_mul_d(fr_t *rr, const fr_t *aa, const fr_t *bb) {
  const uint32_t *a = aa->v, *b = bb->v, *MOD = c_fr_r.v;
  uint32_t t[8];
  PSF_MONT_BODY_R1(8, t, a, b, MOD, c_fr_inv32); /* r's limbs 0 and 1 are 1 and 2^32 - 1 */
  psf_reduce_once_8(rr->v, t, MOD);
}
/* The same product by Karatsuba's split, the reduction apart (psf_mont.h,
 * PSF_MONT_KARA_R1): fewer wide multiplications, more additions. Checked on the CPU by
 * tests/test_montmul.c; 6-13% slower than fr_mul_d in the NTT on the H200, and used nowhere
 * by default (the NTT's radix-4 passes take it under PSC_NTT_MUL=karatsuba). */
PSF_INL void fr_mul_kara_d(fr_t *rr, const fr_t *aa, const fr_t *bb) {
  const uint32_t *a = aa->v, *b = bb->v, *MOD = c_fr_r.v;
  uint32_t t[8];
  PSF_MONT_KARA_R1(8, t, a, b, MOD, c_fr_inv32);
  psf_reduce_once_8(rr->v, t, MOD);
}
/* The product on the FP64 pipe (psf_fp64.h) by a constant kept as 52-bit limbs in
 * doubles (fr52_t: 16 w, split once, d[5] unused so that an entry is three 16-byte
 * loads): r = a * 16 w / 2^260 mod r, fr_mul_d's a * w / 2^256. Checked on the CPU by
 * tests/test_montmul.c; in the NTT on the H200 slower than fr_mul_d, alone or beside it
 * (docs/performance.md, "Fr's product on the FP64 pipe"), and used nowhere by default (the
 * NTT's radix-4 passes take it under PSC_NTT_MUL=fp64 or mixed, with tables of fr52_t). */
#define PSD_FN static __device__ __forceinline__
#define PSD_FMA_RZ(x, y, z) __fma_rz(x, y, z)
#define PSD_BITS(x) ((uint64_t)__double_as_longlong(x))
#define PSD_DBL(u) __longlong_as_double((long long)(u))
#include "psf_fp64.h"
typedef struct __align__(16) fr52_t {
  double d[6];
} fr52_t;
static __constant__ double c_fr_r52d[5] = PSD_FR_R52;
/* w as fr52_t: its 52-bit limbs of 16 w mod r, w in Montgomery form (a table entry). */
PSF_INL void fr52_from_d(fr52_t *r, const fr_t *w16) {
  psd_split(r->d, w16->v);
  r->d[5] = 0;
}
PSF_INL void fr_mul_fp64_d(fr_t *rr, const fr_t *aa, const fr52_t *w) {
  uint32_t t[8];
  psd_mont_mul(t, aa->v, w->d, c_fr_r52d, PSD_FR_NINV52);
  psf_reduce_once_8(rr->v, t, c_fr_r.v);
}
PSF_INL void fr_add_d(fr_t *r, const fr_t *a, const fr_t *b) { psf_add_8(r->v, a->v, b->v, c_fr_r.v); }
PSF_INL void fr_sub_d(fr_t *r, const fr_t *a, const fr_t *b) { psf_sub_8(r->v, a->v, b->v, c_fr_r.v); }
PSF_INL int fr_is_zero_d(const fr_t *a) { return psf_is_zero_8(a->v); }
/* Lazily reduced Fr (psf_mont.h, "Lazy reduction"): values in [0, 2r). The product takes
 * w < r, added whole every row, and x < 2r, read a limb a row, and skips the final
 * subtraction; the sum and difference of values < 2r stay below 2r; fr_canon_d takes a
 * value < 2r to [0, r). */
PSF_INL void fr_mul_lazy_d(fr_t *rr, const fr_t *ww, const fr_t *xx) {
  const uint32_t *w = ww->v, *x = xx->v, *MOD = c_fr_r.v;
  uint32_t t[8];
  PSF_MONT_BODY_R1(8, t, w, x, MOD, c_fr_inv32);
#pragma unroll
  for (int j = 0; j < 8; j++) rr->v[j] = t[j];
}
PSF_INL void fr_add_lazy_d(fr_t *r, const fr_t *a, const fr_t *b) { PSF_ADD_LAZY(8, r->v, a->v, b->v, c_fr_2r.v); }
PSF_INL void fr_sub_lazy_d(fr_t *r, const fr_t *a, const fr_t *b) { PSF_SUB_LAZY(8, r->v, a->v, b->v, c_fr_2r.v); }
PSF_INL void fr_canon_d(fr_t *r, const fr_t *a) { psf_reduce_once_8(r->v, a->v, c_fr_r.v); }

/* From Montgomery form to the canonical integer: a * 1 / R. */
PSF_INL void fr_from_mont_d(fr_t *r, const fr_t *a) {
  fr_t one;
#pragma unroll
  for (int j = 0; j < 8; j++) one.v[j] = j == 0;
  fr_mul_d(r, a, &one);
}

/* ---- Fp ---- */
PSF_INL void fp_mul_i(fp_t *rr, const fp_t *aa, const fp_t *bb) {
  const uint32_t *a = aa->v, *b = bb->v, *MOD = c_fp_p.v;
  uint32_t t[12];
  PSF_MONT_BODY(12, t, a, b, MOD, BLS_FP_INV32);
  psf_reduce_once_12(rr->v, t, MOD);
}
/* a^2: the off-diagonal products once, then the reduction (psf_mont.h, PSF_MONT_SQR). */
PSF_INL void fp_sqr_i(fp_t *rr, const fp_t *aa) {
  const uint32_t *a = aa->v, *MOD = c_fp_p.v;
  uint32_t t[12];
  PSF_MONT_SQR(12, t, a, MOD, BLS_FP_INV32);
  psf_reduce_once_12(rr->v, t, MOD);
}
PSF_INL void fp_add_d(fp_t *r, const fp_t *a, const fp_t *b) { psf_add_12(r->v, a->v, b->v, c_fp_p.v); }
PSF_INL void fp_sub_d(fp_t *r, const fp_t *a, const fp_t *b) { psf_sub_12(r->v, a->v, b->v, c_fp_p.v); }
PSF_INL void fp_neg_d(fp_t *r, const fp_t *a) {
  fp_t z;
#pragma unroll
  for (int j = 0; j < 12; j++) z.v[j] = 0;
  fp_sub_d(r, &z, a);
}
/* r = a b - c d with one reduction for both products (PSF_MONT_SUM over a b and (-c) d):
 * 432 wide products against 576 for two fp_mul_d. r may be any of the operands. */
PSF_INL void fp_mulsub_i(fp_t *rr, const fp_t *a, const fp_t *b, const fp_t *c, const fp_t *d) {
  fp_t nc;
  fp_neg_d(&nc, c);
  const uint32_t *C[1] = {nc.v}, *D[1] = {d->v};
  uint32_t t[12];
  PSF_MONT_SUM(12, t, a->v, b->v, 1, C, D, c_fp_p.v, BLS_FP_INV32);
  psf_reduce_once_12(rr->v, t, c_fp_p.v);
}
/* The products as kernels call them: inline, or, in a translation unit that defines
 * PSF_FP_CALL before including this file, one out-of-line copy of each, called with
 * values (so the operands stay in registers), which keeps a loop of many products small
 * enough for the instruction cache. msm_g1.cu does: fully inlined, G1's bucket sums
 * waited for instructions about a fifth of the time (docs/performance.md, "G1's bucket
 * sums: one copy of each product"). */
#ifdef PSF_FP_CALL
static __device__ __noinline__ fp_t fp_mul_c(fp_t a, fp_t b) { fp_t r; fp_mul_i(&r, &a, &b); return r; }
static __device__ __noinline__ fp_t fp_sqr_c(fp_t a) { fp_t r; fp_sqr_i(&r, &a); return r; }
static __device__ __noinline__ fp_t fp_mulsub_c(fp_t a, fp_t b, fp_t c, fp_t d) {
  fp_t r;
  fp_mulsub_i(&r, &a, &b, &c, &d);
  return r;
}
PSF_INL void fp_mul_d(fp_t *r, const fp_t *a, const fp_t *b) { *r = fp_mul_c(*a, *b); }
PSF_INL void fp_sqr_d(fp_t *r, const fp_t *a) { *r = fp_sqr_c(*a); }
PSF_INL void fp_mulsub_d(fp_t *r, const fp_t *a, const fp_t *b, const fp_t *c, const fp_t *d) {
  *r = fp_mulsub_c(*a, *b, *c, *d);
}
#else
PSF_INL void fp_mul_d(fp_t *r, const fp_t *a, const fp_t *b) { fp_mul_i(r, a, b); }
PSF_INL void fp_sqr_d(fp_t *r, const fp_t *a) { fp_sqr_i(r, a); }
PSF_INL void fp_mulsub_d(fp_t *r, const fp_t *a, const fp_t *b, const fp_t *c, const fp_t *d) {
  fp_mulsub_i(r, a, b, c, d);
}
#endif
PSF_INL int fp_is_zero_d(const fp_t *a) { return psf_is_zero_12(a->v); }
PSF_INL int fp_eq_d(const fp_t *a, const fp_t *b) { return psf_eq_12(a->v, b->v); }
PSF_INL void fp_set_one_d(fp_t *r) { *r = c_fp_one; }
PSF_INL void fp_set_zero_d(fp_t *r) {
#pragma unroll
  for (int j = 0; j < 12; j++) r->v[j] = 0;
}

/* r = 1/a = a^(p-2) (Fermat; a != 0): 381 squarings and a multiplication per set bit,
 * left to right. For one-off work (precomputed MSM bases), not for inner loops. */
PSF_INL void fp_inv_d(fp_t *r, const fp_t *a) {
  fp_t acc = c_fp_one, base = *a;
#pragma unroll 1
  for (int i = 380; i >= 0; i--) {
    fp_sqr_d(&acc, &acc);
    if ((c_fp_pm2.v[i >> 5] >> (i & 31)) & 1) fp_mul_d(&acc, &acc, &base);
  }
  *r = acc;
}

/* ---- Fp2 = Fp[u]/(u^2 + 1) ---- */
/* r = a b - c d (c, d may be null: r = a b). Each coefficient of the result is one sum of
 * products of Fp coefficients with a single reduction (PSF_MONT_SUM): for a b alone,
 * r0 = a0 b0 + (-a1) b1 and r1 = a0 b1 + a1 b0, the 864 wide products of Karatsuba's three
 * Fp products without its five additions; with c d, r0 = a0 b0 + (-a1) b1 + (-c0) d0 +
 * c1 d1 and r1 = a0 b1 + a1 b0 + (-c0) d1 + (-c1) d0: 1,440 wide products against 1,728
 * for two products and a subtraction, and three negations. r may be any of the operands. */
PSF_INL void fp2_mulsub_d(fp2_t *r, const fp2_t *a, const fp2_t *b, const fp2_t *c, const fp2_t *d) {
  fp_t na1, nc0, nc1;
  uint32_t t0[12], t1[12];
  fp_neg_d(&na1, &a->c1);
  if (c) {
    fp_neg_d(&nc0, &c->c0);
    fp_neg_d(&nc1, &c->c1);
    const uint32_t *C0[3] = {na1.v, nc0.v, c->c1.v}, *D0[3] = {b->c1.v, d->c0.v, d->c1.v};
    const uint32_t *C1[3] = {a->c1.v, nc0.v, nc1.v}, *D1[3] = {b->c0.v, d->c1.v, d->c0.v};
    PSF_MONT_SUM(12, t0, a->c0.v, b->c0.v, 3, C0, D0, c_fp_p.v, BLS_FP_INV32);
    PSF_MONT_SUM(12, t1, a->c0.v, b->c1.v, 3, C1, D1, c_fp_p.v, BLS_FP_INV32);
  } else {
    const uint32_t *C0[1] = {na1.v}, *D0[1] = {b->c1.v};
    const uint32_t *C1[1] = {a->c1.v}, *D1[1] = {b->c0.v};
    PSF_MONT_SUM(12, t0, a->c0.v, b->c0.v, 1, C0, D0, c_fp_p.v, BLS_FP_INV32);
    PSF_MONT_SUM(12, t1, a->c0.v, b->c1.v, 1, C1, D1, c_fp_p.v, BLS_FP_INV32);
  }
  psf_reduce_once_12(r->c0.v, t0, c_fp_p.v);
  psf_reduce_once_12(r->c1.v, t1, c_fp_p.v);
}
PSF_INL void fp2_mul_d(fp2_t *r, const fp2_t *a, const fp2_t *b) { fp2_mulsub_d(r, a, b, 0, 0); }
PSF_INL void fp2_sqr_d(fp2_t *r, const fp2_t *a) {
  /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
  fp_t s, d, m;
  fp_add_d(&s, &a->c0, &a->c1);
  fp_sub_d(&d, &a->c0, &a->c1);
  fp_mul_d(&m, &a->c0, &a->c1);
  fp_mul_d(&r->c0, &s, &d);
  fp_add_d(&r->c1, &m, &m);
}
PSF_INL void fp2_add_d(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_add_d(&r->c0, &a->c0, &b->c0);
  fp_add_d(&r->c1, &a->c1, &b->c1);
}
PSF_INL void fp2_sub_d(fp2_t *r, const fp2_t *a, const fp2_t *b) {
  fp_sub_d(&r->c0, &a->c0, &b->c0);
  fp_sub_d(&r->c1, &a->c1, &b->c1);
}
/* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2). */
PSF_INL void fp2_inv_d(fp2_t *r, const fp2_t *a) {
  fp_t t0, t1;
  fp_mul_d(&t0, &a->c0, &a->c0);
  fp_mul_d(&t1, &a->c1, &a->c1);
  fp_add_d(&t0, &t0, &t1);
  fp_inv_d(&t0, &t0);
  fp_mul_d(&r->c0, &a->c0, &t0);
  fp_mul_d(&t1, &a->c1, &t0);
  fp_neg_d(&r->c1, &t1);
}
PSF_INL int fp2_is_zero_d(const fp2_t *a) { return fp_is_zero_d(&a->c0) & fp_is_zero_d(&a->c1); }
PSF_INL void fp2_neg_d(fp2_t *r, const fp2_t *a) {
  fp_neg_d(&r->c0, &a->c0);
  fp_neg_d(&r->c1, &a->c1);
}
PSF_INL void fp2_set_one_d(fp2_t *r) {
  fp_set_one_d(&r->c0);
  fp_set_zero_d(&r->c1);
}
PSF_INL void fp2_set_zero_d(fp2_t *r) {
  fp_set_zero_d(&r->c0);
  fp_set_zero_d(&r->c1);
}

#endif
