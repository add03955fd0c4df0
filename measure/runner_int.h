/* What runner.c and runner_metrics.c share, private to measure/: a run's state (struct
 * mrun), its workers, the spans and calls they record, and the small vector and order
 * statistics the metrics use. Helpers shared between the two files carry runner__. */
#ifndef PROVESIM_RUNNER_INT_H
#define PROVESIM_RUNNER_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "measure_exec.h"
#include "metrics.h"
#include "runner.h"

/* ---- Recorded spans and calls ---- */

enum { SP_WAIT = -1, SP_HELD = -2, SP_KERNEL = -3, SP_MEMCPY = -4 };

typedef struct rspan {
  int gpu, worker; /* worker: index on its GPU; -1 for device spans */
  int phase;       /* phase index, or SP_* */
  int k;
  int64_t call, part0;
  const char *name; /* device spans: interned */
  double t0, t1;    /* seconds from the replication's start */
  double cpu_s;     /* phase spans: the CPU seconds the phase used (par_cpu_seconds) */
} rspan;

typedef struct rspans {
  rspan *v;
  size_t n, cap;
} rspans;

/* A phase's duration, kept for the per-phase statistics of the window (which is known
 * only at the replication's end). */
typedef struct rdur {
  double t1, d;
  int phase;
} rdur;

typedef struct rcall {
  int gpu, worker, k;
  int64_t call, part0;
  double t_start, t_end;
  int has_mx;
  double mx_req, mx_acq, mx_rel;
} rcall;

enum { MX_NONE, MX_REQ, MX_HELD, MX_RELREQ, MX_RELEASED };

typedef struct rgpu {
  mfifo tickets;
  pthread_mutex_t held; /* the GPU's mutex: locked exactly over a region */
  /* runner_opts.rendezvous: the GPU's workers meet here before each call's GPU phases.
   * active: its workers still taking calls; arrived: those waiting; gen counts meetings. */
  pthread_mutex_t rmu;
  pthread_cond_t rcv;
  int active, arrived;
  unsigned gen;
} rgpu;

typedef struct rworker rworker;

struct mrun {
  const scenario *s;
  const runner_opts *o;
  const mexec_ops *ops;
  void *xst;
  int cuda;
  mtiming timing;
  int threads_all; /* threads of a cpu phase with threads: all (mexec_env) */
  int cores;       /* the cores the run may use (confine_cores), for the spans header */
  int np;
  char *in_region;
  int **succ;
  int *nsucc;

  int rep;
  int64_t warmup; /* the warm-up every replication's window uses: run.warmup, or with
                     run.warmup: auto MSER-5's choice on replication 0 (-1 until then) */
  double base; /* ps_now() at the replication's start */
  volatile int stop;
  pthread_mutex_t fail_mu;
  int failed;
  ps_err err;

  pthread_mutex_t qmu;
  int64_t next_part, total, ncalls, done_parts; /* done_parts: of this replication */
  double *arrive; /* arrivals: absolute arrival time of each partition */

  rgpu *gpus;
  rworker *w;
  int nw;

  pthread_mutex_t dmu; /* device spans and interned names */
  rspans dev;
  char **names;
  int nnames, capnames;
  int accept_dev; /* 0 while device spans are discarded (setup) */
  int cupti_flush;  /* PROVESIM_CUPTI_FLUSH: 0 none, 1 complete, 2 period */
  double dev_t1_max; /* the latest end among the device spans delivered (replication time) */

  /* A replication summarised as it runs (runner_fold.c), so that a run's memory does not
   * grow with its kernels. Owned by whoever folds: the folder thread during the
   * replication, the runner's thread after it. */
  int npre;         /* prefix values per time: runner__pre_* */
  double fold_h;    /* every span before fold_h is summarised */
  double *fold_at;  /* the prefix values at fold_h */
  rspans pend;      /* recorded, not yet summarised (t0 >= fold_h) */
  rspans carry;     /* summarised and written, but running past fold_h: the rest of them */
  rdur *durs;       /* phase durations of the replication, in the order summarised */
  size_t ndurs, capdurs;
  int64_t nphase_spans; /* phase spans summarised in this replication */
  int64_t late;         /* spans recorded after their time was summarised (0 by design) */
  ps_buf *spans_out;    /* the spans document being written (keep_spans), or NULL */
  int fold_failed;
  ps_err fold_err;
  pthread_t folder;
  pthread_mutex_t fold_mu;
  pthread_cond_t fold_cv;
  int folder_stop;
};

