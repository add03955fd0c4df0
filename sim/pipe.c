/* The discrete-event engine (sim/pipe.h). One replication is a single-threaded event loop
 * over a priority queue ordered by (time, insertion sequence), so ties break the same way on
 * every run (a cpu class's next finish waits beside the queue, in the same order).
 * Stations model resources: a FIFO station (exclusive GPU, PCIe link, CPU with
 * cpu_sharing: fifo) serves jobs in arrival order while it has free capacity; a
 * processor-sharing station (CPU cores by default, GPU with gpu_sharing: shared) gives every
 * job the share min(1, capacity/demand) of the cores it wants, and the job runs at the speed
 * its phase's scaling law gives for the cores it gets (model.h, phase_speed; without a law
 * the speed is the share itself). A job is one phase of one worker's current call. The
 * cpu pool keeps its jobs in classes whose members run at one speed (ps.h), so a change of
 * the share costs O(classes + log n), not O(jobs).
 * The file is one thing, one replication: the event loop, the stations and the calls share
 * one replication state that no other module should see (the event queue is evq.h and
 * bq.h, the cpu classes ps.h). Replications in threads, the warm-up's pilot and the order
 * of their spans are replicate.c's. */
#include "pipe.h"
#include "pipe_int.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evq.h"
#include "mser.h"
#include "ps.h"
#include "rng.h"
#include "seed.h"
#include "stats.h"
#include "stats_int.h"
#include "window.h"

/* ---------------------------------------------------------------- state */

enum { ST_FIFO, ST_PS };
/* MX_PRE: held, its region's phases waiting for the acquire's overhead (model.mutex_overhead) */
enum { MX_NONE, MX_WAIT, MX_PRE, MX_HELD, MX_DONE };
/* The engine's own events (ver with EV_TYPE_BIT; id the worker, 0 for an arrival). */
#define EVK_ARRIVAL EV_TYPE_BIT
#define EVK_MX_GO (EV_TYPE_BIT | 1u)
#define EVK_MX_RELEASE (EV_TYPE_BIT | 2u)
#define EVK_MX_HANDOVER (EV_TYPE_BIT | 3u)

typedef struct station {
  int gpu_of;        /* the GPU whose compute this station is, or -1 */
  int cap;           /* cores (cpu) or 1 */
  int used;          /* FIFO: capacity in use; PS: demand (sum of threads) */
  int nrun;          /* jobs in service */
  /* FIFO: waiting jobs (ring buffer). PS: running jobs (array, swap-remove); in the cpu
   * station only the host threads of gpu phases on a shared GPU (the others are in classes). */
  int qhead, qlen, qcap;
  uint8_t kind;      /* ST_FIFO or ST_PS */
  uint8_t host;      /* GPU: the running phase's host threads are in a cpu class (gpu_state.hcls) */
  uint32_t *q;
  union {            /* a station is PS or FIFO for the whole run; a FIFO's rate is never read */
    double rate;     /* PS: current rate per job */
    double run_busy; /* FIFO GPU: the running phase's busy share (model phase.busy) */
  };
} station;

/* A GPU: its station and the integrals a phase's start or end brings up to date in the
 * first cache line (the struct is aligned to one), the idle time and the mutex in the
 * second, its host threads' clock and its PCIe link after them. In a large farm an
 * event's first touch of each line is a first-level cache miss. */
typedef struct gpu_state {
  station gpu;
  /* GPU-idle accounting: integrals over time of the kernels' time (busy), of (gpu idle and
   * mutex held) and (gpu idle and mutex free); t_upd and busy in the first line, which is
   * all that a phase's start or end reads while the GPU runs kernels (busy share 1). */
  double t_upd, busy;
  double idle_held, idle_free, idle_nowork;
  int mutex_holder;  /* worker index, -1 when free */
  int idle_workers;  /* workers of this GPU without a call */
  /* While the running (exclusive) phase has host threads in a cpu class (gpu.host), its
   * kernel time is busy times the work the class's clock gives (hcls: the class, or -1; hv:
   * the clock at t_upd; hb: the phase's busy), so a change of the cores' share touches no
   * GPU. */
  int hcls;
  /* The workers waiting for the mutex, in FIFO order: a list through worker.mq_next,
   * from mqhead to mqtail (-1 when empty). */
  int mqhead, mqtail;
  double hv, hb;
  station pcie;
} __attribute__((aligned(64))) gpu_state;

_Static_assert(sizeof(station) == 48 && offsetof(gpu_state, gpu) == 0 && offsetof(gpu_state, idle_held) == 64 &&
                   sizeof(gpu_state) == 192,
               "a GPU's phases read one line while it runs, its mutex two");

/* A worker: 64 bytes, aligned to a line (its index on its GPU is its index / G). With
 * at most WK_PHASES phases (r->wdeps) the call's dependency counts and the phases waiting
 * for the mutex are here too, so that in a large farm an event whose phase starts its
 * successors at once touches the worker's line and no job's. */
enum { WK_PHASES = 8 };

typedef struct worker {
  int64_t *parts;    /* batch entries, then their arrival (or dequeue) times: parts_arr */
  double call_t0;
  double mx_req, mx_acq;
  int gpu;
  int k;             /* partitions in the current call */
  int phases_left, region_left;
  int mq_next;       /* the next worker waiting for the GPU's mutex, or -1 */
  uint8_t mx;        /* MX_* */
  uint8_t wait;      /* wdeps: the phases waiting for the mutex (bit p) */
  uint8_t deps[WK_PHASES]; /* wdeps: each phase's predecessors not yet done in the call */
} worker;

_Static_assert(sizeof(worker) == 64, "a worker is one cache line");

/* A job: one phase of one worker's current call, in 32 bytes (two jobs a cache line; a
 * worker's jobs side by side). An event finds its worker and phase from the job's number
 * and passes the work drawn by value, so the job's line is read only where a job waits
 * (a FIFO station's queue), is rescheduled (a shared GPU: resched) or has host threads,
 * or with more than WK_PHASES phases: in a large farm every line an event touches first
 * is a cache miss.
 * What depends on the phase alone is in pphase; what only jobs scheduled alone need is
 * in rep_state's job_* arrays. */
typedef struct pjob {
  double rem;        /* work left (at job_tupd, for jobs scheduled alone) */
  station *st;       /* the job's station (NULL for resource none); fixed, as workers are pinned */
  uint32_t ver;      /* bumped when the job is rescheduled (only on a shared GPU: resched) */
  int deps_left;     /* !wdeps: predecessors of the phase not yet done in the current call
                      * (back to deps0 as it reaches 0, ready for the worker's next call) */
  uint8_t wait_mx;   /* !wdeps: ready, waiting for the mutex */
} pjob;

_Static_assert(sizeof(pjob) == 32, "two jobs a cache line");

/* What a job's phase decides. */
typedef struct pphase {
  int thr;           /* cores the phase's jobs hold at their station */
  int hthr, hfrac;   /* host threads of a gpu phase (its shadows' cores): whole threads, and
                      * the fraction beyond them in 64ths of a thread */
  int cls;           /* the cpu class of its jobs, or -1 */
  uint8_t law;       /* the phase has a scaling law */
  uint8_t host;      /* a gpu phase with host threads in the cpu station */
  uint8_t plain;     /* one draw of time a partition: no fixed part, no batch scale */
  uint8_t unit;      /* its jobs run at speed 1 at a share of 1 (job_speed's 1 x 1): no host
                      * threads, no scaling law, no cpu contention */
  uint8_t region;    /* the phase is in the mutex's region (mutex_from..mutex_to) */
  uint8_t cpu_ps;    /* a cpu phase whose jobs join the cpu pool's classes (cpu_sharing: ps) */
  uint8_t gpu_fifo;  /* a gpu phase on an exclusive GPU, in a model without host threads
                      * (its station is the first member of its gpu_state) */
  double busy;       /* the phase's busy share (model phase.busy) */
  const phase *ph;   /* the model's phase */
  int nsucc;         /* its successors (succ, nsucc) */
  const int *succ;
  /* Its jobs' station is st0 + the worker's GPU x gstride bytes (cpu: the cpu, stride 0;
   * gpu and pcie: GPU 0's, a gpu_state apart; none: NULL): no branch on the resource. */
  uintptr_t st0;
  size_t gstride;
} pphase;

