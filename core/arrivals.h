/* The proof arrival times `measure` runs a scenario with, drawn where `validate` can draw
 * them again: a measured window is then compared with simulated windows that replay the
 * very arrivals it had, and the arrivals' own randomness (which moves a window's latency
 * percentiles by tens of percent at 70% load) stops reading as a miss of the model. */
#ifndef PROVESIM_ARRIVALS_H
#define PROVESIM_ARRIVALS_H

#include <stdint.h>

#include "model.h"

/* The arrival times of the first *nproofs = ceil(s->partitions / s->partitions_per_proof)
 * proofs of replication rep, in seconds from the run's start (the first at 0): a trace's
 * own times, or gaps of 3600 / proofs_per_hour (fixed) or exponential with that mean
 * (poisson) from an MT19937 seeded with ps_seed_mix(seed, rep). NULL for a closed backlog.
 * The caller frees the array. */
double *arrivals_measured(const scenario *s, uint64_t seed, int rep, int64_t *nproofs);

#endif
