/* One API over the prover's two backends: "cpu" (plain C, the reference, runs anywhere)
 * and "cuda" (the GPU kernels of prover/cuda/, present when the build has CUDA). A caller
 * opens a backend by name, runs NTTs over Fr and MSMs on G1/G2 through it, and gets the
 * same results from either: the conventions are those of ntt.h and msm.h. MSM bases are
 * registered once (uploaded to the GPU by the cuda backend) and reused across calls, since
 * a prover's bases are fixed. Errors are recoverable: a negative code and a message in
 * the caller's ps_err. */
#ifndef PROVESIM_BACKEND_H
#define PROVESIM_BACKEND_H

#include <stddef.h>

#include "util.h"
#include "curve.h"
#include "ntt.h"

typedef struct ps_backend ps_backend;
typedef struct backend_msm_bases backend_msm_bases;

/* Opens the backend called name ("cpu" or "cuda"). NULL with e filled when the name is
 * unknown, when the build has no CUDA, or when no GPU is usable (the message suggests
 * --backend cpu). Caller closes with backend_close (which accepts NULL). */
ps_backend *backend_open(const char *name, ps_err *e);
/* The same on GPU `ordinal` (0 = the first) for the cuda backend; the cpu backend computes
 * on the CPUs whatever the ordinal, but keeps it as its device's identity (below). A
 * missing ordinal fails with a message naming how many GPUs there are. */
ps_backend *backend_open_dev(const char *name, int ordinal, ps_err *e);
/* The ordinal the backend was opened on. Handles of one name and ordinal are on one
 * device: MSM bases registered through one of them serve MSMs on any of them (so the
 * workers of a GPU can share one proving key), as long as the handle that registered
 * them stays open. */
int backend_ordinal(const ps_backend *b);
void backend_close(ps_backend *b);
/* "cpu" or "cuda"; borrowed, valid until backend_close. */
const char *backend_name(const ps_backend *b);
/* What it runs on: the GPU's name, or "N CPU threads"; borrowed, valid until close. */
const char *backend_device(const ps_backend *b);
/* 1 when the build includes the CUDA backend. */
int backend_has_cuda(void);

/* In-place NTTs of batch vectors of 2^log_n elements in host memory; flags are ntt.h's
 * NTT_INVERSE | NTT_COSET | NTT_IN_BITREV | NTT_OUT_BITREV. 1 <= log_n <= NTT_MAX_LOG_N.
 * Returns PS_OK, PS_EINPUT (bad size) or PS_ERR (device failure, not enough memory: the
 * message names the need and what is free). */
int backend_ntt(ps_backend *b, fr_t *data, unsigned log_n, size_t batch, int flags, ps_err *e);

/* Registers n fixed bases for later MSMs on b's device (any handle of the same name and
 * ordinal). The cpu backend borrows the array (it must stay valid and unchanged until
 * backend_msm_bases_free); the cuda backend copies it to the GPU, so the caller may free it
 * on return. Free with backend_msm_bases_free (NULL ok), before closing b. */
int backend_msm_bases_g1(ps_backend *b, const g1_affine_t *bases, size_t n,
                         backend_msm_bases **out, ps_err *e);
int backend_msm_bases_g2(ps_backend *b, const g2_affine_t *bases, size_t n,
                         backend_msm_bases **out, ps_err *e);
/* The same over nhead bases from head followed by the n of bases, one array of nhead + n
 * on the device; nhead > 0 needs a device backend (backend_has_device): PS_EINPUT
 * elsewhere (the cpu backend borrows one array). */
int backend_msm_bases_g1_after(ps_backend *b, const g1_affine_t *head, size_t nhead, const g1_affine_t *bases,
                               size_t n, backend_msm_bases **out, ps_err *e);
void backend_msm_bases_free(backend_msm_bases *m);
/* Fixed-base precomputation for window size `window` (bits): the cuda backend keeps the
 * tables 2^(window j) * bases (j < ceil(256/window)) on the GPU, ceil(256/window) times
 * the bases' memory, and later MSMs over m (window 0 or the same window) use them: every
 * window's digits then fall into one set of buckets. Results are unchanged. The cpu
 * backend has nothing to precompute and returns PS_OK. */
int backend_msm_precompute(backend_msm_bases *m, unsigned window, ps_err *e);

