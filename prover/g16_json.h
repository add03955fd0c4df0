/* The JSON files of a Groth16 proof (docs/prover.md): DIR/proof.json, DIR/vk.json and
 * DIR/public.json, with points in the ZCash compressed encodings (enc.h) and scalars as
 * 32-byte big-endian integers, all hex. `provesim prove` writes them and `provesim verify`
 * reads them; any BLS12-381 library can check them too. */
#ifndef PROVESIM_G16_JSON_H
#define PROVESIM_G16_JSON_H

#include "groth16.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the JSON files say about where the proof came from (informational; the reader
 * does not read it back). */
typedef struct g16_meta {
  char circuit[32];
  long long constraints;
  unsigned long long seed, instance;
  double boolean_fraction;
} g16_meta;

/* Writes DIR/proof.json, DIR/vk.json and DIR/public.json (DIR is created if missing);
 * each file appears whole or not at all. meta may be NULL (the files then leave out the
 * circuit, its size and the seeds). PS_ERR with e filled when DIR cannot be created or a
 * file cannot be written. */
int g16_json_write(const char *dir, const g16_vk *vk, const g16_proof *p, const fr_t *pub, int npub,
                   const g16_meta *meta, ps_err *e);
/* Reads them back. vk->ic and *pub are allocated: free with g16_vk_clear and free().
 * PS_EINPUT with e naming the file and the field (and the line and column of malformed
 * JSON) when a file is missing, malformed, of another schema, or holds an invalid point
 * (not on the curve, not in the subgroup) or scalar (>= r); then *p is untouched, *vk
 * zeroed, *pub NULL and *npub 0, with nothing left allocated. */
int g16_json_read(const char *dir, g16_vk *vk, g16_proof *p, fr_t **pub, int *npub, ps_err *e);
/* Frees vk->ic and zeroes the count; accepts NULL. */
void g16_vk_clear(g16_vk *vk);

#ifdef __cplusplus
}
#endif

#endif
