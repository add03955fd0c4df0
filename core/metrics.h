/* The metric types every part of provesim reports in: one replication's metrics over its
 * measurement window (sim_metrics), and a run's replications (sim_result). The simulator
 * fills them from its events, `measure` from what it recorded, and report.h summarises
 * and prints them. The window they are measured over is window.h's. */
#ifndef PROVESIM_METRICS_H
#define PROVESIM_METRICS_H

#include <stdint.h>

/* Metrics of one replication, over its measurement window (shared/DESIGN.md). */
typedef struct sim_metrics {
  int ngpus;
  double *gpu_util;         /* ngpus entries; owned (freed by sim_result_free / sim_metrics_free) */
  double gpu_util_mean;     /* mean over all GPUs */
  double throughput_pps;    /* partitions per second */
  double lat_mean, lat_p50, lat_p95, lat_p99; /* partition latency, s */
  double mutex_wait_mean, mutex_wait_p99;     /* per call, s */
  double mutex_held_mean;   /* per call, s: what a log timing the locked region reports */
  double call_mean, call_p99;                  /* time inside the prove call, s */
  int has_proofs;           /* arrivals: proof latency (first arrival to last partition done) */
  double proof_lat_mean, proof_lat_p50, proof_lat_p95, proof_lat_p99;
  double cpu_util;          /* core-seconds used / (cores * window) */
  /* Why the GPUs idled, as fractions of GPU-time in the window (mean over GPUs). "No GPU
   * phase running" includes the share 1 - busy of a running GPU phase (phase.busy). */
  double idle_mutex_cpu;    /* mutex held but no GPU phase running */
  double idle_no_holder;    /* mutex free (or no mutex) and no GPU phase running */
  double idle_no_work;      /* part of idle_no_holder with a worker of that GPU waiting for
                               work (arrivals, or the end of a closed backlog); the rest of
                               idle_no_holder is idle while every worker is busy elsewhere
                               (CPU phases, queues) */
  double window_s;
  int64_t completed;        /* partitions completed inside the window */
  int64_t events;           /* events processed (whole run) */
} sim_metrics;

typedef struct sim_result {
  int nreps;
  sim_metrics *reps;        /* nreps entries, in replication order */
  int64_t events;           /* sum over replications */
  double wall_s;            /* wall time of the run */
  int warmup_auto;          /* the scenario's run.warmup is auto: every replication's window
                               opened after the warmup partitions MSER-5 chose */
  int64_t warmup;           /* the warm-up every replication used (partitions): MSER-5's
                               choice with auto, run.warmup otherwise */
  int precision;            /* the run went to run.precision (sim/precision.h): replications
                               were added until precision_reached met the target or the cap */
  double precision_reached; /* then: the widest relative 95% half-width of its metrics */
} sim_result;

/* The metrics a run can be asked about by name: run.precision's metrics and sensitivity's
 * --metric. RUN_METRIC_NAMES lists the names for messages. */
typedef enum run_metric { RM_THROUGHPUT, RM_GPU_UTIL, RM_LATENCY, RM_P99, RM_COUNT } run_metric;
#define RUN_METRIC_NAMES "throughput, gpu_util, latency, p99"

/* "throughput" (partitions/s), "gpu_util" (mean over GPUs), "latency" (partition latency,
 * mean), "p99" (partition latency, 99th percentile). */
const char *run_metric_name(run_metric k);
/* The metric named name, or -1. */
int run_metric_parse(const char *name);
/* Its value in one replication. */
double run_metric_value(const sim_metrics *m, run_metric k);

/* Free what a result owns (accept NULL). */
void sim_result_free(sim_result *r);
void sim_metrics_free(sim_metrics *m);

#endif