/* out = sum_{i<n} scalars[i] * bases[i], n <= the registered count, scalars canonical
 * integers (msm.h). Scalars in memory from backend_host_alloc upload fastest. The window
 * is the backend's choice unless backend_set_msm_window set one. */
int backend_msm_g1(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n,
                   g1_jac_t *out, ps_err *e);
int backend_msm_g2(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n,
                   g2_jac_t *out, ps_err *e);
/* Fixes the MSM window (bits) for later calls; 0 restores the automatic choice. */
void backend_set_msm_window(ps_backend *b, unsigned window);
/* The window an MSM of n points would use. */
unsigned backend_msm_window(const ps_backend *b, int g2, size_t n);

/* 1 when the backend computes on a device (the cuda backend), 0 for the cpu backend. */
int backend_has_device(const ps_backend *b);
/* A vector of Fr kept where the backend computes: on the GPU for the cuda backend (an
 * upload), borrowed host memory for the cpu backend (no copy: the host data must outlive
 * the uses). Uploading into an existing vector reuses its memory when it is big enough.
 * The copy runs on its own stream, so one worker's upload overlaps another's kernels;
 * the call returns when the data is there. */
typedef struct backend_vec backend_vec;
int backend_vec_upload(ps_backend *b, backend_vec **v, const fr_t *host, size_t n, ps_err *e);
void backend_vec_free(backend_vec *v);
/* count MSMs over one vector of canonical scalars: out[i] = sum_{j < n[i]} s[off[i] + j] *
 * m[i]_j. With a device the kernels of all run back to back and the window sums are
 * combined on the host at the end. All m[i] of one group (G1 here, G2 below). */
int backend_msm_g1_vec(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s, const size_t *off,
                       const size_t *n, g1_jac_t *out, ps_err *e);
int backend_msm_g2_vec(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s, const size_t *off,
                       const size_t *n, g2_jac_t *out, ps_err *e);
/* The same MSMs (and Groth16's H, below) with their last step left for later: with a device the
 * call returns when the GPU's part is done and the window sums are on the host; combining
 * them into points (Horner, on the host: ~0.3 ms per G1 and ~1 ms per G2 MSM at 2^20) is
 * done by backend_msm_deferred_point, so a GPU phase can end when the GPU work does and
 * the host work can run outside a lock that covers the GPU phases. The cpu backend
 * computes the points at once. Free with backend_msm_deferred_free. */
typedef struct backend_msm_deferred backend_msm_deferred;
int backend_msm_g1_vec_deferred(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s,
                                const size_t *off, const size_t *n, backend_msm_deferred **out, ps_err *e);
int backend_msm_g2_vec_deferred(ps_backend *b, int count, backend_msm_bases *const *m, backend_vec *s,
                                const size_t *off, const size_t *n, backend_msm_deferred **out, ps_err *e);
/* Groth16's H on the device, for backends that have one (backend_has_device): for each
 * of k partitions, the vector abc holds the evaluations A·z, B·z, C·z on the domain of
 * 2^log_n (Montgomery form, 3n elements per partition, one partition after the other);
 * this computes h's values A·B - C on the coset g·H (3 inverse NTTs, 3 coset NTTs, the
 * pointwise step; the division by Z, constant there, is in the key's H bases) and, as
 * deferred MSM p of *out, sum_{i < nh} h_i * bases_i (a G1 MSM, nh <= n), all on the
 * device. The vector (uploaded with backend_vec_upload) is used as scratch: its contents
 * are lost. */
int backend_g16_h_vec_deferred(ps_backend *b, backend_vec *abc, unsigned log_n, int k, backend_msm_bases *bases,
                               size_t nh, backend_msm_deferred **out, ps_err *e);
/* MSM i as a point: a g1_jac_t or a g2_jac_t by the group. */
void backend_msm_deferred_point(const backend_msm_deferred *d, int i, void *out_jac);
void backend_msm_deferred_free(backend_msm_deferred *d);


/* ---- Fixed-base products, for key generation ----
 * k_i * G for many scalars and one base G (the setup's keys): a table of d * 2^(w j) * G
 * for every window j and digit d (fb.h) is built on the host, on every CPU, for the window
 * that suits about n_hint products; the cuda backend copies it to the GPU. The products
 * are affine points, unique, so both backends give the same bytes. Free with
 * backend_fb_free (NULL ok). */
