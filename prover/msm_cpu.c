/* Pippenger MSM in plain C, written once over a small table of group operations so that
 * G1 and G2 share the code (the cost of the indirect calls is small beside a field
 * multiplication). Buckets are XYZZ points, filled with mixed additions of affine bases.
 * Windows are independent and run in parallel (par_for); with more threads than windows
 * the points of each window are split into chunks as well. */
#include "msm.h"

#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "util.h"

/* Group operations on opaque points; sizes in bytes. */
typedef struct {
  size_t aff_size, xyzz_size, jac_size;
  void (*xyzz_set_inf)(void *r);
  void (*xyzz_add_affine)(void *r, const void *p, const void *q);
  void (*xyzz_add_affine_neg)(void *r, const void *p, const void *q);
  void (*xyzz_add)(void *r, const void *p, const void *q);
  void (*xyzz_to_jac)(void *r, const void *p);
  void (*jac_set_inf)(void *r);
  void (*jac_add)(void *r, const void *p, const void *q);
  void (*jac_dbl)(void *r, const void *p);
} group_ops;

/* Wrappers with the opaque signatures, so no function is called through a pointer of
 * another type. */
#define WRAP(G)                                                                          \
  static void G##_w_xyzz_set_inf(void *r) { G##_xyzz_set_inf(r); }                       \
  static void G##_w_xyzz_add_affine(void *r, const void *p, const void *q) {             \
    G##_xyzz_add_affine(r, p, q);                                                        \
  }                                                                                      \
  static void G##_w_xyzz_add_affine_neg(void *r, const void *p, const void *q) {         \
    G##_xyzz_add_affine_neg(r, p, q);                                                    \
  }                                                                                      \
  static void G##_w_xyzz_add(void *r, const void *p, const void *q) { G##_xyzz_add(r, p, q); } \
  static void G##_w_xyzz_to_jac(void *r, const void *p) { G##_xyzz_to_jac(r, p); }       \
  static void G##_w_jac_set_inf(void *r) { G##_jac_set_inf(r); }                         \
  static void G##_w_jac_add(void *r, const void *p, const void *q) { G##_jac_add(r, p, q); } \
  static void G##_w_jac_dbl(void *r, const void *p) { G##_jac_dbl(r, p); }
