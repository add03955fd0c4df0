/* Duration distributions of model phases (seconds). A dist is a small value type: the
 * loader fills one from YAML, the engine draws from it with a replication's GSL RNG. */
#ifndef PROVESIM_DIST_H
#define PROVESIM_DIST_H

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stddef.h>

#include "rng.h"

typedef enum dist_kind {
  DIST_CONST,       /* a = value */
  DIST_UNIFORM,     /* a = min, b = max */
  DIST_NORMAL,      /* a = mean, b = sd; truncated at 0 (redrawn while negative) */
  DIST_LOGNORMAL,   /* a = mu, b = sigma of the underlying normal */
  DIST_GAMMA,       /* a = shape k, b = scale theta */
  DIST_EXPONENTIAL, /* a = mean */
  DIST_EMPIRICAL    /* samples[0..n-1], drawn uniformly with replacement */
} dist_kind;

typedef struct dist {
  dist_kind kind;
  double a, b;
  double *samples; /* owned; only for DIST_EMPIRICAL */
  size_t n;
} dist;

/* Constructors from the parameterisations the model format allows. Each returns 0, or -1
 * with *why set to a static string naming the violated expectation. */
int dist_const(dist *d, double value, const char **why);
int dist_uniform(dist *d, double min, double max, const char **why);
int dist_normal(dist *d, double mean, double sd, const char **why);
int dist_lognormal_mean_cv(dist *d, double mean, double cv, const char **why);
int dist_lognormal_mu_sigma(dist *d, double mu, double sigma, const char **why);
int dist_gamma_mean_cv(dist *d, double mean, double cv, const char **why);
int dist_exponential(dist *d, double mean, const char **why);
/* Takes ownership of samples (allocated with xmalloc). */
int dist_empirical(dist *d, double *samples, size_t n, const char **why);

/* One draw. The kinds the engine draws at nearly every event are inline (on rng.h's
 * generator they call no function but exp); dist__draw draws the others. */
double dist__draw(const dist *d, gsl_rng *r);

/* dist_draw's inline kinds, on a generator known to be rng_mt19937 (mt, a constant where
 * it is called) or on any. */
static inline __attribute__((always_inline)) double dist__draw_inline(const dist *d, gsl_rng *r, int mt) {
  switch (d->kind) {
  case DIST_CONST: return d->a;
  case DIST_UNIFORM: return d->a + (d->b - d->a) * (mt ? rng_uniform_mt(r) : rng_uniform(r));
  case DIST_NORMAL: {
    if (d->b == 0) return d->a;
    double x;
    do x = d->a + (mt ? rng_gaussian_mt(r, d->b) : rng_gaussian(r, d->b));
    while (x < 0);
    return x;
  }
  case DIST_LOGNORMAL: return exp(d->a + (mt ? rng_gaussian_mt(r, d->b) : rng_gaussian(r, d->b)));
  default: return dist__draw(d, r);
  }
}

static inline double dist_draw(const dist *d, gsl_rng *r) { return dist__draw_inline(d, r, 0); }

/* dist_draw on an rng_mt19937 generator (the engine's): the same numbers, without testing
 * the generator's type at every draw. */
static inline double dist_draw_mt(const dist *d, gsl_rng *r) { return dist__draw_inline(d, r, 1); }

/* Turns GSL's default error handler (which aborts) off, once per process; every module
 * that calls GSL calls this first, and checks GSL's return codes instead. */
void dist_gsl_init(void);
double dist_mean(const dist *d);
/* Scales d so that every draw is f times the draw of the same random numbers before
 * (f > 0): the parameters of scale move, the shape stays, and a draw uses as many random
 * numbers as before (common random numbers stay in step). The mean scales by f. */
void dist_scale(dist *d, double f);
/* Deep copy (empirical samples are duplicated). */
void dist_copy(dist *dst, const dist *src);
void dist_free(dist *d);
const char *dist_kind_name(dist_kind k);

#endif
