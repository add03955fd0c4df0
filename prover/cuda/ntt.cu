/* NTT over Fr on the GPU. A transform of 2^log_n elements is radix-2 Cooley-Tukey run as
 * a few passes, each pass doing k consecutive stages of 2^(k+c) elements (2^k rows of the
 * stage's butterfly span times 2^c adjacent columns, so global loads stay coalesced) in
 * shared memory. Decimation in frequency maps natural order to bit-reversed order,
 * decimation in time (the transposed network, same twiddles, stages reversed) maps
 * bit-reversed to natural; a bit-reversal permutation kernel gives the other two orders.
 * Twiddles w_n^j (j < n/2) are a table on the device, built once per size and direction;
 * coset shifts and 1/n are one element-wise pass with two-level power tables. By default
 * a thread does two consecutive stages at once on four elements in registers (radix 4,
 * ntt_r4.h), halving the shared-memory traffic, which bounds this kernel. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ntt_r4.h"
#include "ps_field.cuh"
#include "psc_int.cuh"

extern "C" {
#include "../fr.h"
#include "../tune.h"
}

/* log2 of the elements one block holds in shared memory, and the most stages of a pass
 * that is not the last, are ntt_default_layout's (ntt_r4.h: blocks of 2^8, passes of at
 * most 7 stages, 8 at 2^23); PSC_NTT_LOG_BLOCK (7..11) and
 * PSC_NTT_MAX_K (0..12; 0, or more than LOG_BLOCK, takes the default) in the environment
 * set them, for tuning with prover-bench (a LOG_BLOCK without MAX_K takes 8 stages for
 * blocks of 2^10, LOG_BLOCK - 2 otherwise); other values are refused (tune.h, psc_open). */
/* 4: stage pairs as radix-4 groups in registers (ntt_pass_r4: NTT 2^24 5.67 ms on the
 * H200, against 8.82 ms one stage at a time); 2: one stage at a time (ntt_pass).
 * PSC_NTT_RADIX overrides. */
#define NTT_RADIX 4
#define NTT_THREADS 512
/* ntt_pass_r4's blocks: 128 threads, 5 per SM (96 registers, no spills, 20 warps per
 * SM) measured fastest on the H200 (docs/performance.md: 6.44 ms at 2^24 with 256 x 3,
 * 80 registers and spills; 7.85 ms with 256 x 2). */
#define NTT_R4_THREADS 128
#define NTT_R4_MIN_BLOCKS 5
/* PSC_NTT_REGS=128: a second instance bound to 4 blocks of 128 threads, so 128 registers
 * a thread (8 blocks of the default 64 threads a multiprocessor instead of 10), where the
 * Karatsuba product fits without spills (ptxas, sm_90: 126 registers against 96 with 108
 * bytes of spill stores; the default product 120 against 96 and 16 bytes). */
#define NTT_R4_MIN_BLOCKS_128 4
/* Tiles a radix-4 block does in turn, the next one's loads beside the current one's
 * arithmetic (0: as many blocks as fit at once, each taking every gridDim-th tile).
 * PSC_NTT_TILES overrides. One measured fastest on the H200 at every size from 2^19
 * (2^20 0.286 ms, 2^24 4.77, 2^26 19.8; with 2: 0.309, 4.87, 20.1; 1.29x slower at 2^16):
 * the gain is the copies that hold no registers, not the overlap across tiles
 * (docs/performance.md, "NTT: loads without registers"). */
#define NTT_R4_TILES 1
/* 1: with the Montgomery product, the radix-4 passes keep values in [0, 2r) and the
 * product skips its final subtraction (ntt_mul_at); PSC_NTT_REDUCE (full, lazy)
 * overrides. 5-6% faster than full reduction on the H200 at every size from 2^20 to 2^26,
 * 0 of gpu_check's 210 NTT checks failed (docs/performance.md, "Lazily reduced NTT
 * passes"). The other products (PSC_NTT_MUL) keep full reduction unless asked. */
#define NTT_LAZY 1
/* 1: the lazily reduced passes after a transform's first launch as programmatic dependents
 * of the pass before (ntt_pass_r4's PDL); PSC_NTT_LAUNCH (stream, pdl) overrides. 2.0-2.8%
 * faster at 2^20, 0.6-0.7% at 2^22 and even from 2^24 on the H100, 0 of gpu_check's 210 NTT
 * checks failed, proofs verified (docs/performance.md, "NTT passes launched as dependents"). */
#define NTT_PDL 1
#define POW_LO_BITS 12   /* two-level power tables: b^i = lo[i & 4095] * hi[i >> 12] */

/* w^j for j < count: lo[j & 4095] * hi[j >> 12] (one multiplication each). */
__global__ void ntt_build_powers(fr_t *out, size_t count, const fr_t *lo, const fr_t *hi) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  fr_t a, b, r;
  psf_ldg(&a, &lo[j & ((1u << POW_LO_BITS) - 1)]);
  psf_ldg(&b, &hi[j >> POW_LO_BITS]);
  fr_mul_d(&r, &a, &b);
  psf_st(&out[j], &r);
}

/* The radix-4 passes' products (a datum times a twiddle), by PSC_NTT_MUL:
 * - NTT_MUL_MONT (montgomery, the default): the interleaved Montgomery one, fr_mul_d;
 * - NTT_MUL_KARA (karatsuba): Karatsuba's split and the reduction apart, fr_mul_kara_d;
 * - NTT_MUL_FP64 (fp64): every product on the FP64 pipe, fr_mul_fp64_d, its twiddles from
 *   a table of fr52_t (twiddles52());
 * - NTT_MUL_MIXED (mixed): a radix-4 group's two products by w2 on the FP64 pipe and
 *   its two others Montgomery's, so that the integer multiplier, the FP64 pipe and the ALU
 *   share the work (radix-2 stages: Montgomery's).
 * All but the default are for timing against it: docs/performance.md, "Where the NTT's
 * last 8% would come from" and "Fr's product on the FP64 pipe". */
