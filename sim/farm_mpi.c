/* The MPI transport of the ordered farm (farm.h): start-up, gather, broadcast and the
 * point-to-point messages that carry items to rank 0. Built with PROVESIM_MPI it calls
 * MPI, but only when a launcher started the process (Open MPI's mpirun sets
 * OMPI_COMM_WORLD_SIZE, Slurm's srun and MPICH set PMI_SIZE or PMIX_RANK), so a plain
 * `provesim sweep` needs no MPI run-time. Without PROVESIM_MPI, or outside a launcher,
 * there is one rank and the functions that would talk to another are never called. */
#define _GNU_SOURCE
#include "farm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PROVESIM_MPI
#include <mpi.h>

static int started, nranks = 1, myrank;

static void farm_mpi_stop(void) {
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) MPI_Finalize();
}

/* MPI failures are fatal (MPI's default handler aborts the job with its own message). */
int farm_start(void) {
  if (started) return nranks;
  started = 1;
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) return nranks;
  int provided = 0;
  /* Only the caller's thread calls MPI (farm.c); the worker threads never do. */
  MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
  atexit(farm_mpi_stop);
  return nranks;
}

int farm_rank(void) {
  return myrank;
}

int farm_size(void) {
  return nranks;
}

/* Waits for a request with MPI_Test and short sleeps: MPI's own blocking calls spin, and
 * a rank that waits (rank 0 on the others, the others at the end on rank 0) would take a
 * core from the simulations, half of them on a machine with as many ranks as cores. */
static void farm_wait(MPI_Request *rq) {
  long nap = 20000; /* ns, doubled up to 2 ms */
  for (;;) {
    int flag = 0;
    MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    struct timespec ts = {0, nap};
    nanosleep(&ts, NULL);
    if (nap < 2000000) nap *= 2;
  }
}

void farm__gather(const void *mine, size_t n, void *all) {
  if (nranks == 1) {
    memcpy(all, mine, n);
    return;
  }
  PS_ASSERT(n <= (size_t)1 << 30);
  MPI_Request rq;
  MPI_Igather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD, &rq);
  farm_wait(&rq);
}

void farm__bcast(void *buf, size_t n) {
  if (nranks == 1) return;
  for (size_t off = 0; off < n; off += (size_t)1 << 30) {
    size_t k = n - off < ((size_t)1 << 30) ? n - off : (size_t)1 << 30;
    MPI_Request rq;
    MPI_Ibcast((char *)buf + off, (int)k, MPI_BYTE, 0, MPI_COMM_WORLD, &rq);
    farm_wait(&rq);
  }
}

enum { FARM_TAG = 715 };

void farm__send(const void *data, size_t n) {
  PS_ASSERT(n <= (size_t)1 << 30);
  MPI_Request rq;
  MPI_Isend(data, (int)n, MPI_BYTE, 0, FARM_TAG, MPI_COMM_WORLD, &rq);
  farm_wait(&rq);
}

/* MPI_Iprobe and short sleeps rather than MPI_Probe, which spins (farm_wait). */
void farm__recv(int from, ps_buf *out) {
  MPI_Status st;
  int n = 0, flag = 0;
  long nap = 20000; /* ns, doubled up to 2 ms */
  for (;;) {
    MPI_Iprobe(from, FARM_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag) break;
    struct timespec ts = {0, nap};
    nanosleep(&ts, NULL);
    if (nap < 2000000) nap *= 2;
  }
  MPI_Get_count(&st, MPI_BYTE, &n);
  out->len = 0;
  ps_buf_append(out, "", 0);
  if ((size_t)n + 1 > out->cap) {
    out->p = xrealloc(out->p, (size_t)n + 1);
    out->cap = (size_t)n + 1;
  }
  MPI_Recv(out->p, n, MPI_BYTE, from, FARM_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  out->len = (size_t)n;
  out->p[n] = 0;
}

#else /* one rank */

int farm_start(void) {
  return 1;
}

int farm_rank(void) {
  return 0;
}

int farm_size(void) {
  return 1;
}

void farm__gather(const void *mine, size_t n, void *all) {
  memcpy(all, mine, n);
}

void farm__bcast(void *buf, size_t n) {
  (void)buf;
  (void)n;
}

void farm__send(const void *data, size_t n) {
  (void)data;
  (void)n;
  PS_ASSERT(!"farm__send without MPI");
}

void farm__recv(int from, ps_buf *out) {
  (void)from;
  (void)out;
  PS_ASSERT(!"farm__recv without MPI");
}

#endif
