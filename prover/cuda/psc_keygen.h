/* The CUDA backend's key generation (keygen.cu: fixed-base products over a window table
 * kept on the device) and its accounting for `prove` (cuda_backend.cu: device time of an
 * operation between two CUDA events, the peak of device memory in use). Declared apart
 * from cuda_backend.h so that the MSM kernels, which include that header, do not depend
 * on this one. prover/backend.c is the only intended caller. */
#ifndef PROVESIM_PSC_KEYGEN_H
#define PROVESIM_PSC_KEYGEN_H

#include "cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A fixed-base table on the device: nwin windows of 2^w - 1 affine points (fb.h's layout,
 * g1_affine_t or g2_affine_t by g2), copied from the host table, which the caller may
 * free on return. Free with psc_fb_free (NULL ok). */
typedef struct psc_fb psc_fb;
int psc_fb_upload(psc_dev *d, int g2, const void *table, unsigned w, unsigned nwin, psc_fb **out, ps_err *e);
void psc_fb_free(psc_fb *t);
/* out[i] = k[i] * G (k Montgomery form in host memory, out affine in host memory), in
 * chunks: a thread per product adds the table's entries in XYZZ form, then a thread per
 * run of products brings them to affine form with one inversion (Montgomery's trick).
 * tick(ctx, done) after each chunk. */
int psc_fb_mul(psc_fb *t, const fr_t *k, size_t n, void *out_affine, void (*tick)(void *, size_t), void *tick_ctx,
               ps_err *e);

/* Device time of one operation: psc_mark_begin records an event on d's compute stream;
 * psc_mark_end records a second, waits for it, and returns the seconds between them
 * (0 when the events failed). Each mark is the caller's own, so two threads may time
 * their operations at once. */
typedef struct psc_mark psc_mark;
psc_mark *psc_mark_begin(psc_dev *d);
double psc_mark_end(psc_mark *m);
/* The highest total - free of cudaMemGetInfo seen on d's GPU by this process (sampled
 * after each allocation of the backend, at every psc_mark_end and now). */
size_t psc_mem_peak(psc_dev *d);

#ifdef __cplusplus
}
#endif

#endif
