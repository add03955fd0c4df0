/* The one seed mixer: every random stream in provesim (a replication's RNG, a partition's
 * witness, a benchmark's inputs) derives its seed from the scenario's or the command's seed
 * through splitmix64, so neighbouring streams look independent and every run repeats. */
#ifndef PROVESIM_SEED_H
#define PROVESIM_SEED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* splitmix64 as a generator: advances *(uint64_t *)state and returns the next output. The
 * void * signature is the prover's generator callback (fp.h). */
uint64_t ps_splitmix64(void *state);

/* The seed of stream number `stream` of seed: the (stream + 1)-th output of splitmix64
 * started at seed. */
uint64_t ps_seed_mix(uint64_t seed, uint64_t stream);

#ifdef __cplusplus
}
#endif

#endif
