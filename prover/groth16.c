/* Groth16 on BLS12-381 (groth16.h): the setup from toxic waste drawn from the seed, the
 * disk cache of the keys, the phases of a proving call over a backend, and the verifier.
 *
 * QAP: with the domain H = <w> of size n = 2^log_n and the Lagrange basis L_j of H,
 * u_i = sum_j A[j][i] L_j, v_i likewise from B, w_i from C, Z = X^n - 1. Keys:
 *   A_i = u_i(tau) G1, B_i = v_i(tau) G1 and G2 (every variable),
 *   IC_i = (beta u_i + alpha v_i + w_i)(tau) / gamma G1 (the constant and public inputs),
 *   L_i  = (beta u_i + alpha v_i + w_i)(tau) / delta G1 (private variables),
 *   H_j  = tau^j Z(tau) / delta G1 (j < n - 1).
 * Proof: A = alpha + sum z_i A_i + r delta, B = beta + sum z_i B_i + s delta,
 *        C = sum_priv z_i L_i + sum h_j H_j + s A + r B_G1 - r s delta,
 * where h = (a b - c) / Z from the evaluations of A z, B z, C z over H, computed on the
 * coset 7H (where Z is the constant 7^n - 1).
 *
 * One file (about 1000 lines) because setup, proving and verifying are one scheme over the
 * definitions above; the keys' disk cache lives here because its layout is the keys'. */
#include "groth16.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve.h"
#include "par.h"
#include "seed.h"
#include "fr.h"
#include "ntt.h"
#include "pairing.h"
#include "r1cs.h"

/* ---- small helpers ---- */

/* Bits [off, off + w) of a canonical scalar (w <= 24). */
static unsigned scalar_bits(const fr_t *k, unsigned off, unsigned w) {
  uint64_t v = 0;
  unsigned limb = off / 32, sh = off % 32;
  for (unsigned i = 0; i < 2 && limb + i < BLS_FR_LIMBS; i++) v |= (uint64_t)k->v[limb + i] << (32 * i);
  return (unsigned)((v >> sh) & ((1u << w) - 1));
}

/* ---- fixed-base scalar multiplication: a table of d * 2^(w i) * G for every window i
 * and digit d, so k * G costs one mixed addition per window. Written once for both
 * groups. ---- */

typedef struct setup_progress {
  void (*fn)(double, void *);
  void *ctx;
  double lo, span; /* this stage covers [lo, lo + span) of the whole */
  size_t total;
} setup_progress;

static void progress_tick(void *p, size_t done) {
  setup_progress *sp = p;
  if (sp->fn && sp->total) sp->fn(sp->lo + sp->span * (double)done / (double)sp->total, sp->ctx);
}

static unsigned fb_window(size_t n, unsigned cap) {
  unsigned best = 4;
  double bestc = 1e300;
  for (unsigned w = 4; w <= cap; w++) {
    double c = (double)((255 + w - 1) / w) * ((double)n + (double)(1u << w));
    if (c < bestc) bestc = c, best = w;
  }
  return best;
}

