/* What groth16.c (proving, verifying) and g16_setup.c (the keys: setup and disk cache)
 * share, not for use outside them: the keys' layout and the scalars both draw.
 *
 * QAP: with the domain H = <w> of size n = 2^log_n and the Lagrange basis L_j of H,
 * u_i = sum_j A[j][i] L_j, v_i likewise from B, w_i from C, Z = X^n - 1. Keys:
 *   A_i = u_i(tau) G1, B_i = v_i(tau) G1 and G2 (every variable),
 *   IC_i = (beta u_i + alpha v_i + w_i)(tau) / gamma G1 (the constant and public inputs),
 *   L_i  = (beta u_i + alpha v_i + w_i)(tau) / delta G1 (private variables),
 *   H_j  = L_j(tau / g) Z(tau) / (delta (g^n - 1)) G1 (j < n; g = 7): the Lagrange basis
 *          of the coset gH at tau, over the constant value of Z on that coset.
 * Proof: A = alpha + sum z_i A_i + r delta, B = beta + sum z_i B_i + s delta,
 *        C = sum_priv z_i L_i + sum h_j H_j + s A + r B_G1 - r s delta,
 * where h_j = (a b - c)(g w^j), the values on the coset gH of a, b, c (the polynomials
 * whose values over H are A z, B z, C z), so that sum h_j H_j = h(tau) Z(tau) / delta G1
 * for the quotient h = (a b - c) / Z. (Versions 1 and 2 of the key cache held
 * H_j = tau^j Z(tau) / delta G1, j < n - 1, which took h's coefficients: one inverse NTT
 * more a proof.) */
#ifndef PROVESIM_G16_INT_H
#define PROVESIM_G16_INT_H

#include "curve.h"
#include "fr.h"
#include "groth16.h"
#include "r1cs.h"

struct g16_keys {
  g16_circuit_params p; /* circuit points into name */
  char name[32];
  r1cs *cs;
  size_t n, nvars, nl, nh;
  int npub;
  g1_affine_t alpha_g1, beta_g1, delta_g1;
  g2_affine_t beta_g2, gamma_g2, delta_g2;
  g1_affine_t *a, *b_g1, *l, *h;
  g2_affine_t *b_g2;
  g16_vk vk; /* vk.ic owned */
  int from_cache;
  unsigned pre_window; /* g16_keys_set_precompute: tables built at upload for this window; 0 = none */
  /* The proving key on each device where contexts are open (groth16.c: one copy per
   * device, shared by its contexts); NULL once every context is closed. */
  struct g16_dkey *dkeys;
};

/* A uniform nonzero element of Fr from the splitmix64 stream *st. */
void g16__nonzero_random(fr_t *x, uint64_t *st);

#endif