enum { NTT_MUL_MONT = 0, NTT_MUL_KARA = 1, NTT_MUL_FP64 = 2, NTT_MUL_MIXED = 3 };
/* ntt_r4.h's NTT_R4_W52 says which twiddles take the FP64 product */
static_assert(NTT_R4_W52(NTT_MUL_FP64, -1) && !NTT_R4_W52(NTT_MUL_MIXED, -1) && NTT_R4_W52(NTT_MUL_MIXED, 2) &&
                  !NTT_R4_W52(NTT_MUL_MONT, 2) && !NTT_R4_W52(NTT_MUL_KARA, 2),
              "ntt_r4.h's product modes are NTT_MUL_*'s");
template <int MUL> static __device__ __forceinline__ void ntt_fr_mul(fr_t *r, const fr_t *a, const fr_t *b) {
  if (MUL == NTT_MUL_KARA) fr_mul_kara_d(r, a, b);
  else fr_mul_d(r, a, b);
}
/* A radix-4 group's three twiddles, each in the form its product takes (the other array
 * is never read, and the compiler drops it). */
typedef struct ntt_tws {
  fr_t f[3];
  fr52_t d[3];
} ntt_tws;
/* LAZY (PSC_NTT_REDUCE=lazy, the Montgomery product only): the pass's values stay in
 * [0, 2r) and the product skips its final subtraction (ps_field.cuh's fr_*_lazy_d). */
template <int MUL, int LAZY>
static __device__ __forceinline__ void ntt_mul_at(fr_t *r, const fr_t *a, const ntt_tws *w, int i) {
  if (LAZY) fr_mul_lazy_d(r, &w->f[i], a);
  else if (NTT_R4_W52(MUL, i)) fr_mul_fp64_d(r, a, &w->d[i]);
  else ntt_fr_mul<MUL>(r, a, &w->f[i]);
}
#define NTT_MUL_AT(r, a, w, i) ntt_mul_at<MUL, LAZY>(r, a, &(w), i)
template <int LAZY> static __device__ __forceinline__ void ntt_fr_add(fr_t *r, const fr_t *a, const fr_t *b) {
  if (LAZY) fr_add_lazy_d(r, a, b);
  else fr_add_d(r, a, b);
}
template <int LAZY> static __device__ __forceinline__ void ntt_fr_sub(fr_t *r, const fr_t *a, const fr_t *b) {
  if (LAZY) fr_sub_lazy_d(r, a, b);
  else fr_sub_d(r, a, b);
}

/* x *= twiddle ti of a radix-2 stage: the tile's staged copy when there is one (staged,
 * else NULL), or from the table its product takes. */
template <int MUL, int LAZY>
static __device__ __forceinline__ void ntt_r2_mul(fr_t *x, const fr_t *__restrict__ tw,
                                                  const fr52_t *__restrict__ tw52, size_t ti, const fr_t *staged) {
  if (LAZY) {
    fr_t w;
    if (staged) w = *staged;
    else psf_ldg(&w, &tw[ti]);
    fr_mul_lazy_d(x, &w, x);
  } else if (staged) {
    ntt_fr_mul<MUL>(x, x, staged);
  } else if (NTT_R4_W52(MUL, -1)) {
    fr52_t w;
    psf_ldg(&w, &tw52[ti]);
    fr_mul_fp64_d(x, x, &w);
  } else {
    fr_t w;
    psf_ldg(&w, &tw[ti]);
    ntt_fr_mul<MUL>(x, x, &w);
  }
}

/* One radix-2 stage of a pass in shared memory, a butterfly per thread in turn: stage
 * half-span 2^lhr rows, S its global index (DIF: (a, b) -> (a + b, (a - b) w); DIT: the
 * transposed (a + b w, a - b w)). tws: the tile's staged twiddles (ntt_r4.h's
 * ntt_tw_slot), or NULL to read them from tw (or tw52). */
template <int MUL = NTT_MUL_MONT, int LAZY = 0>
static __device__ __forceinline__ void ntt_r2_stage(fr_t *sh, unsigned nbf, unsigned c, unsigned lhr, unsigned L,
                                                    size_t lo_group, unsigned S, const fr_t *__restrict__ tw,
                                                    const fr52_t *__restrict__ tw52, int dit,
                                                    const fr_t *tws = NULL) {
  const unsigned cmask = (1u << c) - 1, hr = 1u << lhr;
  for (unsigned j = threadIdx.x; j < nbf; j += blockDim.x) {
    unsigned col = j & cmask, q = j >> c;
    unsigned r0 = ((q >> lhr) << (lhr + 1)) | (q & (hr - 1));
    unsigned e0 = (r0 << c) | col, e1 = ((r0 + hr) << c) | col;
    size_t ti = ((((size_t)(q & (hr - 1))) << L) | (lo_group << c) | col) << S;
    const fr_t *staged = tws ? &tws[ntt_tw_slot(lhr, q & (hr - 1), c, col)] : NULL;
    fr_t a = sh[e0], b = sh[e1], x, y;
    if (!dit) {
      ntt_fr_add<LAZY>(&x, &a, &b);
      ntt_fr_sub<LAZY>(&y, &a, &b);
      if (ti) ntt_r2_mul<MUL, LAZY>(&y, tw, tw52, ti, staged);
    } else {
      if (ti) ntt_r2_mul<MUL, LAZY>(&b, tw, tw52, ti, staged);
      ntt_fr_add<LAZY>(&x, &a, &b);
      ntt_fr_sub<LAZY>(&y, &a, &b);
    }
    sh[e0] = x;
    sh[e1] = y;
  }
}