#define FB_DEFINE(G, F, FT, AFF, JAC)                                                                  \
  typedef struct G##_fb {                                                                       \
    unsigned w, nwin;                                                                           \
    size_t per; /* 2^w - 1 entries per window */                                                \
    AFF *t;                                                                                     \
    JAC *bases;                                                                                 \
  } G##_fb;                                                                                     \
                                                                                                \
  static void G##_fb_build_range(void *ctx, size_t lo, size_t hi) {                             \
    G##_fb *fb = ctx;                                                                           \
    JAC *tmp = xmalloc(fb->per * sizeof *tmp);                                                  \
    for (size_t i = lo; i < hi; i++) {                                                          \
      tmp[0] = fb->bases[i];                                                                    \
      for (size_t d = 1; d < fb->per; d++) G##_jac_add(&tmp[d], &tmp[d - 1], &fb->bases[i]);    \
      G##_jac_batch_to_affine(fb->t + i * fb->per, tmp, fb->per);                               \
    }                                                                                           \
    free(tmp);                                                                                  \
  }                                                                                             \
                                                                                                \
  static void G##_fb_build(G##_fb *fb, const AFF *gen, unsigned w) {                            \
    fb->w = w;                                                                                  \
    fb->nwin = (255 + w - 1) / w;                                                               \
    fb->per = ((size_t)1 << w) - 1;                                                             \
    fb->t = xmalloc(fb->nwin * fb->per * sizeof *fb->t);                                        \
    fb->bases = xmalloc(fb->nwin * sizeof *fb->bases);                                          \
    G##_jac_from_affine(&fb->bases[0], gen);                                                    \
    for (unsigned i = 1; i < fb->nwin; i++) {                                                   \
      fb->bases[i] = fb->bases[i - 1];                                                          \
      for (unsigned j = 0; j < w; j++) G##_jac_dbl(&fb->bases[i], &fb->bases[i]);               \
    }                                                                                           \
    par_for(fb->nwin, 1, 0, G##_fb_build_range, fb, NULL, NULL);                                   \
    free(fb->bases);                                                                            \
    fb->bases = NULL;                                                                           \
  }                                                                                             \
                                                                                                \
  typedef struct G##_fb_job {                                                                   \
    const G##_fb *fb;                                                                           \
    const fr_t *k;                                                                              \
    AFF *out;                                                                                   \
  } G##_fb_job;                                                                                 \
                                                                                                \
  /* The chunk's k[i] G, window by window, with affine accumulators: each window's additions   \
   * share one field inversion (Montgomery's trick). The rare exceptional sums (equal x)        \
   * go through the Jacobian formulas. */                                                       \
  static void G##_fb_many_range(void *ctx, size_t lo, size_t hi) {                              \
    G##_fb_job *j = ctx;                                                                        \
    const G##_fb *fb = j->fb;                                                                   \
    size_t m = hi - lo;                                                                         \
    AFF *acc = j->out + lo;                                                                     \
    fr_t *k = xmalloc(m * sizeof *k);                                                           \
    FT *den = xmalloc(m * sizeof *den), *pre = xmalloc(m * sizeof *pre);                        \
    const AFF **add = xmalloc(m * sizeof *add);                                                 \
    unsigned char *live = xcalloc(m, 1);                                                        \
    for (size_t e = 0; e < m; e++) {                                                            \
      fr_to_canon(&k[e], &j->k[lo + e]);                                                        \
      G##_affine_set_inf(&acc[e]);                                                              \
    }                                                                                           \
    for (unsigned i = 0; i < fb->nwin; i++) {                                                   \
      unsigned bits = 255 - i * fb->w < fb->w ? 255 - i * fb->w : fb->w;                        \
      FT run;                                                                                   \
      F##_one(&run);                                                                            \
      for (size_t e = 0; e < m; e++) {                                                          \
        unsigned d = scalar_bits(&k[e], i * fb->w, bits);                                       \
        add[e] = NULL;                                                                          \
        if (!d) continue;                                                                       \
        const AFF *t = &fb->t[i * fb->per + d - 1];                                             \
        if (!live[e]) {                                                                         \
          acc[e] = *t;                                                                          \
          live[e] = 1;                                                                          \
        } else if (!memcmp(&acc[e].x, &t->x, 4) && F##_eq(&acc[e].x, &t->x)) {                 \
          JAC r;                                                                                \
          G##_jac_from_affine(&r, &acc[e]);                                                     \
          G##_jac_add_affine(&r, &r, t);                                                        \
          G##_jac_to_affine(&acc[e], &r);                                                       \
          live[e] = !G##_jac_is_inf(&r);                                                        \
        } else {                                                                                \
          add[e] = t;                                                                           \
          F##_sub(&den[e], &t->x, &acc[e].x);                                                   \
          pre[e] = run;                                                                         \
          F##_mul(&run, &run, &den[e]);                                                         \
        }                                                                                       \
      }                                                                                         \
      FT inv;                                                                                   \
      F##_inv(&inv, &run);                                                                      \
      for (size_t e = m; e-- > 0;) {                                                            \
        if (!add[e]) continue;                                                                  \
        FT di, lam, x3, y3;                                                                     \
        F##_mul(&di, &inv, &pre[e]);                                                            \
        F##_mul(&inv, &inv, &den[e]);                                                           \
        F##_sub(&lam, &add[e]->y, &acc[e].y);                                                   \
        F##_mul(&lam, &lam, &di);                                                               \
        F##_sqr(&x3, &lam);                                                                     \
        F##_sub(&x3, &x3, &acc[e].x);                                                           \
        F##_sub(&x3, &x3, &add[e]->x);                                                          \
        F##_sub(&y3, &acc[e].x, &x3);                                                           \
        F##_mul(&y3, &y3, &lam);                                                                \
        F##_sub(&y3, &y3, &acc[e].y);                                                           \
        acc[e].x = x3;                                                                          \
        acc[e].y = y3;                                                                          \
      }                                                                                         \
    }                                                                                           \
    for (size_t e = 0; e < m; e++)                                                              \
      if (!live[e]) G##_affine_set_inf(&acc[e]);                                                \
    free(k), free(den), free(pre), free(add), free(live);                                       \
  }                                                                                             \
                                                                                                \
  /* out[i] = k[i] G for Montgomery-form k. */                                                  \
  static void G##_fb_many(const G##_fb *fb, const fr_t *k, AFF *out, size_t n,                  \
                          setup_progress *sp) {                                                 \
    G##_fb_job j = {fb, k, out};                                                                \
    sp->total = n;                                                                              \
    par_for(n, 2048, 0, G##_fb_many_range, &j, progress_tick, sp);                                  \
  }                                                                                             \
                                                                                                \
  static void G##_fb_free(G##_fb *fb) { free(fb->t); }

FB_DEFINE(g1, fp, fp_t, g1_affine_t, g1_jac_t)
FB_DEFINE(g2, fp2, fp2_t, g2_affine_t, g2_jac_t)

/* ---- keys ---- */

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
};

void g16_keys_free(g16_keys *k) {
  if (!k) return;
  r1cs_free(k->cs);
  free(k->a), free(k->b_g1), free(k->l), free(k->h), free(k->b_g2), free(k->vk.ic);
  free(k);
}

const g16_vk *g16_keys_vk(const g16_keys *k) { return &k->vk; }
int64_t g16_keys_constraints(const g16_keys *k) { return k->cs->nrows; }
const r1cs *g16_keys_r1cs(const g16_keys *k) { return k->cs; }
int g16_keys_from_cache(const g16_keys *k) { return k->from_cache; }

static void keys_alloc(g16_keys *k) {
  k->n = (size_t)k->cs->nrows;
  k->nvars = (size_t)k->cs->nvars;
  k->npub = k->cs->npub;
  k->nl = k->nvars - (size_t)k->npub - 1;
  k->nh = k->n - 1;
  k->a = xmalloc(k->nvars * sizeof *k->a);
  k->b_g1 = xmalloc(k->nvars * sizeof *k->b_g1);
  k->l = xmalloc(k->nl * sizeof *k->l);
  k->h = xmalloc(k->nh * sizeof *k->h);
  k->b_g2 = xmalloc(k->nvars * sizeof *k->b_g2);
  k->vk.nic = k->npub + 1;
  k->vk.ic = xmalloc((size_t)k->vk.nic * sizeof *k->vk.ic);
}

static void keys_fill_vk(g16_keys *k) {
  k->vk.alpha_g1 = k->alpha_g1;
  k->vk.beta_g2 = k->beta_g2;
  k->vk.gamma_g2 = k->gamma_g2;
  k->vk.delta_g2 = k->delta_g2;
}

typedef struct qap_job {
  const r1cs *cs;
  const r1cs_matrix *m;
  const fr_t *lag;
  fr_t *out;
} qap_job;

/* out[i] = sum_j M[j][i] L_j(tau) for the matrices [lo, hi) of the three (par_for). */
static void qap_columns(void *ctx, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; i++) {
    qap_job *q = (qap_job *)ctx + i;
    const r1cs *cs = q->cs;
    for (int64_t j = 0; j < cs->nrows; j++)
      for (uint64_t t = q->m->row[j]; t < q->m->row[j + 1]; t++) {
        const r1cs_term *tm = &q->m->terms[t];
        fr_t x;
        if (tm->coef == 0) x = q->lag[j];
        else fr_mul(&x, &cs->coefs[tm->coef], &q->lag[j]);
        fr_add(&q->out[tm->var], &q->out[tm->var], &x);
      }
  }
}

