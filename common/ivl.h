/* Sets of time intervals, the arithmetic behind every "share of the window during which
 * at least one kernel / GPU phase ran": merge a list into disjoint intervals, measure it
 * clipped to a window, intersect two merged lists. */
#ifndef PROVESIM_IVL_H
#define PROVESIM_IVL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ivl {
  double a, b; /* a <= b */
} ivl;

/* Sorts v and merges overlapping or touching intervals in place; returns the new count. */
size_t ivl_merge(ivl *v, size_t n);

/* Total length of merged intervals v inside [t0, t1]. */
double ivl_clip_len(const ivl *v, size_t n, double t0, double t1);

/* Length of the intersection of two merged lists, inside [t0, t1]. */
double ivl_inter_len(const ivl *x, size_t nx, const ivl *y, size_t ny, double t0, double t1);

/* The intersection of two merged lists, written to out (room for nx + ny intervals) as a
 * merged list; returns its count. */
size_t ivl_inter(const ivl *x, size_t nx, const ivl *y, size_t ny, ivl *out);

/* Prefix lengths: out[i] = length of the merged intervals v up to time c[i], for
 * checkpoints c sorted ascending; one pass over both. A running total over a long run
 * kept as prefix values at the times that may bound a window (measure's folding). */
void ivl_prefix(const ivl *v, size_t n, const double *c, size_t nc, double *out);

#ifdef __cplusplus
}
#endif

#endif