typedef struct rep_state {
  const scenario *s;
  const model *m;
  int np, nw, G, W;
  /* A job's worker is job / np, computed as the high half of job * np_m, np_m = ceil(2^64 /
   * np), which is exact for every 32-bit job (Lemire, Kaser and Kurz, "Faster remainder by
   * direct computation", 2019); with np = 1, np_m = 0 and np_1 passes the job through. An
   * event so finds its worker and phase without reading its job's line. */
  uint64_t np_m;
  uint32_t np_1;
  int resched;       /* jobs can be rescheduled (a shared GPU), so events can turn stale */
  int first_come;    /* a shared GPU whose first-started phase feels an interference of its
                        own (model.interference_first, differing from model.interference) */
  uint64_t gpu_seq;  /* first_come: the count of shared-GPU jobs started so far */
  const double *pairs; /* a shared GPU under a model with gpu_pairs: model.pair_rate */
  int wdeps;         /* the dependency counts and mutex waits are in the workers (worker) */
  int64_t *w_call;   /* each worker's current call number (spans only) */
  int contended;     /* model.cpu_contention > 0 */
  /* The cpu pool is never oversubscribed (every worker's every cpu phase and host threads
   * at once fit in the cores) and has no contention model: its share stays 1. */
  int cpu_roomy;
  gsl_rng *rng;
  evq q;
  double now;
  int64_t events;

  station cpu;
  int cpu_h64;       /* the running gpu phases' host threads may be fractions of a thread
                      * (phase.host_threads): their whole threads are in cpu.used and what is
                      * left, 0 to 63 64ths, here, so the pool's demand is cpu.used +
                      * cpu_h64 / 64 (exact in a double); 0 throughout with whole threads */
  double cpu_t_upd, cpu_used_int; /* the integral of the cores in use (min(demand, cores) for PS) */
  int cpu_ncpu;      /* jobs in service at the cpu that are cpu phases (not host threads) */
  int cpu_m;         /* the other cpu phases each ran beside at the last rate */
  gpu_state *gpus;
  void *gpus_mem;    /* gpus' allocation (aligned to a cache line in it) */
  worker *w;
  void *w_mem;       /* w's allocation (w is aligned to a cache line in it) */

  /* Per job (worker * np + phase): what an event of the job reads (pjob), aligned to a
   * cache line; by phase, what the phase decides. */
  pjob *job;
  void *job_mem;     /* job's allocation (job is aligned to a cache line in it) */
  pphase *pp;
  double *job_t0;    /* start of the job's current phase (spans only) */
  /* Jobs scheduled alone (a gpu phase with host threads, a shared GPU's phases): when rem
   * was last brought up to date, the current speed (work per second); gpu jobs: the kernel
   * share of the phase's wall time now (its busy share, lower while its host threads are
   * squeezed). */
  double *job_tupd, *job_rate, *job_busy;
  int *job_pos;      /* PS: index in the station's array */
  uint64_t *job_seq; /* first_come: the order in which the shared GPU's jobs started */
  /* Host threads of gpu phases (phase.host_threads): while gpu job j runs, its shadow
   * j + nj holds host_threads cores in the cpu station; job_hshare[j] is the share of
   * them it gets and job_gshare[j] its share of the GPU. */
  uint32_t nj;
  double *job_hshare, *job_gshare;
  /* The cpu pool's classes (ps.h): class 0 holds the running cpu phases without a scaling
   * law (speed: their share), class 1 + p the running jobs of phase p when their speed is a
   * function of the share of their own: a law, or a gpu phase's host threads on an
   * exclusive GPU. pphase.cls is a job's class, or -1 when it is scheduled alone (a shared
   * GPU's phase with host threads, whose speed depends on two shares). */
  ps_pool pool;
  /* What every call starts from: each phase's count of predecessors (deps0), the phases in
   * the mutex's region (nregion) and those without predecessors, in order (roots). */
  int *deps0, nregion, *roots, nroots;
  int **succ;        /* successors of each phase */
  int *nsucc;

  /* Work queue: partitions [next_part, arrived) are waiting. */
  int64_t next_part, arrived, total, completed;
  int64_t call_seq;
  /* Arrivals. */
  int ppp;
  double *proof_t;   /* ring of proof arrival times, indexed by proof id - proof_base */
  int *proof_left;
  int64_t proof_base, proof_cap, nproofs;
  int *idle;         /* FIFO of idle workers */
  int idle_head, idle_len;

  /* Window. */
  win win;          /* the measurement window (window.h) */
  int wopen;        /* win_is_open(&win), kept up to date at its changes */
  double *snap_busy, *snap_held, *snap_free, *snap_nowork; /* per GPU at window start */
  double snap_cpu_used;
  double *end_busy, *end_held, *end_free, *end_nowork; /* per GPU at window end */
  double end_cpu_used;
  hist *h_lat, *h_proof, *h_wait, *h_call, *h_held;

  sim_span_fn on_span;
  void *span_ctx;
  int rep;
  struct mser *ms;   /* a pilot run for run.warmup: auto collects its series here */
  int64_t ms_upto;   /* the completions the series takes (partitions - cooldown) */
} rep_state;

static const char *res_names[] = {"cpu", "gpu", "pcie", "none"};

/* ---------------------------------------------------------------- accounting */

/* Whether the cpu pool's demand (its jobs' threads and host threads, cpu.used + cpu_h64 /
 * 64, cpu_h64 < 64) exceeds its cores; the demand; the cores it uses, min(demand, cores).
 * With whole threads (cpu_h64 0) these are the integer tests of cpu.used alone. */
static inline int cpu_over(const rep_state *r) {
  return r->cpu.used > r->cpu.cap || __builtin_expect(r->cpu.used == r->cpu.cap && r->cpu_h64 != 0, 0);
}
static inline double cpu_demand(const rep_state *r) { return r->cpu.used + r->cpu_h64 * (1.0 / 64); }
static inline double cpu_in_use(const rep_state *r) {
  if (r->cpu.used >= r->cpu.cap) return r->cpu.cap;
  return __builtin_expect(r->cpu_h64 != 0, 0) ? cpu_demand(r) : r->cpu.used;
}

/* The host threads of a gpu phase join (sign 1) or leave (-1) the cpu pool's demand: whole
 * threads hthr, and hfrac 64ths carried into cpu.used as they make whole threads. */
static inline void cpu_host_demand(rep_state *r, const pphase *pp, int sign) {
  r->cpu.used += sign * pp->hthr;
  r->cpu_h64 += sign * pp->hfrac;
  if (r->cpu_h64 >= 64) r->cpu_h64 -= 64, r->cpu.used++;
  else if (r->cpu_h64 < 0) r->cpu_h64 += 64, r->cpu.used--;
}

/* The cpu station's integral of the cores in use up to now (the other stations keep none:
 * a GPU's accounting is gpu_advance's). */
static inline __attribute__((always_inline)) void cpu_advance(rep_state *r, double now) {
  station *st = &r->cpu;
  double dt = now - r->cpu_t_upd;
  if (dt > 0) r->cpu_used_int += dt * (st->kind == ST_PS ? cpu_in_use(r) : st->used);
  r->cpu_t_upd = now;
}

/* cpu_advance for the processor-sharing pool (cpu_sharing: ps). */
static inline void cpu_advance_ps(rep_state *r) {
  double dt = r->now - r->cpu_t_upd;
  if (dt > 0) r->cpu_used_int += dt * cpu_in_use(r);
  r->cpu_t_upd = r->now;
}

/* Adds a stretch of a GPU's time: busy, and idle counted held when a worker holds the
 * mutex, else free (and no-work when a worker waits for work). */
static inline void gpu_account(gpu_state *g, double busy, double idle) {
  g->busy += busy;
  if (idle > 0) {
    if (g->mutex_holder >= 0)
      g->idle_held += idle;
    else {
      g->idle_free += idle;
      if (g->idle_workers > 0) g->idle_nowork += idle;
    }
  }
}

/* The GPU executes kernels for a share f of the time a GPU phase runs (phase.busy; with
 * a shared GPU, the largest share among the running phases; with host threads squeezed,
 * busy times the phase's speed: hcls); the rest of that time is idle, counted like any
 * idle time: held when a worker holds the mutex, else free. */