static void nonzero_random(fr_t *x, uint64_t *st) {
  do fr_random(x, ps_splitmix64, st);
  while (fr_is_zero(x));
}

/* The setup proper: k->cs is built; fills every key. */
static void setup(g16_keys *k, void (*progress)(double, void *), void *pctx) {
  const r1cs *cs = k->cs;
  size_t n = k->n, nv = k->nvars;
  uint64_t st = k->p.seed ^ 0x746f786963ull; /* "toxic" */
  fr_t tau, alpha, beta, gamma, delta, one, zt, t;
  fr_one(&one);
  for (;;) { /* tau must lie outside the domain: Z(tau) != 0 */
    nonzero_random(&tau, &st);
    uint32_t e[2] = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32)};
    fr_pow(&zt, &tau, e, 2);
    fr_sub(&zt, &zt, &one);
    if (!fr_is_zero(&zt)) break;
  }
  nonzero_random(&alpha, &st);
  nonzero_random(&beta, &st);
  nonzero_random(&gamma, &st);
  nonzero_random(&delta, &st);

  /* Lagrange basis at tau: L_j = Z(tau)/n * w^j / (tau - w^j). */
  fr_t *lag = xmalloc(n * sizeof *lag), *wj = xmalloc(n * sizeof *wj);
  fr_t w, acc, inv, ninv;
  ntt_root_of_unity(&w, (unsigned)cs->log_n);
  fr_one(&wj[0]);
  for (size_t j = 1; j < n; j++) fr_mul(&wj[j], &wj[j - 1], &w);
  fr_from_u64(&ninv, n);
  fr_inv(&ninv, &ninv);
  fr_mul(&ninv, &ninv, &zt); /* Z(tau)/n */
  fr_one(&acc);
  for (size_t j = 0; j < n; j++) { /* batch inversion of tau - w^j */
    fr_sub(&lag[j], &tau, &wj[j]);
    fr_t d = lag[j];
    lag[j] = acc; /* prefix product */
    fr_mul(&acc, &acc, &d);
  }
  fr_inv(&inv, &acc);
  for (size_t j = n; j-- > 0;) {
    fr_t d;
    fr_sub(&d, &tau, &wj[j]);
    fr_mul(&lag[j], &lag[j], &inv); /* 1 / (tau - w^j) */
    fr_mul(&inv, &inv, &d);
    fr_mul(&lag[j], &lag[j], &wj[j]);
    fr_mul(&lag[j], &lag[j], &ninv);
  }
  free(wj);

  fr_t *u = xcalloc(nv, sizeof *u), *v = xcalloc(nv, sizeof *v), *ww = xcalloc(nv, sizeof *ww);
  qap_job qj[3] = {{cs, &cs->a, lag, u}, {cs, &cs->b, lag, v}, {cs, &cs->c, lag, ww}};
  par_for(3, 1, 3, qap_columns, qj, NULL, NULL);
  free(lag);

  /* G1 scalars, in the order of the outputs: A, B_G1, L, H, IC, alpha, beta, delta. */
  size_t nic = (size_t)k->vk.nic;
  size_t n1 = 2 * nv + k->nl + k->nh + nic + 3;
  fr_t *s1 = xmalloc(n1 * sizeof *s1);
  fr_t gi, di;
  fr_inv(&gi, &gamma);
  fr_inv(&di, &delta);
  memcpy(s1, u, nv * sizeof *u);
  memcpy(s1 + nv, v, nv * sizeof *v);
  fr_t *sl = s1 + 2 * nv, *sh = sl + k->nl, *sic = sh + k->nh, *sx = sic + nic;
  for (size_t i = 0; i < nv; i++) {
    fr_t x, y;
    fr_mul(&x, &beta, &u[i]);
    fr_mul(&y, &alpha, &v[i]);
    fr_add(&x, &x, &y);
    fr_add(&x, &x, &ww[i]);
    if (i < nic) fr_mul(&sic[i], &x, &gi);
    else fr_mul(&sl[i - nic], &x, &di);
  }
  fr_mul(&t, &zt, &di);
  for (size_t j = 0; j < k->nh; j++) {
    sh[j] = t;
    fr_mul(&t, &t, &tau);
  }
  sx[0] = alpha, sx[1] = beta, sx[2] = delta;
  fr_t s2[3] = {beta, gamma, delta};
  free(u), free(ww);

  /* Cost shares of the stages for the progress figure (a G2 addition costs about 3). */
  unsigned w1 = fb_window(n1, 16), w2 = fb_window(nv + 3, 15);
  double c1t = (double)((255 + w1 - 1) / w1) * (double)(1u << w1);
  double c1 = (double)((255 + w1 - 1) / w1) * (double)n1;
  double c2t = 3.0 * (double)((255 + w2 - 1) / w2) * (double)(1u << w2);
  double c2 = 3.0 * (double)((255 + w2 - 1) / w2) * (double)(nv + 3);
  double tot = c1t + c1 + c2t + c2;
  setup_progress sp = {progress, pctx, 0, 0, 0};

  g1_affine_t g1gen;
  g1_generator(&g1gen);
  g1_fb fb1;
  g1_fb_build(&fb1, &g1gen, w1);
  if (progress) progress(c1t / tot, pctx);
  /* Straight into the key's arrays (no second copy of the G1 keys), segment by segment. */
  g1_affine_t ox[3];
  struct {
    const fr_t *k;
    g1_affine_t *out;
    size_t n;
  } seg[6] = {{s1, k->a, nv},          {s1 + nv, k->b_g1, nv}, {sl, k->l, k->nl},
              {sh, k->h, k->nh},       {sic, k->vk.ic, nic},   {sx, ox, 3}};
  size_t before = 0;
  for (int i = 0; i < 6; i++) {
    sp.lo = (c1t + c1 * (double)before / (double)n1) / tot;
    sp.span = c1 * (double)seg[i].n / (double)n1 / tot;
    g1_fb_many(&fb1, seg[i].k, seg[i].out, seg[i].n, &sp);
    before += seg[i].n;
  }
  g1_fb_free(&fb1);
  k->alpha_g1 = ox[0], k->beta_g1 = ox[1], k->delta_g1 = ox[2];
  free(s1);

  g2_affine_t g2gen;
  g2_generator(&g2gen);
  g2_fb fb2;
  g2_fb_build(&fb2, &g2gen, w2);
  if (progress) progress((c1t + c1 + c2t) / tot, pctx);
  sp.lo = (c1t + c1 + c2t) / tot, sp.span = c2 / tot;
  g2_fb_many(&fb2, v, k->b_g2, nv, &sp);
  g2_affine_t o2[3];
  g2_fb_many(&fb2, s2, o2, 3, &sp);
  g2_fb_free(&fb2);
  k->beta_g2 = o2[0], k->gamma_g2 = o2[1], k->delta_g2 = o2[2];
  free(v);
  keys_fill_vk(k);
  if (progress) progress(1.0, pctx);
}