struct rworker {
  mrun *R;
  int idx, gpu, wig;
  void *xs;
  pthread_t th, holder, *pool;
  int npool;
  pthread_mutex_t mu;
  pthread_cond_t cv_co, cv_pool, cv_hold;
  int *q;
  int qh, qn, running, exiting, finished, ndone, region_left, failed;
  int *deps_left;
  char *started;
  int meet; /* runner_opts.rendezvous, this call: 0 not met yet, 1 meeting, 2 met */
  pthread_cond_t cv_meet;
  int mx;
  double mx_req, mx_acq, mx_rel, last_t1;
  int64_t call, part0;
  int k;
  rspans spans;
  rcall *calls; /* appended under mu */
  size_t ncalls, ccap;
  double open_t0; /* start of the call in progress (replication time), INFINITY between
                     calls; under R->qmu */
  double *pre;    /* R->npre prefix values at each summarised call's end */
  size_t nfold, precap; /* calls summarised */
};

/* ---- Vectors of doubles and their statistics ---- */

typedef struct dvec {
  double *v;
  size_t n, cap;
} dvec;

void runner__dvec_push(dvec *d, double x);
/* Exact order statistic (nearest rank, linear interpolation) of x[0..n-1], sorted; NaN
 * when n is 0. */
double runner__quant(const double *x, size_t n, double q);
double runner__mean_of(const dvec *d); /* NaN when empty */
double runner__q_of(dvec *d, double q); /* sorts d, then runner__quant */

/* ---- Folding (runner_fold.c) ---- */

/* Prefix values at a time t of the replication: per GPU g the length of its busy union
 * (kernels; GPU phases when timing is MT_PHASES) up to t at [3g], of its mutex-held union
 * at [3g + 1] and of their intersection at [3g + 2]; CPU core-seconds (phase time x
 * threads) up to t at [3 gpus]. A window's figures are differences of two of them. */
#define RUNNER_PRE_BUSY(g) (3 * (g))
#define RUNNER_PRE_HELD(g) (3 * (g) + 1)
#define RUNNER_PRE_BOTH(g) (3 * (g) + 2)
#define RUNNER_PRE_CPU(R) (3 * (R)->s->gpus)

/* Starts a replication's summary (before its workers start). */
void runner__fold_begin(mrun *R);
/* Summarises every span that starts before h (replication time; INFINITY at the end of
 * the replication, when nothing more is recorded): writes them to the spans document in
 * time order, adds them to the prefix values, and evaluates those at the end of every
 * call that ended by h. The caller guarantees that every span starting before h has been
 * recorded: no call in progress started before h and every kernel of the finished calls
 * has been delivered. PS_ERR when the spans cannot be written. */
int runner__fold(mrun *R, double h, ps_err *e);
/* Writes what the spans document holds to runner_opts.spans_file, when there is one. */
int runner__spans_drain(mrun *R, ps_err *e);
void runner__fold_free(mrun *R);
void runner__push(rspans *a, const rspan *s);
/* The folder thread of a replication (pthread start routine, arg: the mrun): folds every
 * half second until R->folder_stop. */
void *runner__folder_main(void *arg);
/* Records the run's first failure and stops it. */
static inline void runner__fail(mrun *r, const ps_err *e) {
  pthread_mutex_lock(&r->fail_mu);
  if (!r->failed) {
    r->failed = 1;
    r->err = *e;
  }
  r->stop = 1;
  pthread_mutex_unlock(&r->fail_mu);
}

/* ---- Metrics (runner_metrics.c) ---- */

/* The prefix values (runner__fold's) at a completion time t: NULL (all zero) when t <= 0,
 * else the end of a summarised call. */
const double *runner__pre_at(const mrun *R, double t);

/* Computes one replication's metrics from its calls and spans, pooling phase durations
 * into pd (np + 2 vectors: phases, mutex_wait, mutex_held); the window comes back in
 * *win_t0, *win_t1 (seconds from the replication's start). PS_EINPUT when the run
 * completed too few partitions for the window (win_check's message). */
int runner__rep_metrics(mrun *R, sim_metrics *m, dvec *pd, double *win_t0, double *win_t1, ps_err *e);

#endif
