/* MSER-5 (core/mser.h). */
#include "mser.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"


void mser_init(mser *m, int64_t n) {
  memset(m, 0, sizeof *m);
  m->k = n > 0 ? n / 5 : 0;
  m->h = m->k / 2;
  m->z = xmalloc((size_t)(m->h + 1) * sizeof *m->z);
}

void mser_add(mser *m, double x) {
  if (m->nb >= m->k) return;
  m->bsum += x;
  if (++m->bn < 5) return;
  double z = m->bsum / 5;
  m->bsum = 0;
  m->bn = 0;
  if (m->nb == 0) m->shift = z;
  z -= m->shift;
  if (m->nb < m->h) m->z[m->nb] = z;
  m->s1 += z;
  m->s2 += z * z;
  m->nb++;
}

/* The truncation, in observations (5 d): the smallest d whose statistic is the least
 * (within 1e-9 of MSER(0), so that rounding never picks a later one of a tie). */
int64_t mser_pick(const mser *m) {
  int64_t k = m->nb, h = m->h < k / 2 ? m->h : k / 2;
  if (k < 2) return 0;
  double *st = xmalloc((size_t)(h + 1) * sizeof *st), p1 = 0, p2 = 0, best = INFINITY;
  for (int64_t d = 0; d <= h; d++) {
    if (d > 0) {
      p1 += m->z[d - 1];
      p2 += m->z[d - 1] * m->z[d - 1];
    }
    double n = (double)(k - d), a = m->s1 - p1, b = m->s2 - p2;
    double v = (b - a * a / n) / (n * n);
    st[d] = v > 0 ? v : 0;
    if (st[d] < best) best = st[d];
  }
  double tol = 1e-9 * st[0];
  int64_t d = 0;
  while (st[d] > best + tol) d++;
  free(st);
  return 5 * d;
}

int64_t sim_mser5(const double *x, int64_t n) {
  mser m;
  mser_init(&m, n);
  for (int64_t i = 0; i < n; i++) mser_add(&m, x[i]);
  int64_t d = mser_pick(&m);
  free(m.z);
  return d;
}
