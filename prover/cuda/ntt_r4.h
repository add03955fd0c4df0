/* Radix-4 steps of the GPU NTT's shared-memory passes (ntt.cu): two consecutive stages of
 * the radix-2 network done by one thread on four elements held in registers, so a pair of
 * stages costs one shared-memory round trip instead of two. Written once for the kernel
 * and for tests/test_ntt_r4.c, which runs the same index arithmetic and butterfly order on
 * the CPU against the reference NTT (CI has no GPU).
 *
 * In a pass of k stages over a block of 2^k rows x 2^c columns (row r, column col at
 * element (r << c) | col; L the bits below the pass, S = s + t the global stage), stage t
 * pairs rows r and r + 2^(k-1-t) (r with bit k-1-t clear) and multiplies by the twiddle
 * w^(((r mod 2^(k-1-t)) << L | lo_group << c | col) << S). Two stages with spans H and
 * h = H/2 (H = 2^lH) touch the four rows b, b+h, b+H, b+H+h, where b has bits lH-1 and lH
 * clear: the big stage pairs (b, b+H) and (b+h, b+H+h), the small one (b, b+h) and
 * (b+H, b+H+h). DIF runs the big stage first, DIT (the transposed network) the small one. */
#ifndef PROVESIM_NTT_R4_H
#define PROVESIM_NTT_R4_H

#include <stddef.h>

#ifdef __CUDACC__
#define NTT_HD static __host__ __device__ __forceinline__
#else
#define NTT_HD static inline
#endif

typedef struct ntt_r4_group {
  unsigned e[4];  /* element indices in the block: rows b, b+h, b+H, b+H+h */
  size_t ti[3];   /* twiddle indices: big stage (b, b+H), big stage (b+h, b+H+h), small stage */
  unsigned ts[3]; /* the same twiddles' slots in the tile's staged table (ntt_tw_slot) */
} ntt_r4_group;

/* A tile's staged twiddles (PSC_NTT_TW=shared: copied into shared memory with the tile):
 * every twiddle the tile's stages use, once. The stage whose pairs are 2^j rows apart
 * multiplies row offset m (m < 2^j) of column col by the twiddle in slot
 * ((2^j - 1 + m) << c) | col; a pass of k stages fills (2^k - 1) << c slots, fewer than
 * the tile's 2^(k+c) elements. */
NTT_HD unsigned ntt_tw_slot(unsigned j, unsigned m, unsigned c, unsigned col) {
  return (((1u << j) - 1 + m) << c) | col;
}
NTT_HD unsigned ntt_tw_nslots(unsigned k, unsigned c) { return ((1u << k) - 1) << c; }

/* The twiddle index (into the table of w^i) of slot e of a tile of the pass of k stages
 * from stage s, L and g2hi = lo_group << c as in ntt_r4_group_at. */
NTT_HD size_t ntt_tw_slot_index(unsigned e, unsigned c, unsigned k, unsigned L, size_t g2hi, unsigned s) {
  const unsigned q = (e >> c) + 1, col = e & ((1u << c) - 1);
#ifdef __CUDA_ARCH__
  const unsigned j = 31 - __clz(q);
#else
  const unsigned j = 31 - __builtin_clz(q);
#endif
  const unsigned m = q - (1u << j);
  return ((((size_t)m) << L) | g2hi | col) << (s + k - 1 - j);
}

/* Group g (0 <= g < 2^(k-2+c)) of the stage pair whose big stage has span 2^lH (lH >= 1)
 * and global index S_big; g2hi = lo_group << c. */