/* ---- the key cache ----
 * One file per (circuit, domain size, seed, boolean fraction), named
 * groth16-CIRCUIT-2^LOGN-seedSEED-boolFRAC.keys, in this layout (all integers and limbs
 * little-endian, as this machine stores them):
 *   header (112 bytes): magic "PSG16KEY", u32 version (1), u32 header size (112),
 *     char circuit[32] (NUL-padded), u64 seed, f64 boolean fraction as requested,
 *     u32 log_n, u32 npub, u64 nvars, u64 nl (L terms), u64 nh (H terms), u64 nic,
 *     u64 byte-order mark 0x0102030405060708;
 *   points, affine, Montgomery-form limbs (G1 96 bytes: x then y; G2 192 bytes: x.c0,
 *     x.c1, y.c0, y.c1; infinity as all zeros): alpha_g1, beta_g1, delta_g1, beta_g2,
 *     gamma_g2, delta_g2, IC[nic], A[nvars], B_G1[nvars], L[nl], H[nh], B_G2[nvars];
 *   u64 checksum of everything before it (ck_update below).
 * A file that does not match (other version, parameters, sizes, a short read, a bad
 * checksum) is ignored and rewritten. */

#define KEYFILE_VERSION 1

typedef struct keyfile_hdr {
  char magic[8];
  uint32_t version, hdr_bytes;
  char circuit[32];
  uint64_t seed;
  double boolean_fraction;
  uint32_t log_n, npub;
  uint64_t nvars, nl, nh, nic;
  uint64_t bom;
} keyfile_hdr;

/* A 64-bit multiply-xorshift hash over 8-byte words (lengths are multiples of 8). */
static uint64_t ck_update(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  PS_ASSERT(n % 8 == 0);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  return h;
}

static void keyfile_hdr_fill(keyfile_hdr *h, const g16_keys *k) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, "PSG16KEY", 8);
  h->version = KEYFILE_VERSION;
  h->hdr_bytes = sizeof *h;
  snprintf(h->circuit, sizeof h->circuit, "%s", k->name);
  h->seed = k->p.seed;
  h->boolean_fraction = k->p.boolean_fraction;
  h->log_n = k->cs->log_n;
  h->npub = (uint32_t)k->npub;
  h->nvars = k->nvars, h->nl = k->nl, h->nh = k->nh, h->nic = (uint64_t)k->vk.nic;
  h->bom = 0x0102030405060708ull;
}

typedef struct keyfile_part {
  void *p;
  size_t bytes;
} keyfile_part;

static int keyfile_parts(g16_keys *k, keyfile_part *parts) {
  int i = 0;
  parts[i++] = (keyfile_part){&k->alpha_g1, sizeof k->alpha_g1};
  parts[i++] = (keyfile_part){&k->beta_g1, sizeof k->beta_g1};
  parts[i++] = (keyfile_part){&k->delta_g1, sizeof k->delta_g1};
  parts[i++] = (keyfile_part){&k->beta_g2, sizeof k->beta_g2};
  parts[i++] = (keyfile_part){&k->gamma_g2, sizeof k->gamma_g2};
  parts[i++] = (keyfile_part){&k->delta_g2, sizeof k->delta_g2};
  parts[i++] = (keyfile_part){k->vk.ic, (size_t)k->vk.nic * sizeof *k->vk.ic};
  parts[i++] = (keyfile_part){k->a, k->nvars * sizeof *k->a};
  parts[i++] = (keyfile_part){k->b_g1, k->nvars * sizeof *k->b_g1};
  parts[i++] = (keyfile_part){k->l, k->nl * sizeof *k->l};
  parts[i++] = (keyfile_part){k->h, k->nh * sizeof *k->h};
  parts[i++] = (keyfile_part){k->b_g2, k->nvars * sizeof *k->b_g2};
  return i;
}

static char *keyfile_path(const char *dir, const g16_keys *k) {
  return xasprintf("%s/groth16-%s-2^%u-seed%llu-bool%.4f.keys", dir, k->name, k->cs->log_n,
                   (unsigned long long)k->p.seed, k->p.boolean_fraction);
}

/* 1 when loaded; 0 (with why filled) when the file is missing or does not match. */
static int keyfile_load(const char *path, g16_keys *k, char *why, size_t whysz) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, whysz, "%s", strerror(errno));
    return 0;
  }
  keyfile_hdr want, got;
  keyfile_hdr_fill(&want, k);
  int ok = 0;
  if (fread(&got, sizeof got, 1, f) != 1) {
    snprintf(why, whysz, "short header");
    goto out;
  }
  if (memcmp(&got, &want, sizeof got)) {
    snprintf(why, whysz, "written by another version or for other parameters");
    goto out;
  }
  uint64_t h = ck_update(0, &got, sizeof got), stored;
  keyfile_part parts[16];
  int np = keyfile_parts(k, parts);
  for (int i = 0; i < np; i++) {
    if (parts[i].bytes && fread(parts[i].p, parts[i].bytes, 1, f) != 1) {
      snprintf(why, whysz, "truncated");
      goto out;
    }
    h = ck_update(h, parts[i].p, parts[i].bytes);
  }
  if (fread(&stored, sizeof stored, 1, f) != 1 || stored != h) {
    snprintf(why, whysz, "checksum mismatch");
    goto out;
  }
  ok = 1;
