/* Radix-2 NTT over Fr in plain C. Decimation in frequency (Gentleman-Sande) maps natural
 * order to bit-reversed order, decimation in time (Cooley-Tukey) maps bit-reversed to
 * natural; one bit-reversal permutation gives the two other order combinations. One
 * twiddle table w^j, j < n/2, serves every stage (stage of half-span h reads it with
 * stride n/2h). Work is split across pthreads: whole vectors of a batch when there are
 * enough, otherwise the butterflies of each stage (with a join between stages). */
#include "ntt.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fr.h"
#include "util.h"

/* Below this size a vector is transformed on one thread. */
#define NTT_PAR_MIN_LOG 12

void ntt_root_of_unity(fr_t *w, unsigned log_n) {
  PS_ASSERT(log_n <= BLS_FR_TWO_ADICITY);
  fr_t r = BLS_FR_ROOT_OF_UNITY;
  for (unsigned i = log_n; i < BLS_FR_TWO_ADICITY; i++) fr_sqr(&r, &r);
  *w = r;
}

static inline size_t bitrev(size_t i, unsigned log_n) {
  uint64_t x = i;
  x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
  x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((x & 0x0f0f0f0f0f0f0f0fULL) << 4);
  x = __builtin_bswap64(x);
  return (size_t)(x >> (64 - log_n));
}

