/* NTTs over Fr, the scalar field of BLS12-381, in the plain-C backend. A transform acts in
 * place on `batch` vectors of n = 2^log_n elements (Montgomery form), stored one after
 * the other. Conventions, shared with the CUDA backend (the flag values are those of
 * prover/cuda/cuda_backend.h's PSC_NTT_*):
 *   forward:          X_k = sum_i x_i w^(ik), w = the primitive n-th root of unity
 *                     BLS_FR_ROOT_OF_UNITY^(2^(32 - log_n));
 *   coset forward:    X_k = sum_i x_i (g w^k)^i, evaluation on the coset g*H, with g the
 *                     generator BLS_FR_GENERATOR (7);
 *   inverse / coset inverse: the inverse maps of those two (the 1/n is included).
 * Orders: by default input and output are in natural order; NTT_IN_BITREV says the input
 * is in bit-reversed order (position p holds x_{rev(p)}), NTT_OUT_BITREV that the output
 * is written bit-reversed. natural -> bit-reversed is the cheapest (no permutation) for
 * the forward map, bit-reversed -> natural for the inverse. */
#ifndef PROVESIM_NTT_H
#define PROVESIM_NTT_H

#include <stddef.h>
#include "bls12_381.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NTT_INVERSE 1
#define NTT_COSET 2
#define NTT_IN_BITREV 4
#define NTT_OUT_BITREV 8

#define NTT_MAX_LOG_N 27

/* The transform selected by flags (NTT_* combined with |) on batch vectors of 2^log_n
 * elements at data; 1 <= log_n <= NTT_MAX_LOG_N. threads = 0 uses every online CPU, 1
 * runs on the caller's thread only. */
void ntt_cpu(fr_t *data, unsigned log_n, size_t batch, int flags, unsigned threads);

/* Shorthands for one vector on all CPUs. */
void ntt_forward(fr_t *a, unsigned log_n, int order_flags);
void ntt_inverse(fr_t *a, unsigned log_n, int order_flags);
void ntt_coset_forward(fr_t *a, unsigned log_n, int order_flags);
void ntt_coset_inverse(fr_t *a, unsigned log_n, int order_flags);

/* The bit-reversal permutation of 2^log_n elements, in place. */
void ntt_bitrev_permute(fr_t *a, unsigned log_n);
/* The primitive 2^log_n-th root of unity w used above (Montgomery form). */
void ntt_root_of_unity(fr_t *w, unsigned log_n);

#ifdef __cplusplus
}
#endif

#endif
