/* The Groth16 keys (groth16.h, g16_int.h): the setup from toxic waste drawn from the seed,
 * with the Lagrange basis and the fixed-base products on a backend (the CPUs, or the GPU),
 * and the versioned disk cache of the keys with its checksum, streamed on every CPU.
 * groth16.c proves and verifies with what this file makes. */
#include "groth16.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "backend.h"
#include "curve.h"
#include "g16_int.h"
#include "par.h"
#include "seed.h"
#include "fr.h"
#include "ntt.h"
#include "pairing.h"
#include "r1cs.h"

/* ---- keys ---- */


void g16_keys_free(g16_keys *k) {
  if (!k) return;
  PS_ASSERT(!k->dkeys); /* every context closed first (groth16.h) */
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
  k->nh = k->n;
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
  const fr_t *lag;
  fr_t *out[3];  /* u, v, w */
  size_t nparts; /* variable ranges per matrix */
} qap_job;

/* Task i: matrix i / nparts (A, B, C) and the variables of range i % nparts: out[var] +=
 * M[j][var] L_j(tau) for the terms whose variable falls in the range. Every task reads its
 * whole matrix in order but writes only its own range of the column, so the tasks run in
 * parallel without sharing an output, and each sum is added in row order as before. */
static void qap_columns(void *ctx, size_t lo, size_t hi) {
  const qap_job *q = ctx;
  const r1cs *cs = q->cs;
  for (size_t i = lo; i < hi; i++) {
    size_t mi = i / q->nparts, part = i % q->nparts, nv = (size_t)cs->nvars;
    const r1cs_matrix *m = mi == 0 ? &cs->a : mi == 1 ? &cs->b : &cs->c;
    uint32_t vlo = (uint32_t)(nv * part / q->nparts), vhi = (uint32_t)(nv * (part + 1) / q->nparts);
    fr_t *out = q->out[mi];
    for (int64_t j = 0; j < cs->nrows; j++)
      for (uint64_t t = m->row[j]; t < m->row[j + 1]; t++) {
        const r1cs_term *tm = &m->terms[t];
        if (tm->var < vlo || tm->var >= vhi) continue;
        fr_t x;
        if (tm->coef == 0) x = q->lag[j];
        else fr_mul(&x, &cs->coefs[tm->coef], &q->lag[j]);
        fr_add(&out[tm->var], &out[tm->var], &x);
      }
  }
}

/* Where the setup reports: the caller's options, and the share of the whole that the
 * current fixed-base stage covers, for the progress figure. */
typedef struct setup_run {
  const g16_setup_opts *o;
  double lo, span; /* this stage covers [lo, lo + span) of the whole */
  size_t total;
} setup_run;

static void progress_tick(void *p, size_t done) {
  setup_run *r = p;
  if (r->o->progress && r->total) r->o->progress(r->lo + r->span * (double)done / (double)r->total, r->o->ctx);
}

/* One line per finished stage, to the caller's stage callback. */
static void stage_line(const g16_setup_opts *o, const char *fmt, ...) {
  if (!o->stage) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  o->stage(line, o->ctx);
}

/* A count as "2^k" when it is a power of two, else the number. */
static const char *count_str(char *buf, size_t sz, size_t n) {
  if (n && !(n & (n - 1))) {
    unsigned k = 0;
    while (((size_t)1 << k) < n) k++;
    snprintf(buf, sz, "2^%u", k);
  } else {
    snprintf(buf, sz, "%zu", n);
  }
  return buf;
}

typedef struct pow_job {
  fr_t base, scale;
  fr_t *out;
} pow_job;

/* out[i] = scale * base^i for [lo, hi): each chunk starts from a power of its own. */
static void pow_range(void *ctx, size_t lo, size_t hi) {
  pow_job *j = ctx;
  uint32_t ex[2] = {(uint32_t)lo, (uint32_t)((uint64_t)lo >> 32)};
  fr_t x;
  fr_pow(&x, &j->base, ex, 2);
  fr_mul(&x, &x, &j->scale);
  for (size_t i = lo; i < hi; i++) {
    j->out[i] = x;
    fr_mul(&x, &x, &j->base);
  }
}

static void powers(fr_t *out, size_t n, const fr_t *base, const fr_t *scale) {
  pow_job j = {*base, *scale, out};
  par_for(n, 1 << 14, 0, pow_range, &j, NULL, NULL);
}

typedef struct lic_job {
  const fr_t *u, *v, *w;
  fr_t alpha, beta, gi, di;
  size_t nic;
  fr_t *ic, *l; /* scalars of IC (i < nic) and of L (the rest, from index nic) */
} lic_job;

