/* Analytic models of the proving pipeline: the finite-source (machine-repairman) queue,
 * exact Mean Value Analysis with a load-dependent multi-core CPU station, the closed forms
 * of a deterministic pipeline behind a lock, and asymptotic / balanced-job bounds.
 * `provesim estimate` puts these beside the simulation, and the simulator's tests use them
 * as oracles. Pure functions of their arguments: no I/O, no global state. Times are in
 * seconds, rates in 1/s. */
#ifndef PROVESIM_ANALYTIC_H
#define PROVESIM_ANALYTIC_H

#include "util.h"
#include "model.h"

/* ---- Finite-source queue M/M/c//N (machine repairman) ----------------------------------
 * N customers alternate between thinking (mean Z, any distribution: the state
 * probabilities are insensitive to it) and a station of c identical exponential servers
 * with mean service time S. */
typedef struct an_repairman {
  double p0;          /* probability that the station is empty */
  double throughput;  /* X, completions per second */
  double utilization; /* per server: X*S/c (for c = 1 this is 1 - p0) */
  double response;    /* R = N/X - Z: waiting plus service, per visit */
  double queue_len;   /* mean number at the station (waiting + in service) = X*R */
  double waiting_len; /* mean number waiting for a server */
} an_repairman;

/* Solves M/M/c//N. n >= 1, c >= 1, z >= 0, s > 0. p, when not NULL, receives the n+1
 * state probabilities p[k] = P(k customers at the station). Returns PS_OK, or PS_EINPUT
 * with e filled and nothing written. Stable for large n (terms are scaled in log space). */
int an_repairman_solve(int n, int c, double z, double s, double *p, an_repairman *out,
                       ps_err *e);

/* ---- Exact MVA for a single-class closed network --------------------------------------- */
typedef enum an_station_kind {
  AN_DELAY, /* infinite server: think time, or any pure delay */
  AN_QUEUE, /* one FCFS exponential server (or processor sharing): load-independent */
  AN_MULTI  /* c identical servers: load-dependent rate mu(j) = min(j, c)/S */
} an_station_kind;

typedef struct an_station {
  an_station_kind kind;
  double demand; /* service demand per cycle (visits x service time), >= 0 */
  int servers;   /* AN_MULTI: c >= 1; ignored otherwise */
} an_station;

/* Results for every population 1..npop. Arrays are indexed by population n (index 0 holds
 * zeros); per-station arrays hold npop+1 rows of nstations entries, read with AN_MVA_AT. */
typedef struct an_mva {
  int nstations, npop;
  double *throughput;  /* X(n), cycles per second */
  double *response;    /* R(n) = n/X(n) - Z: total residence at non-delay stations */
  double *residence;   /* R_k(n): time per cycle at station k, waiting + service */
  double *queue;       /* Q_k(n) = X(n) R_k(n): mean number at station k */
  double *utilization; /* U_k(n) = X(n) D_k, divided by c for AN_MULTI (per server); for
                          AN_DELAY it is the mean number present */
} an_mva;
#define AN_MVA_AT(r, arr, n, k) ((r)->arr[(size_t)(n) * (size_t)(r)->nstations + (size_t)(k)])

/* Runs exact MVA (Reiser & Lavenberg; load-dependent stations through their marginal
 * queue-length distributions). nst >= 1, npop >= 1. On PS_OK, out owns arrays the caller
 * frees with an_mva_free; on PS_EINPUT e is filled and out is zeroed. */
int an_mva_solve(const an_station *st, int nst, int npop, an_mva *out, ps_err *e);
/* Frees out's arrays (out may be NULL or already freed) and zeroes it. */
void an_mva_free(an_mva *out);

/* ---- Deterministic pipeline ---------------------------------------------------------------
 * A worker's call runs its phases one after another: t_locked seconds inside its GPU's
 * lock (of which t_gpu on the GPU) and t_free seconds outside it; workers never wait for
 * cores. With N workers per GPU the lock is a single server of deterministic time in a
 * closed cycle, so throughput per GPU is min(N/(t_locked+t_free), 1/t_locked). With the
 * lock over the GPU phase only, t_locked = Tg: min(N/(Ts+Tg+Tc), 1/Tg); with the lock over
 * the whole call, t_free = 0: 1/(Ts+Tg+Tc) for every N. Without a mutex but an exclusive
 * GPU, the GPU phase is the lock. */
