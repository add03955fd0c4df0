/* The Groth16 keys (groth16.h, g16_int.h): the setup from toxic waste drawn from the seed,
 * with fixed-base window tables on every CPU, and the versioned disk cache of the keys with
 * its checksum. groth16.c proves and verifies with what this file makes. */
#include "groth16.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve.h"
#include "g16_int.h"
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


/* The setup proper: k->cs is built; fills every key. */
static void setup(g16_keys *k, void (*progress)(double, void *), void *pctx) {
  const r1cs *cs = k->cs;
  size_t n = k->n, nv = k->nvars;
  uint64_t st = k->p.seed ^ 0x746f786963ull; /* "toxic" */
  fr_t tau, alpha, beta, gamma, delta, one, zt, t;
  fr_one(&one);
  for (;;) { /* tau must lie outside the domain: Z(tau) != 0 */
    g16__nonzero_random(&tau, &st);
    uint32_t e[2] = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32)};
    fr_pow(&zt, &tau, e, 2);
    fr_sub(&zt, &zt, &one);
    if (!fr_is_zero(&zt)) break;
  }
  g16__nonzero_random(&alpha, &st);
  g16__nonzero_random(&beta, &st);
  g16__nonzero_random(&gamma, &st);
  g16__nonzero_random(&delta, &st);

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

void g16__nonzero_random(fr_t *x, uint64_t *st) {
  do fr_random(x, ps_splitmix64, st);
  while (fr_is_zero(x));
}
