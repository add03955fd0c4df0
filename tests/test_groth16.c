/* Check suite of the Groth16 prover (prover/groth16.c, r1cs.c, pairing.c, g16_json.c) on
 * the cpu backend at small sizes: the pairing against py_ecc's values and its algebra;
 * the circuit family; every proof verifies, alone or in batched jobs driven phase by
 * phase (prep beside ntt_h, as the runner does); tampered proofs, wrong public inputs and
 * wrong verifying keys fail; the key cache; the JSON files, their error messages, and
 * the prove/verify commands. */
#include "ck.h"
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "g16_int.h"
#include "g16_json.h"
#include "groth16.h"
#include "ntt.h"
#include "pairing.h"
#include "r1cs.h"
#include "util.h"
#include "vectors/vec.h"

static ps_backend *BK;
static char TMP[256];

static g16_keys *keys_or_die(int64_t n, uint64_t seed, double f, const char *cache) {
  g16_circuit_params p = {NULL, n, f, seed};
  g16_keys *k = NULL;
  ps_err e = {0};
  int rc = g16_keys_get(&p, cache, NULL, NULL, &k, &e);
  ck_assert_msg(rc == PS_OK, "g16_keys_get: %s", e.msg);
  return k;
}

/* ---- pairing ---- */

static void scalar_u64(fr_t *k, uint64_t x) {
  memset(k, 0, sizeof *k);
  k->v[0] = (uint32_t)x;
  k->v[1] = (uint32_t)(x >> 32);
}

static void g1_times(g1_affine_t *r, const fr_t *k) {
  g1_affine_t g;
  g1_jac_t j;
  g1_generator(&g);
  g1_affine_mul(&j, &g, k);
  g1_jac_to_affine(r, &j);
}

static void g2_times(g2_affine_t *r, const fr_t *k) {
  g2_affine_t g;
  g2_jac_t j;
  g2_generator(&g);
  g2_affine_mul(&j, &g, k);
  g2_jac_to_affine(r, &j);
}

START_TEST(test_pairing_vectors) {
  const char *src = getenv("PROVESIM_SRC");
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/vectors/pairing_bls12_381.txt", src ? src : ".");
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "%s: cannot open (set PROVESIM_SRC)", path);
  char line[8192], buf[8192], *tok[VEC_MAX_TOK];
  int cases = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (strncmp(line, "pairing ", 8)) continue;
    int nt = vec_split(line, buf, sizeof buf, tok, VEC_MAX_TOK);
    ck_assert_int_eq(nt, 15);
    fr_t a, b;
    vec_scalar(tok[1], &a);
    vec_scalar(tok[2], &b);
    fp12_t want, got;
    fp2_t *slots[6] = {&want.c0.c0, &want.c0.c1, &want.c0.c2, &want.c1.c0, &want.c1.c1, &want.c1.c2};
    for (int i = 0; i < 6; i++) vec_fp2(tok + 3 + 2 * i, slots[i]);
    fp12_conj(&want, &want); /* py_ecc's value is the inverse of ours (pairing.h) */
    g1_affine_t p;
    g2_affine_t q;
    g1_times(&p, &a);
    g2_times(&q, &b);
    pairing(&got, &p, &q);
    ck_assert_msg(fp12_eq(&got, &want), "pairing %s %s differs from py_ecc", tok[1], tok[2]);
    cases++;
  }
  fclose(f);
  ck_assert_int_ge(cases, 3);
}
END_TEST

START_TEST(test_pairing_bilinear) {
  static const fr_t R = BLS_FR_R;
  fr_t a, b, ab, one;
  scalar_u64(&a, 0x9c1f25a3d7e80b41ull);
  scalar_u64(&b, 0x1234abcd5678ef01ull);
  scalar_u64(&one, 1);
  /* ab mod r as a canonical integer */
  fr_t am, bm;
  fr_from_canon(&am, &a);
  fr_from_canon(&bm, &b);
  fr_mul(&ab, &am, &bm);
  fr_to_canon(&ab, &ab);
  g1_affine_t p, ap;
  g2_affine_t q, bq;
  g1_times(&p, &one);
  g2_times(&q, &one);
  g1_times(&ap, &a);
  g2_times(&bq, &b);
  fp12_t e, eab, lhs, t;
  pairing(&e, &p, &q);
  ck_assert_msg(!fp12_is_one(&e), "e(G1, G2) = 1: degenerate");
  fp12_pow(&t, &e, R.v, BLS_FR_LIMBS);
  ck_assert_msg(fp12_is_one(&t), "e(G1, G2)^r != 1");
  pairing(&lhs, &ap, &bq);
  fp12_pow(&eab, &e, ab.v, BLS_FR_LIMBS);
  ck_assert_msg(fp12_eq(&lhs, &eab), "e(aP, bQ) != e(P, Q)^(ab)");
  /* e(aP, Q) = e(P, aQ) and the product check: e(aP, -Q) e(P, aQ) = 1 */
  g2_affine_t aq, nq;
  g2_times(&aq, &a);
  g2_affine_neg(&nq, &q);
  g1_affine_t ps[2] = {ap, p};
  g2_affine_t qs[2] = {nq, aq};
  ck_assert(pairing_product_is_one(ps, qs, 2));
  qs[0] = q;
  ck_assert(!pairing_product_is_one(ps, qs, 2));
  /* infinity pairs contribute 1 */
  g1_affine_t inf;
  g1_affine_set_inf(&inf);
  pairing(&t, &inf, &q);
  ck_assert(fp12_is_one(&t));
  /* Fp12 inverse */
  fp12_inv(&t, &e);
  fp12_mul(&t, &t, &e);
  ck_assert(fp12_is_one(&t));
}
END_TEST

/* ---- circuits ---- */

START_TEST(test_r1cs_family) {
  double fracs[] = {0.0, 0.5, 0.9, 0.98};
  for (int i = 0; i < 4; i++) {
    r1cs *cs = NULL;
    ps_err e = {0};
    ck_assert_int_eq(r1cs_new(NULL, 1000, fracs[i], &cs, &e), PS_OK);
    ck_assert_int_eq(cs->nrows, 1024);
    ck_assert_int_eq(cs->npub, 2);
    ck_assert_msg(cs->boolean_fraction > fracs[i] - 0.05 && cs->boolean_fraction < fracs[i] + 0.05,
                  "boolean fraction %g for %g", cs->boolean_fraction, fracs[i]);
    fr_t *z = xmalloc((size_t)cs->nvars * sizeof *z);
    r1cs_witness(cs, 42 + (uint64_t)i, z);
    ck_assert_int_eq(r1cs_check(cs, z), -1);
    /* the witness's share of 0/1 values is what was asked */
    fr_t one;
    fr_one(&one);
    int64_t nb = 0;
    for (int64_t v = 3; v < cs->nvars; v++) nb += fr_is_zero(&z[v]) || fr_eq(&z[v], &one);
    double share = (double)nb / (double)(cs->nvars - 3);
    ck_assert_msg(share >= cs->boolean_fraction - 0.01, "boolean share %g", share);
    /* a changed value breaks a constraint */
    fr_add(&z[cs->nvars / 2], &z[cs->nvars / 2], &one);
    ck_assert_int_ge(r1cs_check(cs, z), 0);
    free(z);
    r1cs_free(cs);
  }
  r1cs *cs = NULL;
  ps_err e = {0};
  ck_assert_int_eq(r1cs_new("sha", 1024, -1, &cs, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "circuit 'sha'"));
  ck_assert_int_eq(r1cs_new(NULL, 1024, 0.99, &cs, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "[0, 0.98]"));
  ck_assert_int_eq(r1cs_new(NULL, (int64_t)1 << 30, -1, &cs, &e), PS_EINPUT);
  ck_assert_int_eq(r1cs_new(NULL, 0, -1, &cs, &e), PS_EINPUT);
  ck_assert_int_eq(r1cs_new(NULL, 1025, -1, &cs, &e), PS_OK);
  ck_assert_int_eq(cs->nrows, 2048);
  r1cs_free(cs);
}
END_TEST

