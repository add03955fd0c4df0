/* Calibration and validation: turning recorded spans (from `measure`, or from `simulate`
 * for tests) into a model, and putting a prediction beside a measurement.
 *
 * calib_fit fits one phase's durations: normal, lognormal, gamma and exponential by
 * maximum likelihood (const when they do not vary), and keeps the family with the best
 * AIC; calib_acc does the same from sums gathered as a stream, in bounded memory.
 * calib_model builds a whole model from a template (the phase graph, resources and
 * scopes) and the spans, read as streams. span_metrics recomputes the DESIGN's metrics
 * from spans alone, with the same window rule as the simulator. */
#ifndef PROVESIM_CALIB_H
#define PROVESIM_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"
#include "util.h"
#include "model.h"
#include "window.h"

typedef enum calib_family {
  CALIB_AUTO,
  CALIB_CONST,
  CALIB_NORMAL,
  CALIB_LOGNORMAL,
  CALIB_GAMMA,
  CALIB_EXPONENTIAL,
  CALIB_EMPIRICAL,
  CALIB_UNIFORM
} calib_family;

/* Result of fitting one sample. */
typedef struct calib_fit_result {
  dist d;                 /* the chosen distribution (owned when empirical) */
  calib_family family;
  size_t n;
  double mean, cv;        /* of the sample */
  double loglik[8];       /* per family (NAN when not applicable), indexed by calib_family */
  double ks;              /* Kolmogorov-Smirnov distance of the chosen fit (0 for const/empirical) */
  size_t nsample;         /* durations the KS distance (and an empirical fit) used: n, or
                             the sample cap when n is above it */
  calib_family mean_off;  /* the family AIC ranked first but left out, its mean more than
                             CALIB_MEAN_SE standard errors from the sample's (CALIB_AUTO:
                             none was) */
  double mean_off_mean;   /* the mean that family would have given */
  double mean_off_se;     /* how far that lies from the sample's, in standard errors */
} calib_fit_result;

/* How far a candidate family's mean may lie from the sample's, in standard errors of
 * the mean (sd / sqrt(n)), and still be chosen by AIC. Durations that come from the
 * family put its mean that far off in fewer than 3 fits in 1,000 (a normal deviate beyond
 * 3); a uniform fitted to two clusters of unequal size (its mean the middle of the range)
 * is off by far more. */
#define CALIB_MEAN_SE 3.0

/* Fit x[0..n-1] (seconds, >= 0). want = CALIB_AUTO picks by AIC among normal,
 * lognormal, gamma, exponential and uniform, those whose mean is within CALIB_MEAN_SE
 * standard errors of the sample's (normal, gamma and exponential always are). Returns PS_OK or
 * PS_EINPUT (no samples, negative values, a family that cannot fit, e.g. lognormal with
 * a zero duration). x is not modified. */
int calib_fit(const double *x, size_t n, calib_family want, calib_fit_result *out, ps_err *e);

/* Durations as a stream, in bounded memory: the sums every maximum-likelihood fit needs
 * (sum of x and of log x, compensated; Welford's mean and squared deviations of x and of
 * log x; min, max), and a sample for what needs the values themselves (the KS distance,
 * an empirical fit): every value up to cap, beyond it a reservoir of cap values
 * (Algorithm R with a fixed-seed generator, so the same values in the same order give the
 * same sample). A zeroed struct is not valid: start with calib_acc_init. */
typedef struct calib_acc {
  size_t n, nbad;                    /* values added; of them, not finite or < 0 */
  double bad_x;                      /* the first of those, and its index */
  size_t bad_i;
  double sum, sum_c, lsum, lsum_c;   /* Neumaier sums of x and log x (x > 0) */
  double mean, m2, lmean, lm2;       /* Welford, of x and of log x (x > 0) */
  size_t nl;                         /* values > 0 */
  double min, max;
  double *v;                         /* the sample: nv values, room for cv, at most cap */
  uint32_t *key;                     /* each kept value's key (calib_acc_order); NULL once
                                        the sample is a reservoir */
  size_t nv, cv, cap;
  uint64_t rng;
} calib_acc;

/* The default cap: 2^20 durations per fitted phase (12 MiB with their keys while the sample
 * holds every value, 8 MiB once it is a reservoir). */