static inline void gpu_advance(const rep_state *r, gpu_state *g, double now) {
  double dt = now - g->t_upd;
  if (dt > 0) {
    double busy, idle;
    if (g->gpu.host) {
      double v = ps_cls_v(&r->pool.cls[g->hcls], now);
      busy = g->hb * (v - g->hv);
      if (busy > dt) busy = dt;
      idle = dt - busy;
      g->hv = v;
    } else {
      double f = 0;
      if (g->gpu.nrun > 0) {
        if (g->gpu.kind == ST_FIFO) {
          f = g->gpu.run_busy;
        } else {
          for (int i = 0; i < g->gpu.nrun; i++)
            if (r->job_busy[g->gpu.q[i]] > f) f = r->job_busy[g->gpu.q[i]];
        }
      }
      busy = dt * f;
      idle = dt * (1 - f);
    }
    gpu_account(g, busy, idle);
  }
  g->t_upd = now;
}

/* gpu_advance for an exclusive GPU whose phases have no host threads (pphase.gpu_fifo):
 * its non-host, FIFO case, the same arithmetic. */
static inline void gpu_advance_fifo(gpu_state *g, double now) {
  double dt = now - g->t_upd;
  if (dt > 0) {
    double f = g->gpu.nrun > 0 ? g->gpu.run_busy : 0;
    gpu_account(g, dt * f, dt * (1 - f));
  }
  g->t_upd = now;
}

/* Worker w's arrival (or dequeue) time of each partition of its call, after its batch
 * entries in the same allocation. */
static inline double *parts_arr(const rep_state *r, const worker *w) { return (double *)(w->parts + r->s->batch); }

static void emit(rep_state *r, int wi, const char *name, const char *res, int threads, double t0, double t1) {
  if (!r->on_span) return;
  worker *w = &r->w[wi];
  sim_span sp = {.rep = r->rep, .gpu = w->gpu, .worker = wi / r->G, .call = r->w_call[wi], .partitions = w->parts,
                 .npartitions = w->k, .phase = name, .resource = res, .threads = threads, .t0 = t0, .t1 = t1};
  r->on_span(r->span_ctx, &sp);
}

/* ---------------------------------------------------------------- stations */

/* The version an event of job `job` carries: always 0 where no job is rescheduled. */
static inline uint32_t job_ver(const rep_state *r, uint32_t job) { return r->resched ? r->job[job].ver : 0; }

static station *job_station_init(rep_state *r, uint32_t job) {
  int p = (int)(job % (uint32_t)r->np);
  worker *w = &r->w[job / (uint32_t)r->np];
  switch (r->m->phases[p].resource) {
  case RES_CPU: return &r->cpu;
  case RES_GPU: return &r->gpus[w->gpu].gpu;
  case RES_PCIE: return &r->gpus[w->gpu].pcie;
  case RES_NONE: return NULL;
  }
  return NULL;
}

static inline int job_w(const rep_state *r, uint32_t job) {
  return (int)((uint32_t)(((unsigned __int128)r->np_m * job) >> 64) + (job & r->np_1));
}

static inline int job_p(const rep_state *r, uint32_t job) {
  return (int)(job - (uint32_t)job_w(r, job) * (uint32_t)r->np);
}

static inline station *job_station(rep_state *r, uint32_t job) { return r->job[job].st; }

/* job_station without reading the job: the station of phase p of worker w. */
static inline station *station_of(const rep_state *r, const worker *w, int p) {
  const pphase *pp = &r->pp[p];
  return (station *)(pp->st0 + (size_t)w->gpu * pp->gstride);
}

static void station_init(station *st, int kind, int cap) {
  memset(st, 0, sizeof *st);
  st->kind = kind;
  st->cap = cap;
  st->rate = 1;
  st->gpu_of = -1;
}

static void q_push(uint32_t **q, int *head, int *len, int *cap, uint32_t v) {
  if (*len == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    uint32_t *nq = xmalloc((size_t)nc * sizeof *nq);
    for (int i = 0; i < *len; i++) nq[i] = (*q)[(*head + i) % *cap];
    free(*q);
    *q = nq;
    *head = 0;
    *cap = nc;
  }
  (*q)[(*head + *len) % *cap] = v;
  (*len)++;
}

static uint32_t q_pop(uint32_t **q, int *head, int *len, int *cap) {
  uint32_t v = (*q)[*head];
  *head = (*head + 1) % *cap;
  (*len)--;
  return v;
}

/* Before a station changes, bring the GPU accounting up to date if it is a GPU. */
static inline void touch(rep_state *r, station *st) {
  if (st->gpu_of >= 0)
    gpu_advance(r, &r->gpus[st->gpu_of], r->now);
  else if (st == &r->cpu)
    cpu_advance(r, r->now);
}

/* A gpu phase's speed factor when its host threads get the share h of their cores: the
 * kernel part (busy) runs as before, the host part (1 - busy) stretches by 1/h. */
static inline double host_stretch(double busy, double h) { return h >= 1 ? 1 : 1 / (busy + (1 - busy) / h); }

static inline double host_factor(const rep_state *r, uint32_t job) {
  return host_stretch(r->m->phases[job_p(r, job)].busy, r->job_hshare[job]);
}

/* A cpu phase's speed factor beside m other cpu phases (model.cpu_contention). */
static inline double contention(const rep_state *r, int m) {
  return m > 0 ? 1 / (1 + r->m->cpu_contention * m) : 1;
}

/* The speed of a job that gets the share sh of the cores (or GPU) it wants. */
static inline double job_speed(rep_state *r, uint32_t job, double sh) {
  int p = job_p(r, job);
  if (r->pp[p].host) {
    r->job_gshare[job] = sh;
    return sh * host_factor(r, job);
  }
  double cf = r->m->phases[p].resource == RES_CPU ? contention(r, r->cpu_m) : 1;
  if (!r->pp[p].law) return sh * cf;
  return phase_speed(&r->m->phases[p], sh * r->pp[p].thr) * cf;
}

/* The speed of the members of cpu class c at the cpu pool's current share and contention
 * (the same expressions as job_speed's, so that both give the same numbers). */
static inline double cls_speed(const rep_state *r, int c) {
  double sh = r->cpu.rate;
  if (c == 0) return sh * contention(r, r->cpu_m);
  const phase *ph = &r->m->phases[c - 1];
  if (ph->resource == RES_GPU) return host_stretch(ph->busy, sh); /* on an exclusive GPU */
  return phase_speed(ph, sh * ph->threads) * contention(r, r->cpu_m);
}

/* Schedule class c's next finish (its older event turns stale). A class whose last member
 * has just left is scheduled too, from its queue's stale first entry (the queue keeps its
 * storage): it is not in pool.act, where the loop looks, so nothing reads it, and a test
 * for it would be a branch as hard to predict as a coin toss. The sequence number it takes
 * leaves a gap, which changes no comparison. */
static inline __attribute__((always_inline)) void cls_schedule(rep_state *r, int c) {
  ps_cls *k = &r->pool.cls[c];
  k->due = ps_cls_due(k, r->now);
  k->seq = r->q.seq++; /* the order of a push of the engine's queue */
}

/* Job `job` joins its cpu class c with `work` to do; returns 1 when it is the class's first
 * to finish. */
static int cls_join(rep_state *r, uint32_t job, int c, double work) {
  ps_cls *k = &r->pool.cls[c];
  if (k->h.n > 0 && ps_cls_v(k, r->now) > PS_CLS_REBASE) {
    double s = ps_cls_rebase(k, r->now);
    for (int g = 0; g < r->G; g++) /* GPUs reading the clock (host threads) */
      if (r->gpus[g].hcls == c) r->gpus[g].hv -= s;
  }
  return ps_pool_join(&r->pool, c, r->now, job, work, k->h.n == 0 ? cls_speed(r, c) : k->speed);
}

/* Job `job`, the first to finish of its class c, leaves it. */
static void cls_leave(rep_state *r, uint32_t job, int c) {
  uint32_t first = ps_pool_leave(&r->pool, c);
  PS_ASSERT(first == job);
}

static void host_join(rep_state *r, uint32_t job);

