/* Implementation of common/ivl.h. */
#include "ivl.h"

#include <math.h>
#include <stdlib.h>

static int cmp_ivl(const void *x, const void *y) {
  const ivl *p = x, *q = y;
  return p->a < q->a ? -1 : p->a > q->a ? 1 : 0;
}

size_t ivl_merge(ivl *v, size_t n) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, cmp_ivl);
  size_t m = 0;
  for (size_t i = 1; i < n; i++) {
    if (v[i].a <= v[m].b) {
      if (v[i].b > v[m].b) v[m].b = v[i].b;
    } else {
      v[++m] = v[i];
    }
  }
  return m + 1;
}

double ivl_clip_len(const ivl *v, size_t n, double t0, double t1) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double a = v[i].a > t0 ? v[i].a : t0, b = v[i].b < t1 ? v[i].b : t1;
    if (b > a) s += b - a;
  }
  return s;
}

double ivl_inter_len(const ivl *x, size_t nx, const ivl *y, size_t ny, double t0, double t1) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < nx && j < ny) {
    double a = fmax(fmax(x[i].a, y[j].a), t0), b = fmin(fmin(x[i].b, y[j].b), t1);
    if (b > a) s += b - a;
    if (x[i].b < y[j].b)
      i++;
    else
      j++;
  }
  return s;
}

size_t ivl_inter(const ivl *x, size_t nx, const ivl *y, size_t ny, ivl *out) {
  size_t i = 0, j = 0, m = 0;
  while (i < nx && j < ny) {
    double a = fmax(x[i].a, y[j].a), b = fmin(x[i].b, y[j].b);
    if (b > a) {
      if (m && a <= out[m - 1].b) {
        if (b > out[m - 1].b) out[m - 1].b = b;
      } else {
        out[m++] = (ivl){a, b};
      }
    }
    if (x[i].b < y[j].b)
      i++;
    else
      j++;
  }
  return m;
}

void ivl_prefix(const ivl *v, size_t n, const double *c, size_t nc, double *out) {
  double done = 0; /* length of v[0..i-1] */
  size_t i = 0;
  for (size_t k = 0; k < nc; k++) {
    while (i < n && v[i].b <= c[k]) done += v[i].b - v[i].a, i++;
    out[k] = done + (i < n && v[i].a < c[k] ? c[k] - v[i].a : 0);
  }
}