#define CALIB_SAMPLE_CAP ((size_t)1 << 20)
/* The cap calib_model uses (CALIB_SAMPLE_CAP unless set; 0 restores it). Tests set a small
 * one; `calibrate` reads PROVESIM_CALIB_SAMPLE_CAP for its tests. */
void calib_set_sample_cap(size_t cap);
size_t calib_sample_cap(void);
void calib_acc_init(calib_acc *a, size_t cap);
/* Adds x, with a key that calib_acc_order may sort the sample by. */
void calib_acc_add(calib_acc *a, double x, uint32_t key);
/* Reorders the sample by rank[key] (keys < nrank), keeping the order of equal ranks; a
 * reservoir stays as it is. */
void calib_acc_order(calib_acc *a, const uint32_t *rank, uint32_t nrank);
void calib_acc_free(calib_acc *a);
/* The fit of the values added: calib_fit of the sample, in its order, when it holds every
 * value; else the same fits from the sums (the same messages), the KS distance and an
 * empirical fit over the reservoir. */
int calib_fit_acc(const calib_acc *a, calib_family want, calib_fit_result *out, ps_err *e);
const char *calib_family_name(calib_family f);
/* Parses "auto", "lognormal", ...; -1 when unknown. */
int calib_family_parse(const char *s);

/* Per-phase report of calib_model, for the command's table. */
typedef struct calib_phase_report {
  const char *phase;      /* borrowed from the model */
  calib_fit_result fit;
  int nscale;             /* batch multipliers fitted (k = 1..nscale) */
  int one_thr_k, one_thr_t; /* a phase with a scaling law whose calls of k = one_thr_k > 1
                               partitions all ran at one_thr_t threads (the first such k;
                               0: none): its multiplier is taken at every thread count */
  int batch_runs, batch_runs_k; /* the fewest runs (files) that gave the calls of any k > 1 behind a
                               multiplier, and that k (0: no multipliers) */
  int skipped;            /* spans left out as warm-up */
  double busy;            /* gpu phases with kernel records: the fitted busy share; else -1 */
  int nthreads;           /* distinct thread counts among the phase's spans (0: not recorded) */
  double serial;          /* phases with a scaling law: the fitted serial share */
  double host_threads;    /* gpu phases: the host threads fitted from cpu_s; -1 when not */
  long host_spans, host_missing; /* gpu phases: kept spans with cpu_s, and without */
} calib_phase_report;

/* How calib_model, calib_overlap and calib_host read a run's spans (calibrate's options):
 * - skip_calls: each (rep, gpu, worker)'s first calls are left out (warm-up effects);
 * - steal_exponent (--steal-exponent K): every cpu phase span of a run whose header says
 *   host_steal s is taken as lasting (1 - s)^K of its length, the run made quiet (0: as
 *   measured); GPU spans are read as measured. */
typedef struct calib_read {
  int skip_calls;
  double steal_exponent;
  int template_host_threads; /* 1: keep the template's host_threads (--host-threads template)
                                instead of fitting them from the spans' cpu_s */
} calib_read;

/* Fill the template model's phase times from the phase spans in files[0..nfiles-1]:
 * spans named like a template phase are grouped; the first rd->skip_calls calls of each
 * (rep, gpu, worker) are left out (warm-up effects); spans of one-partition calls give
 * the time distribution; calls of k partitions give batch multipliers scale[k-1] =
 * mean(k) / mean(1) for k = 1.. as long as every k was seen. When the files hold kernel
 * records (`measure` spans), each GPU phase also gets busy = kernel time inside its
 * spans / their total length (1 when above 0.9995); when every kept span of a GPU phase
 * has cpu_s (measure at 16a6451 or later), host_threads = their cpu_s / their length
 * (at most 64), unless rd->template_host_threads. A template phase without
 * spans is an error. On success the template is modified in place and reports (one per
 * phase, caller frees with free()) is filled.
 *
 * The files are read as streams: once, again when a phase has a scaling law, and first to
 * rank each worker's calls when rd->skip_calls > 0 and a worker's calls do not come in order of
 * number (they do in files from measure and simulate): memory is the sums and the capped
 * sample of each phase, one entry per worker and, per (rep, gpu), the spans and kernel
 * intervals of the moment, never the files. When a phase's durations exceed the sample
 * cap its report says so (fit.nsample < fit.n) and so does the model's provenance
 * ("sample"). Kernel records must come in order of start within each (rep, gpu), as
 * measure writes them (an error otherwise). */