/* Job `job` begins at FIFO station st with `rem` to do. */
static inline __attribute__((always_inline)) void fifo_begin(rep_state *r, station *st, uint32_t job, const pphase *pp, double rem) {
  /* Only a phase with host threads changes its busy share, rate and rem as it runs. */
  if (st->gpu_of >= 0) st->run_busy = pp->host ? r->job_busy[job] : pp->busy;
  st->used += pp->thr;
  st->nrun++;
  if (r->on_span) r->job_t0[job] = r->now;
  if (pp->unit) { /* rem / 1 is rem */
    evq_push(&r->q, r->now + rem, job, job_ver(r, job));
    return;
  }
  if (pp->host) r->job[job].rem = rem; /* host threads: rem changes as it runs */
  if (pp->cls >= 0) { /* host threads in a cpu class: the class schedules its end */
    host_join(r, job);
    return;
  }
  double rate = job_speed(r, job, 1);
  evq_push(&r->q, r->now + ps_div_speed(rem, rate), job, job_ver(r, job));
  if (pp->host) {
    r->job_tupd[job] = r->now;
    r->job_rate[job] = rate;
    host_join(r, job);
  }
}

/* The host threads of running gpu job `job` (on a shared GPU) now get the share h of their
 * cores: reschedule it, and update the kernel share its GPU accounts. */
static void host_update(rep_state *r, uint32_t job, double h) {
  station *gs = r->job[job].st;
  gpu_advance(r, &r->gpus[gs->gpu_of], r->now);
  r->job[job].rem -= r->job_rate[job] * (r->now - r->job_tupd[job]);
  if (r->job[job].rem < 0) r->job[job].rem = 0;
  r->job_tupd[job] = r->now;
  PS_ASSERT(r->resched);
  r->job[job].ver++;
  r->job_hshare[job] = h;
  double hf = host_factor(r, job);
  r->job_rate[job] = r->job_gshare[job] * hf;
  r->job_busy[job] = r->m->phases[job_p(r, job)].busy * hf;
  if (gs->kind == ST_FIFO) gs->run_busy = r->job_busy[job];
  evq_push(&r->q, r->now + ps_div_speed(r->job[job].rem, r->job_rate[job]), job, r->job[job].ver);
}

/* The cpu pool's share or contention may have changed: every class whose speed changed
 * gets it from now on and is rescheduled, as is class `force` (whose first member changed),
 * and the host threads scheduled alone get the new share; returns 1 when the share or the
 * contention changed. O(classes + those alone), not O(jobs): a class's members keep their
 * order. */
static int cpu_rerate_slow(rep_state *r, int force) {
  station *st = &r->cpu;
  double nr = !cpu_over(r) ? 1.0 : (double)st->cap / cpu_demand(r);
  int m = r->cpu_ncpu > 1 && r->m->cpu_contention > 0 ? r->cpu_ncpu - 1 : 0;
  int changed = nr != st->rate || m != r->cpu_m;
  st->rate = nr;
  r->cpu_m = m;
  if (changed)
    for (int i = 0; i < r->pool.nact; i++) {
      int c = r->pool.act[i];
      double sp = cls_speed(r, c);
      if (sp == r->pool.cls[c].speed && c != force) continue;
      ps_cls_set_speed(&r->pool.cls[c], r->now, sp);
      cls_schedule(r, c);
      if (c == force) force = -1;
    }
  if (force >= 0) cls_schedule(r, force);
  if (changed)
    for (int i = 0; i < st->qlen; i++) host_update(r, st->q[i] - r->nj, nr);
  return changed;
}

/* cpu_rerate_slow, with its commonest case inline: cores not oversubscribed before or now
 * and no contention model, so nothing changed and only class `force` is rescheduled. */
static inline int cpu_rerate(rep_state *r, int force) {
  const station *st = &r->cpu;
  if (r->cpu_roomy || (!cpu_over(r) && st->rate == 1.0 && !r->contended)) {
    if (force >= 0) cls_schedule(r, force);
    return 0;
  }
  return cpu_rerate_slow(r, force);
}

/* PS on a shared GPU: reschedule every running job after the share changed; returns 1 when
 * it did. n phases at once run at 1 / (1 + s (n - 1)) each (model.interference; 1/n by
 * default). With first_come, the phase that started first among them runs at
 * 1 / (1 + s1 (n - 1)) (model.interference_first) and every job is rescheduled at each
 * change, since which one started first may change with n the same. With pairs
 * (model.pair_rate), a job beside exactly one other runs at the rate its pair of phases is
 * given, where it is, and every job is rescheduled at each change (with interference 0 the
 * share alone would not move). A GPU's station holds a few jobs (its workers' phases). */
static double ps_share(const station *st, double s) {
  return st->used <= st->cap ? 1.0 : s != 1 ? 1.0 / (1.0 + s * (st->used - 1)) : (double)st->cap / (double)st->used;
}

static int ps_rerate(rep_state *r, station *st) {
  double nr = ps_share(st, r->m->interference), nf = nr;
  uint32_t first = UINT32_MAX;
  if (r->first_come) {
    nf = ps_share(st, r->m->interference_first);
    for (int i = 0; i < st->qlen; i++)
      if (first == UINT32_MAX || r->job_seq[st->q[i]] < r->job_seq[first]) first = st->q[i];
  } else if (nr == st->rate && !r->pairs) {
    return 0;
  }
  PS_ASSERT(r->resched);
  int two = r->pairs && st->qlen == 2;
  for (int i = 0; i < st->qlen; i++) {
    uint32_t j = st->q[i];
    r->job[j].rem -= r->job_rate[j] * (r->now - r->job_tupd[j]);
    if (r->job[j].rem < 0) r->job[j].rem = 0;
    r->job_tupd[j] = r->now;
    r->job[j].ver++;
    double sh = j == first ? nf : nr;
    if (two) {
      double pr = r->pairs[job_p(r, j) * r->np + job_p(r, st->q[1 - i])];
      if (pr > 0) sh = pr;
    }
    r->job_rate[j] = job_speed(r, j, sh);
    evq_push(&r->q, r->now + ps_div_speed(r->job[j].rem, r->job_rate[j]), j, r->job[j].ver);
  }
  st->rate = nr;
  return 1;
}

static void ps_add(station *st, int *pos, uint32_t job) {
  if (st->qlen == st->qcap) {
    st->qcap = st->qcap ? 2 * st->qcap : 16;
    st->q = xrealloc(st->q, (size_t)st->qcap * sizeof *st->q);
  }
  pos[job] = st->qlen;
  st->q[st->qlen++] = job;
}

static void ps_remove(station *st, int *pos, uint32_t job) {
  uint32_t last = st->q[--st->qlen];
  st->q[pos[job]] = last;
  pos[last] = pos[job];
}

/* Job `job` arrives at station st with `rem` to do. */
static void station_submit(rep_state *r, station *st, uint32_t job, const pphase *pp, double rem) {
  if (pp->cpu_ps) { /* the job joins its class, then the pool is re-rated */
    cpu_advance_ps(r);
    st->used += pp->thr;
    st->nrun++;
    if (r->on_span) r->job_t0[job] = r->now;
    r->cpu_ncpu++;
    if (r->pool.cls[pp->cls].h.n == 0) { /* the job is its class's first (cls_join's case) */
      ps_pool_join_empty(&r->pool, pp->cls, r->now, job, rem, cls_speed(r, pp->cls));
      cpu_rerate(r, pp->cls);
      return;
    }
    cpu_rerate(r, cls_join(r, job, pp->cls, rem) ? pp->cls : -1);
    return;
  }
  if (pp->gpu_fifo)
    gpu_advance_fifo((gpu_state *)st, r->now);
  else
    touch(r, st);
  if (st->kind == ST_FIFO) {
    if (st->qlen == 0 && st->used + pp->thr <= st->cap) {
      fifo_begin(r, st, job, pp, rem);
    } else {
      r->job[job].rem = rem;
      q_push(&st->q, &st->qhead, &st->qlen, &st->qcap, job);
    }
    return;
  }
  /* A shared GPU (the cpu pool's jobs took pp->cpu_ps above): the job joins at the
   * current rate, then everyone is re-rated. */
  st->used += pp->thr;
  st->nrun++;
  if (r->on_span) r->job_t0[job] = r->now;
  r->job[job].rem = rem;
  r->job_tupd[job] = r->now;
  if (r->first_come) r->job_seq[job] = r->gpu_seq++;
  ps_add(st, r->job_pos, job);
  r->job_rate[job] = job_speed(r, job, st->rate);
  if (!ps_rerate(r, st)) evq_push(&r->q, r->now + ps_div_speed(r->job[job].rem, r->job_rate[job]), job, r->job[job].ver);
  if (pp->host) host_join(r, job);
}

