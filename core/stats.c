/* Implementation of sim/stats.h. Bins are log-linear, read straight off the bits of a
 * double (no log() on the hot path): each power of two is split into 512 equal bins, so
 * a bin's midpoint is within 0.1% of every value in it. Values from 2^-40 s to 2^40 s are
 * binned; smaller ones share the first bin, larger the last. Exact min and max clamp the
 * answer. */
#include "stats.h"
#include "stats_int.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "util.h"

#include <string.h>

static inline double bin_mid(int b) {
  int e = (b >> HIST_SUB_BITS) + HIST_EXP_MIN;
  int sub = b & ((1 << HIST_SUB_BITS) - 1);
  return ldexp(1.0 + (sub + 0.5) / (double)(1 << HIST_SUB_BITS), e);
}

hist *hist_new(void) {
  hist *h = xcalloc(1, sizeof *h);
  h->min = INFINITY;
  h->max = -INFINITY;
  return h;
}

void hist_free(hist *h) {
  if (!h) return;
  for (int o = 0; o < HIST_OCTAVES; o++) free(h->oct[o]);
  free(h);
}


void hist_add(hist *h, double x) { hist__add(h, x); }

int64_t hist_count(const hist *h) { return h->n; }

double hist_mean(const hist *h) { return h->n ? h->sum / (double)h->n : NAN; }

double hist_quantile(const hist *h, double q) {
  if (h->n == 0) return NAN;
  if (h->min == h->max) return h->min;
  /* Rank of the order statistic (nearest-rank definition). */
  int64_t rank = (int64_t)ceil(q * (double)h->n);
  if (rank < 1) rank = 1;
  int64_t c = 0;
  for (int b = 0; b < HIST_NBINS; b++) {
    const uint32_t *oc = h->oct[b >> HIST_SUB_BITS];
    if (!oc) {
      b |= HIST_SUB - 1; /* skip the empty octave */
      continue;
    }
    c += oc[b & (HIST_SUB - 1)];
    if (c >= rank) {
      double v = bin_mid(b);
      if (v < h->min) v = h->min;
      if (v > h->max) v = h->max;
      return v;
    }
  }
  return h->max;
}

void stats_mean_ci95(const double *x, int n, double *mean, double *half) {
  double m = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m = n ? m / n : NAN;
  *mean = m;
  if (n < 2) {
    *half = NAN;
    return;
  }
  double ss = 0;
  for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
  double sd = sqrt(ss / (n - 1));
  *half = gsl_cdf_tdist_Pinv(0.975, n - 1) * sd / sqrt((double)n);
}
