/* The engine's random numbers, drawn without a call through GSL's function pointers. A
 * GSL generator type, rng_mt19937, runs MT19937 (Matsumoto and Nishimura 1998, seeded by
 * their 2002 init_genrand) and gives the numbers gsl_rng_mt19937 gives for the same seed,
 * bit for bit, with its state laid out here: the hot path takes the next number inline, and
 * every GSL function (gamma, exponential, uniform_int) still works on it. rng_gaussian is
 * the fast path of GSL's gaussian ziggurat on such a generator; its tables are read out of
 * the linked GSL at start-up (rng_init), so a draw equals gsl_ran_gaussian_ziggurat's
 * whatever GSL version is linked, and every draw off the fast path is GSL's own. */
#ifndef PROVESIM_RNG_H
#define PROVESIM_RNG_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <string.h>

#define RNG_MT_N 624

/* The state: a block of 624 outputs, already tempered, and the generator's words that
 * made them (the next block is made from those). */
typedef struct rng_mt {
  uint32_t out[RNG_MT_N];
  uint32_t mt[RNG_MT_N];
  uint32_t i; /* the next output in out; RNG_MT_N: make the next block first */
} rng_mt;

extern const gsl_rng_type *rng_mt19937;

/* The ziggurat's fast path, by the low byte of a 32-bit number: a draw whose bits 8..31
 * (j) are below k[i] (i: bits 0..6) is j * w[i], positive when bit 7 is set. Every k is 0
 * until rng_init has read them out of GSL (or when it could not), so every draw then goes
 * to GSL. */
typedef struct rng_zig {
  uint32_t k[128];
  double w[128];
} rng_zig;

extern rng_zig rng__zig;

/* Reads the ziggurat's tables out of the linked GSL, once per process (thread-safe);
 * returns 1 when the fast path is on (it checks itself against GSL first). */
int rng_init(void);

void rng__refill(rng_mt *s);

static inline int rng_is_mt(const gsl_rng *r) { return r->type == rng_mt19937; }

/* The next 32-bit number of an rng_mt19937 generator, as gsl_rng_get gives it. */
static inline uint32_t rng_get(gsl_rng *r) {
  rng_mt *s = (rng_mt *)r->state;
  if (s->i >= RNG_MT_N) rng__refill(s);
  return s->out[s->i++];
}

/* rng_uniform on an rng_mt19937 generator (the engine's, whose type it need not test). */
static inline double rng_uniform_mt(gsl_rng *r) { return rng_get(r) / 4294967296.0; }

/* gsl_rng_uniform, on any generator: [0, 1). */
static inline double rng_uniform(gsl_rng *r) {
  if (!rng_is_mt(r)) return gsl_rng_uniform(r);
  return rng_uniform_mt(r);
}

/* rng_gaussian on an rng_mt19937 generator. */
static inline double rng_gaussian_mt(gsl_rng *r, double sigma) {
  rng_mt *s = (rng_mt *)r->state;
  if (s->i >= RNG_MT_N) rng__refill(s);
  uint32_t u = s->out[s->i], i = u & 0x7f, j = u >> 8;
  if (j >= rng__zig.k[i]) return gsl_ran_gaussian_ziggurat(r, sigma);
  s->i++;
  double x = (double)j * rng__zig.w[i];
  /* sigma, negated when bit 7 is clear: a flip of the sign bit, without a branch (the
   * bit is a coin toss). */
  uint64_t sb;
  memcpy(&sb, &sigma, sizeof sb);
  sb ^= (uint64_t)(~u & 0x80u) << 56;
  double ss;
  memcpy(&ss, &sb, sizeof ss);
  return ss * x;
}

/* gsl_ran_gaussian_ziggurat(r, sigma), on any generator: the same number and the same
 * numbers used. On rng_mt19937 a draw on the fast path (about 99% of them) is taken here;
 * the others are left to GSL, which starts again from the same number. */
static inline double rng_gaussian(gsl_rng *r, double sigma) {
  if (!rng_is_mt(r)) return gsl_ran_gaussian_ziggurat(r, sigma);
  return rng_gaussian_mt(r, sigma);
}

#endif
