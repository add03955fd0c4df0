/* The one parallel-for of provesim. Simulation replications, sweep points, and the
 * prover's CPU kernels all split their work with it.
 *
 * Failure policy: par_for never fails. When a thread cannot be started (pthread_create
 * returns an error: thread limit, memory), the threads that did start and the caller
 * share the work, down to the caller alone. So a result never depends on how many
 * threads ran, only the time does. */
#ifndef PROVESIM_PAR_H
#define PROVESIM_PAR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Online processors (at least 1). */
int ps_ncores(void);

/* Processes [lo, hi) of the range; called from any of the threads. */
typedef void (*par_range_fn)(void *ctx, size_t lo, size_t hi);
/* Progress: called from the caller's thread only, after each of its chunks, with the
 * number of items done by all threads so far. */
typedef void (*par_tick_fn)(void *ctx, size_t done);

/* Runs fn over [0, n) in chunks of `grain` items (0 means 1), handed out in increasing
 * order to up to `threads` threads (0: one per core; at most 256), the caller's thread
 * being one of them. Returns when every chunk is done. tick may be NULL. */
void par_for(size_t n, size_t grain, int threads, par_range_fn fn, void *ctx, par_tick_fn tick, void *tick_ctx);

/* CPU time, in seconds, of the calling thread (CLOCK_THREAD_CPUTIME_ID) plus that of the
 * helper threads its par_for calls ran (each helper's own CPU time, added when it is
 * joined) and of what par_cpu_credit added: what a piece of work on this thread cost the
 * cores, measured as a difference of two calls. 0 when the clock cannot be read. */
double par_cpu_seconds(void);
/* Adds s seconds to the calling thread's par_cpu_seconds: the CPU time of threads it ran
 * and joined without par_for (measure's synthetic executor). */
void par_cpu_credit(double s);
/* The calling thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), for a thread that reports
 * it to the one that joins it; 0 when the clock cannot be read. */
double par_thread_cpu(void);

#ifdef __cplusplus
}
#endif

#endif
