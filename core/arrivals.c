/* The proof arrival times of `measure` (arrivals.h). */
#include "arrivals.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "seed.h"
#include "util.h"

double *arrivals_measured(const scenario *s, uint64_t seed, int rep, int64_t *nproofs) {
  int64_t ppp = s->partitions_per_proof > 0 ? s->partitions_per_proof : 1, n = (s->partitions + ppp - 1) / ppp;
  *nproofs = 0;
  if (s->arrivals == ARR_CLOSED || n < 1) return NULL;
  double *t = xmalloc((size_t)n * sizeof *t);
  if (s->arrivals == ARR_TRACE) { /* the scenario checked that the trace holds n proofs */
    for (int64_t k = 0; k < n; k++) t[k] = s->trace_t[k];
  } else {
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)(ps_seed_mix(seed, (uint64_t)rep) ^ 0x9e3779b97f4a7c15ULL));
    double gap = 3600.0 / s->proofs_per_hour, x = 0;
    for (int64_t k = 0; k < n; k++) {
      if (k > 0) x += s->arrivals == ARR_POISSON ? gsl_ran_exponential(rng, gap) : gap;
      t[k] = x;
    }
    gsl_rng_free(rng);
  }
  *nproofs = n;
  return t;
}