/* ---- proving and verifying ---- */

static void check_proof_variants(const g16_vk *vk, const g16_proof *pr, const fr_t *pub, int npub,
                                 const g16_vk *other_vk) {
  ps_err e = {0};
  ck_assert_int_eq(g16_verify(vk, pr, pub, npub, &e), 1);
  /* tampered proof: A + G1 */
  g16_proof t = *pr;
  g1_jac_t j;
  g1_affine_t g;
  g1_generator(&g);
  g1_jac_from_affine(&j, &t.a);
  g1_jac_add_affine(&j, &j, &g);
  g1_jac_to_affine(&t.a, &j);
  ck_assert_int_eq(g16_verify(vk, &t, pub, npub, &e), 0);
  /* tampered C: swapped with A */
  t = *pr;
  t.c = pr->a;
  ck_assert_int_eq(g16_verify(vk, &t, pub, npub, &e), 0);
  /* wrong public input */
  fr_t bad[8];
  memcpy(bad, pub, (size_t)npub * sizeof *pub);
  fr_t one;
  fr_one(&one);
  fr_add(&bad[npub - 1], &bad[npub - 1], &one);
  ck_assert_int_eq(g16_verify(vk, pr, bad, npub, &e), 0);
  /* wrong verifying key */
  if (other_vk) ck_assert_int_eq(g16_verify(other_vk, pr, pub, npub, &e), 0);
  /* malformed: a point off the curve, a wrong count of inputs */
  t = *pr;
  fp_add(&t.a.y, &t.a.y, &t.a.x);
  ck_assert_int_lt(g16_verify(vk, &t, pub, npub, &e), 0);
  ck_assert_ptr_nonnull(strstr(e.msg, "not on the curve"));
  ck_assert_int_lt(g16_verify(vk, pr, pub, npub - 1, &e), 0);
  ck_assert_ptr_nonnull(strstr(e.msg, "public inputs"));
}

START_TEST(test_prove_sizes) {
  g16_keys *other = keys_or_die(1024, 99, -1, NULL);
  for (int64_t n = 1024; n <= 4096; n *= 2) {
    double t0 = ps_now();
    g16_keys *k = keys_or_die(n, 7, -1, NULL);
    double t1 = ps_now();
    g16_ctx *c = NULL;
    ps_err e = {0};
    ck_assert_int_eq(g16_ctx_open(BK, k, &c, &e), PS_OK);
    g16_proof pr;
    fr_t pub[4];
    int npub = 0;
    ck_assert_int_eq(g16_prove(c, 1000 + (uint64_t)n, 5, &pr, pub, &npub, &e), PS_OK);
    double t2 = ps_now();
    ck_assert_int_eq(npub, 2);
    check_proof_variants(g16_keys_vk(k), &pr, pub, npub, n == 1024 ? g16_keys_vk(other) : NULL);
    double t3 = ps_now();
    printf("groth16 2^%d: setup %.2f s, prove %.2f s, 7 verifications %.2f s\n",
           __builtin_ctzll((unsigned long long)n), t1 - t0, t2 - t1, t3 - t2);
    g16_ctx_close(c);
    g16_keys_free(k);
  }
  g16_keys_free(other);
}
END_TEST

typedef struct phase_arg {
  int (*fn)(g16_job *, ps_err *);
  g16_job *j;
  int rc;
  ps_err e;
} phase_arg;

static void *phase_thread(void *p) {
  phase_arg *a = p;
  a->rc = a->fn(a->j, &a->e);
  return NULL;
}

/* Runs fn1 and fn2 of one job at the same time, as the runner's graph allows. */
static void run_pair(int (*fn1)(g16_job *, ps_err *), int (*fn2)(g16_job *, ps_err *), g16_job *j) {
  phase_arg a = {fn1, j, 0, {{0}, 0}}, b = {fn2, j, 0, {{0}, 0}};
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, phase_thread, &b), 0);
  phase_thread(&a);
  pthread_join(t, NULL);
  ck_assert_msg(a.rc == PS_OK, "%s", a.e.msg);
  ck_assert_msg(b.rc == PS_OK, "%s", b.e.msg);
}

/* g16_ctx_reserve makes the job buffers before the first job; jobs reuse them and a bigger
 * job grows them. */
START_TEST(test_ctx_reserve) {
  g16_keys *k = keys_or_die(1024, 11, 0.75, NULL);
  g16_ctx *c = NULL;
  ps_err e = {0};
  ck_assert_int_eq(g16_ctx_open(BK, k, &c, &e), PS_OK);
  ck_assert_int_eq(g16_ctx_reserved(c), 0);
  g16_ctx_reserve(c, 2);
  ck_assert_int_eq(g16_ctx_reserved(c), 2);
  uint64_t seeds[3] = {4, 5, 6};
  g16_proof p1;
  fr_t pub[8];
  int npub = 0;
  /* a job of one partition proves with them and leaves them at two */
  ck_assert_int_eq(g16_prove(c, seeds[0], 9, &p1, pub, &npub, &e), PS_OK);
  ck_assert_int_eq(g16_verify(g16_keys_vk(k), &p1, pub, npub, &e), 1);
  ck_assert_int_eq(g16_ctx_reserved(c), 2);
  g16_ctx_reserve(c, 1); /* never shrinks */
  ck_assert_int_eq(g16_ctx_reserved(c), 2);
  g16_job *j = g16_job_new(c, 3, seeds, 3);
  ck_assert_int_eq(g16_ctx_reserved(c), 3);
  g16_job_free(j);
  g16_ctx_close(c);
  g16_keys_free(k);
}
END_TEST

