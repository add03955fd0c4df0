/* `provesim prove` and `provesim verify`: make a Groth16 proof of a circuit instance and
 * write it with its verifying key and public inputs as JSON (docs/prover.md), and check
 * such a directory. The JSON readers and writers are public for the tests. */
#ifndef PROVESIM_CLI_PROVE_H
#define PROVESIM_CLI_PROVE_H

#include "util.h"
#include "groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

int prover_cmd_prove(int argc, char **argv);
int prover_cmd_verify(int argc, char **argv);

/* What the JSON files say about where the proof came from (informational). */
typedef struct g16_meta {
  char circuit[32];
  long long constraints;
  unsigned long long seed, instance;
  double boolean_fraction;
} g16_meta;

/* Writes DIR/proof.json, DIR/vk.json and DIR/public.json (DIR is created if missing);
 * each file appears whole or not at all. */
int g16_json_write(const char *dir, const g16_vk *vk, const g16_proof *p, const fr_t *pub, int npub,
                   const g16_meta *meta, ps_err *e);
/* Reads them back. vk->ic and *pub are allocated: free with g16_vk_clear and free().
 * PS_EINPUT with e naming the file and the field when a file is missing, malformed, or
 * holds an invalid point (not on the curve, not in the subgroup) or scalar (>= r). */
int g16_json_read(const char *dir, g16_vk *vk, g16_proof *p, fr_t **pub, int *npub, ps_err *e);
void g16_vk_clear(g16_vk *vk);

#ifdef __cplusplus
}
#endif

#endif
