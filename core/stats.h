/* Statistics the simulator keeps in flat memory: a log-binned histogram for quantiles
 * (relative precision 0.1%, so memory does not grow with the number of partitions) with
 * an exact mean, and the mean ± 95% confidence half-width over replications. */
#ifndef PROVESIM_STATS_H
#define PROVESIM_STATS_H

#include <stdint.h>

typedef struct hist hist;

hist *hist_new(void);
void hist_free(hist *h); /* accepts NULL */
void hist_add(hist *h, double x);
int64_t hist_count(const hist *h);
double hist_mean(const hist *h);
/* The q-quantile (0 <= q <= 1), within 0.1% of the exact order statistic; exact when
 * all values are equal. NaN when empty. */
double hist_quantile(const hist *h, double q);

/* Mean and 95% confidence half-width (Student t) of n values; half-width is NaN when
 * n < 2. */
void stats_mean_ci95(const double *x, int n, double *mean, double *half);

#endif