START_TEST(test_batched_jobs) {
  g16_keys *k = keys_or_die(2048, 11, 0.75, NULL);
  g16_ctx *c = NULL;
  ps_err e = {0};
  ck_assert_int_eq(g16_ctx_open(BK, k, &c, &e), PS_OK);
  uint64_t seeds[3] = {1, 2, 3};
  g16_job *j = g16_job_new(c, 3, seeds, 77);
  /* out of order: refused, nothing done */
  ck_assert_int_eq(g16_msm(j, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "before g16_prep"));
  ck_assert_int_eq(g16_ntt_h(j, &e), PS_EINPUT);
  ck_assert_int_eq(g16_synth(j, &e), PS_OK);
  ck_assert_int_eq(g16_epilogue(j, &e), PS_EINPUT);
  run_pair(g16_prep, g16_ntt_h, j); /* prep beside ntt_h */
  run_pair(g16_msm, g16_b_g2, j);   /* b_g2 beside msm */
  ck_assert_int_eq(g16_epilogue(j, &e), PS_OK);
  for (int i = 0; i < 3; i++) {
    int npub;
    const fr_t *pub = g16_job_public(j, i, &npub);
    ck_assert_int_eq(g16_verify(g16_keys_vk(k), g16_job_proof(j, i), pub, npub, &e), 1);
    /* another partition's public inputs do not fit this proof */
    const fr_t *other = g16_job_public(j, (i + 1) % 3, &npub);
    ck_assert_int_eq(g16_verify(g16_keys_vk(k), g16_job_proof(j, i), other, npub, &e), 0);
  }
  /* a job of one partition with the same seed proves the same statement */
  g16_job *j1 = g16_job_new(c, 1, &seeds[1], 5);
  ck_assert_int_eq(g16_synth(j1, &e), PS_OK);
  ck_assert_int_eq(g16_ntt_h(j1, &e), PS_OK);
  ck_assert_int_eq(g16_prep(j1, &e), PS_OK);
  ck_assert_int_eq(g16_b_g2(j1, &e), PS_OK);
  ck_assert_int_eq(g16_msm(j1, &e), PS_OK);
  ck_assert_int_eq(g16_epilogue(j1, &e), PS_OK);
  int np;
  ck_assert(fr_eq(&g16_job_public(j1, 0, &np)[1], &g16_job_public(j, 1, &np)[1]));
  ck_assert_int_eq(g16_verify(g16_keys_vk(k), g16_job_proof(j1, 0), g16_job_public(j1, 0, &np), np, &e), 1);
  g16_job_free(j1);
  g16_job_free(j);
  /* The context keeps the first job's buffers (j1, made while j was alive, had its own):
   * a later, smaller job reuses them, over j's stale values, and must prove as well. */
  uint64_t seeds2[2] = {3, 1};
  g16_job *j2 = g16_job_new(c, 2, seeds2, 9);
  ck_assert_int_eq(g16_synth(j2, &e), PS_OK);
  ck_assert_int_eq(g16_prep(j2, &e), PS_OK);
  run_pair(g16_ntt_h, g16_b_g2, j2); /* b_g2 beside ntt_h */
  ck_assert_int_eq(g16_msm(j2, &e), PS_OK);
  ck_assert_int_eq(g16_epilogue(j2, &e), PS_OK);
  for (int i = 0; i < 2; i++) {
    const fr_t *pub = g16_job_public(j2, i, &np);
    ck_assert_int_eq(g16_verify(g16_keys_vk(k), g16_job_proof(j2, i), pub, np, &e), 1);
  }
  g16_job_free(j2);
  /* The cpu backend has no device: the device H path refuses, and says so. */
  fr_t abc[3 * 4];
  memset(abc, 0, sizeof abc);
  ck_assert_int_eq(backend_has_device(BK), 0);
  backend_vec *v = NULL;
  ck_assert_int_eq(backend_vec_upload(BK, &v, abc, 12, &e), PS_OK);
  backend_msm_deferred *hd = NULL;
  ck_assert_int_eq(backend_g16_h_vec_deferred(BK, v, 2, 1, NULL, 1, &hd, &e), PS_EINPUT);
  ck_assert_ptr_null(hd);
  ck_assert_ptr_nonnull(strstr(e.msg, "has no device"));
  backend_vec_free(v);
  /* Bases in two parts (L's head on a device) need a device too. */
  backend_msm_bases *two = NULL;
  g1_affine_t gen;
  g1_generator(&gen);
  ck_assert_int_eq(backend_msm_bases_g1_after(BK, &gen, 1, &gen, 1, &two, &e), PS_EINPUT);
  ck_assert_ptr_null(two);
  ck_assert_ptr_nonnull(strstr(e.msg, "has no device"));
  ck_assert_uint_gt(g16_key_bytes(k), 0);
  ck_assert_uint_gt(g16_job_bytes(k, 2), g16_job_bytes(k, 1));
  /* The cpu backend keeps no device buffers. */
  ck_assert_uint_eq(g16_worker_bytes(k, "cpu", 2), 0);
  g16_ctx_close(c);
  g16_keys_free(k);
}
END_TEST

/* ---- key cache ---- */

static int count_progress;
static void on_progress(double f, void *ctx) {
  double *last = ctx;
  ck_assert(f >= *last - 1e-12 && f <= 1.0 + 1e-12);
  *last = f;
  count_progress++;
}

START_TEST(test_key_cache) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/cache", TMP);
  g16_circuit_params p = {"mimc", 1024, -1, 3};
  g16_keys *k1 = NULL, *k2 = NULL;
  ps_err e = {0};
  double last = 0;
  count_progress = 0;
  ck_assert_int_eq(g16_keys_get(&p, dir, on_progress, &last, &k1, &e), PS_OK);
  ck_assert_int_gt(count_progress, 1);
  ck_assert(!g16_keys_from_cache(k1));
  ck_assert(last > 0.999);
  char path[1024];
  snprintf(path, sizeof path, "%s/groth16-mimc-2^10-seed3-bool0.9000.keys", dir);
  ck_assert_int_eq(access(path, R_OK), 0);
  double t0 = ps_now();
  ck_assert_int_eq(g16_keys_get(&p, dir, NULL, NULL, &k2, &e), PS_OK);
  double tl = ps_now() - t0;
  ck_assert(g16_keys_from_cache(k2));
  const g16_vk *v1 = g16_keys_vk(k1), *v2 = g16_keys_vk(k2);
  ck_assert(g2_affine_eq(&v1->delta_g2, &v2->delta_g2));
  ck_assert(g1_affine_eq(&v1->ic[2], &v2->ic[2]));
  g16_ctx *c = NULL;
  ck_assert_int_eq(g16_ctx_open(BK, k2, &c, &e), PS_OK);
  g16_proof pr;
  fr_t pub[4];
  int npub;
  ck_assert_int_eq(g16_prove(c, 9, 9, &pr, pub, &npub, &e), PS_OK);
  ck_assert_int_eq(g16_verify(v1, &pr, pub, npub, &e), 1);
  g16_ctx_close(c);
  g16_keys_free(k2);
  printf("key cache 2^10: load %.3f s\n", tl);
  /* a corrupted file is detected by the checksum and rewritten */
  FILE *f = fopen(path, "r+b");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseek(f, 5000, SEEK_SET), 0);
  int byte = fgetc(f);
  ck_assert_int_ne(byte, EOF);
  /* a stream that was read must be positioned before it is written (C11 7.21.5.3) */
  ck_assert_int_eq(fseek(f, 5000, SEEK_SET), 0);
  ck_assert_int_eq(fputc(0x5a ^ byte, f), 0x5a ^ byte);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(g16_keys_get(&p, dir, NULL, NULL, &k2, &e), PS_OK);
  ck_assert(g1_affine_eq(&g16_keys_vk(k2)->ic[1], &v1->ic[1]));
  ck_assert(!g16_keys_from_cache(k2));
  g16_keys_free(k2);
  /* a truncated file (half of it) is detected by its size and rewritten */
  struct stat sb;
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(truncate(path, sb.st_size / 2), 0);
  ck_assert_int_eq(g16_keys_get(&p, dir, NULL, NULL, &k2, &e), PS_OK);
  ck_assert(!g16_keys_from_cache(k2));
  ck_assert(g1_affine_eq(&g16_keys_vk(k2)->ic[1], &v1->ic[1]));
  g16_keys_free(k2);
  ck_assert_int_eq(g16_keys_get(&p, dir, NULL, NULL, &k2, &e), PS_OK);
  ck_assert(g16_keys_from_cache(k2));
  g16_keys_free(k2);
  /* another seed is another file with other keys */
  p.seed = 4;
  ck_assert_int_eq(g16_keys_get(&p, dir, NULL, NULL, &k2, &e), PS_OK);
  ck_assert(!g2_affine_eq(&g16_keys_vk(k2)->delta_g2, &v1->delta_g2));
  g16_keys_free(k2);
  g16_keys_free(k1);
}
END_TEST


/* ---- the setup against the definitions ---- */

static int nstage;
static char stage_text[2048];
static void on_stage(const char *line, void *ctx) {
  (void)ctx;
  nstage++;
  size_t l = strlen(stage_text);
  snprintf(stage_text + l, sizeof stage_text - l, "%s\n", line);
}

