/* Groth16's H polynomial on the GPU (psc_g16_h_vec_wins, behind
 * backend_g16_h_vec_deferred): the evaluations A·z, B·z, C·z are already on the device
 * (uploaded when synth finished), and the 6 NTTs, the pointwise step (canonical scalars
 * straight away) and the H MSM all run there; only the MSM's window sums come back (the
 * epilogue combines them into a point). The MSM takes h's values on the coset gH, since
 * the key's H bases are that coset's Lagrange basis at tau (g16_setup.c), so no inverse
 * NTT back to h's coefficients. The NTT orders are chosen so that no transform needs a
 * bit-reversal pass: inverse NTTs go natural -> bit-reversed (DIF), the coset NTTs
 * bit-reversed -> natural (DIT), the order of the H bases. */
#include "ps_field.cuh"
#include "psc_int.cuh"
#include "psc_wins.h"

/* h[i] = canonical(a[i] b[i] - c[i]): h's values on the coset as MSM scalars. */
__global__ void g16_quotient(fr_t *h, const fr_t *__restrict__ a, const fr_t *__restrict__ b,
                             const fr_t *__restrict__ c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  fr_t x = a[i], y = b[i], z = c[i];
  fr_mul_d(&x, &x, &y);
  fr_sub_d(&x, &x, &z);
  fr_from_mont_d(&y, &x);
  h[i] = y;
}

/* What psc_g16_h_vec_wins keeps on the device after a call at 2^log_n, beside its MSM's
 * buffers: the H scalars (one slot), the twiddles of both directions (n/2 each) and the
 * two coset power tables (4096 + n/4096 + 1 elements each; ntt.cu's caches). */
extern "C" size_t psc_g16_h_work_bytes(unsigned log_n) {
  const size_t n = (size_t)1 << log_n;
  return (n + 2 * (n / 2) + 2 * (4096 + n / 4096 + 1)) * sizeof(fr_t);
}

extern "C" int psc_g16_h_vec_wins(psc_dev *d, psc_vec *v, size_t off, unsigned log_n, psc_bases *bases, size_t nh,
                                  psc_msm_wins *w, ps_err *e) {
  int rc = PS_OK;
  const size_t n = (size_t)1 << log_n;
  fr_t *h = NULL;
  if (off + 3 * n > v->cap) return ps_fail(e, PS_EINPUT, "Groth16 H: the vector holds %zu elements, needs %zu", v->cap, off + 3 * n);
  fr_t *buf = v->p + off;
  psc_vec_gen_bump(v); /* the NTTs below work in place */
  PSC_CHECK(cudaSetDevice(d->ordinal));
  if ((rc = psc__ws(d, PSC_WS_G16_H, n * sizeof(fr_t), "Groth16 H scalars", (void **)&h, e))) return rc;
  for (int i = 0; i < 3; i++)
    if ((rc = psc__ntt_dev(d, buf + i * n, log_n, PSC_NTT_INVERSE | PSC_NTT_OUT_BITREV, e))) return rc;
  for (int i = 0; i < 3; i++)
    if ((rc = psc__ntt_dev(d, buf + i * n, log_n, PSC_NTT_COSET | PSC_NTT_IN_BITREV, e))) return rc;
  g16_quotient<<<psc__blocks(n, 256), 256, 0, d->stream>>>(h, buf, buf + n, buf + 2 * n, n);
  PSC_CHECK_LAUNCH();
  {
    const fr_t *hp = h;
    return psc_msm_wins_dev(d, 1, &bases, &hp, &nh, 0, w, e);
  }
fail:
  return rc;
}
