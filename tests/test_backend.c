/* Check suite of prover/backend.h with the cpu backend (CI has no GPU): opening by name
 * and the error of each wrong name, NTTs and MSMs through the API against the plain-C
 * references, every error path of the MSM/NTT calls, the measurement entry points, and
 * that the cuda backend fails cleanly, naming --backend cpu, where no GPU is usable. The
 * CLI tests run provesim prover-bench through PROVESIM_BIN. */
#include "ck.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend.h"
#include "fb.h"
#include "msm.h"
#include "tune.h"

static ps_backend *open_cpu(void) {
  ps_err e = {0};
  ps_backend *b = backend_open("cpu", &e);
  ck_assert_msg(b != NULL, "backend_open(cpu): %s", e.msg);
  return b;
}

START_TEST(test_open_cpu) {
  ps_backend *b = open_cpu();
  ck_assert_str_eq(backend_name(b), "cpu");
  ck_assert_ptr_nonnull(strstr(backend_device(b), "CPU"));
  backend_close(b);
  backend_close(NULL);
}
END_TEST

START_TEST(test_open_unknown) {
  ps_err e = {0};
  ck_assert_ptr_null(backend_open("tpu", &e));
  ck_assert_ptr_nonnull(strstr(e.msg, "backend 'tpu': expected cpu or cuda"));
  ck_assert_int_eq(e.code, PS_EINPUT); /* bad input: the CLIs exit 2 */
}
END_TEST

START_TEST(test_open_cuda_without_gpu) {
  ps_err e = {0};
  ps_backend *b = backend_open("cuda", &e);
  if (b) { /* a machine with a usable GPU: nothing to test here */
    ck_assert_str_eq(backend_name(b), "cuda");
    backend_close(b);
    return;
  }
  ck_assert_msg(strstr(e.msg, "--backend cpu") != NULL, "message: %s", e.msg);
  ck_assert_msg(strstr(e.msg, "cuda backend") != NULL, "message: %s", e.msg);
  ck_assert_int_eq(e.code, PS_ERR); /* a failed run, not bad input: the CLIs exit 1 */
}
END_TEST

/* The cuda backend's tuning variables (tune.h): each one's words or range, unset and empty
 * values, and the message and code of a bad one. The kernels that use them build only with
 * CUDA; the reading is plain C. */
static int tune_with(const char *name, const char *value, ps_tune *t, ps_err *e) {
  setenv(name, value, 1);
  const int rc = ps_tune_read(t, e);
  unsetenv(name);
  return rc;
}