WRAP(g1)
WRAP(g2)
#define OPS(G)                                                                           \
  {sizeof(G##_affine_t), sizeof(G##_xyzz_t), sizeof(G##_jac_t), G##_w_xyzz_set_inf,      \
   G##_w_xyzz_add_affine, G##_w_xyzz_add_affine_neg, G##_w_xyzz_add, G##_w_xyzz_to_jac,  \
   G##_w_jac_set_inf, G##_w_jac_add, G##_w_jac_dbl}

static const group_ops G1_OPS = OPS(g1);
static const group_ops G2_OPS = OPS(g2);

unsigned msm_cpu_window(int g2, size_t n) {
  (void)g2;
  unsigned best = 1;
  double best_cost = 0;
  /* Up to 16: beyond, the per-thread buckets (2^(c-1) XYZZ points, 12 MiB for G2 at 16)
   * grow faster than the saving. */
  for (unsigned c = 1; c <= 16; c++) {
    double cost = (double)(255 / c + 1) * ((double)n + (double)(1u << c));
    if (c == 1 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

/* Bits [off, off + c) of a 256-bit canonical integer (c <= 24). */
static uint32_t bits_at(const fr_t *k, unsigned off, unsigned c) {
  if (off >= 256) return 0;
  unsigned li = off / 32, sh = off % 32;
  uint64_t w = k->v[li];
  if (li + 1 < BLS_FR_LIMBS) w |= (uint64_t)k->v[li + 1] << 32;
  return (uint32_t)(w >> sh) & ((1u << c) - 1);
}

/* One call: digits of every scalar for every window, and tasks t = (window t / nchunks,
 * chunk t % nchunks of the points), each writing its own sum. */
typedef struct {
  const group_ops *ops;
  const uint8_t *bases;
  const int32_t *digits; /* [window][n] */
  size_t n;
  unsigned c, nwin, nchunks;
  uint8_t *task_sums;    /* nwin * nchunks Jacobian points */
} job;

/* The part of window w's sum sum_b (b+1) * bucket[b] that points [i0, i1) make: fill the
 * 2^(c-1) buckets, then the running-sum trick (two additions per bucket). */
static void do_task(const job *jb, unsigned w, size_t i0, size_t i1, uint8_t *buckets, void *out_jac) {
  const group_ops *o = jb->ops;
  size_t nb = (size_t)1 << (jb->c - 1), xs = o->xyzz_size;
  for (size_t b = 0; b < nb; b++) o->xyzz_set_inf(buckets + b * xs);
  const int32_t *d = jb->digits + (size_t)w * jb->n;
  for (size_t i = i0; i < i1; i++) {
    int32_t di = d[i];
    if (di == 0) continue;
    const uint8_t *p = jb->bases + i * o->aff_size;
    if (di > 0) {
      uint8_t *bk = buckets + (size_t)(di - 1) * xs;
      o->xyzz_add_affine(bk, bk, p);
    } else {
      uint8_t *bk = buckets + (size_t)(-di - 1) * xs;
      o->xyzz_add_affine_neg(bk, bk, p);
    }
  }
  _Alignas(16) uint8_t run[sizeof(g2_xyzz_t)];
  _Alignas(16) uint8_t acc[sizeof(g2_xyzz_t)];
  o->xyzz_set_inf(run);
  o->xyzz_set_inf(acc);
  for (size_t b = nb; b-- > 0;) {
    o->xyzz_add(run, run, buckets + b * xs);
    o->xyzz_add(acc, acc, run);
  }
  o->xyzz_to_jac(out_jac, acc);
}

/* par_for's body over tasks [lo, hi). A task's sum depends on the task alone, not on
 * the thread that runs it. */
static void task_range(void *ctx, size_t lo, size_t hi) {
  const job *jb = ctx;
  const group_ops *o = jb->ops;
  uint8_t *buckets = xmalloc(((size_t)1 << (jb->c - 1)) * o->xyzz_size);
  for (size_t t = lo; t < hi; t++) {
    unsigned w = (unsigned)(t / jb->nchunks), ch = (unsigned)(t % jb->nchunks);
    size_t i0 = jb->n * ch / jb->nchunks, i1 = jb->n * (ch + 1) / jb->nchunks;
    do_task(jb, w, i0, i1, buckets, jb->task_sums + t * o->jac_size);
  }
  free(buckets);
}

static void msm_run(const group_ops *o, void *out, const void *bases, const fr_t *scalars,
                    size_t n, unsigned c, unsigned threads) {
  if (c == 0) c = msm_cpu_window(o == &G2_OPS, n);
  PS_ASSERT(c >= 1 && c <= MSM_MAX_WINDOW);
  o->jac_set_inf(out);
  if (n == 0) return;
  /* Scalars < r < 2^255: 255/c + 1 windows hold every digit and the last carry. */
  unsigned nwin = 255 / c + 1;
  int32_t *digits = xmalloc((size_t)nwin * n * sizeof *digits);
  for (size_t i = 0; i < n; i++) {
    fr_t k = scalars[i];
    fr_canon_reduce(&k);
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
      uint32_t v = bits_at(&k, w * c, c) + carry;
      int32_t d;
      if (v > (1u << (c - 1))) {
        d = (int32_t)v - (int32_t)(1u << c);
        carry = 1;
      } else {
        d = (int32_t)v;
        carry = 0;
      }
      digits[(size_t)w * n + i] = d;
    }
    PS_ASSERT(carry == 0);
  }
  unsigned T = threads ? threads : (unsigned)ps_ncores();
  if (n < 64) T = 1; /* thread start-up would cost more than the work */
  /* More threads than windows: split the points too, as long as a chunk still has more
   * points than buckets (each chunk pays for its own bucket sum). The chunks, so the
   * Jacobian form of the result, depend on T; the point does not. */
  unsigned nchunks = (T + nwin - 1) / nwin;
  size_t max_chunks = n >> c;
  if (max_chunks < 1) max_chunks = 1;
  if (nchunks > max_chunks) nchunks = (unsigned)max_chunks;
  job jb = {.ops = o, .bases = bases, .digits = digits, .n = n, .c = c, .nwin = nwin,
            .nchunks = nchunks};
  jb.task_sums = xmalloc((size_t)nwin * nchunks * o->jac_size);
  par_for((size_t)nwin * nchunks, 1, (int)T, task_range, &jb, NULL, NULL);
  /* out = sum_w 2^(cw) * S_w, Horner from the top window; S_w the sum of its chunks. */
  for (unsigned w = nwin; w-- > 0;) {
    if (w + 1 < nwin) {
      for (unsigned b = 0; b < c; b++) o->jac_dbl(out, out);
    }
    for (unsigned ch = 0; ch < nchunks; ch++)
      o->jac_add(out, out, jb.task_sums + ((size_t)w * nchunks + ch) * o->jac_size);
  }
  free(jb.task_sums);
  free(digits);
}

void msm_cpu_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n,
                unsigned window, unsigned threads) {
  msm_run(&G1_OPS, out, bases, scalars, n, window, threads);
}

void msm_cpu_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n,
                unsigned window, unsigned threads) {
  msm_run(&G2_OPS, out, bases, scalars, n, window, threads);
}

void msm_naive_g1(g1_jac_t *out, const g1_affine_t *bases, const fr_t *scalars, size_t n) {
  g1_jac_t t;
  g1_jac_set_inf(out);
  for (size_t i = 0; i < n; i++) {
    g1_affine_mul(&t, &bases[i], &scalars[i]);
    g1_jac_add(out, out, &t);
  }
}

void msm_naive_g2(g2_jac_t *out, const g2_affine_t *bases, const fr_t *scalars, size_t n) {
  g2_jac_t t;
  g2_jac_set_inf(out);
  for (size_t i = 0; i < n; i++) {
    g2_affine_mul(&t, &bases[i], &scalars[i]);
    g2_jac_add(out, out, &t);
  }
}