out:
  fclose(f);
  return ok;
}

static int keyfile_save(const char *dir, const char *path, g16_keys *k, ps_err *e) {
  if (mkdir(dir, 0777) && errno != EEXIST)
    return ps_fail(e, PS_ERR, "%s: cannot create the key cache directory: %s", dir, strerror(errno));
  ps_outfile o;
  if (ps_out_open(&o, path, e) != PS_OK) return PS_ERR;
  keyfile_hdr hd;
  keyfile_hdr_fill(&hd, k);
  uint64_t h = ck_update(0, &hd, sizeof hd);
  int bad = fwrite(&hd, sizeof hd, 1, o.f) != 1;
  keyfile_part parts[16];
  int np = keyfile_parts(k, parts);
  for (int i = 0; i < np && !bad; i++) {
    if (parts[i].bytes) bad = fwrite(parts[i].p, parts[i].bytes, 1, o.f) != 1;
    h = ck_update(h, parts[i].p, parts[i].bytes);
  }
  if (!bad) bad = fwrite(&h, sizeof h, 1, o.f) != 1;
  if (bad) {
    ps_out_abort(&o);
    return ps_fail(e, PS_ERR, "%s: cannot write the key cache: %s", path, strerror(errno));
  }
  return ps_out_commit(&o, e);
}

int g16_keys_get(const g16_circuit_params *p, const char *cache_dir, void (*progress)(double, void *),
                 void *progress_ctx, g16_keys **out, ps_err *e) {
  *out = NULL;
  g16_keys *k = xcalloc(1, sizeof *k);
  k->p = *p;
  int rc = r1cs_new(p->circuit, p->constraints, p->boolean_fraction, &k->cs, e);
  if (rc) {
    free(k);
    return rc;
  }
  snprintf(k->name, sizeof k->name, "%s", k->cs->circuit);
  k->p.circuit = k->name;
  if (k->p.boolean_fraction < 0) k->p.boolean_fraction = R1CS_DEFAULT_BOOLEAN_FRACTION;
  k->p.constraints = k->cs->nrows;
  keys_alloc(k);
  char *path = cache_dir ? keyfile_path(cache_dir, k) : NULL;
  char why[256];
  if (path && keyfile_load(path, k, why, sizeof why)) {
    keys_fill_vk(k);
    k->from_cache = 1;
    if (progress) progress(1.0, progress_ctx);
  } else {
    if (path && access(path, F_OK) == 0)
      fprintf(stderr, "provesim: key cache %s: %s; running the setup again\n", path, why);
    setup(k, progress, progress_ctx);
    if (path && (rc = keyfile_save(cache_dir, path, k, e))) {
      free(path);
      g16_keys_free(k);
      return rc;
    }
  }
  free(path);
  *out = k;
  return PS_OK;
}

size_t g16_ctx_bytes(const g16_keys *k) {
  return (2 * k->nvars + k->nl + k->nh) * sizeof(g1_affine_t) + k->nvars * sizeof(g2_affine_t);
}

size_t g16_job_bytes(const g16_keys *k, int partitions) {
  return (size_t)(partitions > 0 ? partitions : 1) * (3 * k->n + k->nvars) * sizeof(fr_t);
}

/* ---- contexts ---- */

/* A job's buffers: z, A·z|B·z|C·z and the MSM scalars on the host (backend memory,
 * pinned with a device) and, with a device, the last two there too (synth and prep upload
 * them as they finish, outside the GPU phases, so a narrow lock does not cover the
 * copies). k partitions fit. */
typedef struct g16_bufs {
  fr_t *z, *abc, *scal;
  backend_vec *dev_abc, *dev_scal;
  int k;
} g16_bufs;

/* Makes room for k partitions (device vectors grow when uploaded into). */
static void bufs_fit(ps_backend *b, const g16_keys *K, g16_bufs *s, int k) {
  if (s->k >= k) return;
  size_t scal_bytes = (size_t)k * K->nvars * sizeof(fr_t);
  backend_host_free(b, s->abc);
  backend_host_free(b, s->scal);
  free(s->z);
  s->z = xmalloc(scal_bytes);
  s->abc = backend_host_alloc(b, (size_t)k * 3 * K->n * sizeof(fr_t));
  s->scal = backend_host_alloc(b, scal_bytes);
  s->k = k;
}

static void bufs_free(ps_backend *b, g16_bufs *s) {
  backend_host_free(b, s->abc);
  backend_host_free(b, s->scal);
  free(s->z);
  backend_vec_free(s->dev_abc);
  backend_vec_free(s->dev_scal);
  memset(s, 0, sizeof *s);
}

struct g16_ctx {
  ps_backend *b;
  const g16_keys *k;
  backend_msm_bases *a, *b_g1, *l, *h, *b_g2;
  /* The jobs' buffers, kept for the next job: pinning and freeing hundreds of MB per call
   * costs tens of ms, and freeing pinned memory synchronises the whole device, stalling
   * the other workers' kernels. bufs_busy is set while a job uses them (a second
   * concurrent job gets its own). */
  g16_bufs bufs;
  int bufs_busy;
  unsigned threads; /* CPU threads of the jobs' CPU steps; 0 = every CPU */
};

void g16_ctx_close(g16_ctx *c) {
  if (!c) return;
  bufs_free(c->b, &c->bufs);
  backend_msm_bases_free(c->a);
  backend_msm_bases_free(c->b_g1);
  backend_msm_bases_free(c->l);
  backend_msm_bases_free(c->h);
  backend_msm_bases_free(c->b_g2);
  free(c);
}

void g16_ctx_set_threads(g16_ctx *c, unsigned threads) { c->threads = threads; }

int g16_ctx_open(ps_backend *b, const g16_keys *k, g16_ctx **out, ps_err *e) {
  *out = NULL;
  g16_ctx *c = xcalloc(1, sizeof *c);
  c->b = b;
  c->k = k;
  int rc;
  if ((rc = backend_msm_bases_g1(b, k->a, k->nvars, &c->a, e)) ||
      (rc = backend_msm_bases_g1(b, k->b_g1, k->nvars, &c->b_g1, e)) ||
      (rc = backend_msm_bases_g1(b, k->l, k->nl, &c->l, e)) ||
      (rc = backend_msm_bases_g1(b, k->h, k->nh, &c->h, e)) ||
      (rc = backend_msm_bases_g2(b, k->b_g2, k->nvars, &c->b_g2, e))) {
    g16_ctx_close(c);
    return rc;
  }
  *out = c;
  return PS_OK;
}

