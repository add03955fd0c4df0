/* par_for: a shared atomic cursor hands out chunks; the caller's thread works too, so a
 * failed pthread_create only costs speed (par.h, "Failure policy"). */
#include "par.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define PAR_MAX_THREADS 256

int ps_ncores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

typedef struct par_state {
  par_range_fn fn;
  void *ctx;
  size_t n, grain;
  atomic_size_t next, done;
} par_state;

static void par_work(par_state *s, par_tick_fn tick, void *tick_ctx) {
  for (;;) {
    size_t lo = atomic_fetch_add(&s->next, s->grain);
    if (lo >= s->n) break;
    size_t hi = s->n - lo > s->grain ? lo + s->grain : s->n;
    s->fn(s->ctx, lo, hi);
    size_t d = atomic_fetch_add(&s->done, hi - lo) + (hi - lo);
    if (tick) tick(tick_ctx, d);
  }
}

/* CPU seconds of the helpers joined by this thread's par_for calls, and credited. */
static _Thread_local double par_helpers_cpu;

double par_thread_cpu(void) {
  struct timespec ts;
  return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec : 0;
}

double par_cpu_seconds(void) { return par_thread_cpu() + par_helpers_cpu; }

void par_cpu_credit(double s) { par_helpers_cpu += s; }

typedef struct par_helper {
  par_state *s;
  double cpu; /* the helper's own CPU time at its end, and what its own par_for calls ran */
} par_helper;

static void *par_thread(void *p) {
  par_helper *h = p;
  par_work(h->s, NULL, NULL);
  h->cpu = par_cpu_seconds();
  return NULL;
}

void par_for(size_t n, size_t grain, int threads, par_range_fn fn, void *ctx, par_tick_fn tick, void *tick_ctx) {
  if (n == 0) return;
  par_state s = {.fn = fn, .ctx = ctx, .n = n, .grain = grain ? grain : 1};
  atomic_init(&s.next, 0);
  atomic_init(&s.done, 0);
  int t = threads > 0 ? threads : ps_ncores();
  if (t > PAR_MAX_THREADS) t = PAR_MAX_THREADS;
  size_t chunks = (n - 1) / s.grain + 1;
  if ((size_t)t > chunks) t = (int)chunks;
  pthread_t tid[PAR_MAX_THREADS];
  par_helper help[PAR_MAX_THREADS];
  int started = 0;
  for (int i = 1; i < t; i++) {
    help[started] = (par_helper){.s = &s};
    if (pthread_create(&tid[started], NULL, par_thread, &help[started])) break;
    started++;
  }
  par_work(&s, tick, tick_ctx);
  for (int i = 0; i < started; i++) {
    pthread_join(tid[i], NULL);
    par_helpers_cpu += help[i].cpu;
  }
}