NTT_HD void ntt_r4_group_at(ntt_r4_group *gr, unsigned g, unsigned c, unsigned lH, unsigned L, size_t g2hi,
                            unsigned S_big) {
  const unsigned col = g & ((1u << c) - 1), q = g >> c;
  const unsigned h = 1u << (lH - 1), H = h << 1, lo = q & (h - 1);
  const unsigned b = ((q >> (lH - 1)) << (lH + 1)) | lo;
  const size_t g2 = g2hi | col;
  gr->e[0] = (b << c) | col;
  gr->e[1] = ((b + h) << c) | col;
  gr->e[2] = ((b + H) << c) | col;
  gr->e[3] = ((b + H + h) << c) | col;
  gr->ti[0] = ((((size_t)lo) << L) | g2) << S_big;
  gr->ti[1] = ((((size_t)(lo + h)) << L) | g2) << S_big;
  gr->ti[2] = ((((size_t)lo) << L) | g2) << (S_big + 1);
  gr->ts[0] = ntt_tw_slot(lH, lo, c, col);
  gr->ts[1] = ntt_tw_slot(lH, lo + h, c, col);
  gr->ts[2] = ntt_tw_slot(lH - 1, lo, c, col);
}

/* The four butterflies on x[0..3] with twiddles w0, w1, w2 (wi used only when has[i]):
 * DIF: (x0,x2) and (x1,x3) with w0, w1, then (x0,x1) and (x2,x3) with w2, each
 * (a, b) -> (a + b, (a - b) w); DIT: the transposed order, (a, b) -> (a + b w, a - b w).
 * FT is the field type; ADD/SUB(r, a, b) its operations on pointers, and MUL(r, a, w, i)
 * sets r = a * wi, the twiddles' holder w and the index i (a constant) passed as they are,
 * so that a caller may keep each twiddle in the form its product takes. */
#define NTT_R4_BUTTERFLIES(FT, x, w, has, dit, ADD, SUB, MUL)                                      \
  do {                                                                                             \
    FT t_;                                                                                         \
    if (!(dit)) {                                                                                  \
      SUB(&t_, &x[0], &x[2]); ADD(&x[0], &x[0], &x[2]);                                            \
      if (has[0]) MUL(&x[2], &t_, w, 0); else x[2] = t_;                                           \
      SUB(&t_, &x[1], &x[3]); ADD(&x[1], &x[1], &x[3]);                                            \
      if (has[1]) MUL(&x[3], &t_, w, 1); else x[3] = t_;                                           \
      SUB(&t_, &x[0], &x[1]); ADD(&x[0], &x[0], &x[1]);                                            \
      if (has[2]) MUL(&x[1], &t_, w, 2); else x[1] = t_;                                           \
      SUB(&t_, &x[2], &x[3]); ADD(&x[2], &x[2], &x[3]);                                            \
      if (has[2]) MUL(&x[3], &t_, w, 2); else x[3] = t_;                                           \
    } else {                                                                                       \
      if (has[2]) { MUL(&x[1], &x[1], w, 2); MUL(&x[3], &x[3], w, 2); }                            \
      SUB(&t_, &x[0], &x[1]); ADD(&x[0], &x[0], &x[1]); x[1] = t_;                                 \
      SUB(&t_, &x[2], &x[3]); ADD(&x[2], &x[2], &x[3]); x[3] = t_;                                 \
      if (has[0]) MUL(&x[2], &x[2], w, 0);                                                         \
      if (has[1]) MUL(&x[3], &x[3], w, 1);                                                         \
      SUB(&t_, &x[0], &x[2]); ADD(&x[0], &x[0], &x[2]); x[2] = t_;                                 \
      SUB(&t_, &x[1], &x[3]); ADD(&x[1], &x[1], &x[3]); x[3] = t_;                                 \
    }                                                                                              \
  } while (0)

/* Whether, under the product mode MUL (ntt.cu's NTT_MUL_*: 2 fp64, 3 mixed), twiddle i
 * (0..2) of a radix-4 group, or (i = -1) a radix-2 stage's, takes the FP64 product
 * (psf_fp64.h) and its table of 16 w as 52-bit limbs: every one under fp64; under mixed
 * w2, which a group multiplies by twice, so that half of a group's products go to the FP64
 * pipe and half to the integer multiplier. */
#define NTT_R4_W52(MUL, i) ((MUL) == 2 || ((MUL) == 3 && (i) == 2))