/* ---- jobs ---- */

struct g16_job {
  g16_ctx *c;
  int k;
  uint64_t *seeds, rng_seed;
  fr_t *z;    /* k * nvars, Montgomery */
  fr_t *abc;  /* k * 3n (backend host memory): A z | B z | C z per partition; then h */
  fr_t *scal; /* k * nvars (backend host memory): canonical z */
  g16_bufs *bufs; /* the context's, or own */
  g16_bufs own;
  /* With a device: the MSMs of ntt_h (H), msm (A, B_G1, L per partition) and b_g2, their
   * window sums not yet combined into points; the epilogue does that, on the CPU, outside
   * a lock that covers the GPU phases. */
  backend_msm_deferred *def_h, *def_msm, *def_b2;
  g1_jac_t *h_acc, *a_acc, *b1_acc, *l_acc;
  g2_jac_t *b2_acc;
  g16_proof *proofs;
  /* phases done, one flag each (written by the phase's thread) */
  int synth_done, prep_done, ntt_done, msm_done, bg2_done, epi_done;
};

g16_job *g16_job_new(g16_ctx *c, int k, const uint64_t *instance_seeds, uint64_t rng_seed) {
  PS_ASSERT(k >= 1);
  const g16_keys *K = c->k;
  g16_job *j = xcalloc(1, sizeof *j);
  j->c = c;
  j->k = k;
  j->seeds = xmalloc((size_t)k * sizeof *j->seeds);
  memcpy(j->seeds, instance_seeds, (size_t)k * sizeof *j->seeds);
  j->rng_seed = rng_seed;
  if (c->bufs_busy) {
    j->bufs = &j->own;
  } else {
    j->bufs = &c->bufs;
    c->bufs_busy = 1;
  }
  bufs_fit(c->b, K, j->bufs, k);
  j->z = j->bufs->z;
  j->abc = j->bufs->abc;
  j->scal = j->bufs->scal;
  j->h_acc = xcalloc((size_t)k, sizeof *j->h_acc);
  j->a_acc = xcalloc((size_t)k, sizeof *j->a_acc);
  j->b1_acc = xcalloc((size_t)k, sizeof *j->b1_acc);
  j->l_acc = xcalloc((size_t)k, sizeof *j->l_acc);
  j->b2_acc = xcalloc((size_t)k, sizeof *j->b2_acc);
  j->proofs = xcalloc((size_t)k, sizeof *j->proofs);
  return j;
}

void g16_job_free(g16_job *j) {
  if (!j) return;
  free(j->seeds);
  backend_msm_deferred_free(j->def_h);
  backend_msm_deferred_free(j->def_msm);
  backend_msm_deferred_free(j->def_b2);
  if (j->bufs == &j->own) bufs_free(j->c->b, &j->own);
  else j->c->bufs_busy = 0;
  free(j->h_acc), free(j->a_acc), free(j->b1_acc), free(j->l_acc), free(j->b2_acc);
  free(j->proofs);
  free(j);
}

static int order_error(ps_err *e, const char *phase, const char *needs) {
  return ps_fail(e, PS_EINPUT, "g16_%s: called before g16_%s (phases must follow the graph of groth16.h)",
                 phase, needs);
}

int g16_synth(g16_job *j, ps_err *e) {
  const g16_keys *K = j->c->k;
  for (int p = 0; p < j->k; p++) {
    fr_t *z = j->z + (size_t)p * K->nvars, *abc = j->abc + (size_t)p * 3 * K->n;
    r1cs_witness(K->cs, j->seeds[p], z);
    r1cs_eval(K->cs, z, abc, abc + K->n, abc + 2 * K->n, j->c->threads);
  }
  /* With a device, A·z, B·z, C·z go up now, while another worker may hold the GPU. */
  if (backend_has_device(j->c->b)) {
    int rc = backend_vec_upload(j->c->b, &j->bufs->dev_abc, j->abc, (size_t)j->k * 3 * K->n, e);
    if (rc) return rc;
  }
  j->synth_done = 1;
  return PS_OK;
}

typedef struct canon_job {
  const fr_t *in;
  fr_t *out;
} canon_job;

static void canon_range(void *ctx, size_t lo, size_t hi) {
  canon_job *c = ctx;
  for (size_t i = lo; i < hi; i++) fr_to_canon(&c->out[i], &c->in[i]);
}

int g16_prep(g16_job *j, ps_err *e) {
  if (!j->synth_done) return order_error(e, "prep", "synth");
  canon_job c = {j->z, j->scal};
  par_for((size_t)j->k * j->c->k->nvars, 1 << 14, (int)j->c->threads, canon_range, &c, NULL, NULL);
  if (backend_has_device(j->c->b)) { /* the MSM scalars go up now, as A·z.. in synth */
    int rc = backend_vec_upload(j->c->b, &j->bufs->dev_scal, j->scal, (size_t)j->k * j->c->k->nvars, e);
    if (rc) return rc;
  }
  j->prep_done = 1;
  return PS_OK;
}

typedef struct quot_job {
  const fr_t *a, *b, *c;
  fr_t *out;
  fr_t zinv;
} quot_job;

static void quot_range(void *ctx, size_t lo, size_t hi) {
  quot_job *q = ctx;
  for (size_t i = lo; i < hi; i++) {
    fr_t t;
    fr_mul(&t, &q->a[i], &q->b[i]);
    fr_sub(&t, &t, &q->c[i]);
    fr_mul(&q->out[i], &t, &q->zinv);
  }
}