typedef struct backend_fb backend_fb;
int backend_fb_g1(ps_backend *b, const g1_affine_t *gen, size_t n_hint, backend_fb **out, ps_err *e);
int backend_fb_g2(ps_backend *b, const g2_affine_t *gen, size_t n_hint, backend_fb **out, ps_err *e);
/* out[i] = k[i] * G for i < n: k Montgomery-form elements of Fr (borrowed for the call),
 * out g1_affine_t or g2_affine_t by the table's group, the point at infinity as zeros.
 * tick (may be NULL) is called from the calling thread with the number of products done
 * so far. PS_OK, or PS_ERR (device failure, not enough GPU memory: the message says). */
int backend_fb_mul(backend_fb *t, const fr_t *k, size_t n, void *out_affine, void (*tick)(void *, size_t),
                   void *tick_ctx, ps_err *e);
void backend_fb_free(backend_fb *t);

/* ---- What an operator needs to know about a run ----
 * Seconds the backend spent in its operations (NTTs, MSMs, Groth16's H, fixed-base
 * products) since it was opened. cuda: the compute stream's time between CUDA events
 * recorded at the start and at the end of each operation (its kernels and the small
 * copies of their results; not the gaps between operations). cpu: the wall time of the
 * operations. Operations issued on one handle from two threads at once are each counted
 * whole. */
double backend_busy_s(ps_backend *b);
/* The highest device memory in use (bytes) seen on the backend's GPU: cudaMemGetInfo's
 * total - free, sampled after each of the backend's allocations and at the end of each
 * operation, so it includes the CUDA context and other processes on that GPU. 0 on cpu. */
size_t backend_device_peak_bytes(ps_backend *b);

/* The peak resident set of this process (bytes; getrusage), which includes the keys held
 * in host memory. */
size_t backend_host_peak_bytes(void);
/* Device memory (bytes) a handle of backend `name` keeps in its work buffers once it has
 * run MSMs of up to n points in G1 and G2 and Groth16's H at 2^log_n on the device
 * (backend_g16_h_vec_deferred): the MSM's digits, sorted digits, buckets and bucket parts,
 * the NTT twiddles and coset tables, the H scalars. The buffers stay allocated until
 * backend_close, so a handle per worker keeps this much per worker. 0 for cpu. */
size_t backend_g16_work_bytes(const char *name, unsigned log_n, size_t n);

/* Host memory for scalars and NTT data: page-locked for the cuda backend (falls back to
 * ordinary memory), ordinary for cpu. Aborts on out-of-memory like xmalloc. Free with
 * backend_host_free. */
void *backend_host_alloc(ps_backend *b, size_t bytes);
void backend_host_free(ps_backend *b, void *p);

/* ---- Measurements for prover-bench ----
 * Field multiplications per second on the whole backend (fp = 0: Fr, 1: Fp, 2: Fp
 * squarings). */
int backend_bench_field(ps_backend *b, int fp, double *mults_per_s, ps_err *e);
/* Median time (ms) of one NTT of 2^log_n elements over reps runs. cuda: data resident on
 * the GPU, device events around the kernels; cpu: wall clock. */
int backend_bench_ntt(ps_backend *b, unsigned log_n, int flags, int reps, double *median_ms,
                      ps_err *e);
/* Median wall time (ms) of backend_msm_g1/g2 over reps runs on registered bases; for cuda
 * the scalars are uploaded from the given memory in every run (inside the timing). */
int backend_bench_msm(ps_backend *b, backend_msm_bases *m, const fr_t *scalars, size_t n,
                      int reps, double *median_ms, ps_err *e);

/* ---- Random inputs for benchmarks and checks (reproducible from seed, made on all
 * CPUs): subgroup points from curve.h's *_random_many in independent chunks, and
 * canonical scalars uniform below r. */
void backend_random_g1(g1_affine_t *out, size_t n, uint64_t seed);
void backend_random_g2(g2_affine_t *out, size_t n, uint64_t seed);
void backend_random_scalars(fr_t *out, size_t n, uint64_t seed);
/* Montgomery-form field elements uniform in Fr (NTT inputs). */
void backend_random_fr(fr_t *out, size_t n, uint64_t seed);

#endif
