/* MSM results whose last step is left for later: the window sums of each MSM, copied to
 * the host, combined into the point (Horner, on the host) when the caller wants it. A GPU
 * phase can then end when the GPU's part of its MSMs does, and the host work (about 0.3 ms
 * per G1 MSM, 1 ms per G2 MSM at 2^20) can be done outside a lock that covers the GPU
 * phases. Declared apart from cuda_backend.h so that the group kernels (msm_g1.cu,
 * msm_g2.cu) do not depend on it. */
#ifndef PROVESIM_PSC_WINS_H
#define PROVESIM_PSC_WINS_H

#include "cuda_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct psc_msm_wins {
  int count;
  int *g2;              /* per MSM: the group */
  unsigned *c, *nwin;   /* window bits and window sums kept (0: the MSM was empty) */
  size_t *at;           /* offset of each MSM's sums in buf */
  unsigned char *buf;   /* XYZZ window sums */
} psc_msm_wins;

/* count MSMs over device scalars (scalars[i], n[i] of them, canonical) with their window
 * sums left in *w (filled here; free with psc_msm_wins_free). One synchronisation. */
int psc_msm_wins_dev(psc_dev *d, int count, psc_bases *const *bases, const fr_t *const *scalars, const size_t *n,
                     unsigned window, psc_msm_wins *w, ps_err *e);
/* The same over a psc_vec at offsets. */
int psc_msm_vec_wins(psc_dev *d, int count, psc_bases *const *bases, psc_vec *v, const size_t *off, const size_t *n,
                     unsigned window, psc_msm_wins *w, ps_err *e);
/* Groth16's H for one partition: v[off ..] holds A·z | B·z | C·z on the domain of 2^log_n
 * (Montgomery), used as scratch; h = A·B - C on the coset (its values there; the key's H
 * bases carry 1/Z), and the H MSM sum_{i < nh} h_i * bases_i has its window sums left in
 * *w. */
int psc_g16_h_vec_wins(psc_dev *d, psc_vec *v, size_t off, unsigned log_n, psc_bases *bases, size_t nh,
                       psc_msm_wins *w, ps_err *e);
/* MSM i of w as a point (g1_xyzz_t or g2_xyzz_t). */
void psc_msm_wins_point(const psc_msm_wins *w, int i, void *out_xyzz);
void psc_msm_wins_free(psc_msm_wins *w);

#ifdef __cplusplus
}
#endif

#endif