int g16_ntt_h(g16_job *j, ps_err *e) {
  if (!j->synth_done) return order_error(e, "ntt_h", "synth");
  const g16_keys *K = j->c->k;
  size_t n = K->n;
  unsigned log_n = K->cs->log_n;
  int rc;
  /* Z = g^n - 1 on the coset gH (g = 7), the same at every point. */
  fr_t g = BLS_FR_GENERATOR, zinv, one;
  uint32_t ex[2] = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32)};
  fr_pow(&zinv, &g, ex, 2);
  fr_one(&one);
  fr_sub(&zinv, &zinv, &one);
  fr_inv(&zinv, &zinv);
  /* With a device, all of it runs there, on the vectors synth uploaded. */
  if (backend_has_device(j->c->b)) {
    backend_msm_deferred_free(j->def_h);
    j->def_h = NULL;
    if ((rc = backend_g16_h_vec_deferred(j->c->b, j->bufs->dev_abc, log_n, j->k, j->c->h, K->nh, &zinv, &j->def_h, e)))
      return rc;
    j->ntt_done = 1;
    return PS_OK;
  }
  /* Coefficients of A z, B z, C z (3 inverse NTTs per partition), then their values on
   * the coset 7H (3 coset NTTs). */
  if ((rc = backend_ntt(j->c->b, j->abc, log_n, (size_t)3 * j->k, NTT_INVERSE, e))) return rc;
  if ((rc = backend_ntt(j->c->b, j->abc, log_n, (size_t)3 * j->k, NTT_COSET, e))) return rc;
  /* h = (a b - c) / Z on the coset; partition p's h goes to abc[p n ..], below its own
   * inputs and over inputs already consumed. */
  for (int p = 0; p < j->k; p++) {
    fr_t *src = j->abc + (size_t)p * 3 * n;
    quot_job q = {src, src + n, src + 2 * n, j->abc + (size_t)p * n, zinv};
    par_for(n, 1 << 13, (int)j->c->threads, quot_range, &q, NULL, NULL);
  }
  if ((rc = backend_ntt(j->c->b, j->abc, log_n, (size_t)j->k, NTT_INVERSE | NTT_COSET, e))) return rc;
  for (int p = 0; p < j->k; p++) {
    fr_t *h = j->abc + (size_t)p * n;
    if (!fr_is_zero(&h[n - 1]))
      return ps_fail(e, PS_ERR,
                     "partition %d: the witness does not satisfy the circuit (h has degree n - 1)", p);
    canon_job c = {h, h};
    par_for(n - 1, 1 << 14, (int)j->c->threads, canon_range, &c, NULL, NULL);
    if ((rc = backend_msm_g1(j->c->b, j->c->h, h, K->nh, &j->h_acc[p], e))) return rc;
  }
  j->ntt_done = 1;
  return PS_OK;
}

int g16_msm(g16_job *j, ps_err *e) {
  if (!j->prep_done) return order_error(e, "msm", "prep");
  if (!j->ntt_done) return order_error(e, "msm", "ntt_h");
  const g16_keys *K = j->c->k;
  int rc;
  if (backend_has_device(j->c->b)) { /* A, B_G1, L of every partition back to back on the uploaded scalars */
    int cnt = 3 * j->k;
    backend_msm_bases **m = xmalloc((size_t)cnt * sizeof *m);
    size_t *off = xmalloc((size_t)cnt * sizeof *off), *n = xmalloc((size_t)cnt * sizeof *n);
    for (int p = 0; p < j->k; p++) {
      size_t base = (size_t)p * K->nvars;
      m[3 * p] = j->c->a, off[3 * p] = base, n[3 * p] = K->nvars;
      m[3 * p + 1] = j->c->b_g1, off[3 * p + 1] = base, n[3 * p + 1] = K->nvars;
      m[3 * p + 2] = j->c->l, off[3 * p + 2] = base + K->npub + 1, n[3 * p + 2] = K->nl;
    }
    backend_msm_deferred_free(j->def_msm);
    j->def_msm = NULL;
    rc = backend_msm_g1_vec_deferred(j->c->b, cnt, m, j->bufs->dev_scal, off, n, &j->def_msm, e);
    free(m), free(off), free(n);
    if (rc) return rc;
    j->msm_done = 1;
    return PS_OK;
  }
  for (int p = 0; p < j->k; p++) {
    const fr_t *s = j->scal + (size_t)p * K->nvars;
    if ((rc = backend_msm_g1(j->c->b, j->c->a, s, K->nvars, &j->a_acc[p], e)) ||
        (rc = backend_msm_g1(j->c->b, j->c->b_g1, s, K->nvars, &j->b1_acc[p], e)) ||
        (rc = backend_msm_g1(j->c->b, j->c->l, s + K->npub + 1, K->nl, &j->l_acc[p], e)))
      return rc;
  }
  j->msm_done = 1;
  return PS_OK;
}

int g16_b_g2(g16_job *j, ps_err *e) {
  if (!j->prep_done) return order_error(e, "b_g2", "prep");
  const g16_keys *K = j->c->k;
  int rc;
  if (backend_has_device(j->c->b)) {
    backend_msm_bases **m = xmalloc((size_t)j->k * sizeof *m);
    size_t *off = xmalloc((size_t)j->k * sizeof *off), *n = xmalloc((size_t)j->k * sizeof *n);
    for (int p = 0; p < j->k; p++) m[p] = j->c->b_g2, off[p] = (size_t)p * K->nvars, n[p] = K->nvars;
    backend_msm_deferred_free(j->def_b2);
    j->def_b2 = NULL;
    rc = backend_msm_g2_vec_deferred(j->c->b, j->k, m, j->bufs->dev_scal, off, n, &j->def_b2, e);
    free(m), free(off), free(n);
    if (rc) return rc;
  } else {
    for (int p = 0; p < j->k; p++)
      if ((rc = backend_msm_g2(j->c->b, j->c->b_g2, j->scal + (size_t)p * K->nvars, K->nvars, &j->b2_acc[p], e)))
        return rc;
  }
  j->bg2_done = 1;
  return PS_OK;
}

