/* The layout of core/stats.h's histogram, for the engine's inline hist__add (a histogram
 * takes a value at nearly every completion); everything else goes through stats.h. */
#ifndef PROVESIM_STATS_INT_H
#define PROVESIM_STATS_INT_H

#include <stdint.h>
#include <string.h>

#include "stats.h"
#include "util.h"

#define HIST_SUB_BITS 9
#define HIST_EXP_MIN (-40)
#define HIST_EXP_MAX 40
#define HIST_NBINS ((HIST_EXP_MAX - HIST_EXP_MIN) << HIST_SUB_BITS)

static inline int hist__bin(double x) {
  if (!(x > 0)) return 0;
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  int e = (int)((u >> 52) & 0x7ff) - 1023;
  if (e < HIST_EXP_MIN) return 0;
  if (e >= HIST_EXP_MAX) return HIST_NBINS - 1;
  int sub = (int)((u >> (52 - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1));
  return ((e - HIST_EXP_MIN) << HIST_SUB_BITS) | sub;
}

/* Bins are allocated one power of two at a time, when a value first lands in it: a
 * histogram of latencies that span a few octaves costs a few KiB, not the whole range. */
#define HIST_OCTAVES (HIST_EXP_MAX - HIST_EXP_MIN)
#define HIST_SUB (1 << HIST_SUB_BITS)

struct hist {
  int64_t n;
  double sum, min, max;
  uint32_t *oct[HIST_OCTAVES];
};

/* Allocates octave o of h's bins (the first value to land in it). */
static inline uint32_t *hist__octave(hist *h, int o) {
  return h->oct[o] = xcalloc(HIST_SUB, sizeof(uint32_t));
}

/* hist_add, inline. */
static inline void hist__add(hist *h, double x) {
  h->n++;
  h->sum += x;
  if (x < h->min) h->min = x;
  if (x > h->max) h->max = x;
  int b = hist__bin(x), o = b >> HIST_SUB_BITS;
  uint32_t *oc = h->oct[o];
  if (!oc) oc = hist__octave(h, o);
  oc[b & (HIST_SUB - 1)]++;
}

#endif
