/* Implementation of sim/dist.h on GSL's random variate generators. */
#include "dist.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "util.h"

static int bad(const char **why, const char *msg) {
  if (why) *why = msg;
  return -1;
}

static int finite_nonneg(double x) { return isfinite(x) && x >= 0; }

int dist_const(dist *d, double value, const char **why) {
  if (!finite_nonneg(value)) return bad(why, "a finite number of seconds >= 0");
  *d = (dist){.kind = DIST_CONST, .a = value};
  return 0;
}

int dist_uniform(dist *d, double min, double max, const char **why) {
  if (!finite_nonneg(min) || !finite_nonneg(max)) return bad(why, "min and max >= 0");
  if (max < min) return bad(why, "max >= min");
  *d = (dist){.kind = DIST_UNIFORM, .a = min, .b = max};
  return 0;
}

int dist_normal(dist *d, double mean, double sd, const char **why) {
  if (!finite_nonneg(mean)) return bad(why, "mean >= 0");
  if (!finite_nonneg(sd)) return bad(why, "sd >= 0");
  *d = (dist){.kind = DIST_NORMAL, .a = mean, .b = sd};
  return 0;
}

int dist_lognormal_mean_cv(dist *d, double mean, double cv, const char **why) {
  if (!(isfinite(mean) && mean > 0)) return bad(why, "mean > 0");
  if (!finite_nonneg(cv)) return bad(why, "cv >= 0");
  double s2 = log1p(cv * cv);
  *d = (dist){.kind = DIST_LOGNORMAL, .a = log(mean) - s2 / 2, .b = sqrt(s2)};
  return 0;
}

int dist_lognormal_mu_sigma(dist *d, double mu, double sigma, const char **why) {
  if (!isfinite(mu)) return bad(why, "a finite mu");
  if (!finite_nonneg(sigma)) return bad(why, "sigma >= 0");
  *d = (dist){.kind = DIST_LOGNORMAL, .a = mu, .b = sigma};
  return 0;
}

int dist_gamma_mean_cv(dist *d, double mean, double cv, const char **why) {
  if (!(isfinite(mean) && mean > 0)) return bad(why, "mean > 0");
  if (!(isfinite(cv) && cv > 0)) return bad(why, "cv > 0");
  *d = (dist){.kind = DIST_GAMMA, .a = 1.0 / (cv * cv), .b = mean * cv * cv};
  return 0;
}

int dist_exponential(dist *d, double mean, const char **why) {
  if (!(isfinite(mean) && mean > 0)) return bad(why, "mean > 0");
  *d = (dist){.kind = DIST_EXPONENTIAL, .a = mean};
  return 0;
}

int dist_empirical(dist *d, double *samples, size_t n, const char **why) {
  if (n == 0) {
    free(samples);
    return bad(why, "at least one sample");
  }
  for (size_t i = 0; i < n; i++)
    if (!finite_nonneg(samples[i])) {
      free(samples);
      return bad(why, "samples that are finite numbers of seconds >= 0");
    }
  *d = (dist){.kind = DIST_EMPIRICAL, .samples = samples, .n = n};
  return 0;
}

double dist__draw(const dist *d, gsl_rng *r) {
  switch (d->kind) {
  case DIST_GAMMA: return gsl_ran_gamma(r, d->a, d->b);
  case DIST_EXPONENTIAL: return gsl_ran_exponential(r, d->a);
  case DIST_EMPIRICAL: return d->samples[gsl_rng_uniform_int(r, d->n)];
  default: return dist_draw(d, r);
  }
}

double dist_mean(const dist *d) {
  switch (d->kind) {
  case DIST_CONST: return d->a;
  case DIST_UNIFORM: return (d->a + d->b) / 2;
  case DIST_NORMAL: {
    /* Mean of a normal truncated at 0. */
    if (d->b == 0) return d->a;
    double al = -d->a / d->b;
    double phi = exp(-al * al / 2) / sqrt(2 * M_PI);
    double Z = 1 - 0.5 * erfc(-al / sqrt(2));
    return d->a + d->b * phi / Z;
  }
  case DIST_LOGNORMAL: return exp(d->a + d->b * d->b / 2);
  case DIST_GAMMA: return d->a * d->b;
  case DIST_EXPONENTIAL: return d->a;
  case DIST_EMPIRICAL: {
    double s = 0;
    for (size_t i = 0; i < d->n; i++) s += d->samples[i];
    return s / (double)d->n;
  }
  }
  return 0;
}

void dist_scale(dist *d, double f) {
  PS_ASSERT(isfinite(f) && f > 0);
  switch (d->kind) {
  case DIST_CONST:
  case DIST_EXPONENTIAL: d->a *= f; break;
  case DIST_UNIFORM:
  case DIST_NORMAL: /* mean + sd z, truncated at 0: the sign of a draw does not change */
    d->a *= f;
    d->b *= f;
    break;
  case DIST_LOGNORMAL: d->a += log(f); break; /* exp(mu + log f + sigma z) */
  case DIST_GAMMA: d->b *= f; break;          /* GSL's gamma draw is theta times a unit draw */
  case DIST_EMPIRICAL:
    for (size_t i = 0; i < d->n; i++) d->samples[i] *= f;
    break;
  }
}

void dist_copy(dist *dst, const dist *src) {
  *dst = *src;
  if (src->kind == DIST_EMPIRICAL) {
    dst->samples = xmalloc(src->n * sizeof(double));
    memcpy(dst->samples, src->samples, src->n * sizeof(double));
  }
}

void dist_free(dist *d) {
  if (!d) return;
  if (d->kind == DIST_EMPIRICAL) free(d->samples);
  d->samples = NULL;
  d->n = 0;
}

const char *dist_kind_name(dist_kind k) {
  static const char *names[] = {"const", "uniform", "normal", "lognormal", "gamma", "exponential", "empirical"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static void gsl_init_once(void) {
  gsl_set_error_handler_off();
  rng_init();
}

void dist_gsl_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, gsl_init_once);
}