/* column[i] = sum_j M[j][i] lag[j]. */
static void qap_column(const r1cs *cs, const r1cs_matrix *m, const fr_t *lag, fr_t *col) {
  for (int64_t j = 0; j < cs->nrows; j++)
    for (uint64_t t = m->row[j]; t < m->row[j + 1]; t++) {
      fr_t x;
      fr_mul(&x, &cs->coefs[m->terms[t].coef], &lag[j]);
      fr_add(&col[m->terms[t].var], &col[m->terms[t].var], &x);
    }
}

static int g1_is_times(const g1_affine_t *p, const fr_t *mont) {
  fr_t c;
  g1_affine_t q;
  fr_to_canon(&c, mont);
  g1_times(&q, &c);
  return !memcmp(p, &q, sizeof q); /* affine points are unique: the bytes must agree */
}

static int g2_is_times(const g2_affine_t *p, const fr_t *mont) {
  fr_t c;
  g2_affine_t q;
  fr_to_canon(&c, mont);
  g2_times(&q, &c);
  return !memcmp(p, &q, sizeof q);
}

/* lag[j] = L_j(x) = Z(x)/n w^j / (x - w^j), Z(x) = x^n - 1, for the 2^log_n points w^j
 * of the domain, with an inversion each (x outside the domain). */
static void lagrange_at(fr_t *lag, unsigned log_n, const fr_t *x) {
  const size_t n = (size_t)1 << log_n;
  fr_t w, wj, ninv, zx, t, one;
  uint32_t ex[2] = {(uint32_t)n, 0};
  fr_one(&one);
  fr_pow(&zx, x, ex, 2);
  fr_sub(&zx, &zx, &one);
  ntt_root_of_unity(&w, log_n);
  fr_from_u64(&ninv, n);
  fr_inv(&ninv, &ninv);
  fr_mul(&zx, &zx, &ninv);
  fr_one(&wj);
  for (size_t j = 0; j < n; j++) {
    fr_sub(&t, x, &wj);
    fr_inv(&t, &t);
    fr_mul(&t, &t, &wj);
    fr_mul(&lag[j], &t, &zx);
    fr_mul(&wj, &wj, &w);
  }
}

/* Keys of 2^10 made through the cpu backend (the Lagrange bases by inverse NTTs, the
 * fixed-base products of backend_fb_*) checked against the definitions of g16_int.h
 * computed here another way: the toxic waste drawn again from the seed, the Lagrange
 * bases at tau and at tau/g by lagrange_at, u, v, w by walking the matrices, and every
 * checked point a plain scalar multiple of the generator, byte for byte. */
START_TEST(test_setup_against_definitions) {
  g16_circuit_params p = {"mimc", 1024, -1, 11};
  g16_keys *k = NULL;
  ps_err e = {0};
  nstage = 0;
  stage_text[0] = 0;
  g16_setup_opts o = {BK, NULL, on_stage, NULL};
  ck_assert_int_eq(g16_keys_make(&p, NULL, &o, &k, &e), PS_OK);
  ck_assert_int_eq(nstage, 3);
  ck_assert_ptr_nonnull(strstr(stage_text, "setup: G1 queries (A, B, L, H, IC)"));
  ck_assert_ptr_nonnull(strstr(stage_text, "setup: G2 queries (B) 1026 points on cpu"));
  const r1cs *cs = k->cs;
  size_t n = k->n, nv = k->nvars;
  uint64_t st = p.seed ^ 0x746f786963ull;
  fr_t tau, alpha, beta, gamma, delta, one, zt, x;
  fr_one(&one);
  uint32_t ex[2] = {(uint32_t)n, 0};
  do {
    g16__nonzero_random(&tau, &st);
    fr_pow(&zt, &tau, ex, 2);
    fr_sub(&zt, &zt, &one);
  } while (fr_is_zero(&zt));
  g16__nonzero_random(&alpha, &st);
  g16__nonzero_random(&beta, &st);
  g16__nonzero_random(&gamma, &st);
  g16__nonzero_random(&delta, &st);
  fr_t *lag = xmalloc(n * sizeof *lag);
  lagrange_at(lag, cs->log_n, &tau);
  fr_t *u = xcalloc(nv, sizeof *u), *v = xcalloc(nv, sizeof *v), *ww = xcalloc(nv, sizeof *ww);
  qap_column(cs, &cs->a, lag, u);
  qap_column(cs, &cs->b, lag, v);
  qap_column(cs, &cs->c, lag, ww);
  fr_t gi, di;
  fr_inv(&gi, &gamma);
  fr_inv(&di, &delta);
  ck_assert(g1_is_times(&k->alpha_g1, &alpha) && g1_is_times(&k->beta_g1, &beta) && g1_is_times(&k->delta_g1, &delta));
  ck_assert(g2_is_times(&k->beta_g2, &beta) && g2_is_times(&k->gamma_g2, &gamma) && g2_is_times(&k->delta_g2, &delta));
  int checked = 0;
  for (size_t i = 0; i < nv; i++) {
    if (i % 37 && i != nv - 1 && i > 3) continue;
    fr_t y;
    fr_mul(&x, &beta, &u[i]);
    fr_mul(&y, &alpha, &v[i]);
    fr_add(&x, &x, &y);
    fr_add(&x, &x, &ww[i]);
    ck_assert_msg(g1_is_times(&k->a[i], &u[i]), "A_%zu", i);
    ck_assert_msg(g1_is_times(&k->b_g1[i], &v[i]), "B_G1_%zu", i);
    if (i % 111 == 0) ck_assert_msg(g2_is_times(&k->b_g2[i], &v[i]), "B_G2_%zu", i);
    if (i < (size_t)k->vk.nic) {
      fr_mul(&x, &x, &gi);
      ck_assert_msg(g1_is_times(&k->vk.ic[i], &x), "IC_%zu", i);
    } else {
      fr_mul(&x, &x, &di);
      ck_assert_msg(g1_is_times(&k->l[i - k->vk.nic], &x), "L_%zu", i - k->vk.nic);
    }
    checked++;
  }
  /* H_j = L_j(tau/g) Z(tau) / (delta (g^n - 1)): the Lagrange basis of the coset gH (g = 7)
   * at tau, one point for each of the n points of the coset */
  ck_assert_uint_eq(k->nh, n);
  fr_t g = BLS_FR_GENERATOR, tg, zg;
  fr_pow(&zg, &g, ex, 2);
  fr_sub(&zg, &zg, &one);
  fr_mul(&zg, &zg, &delta);
  fr_inv(&zg, &zg);
  fr_mul(&zg, &zg, &zt);
  fr_inv(&tg, &g);
  fr_mul(&tg, &tg, &tau);
  lagrange_at(lag, cs->log_n, &tg);
  for (size_t j = 0; j < k->nh; j++) {
    if (j % 41 && j != k->nh - 1) continue;
    fr_mul(&x, &lag[j], &zg);
    ck_assert_msg(g1_is_times(&k->h[j], &x), "H_%zu", j);
  }
  ck_assert_int_gt(checked, 25);
  free(lag), free(u), free(v), free(ww);
  g16_keys_free(k);
}
END_TEST

/* ---- JSON files and the commands ---- */

static int run_cmd(const char *fmt, const char *a, const char *b) {
  const char *bin = getenv("PROVESIM_BIN");
  char *args = xasprintf(fmt, a, b);
  char *cmd = xasprintf("'%s' %s >'%s/out.txt' 2>&1", bin ? bin : "./provesim", args, TMP);
  int st = system(cmd);
  free(args);
  free(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  ps_buf b = {0};
  char tmp[4096];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) ps_buf_append(&b, tmp, n);
  fclose(f);
  ps_buf_append(&b, "", 1);
  return b.p;
}