int g16_epilogue(g16_job *j, ps_err *e) {
  if (!j->msm_done) return order_error(e, "epilogue", "msm");
  if (!j->bg2_done) return order_error(e, "epilogue", "b_g2");
  const g16_keys *K = j->c->k;
  /* The device MSMs' last step: window sums to points, here on the CPU. */
  for (int p = 0; p < j->k; p++) {
    if (j->def_h) backend_msm_deferred_point(j->def_h, p, &j->h_acc[p]);
    if (j->def_msm) {
      backend_msm_deferred_point(j->def_msm, 3 * p, &j->a_acc[p]);
      backend_msm_deferred_point(j->def_msm, 3 * p + 1, &j->b1_acc[p]);
      backend_msm_deferred_point(j->def_msm, 3 * p + 2, &j->l_acc[p]);
    }
    if (j->def_b2) backend_msm_deferred_point(j->def_b2, p, &j->b2_acc[p]);
  }
  for (int p = 0; p < j->k; p++) {
    uint64_t st = j->rng_seed ^ (0xb11d1e5ull * (uint64_t)(p + 1));
    fr_t r, s, rs, rc, sc, rsc;
    nonzero_random(&r, &st);
    nonzero_random(&s, &st);
    fr_mul(&rs, &r, &s);
    fr_neg(&rs, &rs);
    fr_to_canon(&rc, &r);
    fr_to_canon(&sc, &s);
    fr_to_canon(&rsc, &rs);
    g1_jac_t a, b1, c, t;
    g2_jac_t b2, t2;
    /* A = alpha + sum z_i A_i + r delta */
    g1_affine_mul(&t, &K->delta_g1, &rc);
    g1_jac_add(&a, &j->a_acc[p], &t);
    g1_jac_add_affine(&a, &a, &K->alpha_g1);
    /* B = beta + sum z_i B_i + s delta, in G2 and G1 */
    g2_affine_mul(&t2, &K->delta_g2, &sc);
    g2_jac_add(&b2, &j->b2_acc[p], &t2);
    g2_jac_add_affine(&b2, &b2, &K->beta_g2);
    g1_affine_mul(&t, &K->delta_g1, &sc);
    g1_jac_add(&b1, &j->b1_acc[p], &t);
    g1_jac_add_affine(&b1, &b1, &K->beta_g1);
    /* C = L + H + s A + r B_G1 - r s delta */
    g1_jac_add(&c, &j->l_acc[p], &j->h_acc[p]);
    g1_jac_mul(&t, &a, &sc);
    g1_jac_add(&c, &c, &t);
    g1_jac_mul(&t, &b1, &rc);
    g1_jac_add(&c, &c, &t);
    g1_affine_mul(&t, &K->delta_g1, &rsc);
    g1_jac_add(&c, &c, &t);
    g1_jac_to_affine(&j->proofs[p].a, &a);
    g2_jac_to_affine(&j->proofs[p].b, &b2);
    g1_jac_to_affine(&j->proofs[p].c, &c);
  }
  j->epi_done = 1;
  return PS_OK;
}

const g16_proof *g16_job_proof(const g16_job *j, int i) {
  PS_ASSERT(j->epi_done && i >= 0 && i < j->k);
  return &j->proofs[i];
}

const fr_t *g16_job_public(const g16_job *j, int i, int *npublic) {
  PS_ASSERT(j->synth_done && i >= 0 && i < j->k);
  if (npublic) *npublic = j->c->k->npub;
  return j->z + (size_t)i * j->c->k->nvars + 1;
}

int g16_prove(g16_ctx *c, uint64_t instance_seed, uint64_t rng_seed, g16_proof *out, fr_t *pub, int *npub,
              ps_err *e) {
  g16_job *j = g16_job_new(c, 1, &instance_seed, rng_seed);
  int rc;
  if ((rc = g16_synth(j, e)) || (rc = g16_prep(j, e)) || (rc = g16_ntt_h(j, e)) ||
      (rc = g16_msm(j, e)) || (rc = g16_b_g2(j, e)) || (rc = g16_epilogue(j, e))) {
    g16_job_free(j);
    return rc;
  }
  *out = j->proofs[0];
  int np;
  const fr_t *pp = g16_job_public(j, 0, &np);
  if (pub) memcpy(pub, pp, (size_t)np * sizeof *pub);
  if (npub) *npub = np;
  g16_job_free(j);
  return PS_OK;
}

/* ---- verification ---- */

static int g1_valid(const g1_affine_t *p) { return g1_affine_is_on_curve(p) && g1_affine_in_subgroup(p); }
static int g2_valid(const g2_affine_t *p) { return g2_affine_is_on_curve(p) && g2_affine_in_subgroup(p); }

int g16_verify(const g16_vk *vk, const g16_proof *p, const fr_t *pub, int npub, ps_err *e) {
  if (!vk || !p || (npub > 0 && !pub)) return ps_fail(e, PS_EINPUT, "verify: NULL argument");
  if (vk->nic != npub + 1)
    return ps_fail(e, PS_EINPUT, "verify: %d public inputs, but the verifying key expects %d", npub,
                   vk->nic - 1);
  if (!g1_valid(&p->a) || !g2_valid(&p->b) || !g1_valid(&p->c))
    return ps_fail(e, PS_EINPUT, "verify: a proof point is not on the curve or not in the subgroup");
  if (!g1_valid(&vk->alpha_g1) || !g2_valid(&vk->beta_g2) || !g2_valid(&vk->gamma_g2) ||
      !g2_valid(&vk->delta_g2))
    return ps_fail(e, PS_EINPUT, "verify: a verifying-key point is not on the curve or not in the subgroup");
  for (int i = 0; i < vk->nic; i++)
    if (!g1_valid(&vk->ic[i]))
      return ps_fail(e, PS_EINPUT, "verify: IC[%d] of the verifying key is not a valid G1 point", i);
  g1_jac_t acc, t;
  g1_jac_from_affine(&acc, &vk->ic[0]);
  for (int i = 0; i < npub; i++) {
    fr_t c;
    fr_to_canon(&c, &pub[i]);
    g1_affine_mul(&t, &vk->ic[i + 1], &c);
    g1_jac_add(&acc, &acc, &t);
  }
  g1_affine_t ps[4];
  g2_affine_t qs[4] = {p->b, vk->beta_g2, vk->gamma_g2, vk->delta_g2};
  ps[0] = p->a;
  g1_affine_neg(&ps[1], &vk->alpha_g1);
  g1_jac_to_affine(&ps[2], &acc);
  g1_affine_neg(&ps[2], &ps[2]);
  g1_affine_neg(&ps[3], &p->c);
  return pairing_product_is_one(ps, qs, 4);
}