/* (beta u_i + alpha v_i + w_i) / gamma for the public variables, / delta for the rest. */
static void lic_range(void *ctx, size_t lo, size_t hi) {
  lic_job *j = ctx;
  for (size_t i = lo; i < hi; i++) {
    fr_t x, y;
    fr_mul(&x, &j->beta, &j->u[i]);
    fr_mul(&y, &j->alpha, &j->v[i]);
    fr_add(&x, &x, &y);
    fr_add(&x, &x, &j->w[i]);
    if (i < j->nic) fr_mul(&j->ic[i], &x, &j->gi);
    else fr_mul(&j->l[i - j->nic], &x, &j->di);
  }
}

/* The setup proper: k->cs is built; fills every key, with the Lagrange NTT and the
 * fixed-base products on backend b. */
static int setup(g16_keys *k, ps_backend *b, const g16_setup_opts *o, ps_err *e) {
  const r1cs *cs = k->cs;
  size_t n = k->n, nv = k->nvars, nic = (size_t)k->vk.nic;
  uint64_t st = k->p.seed ^ 0x746f786963ull; /* "toxic" */
  fr_t tau, alpha, beta, gamma, delta, one, zt, t;
  char c1[32], c2[32];
  int rc = PS_OK;
  double t0 = ps_now();
  fr_one(&one);
  for (;;) { /* tau must lie outside the domain: Z(tau) != 0 */
    g16__nonzero_random(&tau, &st);
    uint32_t ex[2] = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32)};
    fr_pow(&zt, &tau, ex, 2);
    fr_sub(&zt, &zt, &one);
    if (!fr_is_zero(&zt)) break;
  }
  g16__nonzero_random(&alpha, &st);
  g16__nonzero_random(&beta, &st);
  g16__nonzero_random(&gamma, &st);
  g16__nonzero_random(&delta, &st);
  fr_t gi, di;
  fr_inv(&gi, &gamma);
  fr_inv(&di, &delta);

  /* The Lagrange basis at tau, L_j(tau) = Z(tau)/n w^j / (tau - w^j) = (1/n) sum_i tau^i
   * w^(-ij): the inverse NTT of (tau^i)_i. H_j's scalars are the Lagrange basis of the
   * coset gH (g = 7) at tau, L_j(tau/g), times Z(tau)/(delta (g^n - 1)): the prover's MSM
   * over h's values on the coset divided by Z there (the constant g^n - 1) then gives
   * h(tau) Z(tau)/delta, with no inverse NTT back to h's coefficients (g16_ntt_h). */
  fr_t *lag = xmalloc(n * sizeof *lag), *sh = xmalloc(n * sizeof *sh);
  {
    fr_t g = BLS_FR_GENERATOR, tg = BLS_FR_GENERATOR_INV, zg;
    uint32_t ex[2] = {(uint32_t)n, (uint32_t)((uint64_t)n >> 32)};
    fr_pow(&zg, &g, ex, 2);
    fr_sub(&zg, &zg, &one);
    fr_mul(&zg, &zg, &delta);
    fr_inv(&zg, &zg);
    fr_mul(&t, &zt, &zg);
    fr_mul(&tg, &tg, &tau);
    powers(sh, n, &tg, &t);
  }
  powers(lag, n, &tau, &one);
  if ((rc = backend_ntt(b, lag, cs->log_n, 1, NTT_INVERSE, e)) || (rc = backend_ntt(b, sh, cs->log_n, 1, NTT_INVERSE, e))) {
    free(lag), free(sh);
    return rc;
  }

  fr_t *u = xcalloc(nv, sizeof *u), *v = xcalloc(nv, sizeof *v), *ww = xcalloc(nv, sizeof *ww);
  qap_job qj = {cs, lag, {u, v, ww}, (size_t)ps_ncores()};
  par_for(3 * qj.nparts, 1, 0, qap_columns, &qj, NULL, NULL);
  free(lag);
  fr_t *sic = xmalloc(nic * sizeof *sic), *sl = xmalloc((k->nl ? k->nl : 1) * sizeof *sl);
  lic_job lj = {u, v, ww, alpha, beta, gi, di, nic, sic, sl};
  par_for(nv, 1 << 12, 0, lic_range, &lj, NULL, NULL);
  free(ww);
  fr_t sx[3] = {alpha, beta, delta}, s2[3] = {beta, gamma, delta};
  stage_line(o, "setup: toxic waste, QAP at tau (Lagrange bases at tau and tau/7 by inverse NTTs of %s on %s) %.2f s",
             count_str(c1, sizeof c1, n), backend_name(b), ps_now() - t0);

  /* The G1 products straight into the key's arrays, segment by segment; then G2. A G2
   * product costs about 3 G1 products (the progress figure's weights). */
  size_t n1 = 2 * nv + k->nl + k->nh + nic + 3, n2 = nv + 3;
  double tot = (double)n1 + 3.0 * (double)n2;
  g1_affine_t ox[3];
  g2_affine_t o2[3];
  struct {
    const fr_t *k;
    void *out;
    size_t n;
  } seg[6] = {{u, k->a, nv}, {v, k->b_g1, nv}, {sl, k->l, k->nl}, {sh, k->h, k->nh}, {sic, k->vk.ic, nic}, {sx, ox, 3}};
  setup_run run = {o, 0, 0, 0};
  backend_fb *fb = NULL;
  double t1 = ps_now();
  g1_affine_t g1gen;
  g1_generator(&g1gen);
  if ((rc = backend_fb_g1(b, &g1gen, n1, &fb, e))) goto out;
  size_t before = 0;
  for (int i = 0; i < 6; i++) {
    run.lo = (double)before / tot;
    run.span = (double)seg[i].n / tot;
    run.total = seg[i].n;
    if ((rc = backend_fb_mul(fb, seg[i].k, seg[i].n, seg[i].out, progress_tick, &run, e))) goto out;
    before += seg[i].n;
  }
  backend_fb_free(fb);
  fb = NULL;
  k->alpha_g1 = ox[0], k->beta_g1 = ox[1], k->delta_g1 = ox[2];
  stage_line(o, "setup: G1 queries (A, B, L, H, IC) %s points on %s %.2f s", count_str(c1, sizeof c1, n1),
             backend_name(b), ps_now() - t1);

  double t2 = ps_now();
  g2_affine_t g2gen;
  g2_generator(&g2gen);
  if ((rc = backend_fb_g2(b, &g2gen, n2, &fb, e))) goto out;
  run.lo = (double)n1 / tot;
  run.span = 3.0 * (double)nv / tot;
  run.total = nv;
  if ((rc = backend_fb_mul(fb, v, nv, k->b_g2, progress_tick, &run, e))) goto out;
  if ((rc = backend_fb_mul(fb, s2, 3, o2, NULL, NULL, e))) goto out;
  k->beta_g2 = o2[0], k->gamma_g2 = o2[1], k->delta_g2 = o2[2];
  keys_fill_vk(k);
  stage_line(o, "setup: G2 queries (B) %s points on %s %.2f s", count_str(c2, sizeof c2, n2), backend_name(b),
             ps_now() - t2);
  if (o->progress) o->progress(1.0, o->ctx);