/* The block of a pass (stages s .. s+k-1, c column bits): 2^k rows of 2^c adjacent
 * columns, row r at global stride 2^L; L, its element count, lo_group (its columns' high
 * bits) and the global index of its element 0. */
typedef struct ntt_blk {
  unsigned L, nel;
  size_t lo_group, base;
} ntt_blk;

static __device__ __forceinline__ ntt_blk ntt_tile(unsigned t, unsigned log_n, unsigned s, unsigned k, unsigned c) {
  ntt_blk b;
  b.L = log_n - s - k;
  b.nel = 1u << (k + c);
  b.lo_group = t & ((1u << (b.L - c)) - 1);
  b.base = (((size_t)t >> (b.L - c)) << (log_n - s)) | (b.lo_group << c);
  return b;
}
static __device__ __forceinline__ ntt_blk ntt_block(unsigned log_n, unsigned s, unsigned k, unsigned c) {
  return ntt_tile(blockIdx.x, log_n, s, k, c);
}

/* Copies the block between global memory and shared memory (store = 1: back to global;
 * store = 2: back to global, each value < 2r made canonical on the way, the lazily reduced
 * transform's last pass). */
static __device__ __forceinline__ void ntt_block_io(const ntt_blk *b, unsigned c, fr_t *d, fr_t *sh, int store) {
  const unsigned cmask = (1u << c) - 1;
  for (unsigned e = threadIdx.x; e < b->nel; e += blockDim.x) {
    size_t g = b->base | ((size_t)(e >> c) << b->L) | (e & cmask);
    if (store) {
      fr_t v = sh[e];
      if (store == 2) fr_canon_d(&v, &v);
      psf_st(&d[g], &v);
    } else {
      psf_ld(&sh[e], &d[g]);
    }
  }
}

/* Starts copying one field element from global to shared memory (cp.async, 16 bytes at a
 * time, in the caller's commit group). */
static __device__ __forceinline__ void ntt_fr_copy_async(fr_t *sh, const fr_t *g) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(sh);
#pragma unroll
  for (unsigned o = 0; o < sizeof(fr_t); o += 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a + o), "l"((const char *)g + o) : "memory");
}

/* Starts copying the block's elements from global to shared memory without holding
 * registers or waiting (one commit group per call); the caller waits with
 * cp.async.wait_group and a barrier before reading them. */
