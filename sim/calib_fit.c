/* Fitting one phase's durations (calib.h: calib_fit, calib_acc): maximum likelihood in
 * closed form (normal, lognormal, exponential, uniform) or by Newton's method on the shape
 * (gamma, started from Minka's approximation), the family chosen by AIC, and the
 * Kolmogorov-Smirnov distance of the choice. Either from the values themselves, or in
 * bounded memory from sums gathered as a stream with a capped sample (calib_model's way
 * of reading spans files of any size). */
#include "calib.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_psi.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *family_names[] = {"auto",        "const",     "normal",  "lognormal",
                                     "gamma",       "exponential", "empirical", "uniform"};

const char *calib_family_name(calib_family f) {
  return (unsigned)f < sizeof family_names / sizeof family_names[0] ? family_names[f] : "?";
}

int calib_family_parse(const char *s) {
  for (int i = 0; i < (int)(sizeof family_names / sizeof family_names[0]); i++)
    if (!strcmp(s, family_names[i])) return i;
  return -1;
}

/* ---------------------------------------------------------------- fits */

static size_t sample_cap = CALIB_SAMPLE_CAP;

void calib_set_sample_cap(size_t cap) { sample_cap = cap ? cap : CALIB_SAMPLE_CAP; }
size_t calib_sample_cap(void) { return sample_cap; }

static int dcmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Parameters of each candidate, kept to compute the KS distance of the winner. */
typedef struct fitpar {
  double m, sd;        /* normal */
  double mu, s;        /* lognormal */
  double k, theta;     /* gamma */
  double em;           /* exponential mean */
  double lo, hi;       /* uniform */
} fitpar;

static double cdf(calib_family f, const fitpar *p, double x) {
  switch (f) {
  case CALIB_NORMAL: return gsl_cdf_gaussian_P(x - p->m, p->sd);
  case CALIB_LOGNORMAL: return x > 0 ? gsl_cdf_lognormal_P(x, p->mu, p->s) : 0;
  case CALIB_GAMMA: return gsl_cdf_gamma_P(x, p->k, p->theta);
  case CALIB_EXPONENTIAL: return gsl_cdf_exponential_P(x, p->em);
  case CALIB_UNIFORM: return x <= p->lo ? 0 : x >= p->hi ? 1 : (x - p->lo) / (p->hi - p->lo);
  default: return NAN;
  }
}

/* The gamma shape k from s = ln(mean) - mean(ln x) > 0: Newton's method from Minka's
 * starting point. */
static double gamma_shape(double s) {
  double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
  for (int it = 0; it < 20; it++) {
    double f = log(k) - gsl_sf_psi(k) - s, df = 1 / k - gsl_sf_psi_1(k);
    double nk = k - f / df;
    if (!(nk > 0)) nk = k / 2;
    if (fabs(nk - k) < 1e-12 * k) return nk;
    k = nk;
  }
  return k;
}

/* The mean a candidate's parameters give: normal, gamma and exponential keep the
 * sample's by construction, lognormal and uniform need not (a uniform's is the middle of
 * the range, far from the mean of durations in two clusters of unequal size). */
static double fam_mean(calib_family f, const fitpar *p) {
  switch (f) {
  case CALIB_NORMAL: return p->m;
  case CALIB_LOGNORMAL: return exp(p->mu + 0.5 * p->s * p->s);
  case CALIB_GAMMA: return p->k * p->theta;
  case CALIB_EXPONENTIAL: return p->em;
  case CALIB_UNIFORM: return 0.5 * (p->lo + p->hi);
  default: return NAN;
  }
}

/* Where the two ways of fitting meet: out->loglik filled, the family chosen (or want)
 * and built from p, and the KS distance over sample[0..m-1]. Chosen by AIC, a candidate
 * whose mean lies more than CALIB_MEAN_SE standard errors of the mean from the sample's
 * is left out (out->mean_off): a phase's mean is what throughput and utilization follow. */