out:
  backend_fb_free(fb);
  free(u), free(v), free(sic), free(sl), free(sh);
  return rc;
}

/* ---- the key cache ----
 * One file per (circuit, domain size, seed, boolean fraction), named
 * groth16-CIRCUIT-2^LOGN-seedSEED-boolFRAC.keys, in this layout (all integers and limbs
 * little-endian, as this machine stores them):
 *   header (112 bytes): magic "PSG16KEY", u32 version (3), u32 header size (112),
 *     char circuit[32] (NUL-padded), u64 seed, f64 boolean fraction as requested,
 *     u32 log_n, u32 npub, u64 nvars, u64 nl (L terms), u64 nh (H terms), u64 nic,
 *     u64 byte-order mark 0x0102030405060708;
 *   points, affine, Montgomery-form limbs (G1 96 bytes: x then y; G2 192 bytes: x.c0,
 *     x.c1, y.c0, y.c1; infinity as all zeros): alpha_g1, beta_g1, delta_g1, beta_g2,
 *     gamma_g2, delta_g2, IC[nic], A[nvars], B_G1[nvars], L[nl], H[nh], B_G2[nvars];
 *   u64 checksum: the points are cut into blocks of 64 MiB (the last one shorter), each
 *     block hashed on its own with ck_update from 0, and the checksum is ck_update over
 *     the header and then over the blocks' hashes in order.
 * The blocks are read and written on every CPU at once (pread/pwrite straight between the
 * file and the key's arrays, each block hashed by the thread that moves it), so the cache
 * streams at the speed of the disk or the page cache. Version 1 hashed the whole file in
 * one serial pass; versions 1 and 2 held H as the n - 1 points tau^j Z(tau)/delta G1. A
 * file that does not match (other version, parameters, sizes, a short read, a bad
 * checksum) is ignored and rewritten. */