START_TEST(test_tune) {
  static const char *names[] = {"PSC_CUDA_SYNC", "PSC_MSM_WINDOW", "PSC_MSM_AFFINE", "PSC_MSM_SORT",
                                "PSC_MSM_LOG_GROUPS", "PSC_MSM_PLACE", "PSC_MSM_AGG_THREADS", "PSC_MSM_PIECES",
                                "PSC_MSM_PROFILE", "PSC_NTT_RADIX", "PSC_NTT_MAX_K", "PSC_NTT_LOG_BLOCK",
                                "PSC_NTT_TILES", "PSC_NTT_MUL", "PSC_NTT_REGS", "PSC_NTT_TW", "PSC_NTT_REDUCE", "PSC_MSM_SEGSUM",
                                "PSC_NTT_LAUNCH", "PSC_NTT_SPLIT", "PSC_NTT_CARVEOUT", "PSC_CUDA_LMEM"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
  ps_tune t;
  ps_err e = {0};
  /* all unset */
  ck_assert_int_eq(ps_tune_read(&t, &e), PS_OK);
  ck_assert_int_eq(t.cuda_sync, 0);
  ck_assert_int_eq(t.msm_window, 0);
  ck_assert_int_eq(t.msm_affine, -1);
  ck_assert_int_eq(t.msm_sort, -1);
  ck_assert_int_eq(t.msm_log_groups, -1);
  ck_assert_int_eq(t.msm_place, -1);
  ck_assert_int_eq(t.msm_agg_threads, 0);
  ck_assert_int_eq(t.msm_pieces, 0);
  ck_assert_int_eq(t.msm_profile, 0);
  ck_assert_int_eq(t.ntt_radix, 0);
  ck_assert_int_eq(t.ntt_max_k, 0);
  ck_assert_int_eq(t.ntt_log_block, 0);
  ck_assert_int_eq(t.ntt_tiles, -1);
  ck_assert_int_eq(t.ntt_mul, 0);
  ck_assert_int_eq(t.ntt_regs, 0);
  ck_assert_int_eq(t.msm_segsum, 0);
  ck_assert_int_eq(t.ntt_tw, 0);
  ck_assert_int_eq(t.ntt_reduce, -1);
  ck_assert_int_eq(t.ntt_launch, -1);
  ck_assert_int_eq(t.ntt_split, 0);
  ck_assert_int_eq(t.ntt_carveout, -1);
  ck_assert_int_eq(t.cuda_lmem, 0);
  /* in range, words and both ends of ranges */
  static const struct { const char *name, *value; size_t off; int want; } good[] = {
      {"PSC_CUDA_SYNC", "block", offsetof(ps_tune, cuda_sync), 3},
      {"PSC_MSM_WINDOW", "24", offsetof(ps_tune, msm_window), MSM_MAX_WINDOW},
      {"PSC_MSM_WINDOW", "2", offsetof(ps_tune, msm_window), 2},
      {"PSC_MSM_AFFINE", "0", offsetof(ps_tune, msm_affine), 0},
      {"PSC_MSM_SORT", "direct", offsetof(ps_tune, msm_sort), 0},
      {"PSC_MSM_SORT", "grouped", offsetof(ps_tune, msm_sort), 1},
      {"PSC_MSM_SORT", "auto", offsetof(ps_tune, msm_sort), -1},
      {"PSC_MSM_LOG_GROUPS", "12", offsetof(ps_tune, msm_log_groups), 12},
      {"PSC_MSM_PLACE", "point", offsetof(ps_tune, msm_place), 0},
      {"PSC_MSM_AGG_THREADS", "1024", offsetof(ps_tune, msm_agg_threads), 1024},
      {"PSC_MSM_PIECES", "64", offsetof(ps_tune, msm_pieces), 64},
      {"PSC_MSM_PROFILE", "", offsetof(ps_tune, msm_profile), 1}, /* set, even empty */
      {"PSC_NTT_RADIX", "2", offsetof(ps_tune, ntt_radix), 2},
      {"PSC_NTT_LOG_BLOCK", "11", offsetof(ps_tune, ntt_log_block), 11},
      {"PSC_NTT_LOG_BLOCK", "7", offsetof(ps_tune, ntt_log_block), 7},
      {"PSC_NTT_TILES", "0", offsetof(ps_tune, ntt_tiles), 0},
      {"PSC_NTT_MUL", "karatsuba", offsetof(ps_tune, ntt_mul), 1},
      {"PSC_NTT_MUL", "montgomery", offsetof(ps_tune, ntt_mul), 0},
      {"PSC_NTT_MUL", "fp64", offsetof(ps_tune, ntt_mul), 2},
      {"PSC_NTT_MUL", "mixed", offsetof(ps_tune, ntt_mul), 3},
      {"PSC_NTT_REGS", "128", offsetof(ps_tune, ntt_regs), 128},
      {"PSC_NTT_REGS", "96", offsetof(ps_tune, ntt_regs), 96},
      {"PSC_NTT_TW", "shared", offsetof(ps_tune, ntt_tw), 1},
      {"PSC_NTT_TW", "global", offsetof(ps_tune, ntt_tw), 0},
      {"PSC_NTT_REDUCE", "lazy", offsetof(ps_tune, ntt_reduce), 1},
      {"PSC_NTT_REDUCE", "full", offsetof(ps_tune, ntt_reduce), 0},
      {"PSC_MSM_SEGSUM", "staged", offsetof(ps_tune, msm_segsum), 1},
      {"PSC_MSM_SEGSUM", "thread", offsetof(ps_tune, msm_segsum), 0},
      {"PSC_NTT_LAUNCH", "pdl", offsetof(ps_tune, ntt_launch), 1},
      {"PSC_NTT_LAUNCH", "stream", offsetof(ps_tune, ntt_launch), 0},
      {"PSC_NTT_SPLIT", "even", offsetof(ps_tune, ntt_split), 1},
      {"PSC_NTT_SPLIT", "balanced", offsetof(ps_tune, ntt_split), 0},
      {"PSC_NTT_CARVEOUT", "0", offsetof(ps_tune, ntt_carveout), 0},
      {"PSC_NTT_CARVEOUT", "100", offsetof(ps_tune, ntt_carveout), 100},
      {"PSC_CUDA_LMEM", "early", offsetof(ps_tune, cuda_lmem), 1},
      {"PSC_CUDA_LMEM", "max", offsetof(ps_tune, cuda_lmem), 2},
      {"PSC_CUDA_LMEM", "lazy", offsetof(ps_tune, cuda_lmem), 0},
      {"PSC_MSM_PIECES", "", offsetof(ps_tune, msm_pieces), 0}, /* empty reads as unset */
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    ck_assert_int_eq(tune_with(good[i].name, good[i].value, &t, &e), PS_OK);
    ck_assert_msg(*(const int *)((const char *)&t + good[i].off) == good[i].want, "%s=%s", good[i].name,
                  good[i].value);
  }
  ck_assert_int_eq(tune_with("PSC_NTT_PIECES", "x", &t, &e), PS_OK); /* not a variable of ours */
  /* out of range: bad input, the variable and its expectation named, the value unset */
  static const struct { const char *name, *value, *msg; } bad[] = {
      {"PSC_CUDA_SYNC", "sleep", "PSC_CUDA_SYNC=\"sleep\": expected auto, spin, yield or block"},
      {"PSC_MSM_WINDOW", "25", "PSC_MSM_WINDOW=\"25\": expected a window of 2 to 24 bits"},
      {"PSC_MSM_AFFINE", "3", "PSC_MSM_AFFINE=\"3\": expected 0 (XYZZ bucket sums)"},
      {"PSC_MSM_SORT", "Grouped", "PSC_MSM_SORT=\"Grouped\": expected auto, grouped or direct"},
      {"PSC_MSM_LOG_GROUPS", "13", "PSC_MSM_LOG_GROUPS=\"13\": expected 0 to 12"},
      {"PSC_MSM_PLACE", "block", "PSC_MSM_PLACE=\"block\": expected agg or point"},
      {"PSC_MSM_AGG_THREADS", "300", "PSC_MSM_AGG_THREADS=\"300\": expected 256, 512 or 1024"},
      {"PSC_MSM_PIECES", "0", "PSC_MSM_PIECES=\"0\": expected 1 to 64"},
      {"PSC_MSM_PIECES", "8x", "PSC_MSM_PIECES=\"8x\": expected 1 to 64"},
      {"PSC_NTT_RADIX", "3", "PSC_NTT_RADIX=\"3\": expected 2 or 4"},
      {"PSC_NTT_MAX_K", "13", "PSC_NTT_MAX_K=\"13\": expected 0 to 12"},
      {"PSC_NTT_LOG_BLOCK", "6", "PSC_NTT_LOG_BLOCK=\"6\": expected 7 to 11"},
      {"PSC_NTT_TILES", "-1", "PSC_NTT_TILES=\"-1\": expected 0 to 1024"},
      {"PSC_NTT_MUL", "kara", "PSC_NTT_MUL=\"kara\": expected montgomery, karatsuba, fp64 or mixed"},
      {"PSC_NTT_REGS", "255", "PSC_NTT_REGS=\"255\": expected 96 or 128"},
      {"PSC_NTT_TW", "smem", "PSC_NTT_TW=\"smem\": expected global or shared"},
      {"PSC_NTT_REDUCE", "1", "PSC_NTT_REDUCE=\"1\": expected full or lazy"},
      {"PSC_MSM_SEGSUM", "shared", "PSC_MSM_SEGSUM=\"shared\": expected thread or staged"},
      {"PSC_NTT_LAUNCH", "graph", "PSC_NTT_LAUNCH=\"graph\": expected stream or pdl"},
      {"PSC_NTT_SPLIT", "odd", "PSC_NTT_SPLIT=\"odd\": expected balanced or even"},
      {"PSC_NTT_CARVEOUT", "101", "PSC_NTT_CARVEOUT=\"101\": expected 0 to 100"},
      {"PSC_CUDA_LMEM", "resize", "PSC_CUDA_LMEM=\"resize\": expected lazy, early or max"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    e.msg[0] = 0, e.code = 0;
    ck_assert_int_eq(tune_with(bad[i].name, bad[i].value, &t, &e), PS_EINPUT);
    ck_assert_int_eq(e.code, PS_EINPUT);
    ck_assert_msg(strstr(e.msg, bad[i].msg) == e.msg, "%s=%s: message %s", bad[i].name, bad[i].value, e.msg);
  }
  ck_assert_int_eq(t.ntt_tiles, -1); /* the last bad value reads as unset */
  /* two bad: the first in the table is named; a value is cut at 64 characters */
  setenv("PSC_NTT_TILES", "x", 1);
  ck_assert_int_eq(tune_with("PSC_MSM_PIECES", "99", &t, &e), PS_EINPUT);
  unsetenv("PSC_NTT_TILES");
  ck_assert_ptr_nonnull(strstr(e.msg, "PSC_MSM_PIECES"));
  char longv[200];
  memset(longv, '7', sizeof longv - 1), longv[sizeof longv - 1] = 0;
  ck_assert_int_eq(tune_with("PSC_MSM_PIECES", longv, &t, &e), PS_EINPUT);
  ck_assert_uint_lt(strlen(e.msg), 120);
  /* staged twiddles take the Montgomery product only: with another, bad input naming both */
  setenv("PSC_NTT_MUL", "fp64", 1);
  ck_assert_int_eq(tune_with("PSC_NTT_TW", "shared", &t, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "PSC_NTT_TW=shared: expected PSC_NTT_MUL unset or montgomery, not \"fp64\"");
  ck_assert_int_eq(tune_with("PSC_NTT_TW", "global", &t, &e), PS_OK);
  /* and so does the lazily reduced transform */
  ck_assert_int_eq(tune_with("PSC_NTT_REDUCE", "lazy", &t, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "PSC_NTT_REDUCE=lazy: expected PSC_NTT_MUL unset or montgomery, not \"fp64\"");
  ck_assert_int_eq(tune_with("PSC_NTT_REDUCE", "full", &t, &e), PS_OK);
  setenv("PSC_NTT_MUL", "montgomery", 1);
  ck_assert_int_eq(tune_with("PSC_NTT_TW", "shared", &t, &e), PS_OK);
  ck_assert_int_eq(tune_with("PSC_NTT_REDUCE", "lazy", &t, &e), PS_OK);
  unsetenv("PSC_NTT_MUL");
  /* the dependents' launch has the default passes only (the lazily reduced Montgomery ones
   * reading their twiddles from global memory): beside any other, bad input */
  static const struct { const char *name, *value; } notpdl[] = {
      {"PSC_NTT_MUL", "karatsuba"}, {"PSC_NTT_MUL", "fp64"}, {"PSC_NTT_REDUCE", "full"}, {"PSC_NTT_TW", "shared"}};
  for (size_t i = 0; i < sizeof notpdl / sizeof notpdl[0]; i++) {
    setenv(notpdl[i].name, notpdl[i].value, 1);
    ck_assert_int_eq(tune_with("PSC_NTT_LAUNCH", "pdl", &t, &e), PS_EINPUT);
    ck_assert_msg(strstr(e.msg, "PSC_NTT_LAUNCH=pdl: expected the default passes") == e.msg, "%s=%s: %s",
                  notpdl[i].name, notpdl[i].value, e.msg);
    ck_assert_int_eq(tune_with("PSC_NTT_LAUNCH", "stream", &t, &e), PS_OK);
    unsetenv(notpdl[i].name);
  }
  setenv("PSC_NTT_MUL", "montgomery", 1);
  setenv("PSC_NTT_REDUCE", "lazy", 1);
  setenv("PSC_NTT_TW", "global", 1);
  ck_assert_int_eq(tune_with("PSC_NTT_LAUNCH", "pdl", &t, &e), PS_OK);
  ck_assert_int_eq(t.ntt_launch, 1);
  unsetenv("PSC_NTT_MUL"), unsetenv("PSC_NTT_REDUCE"), unsetenv("PSC_NTT_TW");
  /* the launch the NTT applies: the variable where set, else the kernel's default for the
   * lazily reduced passes with twiddles from global memory, stream launches for the others */
  static const struct { const char *launch, *tw; int lazy, dflt, want; } pd[] = {
      {NULL, NULL, 1, 1, 1},      {NULL, NULL, 1, 0, 0},     {NULL, NULL, 0, 1, 0},
      {NULL, "shared", 1, 1, 0},  {NULL, "global", 1, 1, 1}, {"stream", NULL, 1, 1, 0},
      {"pdl", NULL, 1, 0, 1}};
  for (size_t i = 0; i < sizeof pd / sizeof pd[0]; i++) {
    if (pd[i].launch) setenv("PSC_NTT_LAUNCH", pd[i].launch, 1);
    if (pd[i].tw) setenv("PSC_NTT_TW", pd[i].tw, 1);
    ck_assert_int_eq(ps_tune_read(&t, &e), PS_OK);
    ck_assert_msg(ps_tune_ntt_pdl(&t, pd[i].lazy, pd[i].dflt) == pd[i].want,
                  "PSC_NTT_LAUNCH=%s PSC_NTT_TW=%s, lazy %d, default %d: %d", pd[i].launch ? pd[i].launch : "(unset)",
                  pd[i].tw ? pd[i].tw : "(unset)", pd[i].lazy, pd[i].dflt, ps_tune_ntt_pdl(&t, pd[i].lazy, pd[i].dflt));
    unsetenv("PSC_NTT_LAUNCH"), unsetenv("PSC_NTT_TW");
  }
  /* the reduction the NTT applies: the variable where set, else the kernel's default with
   * the Montgomery product only */
  static const struct { const char *mul, *reduce; int dflt, want; } lz[] = {
      {NULL, NULL, 1, 1},     {NULL, NULL, 0, 0},         {"montgomery", NULL, 1, 1}, {"karatsuba", NULL, 1, 0},
      {"fp64", NULL, 1, 0},   {"mixed", NULL, 1, 0},      {NULL, "full", 1, 0},       {NULL, "lazy", 0, 1},
      {"montgomery", "full", 1, 0}, {"karatsuba", "full", 1, 0}};
  for (size_t i = 0; i < sizeof lz / sizeof lz[0]; i++) {
    if (lz[i].mul) setenv("PSC_NTT_MUL", lz[i].mul, 1);
    if (lz[i].reduce) setenv("PSC_NTT_REDUCE", lz[i].reduce, 1);
    ck_assert_int_eq(ps_tune_read(&t, &e), PS_OK);
    ck_assert_msg(ps_tune_ntt_lazy(&t, lz[i].dflt) == lz[i].want, "PSC_NTT_MUL=%s PSC_NTT_REDUCE=%s, default %d: %d",
                  lz[i].mul ? lz[i].mul : "(unset)", lz[i].reduce ? lz[i].reduce : "(unset)", lz[i].dflt,
                  ps_tune_ntt_lazy(&t, lz[i].dflt));
    unsetenv("PSC_NTT_MUL"), unsetenv("PSC_NTT_REDUCE");
  }
}
END_TEST

START_TEST(test_ntt_roundtrip_and_reference) {
  ps_backend *b = open_cpu();
  ps_err e = {0};
  const unsigned log_n = 6;
  const size_t n = (size_t)1 << log_n, batch = 3;
  fr_t *a = xmalloc(n * batch * sizeof *a), *c = xmalloc(n * batch * sizeof *c);
  backend_random_fr(a, n * batch, 5);
  memcpy(c, a, n * batch * sizeof *a);
  /* Through the API == the reference called directly. */
  ck_assert_int_eq(backend_ntt(b, a, log_n, batch, NTT_COSET | NTT_OUT_BITREV, &e), PS_OK);
  ntt_cpu(c, log_n, batch, NTT_COSET | NTT_OUT_BITREV, 1);
  ck_assert_int_eq(memcmp(a, c, n * batch * sizeof *a), 0);
  /* And back. */
  ck_assert_int_eq(backend_ntt(b, a, log_n, batch, NTT_COSET | NTT_INVERSE | NTT_IN_BITREV, &e), PS_OK);
  backend_random_fr(c, n * batch, 5);
  ck_assert_int_eq(memcmp(a, c, n * batch * sizeof *a), 0);
  /* Forward natural -> natural against direct evaluation at w^k. */
  fr_t w, x, pw, acc, t;
  ntt_root_of_unity(&w, log_n);
  memcpy(a, c, n * sizeof *a);
  ck_assert_int_eq(backend_ntt(b, a, log_n, 1, 0, &e), PS_OK);
  for (size_t k = 0; k < n; k += 7) {
    fr_one(&x);
    for (size_t i = 0; i < k; i++) fr_mul(&x, &x, &w);
    fr_zero(&acc);
    fr_one(&pw);
    for (size_t i = 0; i < n; i++) {
      fr_mul(&t, &c[i], &pw);
      fr_add(&acc, &acc, &t);
      fr_mul(&pw, &pw, &x);
    }
    ck_assert_msg(fr_eq(&acc, &a[k]), "NTT output %zu differs from direct evaluation", k);
  }
  ck_assert_int_eq(backend_ntt(b, a, log_n, 0, 0, &e), PS_OK); /* empty batch */
  free(a);
  free(c);
  backend_close(b);
}
END_TEST

START_TEST(test_ntt_errors) {
  ps_backend *b = open_cpu();
  ps_err e = {0};
  fr_t a[4];
  ck_assert_int_eq(backend_ntt(b, a, 0, 1, 0, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "expected 1 <= log2(size) <= 27"));
  ck_assert_int_eq(backend_ntt(b, a, 40, 1, 0, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "2^40"));
  ck_assert_int_eq(backend_ntt(b, a, 2, 1, 0x40, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "unknown bits"));
  backend_close(b);
}
END_TEST

START_TEST(test_msm_g1_g2_against_naive) {
  ps_backend *b = open_cpu();
  ps_err e = {0};
  const size_t n = 37;
  g1_affine_t *p1 = xmalloc(n * sizeof *p1);
  g2_affine_t *p2 = xmalloc(n * sizeof *p2);
  fr_t *s = backend_host_alloc(b, n * sizeof *s);
  backend_random_g1(p1, n, 1);
  backend_random_g2(p2, n, 2);
  backend_random_scalars(s, n, 3);
  memset(&s[0], 0, sizeof s[0]);   /* zero scalar */
  memset(&s[1], 0xff, sizeof s[1]); /* 2^256 - 1 >= r */
  g1_affine_set_inf(&p1[2]);        /* point at infinity */
  p1[4] = p1[3];                    /* repeated base */
  backend_msm_bases *m1 = NULL, *m2 = NULL;
  ck_assert_int_eq(backend_msm_bases_g1(b, p1, n, &m1, &e), PS_OK);
  ck_assert_int_eq(backend_msm_bases_g2(b, p2, n, &m2, &e), PS_OK);
  for (size_t k = 0; k <= n; k += 12) {
    g1_jac_t r1, ref1;
    g2_jac_t r2, ref2;
    ck_assert_int_eq(backend_msm_g1(b, m1, s, k, &r1, &e), PS_OK);
    msm_naive_g1(&ref1, p1, s, k);
    ck_assert_msg(g1_jac_eq(&r1, &ref1), "G1 MSM of %zu points differs from the naive sum", k);
    ck_assert_int_eq(backend_msm_g2(b, m2, s, k, &r2, &e), PS_OK);
    msm_naive_g2(&ref2, p2, s, k);
    ck_assert_msg(g2_jac_eq(&r2, &ref2), "G2 MSM of %zu points differs from the naive sum", k);
  }
  /* Batched MSMs over one uploaded vector, at offsets: each equals the naive sum of its
   * slice; a G2 batch likewise; slices past the vector's end are refused. */
  {
    backend_vec *v = NULL;
    ck_assert_int_eq(backend_vec_upload(b, &v, s, n, &e), PS_OK);
    backend_msm_bases *mm[2] = {m1, m1}, *mm2[1] = {m2};
    size_t off[2] = {0, 5}, cnt[2] = {n, n - 7};
    g1_jac_t r[2], ref;
    ck_assert_int_eq(backend_msm_g1_vec(b, 2, mm, v, off, cnt, r, &e), PS_OK);
    msm_naive_g1(&ref, p1, s, n);
    ck_assert(g1_jac_eq(&r[0], &ref));
    msm_naive_g1(&ref, p1, s + 5, n - 7);
    ck_assert_msg(g1_jac_eq(&r[1], &ref), "the batched MSM at offset 5 differs from the naive sum");
    g2_jac_t q, qref;
    size_t off2 = 3, cnt2 = 20;
    ck_assert_int_eq(backend_msm_g2_vec(b, 1, mm2, v, &off2, &cnt2, &q, &e), PS_OK);
    msm_naive_g2(&qref, p2, s + 3, 20);
    ck_assert(g2_jac_eq(&q, &qref));
    off[1] = 10; /* 10 + (n - 7) > n */
    ck_assert_int_eq(backend_msm_g1_vec(b, 2, mm, v, off, cnt, r, &e), PS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "of a vector of 37"));
    backend_vec_free(v);
    backend_vec_free(NULL);
  }
  /* A fixed window gives the same point. */
  g1_jac_t r1, ref1;
  backend_set_msm_window(b, 3);
  ck_assert_uint_eq(backend_msm_window(b, 0, n), 3);
  ck_assert_int_eq(backend_msm_g1(b, m1, s, n, &r1, &e), PS_OK);
  backend_set_msm_window(b, 0);
  msm_naive_g1(&ref1, p1, s, n);
  ck_assert(g1_jac_eq(&r1, &ref1));
  backend_msm_bases_free(m1);
  backend_msm_bases_free(m2);
  backend_msm_bases_free(NULL);
  backend_host_free(b, s);
  backend_host_free(b, NULL);
  free(p1);
  free(p2);
  backend_close(b);
}
END_TEST

START_TEST(test_msm_errors) {
  ps_err e = {0};
  ps_backend *b = open_cpu(), *other = backend_open_dev("cpu", 1, &e); /* another device */
  g1_affine_t p[4];
  fr_t s[8];
  g1_jac_t r;
  g2_jac_t r2;
  backend_random_g1(p, 4, 9);
  backend_random_scalars(s, 8, 9);
  backend_msm_bases *m = NULL;
  ck_assert_int_eq(backend_msm_bases_g1(b, p, 4, &m, &e), PS_OK);
  ck_assert_int_eq(backend_msm_g1(b, m, s, 8, &r, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "MSM of 8 scalars over 4 registered bases"));
  ck_assert_int_eq(backend_msm_g2(b, m, s, 2, &r2, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "bases registered for G1, used for G2"));
  ck_assert_int_eq(backend_msm_g1(other, m, s, 2, &r, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "not registered on this backend's device"));
  ck_assert_int_eq(backend_msm_g1(b, m, NULL, 2, &r, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "NULL scalars"));
  backend_set_msm_window(b, 30);
  ck_assert_int_eq(backend_msm_g1(b, m, s, 2, &r, &e), PS_EINPUT);
  ck_assert_ptr_nonnull(strstr(e.msg, "MSM window 30"));
  backend_set_msm_window(b, 0);
  backend_msm_bases *bad = NULL;
  ck_assert_int_eq(backend_msm_bases_g1(b, NULL, 4, &bad, &e), PS_EINPUT);
  ck_assert_ptr_null(bad);
  backend_msm_bases_free(m);
  backend_close(b);
  backend_close(other);
}
END_TEST

START_TEST(test_measurements) {
  ps_backend *b = open_cpu();
  ps_err e = {0};
  double rate = 0, ms = -1;
  ck_assert_int_eq(backend_bench_field(b, 0, &rate, &e), PS_OK);
  ck_assert(rate > 1e5);
  ck_assert_int_eq(backend_bench_field(b, 1, &rate, &e), PS_OK);
  ck_assert(rate > 1e5);
  ck_assert_int_eq(backend_bench_ntt(b, 8, NTT_OUT_BITREV, 3, &ms, &e), PS_OK);
  ck_assert(ms >= 0);
  ck_assert_int_eq(backend_bench_ntt(b, 0, 0, 3, &ms, &e), PS_EINPUT);
  g1_affine_t p[64];
  fr_t s[64];
  backend_random_g1(p, 64, 4);
  backend_random_scalars(s, 64, 4);
  backend_msm_bases *m = NULL;
  ck_assert_int_eq(backend_msm_bases_g1(b, p, 64, &m, &e), PS_OK);
  ck_assert_int_eq(backend_bench_msm(b, m, s, 64, 2, &ms, &e), PS_OK);
  ck_assert(ms >= 0);
  backend_msm_bases_free(m);
  backend_close(b);
}
END_TEST

/* The fixed-base products of key generation against plain scalar multiplication, byte
 * for byte (affine points are unique), on a random base and on the generator: random
 * scalars, and 0, 1, -1, 2^w - 1 and 2^w (a window's largest digit and the carry into the
 * next), with the progress callback's counts; and backend_busy_s grows with the work. */
static size_t fb_ticks, fb_last;
static void fb_tick(void *ctx, size_t done) {
  (void)ctx;
  ck_assert_uint_ge(done, fb_last);
  fb_last = done;
  fb_ticks++;
}

static void fb_scalars(fr_t *k, size_t n, unsigned w, uint64_t seed) {
  backend_random_fr(k, n, seed);
  fr_zero(&k[0]);
  fr_one(&k[1]);
  fr_neg(&k[2], &k[1]);
  fr_from_u64(&k[3], ((uint64_t)1 << w) - 1);
  fr_from_u64(&k[4], (uint64_t)1 << w);
  k[6] = k[5]; /* a repeated scalar */
}

START_TEST(test_fixed_base_against_scalar_mul) {
  ps_backend *b = open_cpu();
  ps_err e = {0};
  const size_t n1 = 5000, n2 = 300;
  fr_t *k = xmalloc(n1 * sizeof *k);
  g1_affine_t gen1, *o1 = xmalloc(n1 * sizeof *o1);
  g2_affine_t gen2, *o2 = xmalloc(n2 * sizeof *o2);
  double busy0 = backend_busy_s(b);
  for (int round = 0; round < 2; round++) {
    if (round == 0) {
      backend_random_g1(&gen1, 1, 21);
      backend_random_g2(&gen2, 1, 22);
    } else {
      g1_generator(&gen1);
      g2_generator(&gen2);
    }
    backend_fb *t1 = NULL, *t2 = NULL;
    ck_assert_int_eq(backend_fb_g1(b, &gen1, n1, &t1, &e), PS_OK);
    fb_scalars(k, n1, fb_window(n1, FB_MAX_WINDOW_G1), 23 + round);
    fb_ticks = fb_last = 0;
    ck_assert_int_eq(backend_fb_mul(t1, k, n1, o1, fb_tick, NULL, &e), PS_OK);
    ck_assert_uint_ge(fb_ticks, 1);
    ck_assert(fb_last > 0 && fb_last <= n1); /* par_for ticks from the calling thread only */
    for (size_t i = 0; i < n1; i++) {
      if (i > 8 && i % 7) continue;
      fr_t c;
      g1_jac_t j;
      g1_affine_t ref;
      fr_to_canon(&c, &k[i]);
      g1_affine_mul(&j, &gen1, &c);
      g1_jac_to_affine(&ref, &j);
      ck_assert_msg(!memcmp(&o1[i], &ref, sizeof ref), "G1 product %zu differs from k * G", i);
    }
    ck_assert(g1_affine_is_inf(&o1[0]));
    ck_assert_int_eq(backend_fb_g2(b, &gen2, n2, &t2, &e), PS_OK);
    fb_scalars(k, n2, fb_window(n2, FB_MAX_WINDOW_G2), 25 + round);
    ck_assert_int_eq(backend_fb_mul(t2, k, n2, o2, NULL, NULL, &e), PS_OK);
    for (size_t i = 0; i < n2; i++) {
      if (i > 8 && i % 5) continue;
      fr_t c;
      g2_jac_t j;
      g2_affine_t ref;
      fr_to_canon(&c, &k[i]);
      g2_affine_mul(&j, &gen2, &c);
      g2_jac_to_affine(&ref, &j);
      ck_assert_msg(!memcmp(&o2[i], &ref, sizeof ref), "G2 product %zu differs from k * G", i);
    }
    ck_assert_int_eq(backend_fb_mul(t2, k, 0, o2, NULL, NULL, &e), PS_OK);
    ck_assert_int_eq(backend_fb_mul(t2, NULL, 3, o2, NULL, NULL, &e), PS_EINPUT);
    backend_fb_free(t1);
    backend_fb_free(t2);
  }
  ck_assert(backend_busy_s(b) > busy0);
  ck_assert_uint_eq(backend_device_peak_bytes(b), 0);
  backend_fb_free(NULL);
  free(k), free(o1), free(o2);
  backend_close(b);
}
END_TEST

/* Runs provesim with the arguments; returns the exit status, output in out (if any). */
static int run_cli(const char *args, char *out, size_t outn) {
  const char *bin = getenv("PROVESIM_BIN");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  size_t got = fread(out, 1, outn - 1, f);
  out[got] = 0;
  int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_cli_bench) {
  if (!getenv("PROVESIM_BIN")) return;
  static char out[65536];
  ck_assert_int_eq(run_cli("prover-bench --backend cpu --sizes 6 --reps 1", out, sizeof out), 0);
  ck_assert_msg(strstr(out, "msm-g1") && strstr(out, "ntt-coset") && strstr(out, "x mult-t"), "%s", out);
  ck_assert_msg(!strstr(out, "\nsynth "), "synth is not in the default set: %s", out);
  /* synth only where named: one row a size, its threads in the window column */
  ck_assert_int_eq(run_cli("prover-bench --backend cpu --only synth --sizes 6..7 --reps 1 --threads 1", out, sizeof out),
                   0);
  ck_assert_msg(strstr(out, "\nsynth          2^6        1t") && strstr(out, "\nsynth          2^7        1t") &&
                    !strstr(out, "msm-g1") && !strstr(out, "ntt-coset"),
                "%s", out);
  ck_assert_int_eq(run_cli("prover-bench --backend cpu --only synth --sizes 5 --reps 1", out, sizeof out), 2);
  ck_assert_int_eq(run_cli("prover-bench --threads 0", out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "--threads '0': expected an integer 1..4096"));
  ck_assert_int_eq(run_cli("prover-bench --help", out, sizeof out), 0);
  ck_assert_ptr_nonnull(strstr(out, "--backend cpu|cuda"));
  ck_assert_int_eq(run_cli("prover-bench --sizes 9..3", out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "--sizes '9..3'"));
  ck_assert_int_eq(run_cli("prover-bench --only fft", out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "unknown kernel 'fft'"));
  ck_assert_int_eq(run_cli("prover-bench --reps", out, sizeof out), 2);
  ck_assert_int_eq(run_cli("prover-bench --backend tpu", out, sizeof out), 2); /* bad input, as in prove */
  ck_assert_ptr_nonnull(strstr(out, "expected cpu or cuda"));
  int rc = run_cli("prover-bench --backend cuda --sizes 6 --reps 1", out, sizeof out);
  if (rc != 0) { /* no GPU here: a clear message, not a crash */
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(out, "--backend cpu") != NULL, "%s", out);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("backend");
  TCase *tc = tcase_create("cpu");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_open_cpu);
  tcase_add_test(tc, test_open_unknown);
  tcase_add_test(tc, test_open_cuda_without_gpu);
  tcase_add_test(tc, test_tune);
  tcase_add_test(tc, test_ntt_roundtrip_and_reference);
  tcase_add_test(tc, test_ntt_errors);
  tcase_add_test(tc, test_msm_g1_g2_against_naive);
  tcase_add_test(tc, test_msm_errors);
  tcase_add_test(tc, test_measurements);
  tcase_add_test(tc, test_fixed_base_against_scalar_mul);
  tcase_add_test(tc, test_cli_bench);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf;
}
