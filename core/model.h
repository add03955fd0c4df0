/* The in-memory form of a pipeline model and of a scenario (shared/DESIGN.md, "Files").
 * The loader (scn.c) builds these from YAML after checking every key; the engine
 * (pipe.c) and the prover's scenario runner read them. Plain structs: the loader owns
 * the allocations and scn_free releases them. */
#ifndef PROVESIM_MODEL_H
#define PROVESIM_MODEL_H

#include <stdint.h>

#include "dist.h"

typedef enum res_kind { RES_CPU, RES_GPU, RES_PCIE, RES_NONE } res_kind;

typedef struct phase {
  char *name;
  res_kind resource;
  int threads;           /* cores wanted (cpu); 1 otherwise. Default 1. */
  dist time;             /* seconds per partition */
  int has_fixed;
  dist fixed;            /* optional per-call part, added once per call */
  double *scale;         /* optional batch multipliers of one draw for k=1..nscale */
  int nscale;
  int *after;            /* indices into model.phases; empty = at call start */
  int nafter;
  double host_mem_gib;   /* host memory held while the call is in flight (plan); default 0 */
  double busy;           /* gpu phases: share of the phase's time the GPU executes kernels
                            (the rest: host steps, copies, syncs inside it); default 1 */
} phase;

typedef struct scope {
  char *name;
  int from, to;          /* indices into model.phases, from <= to (list order) */
} scope;

typedef struct model {
  char *name;
  char *source;          /* may be NULL */
  char *path;            /* file it came from, or NULL when inline */
  phase *phases;
  int nphases;
  scope *scopes;
  int nscopes;
} model;

typedef enum arrival_kind { ARR_CLOSED, ARR_POISSON, ARR_FIXED } arrival_kind;

typedef struct scenario {
  char *name;
  char *description;     /* may be NULL */
  char *path;            /* the scenario file */
  model *model;          /* owned */

  /* system */
  int gpus;              /* >= 1, default 1 */
  int workers_per_gpu;   /* >= 1, default 1 */
  int cpu_cores;         /* >= 1, default 32 */
  int batch;             /* >= 1, default 1 */
  char *mutex_name;      /* "call", "kernels", "none", "custom" ({from,to}) */
  int mutex_from, mutex_to; /* region in model.phases list order; -1,-1 for none */
  int gpu_shared;        /* gpu_sharing: shared */
  int cpu_fifo;          /* cpu_sharing: fifo */

  /* workload */
  int64_t partitions;    /* partitions to complete (closed backlog), or to arrive */
  arrival_kind arrivals;
  double proofs_per_hour;
  int partitions_per_proof; /* default 1 */

  /* run */
  int64_t warmup;        /* default 0; < partitions */
  int64_t cooldown;      /* default 0: the window ends at the completion of partition
                            number partitions - cooldown (the last, by default); leaving
                            the drain of a closed backlog out of the statistics */
  int replications;      /* >= 1, default 1 */
  uint64_t seed;         /* default 1 */

  /* prover: (read by `measure`; ignored by the simulator) */
  char *prover_circuit;      /* may be NULL */
  int64_t prover_constraints; /* 0 when absent */
} scenario;

/* The batching rule (shared/DESIGN.md, "Batch scaling"), in one place for the simulator,
 * the synthetic executor of `measure` and the analytic models: a call of k partitions
 * takes the fixed part plus k draws of time, or, when the phase has batch.scale, the fixed
 * part plus scale[k-1] times one draw (beyond the list, the last multiplier grown in
 * proportion to k). */
double phase_call_draw(const phase *ph, int k, gsl_rng *r);
double phase_call_mean(const phase *ph, int k);

#endif
