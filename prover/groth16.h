/* Groth16 on BLS12-381 over provesim's backends, split into the phases the scenario
 * runner (`provesim measure`) times one by one. Keys are made once per (circuit, size,
 * seed), cached on disk, shared read-only by every worker; each worker opens its own
 * context on its own backend handle (so workers never share device scratch space), and the
 * contexts on one device share one copy of the proving key there; each
 * call proves a job of one or more partitions (circuit instances) through the phases:
 *
 *   synth ──► prep ───────────► msm ──► epilogue
 *        └──► ntt_h ──────────┘        ▲
 *             prep ──► b_g2 ───────────┘
 *
 * synth: CPU, the witness and the evaluations A·z, B·z, C·z. prep: CPU, the MSM scalars
 * (runs beside ntt_h). ntt_h: GPU, 6 NTTs (3 inverse, 3 coset), the pointwise step and
 * the H MSM over h's values on the coset. msm: GPU, the A, B_G1 and L MSMs. b_g2: the B_G2 MSM (on
 * the context's backend). epilogue: CPU, blinding with random r, s and assembly (with a
 * device, it also does the MSMs' last step, combining their window sums into points, so
 * the GPU phases end when their GPU work does). Each
 * phase returns PS_OK, or a negative code with e filled; phases of one job must run in an
 * order the graph allows; phases of different jobs may run concurrently. */
#ifndef PROVESIM_GROTH16_H
#define PROVESIM_GROTH16_H

#include <stdint.h>

#include "util.h"
#include "backend.h"
#include "bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct g16_keys g16_keys; /* proving + verifying key and the circuit's shape */
typedef struct g16_ctx g16_ctx;   /* one worker: a backend handle, the device's key shared */
typedef struct g16_job g16_job;   /* one call: k partitions being proved */

typedef struct g16_proof {
  g1_affine_t a;
  g2_affine_t b;
  g1_affine_t c;
} g16_proof;

typedef struct g16_vk {
  g1_affine_t alpha_g1;
  g2_affine_t beta_g2, gamma_g2, delta_g2;
  g1_affine_t *ic; /* public inputs + 1 */
  int nic;
} g16_vk;

/* Parameters of the circuit family (see the circuit's documentation). */
typedef struct g16_circuit_params {
  const char *circuit;      /* NULL = the default circuit */
  int64_t constraints;      /* number of R1CS constraints (rounded up as the circuit needs) */
  double boolean_fraction;  /* share of witness values that are 0/1; < 0 = the default */
  uint64_t seed;            /* toxic waste of the setup */
} g16_circuit_params;

/* Loads the keys from cache_dir (NULL = no cache) or runs the setup and stores them.
 * progress (may be NULL) is called with a fraction in [0, 1] during long setups. */
int g16_keys_get(const g16_circuit_params *p, const char *cache_dir, void (*progress)(double, void *),
                 void *progress_ctx, g16_keys **out, ps_err *e);
/* The same with the setup on a backend: its NTT runs the Lagrange basis at tau and its
 * fixed-base products make the keys (backend_fb_*), with the same bytes on every backend.
 * backend NULL = the CPUs. progress as above; stage (may be NULL) gets one line per
 * finished stage of the setup or the cache ("setup: G1 queries (A, B, L, H, IC) ...
 * points on cuda 4.21 s"), for a log. */
typedef struct g16_setup_opts {
  ps_backend *backend;
  void (*progress)(double fraction, void *ctx);
  void (*stage)(const char *line, void *ctx);
  void *ctx;
} g16_setup_opts;
int g16_keys_make(const g16_circuit_params *p, const char *cache_dir, const g16_setup_opts *o, g16_keys **out,
                  ps_err *e);
void g16_keys_free(g16_keys *k);
const g16_vk *g16_keys_vk(const g16_keys *k);
int64_t g16_keys_constraints(const g16_keys *k);
/* Device bytes of the proving key on one device (the bases of A, B_G1, L, H, B_G2): one
 * copy per device, shared by every context open there. */
size_t g16_key_bytes(const g16_keys *k);
/* Bytes of one job's vectors (host, and with a device on the device too): z, A·z, B·z,
 * C·z and the MSM scalars of its partitions. */
size_t g16_job_bytes(const g16_keys *k, int partitions);
/* Device bytes one worker (a context and its backend handle) needs beside the shared key,
 * for jobs of up to `partitions` on backend `backend` ("cpu": 0): the job's device vectors
 * (A·z, B·z, C·z and the MSM scalars) and the backend's work buffers (MSM digits and
 * buckets, NTT twiddles, H scalars; backend_g16_work_bytes). So a GPU with w workers needs
 * g16_key_bytes + w x g16_worker_bytes (and the CUDA context's few hundred MiB). */
size_t g16_worker_bytes(const g16_keys *k, const char *backend, int partitions);