static __device__ __forceinline__ void ntt_block_load_async(const ntt_blk *b, unsigned c, const fr_t *d, fr_t *sh) {
  const unsigned cmask = (1u << c) - 1;
  for (unsigned e = threadIdx.x; e < b->nel; e += blockDim.x)
    ntt_fr_copy_async(&sh[e], &d[b->base | ((size_t)(e >> c) << b->L) | (e & cmask)]);
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Starts copying the twiddles of the block's tile (stages s .. s+k-1) into its staged
 * table tws (ntt_r4.h: ntt_tw_nslots slots, each ntt_tw_slot_index's twiddle), as
 * ntt_block_load_async copies the data, but without committing: the data's call after it
 * commits both as one group. */
static __device__ __forceinline__ void ntt_tw_load_async(const ntt_blk *b, unsigned s, unsigned k, unsigned c,
                                                         const fr_t *tw, fr_t *tws) {
  const unsigned nslots = ntt_tw_nslots(k, c);
  for (unsigned e = threadIdx.x; e < nslots; e += blockDim.x)
    ntt_fr_copy_async(&tws[e], &tw[ntt_tw_slot_index(e, c, k, b->L, b->lo_group << c, s)]);
}

/* Stages s .. s+k-1 of a DIF (dit = 0, stages ascending) or DIT (dit = 1, descending)
 * network over 2^log_n elements; c column bits per block. */
__global__ void __launch_bounds__(NTT_THREADS, 2) ntt_pass(fr_t *d, unsigned log_n, unsigned s, unsigned k,
                                                          unsigned c, const fr_t *__restrict__ tw, int dit) {
  extern __shared__ fr_t sh[];
  const ntt_blk b = ntt_block(log_n, s, k, c);
  const unsigned L = b.L, nel = b.nel;
  const size_t lo_group = b.lo_group;
  ntt_block_io(&b, c, d, sh, 0);
  __syncthreads();
  for (unsigned tt = 0; tt < k; tt++) {
    const unsigned t = dit ? k - 1 - tt : tt;
    ntt_r2_stage(sh, nel / 2, c, k - 1 - t, L, lo_group, s + t, tw, NULL, dit);
    __syncthreads();
  }
  ntt_block_io(&b, c, d, sh, 1);
}

/* The same pass with stage pairs done as radix-4 groups in registers (ntt_r4.h): one
 * shared-memory round trip per two stages; a last radix-2 stage when k is odd. */
/* The stage pairs of one tile in shared memory (and a last radix-2 stage when k is odd);
 * with TWS the twiddles come from the tile's staged table tws, else from tw (or tw52). */
template <int MUL, int TWS, int LAZY>
static __device__ __forceinline__ void ntt_r4_tile(const ntt_blk *b, fr_t *sh, unsigned s, unsigned k, unsigned c,
                                                   const fr_t *__restrict__ tw, const fr52_t *__restrict__ tw52,
                                                   int dit, const fr_t *tws) {
  const unsigned L = b->L, nel = b->nel;
  const size_t lo_group = b->lo_group;
  for (unsigned step = 0; step + 1 < k; step += 2) {
    const unsigned t_big = dit ? k - 2 - step : step, lH = k - 1 - t_big;
    for (unsigned g = threadIdx.x; g < nel / 4; g += blockDim.x) {
      ntt_r4_group gr;
      ntt_r4_group_at(&gr, g, c, lH, L, lo_group << c, s + t_big);
      fr_t x[4];
      ntt_tws w;
      bool has[3];
#pragma unroll
      for (int i = 0; i < 3; i++) {
        has[i] = gr.ti[i] != 0;
        if (has[i]) {
          if (TWS) w.f[i] = tws[gr.ts[i]];
          else if (NTT_R4_W52(MUL, i)) psf_ldg(&w.d[i], &tw52[gr.ti[i]]);
          else psf_ldg(&w.f[i], &tw[gr.ti[i]]);
        }
      }
#pragma unroll
      for (int i = 0; i < 4; i++) x[i] = sh[gr.e[i]];
      NTT_R4_BUTTERFLIES(fr_t, x, w, has, dit, ntt_fr_add<LAZY>, ntt_fr_sub<LAZY>, NTT_MUL_AT);
#pragma unroll
      for (int i = 0; i < 4; i++) sh[gr.e[i]] = x[i];
    }
    __syncthreads();
  }
  if (k & 1) {
    const unsigned t = dit ? 0 : k - 1;
    ntt_r2_stage<MUL, LAZY>(sh, nel / 2, c, k - 1 - t, L, lo_group, s + t, tw, tw52, dit, TWS ? tws : NULL);
    __syncthreads();
  }
}

/* A block does tiles blockIdx.x, + gridDim.x, ... (ntiles in all) with two tiles' rooms
 * of shared memory, or one room where it does one tile (run_network). Its loads are
 * cp.async copies, which hold no registers; with more than one tile a block, the next
 * tile's copies run beside the current one's arithmetic. With TWS (PSC_NTT_TW=shared) a
 * tile's room is twice its data, the second half its staged twiddles, copied with the data.
 * With LAZY the values stay in [0, 2r) (ntt_mul_at), and a pass that ends the transform
 * (last) makes them canonical as it stores them. With PDL (PSC_NTT_LAUNCH=pdl) a pass may
 * be launched as a programmatic dependent of the pass before it (run_network): its blocks
 * may start while that pass's last blocks still run, and wait (griddepcontrol.wait) until
 * it has finished and its stores are visible before reading; each block, once started,
 * lets the next pass launch (griddepcontrol.launch_dependents). Without such a launch the
 * wait returns at once. */
template <int MUL, int MINB, int TWS = 0, int LAZY = 0, int PDL = 0>
__global__ void __launch_bounds__(NTT_R4_THREADS, MINB)
    ntt_pass_r4(fr_t *d, unsigned log_n, unsigned s, unsigned k, unsigned c, const fr_t *__restrict__ tw,
                const fr52_t *__restrict__ tw52, int dit, unsigned ntiles, int last) {
  extern __shared__ fr_t sh2[];
  unsigned t = blockIdx.x;
  ntt_blk b = ntt_tile(t, log_n, s, k, c);
  const unsigned room = TWS ? 2 * b.nel : b.nel; /* a tile's, twiddles included */
  fr_t *cur = sh2, *nxt = sh2 + room;
  if (PDL) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  }
  if (TWS) ntt_tw_load_async(&b, s, k, c, tw, cur + b.nel);
  ntt_block_load_async(&b, c, d, cur);
  for (; t < ntiles; t += gridDim.x) {
    ntt_blk bn = b;
    if (t + gridDim.x < ntiles) {
      bn = ntt_tile(t + gridDim.x, log_n, s, k, c);
      if (TWS) ntt_tw_load_async(&bn, s, k, c, tw, nxt + bn.nel);
      ntt_block_load_async(&bn, c, d, nxt);
    } else {
      asm volatile("cp.async.commit_group;" ::: "memory"); /* empty: the wait below counts alike */
    }
    asm volatile("cp.async.wait_group 1;" ::: "memory"); /* this tile's copies are in */
    __syncthreads();
    ntt_r4_tile<MUL, TWS, LAZY>(&b, cur, s, k, c, tw, tw52, dit, cur + b.nel);
    ntt_block_io(&b, c, d, cur, LAZY && last ? 2 : 1);
    __syncthreads(); /* cur is read out before the tile after next is copied into it */
    fr_t *u = cur;
    cur = nxt, nxt = u, b = bn;
  }
}

__global__ void ntt_bitrev(fr_t *out, const fr_t *in, unsigned log_n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >> log_n) return;
  size_t j = (size_t)(__brevll((unsigned long long)i) >> (64 - log_n));
  fr_t v;
  psf_ld(&v, &in[i]);
  psf_st(&out[j], &v);
}

/* d[j] *= lo[e & 4095] * hi[e >> 12], e = j or bitrev(j): coset shifts with 1/n folded in. */
__global__ void ntt_scale(fr_t *d, unsigned log_n, const fr_t *lo, const fr_t *hi, int brev) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >> log_n) return;
  size_t x = brev ? (size_t)(__brevll((unsigned long long)j) >> (64 - log_n)) : j;
  fr_t a, b, v;
  psf_ldg(&a, &lo[x & ((1u << POW_LO_BITS) - 1)]);
  psf_ldg(&b, &hi[x >> POW_LO_BITS]);
  psf_ld(&v, &d[j]);
  fr_mul_d(&a, &a, &b);
  fr_mul_d(&v, &v, &a);
  psf_st(&d[j], &v);
}

/* d[j] *= s */
__global__ void ntt_scale_const(fr_t *d, unsigned log_n, fr_t s) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >> log_n) return;
  fr_t v;
  psf_ld(&v, &d[j]);
  fr_mul_d(&v, &v, &s);
  psf_st(&d[j], &v);
}

/* ---- host side ---- */

static void host_root(fr_t *w, unsigned log_n, int inverse) {
  static const fr_t root = BLS_FR_ROOT_OF_UNITY, root_inv = BLS_FR_ROOT_OF_UNITY_INV;
  *w = inverse ? root_inv : root;
  for (unsigned i = log_n; i < BLS_FR_TWO_ADICITY; i++) fr_sqr(w, w);
}

