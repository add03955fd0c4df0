/* The CUDA backend's C interface (psc_ = provesim CUDA): a device handle, NTTs over Fr,
 * Pippenger MSMs on G1 and G2 over bases kept resident on the device, and the kernel
 * timings prover-bench reports. prover/backend.c is its only intended caller; it exists
 * only when the build has CUDA (PROVESIM_HAVE_CUDA). Field elements keep the layout of
 * bls12_381.h on both sides, so nothing is converted on the way. Every function that can
 * fail returns PS_OK or a negative code with e filled (file:line and the CUDA error). */
#ifndef PROVESIM_CUDA_BACKEND_H
#define PROVESIM_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../bls12_381.h"
#include "util.h"

typedef struct psc_dev psc_dev;
typedef struct psc_bases psc_bases;

/* Opens GPU `ordinal` (0 = the first). Fails cleanly (PS_ERR, a message that suggests
 * the cpu backend) when no GPU or driver is present. Caller frees with psc_close. */
int psc_open(int ordinal, psc_dev **out, ps_err *e);
void psc_close(psc_dev *d);
/* The device's name ("NVIDIA H200"); borrowed, valid until psc_close. */
const char *psc_name(const psc_dev *d);
void psc_mem_info(psc_dev *d, size_t *free_b, size_t *total_b);

/* Page-locked host memory (falls back to malloc when pinning fails); free with
 * psc_host_free. Uploads from it run at full link speed. */
void *psc_host_alloc(size_t bytes, int *pinned);
void psc_host_free(void *p, int pinned);

/* NTT flags, combined with |. Without PSC_NTT_INVERSE: forward evaluation X_k =
 * sum_i x_i w^(ik) (on the coset g*H with PSC_NTT_COSET: X_k = sum_i x_i g^i w^(ik), g the
 * generator of bls12_381.h). With PSC_NTT_INVERSE: the inverse of the forward map with the
 * same COSET flag (includes the 1/n). PSC_NTT_IN_BITREV / OUT_BITREV: the input / output
 * is in bit-reversed order rather than natural order. */
#define PSC_NTT_INVERSE 1
#define PSC_NTT_COSET 2
#define PSC_NTT_IN_BITREV 4
#define PSC_NTT_OUT_BITREV 8

/* In-place NTTs of `batch` vectors of 2^log_n elements each, laid out one after the
 * other in host memory (Montgomery form). 1 <= log_n <= 31 as memory allows. */
int psc_ntt(psc_dev *d, fr_t *data, unsigned log_n, size_t batch, int flags, ps_err *e);

/* Uploads nhead affine bases from head (none when nhead is 0), then n from bases
 * (g1_affine_t if g2 == 0, g2_affine_t otherwise), to the device as one array of
 * nhead + n, where they stay until psc_bases_free. Caller frees with psc_bases_free. */
int psc_bases_upload(psc_dev *d, int g2, const void *head, size_t nhead, const void *bases, size_t n,
                     psc_bases **out, ps_err *e);
void psc_bases_free(psc_bases *b);
/* Precomputes, for window size c, the tables 2^(c j) * bases (j < ceil(256/c)) on the
 * device (ceil(256/c) times the bases' memory); later MSMs with window c (or 0) put every
 * window's digits into one set of buckets over these tables, so the bucket reduction is
 * done once instead of once per window, and a wide window costs no more reductions. */
int psc_bases_precompute(psc_bases *b, unsigned c, ps_err *e);
size_t psc_bases_count(const psc_bases *b);

/* out = sum_i scalars[i] * bases[i] for i < n (n <= the uploaded count), the scalars
 * canonical integers < 2^256 (fr_t in canonical form; reduced mod r on the device). out
 * is a g1_xyzz_t or g2_xyzz_t by the bases' group. window = 0 picks the window size;
 * otherwise 4..24. */
int psc_msm(psc_dev *d, psc_bases *b, const fr_t *scalars, size_t n, unsigned window,
            void *out_xyzz, ps_err *e);
/* The window size psc_msm picks for n points of group g2 (0/1). */
unsigned psc_msm_default_window(int g2, size_t n);

/* Device bytes of the MSM work buffers a handle keeps after MSMs of up to n device
 * scalars, G1 and G2, window c (without precomputed bases). */
size_t psc_msm_work_bytes(size_t n, unsigned c);
/* Device bytes Groth16's H (psc_g16_h_vec_wins) keeps at 2^log_n beside its MSM's. */
size_t psc_g16_h_work_bytes(unsigned log_n);

/* Device vectors of Fr: psc_vec_upload copies n elements up on the handle's copy stream
 * (so it overlaps other handles' kernels) into *v (made, or grown, as needed) and
 * returns when they are there. */
typedef struct psc_vec psc_vec;
int psc_vec_upload(psc_dev *d, psc_vec **v, const fr_t *host, size_t n, ps_err *e);
void psc_vec_free(psc_vec *v);

/* ---- Measurements for prover-bench (device events, data resident on the device) ---- */
/* Multiplications per second of Fr (fp = 0) or Fp (fp = 1) on the whole device. */
int psc_bench_field(psc_dev *d, int fp, double *mults_per_s, ps_err *e);
/* Times one NTT of 2^log_n random elements resident on the device (kernels only): the
 * median over reps runs, in milliseconds. */
int psc_bench_ntt(psc_dev *d, unsigned log_n, int flags, int reps, double *median_ms,
                  ps_err *e);
/* Times psc_msm on resident bases with scalars uploaded from pinned memory per call (the
 * upload is inside the timing): the median over reps, in milliseconds. */
int psc_bench_msm(psc_dev *d, psc_bases *b, const fr_t *scalars, size_t n, unsigned window,
                  int reps, double *median_ms, ps_err *e);

#ifdef __cplusplus
}
#endif

#endif