int calib_model(model *tmpl, const char *const *files, int nfiles, calib_family want, const calib_read *rd,
                calib_phase_report **reports, ps_err *e);

/* The interference of GPU phases that overlap (model.interference), from runs where they
 * do (two or more workers, no mutex): the time each kept GPU phase span ran with n phases
 * at once (itself and n - 1 of other workers), against its solo work (the model's mean,
 * fitted before from single-worker runs). At n at once each runs at 1 / (1 + s (n - 1)),
 * so s solves  work = sum over n of time_n / (1 + s (n - 1)), summed over the spans of
 * every file (with two at most: 1 + s = overlapped / (work - alone)). Sets
 * m->gpu_overlap and m->interference. PS_EINPUT when they overlap for under 5%.
 * The order of start: from the spans that ran with at most one other phase at once, the
 * one that started first at 1 / (1 + s1) and the other at 1 / (1 + s), from the sums of
 * the spans that started alone and of those that started beside another; when that
 * identifies them (first_why says why not) and flags has CALIB_OV_ORDER, s and s1 are the
 * model's interference and interference_first (has_first).
 * By pairs: each GPU phase's rate beside exactly one other of each phase, from the spans
 * grouped by the company they ran most beside (sim/calib_overlap.c, gpu_pairs); with
 * CALIB_OV_PAIRS they go into the model (model.pair_rate, the key gpu_pairs).
 * From the same runs' cpu phases, the cpu contention c (model.cpu_contention): each
 * span's duration d against its solo time e at its threads, and m the time-averaged
 * number of other workers' cpu phases beside it (0 when they never ran side by side; the
 * run must leave cores to spare). By default within each run: d / e = h (1 + c m), with
 * h the run's host speed for the phase (one per file and phase), by least squares on the
 * deviations from each (file, phase)'s means, when m varies enough within the runs;
 * otherwise, and with CALIB_OV_ACROSS, across runs: d / e = 1 + c m through (0, 1), which
 * takes a run's host speed for contention. With CALIB_OV_SIGNIF the fit within each run
 * counts only when it lies two standard errors or more from 0; otherwise c = 0. */
/* One GPU phase beside one other (calib_overlap_report.pairs): the phases' indices, the
 * fitted rate, the pooled law's rate over the same times, and the time they ran so. */
typedef struct calib_pair {
  int phase, beside;
  double rate, pooled, time_s;
} calib_pair;
#define CALIB_OV_PAIRS_MAX 32

typedef struct calib_overlap_report {
  double alone_s, overlapped_s, work_s, interference;
  int max_at_once;         /* the most GPU phases seen at once */
  int forced;              /* of the files, those made with measure --rendezvous */
  double cpu_contention;   /* the fitted model.cpu_contention */
  double cpu_side_by_side; /* sum over cpu spans of m^2 (0: cpu phases never side by side) */
  int cpu_within;          /* the fit within each run was identified (m varied enough) */
  double cpu_host;         /* its mean d / e at m = 0: the runs' host speed against the model */
  double cpu_m_sd;         /* the sd of m about each (run, phase)'s mean */
  double cpu_within_c;     /* the fit within each run, clamped to [0, 100] */
  double cpu_within_se;    /* its standard error (unclamped; INFINITY when too few spans) */
  int cpu_within_signif;   /* it lies two standard errors or more from 0 */
  double cpu_across;       /* the fit across runs (d / e - 1 = c m), clamped to [0, 100] */
  int first_identified;    /* the order of start was fitted: the model's interference
                              (interference_later) and interference_first from the spans at
                              two at once (interference: the pooled fit, both roles) */
  double interference_later, interference_first;
  char first_why[128];     /* else why not */
  /* by pairs: each GPU phase's rate beside exactly one other of each phase estimated
   * (the fit, whether or not CALIB_OV_PAIRS puts it in the model), beside the pooled law's
   * rate over the same times */
  calib_pair pairs[CALIB_OV_PAIRS_MAX];
  int npairs;
  char pairs_why[256];     /* the phases whose rates were not identified, and why */
} calib_overlap_report;
enum { CALIB_OV_ORDER = 1, CALIB_OV_ACROSS = 2, CALIB_OV_PAIRS = 4, CALIB_OV_SIGNIF = 8 };
int calib_overlap(model *m, const char *const *files, int nfiles, const calib_read *rd, unsigned flags,
                  calib_overlap_report *out, ps_err *e);