static void spit(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(s, f);
  fclose(f);
}

/* Puts the text s in dir/name, reads dir, puts the file back as it was, and checks that
 * the read failed with a message holding want and left nothing allocated. */
static void expect_bad_file(const char *dir, const char *name, const char *s, const char *want) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *orig = slurp(path);
  spit(path, s);
  g16_vk vk;
  g16_proof p;
  fr_t *pub;
  int npub;
  ps_err e = {0};
  int rc = g16_json_read(dir, &vk, &p, &pub, &npub, &e);
  spit(path, orig);
  free(orig);
  ck_assert_int_eq(rc, PS_EINPUT);
  ck_assert_msg(strstr(e.msg, want) != NULL, "%s: the message '%s' does not hold '%s'", name, e.msg, want);
  ck_assert_ptr_null(vk.ic);
  ck_assert_ptr_null(pub);
  ck_assert_int_eq(npub, 0);
}

/* The same with the first occurrence of from in dir/name replaced by to. */
static void expect_bad_edit(const char *dir, const char *name, const char *from, const char *to, const char *want) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *s = slurp(path), *p = strstr(s, from);
  ck_assert_msg(p != NULL, "%s: no '%s'", path, from);
  char *t = xasprintf("%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
  expect_bad_file(dir, name, t, want);
  free(s);
  free(t);
}

START_TEST(test_json_roundtrip) {
  g16_keys *k = keys_or_die(1024, 21, -1, NULL);
  g16_ctx *c = NULL;
  ps_err e = {0};
  ck_assert_int_eq(g16_ctx_open(BK, k, &c, &e), PS_OK);
  g16_proof pr, pr2;
  fr_t pub[4], *pub2;
  int npub, npub2;
  ck_assert_int_eq(g16_prove(c, 3, 3, &pr, pub, &npub, &e), PS_OK);
  char dir[512];
  snprintf(dir, sizeof dir, "%s/json", TMP);
  g16_meta m = {"mimc", 1024, 21, 3, 0.9};
  ck_assert_int_eq(g16_json_write(dir, g16_keys_vk(k), &pr, pub, npub, &m, &e), PS_OK);
  g16_vk vk;
  ck_assert_msg(g16_json_read(dir, &vk, &pr2, &pub2, &npub2, &e) == PS_OK, "%s", e.msg);
  const g16_vk *v = g16_keys_vk(k);
  ck_assert_int_eq(npub2, npub);
  for (int i = 0; i < npub; i++) ck_assert(fr_eq(&pub[i], &pub2[i]));
  ck_assert(g1_affine_eq(&pr.a, &pr2.a) && g2_affine_eq(&pr.b, &pr2.b) && g1_affine_eq(&pr.c, &pr2.c));
  ck_assert(g1_affine_eq(&vk.alpha_g1, &v->alpha_g1) && g2_affine_eq(&vk.beta_g2, &v->beta_g2));
  ck_assert(g2_affine_eq(&vk.gamma_g2, &v->gamma_g2) && g2_affine_eq(&vk.delta_g2, &v->delta_g2));
  ck_assert_int_eq(vk.nic, v->nic);
  for (int i = 0; i < vk.nic; i++) ck_assert(g1_affine_eq(&vk.ic[i], &v->ic[i]));
  ck_assert_int_eq(g16_verify(&vk, &pr2, pub2, npub2, &e), 1);
  g16_vk_clear(&vk);
  free(pub2);
  /* bad input names the file and the field */
  expect_bad_edit(dir, "proof.json", "\"a\": \"", "\"a\": \"zz",
                  "proof.json: a: expected 96 hex digits (a compressed G1 point), got 98 characters");
  expect_bad_edit(dir, "proof.json", "\"b\": \"", "\"b\": \"g",
                  "proof.json: b: expected 192 hex digits (a compressed G2 point), got 193 characters");
  expect_bad_edit(dir, "proof.json", "\"a\": \"", "\"a\": 5, \"x\": \"", "proof.json: a: expected a hex string, got a number");
  expect_bad_edit(dir, "proof.json", "\"c\": \"", "\"x\": \"", "proof.json: c: expected a hex string, got nothing");
  expect_bad_edit(dir, "vk.json", "\"ic\": [", "\"ic\": [], \"x\": [",
                  "vk.json: ic: expected an array of at least one hex string, got an empty array");
  expect_bad_edit(dir, "vk.json", "\"ic\": [", "\"ic\": [5, ", "vk.json: ic[0]: expected a hex string, got a number");
  expect_bad_edit(dir, "public.json", "\"inputs\": [", "\"inputs\": {}, \"x\": [",
                  "public.json: inputs: expected an array of hex strings, got an object");
  expect_bad_edit(dir, "public.json", "\"inputs\": [",
                  "\"inputs\": [\"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\", ",
                  "public.json: inputs[0]: expected 64 hex digits of an integer below r, got one >= r");
  expect_bad_edit(dir, "public.json", "\"inputs\": [", "\"inputs\": [\"12\", ",
                  "public.json: inputs[0]: expected 64 hex digits of an integer below r, got 2 characters");
  expect_bad_edit(dir, "public.json", "provesim.groth16.public/1", "other/1",
                  "public.json: schema: expected \"provesim.groth16.public/1\", got \"other/1\"");
  expect_bad_edit(dir, "vk.json", "\"provesim.groth16.vk/1\"", "7",
                  "vk.json: schema: expected \"provesim.groth16.vk/1\", got a number");
  /* malformed JSON: the file, the line and the column */
  expect_bad_edit(dir, "proof.json", "\"c\": \"", "\"c\" \"", "proof.json:13:7: malformed JSON: unexpected '\"");
  char path[1024];
  snprintf(path, sizeof path, "%s/proof.json", dir);
  char *orig = slurp(path), *t = xasprintf("%sx", orig);
  expect_bad_file(dir, "proof.json", t, "proof.json:15:1: malformed JSON: unexpected 'x'");
  free(t);
  t = xasprintf("%.200s", orig);
  expect_bad_file(dir, "proof.json", t, "proof.json:9:16: malformed JSON: the file ends inside a value");
  free(t);
  expect_bad_file(dir, "proof.json", "[1, 2]\n", "proof.json: expected a JSON object, got an array");
  expect_bad_file(dir, "proof.json", " \n", "proof.json: expected a JSON object, got an empty file");
  /* a compressed point that decodes to a point outside the prime-order subgroup */
  uint8_t bytes[48] = {0x80 | 0x00};
  bytes[47] = 5;
  char hx[97];
  for (int i = 0; i < 48; i++) snprintf(hx + 2 * i, 3, "%02x", bytes[i]);
  char *s = xstrdup(orig), *p = strstr(s, "\"c\": \"") + 6;
  memcpy(p, hx, 96);
  expect_bad_file(dir, "proof.json", s, "proof.json: c: point not in the prime-order subgroup");
  free(s);
  free(orig);
  /* a missing file */
  snprintf(path, sizeof path, "%s/vk.json", dir);
  char *moved = xasprintf("%s.moved", path);
  ck_assert_int_eq(rename(path, moved), 0);
  ck_assert_int_eq(g16_json_read(dir, &vk, &pr2, &pub2, &npub2, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "vk.json: cannot open: No such file"));
  ck_assert_int_eq(rename(moved, path), 0);
  free(moved);
  /* the files are as they were written */
  ck_assert_msg(g16_json_read(dir, &vk, &pr2, &pub2, &npub2, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(g16_verify(&vk, &pr2, pub2, npub2, &e), 1);
  g16_vk_clear(&vk);
  free(pub2);
  g16_ctx_close(c);
  g16_keys_free(k);
}
END_TEST

START_TEST(test_commands) {
  char dir[512], cache[512], path[1024];
  snprintf(dir, sizeof dir, "%s/cmd", TMP);
  snprintf(cache, sizeof cache, "%s/cmdcache", TMP);
  ck_assert_int_eq(run_cmd("prove --constraints 2^10 --seed 5 --cache %s --out %s", cache, dir), 0);
  ck_assert_int_eq(run_cmd("verify %s%s", dir, ""), 0);
  snprintf(path, sizeof path, "%s/out.txt", TMP);
  char *out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "valid Groth16 proof"));
  free(out);
  /* a tampered proof: take A from another instance */
  char dir2[512];
  snprintf(dir2, sizeof dir2, "%s/cmd2", TMP);
  ck_assert_int_eq(run_cmd("prove --constraints 1024 --seed 5 --instance 2 --cache %s --out %s", cache, dir2), 0);
  snprintf(path, sizeof path, "%s/proof.json", dir2);
  char *p2 = slurp(path), *a2 = strstr(p2, "\"a\": \"");
  snprintf(path, sizeof path, "%s/proof.json", dir);
  char *p1 = slurp(path), *a1 = strstr(p1, "\"a\": \"");
  memcpy(a1, a2, 6 + 96);
  spit(path, p1);
  ck_assert_int_eq(run_cmd("verify %s%s", dir, ""), 1);
  snprintf(path, sizeof path, "%s/out.txt", TMP);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "INVALID"));
  free(out);
  free(p1);
  free(p2);
  /* --calls: the first call and the steady state, each proof verified; stage lines on
   * stderr (not a terminal here) when the setup runs */
  char dir3[512];
  snprintf(dir3, sizeof dir3, "%s/cmd3", TMP);
  ck_assert_int_eq(run_cmd("prove --constraints 2^10 --seed 6 --calls 3 --cache %s --out %s", cache, dir3), 0);
  snprintf(path, sizeof path, "%s/out.txt", TMP);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "setup: G1 queries (A, B, L, H, IC) 2^12 points on cpu"));
  ck_assert_ptr_nonnull(strstr(out, "key cache: wrote"));
  ck_assert_ptr_nonnull(strstr(out, "first call"));
  ck_assert_ptr_nonnull(strstr(out, "steady state: 2 calls, median"));
  ck_assert_ptr_nonnull(strstr(out, "3 of 3 proofs verify"));
  ck_assert_ptr_nonnull(strstr(out, "backend time (cpu: wall time of its NTTs and MSMs) per call: first"));
  ck_assert_ptr_nonnull(strstr(out, "host RSS"));
  ck_assert_ptr_null(strstr(out, "peak memory: GPU"));
  free(out);
  ck_assert_int_eq(run_cmd("prove --constraints 2^10 --seed 6 --calls 2 --json --cache %s --out %s", cache, dir3), 0);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "key cache: loaded"));
  cJSON *j = cJSON_Parse(strchr(out, '{'));
  ck_assert_ptr_nonnull(j);
  ck_assert_str_eq(cJSON_GetObjectItem(j, "schema")->valuestring, "provesim.prove/1");
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "keys"), "source")->valuestring, "cache");
  ck_assert_int_eq((int)cJSON_GetObjectItem(j, "verified")->valuedouble, 2);
  ck_assert_int_eq((int)cJSON_GetObjectItem(cJSON_GetObjectItem(j, "steady"), "calls")->valuedouble, 1);
  cJSON *fc = cJSON_GetObjectItem(j, "first_call");
  ck_assert(cJSON_GetObjectItem(fc, "wall_s")->valuedouble >= cJSON_GetObjectItem(fc, "busy_s")->valuedouble);
  ck_assert(cJSON_IsNull(cJSON_GetObjectItem(j, "peak_gpu_bytes")));
  ck_assert(cJSON_GetObjectItem(j, "peak_host_rss_bytes")->valuedouble > 1e6);
  cJSON_Delete(j);
  free(out);
  ck_assert_int_eq(run_cmd("prove --calls 0 --out %s%s", dir3, ""), 2);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "--calls: expected an integer in 1..100000, got '0'"));
  free(out);
  /* bad input */
  ck_assert_int_eq(run_cmd("verify %s/nowhere%s", TMP, ""), 2);
  ck_assert_int_eq(run_cmd("prove --constraints two --out %s%s", dir, ""), 2);
  ck_assert_int_eq(run_cmd("prove --circuit sha --out %s%s", dir, ""), 2);
  ck_assert_int_eq(run_cmd("prove --help%s%s", "", ""), 0);
}
END_TEST