#define KEYFILE_VERSION 3
#define KEYFILE_BLOCK ((size_t)64 << 20)

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

#define KEYFILE_PARTS 12

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
  PS_ASSERT(i == KEYFILE_PARTS);
  return i;
}

static char *keyfile_path(const char *dir, const g16_keys *k) {
  return xasprintf("%s/groth16-%s-2^%u-seed%llu-bool%.4f.keys", dir, k->name, k->cs->log_n,
                   (unsigned long long)k->p.seed, k->p.boolean_fraction);
}

/* The blocks of the points moved between the file (fd) and the key's arrays on every
 * CPU: blk_hash[i] = the hash of block i; err[i] = the errno of a failed block, or -1 for
 * a short read. */
typedef struct keyfile_io {
  int fd, writing;
  keyfile_part parts[KEYFILE_PARTS];
  size_t data_bytes, nblk;
  uint64_t *blk_hash;
  int *err;
  const g16_setup_opts *o;
} keyfile_io;

static void keyfile_blocks(void *ctx, size_t lo, size_t hi) {
  keyfile_io *io = ctx;
  for (size_t bi = lo; bi < hi; bi++) {
    size_t from = bi * KEYFILE_BLOCK, to = from + KEYFILE_BLOCK < io->data_bytes ? from + KEYFILE_BLOCK : io->data_bytes;
    size_t at = 0; /* data offset of the current part */
    uint64_t h = 0;
    for (int i = 0; i < KEYFILE_PARTS && at < to; at += io->parts[i].bytes, i++) {
      size_t plo = at > from ? at : from, phi = at + io->parts[i].bytes < to ? at + io->parts[i].bytes : to;
      if (plo >= phi) continue;
      unsigned char *mem = (unsigned char *)io->parts[i].p + (plo - at);
      for (size_t done = 0; done < phi - plo;) {
        off_t off = (off_t)(sizeof(keyfile_hdr) + plo + done);
        ssize_t r = io->writing ? pwrite(io->fd, mem + done, phi - plo - done, off)
                                : pread(io->fd, mem + done, phi - plo - done, off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
          io->err[bi] = r < 0 ? errno : -1;
          return;
        }
        done += (size_t)r;
      }
      h = ck_update(h, mem, phi - plo);
    }
    io->blk_hash[bi] = h;
  }
}

static void keyfile_tick(void *ctx, size_t done) {
  keyfile_io *io = ctx;
  if (io->o->progress) io->o->progress((double)done / (double)io->nblk, io->o->ctx);
}

/* Moves every block; returns 0 and the checksum, or the first failed block's err. */
static int keyfile_move(keyfile_io *io, g16_keys *k, const keyfile_hdr *hd, uint64_t *sum) {
  keyfile_parts(k, io->parts);
  io->data_bytes = 0;
  for (int i = 0; i < KEYFILE_PARTS; i++) io->data_bytes += io->parts[i].bytes;
  io->nblk = (io->data_bytes + KEYFILE_BLOCK - 1) / KEYFILE_BLOCK;
  io->blk_hash = xcalloc(io->nblk ? io->nblk : 1, sizeof *io->blk_hash);
  io->err = xcalloc(io->nblk ? io->nblk : 1, sizeof *io->err);
  par_for(io->nblk, 1, 0, keyfile_blocks, io, keyfile_tick, io);
  int err = 0;
  for (size_t i = 0; i < io->nblk && !err; i++) err = io->err[i];
  *sum = ck_update(ck_update(0, hd, sizeof *hd), io->blk_hash, io->nblk * sizeof *io->blk_hash);
  free(io->blk_hash), free(io->err);
  return err;
}

