/* Freeing the metric types of metrics.h, and the metrics a run can be asked about by name. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static const char *const RM_NAMES[RM_COUNT] = {"throughput", "gpu_util", "latency", "p99"};

const char *run_metric_name(run_metric k) { return (unsigned)k < RM_COUNT ? RM_NAMES[k] : "?"; }

int run_metric_parse(const char *name) {
  for (int k = 0; k < RM_COUNT; k++)
    if (!strcmp(name, RM_NAMES[k])) return k;
  return -1;
}

double run_metric_value(const sim_metrics *m, run_metric k) {
  switch (k) {
  case RM_THROUGHPUT: return m->throughput_pps;
  case RM_GPU_UTIL: return m->gpu_util_mean;
  case RM_LATENCY: return m->lat_mean;
  case RM_P99: return m->lat_p99;
  case RM_COUNT: break;
  }
  return NAN;
}