typedef struct an_det {
  double throughput;  /* partitions per second over all GPUs: gpus * batch * calls/s */
  double call_rate;   /* calls per second on one GPU */
  double gpu_util;    /* per GPU: call_rate * t_gpu */
  double cycle;       /* seconds between the starts of two calls of one worker */
  int lock_bound;     /* 1 when the lock is the bottleneck (N*t_locked >= t_locked+t_free) */
} an_det;

/* t_locked > 0, t_free >= 0, 0 <= t_gpu <= t_locked, workers_per_gpu, gpus, batch >= 1.
 * The times are per call, i.e. already scaled for the batch (see an_batch_time). */
int an_det_lock(int workers_per_gpu, int gpus, int batch, double t_locked, double t_free,
                double t_gpu, an_det *out, ps_err *e);

typedef enum an_lock {
  AN_LOCK_GPU, /* the lock (or the exclusive GPU itself) covers the GPU phase only */
  AN_LOCK_CALL /* the lock covers the whole call */
} an_lock;

/* The Ts (cpu) -> Tg (gpu) -> Tc (cpu) call, per-call times, with the lock of `lock`. */
int an_det_pipeline(int workers_per_gpu, int gpus, int batch, double ts, double tg, double tc,
                    an_lock lock, an_det *out, ps_err *e);

/* Time of a phase for a call of k partitions: the per-call fixed part plus k per-partition
 * times, F + k*T. */
double an_batch_time(double fixed, double per_partition, int k);

/* ---- Bounds -------------------------------------------------------------------------------
 * Asymptotic bounds (ABA) for a closed network of N customers with total queueing demand D,
 * bottleneck demand Dmax and think time Z:
 *   N/(N*D + Z) <= X <= min(N/(D+Z), 1/Dmax),  max(D, N*Dmax - Z) <= R <= N*D.
 * Balanced job bounds (Zahorjan et al.) tighten them when every queueing station is
 * load-independent. */
typedef struct an_bounds {
  double x_lower, x_upper; /* throughput */
  double r_lower, r_upper; /* response time, think time excluded */
  double n_star;           /* (D+Z)/Dmax: population beyond which the bottleneck saturates */
  int balanced;            /* 1 when balanced job bounds were applied */
} an_bounds;

/* Scalar ABA: d > 0 (or 0 with z > 0), 0 < dmax <= d, z >= 0, n >= 1. For a multi-server
 * bottleneck pass its demand divided by its servers as dmax. */
int an_bounds_aba(double d, double dmax, double z, int n, an_bounds *out, ps_err *e);

/* Bounds of a network: delay stations add to Z; an AN_MULTI station of c servers counts D
 * in D and D/c in Dmax. Applies balanced job bounds when no AN_MULTI station with c > 1
 * is present. */
int an_bounds_network(const an_station *st, int nst, int n, an_bounds *out, ps_err *e);

/* ---- Which analytic model fits a scenario ------------------------------------------------ */
typedef struct an_assume {
  int closed;        /* closed backlog (no arrival process) */
  int sequential;    /* each phase runs after the one listed before it, and only after it */
  int deterministic; /* every phase time and fixed part is const (empirical not counted) */
  int gpu_exclusive; /* gpu_sharing: exclusive */
  int cores_enough;  /* cpu_cores >= all workers x the most threads a phase wants */
  int no_pcie;       /* no pcie phase (a shared link is not modelled analytically) */
  int lock_covers_gpu; /* every GPU phase lies inside the lock region (the GPU phases form
                          one contiguous block when there is no mutex) */
  int single_gpu_exponential; /* exactly one GPU phase, exponential, no fixed part, batch 1 */
  /* Mean per-call times (batch applied) of the sequential reading of the call, with the
   * lock region as described above. Filled whenever sequential is 1. */
  double t_locked, t_free, t_gpu;
  /* 1 when an_det_lock is exact for this scenario, and when the machine-repairman queue
   * (c = 1, Z = t_free, S = t_gpu; lock region = the GPU phase) is. */
  int det_exact;
  int repairman_exact;
} an_assume;

/* Fills out from s (borrowed). Never fails on a scenario the loader accepted. */
void an_assumptions(const scenario *s, an_assume *out);

#endif