/* Running gpu job `job` starts (join) or stops (leave) holding its host threads in the
 * cpu station (processor sharing; under cpu_sharing: fifo host threads are not modelled).
 * On an exclusive GPU the job is in its phase's class, and its GPU's kernel time follows
 * the class's clock; on a shared GPU its shadow job + nj is scheduled alone. */
static void host_join(rep_state *r, uint32_t job) {
  station *st = &r->cpu;
  uint32_t sh = job + r->nj;
  touch(r, st);
  const pphase *pp = &r->pp[job_p(r, job)];
  cpu_host_demand(r, pp, 1);
  st->nrun++;
  if (pp->cls >= 0) {
    gpu_state *g = &r->gpus[r->job[job].st->gpu_of];
    gpu_advance(r, g, r->now);
    int first = cls_join(r, job, pp->cls, r->job[job].rem);
    g->hcls = pp->cls;
    g->gpu.host = 1;
    g->hv = ps_cls_v(&r->pool.cls[g->hcls], r->now);
    g->hb = r->m->phases[job_p(r, job)].busy;
    cpu_rerate(r, first ? pp->cls : -1);
    return;
  }
  ps_add(st, r->job_pos, sh);
  if (!cpu_rerate(r, -1)) host_update(r, job, st->rate);
}

static void host_leave(rep_state *r, uint32_t job) {
  station *st = &r->cpu;
  uint32_t sh = job + r->nj;
  touch(r, st);
  const pphase *pp = &r->pp[job_p(r, job)];
  cpu_host_demand(r, pp, -1);
  st->nrun--;
  r->job_hshare[job] = 1;
  if (pp->cls >= 0) {
    gpu_state *g = &r->gpus[r->job[job].st->gpu_of];
    gpu_advance(r, g, r->now);
    g->hcls = -1;
    g->gpu.host = 0;
    cls_leave(r, job, pp->cls);
    cpu_rerate(r, pp->cls);
    return;
  }
  ps_remove(st, r->job_pos, sh);
  cpu_rerate(r, -1);
}

static void station_done(rep_state *r, station *st, uint32_t job, const pphase *pp) {
  if (pp->cpu_ps) {
    cpu_advance_ps(r);
    st->used -= pp->thr;
    st->nrun--;
    r->cpu_ncpu--;
    cls_leave(r, job, pp->cls);
    if (r->cpu_roomy) { /* cpu_rerate's case, without scheduling a class left empty */
      if (r->pool.cls[pp->cls].h.n > 0) cls_schedule(r, pp->cls);
      return;
    }
    cpu_rerate(r, pp->cls);
    return;
  }
  if (pp->gpu_fifo)
    gpu_advance_fifo((gpu_state *)st, r->now);
  else
    touch(r, st);
  st->used -= pp->thr;
  st->nrun--;
  if (st->kind == ST_FIFO) {
    while (st->qlen > 0) {
      uint32_t head = st->q[st->qhead];
      const pphase *hp = &r->pp[job_p(r, head)];
      if (st->used + hp->thr > st->cap) break;
      q_pop(&st->q, &st->qhead, &st->qlen, &st->qcap);
      fifo_begin(r, st, head, hp, r->job[head].rem);
    }
    return;
  }
  ps_remove(st, r->job_pos, job); /* a shared GPU (the cpu pool's jobs took pp->cpu_ps) */
  ps_rerate(r, st);
}

/* ---------------------------------------------------------------- calls */

static void start_call(rep_state *r, int wi);
static void phase_ready(rep_state *r, int wi, int p);

static void start_phase(rep_state *r, int wi, int p) {
  uint32_t job = (uint32_t)(wi * r->np + p);
  const worker *w = &r->w[wi];
  const pphase *pp = &r->pp[p];
  const phase *ph = pp->ph;
  /* phase_call_draw's sum for a call of one partition, 0 + the draw (the engine's
   * generator is rng_mt19937: dist_draw_mt). */
  double rem = pp->plain && w->k == 1 ? 0.0 + dist_draw_mt(&ph->time, r->rng) : phase_call_draw(ph, w->k, r->rng);
  station *st = station_of(r, w, p);
  if (!st) {
    if (r->on_span) r->job_t0[job] = r->now;
    evq_push(&r->q, r->now + rem, job, job_ver(r, job));
  } else {
    station_submit(r, st, job, pp, rem);
  }
}

/* The mutex's region opens to its holder: the phases waiting for it start. */
static void mutex_go(rep_state *r, int wi) {
  worker *w = &r->w[wi];
  w->mx = MX_HELD;
  if (r->wdeps) {
    /* The region's waiting phases in order, the lowest bit first (a phase's start sets no
     * bit). */
    while (w->wait) {
      int p = __builtin_ctz(w->wait);
      w->wait &= (uint8_t)(w->wait - 1);
      start_phase(r, wi, p);
    }
    return;
  }
  for (int p = r->s->mutex_from; p <= r->s->mutex_to; p++) { /* the region's phases */
    pjob *j = &r->job[wi * r->np + p];
    if (!j->wait_mx) continue;
    j->wait_mx = 0;
    start_phase(r, wi, p);
  }
}

static void mutex_acquire(rep_state *r, int wi) {
  worker *w = &r->w[wi];
  gpu_state *g = &r->gpus[w->gpu];
  gpu_advance(r, g, r->now);
  g->mutex_holder = wi;
  w->mx_acq = r->now;
  emit(r, wi, "mutex_wait", "none", 0, w->mx_req, r->now);
  if (r->wopen) hist__add(r->h_wait, r->now - w->mx_req);
  if (r->m->mutex_acquire_s > 0) { /* the holder's launch: the region opens later */
    w->mx = MX_PRE;
    evq_push(&r->q, r->now + r->m->mutex_acquire_s, (uint32_t)wi, EVK_MX_GO);
    return;
  }
  mutex_go(r, wi);
}

static void mutex_release(rep_state *r, int wi) {
  worker *w = &r->w[wi];
  gpu_state *g = &r->gpus[w->gpu];
  emit(r, wi, "mutex_held", "none", 0, w->mx_acq, r->now);
  if (r->wopen) hist__add(r->h_held, r->now - w->mx_acq);
  gpu_advance(r, g, r->now);
  g->mutex_holder = -1;
  w->mx = MX_DONE;
  if (g->mqhead >= 0) {
    int next = g->mqhead;
    g->mqhead = r->w[next].mq_next;
    if (g->mqhead < 0) g->mqtail = -1;
    if (r->m->mutex_handover_s > 0) { /* the waiter wakes first; the mutex is its meanwhile */
      g->mutex_holder = next;
      evq_push(&r->q, r->now + r->m->mutex_handover_s, (uint32_t)next, EVK_MX_HANDOVER);
      return;
    }
    mutex_acquire(r, next);
  }
}

static inline __attribute__((always_inline)) void phase_ready(rep_state *r, int wi, int p) {
  worker *w = &r->w[wi];
  if (!r->pp[p].region) {
    start_phase(r, wi, p);
    return;
  }
  if (w->mx == MX_HELD) {
    start_phase(r, wi, p);
    return;
  }
  if (r->wdeps)
    w->wait |= (uint8_t)(1u << p);
  else
    r->job[wi * r->np + p].wait_mx = 1;
  if (w->mx == MX_NONE) {
    gpu_state *g = &r->gpus[w->gpu];
    w->mx = MX_WAIT;
    w->mx_req = r->now;
    if (g->mutex_holder < 0 && g->mqhead < 0) {
      mutex_acquire(r, wi);
    } else {
      w->mq_next = -1;
      if (g->mqtail >= 0)
        r->w[g->mqtail].mq_next = wi;
      else
        g->mqhead = wi;
      g->mqtail = wi;
    }
  }
}