/* 1 when loaded; 0 (with why filled) when the file is missing or does not match. */
static int keyfile_load(const char *path, g16_keys *k, const g16_setup_opts *o, char *why, size_t whysz) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    snprintf(why, whysz, "%s", strerror(errno));
    return 0;
  }
  keyfile_hdr want, got;
  keyfile_hdr_fill(&want, k);
  keyfile_io io = {fd, 0, {{0}}, 0, 0, NULL, NULL, o};
  int ok = 0, err;
  uint64_t sum, stored;
  struct stat st;
  double t0 = ps_now();
  if (pread(fd, &got, sizeof got, 0) != (ssize_t)sizeof got) {
    snprintf(why, whysz, "short header");
    goto out;
  }
  if (memcmp(&got, &want, sizeof got)) {
    snprintf(why, whysz, "written by another version or for other parameters");
    goto out;
  }
  keyfile_parts(k, io.parts);
  size_t data = 0;
  for (int i = 0; i < KEYFILE_PARTS; i++) data += io.parts[i].bytes;
  if (fstat(fd, &st) || (uint64_t)st.st_size != sizeof got + data + sizeof stored) {
    snprintf(why, whysz, "%s (%lld bytes, expected %zu)",
             (uint64_t)st.st_size < sizeof got + data + sizeof stored ? "truncated" : "longer than its header says",
             (long long)st.st_size, sizeof got + data + sizeof stored);
    goto out;
  }
  if ((err = keyfile_move(&io, k, &got, &sum))) {
    snprintf(why, whysz, "%s", err > 0 ? strerror(err) : "truncated");
    goto out;
  }
  if (pread(fd, &stored, sizeof stored, (off_t)(sizeof got + data)) != (ssize_t)sizeof stored || stored != sum) {
    snprintf(why, whysz, "checksum mismatch");
    goto out;
  }
  ok = 1;
  double dt = ps_now() - t0;
  stage_line(o, "key cache: loaded %s (%.1f MiB, checksum ok) %.2f s, %.2f GiB/s", path, data / 1048576.0, dt,
             data / 1073741824.0 / (dt > 0 ? dt : 1e-9));
out:
  close(fd);
  return ok;
}

static int keyfile_save(const char *dir, const char *path, g16_keys *k, const g16_setup_opts *o, ps_err *e) {
  if (mkdir(dir, 0777) && errno != EEXIST)
    return ps_fail(e, PS_ERR, "%s: cannot create the key cache directory: %s", dir, strerror(errno));
  ps_outfile of;
  if (ps_out_open(&of, path, e) != PS_OK) return PS_ERR;
  double t0 = ps_now();
  keyfile_hdr hd;
  keyfile_hdr_fill(&hd, k);
  /* Everything goes through pwrite on the descriptor; the stream itself writes nothing. */
  keyfile_io io = {fileno(of.f), 1, {{0}}, 0, 0, NULL, NULL, o};
  uint64_t sum;
  int err = pwrite(io.fd, &hd, sizeof hd, 0) == (ssize_t)sizeof hd ? 0 : errno ? errno : EIO;
  if (!err) err = keyfile_move(&io, k, &hd, &sum);
  if (!err && pwrite(io.fd, &sum, sizeof sum, (off_t)(sizeof hd + io.data_bytes)) != (ssize_t)sizeof sum)
    err = errno ? errno : EIO;
  if (err) {
    ps_out_abort(&of);
    return ps_fail(e, PS_ERR, "%s: cannot write the key cache: %s", path, err > 0 ? strerror(err) : "short write");
  }
  if (ps_out_commit(&of, e) != PS_OK) return PS_ERR;
  double dt = ps_now() - t0;
  stage_line(o, "key cache: wrote %s (%.1f MiB) %.2f s, %.2f GiB/s", path, io.data_bytes / 1048576.0, dt,
             io.data_bytes / 1073741824.0 / (dt > 0 ? dt : 1e-9));
  return PS_OK;
}

int g16_keys_make(const g16_circuit_params *p, const char *cache_dir, const g16_setup_opts *opts, g16_keys **out,
                  ps_err *e) {
  static const g16_setup_opts none = {0};
  const g16_setup_opts *o = opts ? opts : &none;
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
  if (path && keyfile_load(path, k, o, why, sizeof why)) {
    keys_fill_vk(k);
    k->from_cache = 1;
    if (o->progress) o->progress(1.0, o->ctx);
  } else {
    if (path && access(path, F_OK) == 0)
      fprintf(stderr, "provesim: key cache %s: %s; running the setup again\n", path, why);
    ps_backend *b = o->backend, *own = NULL;
    if (!b && !(b = own = backend_open("cpu", e))) rc = PS_ERR;
    if (!rc) rc = setup(k, b, o, e);
    backend_close(own);
    if (!rc && path) rc = keyfile_save(cache_dir, path, k, o, e);
    if (rc) {
      free(path);
      g16_keys_free(k);
      return rc;
    }
  }
  free(path);
  *out = k;
  return PS_OK;
}

int g16_keys_get(const g16_circuit_params *p, const char *cache_dir, void (*progress)(double, void *),
                 void *progress_ctx, g16_keys **out, ps_err *e) {
  g16_setup_opts o = {NULL, progress, NULL, progress_ctx};
  return g16_keys_make(p, cache_dir, &o, out, e);
}

void g16__nonzero_random(fr_t *x, uint64_t *st) {
  do fr_random(x, ps_splitmix64, st);
  while (fr_is_zero(x));
}