/* Precomputed bases (the scenario's prover.precompute). With a window c set, the upload of
 * the proving key to a device also builds, there, the tables 2^(c j) * P for j <
 * ceil(256/c) of the A, B_G1, L and H bases (backend_msm_precompute; B_G2 stays plain), and
 * the MSMs over them then run with window c: the same proofs, less GPU time at large
 * sizes, ceil(256/c) times those bases' memory more. Set it before the first g16_ctx_open
 * of k (an assert checks); 0 = none (the default). The cpu backend builds nothing and
 * proves as before. g16_key_bytes and g16_worker_bytes count the window set here. */
void g16_keys_set_precompute(g16_keys *k, unsigned window);
unsigned g16_keys_precompute(const g16_keys *k);
/* Device bytes of the tables for window c (0: none): ceil(256/c) x the bytes of the A,
 * B_G1, L and H bases, on top of g16_key_bytes_at(k, 0). */
size_t g16_precompute_bytes(const g16_keys *k, unsigned window);
/* g16_key_bytes and g16_worker_bytes as if window `window` were set (0 = no tables): the
 * key with its tables; a worker's buffers grow where an MSM over the tables needs more (its
 * one set of 2^(c-1) buckets). */
size_t g16_key_bytes_at(const g16_keys *k, unsigned window);
size_t g16_worker_bytes_at(const g16_keys *k, const char *backend, int partitions, unsigned window);
/* prover.precompute: auto: the window measured best on the H200 for the largest MSM of k
 * (2^20 or fewer points: 16; more: 20), if the key with its tables and `workers` workers'
 * buffers for jobs of `partitions` fit in free_bytes; else 22 (the fewest tables) if that
 * fits; else 0 (no tables). */
unsigned g16_precompute_auto(const g16_keys *k, size_t free_bytes, int workers, int partitions);

/* Opens a context (a worker) on backend b. The proving key goes to b's device once: the
 * first context of these keys on a device (same backend name and ordinal) uploads it
 * through a handle of its own, later ones share it, and the last to close frees it; so the
 * keys must outlive every context. Thread-safe. */
int g16_ctx_open(ps_backend *b, const g16_keys *k, g16_ctx **out, ps_err *e);
/* CPU threads the context's jobs use for their CPU steps (witness evaluation, scalar
 * conversion; 0, the default, = every CPU). Several workers on one machine share the cores. */
void g16_ctx_set_threads(g16_ctx *c, unsigned threads);
/* Makes c's job buffers (the pinned host memory of the evaluations and scalars) fit jobs of
 * k partitions now, so that its first job does not pay for them: pinning them takes tens to
 * hundreds of ms at 2^20-2^22, and contexts opening together pin in turn, so without it
 * the first call of each worker starts late by its own pinning and the others'. Only
 * before a job is open; later jobs of up to k partitions reuse them. */
void g16_ctx_reserve(g16_ctx *c, int k);
/* The partitions c's job buffers fit (0 before its first job or g16_ctx_reserve). */
int g16_ctx_reserved(const g16_ctx *c);
void g16_ctx_close(g16_ctx *c);
/* The device-resident proving key c proves with: the same pointer for every open context
 * of the same keys on one device. *holders (may be NULL): how many contexts hold it now;
 * *uploaded (may be NULL): 1 when c's open made the upload (it was the first there). */
const void *g16_ctx_device_key(const g16_ctx *c, int *holders, int *uploaded);

/* A job of k partitions; instance_seeds[i] picks partition i's witness (its public
 * input). rng_seed drives the blinding r, s. */
g16_job *g16_job_new(g16_ctx *c, int k, const uint64_t *instance_seeds, uint64_t rng_seed);
void g16_job_free(g16_job *j);

int g16_synth(g16_job *j, ps_err *e);
int g16_prep(g16_job *j, ps_err *e);
int g16_ntt_h(g16_job *j, ps_err *e);
int g16_msm(g16_job *j, ps_err *e);
int g16_b_g2(g16_job *j, ps_err *e);
int g16_epilogue(g16_job *j, ps_err *e);

/* After the epilogue: partition i's proof and public inputs (borrowed, valid until
 * g16_job_free). */
const g16_proof *g16_job_proof(const g16_job *j, int i);
const fr_t *g16_job_public(const g16_job *j, int i, int *npublic);

/* The whole proof in one call (prove command, tests). */
int g16_prove(g16_ctx *c, uint64_t instance_seed, uint64_t rng_seed, g16_proof *out, fr_t *pub, int *npub,
              ps_err *e);

/* e(A, B) == e(alpha, beta) * e(sum pub_i IC_i, gamma) * e(C, delta): returns 1 when the
 * proof verifies, 0 when it does not, negative on malformed input. */
int g16_verify(const g16_vk *vk, const g16_proof *p, const fr_t *pub, int npub, ps_err *e);

/* The circuit the keys are for (borrowed, valid until g16_keys_free). */
struct r1cs;
const struct r1cs *g16_keys_r1cs(const g16_keys *k);
/* 1 when g16_keys_get loaded the keys from its cache, 0 when it ran the setup. */
int g16_keys_from_cache(const g16_keys *k);

#ifdef __cplusplus
}
#endif

#endif