/* lo[i] = b^i (i < 4096), hi[i] = scale * b^(4096 i) (i < nhi), on the host. */
static void host_pow_tables(fr_t *lo, fr_t *hi, size_t nhi, const fr_t *b, const fr_t *scale) {
  fr_one(&lo[0]);
  for (size_t i = 1; i < (1u << POW_LO_BITS); i++) fr_mul(&lo[i], &lo[i - 1], b);
  fr_t step;
  fr_mul(&step, &lo[(1u << POW_LO_BITS) - 1], b);
  hi[0] = *scale;
  for (size_t i = 1; i < nhi; i++) fr_mul(&hi[i], &hi[i - 1], &step);
}

/* Uploads power tables of b (with scale) for exponents < count to fresh device memory. */
static int upload_pow_tables(psc_dev *d, const fr_t *b, const fr_t *scale, size_t count,
                             fr_t **d_lo, fr_t **d_hi, ps_err *e) {
  int rc = PS_OK;
  size_t nhi = (count >> POW_LO_BITS) + 1;
  fr_t *lo = (fr_t *)xmalloc(sizeof(fr_t) << POW_LO_BITS), *hi = (fr_t *)xmalloc(sizeof(fr_t) * nhi);
  *d_lo = *d_hi = NULL;
  host_pow_tables(lo, hi, nhi, b, scale);
  if ((rc = psc__alloc(d, (void **)d_lo, sizeof(fr_t) << POW_LO_BITS, "NTT power table", e))) goto fail;
  if ((rc = psc__alloc(d, (void **)d_hi, sizeof(fr_t) * nhi, "NTT power table", e))) goto fail;
  PSC_CHECK(cudaMemcpy(*d_lo, lo, sizeof(fr_t) << POW_LO_BITS, cudaMemcpyHostToDevice));
  PSC_CHECK(cudaMemcpy(*d_hi, hi, sizeof(fr_t) * nhi, cudaMemcpyHostToDevice));
  free(lo);
  free(hi);
  return PS_OK;
fail:
  cudaFree(*d_lo);
  cudaFree(*d_hi);
  *d_lo = *d_hi = NULL;
  free(lo);
  free(hi);
  return rc;
}

/* The twiddle table scale * w_n^j (j < n/2) for this size and direction into fresh device
 * memory. */
static int twiddle_table(psc_dev *d, unsigned log_n, int inverse, const fr_t *scale, fr_t **out, ps_err *e) {
  int rc = PS_OK;
  fr_t *d_lo = NULL, *d_hi = NULL, *t = NULL;
  size_t half = (size_t)1 << (log_n - 1);
  fr_t w;
  host_root(&w, log_n, inverse);
  if ((rc = upload_pow_tables(d, &w, scale, half, &d_lo, &d_hi, e))) return rc;
  if ((rc = psc__alloc(d, (void **)&t, sizeof(fr_t) * half, "NTT twiddle table", e))) goto fail;
  ntt_build_powers<<<psc__blocks(half, 256), 256, 0, d->stream>>>(t, half, d_lo, d_hi);
  PSC_CHECK_LAUNCH();
  PSC_CHECK(cudaStreamSynchronize(d->stream));
  cudaFree(d_lo);
  cudaFree(d_hi);
  *out = t;
  return PS_OK;
fail:
  cudaFree(d_lo);
  cudaFree(d_hi);
  cudaFree(t);
  return rc;
}

/* The twiddle table w_n^j (j < n/2) for this size and direction, built on first use. */
static int twiddles(psc_dev *d, unsigned log_n, int inverse, const fr_t **out, ps_err *e) {
  int rc;
  if (!d->tw[inverse][log_n]) {
    fr_t one;
    fr_one(&one);
    if ((rc = twiddle_table(d, log_n, inverse, &one, &d->tw[inverse][log_n], e))) return rc;
  }
  *out = d->tw[inverse][log_n];
  return PS_OK;
}

__global__ void ntt_split52(fr52_t *out, const fr_t *in, size_t count) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  fr_t v;
  fr52_t o;
  psf_ldg(&v, &in[j]);
  fr52_from_d(&o, &v);
  psf_st(&out[j], &o);
}

/* The FP64 product's twiddle table (fr52_t: 16 w_n^j as 52-bit limbs, psf_fp64.h), built
 * on first use from a table of 16 w_n^j made for the purpose and freed after. */
static int twiddles52(psc_dev *d, unsigned log_n, int inverse, const fr52_t **out, ps_err *e) {
  int rc = PS_OK;
  const size_t half = (size_t)1 << (log_n - 1);
  fr_t sixteen, *t = NULL;
  fr52_t *t52 = NULL;
  if (d->tw52[inverse][log_n]) {
    *out = (const fr52_t *)d->tw52[inverse][log_n];
    return PS_OK;
  }
  fr_from_u64(&sixteen, 16);
  if ((rc = twiddle_table(d, log_n, inverse, &sixteen, &t, e))) return rc;
  if ((rc = psc__alloc(d, (void **)&t52, sizeof(fr52_t) * half, "NTT twiddle table (FP64 product)", e))) goto fail;
  ntt_split52<<<psc__blocks(half, 256), 256, 0, d->stream>>>(t52, t, half);
  PSC_CHECK_LAUNCH();
  PSC_CHECK(cudaStreamSynchronize(d->stream));
  cudaFree(t);
  d->tw52[inverse][log_n] = t52;
  *out = t52;
  return PS_OK;
fail:
  cudaFree(t);
  cudaFree(t52);
  return rc;
}

/* The pass layout, read from the environment (ps_tune_read) once per process. Workers of
 * several devices run transforms at the same time, so the settings are filled under
 * pthread_once: a thread that saw log_block set but not yet max_k would divide by zero. A
 * variable out of its range is refused when the device is opened (psc_open); should one
 * get here, `bad` says which, and every transform fails with it (run_network). */