/* The pass layout of a transform of 2^log_n: passes of k stages each (ps[i] the first
 * stage of pass i, pk[i] its count), the pre-passes of at most max_k stages split as
 * evenly as they go, then one last pass of log_block stages (or one pass of all of them
 * when log_n <= log_block); returns the number of passes. With even set (PSC_NTT_SPLIT=
 * even) the same number of pre-passes take even counts where they can (at most one odd,
 * when their sum is odd), as evenly as that allows and shortest first, so that fewer passes
 * end in a radix-2 stage (2^24 with passes of at most 7: 4 + 6 + 6 instead of 5 + 5 + 6;
 * 2^22 with at most 8: 6 + 8 instead of 7 + 7); where a count would pass max_k (or be 0),
 * the split is the plain one. */
NTT_HD unsigned ntt_pass_layout_split(unsigned log_n, unsigned log_block, unsigned max_k, int even, unsigned *ps,
                                      unsigned *pk) {
  unsigned np = 0;
  if (log_n <= log_block) {
    ps[0] = 0, pk[0] = log_n;
    return 1;
  }
  unsigned rest = log_n - log_block, npre = (rest + max_k - 1) / max_k, s = 0;
  if (even && npre > 1 && npre < 32) { /* pairs of stages shared out, an odd one to a short pass */
    const unsigned half = rest / 2, q = half / npre, r = half % npre;
    unsigned k[32], ok = 1;
    for (unsigned i = 0; i < npre; i++) /* the first pass the odd stage, the last r a pair more */
      k[i] = 2 * (q + (i >= npre - r)) + (i == 0 ? rest & 1 : 0);
    for (unsigned i = 1; i < npre; i++) /* shortest first */
      for (unsigned j = i; j > 0 && k[j] < k[j - 1]; j--) {
        unsigned t = k[j];
        k[j] = k[j - 1], k[j - 1] = t;
      }
    for (unsigned i = 0; i < npre; i++) ok &= k[i] >= 1 && k[i] <= max_k;
    if (ok) {
      for (unsigned i = 0; i < npre; i++) {
        ps[np] = s, pk[np++] = k[i];
        s += k[i];
      }
      ps[np] = s, pk[np++] = log_block;
      return np;
    }
  }
  for (unsigned i = 0; i < npre; i++) {
    unsigned k = rest / (npre - i);
    ps[np] = s, pk[np++] = k;
    s += k, rest -= k;
  }
  ps[np] = s, pk[np++] = log_block;
  return np;
}
NTT_HD unsigned ntt_pass_layout(unsigned log_n, unsigned log_block, unsigned max_k, unsigned *ps, unsigned *pk) {
  return ntt_pass_layout_split(log_n, log_block, max_k, 0, ps, pk);
}

/* The grid of a radix-4 pass over ntiles tiles, block b doing tiles b, b + grid, ...: a
 * block per tiles_per_block tiles, or with tiles_per_block 0 the resident blocks the device
 * holds at once (at most one a tile). */
NTT_HD unsigned ntt_r4_grid(unsigned ntiles, unsigned tiles_per_block, size_t resident) {
  if (tiles_per_block) return (ntiles + tiles_per_block - 1) / tiles_per_block;
  if (!resident) resident = 1;
  return resident < ntiles ? (unsigned)resident : ntiles;
}

/* The default blocks (2^log_block elements in shared memory) and pass length: blocks of
 * 2^8 and passes of at most 7 stages, but 8 at 2^23. On the H200 blocks of 2^8 ran every
 * size from 2^16 to 2^27 3-39% faster than blocks of 2^10 with passes of at most 8 (2^20 by
 * 22%, 2^24 by 5%), and of the layouts tried none was more than 1% faster at any size from
 * 2^17 to 2^26 (docs/performance.md, "NTT: smaller blocks"). Since the passes reduce lazily
 * and launch as dependents, 2^23 runs 1.1-1.6% faster in three passes (7 + 8 + 8) than in
 * four (5 + 5 + 5 + 8), every round of two H100 calls; at 2^24 a bound of 8 gives three
 * passes of 8 and is 1.5-2% slower, and elsewhere from 2^17 it changes nothing
 * (docs/performance.md, "Pre-passes of even lengths"). */
NTT_HD void ntt_default_layout(unsigned log_n, unsigned *log_block, unsigned *max_k) {
  *log_block = 8;
  *max_k = log_n == 23 ? 8 : 7;
}

#endif
