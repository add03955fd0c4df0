/* The batching rule and the scaling laws of core/model.h. */
#include "model.h"

#include <stdio.h>

/* Mean wall time of a call at the phase's own thread count, alone on the cores, over runs:
 * a run_mode's slow mode counts at its share. */
double phase_call_mean(const phase *ph, int k) {
  double t = ph->has_fixed ? dist_mean(&ph->fixed) : 0;
  t += (ph->nscale > 0 ? phase__batch_scale(ph, k) : (double)k) * dist_mean(&ph->time);
  return t * phase_mode_mean(ph) / phase_speed(ph, ph->threads);
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

int scn_batch_unmeasured(const scenario *s, char *buf, size_t n) {
  const model *m = s->model;
  if (s->batch <= 1 || m->nprov == 0) return 0; /* a hand-written model says what it means */
  char names[256];
  size_t len = 0;
  int k = 0;
  for (int p = 0; p < m->nphases; p++) {
    const phase *ph = &m->phases[p];
    if (ph->nscale > 0 || (ph->resource != RES_CPU && ph->resource != RES_GPU)) continue;
    if (len < sizeof names) len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k++ ? ", " : "", ph->name);
  }
  if (!k) return 0;
  snprintf(buf, n, "the calibrated model has no batch multipliers (batch.scale) for %s: a call of %d partitions "
           "takes %d draws of one partition's time in each; calibrate with a run at system.batch=%d to measure how "
           "%s", names, s->batch, s->batch, s->batch, k > 1 ? "they batch" : "it batches");
  return 1;
}

int scn_gpu_mem_over(const scenario *s, int workers, int batch, char *buf, size_t n) {
  const model *m = s->model;
  if (!m->has_gpu_mem || !(s->gpu_mem_gib > 0)) return 0;
  double need = model_gpu_gib(m, workers, batch);
  if (need <= s->gpu_mem_gib + 1e-9) return 0;
  const char *ws = workers > 1 ? "s" : "";
  if (m->gpu_part_gib > 0)
    snprintf(buf, n, "GPU memory: needs %.1f GiB per GPU (shared %.6g + %d worker%s x (%.6g + %d partition%s x %.6g)), "
             "over the %.6g GiB of a GPU", need, m->gpu_shared_gib, workers, ws, m->gpu_worker_gib, batch,
             batch > 1 ? "s" : "", m->gpu_part_gib, s->gpu_mem_gib);
  else
    snprintf(buf, n, "GPU memory: needs %.1f GiB per GPU (shared %.6g + %d worker%s x %.6g), over the %.6g GiB of a GPU",
             need, m->gpu_shared_gib, workers, ws, m->gpu_worker_gib, s->gpu_mem_gib);
  return 1;
}
