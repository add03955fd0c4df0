/* Freeing the metric types of metrics.h. */
#include "metrics.h"

#include <stdlib.h>

void sim_metrics_free(sim_metrics *m) {
  if (!m) return;
  free(m->gpu_util);
  m->gpu_util = NULL;
}

void sim_result_free(sim_result *r) {
  if (!r) return;
  for (int i = 0; i < r->nreps; i++) sim_metrics_free(&r->reps[i]);
  free(r->reps);
  free(r);
}