static int fit_finish(calib_fit_result *out, calib_family want, const fitpar *p, double minx, const double *sample,
                      size_t m, ps_err *e) {
  const char *why = NULL;
  calib_family best = CALIB_AUTO;
  if (want != CALIB_AUTO) {
    if (!isfinite(out->loglik[want]))
      return ps_fail(e, PS_EINPUT, "a %s distribution cannot fit these samples%s", calib_family_name(want),
                     minx <= 0 ? " (some durations are 0)" : "");
    best = want;
  } else {
    /* The rule applied after AIC's ranking, so that the report can name the family it
     * passed over. */
    double best_aic = INFINITY, kept_aic = INFINITY, se = out->cv * out->mean / sqrt((double)out->n);
    calib_family kept = CALIB_AUTO;
    for (int f = CALIB_NORMAL; f <= CALIB_UNIFORM; f++) {
      if (f == CALIB_EMPIRICAL || !isfinite(out->loglik[f])) continue;
      double aic = 2.0 * (f == CALIB_EXPONENTIAL ? 1 : 2) - 2 * out->loglik[f];
      if (aic < best_aic) {
        best_aic = aic;
        best = (calib_family)f;
      }
      if (aic < kept_aic && fabs(fam_mean((calib_family)f, p) - out->mean) <= CALIB_MEAN_SE * se) {
        kept_aic = aic;
        kept = (calib_family)f;
      }
    }
    PS_ASSERT(kept != CALIB_AUTO); /* normal's mean is the sample's */
    if (kept != best) {
      out->mean_off = best;
      out->mean_off_mean = fam_mean(best, p);
      out->mean_off_se = fabs(out->mean_off_mean - out->mean) / se;
      best = kept;
    }
  }
  out->family = best;
  int rc = 0;
  switch (best) {
  case CALIB_NORMAL: rc = dist_normal(&out->d, p->m, p->sd, &why); break;
  case CALIB_LOGNORMAL: rc = dist_lognormal_mu_sigma(&out->d, p->mu, p->s, &why); break;
  case CALIB_GAMMA: rc = dist_gamma_mean_cv(&out->d, p->k * p->theta, 1 / sqrt(p->k), &why); break;
  case CALIB_EXPONENTIAL: rc = dist_exponential(&out->d, p->em, &why); break;
  case CALIB_UNIFORM: rc = dist_uniform(&out->d, p->lo, p->hi, &why); break;
  default: PS_ASSERT(0);
  }
  if (rc) return ps_fail(e, PS_EINPUT, "%s fit: expected %s", calib_family_name(best), why);
  /* Kolmogorov-Smirnov distance of the chosen fit. */
  double *srt = xmalloc((m + 1) * sizeof *srt);
  memcpy(srt, sample, m * sizeof *srt);
  qsort(srt, m, sizeof *srt, dcmp);
  double D = 0;
  for (size_t i = 0; i < m; i++) {
    double F = cdf(best, p, srt[i]);
    D = fmax(D, fmax((double)(i + 1) / (double)m - F, F - (double)i / (double)m));
  }
  free(srt);
  out->ks = D;
  return PS_OK;
}

