/* Implementation of sim/stats.h. Bins are geometric with ratio 1.002 between 1 ns and
 * ~10^7 s (a bin's midpoint is within 0.1% of every value in it); values at or below
 * 1 ns share bin 0. Exact min and max clamp the answer. */
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "../common/util.h"

#define HIST_LO 1e-9
#define HIST_RATIO 1.002
#define HIST_NBINS 18500 /* log(1e16)/log(1.002) ≈ 18440 */

struct hist {
  int64_t n;
  double sum, min, max;
  uint32_t *bins;
  double inv_log_ratio;
};

hist *hist_new(void) {
  hist *h = xcalloc(1, sizeof *h);
  h->bins = xcalloc(HIST_NBINS, sizeof *h->bins);
  h->min = INFINITY;
  h->max = -INFINITY;
  h->inv_log_ratio = 1.0 / log(HIST_RATIO);
  return h;
}

void hist_free(hist *h) {
  if (!h) return;
  free(h->bins);
  free(h);
}

void hist_add(hist *h, double x) {
  h->n++;
  h->sum += x;
  if (x < h->min) h->min = x;
  if (x > h->max) h->max = x;
  int b = 0;
  if (x > HIST_LO) {
    b = 1 + (int)(log(x / HIST_LO) * h->inv_log_ratio);
    if (b >= HIST_NBINS) b = HIST_NBINS - 1;
  }
  h->bins[b]++;
}

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
    c += h->bins[b];
    if (c >= rank) {
      double v;
      if (b == 0)
        v = HIST_LO;
      else
        v = HIST_LO * pow(HIST_RATIO, (double)(b - 1) + 0.5);
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
