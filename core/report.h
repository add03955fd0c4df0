/* The provesim.report/1 document of a simulation (shared/DESIGN.md, "Report"), and its
 * renderings: the terminal table, JSON and CSV. Also the one-line diagnosis of what limits
 * throughput. */
#ifndef PROVESIM_REPORT_H
#define PROVESIM_REPORT_H

#include <cjson/cJSON.h>

#include "util.h"
#include "model.h"
#include "metrics.h"

/* An open workload's offered load against what the system can serve (docs/design.md,
 * "Stability"). The caller fills it (sim/estimate.h, est_stability: the capacity is the
 * upper throughput bound that `estimate` prints); the renderings below show it. has = 0
 * (a closed backlog, or arrivals without a mean rate) leaves it out of every output. */
typedef struct report_stability {
  int has;
  double offered_pps;  /* partitions per second the arrivals bring, on average */
  double capacity_pps; /* the most partitions per second the system can complete, an upper
                          bound; NaN when no bound applies to the model */
  double utilization;  /* offered_pps / capacity_pps; NaN without a capacity */
  int unstable;        /* utilization >= 1: the queue grows for as long as the run lasts */
  char bound[96];      /* the bound that gave the capacity, as `estimate` names it */
} report_stability;

/* Mean over replications and 95% half-width of every reported metric. */
typedef struct report_summary {
  int ngpus, nreps;
  double *gpu_util, *gpu_util_ci; /* ngpus entries */
  double gpu_util_mean, gpu_util_mean_ci;
  double tput, tput_ci;
  double lat_mean, lat_mean_ci, lat_p50, lat_p50_ci, lat_p95, lat_p95_ci, lat_p99, lat_p99_ci;
  double wait_mean, wait_mean_ci, wait_p99, wait_p99_ci, held_mean, held_mean_ci;
  double call_mean, call_mean_ci, call_p99, call_p99_ci;
  double cpu_util, cpu_util_ci;
  double idle_held, idle_held_ci, idle_free, idle_free_ci, idle_nowork, idle_nowork_ci, idle_busy, idle_busy_ci;
  int has_proofs;
  double proof_mean, proof_mean_ci, proof_p99, proof_p99_ci;
  int64_t events;
  int warmup_auto;       /* run.warmup: auto; warmup is MSER-5's choice (sim_result) */
  int64_t warmup;
  int precision;         /* the run went to run.precision (sim_result.precision) */
  double precision_reached;
  report_stability stab; /* zeroed by report_summarize; filled by the caller */
} report_summary;

void report_summarize(const sim_result *r, report_summary *out);
void report_summary_free(report_summary *s);

/* The bottleneck line: what limits throughput, in a sentence. Returns a static or
 * buffer-backed string valid until the next call with the same buf. */
const char *report_bottleneck(const scenario *s, const report_summary *m, char *buf, size_t n);

/* The bottleneck's short name: report_bottleneck's line up to its first ':' (out holds n
 * bytes), as the CSV's limited_by and sweep's table show it. */
void report_limit_name(const char *line, char *out, size_t n);

/* Proofs per hour at pps partitions per second (a closed backlog counts a partition as a
 * proof). */
double report_proofs_per_hour(const scenario *s, double pps);

/* Partitions per second an open workload's arrivals bring on average (the process's rate
 * times partitions_per_proof; for a trace, partitions_per_proof over the mean gap of the
 * arrivals the run replays); NaN for a closed backlog, and for a trace whose arrivals
 * all come at one time. */
double report_offered_pps(const scenario *s);

/* The stability warning, one sentence without a line break (for the table, sweep and
 * plan, and standard error); buf holds n bytes. Only for st->unstable. */
const char *report_unstable_line(const report_stability *st, char *buf, size_t n);

/* Adds member k = v, or null when v is not finite (a metric with no samples). */
void report_json_num(cJSON *o, const char *k, double v);

/* The provesim.report/1 JSON object (caller frees with cJSON_Delete). */
cJSON *report_json(const scenario *s, const report_summary *m);
/* The table lists the first REPORT_TABLE_GPUS GPUs one by one (JSON and CSV list all). */
#define REPORT_TABLE_GPUS 16
void report_table(ps_buf *b, const scenario *s, const report_summary *m, double wall_s);
/* The one CSV writer: simulate, sweep and measure write the same columns in the same
 * order (docs/design.md, "CSV"), so their files concatenate. Utilization and idle shares
 * are fractions; times are seconds; empty cells are values that do not apply (a CI of one
 * replication, proof latency of a closed backlog, NVML columns of a simulation). */
typedef struct report_csv_extra {
  long point;            /* the sweep point (0 for simulate and measure) */
  const char *overrides; /* "KEY=VALUE; ..." applied to the scenario, or NULL */
  const char *gpu_timing; /* measure: "cupti", "cuda-events" or "phase-spans"; NULL for a simulation */
  double gpu_util_nvml;  /* measure: nvidia-smi's mean over GPUs (NaN when absent) */
} report_csv_extra;
void report_csv_header(ps_buf *b);
void report_csv_row(ps_buf *b, const scenario *s, const report_summary *m, const report_csv_extra *x);
/* The header and one row; x may be NULL. */
void report_csv(ps_buf *b, const scenario *s, const report_summary *m, const report_csv_extra *x);

#endif