int calib_fit(const double *x, size_t n, calib_family want, calib_fit_result *out, ps_err *e) {
  dist_gsl_init();
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 8; i++) out->loglik[i] = NAN;
  if (n == 0) return ps_fail(e, PS_EINPUT, "no samples to fit");
  double sum = 0, minx = INFINITY, maxx = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]) || x[i] < 0) return ps_fail(e, PS_EINPUT, "sample %zu is %g: expected seconds >= 0", i, x[i]);
    sum += x[i];
    if (x[i] < minx) minx = x[i];
    if (x[i] > maxx) maxx = x[i];
  }
  double mean = sum / (double)n, ss = 0;
  for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
  double sd_mle = sqrt(ss / (double)n), sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
  out->n = out->nsample = n;
  out->mean = mean;
  out->cv = mean > 0 ? sd / mean : 0;
  const char *why = NULL;

  int constant = n == 1 || sd_mle <= 1e-9 * fmax(mean, 1e-12);
  if (want == CALIB_CONST || (want == CALIB_AUTO && constant)) {
    out->family = CALIB_CONST;
    return dist_const(&out->d, mean, &why) ? ps_fail(e, PS_EINPUT, "const fit: expected %s", why) : PS_OK;
  }
  if (want == CALIB_EMPIRICAL) {
    double *cp = xmalloc(n * sizeof *cp);
    memcpy(cp, x, n * sizeof *cp);
    out->family = CALIB_EMPIRICAL;
    return dist_empirical(&out->d, cp, n, &why) ? ps_fail(e, PS_EINPUT, "empirical fit: expected %s", why) : PS_OK;
  }
  if (constant) return ps_fail(e, PS_EINPUT, "%zu samples all equal %g: only a const distribution fits", n, mean);

  fitpar p = {.m = mean, .sd = sd_mle, .em = mean, .lo = minx, .hi = maxx};
  /* uniform: the MLE is the sample's range */
  out->loglik[CALIB_UNIFORM] = -(double)n * log(maxx - minx);
  const double L2PI = log(2 * M_PI);
  /* normal */
  double ll = 0;
  for (size_t i = 0; i < n; i++) ll += -0.5 * L2PI - log(p.sd) - (x[i] - p.m) * (x[i] - p.m) / (2 * p.sd * p.sd);
  out->loglik[CALIB_NORMAL] = ll;
  /* exponential */
  if (mean > 0) out->loglik[CALIB_EXPONENTIAL] = -(double)n * log(mean) - sum / mean;
  if (minx > 0) {
    /* lognormal */
    double sl = 0, sl2 = 0;
    for (size_t i = 0; i < n; i++) sl += log(x[i]);
    p.mu = sl / (double)n;
    for (size_t i = 0; i < n; i++) sl2 += (log(x[i]) - p.mu) * (log(x[i]) - p.mu);
    p.s = sqrt(sl2 / (double)n);
    if (p.s > 0) {
      ll = 0;
      for (size_t i = 0; i < n; i++) {
        double lx = log(x[i]);
        ll += -lx - log(p.s) - 0.5 * L2PI - (lx - p.mu) * (lx - p.mu) / (2 * p.s * p.s);
      }
      out->loglik[CALIB_LOGNORMAL] = ll;
    }
    /* gamma: s = ln(mean) - mean(ln x) > 0 by Jensen. */
    double s = log(mean) - p.mu;
    if (s > 0) {
      double k = gamma_shape(s);
      p.k = k;
      p.theta = mean / k;
      ll = 0;
      double lg = lgamma(k), lt = log(p.theta);
      for (size_t i = 0; i < n; i++) ll += (k - 1) * log(x[i]) - x[i] / p.theta - lg - k * lt;
      out->loglik[CALIB_GAMMA] = ll;
    }
  }
  return fit_finish(out, want, &p, minx, x, n, e);
}

/* ---------------------------------------------------------------- streaming sums */

/* Neumaier's compensated sum: *s + *c is the sum to about one rounding. */
static void ksum(double *s, double *c, double x) {
  double t = *s + x;
  *c += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
  *s = t;
}

/* splitmix64: the reservoir's generator, seeded by calib_acc_init with a constant. */
static uint64_t acc_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void calib_acc_init(calib_acc *a, size_t cap) {
  *a = (calib_acc){.min = INFINITY, .max = -INFINITY, .cap = cap ? cap : 1, .rng = 0x70726F766573696Dull};
}

void calib_acc_free(calib_acc *a) {
  if (!a) return;
  free(a->v);
  free(a->key);
  a->v = NULL;
  a->key = NULL;
}

void calib_acc_add(calib_acc *a, double x, uint32_t key) {
  size_t i = a->n++;
  if (!isfinite(x) || x < 0) {
    if (!a->nbad++) a->bad_x = x, a->bad_i = i;
    return;
  }
  size_t n = i + 1 - a->nbad;
  ksum(&a->sum, &a->sum_c, x);
  double d = x - a->mean;
  a->mean += d / (double)n;
  a->m2 += d * (x - a->mean);
  if (x < a->min) a->min = x;
  if (x > a->max) a->max = x;
  if (x > 0) {
    double l = log(x);
    ksum(&a->lsum, &a->lsum_c, l);
    double dl = l - a->lmean;
    a->lmean += dl / (double)++a->nl;
    a->lm2 += dl * (l - a->lmean);
  }
  if (a->nv < a->cap) {
    if (a->nv == a->cv) {
      a->cv = a->cv ? 2 * a->cv : 1024;
      if (a->cv > a->cap) a->cv = a->cap;
      a->v = xrealloc(a->v, a->cv * sizeof *a->v);
      a->key = xrealloc(a->key, a->cv * sizeof *a->key);
    }
    a->v[a->nv] = x;
    a->key[a->nv++] = key;
  } else { /* Algorithm R: the n-th value takes a kept one's place with probability cap / n */
    free(a->key); /* a reservoir has no order to restore */
    a->key = NULL;
    uint64_t j = (uint64_t)(((unsigned __int128)acc_next(&a->rng) * n) >> 64);
    if (j < a->cap) a->v[j] = x;
  }
}