typedef struct ntt_settings {
  unsigned log_block, max_k, radix, tiles, mul, regs128; /* mul: NTT_MUL_* */
  unsigned tw_shared;                                    /* PSC_NTT_TW=shared */
  unsigned lazy;                                         /* PSC_NTT_REDUCE=lazy */
  unsigned pdl;                                          /* PSC_NTT_LAUNCH=pdl */
  unsigned even;                                         /* PSC_NTT_SPLIT=even */
  int carveout;                                          /* PSC_NTT_CARVEOUT, -1 none */
  char bad[sizeof(((ps_err *)0)->msg)];
} ntt_settings;

static ntt_settings ntt_set;
static pthread_once_t ntt_set_once = PTHREAD_ONCE_INIT;

static void ntt_settings_init(void) {
  ntt_settings s;
  ps_tune t;
  ps_err e = {{0}, 0};
  memset(&s, 0, sizeof s);
  if (ps_tune_read(&t, &e)) snprintf(s.bad, sizeof s.bad, "%s", e.msg);
  s.radix = t.ntt_radix ? (unsigned)t.ntt_radix : NTT_RADIX;
  s.max_k = (unsigned)t.ntt_max_k;
  s.log_block = (unsigned)t.ntt_log_block; /* 0: ntt_default_layout's */
  s.tiles = t.ntt_tiles < 0 ? NTT_R4_TILES : (unsigned)t.ntt_tiles;
  s.mul = t.ntt_mul; /* tune.h's values are NTT_MUL_*'s */
  s.regs128 = t.ntt_regs == 128;
  s.tw_shared = t.ntt_tw == 1; /* only with the Montgomery product (ps_tune_read) */
  s.lazy = (unsigned)ps_tune_ntt_lazy(&t, NTT_LAZY); /* the Montgomery product only (tune.h) */
  s.pdl = (unsigned)ps_tune_ntt_pdl(&t, (int)s.lazy, NTT_PDL); /* the lazily reduced passes only (below) */
  s.even = t.ntt_split == 1;
  s.carveout = t.ntt_carveout;
  if (s.pdl && (!s.lazy || s.tw_shared) && !s.bad[0])
    snprintf(s.bad, sizeof s.bad, "PSC_NTT_LAUNCH=pdl: expected the lazily reduced passes (PSC_NTT_REDUCE=lazy)");
  if (s.log_block && (!s.max_k || s.max_k > s.log_block)) s.max_k = s.log_block == 10 ? 8 : s.log_block - 2;
  ntt_set = s;
}

static const ntt_settings *ntt_settings_get(void) {
  int rc = pthread_once(&ntt_set_once, ntt_settings_init);
  PS_ASSERT(rc == 0);
  return &ntt_set;
}

/* Runs the DIF (natural -> bit-reversed) or DIT (bit-reversed -> natural) network (tw52:
 * the FP64 product's table, NULL unless PSC_NTT_MUL takes it). */