/* The window opens at the completion of partition warmup: snapshot the integrals. */
static void window_open(rep_state *r) {
  cpu_advance(r, r->now);
  r->snap_cpu_used = r->cpu_used_int;
  for (int g = 0; g < r->G; g++) {
    gpu_advance(r, &r->gpus[g], r->now);
    r->snap_busy[g] = r->gpus[g].busy;
    r->snap_held[g] = r->gpus[g].idle_held;
    r->snap_free[g] = r->gpus[g].idle_free;
    r->snap_nowork[g] = r->gpus[g].idle_nowork;
  }
}

/* The window ends at the completion of partition end_at: freeze the integrals. */
static void window_close(rep_state *r) {
  cpu_advance(r, r->now);
  r->end_cpu_used = r->cpu_used_int;
  for (int g = 0; g < r->G; g++) {
    gpu_advance(r, &r->gpus[g], r->now);
    r->end_busy[g] = r->gpus[g].busy;
    r->end_held[g] = r->gpus[g].idle_held;
    r->end_free[g] = r->gpus[g].idle_free;
    r->end_nowork[g] = r->gpus[g].idle_nowork;
  }
}

static void proof_partition_done(rep_state *r, int64_t part) {
  int64_t pf = part / r->ppp;
  int64_t i = pf % r->proof_cap;
  if (--r->proof_left[i] == 0 && r->wopen) hist__add(r->h_proof, r->now - r->proof_t[i]);
  /* Retire completed proofs at the front, so the ring holds only proofs in flight. */
  while (r->proof_base < r->nproofs && r->proof_left[r->proof_base % r->proof_cap] == 0) r->proof_base++;
}

/* A worker of GPU g starts (+1) or stops (-1) waiting for work. */
static void worker_idle(rep_state *r, int wi, int delta) {
  gpu_state *g = &r->gpus[r->w[wi].gpu];
  gpu_advance(r, g, r->now);
  g->idle_workers += delta;
}

static void call_end(rep_state *r, int wi) {
  worker *w = &r->w[wi];
  if (r->wopen) hist__add(r->h_call, r->now - w->call_t0);
  for (int i = 0; i < w->k; i++) {
    r->completed++;
    if (r->wopen) hist__add(r->h_lat, r->now - parts_arr(r, w)[i]);
    if (r->ms && r->completed <= r->ms_upto) mser_add(r->ms, r->now - parts_arr(r, w)[i]);
    if (r->s->arrivals != ARR_CLOSED) proof_partition_done(r, w->parts[i]);
    int f = win_complete(&r->win, r->now, 1);
    if (f) r->wopen = win_is_open(&r->win);
    if (f & WIN_OPENED) window_open(r);
    if (f & WIN_CLOSED) window_close(r);
  }
  if (r->next_part < r->arrived) {
    start_call(r, wi);
  } else {
    worker_idle(r, wi, 1);
    r->idle[(r->idle_head + r->idle_len++) % r->nw] = wi;
  }
}

static inline __attribute__((always_inline)) void phase_end(rep_state *r, uint32_t job) {
  int wi = job_w(r, job), p = (int)(job - (uint32_t)wi * (uint32_t)r->np);
  worker *w = &r->w[wi];
  station *st = station_of(r, w, p);
  const pphase *pp = &r->pp[p];
  if (pp->host) host_leave(r, job);
  if (st) station_done(r, st, job, pp);
  if (r->on_span) {
    const phase *ph = pp->ph;
    emit(r, wi, ph->name, res_names[ph->resource], ph->resource == RES_CPU ? ph->threads : 0,
         r->job_t0[job], r->now);
  }
  w->phases_left--;
  if (pp->region && --w->region_left == 0) {
    if (r->m->mutex_release_s > 0) { /* released later; the call ends no earlier */
      w->phases_left++;
      evq_push(&r->q, r->now + r->m->mutex_release_s, (uint32_t)wi, EVK_MX_RELEASE);
    } else {
      mutex_release(r, wi);
    }
  }
  /* The successors' counts, each back to deps0 as it reaches 0. */
  const int *succ = pp->succ;
  int ns = pp->nsucc;
  if (r->wdeps) {
    for (int i = 0; i < ns; i++) {
      int sp = succ[i];
      if (--w->deps[sp] != 0) continue;
      w->deps[sp] = (uint8_t)r->deps0[sp];
      phase_ready(r, wi, sp);
    }
  } else {
    for (int i = 0; i < ns; i++) {
      int sp = succ[i];
      pjob *sj = &r->job[wi * r->np + sp];
      if (--sj->deps_left != 0) continue;
      sj->deps_left = r->deps0[sp];
      phase_ready(r, wi, sp);
    }
  }
  if (w->phases_left == 0) call_end(r, wi);
}

static double arrival_time_of(rep_state *r, int64_t part) {
  if (r->s->arrivals == ARR_CLOSED) return r->now;
  return r->proof_t[(part / r->ppp) % r->proof_cap];
}

static void start_call(rep_state *r, int wi) {
  worker *w = &r->w[wi];
  int64_t avail = r->arrived - r->next_part;
  int k = avail < r->s->batch ? (int)avail : r->s->batch;
  PS_ASSERT(k >= 1);
  w->k = k;
  if (k == 1) { /* batch 1: the loop's setup costs more than its one step */
    w->parts[0] = r->next_part++;
    parts_arr(r, w)[0] = arrival_time_of(r, w->parts[0]);
  } else {
    for (int i = 0; i < k; i++) {
      w->parts[i] = r->next_part++;
      parts_arr(r, w)[i] = arrival_time_of(r, w->parts[i]);
    }
  }
  if (r->on_span) r->w_call[wi] = r->call_seq;
  r->call_seq++;
  w->call_t0 = r->now;
  w->phases_left = r->np;
  w->region_left = r->nregion;
  w->mx = MX_NONE;
  for (int i = 0; i < r->nroots; i++) phase_ready(r, wi, r->roots[i]);
}

static void arrival(rep_state *r) {
  /* One proof of ppp partitions (the last one may be short). */
  int64_t pf = r->nproofs++;
  int64_t n = r->total - r->arrived < r->ppp ? r->total - r->arrived : r->ppp;
  if (r->nproofs - r->proof_base > r->proof_cap) {
    /* Grow the ring of proofs in flight, [proof_base, nproofs). */
    int64_t nc = r->proof_cap * 2;
    double *nt = xmalloc((size_t)nc * sizeof *nt);
    int *nl = xmalloc((size_t)nc * sizeof *nl);
    for (int64_t i = r->proof_base; i < pf; i++) {
      nt[i % nc] = r->proof_t[i % r->proof_cap];
      nl[i % nc] = r->proof_left[i % r->proof_cap];
    }
    free(r->proof_t);
    free(r->proof_left);
    r->proof_t = nt;
    r->proof_left = nl;
    r->proof_cap = nc;
  }
  r->proof_t[pf % r->proof_cap] = r->now;
  r->proof_left[pf % r->proof_cap] = (int)n;
  r->arrived += n;
  while (r->idle_len > 0 && r->next_part < r->arrived) {
    int wi = r->idle[r->idle_head];
    r->idle_head = (r->idle_head + 1) % r->nw;
    r->idle_len--;
    worker_idle(r, wi, -1);
    start_call(r, wi);
  }
  if (r->arrived < r->total) {
    if (r->s->arrivals == ARR_TRACE) {
      /* Replayed: the next proof's time from the trace (the loader keeps enough). */
      PS_ASSERT(r->nproofs < r->s->ntrace);
      evq_push(&r->q, r->s->trace_t[r->nproofs], 0, EVK_ARRIVAL);
      return;
    }
    double gap = 3600.0 / r->s->proofs_per_hour;
    if (r->s->arrivals == ARR_POISSON) gap = -gap * log1p(-rng_uniform(r->rng));
    evq_push(&r->q, r->now + gap, 0, EVK_ARRIVAL);
  }
}

/* ---------------------------------------------------------------- one replication */

/* n zeroed elements of size bytes starting at a cache line (64 bytes); *mem gets what to
 * free. */
static void *calloc_lines(size_t n, size_t size, void **mem) {
  *mem = xcalloc(n * size + 64, 1);
  return (void *)(((uintptr_t)*mem + 63) & ~(uintptr_t)63);
}