/* The workers of one device share its proving key: two contexts on one device (two
 * handles of the same backend and ordinal, as measure's workers of a GPU) hold the same
 * key, counted twice, uploaded by the first only; their jobs run at the same time and
 * their proofs verify; the key lives until the last context closes (the first context's
 * handle closed before: the key does not depend on it). A context on another device has
 * its own. */
typedef struct ctx_prove_arg {
  g16_ctx *c;
  uint64_t inst;
  g16_proof pr;
  fr_t pub[4];
  int npub, rc;
  ps_err e;
} ctx_prove_arg;

static void *ctx_prove_thread(void *p) {
  ctx_prove_arg *a = p;
  a->rc = g16_prove(a->c, a->inst, a->inst * 3, &a->pr, a->pub, &a->npub, &a->e);
  return NULL;
}

START_TEST(test_shared_key) {
  g16_keys *k = keys_or_die(1024, 5, -1, NULL);
  ps_err e = {0};
  ps_backend *b0 = backend_open_dev("cpu", 0, &e), *b1 = backend_open_dev("cpu", 0, &e),
             *b2 = backend_open_dev("cpu", 1, &e);
  ck_assert_ptr_nonnull(b0);
  ck_assert_ptr_nonnull(b1);
  ck_assert_ptr_nonnull(b2);
  ck_assert_int_eq(backend_ordinal(b2), 1);
  g16_ctx *c0 = NULL, *c1 = NULL, *c2 = NULL;
  ck_assert_int_eq(g16_ctx_open(b0, k, &c0, &e), PS_OK);
  ck_assert_int_eq(g16_ctx_open(b1, k, &c1, &e), PS_OK);
  ck_assert_int_eq(g16_ctx_open(b2, k, &c2, &e), PS_OK);
  int h0, h1, h2, u0, u1, u2;
  const void *k0 = g16_ctx_device_key(c0, &h0, &u0), *k1 = g16_ctx_device_key(c1, &h1, &u1),
             *k2 = g16_ctx_device_key(c2, &h2, &u2);
  ck_assert_ptr_eq(k0, k1);
  ck_assert_ptr_ne(k0, k2);
  ck_assert_int_eq(h0, 2);
  ck_assert_int_eq(h1, 2);
  ck_assert_int_eq(h2, 1);
  ck_assert_int_eq(u0, 1);
  ck_assert_int_eq(u1, 0);
  ck_assert_int_eq(u2, 1);
  /* Both workers of device 0 prove at once on the one key. */
  ctx_prove_arg a = {.c = c0, .inst = 21}, b = {.c = c1, .inst = 22};
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, ctx_prove_thread, &b), 0);
  ctx_prove_thread(&a);
  pthread_join(t, NULL);
  ck_assert_msg(a.rc == PS_OK, "%s", a.e.msg);
  ck_assert_msg(b.rc == PS_OK, "%s", b.e.msg);
  ck_assert_int_eq(g16_verify(g16_keys_vk(k), &a.pr, a.pub, a.npub, &e), 1);
  ck_assert_int_eq(g16_verify(g16_keys_vk(k), &b.pr, b.pub, b.npub, &e), 1);
  ck_assert(!fr_eq(&a.pub[0], &b.pub[0]) || !fr_eq(&a.pub[1], &b.pub[1]));
  /* The uploader leaves first, its handle closed too; the other still proves. */
  g16_ctx_close(c0);
  backend_close(b0);
  g16_ctx_device_key(c1, &h1, NULL);
  ck_assert_int_eq(h1, 1);
  ctx_prove_arg c = {.c = c1, .inst = 23};
  ctx_prove_thread(&c);
  ck_assert_msg(c.rc == PS_OK, "%s", c.e.msg);
  ck_assert_int_eq(g16_verify(g16_keys_vk(k), &c.pr, c.pub, c.npub, &e), 1);
  /* A new context on device 0 joins the living key rather than uploading. */
  ps_backend *b3 = backend_open_dev("cpu", 0, &e);
  g16_ctx *c3 = NULL;
  ck_assert_int_eq(g16_ctx_open(b3, k, &c3, &e), PS_OK);
  ck_assert_ptr_eq(g16_ctx_device_key(c3, &h1, &u1), k1);
  ck_assert_int_eq(h1, 2);
  ck_assert_int_eq(u1, 0);
  /* An MSM on bases of another device is refused. */
  g1_jac_t r;
  fr_t sc[1];
  fr_one(&sc[0]);
  backend_msm_bases *m = NULL;
  ck_assert_int_eq(backend_msm_bases_g1(b2, g16_keys_vk(k)->ic, 1, &m, &e), PS_OK);
  ck_assert_int_eq(backend_msm_g1(b1, m, sc, 1, &r, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "not registered on this backend's device"));
  ck_assert_int_eq(backend_msm_g1(b2, m, sc, 1, &r, &e), PS_OK);
  backend_msm_bases_free(m);
  g16_ctx_close(c1);
  g16_ctx_close(c3);
  g16_ctx_close(c2);
  backend_close(b1);
  backend_close(b2);
  backend_close(b3);
  g16_keys_free(k); /* asserts that no device key is left */
}
END_TEST

