/* The batching rule and the scaling laws of core/model.h. */
#include "model.h"

/* Mean wall time of a call at the phase's own thread count, alone on the cores. */
double phase_call_mean(const phase *ph, int k) {
  double t = ph->has_fixed ? dist_mean(&ph->fixed) : 0;
  t += (ph->nscale > 0 ? phase__batch_scale(ph, k) : (double)k) * dist_mean(&ph->time);
  return t / phase_speed(ph, ph->threads);
}

double phase_speed(const phase *ph, double a) {
  switch (ph->law) {
  case SCALE_NONE: return a / ph->threads;
  case SCALE_AMDAHL: return a <= 1 ? a : 1 / (ph->serial + (1 - ph->serial) / a);
  case SCALE_TABLE: {
    if (a <= 1) return a;
    int n = ph->ntab;
    if (a >= ph->tab_k[n - 1]) return ph->tab_speedup[n - 1];
    int i = 1;
    while (ph->tab_k[i] < a) i++;
    double x0 = ph->tab_k[i - 1], x1 = ph->tab_k[i], y0 = ph->tab_speedup[i - 1], y1 = ph->tab_speedup[i];
    return y0 + (y1 - y0) * (a - x0) / (x1 - x0);
  }
  }
  return 1;
}

int scn_worker_threads(const scenario *s, int cores) {
  int w = s->gpus * s->workers_per_gpu, t;
  switch (s->thr) {
  case THR_ALL: t = cores; break;
  case THR_FIXED: t = s->thr_n; break;
  default: t = (cores - (s->keep_core ? 1 : 0)) / w; break;
  }
  return t < 1 ? 1 : t;
}
