/* The batching rule of sim/model.h. */
#include "model.h"

static double batch_scale(const phase *ph, int k) {
  return k <= ph->nscale ? ph->scale[k - 1] : ph->scale[ph->nscale - 1] * (double)k / ph->nscale;
}

double phase_call_draw(const phase *ph, int k, gsl_rng *r) {
  double d = ph->has_fixed ? dist_draw(&ph->fixed, r) : 0;
  if (ph->nscale > 0) {
    d += batch_scale(ph, k) * dist_draw(&ph->time, r);
  } else {
    for (int i = 0; i < k; i++) d += dist_draw(&ph->time, r);
  }
  return d;
}

double phase_call_mean(const phase *ph, int k) {
  double t = ph->has_fixed ? dist_mean(&ph->fixed) : 0;
  return t + (ph->nscale > 0 ? batch_scale(ph, k) : (double)k) * dist_mean(&ph->time);
}
