/* The ordered farm beneath `sweep` and `plan`: items 0..n-1 (sweep points, plan
 * candidates) computed in parallel, each into bytes, and delivered on rank 0 in increasing
 * order, each as soon as it and every item before it are done. Items run on this
 * process's threads (par_for, one thread per item) and, in a build with PROVESIM_MPI
 * started by mpirun or srun, on every MPI rank: the t-th item to compute goes to rank
 * t mod ranks, each rank sends its results to rank 0 in its own increasing order, and
 * rank 0 merges them. An item's bytes depend only on the item, so what rank 0 receives
 * is the same whatever the number of threads and ranks. Memory is bounded: no thread
 * runs more than `window` items ahead of the oldest one not yet delivered. The MPI calls
 * live in farm_mpi.c; without PROVESIM_MPI, or outside a launcher, there is one rank. */
#ifndef PROVESIM_FARM_H
#define PROVESIM_FARM_H

#include <stddef.h>

#include "util.h"

/* Computes item i into out (empty on entry; the callee appends). Returns PS_OK, or an
 * error code with out holding the message. Called from any thread of any rank. */
typedef int (*farm_item_fn)(void *ctx, size_t i, ps_buf *out);

/* Rank 0 only, on the caller's thread, once per item in increasing i: rc is FARM_SKIPPED
 * for an item the caller marked skip (data NULL), PS_OK with the item's bytes, or the
 * item's error code with its message (data: "why"); rank is the rank that computed it.
 * Returns 0 to go on; anything else stops the deliveries (the run still drains every
 * rank) and farm_run returns PS_ERR. */
#define FARM_SKIPPED 1
typedef int (*farm_emit_fn)(void *ctx, size_t i, int rc, const char *data, size_t len, int rank);

typedef struct farm_opts {
  int jobs;                  /* threads per rank; 0: one per core */
  const unsigned char *skip; /* rank 0's flags, n of them (may be NULL): items not computed */
  size_t window;             /* items a rank may finish ahead of delivery; 0: 32 per thread */
  int ready;                 /* this rank's setup: PS_OK, or its error code ... */
  const char *ready_msg;     /* ... and message; a rank that is not ready computes nothing */
} farm_opts;

/* Runs the farm; every rank calls it once per farm, with rank 0's n authoritative.
 * When rank 0 is not ready, nothing runs and every rank returns rank 0's code (rank 0
 * prints its own message). A rank that is not ready has each of its items delivered as a
 * failure with its message ("rank R (HOST): why"). Returns PS_OK once every item was
 * delivered (item failures are the caller's to count), PS_ERR when emit stopped it, or
 * rank 0's setup code. */
int farm_run(size_t n, const farm_opts *o, farm_item_fn fn, void *ctx, farm_emit_fn emit, void *ectx);

/* Starts MPI when built with it and started by a launcher (mpirun, srun; Open MPI sets
 * OMPI_COMM_WORLD_SIZE, Slurm and MPICH PMI_SIZE or PMIX_RANK), once; returns the number
 * of ranks (1 otherwise). A command calls it once its arguments are read, and from then
 * on every rank must reach the same farm_run, farm_agree, farm_bcast and farm_end calls. */
int farm_start(void);

/* This process's rank and the number of ranks (0 and 1 without MPI, and before
 * farm_start). */
int farm_rank(void);
int farm_size(void);

/* Every rank passes its setup code and message; returns on every rank the first
 * failure's code, rank 0's first, else the lowest failing rank's (PS_OK when all are
 * ready), with e filled on rank 0 ("rank R (HOST): why" for another rank's). */
int farm_agree(int rc, const char *msg, ps_err *e);

/* Copies rank 0's n bytes at buf to every rank (nothing without MPI). */
void farm_bcast(void *buf, size_t n);

/* The end of a command run with farms: returns rank 0's exit code on every rank, so
 * mpirun exits with it and no rank leaves while rank 0 still writes. */
int farm_end(int code);

/* ---------------------------------------------------------------- farm_mpi.c */

/* Rank 0 gathers each rank's n bytes at mine into all (ranks x n bytes). */
void farm__gather(const void *mine, size_t n, void *all);
/* A rank other than 0 sends n bytes to rank 0; rank 0 receives the next message of rank
 * `from` into out (replacing its contents). Messages of one rank arrive in order. */
void farm__send(const void *data, size_t n);
void farm__recv(int from, ps_buf *out);
void farm__bcast(void *buf, size_t n);

#endif
