/* The warm-up from the data (run.warmup: auto): MSER-5 over a series fed one value at a
 * time, as the engine completes partitions (sim/pipe.c), or at once (sim_mser5: the
 * simulator's pilot run, and `measure` on its first replication). */
#ifndef PROVESIM_MSER_H
#define PROVESIM_MSER_H

#include <stdint.h>

/* MSER-5 (White 1997; White, Cobb and Spratt 2000): the series (here, each partition's
 * latency in completion order) in batch means Z_1..Z_k of 5 values; the truncation d (in
 * batches) minimising MSER(d) = sum_{j>d} (Z_j - mean_{j>d} Z)^2 / (k - d)^2 over d <= k/2.
 * Only the first half's batch means are kept (sums beyond d are the totals less the
 * prefix), shifted by the first batch mean against cancellation. */
typedef struct mser {
  int64_t k, h;   /* batches the series will give (n / 5), the largest truncation tried */
  double *z;      /* the first h batch means, shifted */
  int64_t nb;     /* batches so far */
  double bsum;    /* the batch being filled */
  int bn;
  double shift, s1, s2; /* sums of the shifted batch means and of their squares */
} mser;

void mser_init(mser *m, int64_t n); /* a series of n values; free m->z after */
void mser_add(mser *m, double x);
/* The truncation, in observations. */
int64_t mser_pick(const mser *m);

/* The observations of x[0..n) to drop, a multiple of 5 and at most half of them: the
 * truncation of x's batch means of 5 that minimises the MSER statistic (White 1997). */
int64_t sim_mser5(const double *x, int64_t n);

#endif