/* `measure` with the groth16 executor reports what an operator needs (measurement.prover):
 * two workers of one GPU, one key (the size g16_key_bytes gives) and no device buffers on
 * cpu, each worker's first call apart from the later ones (6 partitions, batch 1: 2 first
 * calls and 4 steady), the backend's time per call within the call's, no GPU peak on cpu,
 * and the kernel (here backend) seconds per partition; the table prints the same. */
START_TEST(test_measure_report) {
  const char *src = getenv("PROVESIM_SRC");
  char *scn = xasprintf("%s/configs/seed-coarse-mutex.yaml --set model=%s/models/provesim-groth16.yaml", src ? src : ".",
                        src ? src : ".");
  char *cache = xasprintf("%s/mcache", TMP);
  const char *common = "measure %s --backend cpu --executor groth16 --set prover.constraints=2^10 "
                       "--set system.cpu_cores=2 --set workload.partitions=6 --set run.warmup=1 "
                       "--set run.cooldown=2 --set run.replications=1 --cache %s";
  char *fmt = xasprintf("%s --json", common);
  ck_assert_int_eq(run_cmd(fmt, scn, cache), 0);
  char path[300];
  snprintf(path, sizeof path, "%s/out.txt", TMP);
  char *out = slurp(path);
  cJSON *j = cJSON_Parse(strchr(out, '{'));
  ck_assert_ptr_nonnull(j);
  cJSON *pv = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "measurement"), "prover");
  ck_assert_ptr_nonnull(pv);
  g16_keys *k = keys_or_die(1024, 1, -1, NULL);
  ck_assert_double_eq(cJSON_GetObjectItem(pv, "key_gpu_bytes")->valuedouble, (double)g16_key_bytes(k));
  ck_assert_double_eq(cJSON_GetObjectItem(pv, "constraints")->valuedouble, (double)g16_keys_constraints(k));
  g16_keys_free(k);
  ck_assert_double_eq(cJSON_GetObjectItem(pv, "worker_gpu_bytes")->valuedouble, 0);
  cJSON *fc = cJSON_GetObjectItem(pv, "first_call"), *st = cJSON_GetObjectItem(pv, "steady");
  ck_assert_int_eq((int)cJSON_GetObjectItem(fc, "workers")->valuedouble, 2);
  ck_assert_int_eq((int)cJSON_GetObjectItem(st, "calls")->valuedouble, 4);
  double fw = cJSON_GetObjectItem(fc, "wall_s")->valuedouble, fg = cJSON_GetObjectItem(fc, "gpu_s")->valuedouble;
  ck_assert(fg > 0 && fg <= fw);
  double sp = cJSON_GetObjectItem(st, "wall_p50_s")->valuedouble, sg = cJSON_GetObjectItem(st, "gpu_mean_s")->valuedouble;
  ck_assert(sg > 0 && sg <= cJSON_GetObjectItem(st, "wall_mean_s")->valuedouble);
  ck_assert(sp <= cJSON_GetObjectItem(st, "wall_p95_s")->valuedouble);
  ck_assert(cJSON_IsNull(cJSON_GetObjectItem(pv, "peak_gpu_bytes")));
  ck_assert(cJSON_GetObjectItem(pv, "peak_host_rss_bytes")->valuedouble > 1e6);
  ck_assert(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "metrics"), "gpu_busy_s_per_partition")->valuedouble > 0);
  cJSON_Delete(j);
  free(out);
  free(fmt);
  ck_assert_int_eq(run_cmd(common, scn, cache), 0);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "prover (2^10 constraints):"));
  ck_assert_ptr_nonnull(strstr(out, "mean of 2 workers; steady state 4 calls"));
  ck_assert_ptr_nonnull(strstr(out, "backend"));
  free(out);
  free(scn);
  free(cache);
}
END_TEST

/* ---- precomputed bases (prover.precompute) ---- */

/* The memory of the tables in closed form: window c adds ceil(256/c) times the bytes of the
 * A, B_G1, L and H bases on a device (nvars, nvars, nvars: L with its head of npub + 1
 * points, and n affine G1 points) to the
 * key; a worker's buffers grow by at least the one set of 2^(c-1) G1 buckets beyond the
 * plain MSMs' (window 8 at 2^10: 32 sets of 2^7 G2 buckets); the cpu backend keeps none.
 * auto picks 16 at this size when it fits, and nothing when it does not. */