/* The run-to-run spread of the host's CPU speed (model.host_speed.sd), from the spans files
 * of runs made more than once with the same settings (each cpu phase's threads, the
 * largest call, the workers): sd^2 = the pooled variance of log(cpu time per partition)
 * within such groups, less the part the runs' own spans explain (sim/calib_host.c says
 * how). identified = 0 when no settings were run twice; nothing else is then set. */
#define CALIB_MODES_MAX 8
#define CALIB_MODES_RUNS 4
#define CALIB_MODES_RATIO 1.03
#define CALIB_MODES_SEP 4.0
typedef struct calib_gpu_mode {
  char phase[64];
  int nruns, nslow;   /* the runs read, and of them in the slow mode */
  double fast, slow;  /* each mode's mean of the runs' means (s a partition) */
  double cut;         /* the split: runs at or above it are slow */
} calib_gpu_mode;
typedef struct calib_host_report {
  int nruns;       /* runs with cpu phase spans at one thread count each */
  int ngroups;     /* settings run more than once */
  int nrepeated;   /* runs in those groups */
  int df;          /* sum over the groups of (runs - 1) */
  double raw_sd;   /* the runs' spread about their group's mean, log scale */
  double within_sd; /* of it, what the spans within a run explain (root mean square) */
  double sd;       /* sqrt(raw_sd^2 - within_sd^2), 0 when that is negative */
  double sd_lo, sd_hi; /* its 95% interval: raw's from df (chi-square), less within_sd^2 */
  int identified;
  /* The hypervisor's steal (the spans headers' host_steal): runs that recorded it, those
   * above SPANS_STEAL_WARN (a shared host: their cpu phases ran slow), the largest share
   * and its file's index (-1 when no run recorded it). */
  int steal_runs, steal_over, steal_max_file;
  double steal_max;
  /* GPU phases that ran in two modes by run (docs/design.md, "Calibration"): over the runs
   * of one worker and calls of one partition (at least CALIB_MODES_RUNS), each run's mean
   * length a partition, split by Otsu's rule (the split with the most variance between
   * the classes); two modes when each class has two runs or more (one run alone may be an
   * outlier), the slow class's mean is at least CALIB_MODES_RATIO times
   * the fast one's and CALIB_MODES_SEP times the runs' spread within the classes (the
   * pooled sd, n - 2 degrees of freedom) above it. The model gets them from
   * calib_run_modes. */
  int nmodes;
  calib_gpu_mode modes[CALIB_MODES_MAX];
} calib_host_report;
int calib_host(const char *const *files, int nfiles, const calib_read *rd, calib_host_report *out, ps_err *e);
/* Puts the GPU phases' two modes (out->modes) into m (calibrate --run-modes fit): each such
 * phase of m gets run_mode: {share: slow runs / runs, scale: slow / fast}, each replication
 * then taking the slow mode with that chance, and its time (and fixed part) divided by
 * 1 + share (scale - 1), so that its mean over runs stays the fit's. Returns the phases
 * set. */
int calib_run_modes(model *m, const calib_host_report *hr);
/* The GPU phases' host load (sim/calib_host.c): the cores a GPU phase keeps busy, which
 * may be more than its launching thread's CPU time says (the driver's and the tracer's
 * threads). From the first pair of files (in file order) of one worker at one partition a
 * call with the same cpu phases at the same thread counts, on fewer cores (small) and more
 * (large): the cpu phase that runs beside a GPU phase in the model's graph took `measured`
 * times as long on the fewer cores; the model as fitted so far is simulated in a scenario
 * of those settings (one GPU, one worker, no lock, 400 partitions, the first 3 calls left
 * out) at both core counts, with every GPU phase's host_threads h, and h is the value, by
 * bisection from the largest fitted host_threads up to CALIB_LOAD_MAX, whose simulated
 * ratio matches; it is then every GPU phase's host_threads. When the fitted host threads
 * already slow the phase that much, they stay. fitted = 0 (and m unchanged) without such a
 * pair or phase. */
