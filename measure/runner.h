/* The scenario runner behind `provesim measure`: runs a scenario for real, with worker
 * threads pinned to GPUs, one pthread mutex per GPU held exactly over the scope region,
 * the model's phase DAG per call (concurrent phases on helper threads), batching, closed
 * backlog or arrivals, and records what happened as provesim.spans/1 spans (phases, mutex
 * wait/held, kernels and memcpys) and as the simulator's metrics, computed from those
 * spans over the same measurement window. */
#ifndef PROVESIM_RUNNER_H
#define PROVESIM_RUNNER_H

#include <cjson/cJSON.h>
#include <signal.h>

#include "util.h"
#include "metrics.h"
#include "model.h"

typedef struct runner_opts {
  const char *backend;   /* "cpu" or "cuda" */
  const char *executor;  /* "synthetic" or "groth16" */
  const volatile sig_atomic_t *interrupt; /* set by a SIGINT handler; may be NULL */
  int keep_spans;        /* 1: the result carries the spans document */
  /* With keep_spans: NULL keeps the whole document in the result's spans; a file gets it
   * as the run goes (the result's spans then hold none of it), so the run's memory does
   * not grow with its spans. */
  FILE *spans_file;
  const char *cache_dir; /* groth16 key cache; NULL = none */
  double nvml_period_s;  /* NVML sampling period; 0 = 0.1 s */
  int no_cupti;          /* 1: act as if CUPTI were unavailable (tests, comparisons) */
  /* 1: before each call's first GPU phase the workers of a GPU wait for each other, so
   * that their GPU phases start together (an overlap run for calibrate --overlap; needs
   * system.mutex none and two or more workers per GPU). The spans header says so. */
  int rendezvous;
  /* NULL, or called after every completed call with the partitions done so far over all
   * replications (replications x partitions in all); from worker threads, one at a time. */
  void (*progress)(void *ctx, size_t done);
  void *progress_ctx;
} runner_opts;

/* Time statistics of one phase (or of mutex_wait / mutex_held) over the window, pooled
 * over replications. */
typedef struct runner_phase_stats {
  const char *name;      /* borrowed from the scenario, or a static string */
  const char *resource;
  int64_t n;
  double mean, p50, p95, p99, min, max;
} runner_phase_stats;

/* What the groth16 executor saw of the prover (measure_g16.c), for an operator: a GPU's
 * memory as one proving key shared by its workers plus each worker's own buffers, each
 * worker's first call apart from its later (steady-state) calls, the backend's GPU time
 * per call, and the peaks of memory. A call is timed by its worker from its start to its
 * end (mutex waits included); GPU time is the device time between CUDA events around the
 * worker's backend operations (backend_busy_s: with no lock between workers, the other
 * workers' kernels that interleave are counted too). valid = 0 for other executors. */
typedef struct runner_prover {
  int valid;
  int64_t constraints;
  double key_gpu_bytes;     /* one copy per GPU (g16_key_bytes) */
  double worker_gpu_bytes;  /* per worker, beside the key (g16_worker_bytes); 0 on cpu */
  int precompute_window;    /* prover.precompute as resolved (auto: the window picked); 0 = none */
  double precompute_bytes;  /* the tables' part of key_gpu_bytes (g16_precompute_bytes) */
  double key_upload_s;      /* the longest upload of the key to a GPU (before the calls) */
  int first_calls;          /* workers that made a first call */
  double first_call_s, first_gpu_s; /* mean over those workers */
  int64_t steady_calls;
  double steady_p50_s, steady_p95_s, steady_mean_s, steady_gpu_mean_s, steady_gpu_p50_s;
  double peak_gpu_bytes;    /* highest cudaMemGetInfo total - free seen on a GPU; NaN on cpu */
  double peak_host_bytes;   /* peak resident set of the process (getrusage) */
} runner_prover;

struct mnvml_clk; /* measure_exec.h */

typedef struct runner_result {
  sim_result sim;        /* per-replication metrics in the simulator's terms */
  int ngpus;
  double *gpu_util_nvml; /* ngpus entries, mean over replications; NaN when NVML is absent */
  int nvml_samples;
  /* Spread of the single NVML readings in the windows, per GPU (what a person watching
   * nvidia-smi sees): min, p05, p50, p95, max; NaN when none. */
  double (*nvml_spread)[5];
  /* The SM clock NVML read in the windows, per GPU (ngpus entries; n = 0 when none). */
  struct mnvml_clk *clocks;
  const char *gpu_timing;   /* "cupti", "cuda-events" or "phase-spans" */
  char notes[1024];         /* what the reader must know (fallbacks, interruptions) */
  char device[256];         /* "NVIDIA H200" or "cpu backend" */
  runner_phase_stats *phases;
  int nphases;
  ps_buf spans;             /* the provesim.spans/1 document when keep_spans (what is not
                               yet in runner_opts.spans_file, when there is one) */
  int completed_reps;       /* replications that ran to the end */
  double host_steal;        /* the share of the run's cores' busy time stolen by the
                               hypervisor (hoststat.h), 0 to 1; -1 when not known */
  runner_prover prover;     /* the groth16 executor's figures (valid = 0 for others) */
} runner_result;

/* Runs every replication of s. *out is set whenever the run started (also when it then
 * failed or was interrupted, so the caller can write the spans it recorded); the caller
 * frees it with runner_result_free. Returns PS_OK; PS_EINPUT when the scenario cannot
 * run with this executor (names what is wrong, nothing ran); PS_ERR for a device failure,
 * not enough GPU memory (names need and free), a failing phase, or an interruption. */
int runner_run(const scenario *s, const runner_opts *o, runner_result **out, ps_err *e);
void runner_result_free(runner_result *r); /* accepts NULL */

/* The provesim.report/1 document ("source": "prover"): the simulator's metrics plus
 * gpu_util_nvml, per-phase statistics and a "measurement" member saying how. */
cJSON *runner_report_json(const scenario *s, const runner_opts *o, const runner_result *r);
void runner_report_table(ps_buf *b, const scenario *s, const runner_opts *o, const runner_result *r, double wall_s);
/* The CSV of report.h's one writer, with the NVML and timing columns filled; overrides
 * ("KEY=VALUE; ...") may be NULL. */
void runner_report_csv(ps_buf *b, const scenario *s, const runner_result *r, const char *overrides);

#endif