static int run_network(psc_dev *d, fr_t *data, unsigned log_n, const fr_t *tw, const fr52_t *tw52, int dit,
                       ps_err *e) {
  int rc = PS_OK;
  const ntt_settings *set = ntt_settings_get();
  if (set->bad[0]) return ps_fail(e, PS_EINPUT, "%s", set->bad);
  const unsigned radix = set->radix;
  unsigned log_block = set->log_block, max_k = set->max_k, ps[32], pk[32];
  if (!log_block) { /* the default blocks, and passes of PSC_NTT_MAX_K if it fits them */
    unsigned mk;
    ntt_default_layout(log_n, &log_block, &mk);
    if (!max_k || max_k > log_block) max_k = mk;
  }
  const unsigned np = ntt_pass_layout_split(log_n, log_block, max_k, (int)set->even, ps, pk);
  for (unsigned ii = 0; ii < np; ii++) {
    unsigned i = dit ? np - 1 - ii : ii;
    unsigned s = ps[i], k = pk[i], L = log_n - s - k;
    unsigned c = log_block - k < L ? log_block - k : L;
    unsigned nel = 1u << (k + c), per = radix == 4 ? 4 : 2; /* elements per thread and step */
    unsigned tmax = radix == 4 ? NTT_R4_THREADS : NTT_THREADS, want = nel / per;
    unsigned threads = want < 32 ? 32 : want > tmax ? tmax : want;
    size_t blocks = (size_t)1 << (log_n - k - c), smem = nel * sizeof(fr_t);
    if (radix == 2) {
      if (smem > 48 * 1024)
        PSC_CHECK(cudaFuncSetAttribute(ntt_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
      ntt_pass<<<(unsigned)blocks, threads, smem, d->stream>>>(data, log_n, s, k, c, tw, dit);
      PSC_CHECK_LAUNCH();
      continue;
    }
    /* A tile's room a block, twice its data with staged twiddles; two such rooms where a
     * block does more than one tile (the next one's copies beside the current one's
     * arithmetic). A block of one tile (PSC_NTT_TILES=1, the default) leaves the second
     * room out, so that the L1 cache keeps the shared memory it would hold unused: 8 KB a
     * block of 2^8 elements, 80 KB a multiprocessor at 10 blocks. The grid is ntt_r4_grid's. */
    const unsigned ntiles = (unsigned)blocks;
    smem *= (set->tw_shared ? 2 : 1) * (set->tiles != 1 ? 2 : 1);
    typedef void (*pass_fn)(fr_t *, unsigned, unsigned, unsigned, unsigned, const fr_t *, const fr52_t *, int,
                            unsigned, int);
    static const pass_fn passes[4][2] = {
        {ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS>, ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS_128>},
        {ntt_pass_r4<NTT_MUL_KARA, NTT_R4_MIN_BLOCKS>, ntt_pass_r4<NTT_MUL_KARA, NTT_R4_MIN_BLOCKS_128>},
        {ntt_pass_r4<NTT_MUL_FP64, NTT_R4_MIN_BLOCKS>, ntt_pass_r4<NTT_MUL_FP64, NTT_R4_MIN_BLOCKS_128>},
        {ntt_pass_r4<NTT_MUL_MIXED, NTT_R4_MIN_BLOCKS>, ntt_pass_r4<NTT_MUL_MIXED, NTT_R4_MIN_BLOCKS_128>}};
    static const pass_fn staged[2][2] = {
        {ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS, 1>, ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS_128, 1>},
        {ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS, 1, 1>, ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS_128, 1, 1>}};
    static const pass_fn lazy[2][2] = {
        {ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS, 0, 1>, ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS_128, 0, 1>},
        {ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS, 0, 1, 1>,
         ntt_pass_r4<NTT_MUL_MONT, NTT_R4_MIN_BLOCKS_128, 0, 1, 1>}};
    const pass_fn pass = set->tw_shared ? staged[set->lazy][set->regs128]
                         : set->lazy    ? lazy[set->pdl][set->regs128]
                                        : passes[set->mul][set->regs128];
    if (smem > 48 * 1024)
      PSC_CHECK(cudaFuncSetAttribute(pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (set->carveout >= 0) /* a hint: the driver may take more where the blocks need it */
      PSC_CHECK(cudaFuncSetAttribute(pass, cudaFuncAttributePreferredSharedMemoryCarveout, set->carveout));
    int per_sm = 1;
    if (!set->tiles) PSC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pass, (int)threads, smem));
    blocks = ntt_r4_grid(ntiles, set->tiles, (size_t)per_sm * (size_t)d->sm_count); /* 0 taken as 1 there */
    const int last = ii == np - 1;
    if (set->pdl && ii > 0) { /* a dependent of the pass before (ntt_pass_r4's PDL) */
      cudaLaunchConfig_t cfg;
      cudaLaunchAttribute at[1];
      memset(&cfg, 0, sizeof cfg);
      memset(at, 0, sizeof at);
      at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      at[0].val.programmaticStreamSerializationAllowed = 1;
      cfg.gridDim = dim3((unsigned)blocks);
      cfg.blockDim = dim3(threads);
      cfg.dynamicSmemBytes = smem;
      cfg.stream = d->stream;
      cfg.attrs = at;
      cfg.numAttrs = 1;
      PSC_CHECK(cudaLaunchKernelEx(&cfg, pass, data, log_n, s, k, c, tw, tw52, dit, ntiles, last));
    } else {
      pass<<<(unsigned)blocks, threads, smem, d->stream>>>(data, log_n, s, k, c, tw, tw52, dit, ntiles, last);
      PSC_CHECK_LAUNCH();
    }
  }
  return PS_OK;
fail:
  return rc;
}

/* What one transform size and flag set needs on the device; every table is one of d's
 * caches (built on first use, freed by psc_close), so a plan costs no allocation. */
typedef struct ntt_plan {
  unsigned log_n;
  int flags;
  const fr_t *tw;
  const fr52_t *tw52;       /* the FP64 product's twiddles (PSC_NTT_MUL=fp64, mixed), or NULL */
  fr_t *scratch;            /* n elements for the bit-reversal permutation, or NULL */
  const fr_t *p_lo, *p_hi;  /* coset power tables (with 1/n folded in), or NULL */
  fr_t scale;               /* 1/n for a plain inverse */
} ntt_plan;

static int plan_make(psc_dev *d, unsigned log_n, int flags, ntt_plan *p, ps_err *e) {
  int rc;
  int inv = !!(flags & PSC_NTT_INVERSE), in_r = !!(flags & PSC_NTT_IN_BITREV),
      out_r = !!(flags & PSC_NTT_OUT_BITREV);
  memset(p, 0, sizeof *p);
  p->log_n = log_n;
  p->flags = flags;
  if ((rc = twiddles(d, log_n, inv, &p->tw, e))) return rc;
  const ntt_settings *set = ntt_settings_get(); /* only the radix-4 passes take the FP64 product */
  if (set->radix == 4 && (set->mul == NTT_MUL_FP64 || set->mul == NTT_MUL_MIXED) &&
      (rc = twiddles52(d, log_n, inv, &p->tw52, e)))
    return rc;
  if (in_r == out_r &&
      (rc = psc__ws(d, PSC_WS_NTT_SCRATCH, sizeof(fr_t) << log_n, "NTT scratch buffer", (void **)&p->scratch, e)))
    return rc;
  fr_one(&p->scale);
  if (inv) {
    fr_t n;
    fr_from_u64(&n, (uint64_t)1 << log_n);
    fr_inv(&p->scale, &n);
  }
  if (flags & PSC_NTT_COSET) {
    static const fr_t g = BLS_FR_GENERATOR, gi = BLS_FR_GENERATOR_INV;
    if (!d->pw_lo[inv][log_n] &&
        (rc = upload_pow_tables(d, inv ? &gi : &g, &p->scale, (size_t)1 << log_n, &d->pw_lo[inv][log_n],
                                &d->pw_hi[inv][log_n], e)))
      return rc;
    p->p_lo = d->pw_lo[inv][log_n];
    p->p_hi = d->pw_hi[inv][log_n];
  }
  return PS_OK;
}

/* One transform of the vector at data (device memory), queued on d's stream. */
static int plan_run(psc_dev *d, const ntt_plan *p, fr_t *data, ps_err *e) {
  int rc = PS_OK;
  unsigned log_n = p->log_n;
  size_t n = (size_t)1 << log_n;
  int inv = !!(p->flags & PSC_NTT_INVERSE), coset = !!(p->flags & PSC_NTT_COSET);
  int in_r = !!(p->flags & PSC_NTT_IN_BITREV), out_r = !!(p->flags & PSC_NTT_OUT_BITREV);
  unsigned nb = psc__blocks(n, 256);
  /* Forward coset: scale the input by g^i first (i the natural index of the element). */
  if (coset && !inv) {
    ntt_scale<<<nb, 256, 0, d->stream>>>(data, log_n, p->p_lo, p->p_hi, in_r);
    PSC_CHECK_LAUNCH();
  }
  if (!in_r) {
    if ((rc = run_network(d, data, log_n, p->tw, p->tw52, 0, e))) return rc; /* now bit-reversed */
    if (!out_r) {
      ntt_bitrev<<<nb, 256, 0, d->stream>>>(p->scratch, data, log_n);
      PSC_CHECK_LAUNCH();
      PSC_CHECK(cudaMemcpyAsync(data, p->scratch, n * sizeof(fr_t), cudaMemcpyDeviceToDevice, d->stream));
    }
  } else {
    if (out_r) {
      ntt_bitrev<<<nb, 256, 0, d->stream>>>(p->scratch, data, log_n);
      PSC_CHECK_LAUNCH();
      PSC_CHECK(cudaMemcpyAsync(data, p->scratch, n * sizeof(fr_t), cudaMemcpyDeviceToDevice, d->stream));
      if ((rc = run_network(d, data, log_n, p->tw, p->tw52, 0, e))) return rc;
    } else if ((rc = run_network(d, data, log_n, p->tw, p->tw52, 1, e))) {
      return rc;
    }
  }
  if (inv) {
    if (coset) {
      ntt_scale<<<nb, 256, 0, d->stream>>>(data, log_n, p->p_lo, p->p_hi, out_r);
    } else {
      ntt_scale_const<<<nb, 256, 0, d->stream>>>(data, log_n, p->scale);
    }
    PSC_CHECK_LAUNCH();
  }
  return PS_OK;
fail:
  return rc;
}

int psc__ntt_dev(psc_dev *d, fr_t *data, unsigned log_n, int flags, ps_err *e) {
  ntt_plan plan;
  int rc = plan_make(d, log_n, flags, &plan, e);
  return rc ? rc : plan_run(d, &plan, data, e);
}

extern "C" int psc_ntt(psc_dev *d, fr_t *data, unsigned log_n, size_t batch, int flags, ps_err *e) {
  int rc = PS_OK;
  fr_t *buf = NULL;
  ntt_plan plan;
  if (log_n < 1 || log_n > 31)
    return ps_fail(e, PS_EINPUT, "NTT size 2^%u: expected 1 <= log2(size) <= 31", log_n);
  size_t n = (size_t)1 << log_n;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if ((rc = plan_make(d, log_n, flags, &plan, e))) return rc;
  if ((rc = psc__ws(d, PSC_WS_NTT_DATA, n * sizeof(fr_t), "NTT data buffer", (void **)&buf, e))) return rc;
  for (size_t b = 0; b < batch; b++) {
    PSC_CHECK(cudaMemcpyAsync(buf, data + b * n, n * sizeof(fr_t), cudaMemcpyHostToDevice, d->stream));
    if ((rc = plan_run(d, &plan, buf, e))) goto fail;
    PSC_CHECK(cudaMemcpyAsync(data + b * n, buf, n * sizeof(fr_t), cudaMemcpyDeviceToHost, d->stream));
  }
  PSC_CHECK(cudaStreamSynchronize(d->stream));
fail:
  return rc;
}

/* Random-looking field elements (Montgomery form of hashes of the index), made on the device. */
__global__ void ntt_fill_random(fr_t *d, size_t n, uint64_t seed) {
  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  fr_t v;
  uint64_t x = seed ^ (j * 0x9e3779b97f4a7c15ull);
  for (int i = 0; i < 8; i++) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    v.v[i] = (uint32_t)x;
  }
  v.v[7] &= 0x3fffffff; /* < r */
  d[j] = v;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

extern "C" int psc_bench_ntt(psc_dev *d, unsigned log_n, int flags, int reps, double *median_ms, ps_err *e) {
  int rc = PS_OK;
  fr_t *buf = NULL;
  ntt_plan plan;
  cudaEvent_t ev0 = NULL, ev1 = NULL;
  double *ms = (double *)xcalloc((size_t)reps + 1, sizeof(double));
  size_t n = (size_t)1 << log_n;
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if ((rc = plan_make(d, log_n, flags, &plan, e))) goto fail;
  if ((rc = psc__alloc(d, (void **)&buf, n * sizeof(fr_t), "NTT data buffer", e))) goto fail;
  ntt_fill_random<<<psc__blocks(n, 256), 256, 0, d->stream>>>(buf, n, 12345);
  PSC_CHECK_LAUNCH();
  PSC_CHECK(cudaEventCreate(&ev0));
  PSC_CHECK(cudaEventCreate(&ev1));
  if ((rc = plan_run(d, &plan, buf, e))) goto fail; /* warm-up */
  for (int r = 0; r < reps; r++) {
    float t;
    PSC_CHECK(cudaEventRecord(ev0, d->stream));
    if ((rc = plan_run(d, &plan, buf, e))) goto fail;
    PSC_CHECK(cudaEventRecord(ev1, d->stream));
    PSC_CHECK(cudaEventSynchronize(ev1));
    PSC_CHECK(cudaEventElapsedTime(&t, ev0, ev1));
    ms[r] = t;
  }
  qsort(ms, (size_t)reps, sizeof(double), cmp_double);
  *median_ms = ms[reps / 2];
fail:
  if (ev0) cudaEventDestroy(ev0);
  if (ev1) cudaEventDestroy(ev1);
  cudaFree(buf);
  free(ms);
  return rc;
}