void ntt_bitrev_permute(fr_t *a, unsigned log_n) {
  size_t n = (size_t)1 << log_n;
  for (size_t i = 0; i < n; i++) {
    size_t j = bitrev(i, log_n);
    if (i < j) {
      fr_t t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}

/* tw[j] = base^j for j < count. */
static void powers(fr_t *tw, size_t count, const fr_t *base) {
  fr_one(&tw[0]);
  for (size_t j = 1; j < count; j++) fr_mul(&tw[j], &tw[j - 1], base);
}

/* One stage of half-span h over the butterfly range [b0, b1) of a vector of n elements
 * (butterfly index q = block * h + j). */
static void stage(fr_t *d, size_t n, size_t h, const fr_t *tw, int dit, size_t b0, size_t b1) {
  size_t stride = n / (2 * h);
  for (size_t q = b0; q < b1; q++) {
    size_t j = q & (h - 1), k = (q - j) * 2 + j;
    fr_t *x = &d[k], *y = &d[k + h], a = *x, b = *y;
    if (!dit) {
      fr_add(x, &a, &b);
      fr_sub(y, &a, &b);
      if (j) fr_mul(y, y, &tw[j * stride]);
    } else {
      if (j) fr_mul(&b, &b, &tw[j * stride]);
      fr_add(x, &a, &b);
      fr_sub(y, &a, &b);
    }
  }
}

/* Per-index factors f(i) = first * base^i without an n-element table: f(i) =
 * hi[i >> SCALE_LO_BITS] * lo[i & (2^SCALE_LO_BITS - 1)], with lo[j] = base^j and
 * hi[j] = first * base^(j 2^SCALE_LO_BITS); one extra multiplication per element. */
#define SCALE_LO_BITS 10
typedef struct {
  fr_t *lo, *hi;
} scale_tab;

static void scale_tab_init(scale_tab *t, size_t n, const fr_t *base, const fr_t *first) {
  size_t nlo = (size_t)1 << SCALE_LO_BITS, nhi = (n + nlo - 1) / nlo;
  if (nlo > n) nlo = n;
  t->lo = xmalloc(nlo * sizeof *t->lo);
  t->hi = xmalloc(nhi * sizeof *t->hi);
  powers(t->lo, nlo, base);
  fr_t step = *base;
  for (unsigned b = 0; b < SCALE_LO_BITS; b++) fr_sqr(&step, &step);
  t->hi[0] = *first;
  for (size_t j = 1; j < nhi; j++) fr_mul(&t->hi[j], &t->hi[j - 1], &step);
}

/* Multiplies position p in [p0, p1) by f(idx(p)), where idx is p or rev(p). */
static void scale_range(fr_t *d, const scale_tab *t, unsigned log_n, int rev, size_t p0, size_t p1) {
  const size_t mask = ((size_t)1 << SCALE_LO_BITS) - 1;
  for (size_t p = p0; p < p1; p++) {
    size_t i = rev ? bitrev(p, log_n) : p;
    fr_t f;
    fr_mul(&f, &t->hi[i >> SCALE_LO_BITS], &t->lo[i & mask]);
    fr_mul(&d[p], &d[p], &f);
  }
}

/* The shared plan of one call. */
typedef struct {
  fr_t *data;
  unsigned log_n;
  size_t n, batch;
  int flags;
  const fr_t *tw;       /* w^j (or w^-j for the inverse), j < n/2 */
  const scale_tab *pre;  /* per-index factors before the transform, or NULL */
  const scale_tab *post; /* per-index factors after it, or NULL */
  unsigned nthreads;
  pthread_barrier_t bar;
} plan;

/* The whole transform of one vector on one thread. */
static void one_vector(const plan *pl, fr_t *d) {
  size_t n = pl->n, half = n / 2;
  int in_rev = (pl->flags & NTT_IN_BITREV) != 0, out_rev = (pl->flags & NTT_OUT_BITREV) != 0;
  if (pl->pre) scale_range(d, pl->pre, pl->log_n, in_rev, 0, n);
  if (!in_rev) { /* DIF: natural -> bit-reversed */
    for (size_t h = half; h >= 1; h >>= 1) stage(d, n, h, pl->tw, 0, 0, half);
    if (!out_rev) ntt_bitrev_permute(d, pl->log_n);
  } else { /* DIT: bit-reversed -> natural */
    for (size_t h = 1; h < n; h <<= 1) stage(d, n, h, pl->tw, 1, 0, half);
    if (out_rev) ntt_bitrev_permute(d, pl->log_n);
  }
  if (pl->post) scale_range(d, pl->post, pl->log_n, out_rev, 0, n);
}

typedef struct {
  plan *pl;
  unsigned id;
} worker;

/* Batch-parallel: thread id takes vectors id, id + T, ... */
static void *batch_worker(void *arg) {
  worker *w = arg;
  for (size_t v = w->id; v < w->pl->batch; v += w->pl->nthreads)
    one_vector(w->pl, w->pl->data + v * w->pl->n);
  return NULL;
}

/* Stage-parallel on one vector: each step split into equal ranges, barriers between. */
static void *stage_worker(void *arg) {
  worker *w = arg;
  plan *pl = w->pl;
  size_t n = pl->n, half = n / 2, T = pl->nthreads;
  size_t b0 = half * w->id / T, b1 = half * (w->id + 1) / T;
  size_t p0 = n * w->id / T, p1 = n * (w->id + 1) / T;
  int in_rev = (pl->flags & NTT_IN_BITREV) != 0, out_rev = (pl->flags & NTT_OUT_BITREV) != 0;
  for (size_t v = 0; v < pl->batch; v++) {
    fr_t *d = pl->data + v * n;
    if (pl->pre) scale_range(d, pl->pre, pl->log_n, in_rev, p0, p1);
    if (!in_rev) {
      for (size_t h = half; h >= 1; h >>= 1) {
        pthread_barrier_wait(&pl->bar);
        stage(d, n, h, pl->tw, 0, b0, b1);
      }
    } else {
      for (size_t h = 1; h < n; h <<= 1) {
        pthread_barrier_wait(&pl->bar);
        stage(d, n, h, pl->tw, 1, b0, b1);
      }
    }
    pthread_barrier_wait(&pl->bar);
    if (in_rev == out_rev) { /* the permutation: each thread swaps the pairs it owns */
      for (size_t i = p0; i < p1; i++) {
        size_t j = bitrev(i, pl->log_n);
        if (i < j) {
          fr_t t = d[i];
          d[i] = d[j];
          d[j] = t;
        }
      }
      pthread_barrier_wait(&pl->bar);
    }
    if (pl->post) scale_range(d, pl->post, pl->log_n, out_rev, p0, p1);
    pthread_barrier_wait(&pl->bar);
  }
  return NULL;
}

static unsigned online_cpus(void) {
  long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c > 0 ? (unsigned)c : 1;
}

void ntt_cpu(fr_t *data, unsigned log_n, size_t batch, int flags, unsigned threads) {
  PS_ASSERT(log_n >= 1 && log_n <= NTT_MAX_LOG_N);
  if (batch == 0) return;
  size_t n = (size_t)1 << log_n;
  int inverse = (flags & NTT_INVERSE) != 0, coset = (flags & NTT_COSET) != 0;
  plan pl = {.data = data, .log_n = log_n, .n = n, .batch = batch, .flags = flags};

  fr_t w, *tw = xmalloc(n / 2 * sizeof *tw);
  scale_tab scale = {NULL, NULL};
  ntt_root_of_unity(&w, log_n);
  if (inverse) fr_inv(&w, &w);
  powers(tw, n / 2, &w);
  pl.tw = tw;
  if (coset || inverse) {
    /* Forward coset: x_i *= g^i before. Inverse: y_i *= (1/n) g^-i after (coset), or
     * 1/n alone. */
    fr_t base, first;
    if (coset) {
      base = inverse ? (fr_t)BLS_FR_GENERATOR_INV : (fr_t)BLS_FR_GENERATOR;
    } else {
      fr_one(&base);
    }
    if (inverse) {
      fr_from_u64(&first, n);
      fr_inv(&first, &first);
    } else {
      fr_one(&first);
    }
    scale_tab_init(&scale, n, &base, &first);
    if (inverse) pl.post = &scale;
    else pl.pre = &scale;
  }

  unsigned T = threads ? threads : online_cpus();
  if (batch >= T && T > 1) {
    pl.nthreads = T;
  } else if (log_n >= NTT_PAR_MIN_LOG && T > 1) {
    pl.nthreads = T;
  } else {
    pl.nthreads = 1;
  }
  if (pl.nthreads == 1) {
    for (size_t v = 0; v < batch; v++) one_vector(&pl, data + v * n);
  } else {
    int by_batch = batch >= pl.nthreads;
    pthread_t *th = xmalloc(pl.nthreads * sizeof *th);
    worker *wk = xmalloc(pl.nthreads * sizeof *wk);
    if (!by_batch) PS_ASSERT(pthread_barrier_init(&pl.bar, NULL, pl.nthreads) == 0);
    for (unsigned i = 0; i < pl.nthreads; i++) {
      wk[i] = (worker){&pl, i};
      if (i == 0) continue;
      PS_ASSERT(pthread_create(&th[i], NULL, by_batch ? batch_worker : stage_worker, &wk[i]) == 0);
    }
    (by_batch ? batch_worker : stage_worker)(&wk[0]);
    for (unsigned i = 1; i < pl.nthreads; i++) pthread_join(th[i], NULL);
    if (!by_batch) pthread_barrier_destroy(&pl.bar);
    free(th);
    free(wk);
  }
  free(tw);
  free(scale.lo);
  free(scale.hi);
}

void ntt_forward(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV), 0);
}

void ntt_inverse(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, NTT_INVERSE | (order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV)), 0);
}

void ntt_coset_forward(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, NTT_COSET | (order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV)), 0);
}

void ntt_coset_inverse(fr_t *a, unsigned log_n, int order_flags) {
  ntt_cpu(a, log_n, 1, NTT_INVERSE | NTT_COSET | (order_flags & (NTT_IN_BITREV | NTT_OUT_BITREV)), 0);
}