#define CALIB_LOAD_MAX 8.0
typedef struct calib_load_report {
  int fitted;
  int small, large;            /* the pair's file indices, -1 without one */
  const char *phase;           /* borrowed from the model */
  int threads, cores_small, cores_large;
  double measured, simulated;  /* the phase's mean on the small over the large */
  double h;
} calib_load_report;
int calib_host_load(model *m, const char *const *files, int nfiles, const calib_read *rd, calib_load_report *out,
                    ps_err *e);
/* The mutex's own time (model.mutex_overhead), from the calibration runs' spans
 * (sim/calib_mutex.c): per hold of the mutex, its region the largest of m's scopes whose
 * phases all ran inside it, from the acquire to the region's first phase (acquire_s) and
 * from its last phase to the release (release_s); the medians over every such hold of the
 * files (each worker's first rd->skip_calls calls left out). holds = 0 when no hold had a
 * scope's phases inside it: nothing else is then set. */
typedef struct calib_mutex_report {
  size_t holds;
  double acquire_s, release_s;
} calib_mutex_report;
int calib_mutex(const model *m, const char *const *files, int nfiles, const calib_read *rd, calib_mutex_report *out,
                ps_err *e);
/* A spans file's header host_steal (-1 when it does not record it), reading the header only
 * (calibrate --max-steal). */
int calib_header_steal(const char *path, double *steal, ps_err *e);
/* The factor a cpu span of a run whose header says host_steal `steal` is taken at under
 * calib_read.steal_exponent k: (1 - steal)^k, 1 when k is 0 or the steal not recorded (-1). */
double calib__steal_factor(double steal, double k);

/* Internal to sim/calib*.c: each worker's first calls, to leave out skip_calls of them
 * as warm-up. Calls are ranked by number within a (rep, gpu, worker), as calib_model
 * always did; calib__ranks_add sees every call in a first pass (keeping the skip smallest
 * call numbers of each worker), calib__ranks_kept then says whether a call is past them. */
/* calib__ranks_add in the calls' order of number ranks them as they come: a call is
 * kept once the worker's first skip calls have been seen (disorder says when this does not
 * hold). */
typedef struct calib__ranks {
  int skip;
  strtab tab;         /* the workers, as "rep gpu worker" */
  int64_t **first;    /* per worker, its smallest call numbers, ascending */
  int *nfirst;
  int64_t *last;      /* per worker, the largest call number added */
  int disorder;       /* a worker's call numbers were added out of order */
  size_t cap;
} calib__ranks;
void calib__ranks_add(calib__ranks *r, int rep, int gpu, int worker, int64_t call);
int calib__ranks_kept(calib__ranks *r, int rep, int gpu, int worker, int64_t call);
void calib__ranks_free(calib__ranks *r);

/* Sets key to value in the model's provenance (calib_model sets gpu and host from the
 * spans headers; calibrate adds the rest). */
void calib_set_provenance(model *m, const char *key, const char *value);

/* The model as YAML (the format of the files in models/), appended to b. */
void calib_model_yaml(ps_buf *b, const model *m);

/* Metrics recomputed from spans (one replication), with the simulator's window rule:
 * from the warmup-th completion to completion number (total - cooldown). A partition
 * completes when the last span of its call ends; utilization is the union of kernel
 * spans of a GPU when the file has any, else of its GPU-phase spans. The file is read
 * twice as a stream (sim/spanmetrics.c): memory is one record per call and one interval
 * per GPU span inside the window, not the spans. */
typedef struct span_metrics {
  int ngpus;
  double gpu_util[PS_MAX_GPUS];
  double gpu_util_mean;
  double throughput_pps;
  double call_mean;       /* call start (first span of the call) to its end */
  double mutex_wait_mean; /* NAN when there are no mutex_wait spans */
  double window_s;
  long completed;
  int from_kernels;       /* utilization came from kernel spans */
  double host_steal;      /* the header's host_steal (spans.h), -1 when not recorded */
  int reps_in_file;       /* 1 + the largest replication number any span of the file has */
  int64_t arrivals_seed;  /* measure's run.seed (source prover, the header's seed), from which
                             its arrivals were drawn (core/arrivals.h); -1 when not recorded */
  int rendezvous;         /* the header says measure --rendezvous forced the schedule */
} span_metrics;

int span_metrics_file(const char *path, int rep, long warmup, long cooldown, span_metrics *out, ps_err *e);

#endif