START_TEST(test_precompute_memory) {
  g16_keys *k = keys_or_die(1024, 1, -1, NULL);
  const r1cs *cs = g16_keys_r1cs(k);
  size_t base = (size_t)(3 * cs->nvars + cs->nrows) * sizeof(g1_affine_t);
  size_t plain = g16_key_bytes(k);
  ck_assert_uint_eq(plain, base + (size_t)cs->nvars * sizeof(g2_affine_t));
  ck_assert_uint_eq(g16_key_bytes_at(k, 0), plain);
  ck_assert_uint_eq(g16_precompute_bytes(k, 0), 0);
  const unsigned cs_[] = {2, 8, 16, 20, 22, 24}, tables[] = {128, 32, 16, 13, 12, 11};
  for (int i = 0; i < 6; i++) {
    ck_assert_uint_eq(g16_precompute_bytes(k, cs_[i]), tables[i] * base);
    ck_assert_uint_eq(g16_key_bytes_at(k, cs_[i]), plain + tables[i] * base);
  }
  ck_assert_uint_eq(g16_keys_precompute(k), 0);
  g16_keys_set_precompute(k, 20);
  ck_assert_uint_eq(g16_keys_precompute(k), 20);
  ck_assert_uint_eq(g16_key_bytes(k), plain + 13 * base);
  ck_assert_uint_eq(g16_worker_bytes(k, "cpu", 2), 0);
  ck_assert_uint_eq(g16_worker_bytes(k, "cuda", 2), g16_worker_bytes_at(k, "cuda", 2, 20));
  size_t w0 = g16_worker_bytes_at(k, "cuda", 1, 0), w22 = g16_worker_bytes_at(k, "cuda", 1, 22);
  ck_assert_uint_ge(w22 - w0, ((size_t)1 << 21) * sizeof(g1_xyzz_t) - 32 * ((size_t)1 << 7) * sizeof(g2_xyzz_t));
  g16_keys_set_precompute(k, 0);
  ck_assert_uint_eq(g16_key_bytes(k), plain);

  size_t need16 = g16_key_bytes_at(k, 16) + 2 * g16_worker_bytes_at(k, "cuda", 3, 16);
  ck_assert_uint_eq(g16_precompute_auto(k, SIZE_MAX, 2, 3), 16);
  ck_assert_uint_eq(g16_precompute_auto(k, need16, 2, 3), 16);
  ck_assert_uint_lt(need16 - 1, g16_key_bytes_at(k, 22) + 2 * g16_worker_bytes_at(k, "cuda", 3, 22));
  ck_assert_uint_eq(g16_precompute_auto(k, need16 - 1, 2, 3), 0); /* and 22 needs more here */
  ck_assert_uint_eq(g16_precompute_auto(k, 0, 2, 3), 0);
  g16_keys_free(k);
}
END_TEST

/* With a window set, contexts open (the cpu backend builds no tables) and prove the same
 * bytes as without: the proofs verify and equal the plain ones. */
START_TEST(test_precompute_prove) {
  g16_keys *k = keys_or_die(1024, 3, -1, NULL);
  g16_proof pr[2];
  fr_t pub[2][8];
  int npub[2];
  ps_err e = {0};
  for (int i = 0; i < 2; i++) {
    g16_keys_set_precompute(k, i ? 16 : 0);
    g16_ctx *c = NULL;
    ck_assert_int_eq(g16_ctx_open(BK, k, &c, &e), PS_OK);
    ck_assert_int_eq(g16_prove(c, 4, 5, &pr[i], pub[i], &npub[i], &e), PS_OK);
    ck_assert_int_eq(g16_verify(g16_keys_vk(k), &pr[i], pub[i], npub[i], &e), 1);
    g16_ctx_close(c);
  }
  ck_assert_int_eq(npub[0], npub[1]);
  ck_assert_int_eq(memcmp(&pr[0], &pr[1], sizeof pr[0]), 0);
  g16_keys_free(k);
}
END_TEST

/* measure with prover.precompute on the cpu backend: it runs, the key's bytes count the
 * tables of the window asked for (what a GPU would hold), and the scenario's echo says it;
 * auto is off on cpu; a bad value is refused with exit 2 before any work. prove
 * --precompute proves, verifies and says the tables were not built. */
START_TEST(test_precompute_commands) {
  const char *src = getenv("PROVESIM_SRC");
  char *scn = xasprintf("%s/configs/seed-coarse-mutex.yaml --set model=%s/models/provesim-groth16.yaml", src ? src : ".",
                        src ? src : ".");
  char *cache = xasprintf("%s/pcache", TMP);
  const char *fmt = "measure %s --backend cpu --executor groth16 --set prover.constraints=2^10 "
                    "--set system.cpu_cores=2 --set workload.partitions=3 --set run.warmup=1 "
                    "--set run.replications=1 --cache %s --json --set prover.precompute=";
  char path[300];
  snprintf(path, sizeof path, "%s/out.txt", TMP);
  g16_keys *k = keys_or_die(1024, 1, -1, NULL);
  const char *val[] = {"16", "auto"};
  const size_t want[] = {g16_key_bytes_at(k, 16), g16_key_bytes_at(k, 0)};
  for (int i = 0; i < 2; i++) {
    char *f = xasprintf("%s%s", fmt, val[i]);
    ck_assert_int_eq(run_cmd(f, scn, cache), 0);
    free(f);
    char *out = slurp(path);
    cJSON *j = cJSON_Parse(strchr(out, '{'));
    ck_assert_ptr_nonnull(j);
    cJSON *pv = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "measurement"), "prover");
    ck_assert_double_eq(cJSON_GetObjectItem(pv, "key_gpu_bytes")->valuedouble, (double)want[i]);
    /* measurement.prover.precompute: the window in use (auto resolved: none on cpu) and its tables' bytes */
    cJSON *pc = cJSON_GetObjectItem(pv, "precompute");
    ck_assert_ptr_nonnull(pc);
    ck_assert_int_eq(cJSON_GetObjectItem(pc, "window")->valueint, i ? 0 : 16);
    ck_assert_double_eq(cJSON_GetObjectItem(pc, "table_bytes")->valuedouble,
                        i ? 0.0 : (double)g16_precompute_bytes(k, 16));
    ck_assert_ptr_nonnull(strstr(out, i ? "\"precompute\":\t\"auto\"" : "\"precompute\":\t16"));
    cJSON_Delete(j);
    free(out);
  }
  char *f = xasprintf("%s%s", fmt, "fast");
  ck_assert_int_eq(run_cmd(f, scn, cache), 2);
  free(f);
  char *out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "prover.precompute: expected off, auto, or a window in bits from 2 to 24"));
  free(out);
  char *dir = xasprintf("%s/pre", TMP);
  ck_assert_int_eq(run_cmd("prove --constraints 2^10 --precompute 20 --calls 2 --cache %s --out %s", cache, dir), 0);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "2 of 2 proofs verify"));
  ck_assert_ptr_nonnull(strstr(out, "precomputed bases: window 20, tables "));
  ck_assert_ptr_nonnull(strstr(out, "not built (the cpu backend proves without them)"));
  free(out);
  ck_assert_int_eq(run_cmd("verify %s%s", dir, ""), 0);
  ck_assert_int_eq(run_cmd("prove --precompute 25 --out %s%s", dir, ""), 2);
  out = slurp(path);
  ck_assert_ptr_nonnull(strstr(out, "--precompute: expected a window in bits from 2 to 24, got '25'"));
  free(out);
  g16_keys_free(k);
  free(dir);
  free(scn);
  free(cache);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("groth16");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_pairing_vectors);
  tcase_add_test(tc, test_pairing_bilinear);
  tcase_add_test(tc, test_r1cs_family);
  tcase_add_test(tc, test_prove_sizes);
  tcase_add_test(tc, test_batched_jobs);
  tcase_add_test(tc, test_ctx_reserve);
  tcase_add_test(tc, test_shared_key);
  tcase_add_test(tc, test_measure_report);
  tcase_add_test(tc, test_key_cache);
  tcase_add_test(tc, test_setup_against_definitions);
  tcase_add_test(tc, test_json_roundtrip);
  tcase_add_test(tc, test_commands);
  tcase_add_test(tc, test_precompute_memory);
  tcase_add_test(tc, test_precompute_prove);
  tcase_add_test(tc, test_precompute_commands);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  ps_err e = {0};
  BK = backend_open("cpu", &e);
  if (!BK) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  snprintf(TMP, sizeof TMP, "/tmp/test_groth16.XXXXXX");
  if (!mkdtemp(TMP)) return 1;
  SRunner *sr = srunner_create(suite());
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  backend_close(BK);
  char *cmd = xasprintf("rm -rf '%s'", TMP);
  if (system(cmd) != 0) nf++;
  free(cmd);
  return nf;
}