static void rep_free(rep_state *r) {
  if (r->rng) gsl_rng_free(r->rng);
  evq_free(&r->q);
  free(r->cpu.q);
  if (r->gpus)
    for (int g = 0; g < r->G; g++) {
      free(r->gpus[g].gpu.q);
      free(r->gpus[g].pcie.q);
    }
  free(r->gpus_mem);
  if (r->w)
    for (int i = 0; i < r->nw; i++) {
      free(r->w[i].parts);
    }
  free(r->w_mem);
  free(r->job_t0);
  free(r->w_call);
  free(r->job_mem);
  free(r->job_tupd);
  free(r->job_rate);
  free(r->job_busy);
  free(r->job_seq);
  free(r->job_pos);
  free(r->pp);
  free(r->job_hshare);
  free(r->job_gshare);
  ps_pool_free(&r->pool);
  free(r->deps0);
  free(r->roots);
  if (r->succ)
    for (int p = 0; p < r->np; p++) free(r->succ[p]);
  free(r->succ);
  free(r->nsucc);
  free(r->proof_t);
  free(r->proof_left);
  free(r->idle);
  free(r->snap_busy);
  free(r->snap_held);
  free(r->snap_free);
  free(r->snap_nowork);
  free(r->end_nowork);
  free(r->end_busy);
  free(r->end_held);
  free(r->end_free);
  hist_free(r->h_lat);
  hist_free(r->h_proof);
  hist_free(r->h_wait);
  hist_free(r->h_call);
  hist_free(r->h_held);
}

