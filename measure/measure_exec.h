/* What the scenario runner (runner.c) and its executors share: the executor interface
 * (an executor runs the phases of a call for real: the synthetic one burns the model's
 * drawn durations, the groth16 one calls groth16.h), a FIFO lock, and the device side of
 * measurement (CUDA spin kernel, CUPTI, CUDA events, NVML), whose CUDA parts exist only
 * when the build has CUDA (PROVESIM_HAVE_CUDA) and otherwise answer "not available". */
#ifndef PROVESIM_MEASURE_EXEC_H
#define PROVESIM_MEASURE_EXEC_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "spans.h"
#include "util.h"
#include "model.h"

/* ---- A FIFO lock: tickets taken in order, served in order. */
typedef struct mfifo {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t next, serving;
} mfifo;
void mfifo_init(mfifo *f);
void mfifo_destroy(mfifo *f);
void mfifo_lock(mfifo *f);
void mfifo_unlock(mfifo *f);

/* ---- The run, as executors and the measurement modules see it (runner.c). */
typedef struct mrun mrun;
/* Records a kernel or memcpy interval on GPU gpu, times on the ps_now() clock (absolute
 * seconds of CLOCK_MONOTONIC); thread-safe. name is copied. */
void mrun_device_span(mrun *r, int gpu, span_kind kind, const char *name, double t0, double t1);
/* 1 once the run is stopping (a worker failed, or Ctrl-C); long phases may end early. */
int mrun_stopping(const mrun *r);

/* How kernel intervals are measured on this run. */
typedef enum mtiming {
  MT_PHASES,  /* cpu backend: from the GPU phase spans */
  MT_CUPTI,   /* CUPTI activity records */
  MT_EVENTS   /* CUDA events around the work the executor launches (CUPTI unavailable) */
} mtiming;

typedef struct mexec_env {
  const scenario *s;
  int cuda;            /* 1: cuda backend, 0: cpu backend */
  mtiming timing;
  mrun *run;
  const char *cache_dir; /* groth16 keys cache (NULL: no cache) */
  int threads_all;     /* threads of a cpu phase with threads: all: the scenario's thread
                          policy (scn_worker_threads) over the cores the run may use */
} mexec_env;

/* The threads a cpu phase of the model runs with in this run. */
static inline int mexec_phase_threads(const mexec_env *env, const phase *ph) {
  return ph->threads_all ? env->threads_all : ph->threads;
}

/* An executor. open checks that it can run the scenario (PS_EINPUT names what is wrong)
 * and sets *st; gpu_bytes is the device memory each worker needs on its GPU, and
 * *shared what the workers of a GPU share there (one proving key), checked by the runner
 * against what is free before any work; worker_open prepares worker `worker` (global
 * index) on GPU `gpu`; call_begin starts a call of k partitions (indices parts[0..k-1]);
 * phase runs phase p of the current call (list index in the model), from any thread,
 * concurrently with other phases of the same call as the DAG allows, and reports when
 * its resource started serving it (t0) and when it ended (t1), on the ps_now() clock;
 * call_end ends the call (also after a failed phase). */
struct runner_prover;
typedef struct mexec_ops {
  const char *name;
  int (*open)(const mexec_env *env, void **st, ps_err *e);
  size_t (*gpu_bytes)(void *st, size_t *shared);
  int (*worker_open)(void *st, int worker, int gpu, void **ws, ps_err *e);
  int (*call_begin)(void *ws, int rep, int64_t call, const int64_t *parts, int k, ps_err *e);
  int (*phase)(void *ws, int p, double *t0, double *t1, ps_err *e);
  void (*call_end)(void *ws);
  void (*worker_close)(void *ws);
  /* NULL, or what the executor saw of the prover (runner.h), after every worker closed. */
  void (*stats)(void *st, struct runner_prover *out);
  void (*close)(void *st);
} mexec_ops;

extern const mexec_ops mexec_synthetic;
extern const mexec_ops mexec_groth16;

/* Fault injection (fault.c): PS_OK, unless PROVESIM_FAULT=WORKER:CALL:PHASE names this
 * worker (global index) and phase, and this is the worker's first call numbered CALL or
 * later (calls are numbered across the run), which then fails, once, with PS_ERR and a
 * message saying it was injected. Executors call it before each phase. */
int mexec_fault(int worker, int64_t call, const char *phase, ps_err *e);

/* Sleeps until the ps_now() deadline, waking every 50 ms to check mrun_stopping. */
void mrun_sleep_until(const mrun *r, double deadline);

/* ---- CUDA (measure_cuda.c). Every function answers PS_ERR with a message when the
 * build has no CUDA. */
/* Number of usable GPUs; PS_ERR with a message suggesting --backend cpu when there are
 * none (no driver, no device, no CUDA in the build). */
int mcuda_device_count(int *n, ps_err *e);
/* Name, PCI bus id, free and total memory of device dev. */
int mcuda_device_info(int dev, char *name, size_t nname, char *pci, size_t npci, size_t *free_b, size_t *total_b,
                      ps_err *e);
/* A stream on device dev and a loaded spin kernel (one per worker). */
typedef struct mcuda_spin mcuda_spin;
int mcuda_spin_open(int dev, mcuda_spin **out, ps_err *e);
/* Runs the spin kernel for `seconds` on the stream and waits for it. With events != 0,
 * CUDA events around it give *k0, *k1 on the ps_now() clock (else both are 0). */
