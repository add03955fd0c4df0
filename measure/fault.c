/* Fault injection for the tests (measure_exec.h, mexec_fault): PROVESIM_FAULT names one
 * phase of one call of one worker that fails as a failing CUDA or backend call would, so
 * that the path a real fault takes (the worker's lock released, the other workers stopped,
 * the report naming what failed, the spans so far kept) runs where a test can see it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure_exec.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int armed, fired;
static int f_worker;
static int64_t f_call;
static char f_phase[128], f_spec[256];

static void parse(void) {
  const char *v = getenv("PROVESIM_FAULT");
  if (!v || !*v) return;
  snprintf(f_spec, sizeof f_spec, "%s", v);
  char ph[128];
  if (sscanf(v, "%d:%" SCNd64 ":%127s", &f_worker, &f_call, ph) == 3) {
    snprintf(f_phase, sizeof f_phase, "%s", ph);
    armed = 1;
  } else {
    fprintf(stderr, "provesim: PROVESIM_FAULT=%s: expected WORKER:CALL:PHASE (ignored)\n", v);
  }
}

int mexec_fault(int worker, int64_t call, const char *ph, ps_err *e) {
  pthread_once(&once, parse);
  if (!armed || worker != f_worker || call < f_call || strcmp(ph, f_phase)) return PS_OK;
  if (__atomic_exchange_n(&fired, 1, __ATOMIC_SEQ_CST)) return PS_OK; /* once */
  return ps_fail(e, PS_ERR, "injected fault (PROVESIM_FAULT=%s): the phase failed as a failing CUDA or backend call would",
                 f_spec);
}