void calib_acc_order(calib_acc *a, const uint32_t *rank, uint32_t nrank) {
  if (a->nv < 2 || !a->key) return;
  size_t *start = xcalloc((size_t)nrank + 1, sizeof *start);
  for (size_t i = 0; i < a->nv; i++) {
    PS_ASSERT(a->key[i] < nrank);
    start[rank[a->key[i]] + 1]++;
  }
  for (uint32_t r = 0; r < nrank; r++) start[r + 1] += start[r];
  double *v = xmalloc(a->nv * sizeof *v);
  uint32_t *k = xmalloc(a->nv * sizeof *k);
  for (size_t i = 0; i < a->nv; i++) {
    size_t j = start[rank[a->key[i]]]++;
    v[j] = a->v[i];
    k[j] = a->key[i];
  }
  free(a->v), free(a->key), free(start);
  a->v = v, a->key = k, a->cv = a->nv;
}

int calib_fit_acc(const calib_acc *a, calib_family want, calib_fit_result *out, ps_err *e) {
  if (a->nbad) {
    memset(out, 0, sizeof *out);
    return ps_fail(e, PS_EINPUT, "sample %zu is %g: expected seconds >= 0", a->bad_i, a->bad_x);
  }
  /* Every value kept: the fit of the values themselves, as calib_fit does. */
  if (a->nv == a->n) return calib_fit(a->v, a->nv, want, out, e);
  dist_gsl_init();
  memset(out, 0, sizeof *out);
  for (int i = 0; i < 8; i++) out->loglik[i] = NAN;
  size_t n = a->n;
  double dn = (double)n, sum = a->sum + a->sum_c, minx = a->min, maxx = a->max;
  double mean = sum / dn, ss = a->m2;
  double sd_mle = sqrt(ss / dn), sd = sqrt(ss / (dn - 1));
  out->n = n;
  out->nsample = a->nv;
  out->mean = mean;
  out->cv = mean > 0 ? sd / mean : 0;
  const char *why = NULL;
  int constant = sd_mle <= 1e-9 * fmax(mean, 1e-12);
  if (want == CALIB_CONST || (want == CALIB_AUTO && constant)) {
    out->family = CALIB_CONST;
    return dist_const(&out->d, mean, &why) ? ps_fail(e, PS_EINPUT, "const fit: expected %s", why) : PS_OK;
  }
  if (want == CALIB_EMPIRICAL) { /* the reservoir */
    double *cp = xmalloc(a->nv * sizeof *cp);
    memcpy(cp, a->v, a->nv * sizeof *cp);
    out->family = CALIB_EMPIRICAL;
    return dist_empirical(&out->d, cp, a->nv, &why) ? ps_fail(e, PS_EINPUT, "empirical fit: expected %s", why) : PS_OK;
  }
  if (constant) return ps_fail(e, PS_EINPUT, "%zu samples all equal %g: only a const distribution fits", n, mean);
  /* The log-likelihoods from the sums: at the MLE, sum (x - m)^2 / (2 sd^2) = n / 2. */
  fitpar p = {.m = mean, .sd = sd_mle, .em = mean, .lo = minx, .hi = maxx};
  const double L2PI = log(2 * M_PI);
  out->loglik[CALIB_UNIFORM] = -dn * log(maxx - minx);
  out->loglik[CALIB_NORMAL] = -dn * (0.5 * L2PI + log(p.sd)) - ss / (2 * p.sd * p.sd);
  if (mean > 0) out->loglik[CALIB_EXPONENTIAL] = -dn * log(mean) - sum / mean;
  if (minx > 0) {
    double sl = a->lsum + a->lsum_c;
    p.mu = sl / dn;
    p.s = sqrt(a->lm2 / dn);
    if (p.s > 0) out->loglik[CALIB_LOGNORMAL] = -sl - dn * (log(p.s) + 0.5 * L2PI) - a->lm2 / (2 * p.s * p.s);
    double s = log(mean) - p.mu;
    if (s > 0) {
      p.k = gamma_shape(s);
      p.theta = mean / p.k;
      out->loglik[CALIB_GAMMA] = (p.k - 1) * sl - sum / p.theta - dn * (lgamma(p.k) + p.k * log(p.theta));
    }
  }
  return fit_finish(out, want, &p, minx, a->v, a->nv, e);
}
