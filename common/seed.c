/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014): the constants are the golden-ratio increment and the two mixing
 * multipliers of the published finaliser. */
#include "seed.h"

#define GOLDEN 0x9e3779b97f4a7c15ull

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t ps_splitmix64(void *state) { return mix(*(uint64_t *)state += GOLDEN); }

uint64_t ps_seed_mix(uint64_t seed, uint64_t stream) { return mix(seed + GOLDEN * (stream + 1)); }