/* One replication (pipe_int.h). */
int sim__run_rep(const scenario *s, int rep, sim_span_fn on_span, void *ctx, sim_metrics *out, mser *ms,
                 ps_err *e) {
  const model *m = s->model;
  dist_gsl_init();
  if (s->cpu_fifo)
    for (int p = 0; p < m->nphases; p++)
      if (m->phases[p].resource == RES_CPU && m->phases[p].threads > s->cpu_cores)
        return ps_fail(e, PS_EINPUT,
                       "phase %s wants %d threads but system.cpu_cores is %d: with cpu_sharing: fifo it "
                       "could never start (raise cpu_cores, lower threads, or use cpu_sharing: ps)",
                       m->phases[p].name, m->phases[p].threads, s->cpu_cores);
  PS_ASSERT(s->gpus >= 1 && s->gpus <= PS_MAX_GPUS); /* the loader checks it */

  rep_state R = {0}, *r = &R;
  r->s = s;
  r->m = m;
  r->np = m->nphases;
  r->G = s->gpus;
  r->W = s->workers_per_gpu;
  r->nw = r->G * r->W;
  r->contended = m->cpu_contention > 0;
  r->resched = s->gpu_shared != 0;
  r->first_come = s->gpu_shared && m->has_first && m->interference_first != m->interference;
  r->pairs = s->gpu_shared ? m->pair_rate : NULL;
  r->np_m = r->np > 1 ? UINT64_MAX / (uint64_t)r->np + 1 : 0;
  r->np_1 = r->np > 1 ? 0 : UINT32_MAX;
  r->rep = rep;
  r->on_span = on_span;
  r->span_ctx = ctx;
  r->ms = ms;
  r->ms_upto = s->partitions - s->cooldown;
  r->rng = gsl_rng_alloc(rng_mt19937); /* gsl_rng_mt19937's numbers, drawn inline (rng.h) */
  gsl_rng_set(r->rng, (unsigned long)ps_seed_mix(s->seed, rep));

  station_init(&r->cpu, s->cpu_fifo ? ST_FIFO : ST_PS, s->cpu_cores);
  r->gpus = calloc_lines((size_t)r->G, sizeof *r->gpus, &r->gpus_mem);
  for (int g = 0; g < r->G; g++) {
    station_init(&r->gpus[g].gpu, s->gpu_shared ? ST_PS : ST_FIFO, 1);
    r->gpus[g].gpu.gpu_of = g;
    station_init(&r->gpus[g].pcie, ST_FIFO, 1);
    r->gpus[g].mutex_holder = -1;
    r->gpus[g].mqhead = r->gpus[g].mqtail = -1;
    r->gpus[g].hcls = -1;
  }
  r->w = calloc_lines((size_t)r->nw, sizeof *r->w, &r->w_mem);
  for (int i = 0; i < r->nw; i++) {
    /* Worker i is the (i / G)-th worker of GPU i % G, so the first G workers start on
     * distinct GPUs. */
    r->w[i].gpu = i % r->G;
    r->w[i].parts = xmalloc((size_t)s->batch * (sizeof(int64_t) + sizeof(double)));
  }
  size_t nj = (size_t)r->nw * (size_t)r->np;
  PS_ASSERT(nj <= UINT32_MAX / 2); /* job ids and their shadows' (job + nj) are 32-bit */
  r->job_t0 = xcalloc(nj, sizeof(double));
  r->w_call = xcalloc((size_t)r->nw, sizeof *r->w_call);
  r->wdeps = r->np <= WK_PHASES;
  for (int p = 0; p < r->np; p++)
    if (m->phases[p].nafter > UINT8_MAX) r->wdeps = 0;
  r->job = calloc_lines(nj, sizeof(pjob), &r->job_mem);
  r->job_tupd = xcalloc(nj, sizeof(double));
  r->job_rate = xcalloc(nj, sizeof(double));
  r->job_busy = xcalloc(nj, sizeof(double));
  r->job_seq = r->first_come ? xcalloc(nj, sizeof(uint64_t)) : NULL;
  /* job_pos also holds the shadows (host threads) at nj..2nj-1. */
  r->nj = (uint32_t)nj;
  r->job_pos = xcalloc(2 * nj, sizeof(int));
  r->job_hshare = xcalloc(nj, sizeof(double));
  r->job_gshare = xcalloc(nj, sizeof(double));
  ps_pool_init(&r->pool, 1 + r->np);
  r->pp = xcalloc((size_t)r->np, sizeof *r->pp);
  for (int p = 0; p < r->np; p++) {
    const phase *ph = &m->phases[p];
    pphase *q = &r->pp[p];
    q->thr = ph->resource == RES_CPU ? ph->threads : 1;
    long h64 = lround(ph->host_threads * 64);
    q->hthr = (int)(h64 / 64), q->hfrac = (int)(h64 % 64);
    q->law = ph->resource == RES_CPU && ph->law != SCALE_NONE;
    q->host = ph->resource == RES_GPU && h64 > 0 && !s->cpu_fifo;
    q->plain = !ph->has_fixed && ph->nscale == 0;
    q->unit = !q->host && !q->law && (ph->resource != RES_CPU || !r->contended);
    q->busy = ph->busy;
    if (!s->cpu_fifo && ph->resource == RES_CPU)
      q->cls = q->law ? 1 + p : 0;
    else
      q->cls = q->host && !s->gpu_shared ? 1 + p : -1;
    q->st0 = ph->resource == RES_CPU    ? (uintptr_t)&r->cpu
             : ph->resource == RES_GPU  ? (uintptr_t)&r->gpus[0].gpu
             : ph->resource == RES_PCIE ? (uintptr_t)&r->gpus[0].pcie
                                        : 0;
    q->gstride = ph->resource == RES_GPU || ph->resource == RES_PCIE ? sizeof(gpu_state) : 0;
  }
  for (size_t j = 0; j < nj; j++) {
    const phase *ph = &m->phases[j % (size_t)r->np];
    r->job[j].deps_left = m->phases[j % (size_t)r->np].nafter;
    r->job[j].st = job_station_init(r, (uint32_t)j);
    r->job_busy[j] = ph->resource == RES_GPU ? ph->busy : 1;
    r->job_hshare[j] = r->job_gshare[j] = 1;
  }
  if (r->wdeps)
    for (int i = 0; i < r->nw; i++)
      for (int p = 0; p < r->np; p++) r->w[i].deps[p] = (uint8_t)m->phases[p].nafter;
  if (s->mutex_from >= 0)
    for (int p = s->mutex_from; p <= s->mutex_to; p++) r->pp[p].region = 1;
  r->deps0 = xcalloc((size_t)r->np, sizeof *r->deps0);
  r->roots = xcalloc((size_t)r->np, sizeof *r->roots);
  for (int p = 0; p < r->np; p++) {
    r->deps0[p] = m->phases[p].nafter;
    r->nregion += r->pp[p].region;
    if (m->phases[p].nafter == 0) r->roots[r->nroots++] = p;
  }
  r->succ = xcalloc((size_t)r->np, sizeof *r->succ);
  r->nsucc = xcalloc((size_t)r->np, sizeof *r->nsucc);
  for (int p = 0; p < r->np; p++)
    for (int i = 0; i < m->phases[p].nafter; i++) {
      int a = m->phases[p].after[i];
      r->succ[a] = xrealloc(r->succ[a], (size_t)(r->nsucc[a] + 1) * sizeof(int));
      r->succ[a][r->nsucc[a]++] = p;
    }
  int anyhost = 0; /* a gpu phase has host threads in the cpu station */
  for (int p = 0; p < r->np; p++) anyhost |= r->pp[p].host;
  int64_t most = 0; /* the cores every worker's every phase would hold at once, in 64ths */
  for (int p = 0; p < r->np; p++)
    most += (m->phases[p].resource == RES_CPU ? 64 * (int64_t)r->pp[p].thr : 0) +
            (r->pp[p].host ? 64 * (int64_t)r->pp[p].hthr + r->pp[p].hfrac : 0);
  r->cpu_roomy = !s->cpu_fifo && !r->contended && most * r->nw <= 64 * (int64_t)s->cpu_cores;
  for (int p = 0; p < r->np; p++) {
    r->pp[p].cpu_ps = m->phases[p].resource == RES_CPU && !s->cpu_fifo;
    r->pp[p].gpu_fifo = m->phases[p].resource == RES_GPU && !s->gpu_shared && !anyhost;
    r->pp[p].ph = &m->phases[p];
    r->pp[p].nsucc = r->nsucc[p];
    r->pp[p].succ = r->succ[p];
  }
  r->idle = xmalloc((size_t)r->nw * sizeof *r->idle);
  r->snap_busy = xcalloc((size_t)r->G, sizeof(double));
  r->snap_held = xcalloc((size_t)r->G, sizeof(double));
  r->snap_free = xcalloc((size_t)r->G, sizeof(double));
  r->snap_nowork = xcalloc((size_t)r->G, sizeof(double));
  r->end_nowork = xcalloc((size_t)r->G, sizeof(double));
  r->end_busy = xcalloc((size_t)r->G, sizeof(double));
  r->end_held = xcalloc((size_t)r->G, sizeof(double));
  r->end_free = xcalloc((size_t)r->G, sizeof(double));
  r->h_lat = hist_new();
  r->h_proof = hist_new();
  r->h_wait = hist_new();
  r->h_call = hist_new();
  r->h_held = hist_new();
  r->total = s->partitions;
  win_init(&r->win, s->partitions, s->warmup, s->cooldown);
  r->wopen = win_is_open(&r->win);
  r->ppp = s->partitions_per_proof > 0 ? s->partitions_per_proof : 1;
  r->proof_cap = 64;
  r->proof_t = xmalloc((size_t)r->proof_cap * sizeof(double));
  r->proof_left = xmalloc((size_t)r->proof_cap * sizeof(int));

  if (s->arrivals == ARR_CLOSED) {
    r->arrived = r->total;
    for (int i = 0; i < r->nw; i++) {
      if (r->next_part < r->arrived) {
        start_call(r, i);
      } else {
        worker_idle(r, i, 1);
        r->idle[(r->idle_head + r->idle_len++) % r->nw] = i;
      }
    }
  } else {
    for (int i = 0; i < r->nw; i++) {
      worker_idle(r, i, 1);
      r->idle[r->idle_len++] = i;
    }
    /* The first proof arrives at t = 0, or at the trace's first time. */
    evq_push(&r->q, s->arrivals == ARR_TRACE ? s->trace_t[0] : 0.0, 0, EVK_ARRIVAL);
  }

  for (;;) {
    /* The next event: the queue's first, or a cpu class's next finish (kept out of the
     * queue: a class is rescheduled at nearly every event of a busy pool, and its few
     * entries would otherwise pile up there as stale ones), by (time, sequence). */
    const ps_cls *k = NULL;
    if (r->pool.nact == 1) { /* the commonest case: one class with members */
      k = &r->pool.cls[r->pool.act[0]];
    } else {
      for (int i = 0; i < r->pool.nact; i++) {
        const ps_cls *c = &r->pool.cls[r->pool.act[i]];
        if (!k || c->due < k->due || (c->due == k->due && c->seq < k->seq)) k = c;
      }
    }
    uint32_t job;
    if (k && (r->q.n == 0 || (((evq_u128)evq_tkey(k->due) << 64) | k->seq) < evq__key(r->q.min))) {
      r->now = k->due;
      job = ps_cls_first(k);
    } else {
      if (r->q.n == 0) break;
      ev x = evq_pop(&r->q);
      if (x.ver & EV_TYPE_BIT) {
        r->now = evq_tval(x.tk);
        r->events++;
        if (x.ver == EVK_ARRIVAL) {
          arrival(r);
        } else if (x.ver == EVK_MX_GO) {
          mutex_go(r, (int)x.id);
        } else if (x.ver == EVK_MX_HANDOVER) {
          mutex_acquire(r, (int)x.id);
        } else { /* EVK_MX_RELEASE */
          mutex_release(r, (int)x.id);
          if (--r->w[x.id].phases_left == 0) call_end(r, (int)x.id);
        }
        continue;
      }
      if (x.ver != job_ver(r, x.id)) continue; /* stale: rescheduled by a rate change */
      r->now = evq_tval(x.tk);
      job = x.id;
    }
    r->events++;
    phase_end(r, job); /* one call site: phase_end is inlined here */
  }
  PS_ASSERT(r->completed == r->total && !isnan(r->win.t1));

  if (win_check(&r->win, NULL, e) != PS_OK) {
    rep_free(r);
    return PS_EINPUT;
  }
  double wlen = win_length(&r->win);
  memset(out, 0, sizeof *out);
  out->ngpus = r->G;
  out->gpu_util = xcalloc((size_t)r->G, sizeof(double));
  double held = 0, fre = 0, nw = 0, um = 0;
  for (int g = 0; g < r->G; g++) {
    out->gpu_util[g] = (r->end_busy[g] - r->snap_busy[g]) / wlen;
    um += out->gpu_util[g];
    held += (r->end_held[g] - r->snap_held[g]) / wlen;
    fre += (r->end_free[g] - r->snap_free[g]) / wlen;
    nw += (r->end_nowork[g] - r->snap_nowork[g]) / wlen;
  }
  out->gpu_util_mean = um / r->G;
  out->idle_mutex_cpu = held / r->G;
  out->idle_no_holder = fre / r->G;
  out->idle_no_work = nw / r->G;
  out->cpu_util = (r->end_cpu_used - r->snap_cpu_used) / ((double)s->cpu_cores * wlen);
  out->window_s = wlen;
  out->completed = r->win.end_at - r->win.warmup;
  out->throughput_pps = (double)out->completed / wlen;
  out->lat_mean = hist_mean(r->h_lat);
  out->lat_p50 = hist_quantile(r->h_lat, 0.50);
  out->lat_p95 = hist_quantile(r->h_lat, 0.95);
  out->lat_p99 = hist_quantile(r->h_lat, 0.99);
  out->mutex_wait_mean = s->mutex_from >= 0 ? hist_mean(r->h_wait) : 0;
  out->mutex_wait_p99 = s->mutex_from >= 0 ? hist_quantile(r->h_wait, 0.99) : 0;
  out->mutex_held_mean = s->mutex_from >= 0 ? hist_mean(r->h_held) : 0;
  out->call_mean = hist_mean(r->h_call);
  out->call_p99 = hist_quantile(r->h_call, 0.99);
  if (s->arrivals != ARR_CLOSED && hist_count(r->h_proof) > 0) {
    out->has_proofs = 1;
    out->proof_lat_mean = hist_mean(r->h_proof);
    out->proof_lat_p50 = hist_quantile(r->h_proof, 0.50);
    out->proof_lat_p95 = hist_quantile(r->h_proof, 0.95);
    out->proof_lat_p99 = hist_quantile(r->h_proof, 0.99);
  }
  out->events = r->events;
  rep_free(r);
  return PS_OK;
}
