/* Implementation of core/rng.h: MT19937 as a GSL generator type, and the ziggurat's fast
 * path read out of GSL. The generator follows the published algorithm (Matsumoto and
 * Nishimura, ACM TOMACS 8(1), 1998; seeding as in their init_genrand of 2002, with GSL's
 * convention that seed 0 means 4357); test_rng checks its numbers against
 * gsl_rng_mt19937's. */
#include "rng.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "util.h"

/* ---------------------------------------------------------------- MT19937 */

#define MT_M 397
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu
#define MT_A 0x9908b0dfu

static inline uint32_t mt_twist(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t y = (a & MT_UPPER) | (b & MT_LOWER);
  return c ^ (y >> 1) ^ ((y & 1u) ? MT_A : 0u);
}

static inline uint32_t mt_temper(uint32_t y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

/* The next 624 words of the recurrence, and their tempered outputs. */
void rng__refill(rng_mt *s) {
  uint32_t *mt = s->mt;
  int k;
  for (k = 0; k < RNG_MT_N - MT_M; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M]);
  for (; k < RNG_MT_N - 1; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M - RNG_MT_N]);
  mt[RNG_MT_N - 1] = mt_twist(mt[RNG_MT_N - 1], mt[0], mt[MT_M - 1]);
  for (k = 0; k < RNG_MT_N; k++) s->out[k] = mt_temper(mt[k]);
  s->i = 0;
}

static void mt_set(void *state, unsigned long seed) {
  rng_mt *s = state;
  if (seed == 0) seed = 4357;
  s->mt[0] = (uint32_t)seed;
  for (uint32_t k = 1; k < RNG_MT_N; k++) s->mt[k] = 1812433253u * (s->mt[k - 1] ^ (s->mt[k - 1] >> 30)) + k;
  s->i = RNG_MT_N;
}

static unsigned long mt_get(void *state) {
  rng_mt *s = state;
  if (s->i >= RNG_MT_N) rng__refill(s);
  return s->out[s->i++];
}

static double mt_get_double(void *state) { return (double)mt_get(state) / 4294967296.0; }

static const gsl_rng_type mt_type = {"provesim-mt19937", 0xffffffffUL, 0, sizeof(rng_mt), mt_set, mt_get,
                                     mt_get_double};

const gsl_rng_type *rng_mt19937 = &mt_type;

/* ---------------------------------------------------------------- the ziggurat's tables */

rng_zig rng__zig;

/* A scripted generator for reading GSL's ziggurat: its first number is `first`, later ones
 * are draws that take the fast path for almost any table (j = 0); it counts the numbers
 * asked for, so a draw that asked for one took the fast path. */
typedef struct probe {
  uint32_t first;
  unsigned calls;
} probe;

static void probe_set(void *state, unsigned long seed) { memset(state, 0, sizeof(probe)); }

static unsigned long probe_get(void *state) {
  probe *p = state;
  return p->calls++ == 0 ? p->first : (0x80u | (p->calls & 0x7fu));
}

static double probe_get_double(void *state) {
  ((probe *)state)->calls++;
  return 0.5;
}

static const gsl_rng_type probe_type = {"provesim-probe", 0xffffffffUL, 0, sizeof(probe), probe_set, probe_get,
                                        probe_get_double};

/* GSL's draw (sigma 1) from the number u; *fast: it used u alone. */
static double probe_draw(gsl_rng *g, uint32_t u, int *fast) {
  probe *p = g->state;
  p->first = u;
  p->calls = 0;
  double x = gsl_ran_gaussian_ziggurat(g, 1.0);
  *fast = p->calls == 1;
  return x;
}

static int zig_read(void) {
  gsl_rng *g = gsl_rng_alloc(&probe_type);
  if (!g) return 0;
  rng_zig z;
  int fast, ok = 1;
  for (uint32_t i = 0; i < 128 && ok; i++) {
    /* k[i]: the least j that leaves the fast path (the fast path is j < k[i]). */
    uint32_t lo = 0, hi = 1u << 24;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      probe_draw(g, (mid << 8) | 0x80u | i, &fast);
      if (fast)
        lo = mid + 1;
      else
        hi = mid;
    }
    z.k[i] = lo;
    z.w[i] = 0;
    if (lo == 0) continue;
    /* w[i]: the draw at j = 2^e < k[i] is 2^e w[i], exactly. */
    int e = 0;
    while ((2u << e) < lo) e++;
    double x = probe_draw(g, (1u << (e + 8)) | 0x80u | i, &fast);
    ok = fast;
    z.w[i] = ldexp(x, -e);
  }
  /* Check the tables against GSL on numbers across every box, both signs, both sides of
   * each k (a pseudo-random walk of splitmix-like steps; any mismatch turns the fast path
   * off). */
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int n = 0; n < 1 << 12 && ok; n++) {
    h += 0x9e3779b97f4a7c15ull;
    uint64_t y = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull;
    uint32_t u = (uint32_t)(y >> 32), i = u & 0x7f, j = u >> 8;
    if (n & 1) { /* near the edge of the box */
      uint32_t d = (uint32_t)y & 0xff;
      j = z.k[i] > d ? z.k[i] - d : 0;
      if ((y >> 8) & 1) j = z.k[i] + d < (1u << 24) ? z.k[i] + d : (1u << 24) - 1;
      u = (j << 8) | (u & 0xffu);
    }
    double x = probe_draw(g, u, &fast);
    int mine = j < z.k[i];
    if (mine != fast) ok = 0;
    else if (mine) {
      double s = (u & 0x80) ? 1.0 : -1.0, want = s * ((double)j * z.w[i]);
      if (memcmp(&want, &x, sizeof x) != 0) ok = 0;
    }
  }
  gsl_rng_free(g);
  if (ok) rng__zig = z;
  return ok;
}

static int zig_ok;

static void init_once(void) { zig_ok = zig_read(); }

int rng_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_once);
  return zig_ok;
}