int mcuda_spin_run(mcuda_spin *s, double seconds, int events, double *k0, double *k1, ps_err *e);
void mcuda_spin_close(mcuda_spin *s);
/* Waits for all work on device dev. */
int mcuda_sync(int dev, ps_err *e);

/* Where device intervals go: a kernel or memcpy on GPU gpu, times on the ps_now() clock;
 * name is borrowed for the call. The runner passes one that calls mrun_device_span, so
 * this module does not depend on the runner. */
typedef void (*mdev_sink)(void *ctx, int gpu, span_kind kind, const char *name, double t0, double t1);

/* CUPTI activity records (CONCURRENT_KERNEL, MEMCPY) delivered to sink(ctx, ...) on
 * the ps_now() clock, a buffer of them whenever one fills. start: PS_ERR with the reason
 * when CUPTI is unavailable; *how says how the clocks are joined. flush: delivers what
 * is buffered; call it only after the device is synchronized (records of work still
 * running come with no timestamps and are dropped), never while a run measures (a flush
 * costs the run several points of utilization on an H200). */
int mcupti_start(mdev_sink sink, void *ctx, const char **how, ps_err *e);
void mcupti_flush(void);
/* Diagnostics of CUPTI's memory while a run measures (PROVESIM_CUPTI_FLUSH, runner.c):
 * flush_complete hands over the buffers whose records are all complete (CUPTI's default
 * flush, safe while kernels run); flush_period asks CUPTI's own thread to hand over full
 * buffers every ms milliseconds (0: CUPTI's heuristics). */
void mcupti_flush_complete(void);
void mcupti_flush_period(unsigned ms);
void mcupti_stop(void);
/* Activity records CUPTI dropped for want of buffer space since the process started. */
unsigned long mcupti_dropped(void);
/* on: a fresh 8 MiB buffer for every request of CUPTI's, freed when it comes back (the
 * way before the pool, PROVESIM_CUPTI_BUFFERS=fresh, for paired runs); off (the default):
 * a pool of 1 MiB buffers, touched when made and reused. Call it before mcupti_start. */
void mcupti_fresh_buffers(int on);

/* ---- NVML (measure_nvml.c), loaded with dlopen. */
typedef struct mnvml mnvml;
/* Samples nvmlDeviceGetUtilizationRates of the devices with the given PCI bus ids (or,
 * when pci is NULL, NVML indices 0..n-1; n <= 0: every device NVML sees) every period_s
 * in a thread. PS_ERR when NVML is not there. */
int mnvml_start(int n, const char *const *pci, double period_s, mnvml **out, ps_err *e);
int mnvml_ndev(const mnvml *m); /* devices sampled; 0 for NULL */
/* Mean of the samples taken in [t0, t1] (ps_now() clock) for device i, as a fraction;
 * NaN when none; *count gets the number of samples. */
double mnvml_mean(mnvml *m, int i, double t0, double t1, int *count);
/* Copies the samples of device i taken in [t0, t1] (fractions) to out (up to max);
 * returns how many. */
int mnvml_samples(mnvml *m, int i, double t0, double t1, double *out, int max);
/* The driver's reasons for holding the SM clock down that count as a slowdown
 * (nvmlClocksEventReasons bits; idle, application clocks and sync boost do not). */
#define MNVML_SLOW_POWER_CAP 0x4u
#define MNVML_SLOW_HW 0x8u
#define MNVML_SLOW_SW_THERMAL 0x20u
#define MNVML_SLOW_HW_THERMAL 0x40u
#define MNVML_SLOW_POWER_BRAKE 0x80u
#define MNVML_SLOW_ALL 0xecu
/* The SM clock of device i over the samples taken in [t0, t1]: n samples that read it
 * (0: NVML has no clock call, or none in the window, and the figures are NaN), their
 * mean, min and max in MHz, the board's highest SM clock (NaN when not known), the share
 * of them with a slowdown reason in force and the union of those reasons. */
typedef struct mnvml_clk {
  int n;
  double mean_mhz, min_mhz, max_mhz, board_max_mhz, slowed;
  unsigned reasons;
} mnvml_clk;
void mnvml_clocks(mnvml *m, int i, double t0, double t1, mnvml_clk *out);
/* Adds the window x to acc (both from mnvml_clocks; acc may start as x's empty form):
 * the figures of their samples taken together. */
void mnvml_clk_merge(mnvml_clk *acc, const mnvml_clk *x);
/* The names of the reasons set in `reasons` ("power_cap", "hw_slowdown", "sw_thermal",
 * "hw_thermal", "power_brake"), at most max of them; returns how many. */
int mnvml_reason_names(unsigned reasons, const char **names, int max);
/* The one form of a clock reading in a report: {samples, mean_mhz, min_mhz, max_mhz,
 * board_max_mhz, slowed_share, slowdown_reasons}, or null for NULL or no samples
 * (measure's measurement.gpu_clocks, record's gpus[].clock); and its table line
 * ("  GPU g: SM clock ... MHz on average ...", nothing for no samples). */
cJSON *mnvml_clk_json(const mnvml_clk *c);
void mnvml_clk_line(ps_buf *b, int g, const mnvml_clk *c);
void mnvml_stop(mnvml *m); /* accepts NULL */

#endif
