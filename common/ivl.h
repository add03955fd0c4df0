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

#ifdef __cplusplus
}
#endif

#endif
