/* The capacity search beneath `plan`: the cheapest configuration (GPUs, workers per GPU,
 * batch, mutex scope, CPU cores) whose simulation meets a throughput target and an
 * optional p99 latency limit. GPU counts are searched one level at a time, fewest first;
 * the candidates of a level run on the ordered farm (farm.h), one thread per simulation,
 * spread over MPI ranks under mpirun, and every list in the result is sorted into a total
 * order, so nothing depends on the job count or the ranks. */
#ifndef PROVESIM_PLAN_H
#define PROVESIM_PLAN_H

#include <stddef.h>

#include "util.h"
#include "model.h"

/* A mutex scope tried: a phase region, or none (from = to = -1). */
typedef struct plan_scope {
  const char *name; /* borrowed from the scenario */
  int from, to;
} plan_scope;

/* One configuration and what became of it. */
typedef struct plan_cfg {
  int gpus, workers, batch, scope, cores; /* scope: an index into plan_result.scopes */
  double mem;  /* host memory held, GiB: the phases' host_mem_gib x gpus x workers x batch */
  double gpu_mem; /* GPU memory per GPU, GiB, by the model's gpu_memory (model_gpu_gib); 0
                     without it */
  int gpu_over;   /* ruled out by GPU memory: gpu_mem over the scenario's gpu_mem_gib */
  double pph;  /* proofs per hour: simulated, or the bound that ruled it out (0: none) */
  double p99;  /* p99 latency, s: of proofs with arrivals, of partitions otherwise */
  double util; /* mean GPU utilization */
  int simulated, rc, meets;
  char limit[512]; /* what limits it: report_bottleneck's line, or the bound's reason */
} plan_cfg;

/* Progress of one GPU level on the caller's thread: done = 0 when the level starts,
 * 0 < done < n as candidates finish, done = n once when the level is finished. */
typedef void (*plan_progress_fn)(void *ctx, int gpus, size_t done, size_t n);

typedef struct plan_limits {
  double target_pph;    /* proofs per hour to reach, > 0 */
  int has_max;          /* a p99 latency limit of max_p99_s */
  double max_p99_s;
  int max_gpus;         /* GPU counts tried: 1..max_gpus (0 tries none) */
  int max_cores;        /* cores tried per configuration: 1..max_cores; 0: the scenario's
                           cores per GPU (rounded up) times the configuration's GPUs */
  int has_mem;          /* a host memory budget of max_mem_gib */
  double max_mem_gib;
  int max_workers;      /* workers per GPU tried: 1..max_workers, >= 1 */
  const int *batches;   /* batch sizes tried (borrowed), each >= 1 */
  int nbatches;         /* >= 1 */
  int jobs;             /* simulations at once; 0: one per core */
  plan_progress_fn progress; /* may be NULL */
  void *progress_ctx;
} plan_limits;

/* A configuration next to the answer, and how much is known of it. */
enum { PLAN_NONE = 0, PLAN_BOUND = 1, PLAN_SIMULATED = 2 };
typedef struct plan_near {
  int kind;     /* PLAN_NONE: nothing there; PLAN_BOUND: nothing worth simulating, cfg is
                   the one whose bound came closest; PLAN_SIMULATED: the best simulated */
  plan_cfg cfg;
} plan_near;

typedef struct plan_result {
  plan_scope *scopes;  /* the model's named scopes, then the scenario's own when it is none
                          or a {from, to} region; names borrowed from the scenario */
  int nscopes;
  int open;            /* the scenario has arrivals: each simulation runs at the target rate */
  int found;           /* a configuration meets the target */
  plan_cfg best;       /* the cheapest that does (when found) */
  int gpus_searched;   /* best.gpus when found, else max_gpus */
  int sims;            /* simulations of the search (fewer_cores's is not counted) */
  double wall_s;       /* time of the search */
  /* What stops the next cheaper configuration, when found: the best with one core fewer
   * (has_fewer_cores when best.cores > 1), and the closest with one GPU fewer (kind
   * PLAN_NONE when best.gpus is 1). When not found, closest is the best configuration of
   * the whole search. */
  int has_fewer_cores;
  plan_cfg fewer_cores;
  plan_near fewer_gpus;
  plan_near closest;
  /* Every candidate (workers x batches x scopes per GPU count searched) with its fewest
   * meeting cores, or the cap when none meets; sorted cheapest first. */
  plan_cfg *all;
  int nall;
  /* Every configuration simulated (including fewer_cores), sorted cheapest first,
   * duplicates dropped. */
  plan_cfg *log;
  int nlog;
  /* The configurations of log that ran and that no other beats on GPUs, cores, memory,
   * throughput and latency, in log order. */
  plan_cfg *frontier;
  int nfrontier;
} plan_result;

/* Searches for the cheapest configuration of s (borrowed; must outlive *out for the scope
 * names) within lim and within the GPU's memory (scn_gpu_mem_over, core/model.h): fewest GPUs, then
 * fewest cores, then least host memory, then fewer
 * workers, smaller batches, and the earlier scope. A closed backlog meets the target when
 * the simulated proofs per hour reach it within 0.1%; with arrivals, when the throughput
 * at the target rate is within 2% of it; with has_max, the p99 latency must also be within
 * the limit. Returns PS_OK with *out filled (free with plan_result_free), also when nothing
 * meets the target; PS_EINPUT with e filled when lim is out of range. */
int plan_search(const scenario *s, const plan_limits *lim, plan_result *out, ps_err *e);
/* Under mpirun every rank calls plan_search with the same s and lim (after farm_start);
 * ranks other than 0 only simulate candidates for rank 0, and return PS_OK with *out
 * empty. */


/* Frees what r holds; accepts a zeroed r. */
void plan_result_free(plan_result *r);

#endif
