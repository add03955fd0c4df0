/* gpu_check: the CUDA backend against the plain-C backend on random inputs, bit for bit.
 * NTTs of sizes 2^1..2^max in every order/direction/coset combination (the large sizes in
 * the common ones), MSMs on G1 up to 2^22 and on G2 up to 2^20 with random scalars, edge
 * cases (zero, one, r-1, scalars >= r, 2^256-1, repeated bases, the point at infinity),
 * a sweep of MSM windows, and skewed scalars as a Groth16 witness makes them (90% in {0, 1}
 * and the rest random; all ones; all equal to one random value) at 2^16..2^20 on G1 and G2,
 * which pile most points into one bucket; witness-like sets at odd sizes with and without
 * precomputed bases (--sparse-max); and key generation (--keygen-max): the fixed-base
 * products of the setup on random and edge-case scalars, and whole Groth16 keys made on
 * the GPU against keys made on the CPUs, byte for byte, at 2^12 and 2^16. Needs a GPU, so it is not registered with ctest; the
 * device run script (prover/cuda/device_run.sh) runs it on the H200. Prints one line per
 * check and exits with the number of failures.
 *
 * usage: gpu_check [--ntt-max K] [--g1-min K] [--g1-max K] [--g2-max K] [--quick]
 *                  [--skew-min K] [--skew-max K] [--skew-only] [--keygen-max K] [--keygen-only]
 *                  [--sparse-max K] [--sparse-only] [--no-batch] [--batch-only] [--ntt-only]
 * --ntt-only runs the NTT checks alone (to --ntt-max), so that a run for an NTT setting
 * (PSC_NTT_MUL, PSC_NTT_REGS, ...) ends within a device script's time limit.
 * --sparse-max K (default 20; below 14 none): every kind of witness-like scalar set (all
 * 0, all 1, 90% in {0,1}, 90% in {0,1,-1}, 0/1 with one other, none 0/1) at sizes up
 * to 2^K + 3 on G1 and 2^(K-4) + 3 on G2, over plain and precomputed bases.
 * --no-batch leaves out, --batch-only runs only, the batches that share scalars (A and
 * B_G1 take the same witness, and the second MSM reuses the first's sorted digits) and
 * the windows of 16..22 bits (check_batch_all). --g1-min K (default 12) starts the G1 MSMs
 * of random scalars at 2^K, so that one large size can be checked alone. PSC_MSM_AFFINE=1 in
 * the environment checks the batch-affine bucket sums (prover/cuda/msm_affine.h) in every G1
 * MSM over plain bases. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "fb.h"
#include "g16_int.h"
#include "groth16.h"
#include "msm.h"

static int fails = 0, checks = 0;

static void report(const char *what, int ok, double gpu_ms, double cpu_ms) {
  checks++;
  if (!ok) fails++;
  printf("%-46s %s   gpu %9.2f ms   cpu %9.2f ms\n", what, ok ? "ok  " : "FAIL", gpu_ms, cpu_ms);
  fflush(stdout);
}

static void die(const char *where, const ps_err *e) {
  fprintf(stderr, "gpu_check: %s: %s\n", where, e->msg);
  exit(100);
}

static void check_ntt(ps_backend *gpu, ps_backend *cpu, unsigned log_n, int flags, uint64_t seed) {
  size_t n = (size_t)1 << log_n, batch = log_n <= 10 ? 3 : 1;
  fr_t *a = xmalloc(n * batch * sizeof *a), *b = xmalloc(n * batch * sizeof *b);
  ps_err e = {0};
  backend_random_fr(a, n * batch, seed);
  memcpy(b, a, n * batch * sizeof *a);
  double t0 = ps_now();
  if (backend_ntt(gpu, a, log_n, batch, flags, &e)) die("cuda NTT", &e);
  double t1 = ps_now();
  if (backend_ntt(cpu, b, log_n, batch, flags, &e)) die("cpu NTT", &e);
  double t2 = ps_now();
  char what[96];
  snprintf(what, sizeof what, "ntt 2^%-2u x%zu %s%s%s%s", log_n, batch, flags & NTT_INVERSE ? "inverse" : "forward",
           flags & NTT_COSET ? " coset" : "", flags & NTT_IN_BITREV ? " in:rev" : " in:nat",
           flags & NTT_OUT_BITREV ? " out:rev" : " out:nat");
  report(what, !memcmp(a, b, n * batch * sizeof *a), (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  free(a);
  free(b);
}

/* Scalars: random, with edge cases sprinkled in when edge is set. */
static void make_scalars(fr_t *s, size_t n, uint64_t seed, int edge) {
  static const fr_t r = BLS_FR_R;
  backend_random_scalars(s, n, seed);
  if (!edge) return;
  for (size_t i = 0; i < n; i++) {
    switch (i % 11) {
    case 0: memset(&s[i], 0, sizeof s[i]); break;                    /* zero */
    case 1: memset(&s[i], 0, sizeof s[i]); s[i].v[0] = 1; break;     /* one */
    case 2: s[i] = r; s[i].v[0] -= 1; break;                         /* r - 1 */
    case 3: s[i] = r; break;                                         /* r (= 0) */
    case 4: s[i] = r; s[i].v[0] += 5; break;                         /* r + 5 */
    case 5: memset(&s[i], 0xff, sizeof s[i]); break;                 /* 2^256 - 1 */
    case 6: memset(&s[i], 0, sizeof s[i]); s[i].v[7] = 0x80000000u; break; /* 2^255 */
    default: break;
    }
  }
}

/* With precomp > 0 the GPU's bases are precomputed for that window first, and the MSM
 * runs with it (the precomputed path); the CPU computes the plain MSM. */
static void check_msm_pre(ps_backend *gpu, ps_backend *cpu, int g2, size_t n, unsigned window, int edge,
                          uint64_t seed, unsigned precomp) {
  ps_err e = {0};
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  unsigned char *bases = xmalloc(n * psz + 1);
  fr_t *s = backend_host_alloc(gpu, n * sizeof(fr_t) + 1);
  if (g2) backend_random_g2((g2_affine_t *)bases, n, seed);
  else backend_random_g1((g1_affine_t *)bases, n, seed);
  make_scalars(s, n, seed + 1, edge);
  if (edge && n >= 8) {
    /* The point at infinity, a repeated base and a base with its negation. */
    memset(bases + 3 * psz, 0, psz);
    memcpy(bases + 5 * psz, bases + 4 * psz, psz);
    if (g2) g2_affine_neg((g2_affine_t *)(bases + 7 * psz), (g2_affine_t *)(bases + 6 * psz));
    else g1_affine_neg((g1_affine_t *)(bases + 7 * psz), (g1_affine_t *)(bases + 6 * psz));
    s[7] = s[6];
  }
  backend_msm_bases *mg = NULL, *mc = NULL;
  if ((g2 ? backend_msm_bases_g2(gpu, (g2_affine_t *)bases, n, &mg, &e)
          : backend_msm_bases_g1(gpu, (g1_affine_t *)bases, n, &mg, &e)))
    die("cuda bases", &e);
  if ((g2 ? backend_msm_bases_g2(cpu, (g2_affine_t *)bases, n, &mc, &e)
          : backend_msm_bases_g1(cpu, (g1_affine_t *)bases, n, &mc, &e)))
    die("cpu bases", &e);
  if (precomp) {
    if (backend_msm_precompute(mg, precomp, &e)) die("precomputing bases", &e);
    window = precomp;
  }
  backend_set_msm_window(gpu, window);
  int ok;
  double t0, t1, t2;
  if (!g2) {
    g1_jac_t a, b;
    t0 = ps_now();
    if (backend_msm_g1(gpu, mg, s, n, &a, &e)) die("cuda MSM", &e);
    t1 = ps_now();
    if (backend_msm_g1(cpu, mc, s, n, &b, &e)) die("cpu MSM", &e);
    t2 = ps_now();
    ok = g1_jac_eq(&a, &b) && g1_jac_is_on_curve(&a);
  } else {
    g2_jac_t a, b;
    t0 = ps_now();
    if (backend_msm_g2(gpu, mg, s, n, &a, &e)) die("cuda MSM", &e);
    t1 = ps_now();
    if (backend_msm_g2(cpu, mc, s, n, &b, &e)) die("cpu MSM", &e);
    t2 = ps_now();
    ok = g2_jac_eq(&a, &b) && g2_jac_is_on_curve(&a);
  }
  char what[96];
  snprintf(what, sizeof what, "msm-%s n=%zu window=%u%s%s", g2 ? "g2" : "g1", n,
           backend_msm_window(gpu, g2, n), precomp ? " precomputed" : "", edge ? " edge-cases" : "");
  report(what, ok, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  backend_set_msm_window(gpu, 0);
  backend_msm_bases_free(mg);
  backend_msm_bases_free(mc);
  backend_host_free(gpu, s);
  free(bases);
}

static void check_msm(ps_backend *gpu, ps_backend *cpu, int g2, size_t n, unsigned window, int edge,
                      uint64_t seed) {
  check_msm_pre(gpu, cpu, g2, n, window, edge, seed, 0);
}

/* Skewed scalar sets. */
enum { SKEW_BOOL90, SKEW_ONES, SKEW_SAME, SKEW_KINDS, SKEW_ZEROS = SKEW_KINDS, SKEW_ONE_OTHER, SKEW_PM1,
       SKEW_NONE01, SKEW_ALL };
static const char *skew_name[] = {"90% in {0,1}", "all ones", "all equal", "all zeros", "0/1 and one other",
                                  "90% in {0,1,-1}", "none 0/1"};

static uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

static void make_skewed(fr_t *s, size_t n, uint64_t seed, int kind) {
  static const fr_t r = BLS_FR_R;
  backend_random_scalars(s, n, seed);
  for (size_t i = 0; i < n; i++) {
    if (kind == SKEW_SAME) {
      s[i] = s[0];
      continue;
    }
    if (kind == SKEW_NONE01) continue; /* random: 0 or 1 with odds 2^-254 */
    unsigned u = (unsigned)(mix64(seed * 0x9e3779b97f4a7c15ULL + i) % 100);
    if (kind == SKEW_ZEROS) {
      memset(&s[i], 0, sizeof s[i]);
    } else if (kind == SKEW_ONE_OTHER) {
      if (i == n / 2) continue;
      memset(&s[i], 0, sizeof s[i]);
      s[i].v[0] = u >= 50;
    } else if (kind == SKEW_PM1 && u < 90) {
      if (u < 30) memset(&s[i], 0, sizeof s[i]);
      else if (u < 60) memset(&s[i], 0, sizeof s[i]), s[i].v[0] = 1;
      else s[i] = r, s[i].v[0] -= 1; /* r - 1 = -1: bucket 1, negated */
    } else if (kind != SKEW_PM1 && (kind == SKEW_ONES || u < 90)) {
      memset(&s[i], 0, sizeof s[i]);
      if (kind == SKEW_ONES || u >= 45) s[i].v[0] = 1;
    }
  }
}

/* MSMs with skewed scalars over the first n of the bases uploaded to both backends. For
 * all-equal scalars k the reference is k * (CPU MSM of all ones), since the CPU's own
 * Pippenger would put every point into one bucket per window and take minutes on G2. */
static void check_skewed(ps_backend *gpu, ps_backend *cpu, int g2, backend_msm_bases *mg,
                         backend_msm_bases *mc, size_t n, int kind, uint64_t seed, unsigned pre) {
  ps_err e = {0};
  fr_t *s = backend_host_alloc(gpu, n * sizeof(fr_t) + 1);
  make_skewed(s, n, seed, kind);
  int ok;
  double t0, t1, t2;
  if (!g2) {
    g1_jac_t a, b;
    t0 = ps_now();
    if (backend_msm_g1(gpu, mg, s, n, &a, &e)) die("cuda MSM", &e);
    t1 = ps_now();
    if (kind == SKEW_SAME) {
      fr_t k = s[0];
      g1_jac_t sum;
      make_skewed(s, n, seed, SKEW_ONES);
      if (backend_msm_g1(cpu, mc, s, n, &sum, &e)) die("cpu MSM", &e);
      g1_jac_mul(&b, &sum, &k);
    } else if (backend_msm_g1(cpu, mc, s, n, &b, &e)) {
      die("cpu MSM", &e);
    }
    t2 = ps_now();
    ok = g1_jac_eq(&a, &b) && g1_jac_is_on_curve(&a);
  } else {
    g2_jac_t a, b;
    t0 = ps_now();
    if (backend_msm_g2(gpu, mg, s, n, &a, &e)) die("cuda MSM", &e);
    t1 = ps_now();
    if (kind == SKEW_SAME) {
      fr_t k = s[0];
      g2_jac_t sum;
      make_skewed(s, n, seed, SKEW_ONES);
      if (backend_msm_g2(cpu, mc, s, n, &sum, &e)) die("cpu MSM", &e);
      g2_jac_mul(&b, &sum, &k);
    } else if (backend_msm_g2(cpu, mc, s, n, &b, &e)) {
      die("cpu MSM", &e);
    }
    t2 = ps_now();
    ok = g2_jac_eq(&a, &b) && g2_jac_is_on_curve(&a);
  }
  char what[96];
  snprintf(what, sizeof what, "msm-%s n=%zu window=%u %s%s", g2 ? "g2" : "g1", n,
           pre ? pre : backend_msm_window(gpu, g2, n), skew_name[kind], pre ? " precomputed" : "");
  report(what, ok, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  backend_host_free(gpu, s);
}

static void check_skewed_all(ps_backend *gpu, ps_backend *cpu, unsigned kmin, unsigned kmax, uint64_t *seed) {
  if (kmin > kmax) return;
  for (int g2 = 0; g2 <= 1; g2++) {
    ps_err e = {0};
    size_t nmax = (size_t)1 << kmax, psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
    unsigned char *bases = xmalloc(nmax * psz);
    if (g2) backend_random_g2((g2_affine_t *)bases, nmax, (*seed)++);
    else backend_random_g1((g1_affine_t *)bases, nmax, (*seed)++);
    backend_msm_bases *mg = NULL, *mc = NULL;
    if ((g2 ? backend_msm_bases_g2(gpu, (g2_affine_t *)bases, nmax, &mg, &e)
            : backend_msm_bases_g1(gpu, (g1_affine_t *)bases, nmax, &mg, &e)))
      die("cuda bases", &e);
    if ((g2 ? backend_msm_bases_g2(cpu, (g2_affine_t *)bases, nmax, &mc, &e)
            : backend_msm_bases_g1(cpu, (g1_affine_t *)bases, nmax, &mc, &e)))
      die("cpu bases", &e);
    for (unsigned k = kmin; k <= kmax; k++)
      for (int kind = 0; kind < SKEW_KINDS; kind++) check_skewed(gpu, cpu, g2, mg, mc, (size_t)1 << k, kind, (*seed)++, 0);
    backend_msm_bases_free(mg);
    backend_msm_bases_free(mc);
    free(bases);
  }
}

/* Scalars as a Groth16 witness makes them, every kind of skewed set, at sizes that are
 * not multiples of a warp or a block (1, 31, 33, 4097, 2^k + 3 up to 2^kmax + 3 on G1,
 * 2^(kmax-4) + 3 on G2), over plain bases and then over bases precomputed for window 8
 * (one set of buckets for all windows). */
static void check_sparse_all(ps_backend *gpu, ps_backend *cpu, unsigned kmax, uint64_t *seed) {
  for (int g2 = 0; g2 <= 1; g2++) {
    ps_err e = {0};
    unsigned km = g2 ? (kmax > 4 ? kmax - 4 : 0) : kmax;
    size_t sizes[8], ns = 0;
    static const size_t fixed[] = {1, 31, 33, 4097};
    for (size_t j = 0; j < 4; j++) sizes[ns++] = fixed[j];
    for (unsigned k = 14; k <= km && ns < 8; k += 3) sizes[ns++] = ((size_t)1 << k) + 3;
    size_t nmax = sizes[ns - 1], psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
    unsigned char *bases = xmalloc(nmax * psz);
    if (g2) backend_random_g2((g2_affine_t *)bases, nmax, (*seed)++);
    else backend_random_g1((g1_affine_t *)bases, nmax, (*seed)++);
    backend_msm_bases *mc = NULL;
    if ((g2 ? backend_msm_bases_g2(cpu, (g2_affine_t *)bases, nmax, &mc, &e)
            : backend_msm_bases_g1(cpu, (g1_affine_t *)bases, nmax, &mc, &e)))
      die("cpu bases", &e);
    for (int pre = 0; pre <= 1; pre++) {
      backend_msm_bases *mg = NULL;
      if ((g2 ? backend_msm_bases_g2(gpu, (g2_affine_t *)bases, nmax, &mg, &e)
              : backend_msm_bases_g1(gpu, (g1_affine_t *)bases, nmax, &mg, &e)))
        die("cuda bases", &e);
      if (pre && backend_msm_precompute(mg, 8, &e)) die("precomputing bases", &e);
      for (size_t j = 0; j < ns; j++)
        for (int kind = 0; kind < SKEW_ALL; kind++)
          if (kind != SKEW_SAME) check_skewed(gpu, cpu, g2, mg, mc, sizes[j], kind, (*seed)++, pre ? 8 : 0);
      backend_msm_bases_free(mg);
    }
    backend_msm_bases_free(mc);
    free(bases);
  }
}

/* A batch of MSMs over one device vector of scalars, as Groth16's A, B_G1 and L are run:
 * bases X, Y, X, Y, Y (two random sets of n points) over scalars 0..n-1, 0..n-1, 3..n-1,
 * 3..n-1, 3..n-1, so MSMs 2, 4 and 5 take the sorted digits of the MSM before them
 * (msm_enqueue's `sorted`) and 1 and 3 sort their own. pre_mask bit 0 precomputes X's
 * GPU tables for window pre, bit 1 Y's; with one of them only, the batch runs at window
 * pre, so X and Y have the same window but not the same buckets and must not share.
 * window: the MSMs' window (0 = the backend's choice) when nothing is precomputed. */
static void check_batch(ps_backend *gpu, ps_backend *cpu, int g2, size_t n, int kind, unsigned window,
                        int pre_mask, unsigned pre, uint64_t seed) {
  ps_err e = {0};
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  unsigned char *bases = xmalloc(2 * n * psz);
  fr_t *s = xmalloc(n * sizeof(fr_t));
  backend_msm_bases *xg[2] = {NULL, NULL}, *xc[2] = {NULL, NULL};
  backend_vec *vg = NULL, *vc = NULL;
  for (int j = 0; j < 2; j++) {
    unsigned char *bj = bases + (size_t)j * n * psz;
    if (g2) backend_random_g2((g2_affine_t *)bj, n, seed + (uint64_t)j);
    else backend_random_g1((g1_affine_t *)bj, n, seed + (uint64_t)j);
    if ((g2 ? backend_msm_bases_g2(gpu, (g2_affine_t *)bj, n, &xg[j], &e)
            : backend_msm_bases_g1(gpu, (g1_affine_t *)bj, n, &xg[j], &e)))
      die("cuda bases", &e);
    if ((g2 ? backend_msm_bases_g2(cpu, (g2_affine_t *)bj, n, &xc[j], &e)
            : backend_msm_bases_g1(cpu, (g1_affine_t *)bj, n, &xc[j], &e)))
      die("cpu bases", &e);
    if (((pre_mask >> j) & 1) && backend_msm_precompute(xg[j], pre, &e)) die("precomputing bases", &e);
  }
  make_skewed(s, n, seed + 2, kind);
  if (backend_vec_upload(gpu, &vg, s, n, &e)) die("cuda scalars", &e);
  if (backend_vec_upload(cpu, &vc, s, n, &e)) die("cpu scalars", &e);
  enum { CNT = 5 };
  static const int which[CNT] = {0, 1, 0, 1, 1};
  size_t off[CNT], cnt[CNT];
  backend_msm_bases *mg[CNT], *mc[CNT];
  for (int i = 0; i < CNT; i++) {
    off[i] = i < 2 ? 0 : 3;
    cnt[i] = n - off[i];
    mg[i] = xg[which[i]], mc[i] = xc[which[i]];
  }
  unsigned w = pre_mask == 1 || pre_mask == 2 ? pre : pre_mask ? 0 : window;
  backend_set_msm_window(gpu, w);
  int ok = 1;
  double t0 = ps_now(), t1, t2;
  if (!g2) {
    g1_jac_t a[CNT], b[CNT];
    if (backend_msm_g1_vec(gpu, CNT, mg, vg, off, cnt, a, &e)) die("cuda MSM batch", &e);
    t1 = ps_now();
    if (backend_msm_g1_vec(cpu, CNT, mc, vc, off, cnt, b, &e)) die("cpu MSM batch", &e);
    t2 = ps_now();
    for (int i = 0; i < CNT; i++) ok &= g1_jac_eq(&a[i], &b[i]) && g1_jac_is_on_curve(&a[i]);
  } else {
    g2_jac_t a[CNT], b[CNT];
    if (backend_msm_g2_vec(gpu, CNT, mg, vg, off, cnt, a, &e)) die("cuda MSM batch", &e);
    t1 = ps_now();
    if (backend_msm_g2_vec(cpu, CNT, mc, vc, off, cnt, b, &e)) die("cpu MSM batch", &e);
    t2 = ps_now();
    for (int i = 0; i < CNT; i++) ok &= g2_jac_eq(&a[i], &b[i]) && g2_jac_is_on_curve(&a[i]);
  }
  char what[128];
  snprintf(what, sizeof what, "msm-%s batch n=%zu window=%u %s%s", g2 ? "g2" : "g1", n,
           w ? w : pre_mask ? pre : backend_msm_window(gpu, g2, n), skew_name[kind],
           pre_mask == 3 ? " precomputed" : pre_mask ? " one precomputed" : "");
  report(what, ok, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  backend_set_msm_window(gpu, 0);
  backend_vec_free(vg);
  backend_vec_free(vc);
  for (int j = 0; j < 2; j++) {
    backend_msm_bases_free(xg[j]);
    backend_msm_bases_free(xc[j]);
  }
  free(s);
  free(bases);
}

/* A sort kept for a later batch (psc_dev.sort), as Groth16's B_G2 takes A's: over one
 * device vector, a G1 MSM (it sorts), then a G2 MSM over the same scalars (it takes that
 * sort); the vector uploaded again with other scalars and the G2 MSM again (it must sort
 * them); a G1 MSM of host scalars in between (a sort that is nobody's) and the G2 MSM once
 * more (it must sort again). Each G2 result against the cpu backend's; the vector's
 * second scalars differ from the first in digits above the first window (a third of them),
 * so a stale sort gives another point. Both groups at window w. */
static void check_kept_sort(ps_backend *gpu, ps_backend *cpu, size_t n, unsigned w, uint64_t seed) {
  ps_err e = {0};
  g1_affine_t *b1 = xmalloc(n * sizeof *b1);
  g2_affine_t *b2 = xmalloc(n * sizeof *b2);
  fr_t *s = xmalloc(2 * n * sizeof *s), *s2 = s + n, *h = xmalloc(n * sizeof *h);
  backend_msm_bases *g1g = NULL, *g2g = NULL, *g2c = NULL;
  backend_vec *vg = NULL;
  backend_random_g1(b1, n, seed);
  backend_random_g2(b2, n, seed + 1);
  make_skewed(s, n, seed + 2, SKEW_BOOL90);
  memcpy(s2, s, n * sizeof *s);
  for (size_t i = 0; i < n; i += 3) s2[i].v[3] ^= 0x5a5a0000u; /* canonical still: r > 2^254 */
  backend_random_fr(h, n, seed + 3);
  if (backend_msm_bases_g1(gpu, b1, n, &g1g, &e) || backend_msm_bases_g2(gpu, b2, n, &g2g, &e) ||
      backend_msm_bases_g2(cpu, b2, n, &g2c, &e))
    die("bases", &e);
  backend_set_msm_window(gpu, w);
  size_t off = 0;
  int ok = 1;
  g1_jac_t r1;
  g2_jac_t r2, want;
  double t0 = ps_now(), t1, t2 = 0;
  for (int step = 0; step < 3; step++) {
    const fr_t *sc = step == 0 ? s : s2;
    if (step == 0 && backend_vec_upload(gpu, &vg, s, n, &e)) die("cuda scalars", &e);
    if (step == 0 && backend_msm_g1_vec(gpu, 1, &g1g, vg, &off, &n, &r1, &e)) die("cuda MSM (G1)", &e);
    if (step == 1 && backend_vec_upload(gpu, &vg, s2, n, &e)) die("cuda scalars", &e);
    if (step == 2 && backend_msm_g1(gpu, g1g, h, n, &r1, &e)) die("cuda MSM (host scalars)", &e);
    if (backend_msm_g2_vec(gpu, 1, &g2g, vg, &off, &n, &r2, &e)) die("cuda MSM (G2)", &e);
    t1 = ps_now();
    if (backend_msm_g2(cpu, g2c, sc, n, &want, &e)) die("cpu MSM (G2)", &e);
    t2 += ps_now() - t1;
    ok &= g2_jac_eq(&r2, &want);
  }
  char what[128];
  snprintf(what, sizeof what, "msm-g2 after g1 n=%zu window=%u kept sort, then new scalars", n, w);
  report(what, ok, (ps_now() - t0 - t2) * 1e3, t2 * 1e3);
  backend_set_msm_window(gpu, 0);
  backend_vec_free(vg);
  backend_msm_bases_free(g1g), backend_msm_bases_free(g2g), backend_msm_bases_free(g2c);
  free(b1), free(b2), free(s), free(h);
}

/* The cases of the sorted-digit reuse and the wide windows (issue #12's 2^26 work):
 * batches that share scalars, over plain, precomputed and half-precomputed bases, every
 * witness-like kind, sizes off the block sizes, G1 and G2; then windows 16..22 (the bucket
 * reduction's segments grow above 16 bits) on random scalars with edge cases and on a
 * witness at 2^16 + 3 points (and 2^18 + 3 at 20 and 22 bits). */
static void check_batch_all(ps_backend *gpu, ps_backend *cpu, uint64_t *seed) {
  static const size_t g1n[] = {33, 4097, ((size_t)1 << 16) + 3}, g2n[] = {33, ((size_t)1 << 12) + 3};
  for (size_t j = 0; j < 3; j++)
    for (int kind = 0; kind < SKEW_ALL; kind++)
      if (kind != SKEW_SAME) check_batch(gpu, cpu, 0, g1n[j], kind, 0, 0, 0, (*seed)++);
  for (int pm = 1; pm <= 3; pm++) {
    check_batch(gpu, cpu, 0, 4097, SKEW_BOOL90, 0, pm, 8, (*seed)++);
    check_batch(gpu, cpu, 0, 4097, SKEW_NONE01, 0, pm, 8, (*seed)++);
    check_batch(gpu, cpu, 0, 33, SKEW_ONES, 0, pm, 8, (*seed)++);
  }
  for (size_t j = 0; j < 2; j++) {
    check_batch(gpu, cpu, 1, g2n[j], SKEW_BOOL90, 0, 0, 0, (*seed)++);
    check_batch(gpu, cpu, 1, g2n[j], SKEW_NONE01, 0, 0, 0, (*seed)++);
    check_batch(gpu, cpu, 1, g2n[j], SKEW_ZEROS, 0, 0, 0, (*seed)++);
  }
  check_batch(gpu, cpu, 1, 33, SKEW_BOOL90, 0, 3, 8, (*seed)++);
  check_kept_sort(gpu, cpu, 33, 8, (*seed)++);
  check_kept_sort(gpu, cpu, ((size_t)1 << 12) + 3, 13, (*seed)++);
  for (unsigned w = 16; w <= 22; w++) {
    check_msm(gpu, cpu, 0, 3000, w, 1, (*seed)++);
    check_batch(gpu, cpu, 0, ((size_t)1 << 16) + 3, SKEW_BOOL90, w, 0, 0, (*seed)++);
  }
  for (unsigned w = 17; w <= 21; w += 2) {
    check_msm(gpu, cpu, 1, 2000, w, 1, (*seed)++);
    check_batch(gpu, cpu, 1, ((size_t)1 << 12) + 3, SKEW_BOOL90, w, 0, 0, (*seed)++);
  }
  for (unsigned w = 20; w <= 22; w += 2) {
    check_msm(gpu, cpu, 0, ((size_t)1 << 18) + 3, w, 0, (*seed)++);
    check_batch(gpu, cpu, 0, ((size_t)1 << 18) + 3, SKEW_BOOL90, w, 0, 0, (*seed)++);
  }
}

/* The setup's fixed-base products: n Montgomery-form scalars (random, with 0, 1, -1, a
 * repeated value and window-edge values) times a random base, on both backends, byte for
 * byte. */
static void check_fb(ps_backend *gpu, ps_backend *cpu, int g2, size_t n, uint64_t seed) {
  ps_err e = {0};
  size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
  fr_t *k = xmalloc(n * sizeof *k);
  unsigned char *a = xmalloc(n * psz), *b = xmalloc(n * psz);
  backend_random_fr(k, n, seed);
  for (size_t i = 0; i < n && i < 8; i++) {
    switch (i) {
    case 0: fr_zero(&k[i]); break;
    case 1: fr_one(&k[i]); break;
    case 2: fr_one(&k[i]); fr_neg(&k[i], &k[i]); break;
    case 3: fr_from_u64(&k[i], 0xffff); break;
    case 4: fr_from_u64(&k[i], 0x10000); break;
    case 5: k[i] = k[i - 1]; break;
    default: break;
    }
  }
  g1_affine_t b1;
  g2_affine_t b2;
  backend_random_g1(&b1, 1, seed + 1);
  backend_random_g2(&b2, 1, seed + 2);
  backend_fb *tg = NULL, *tc = NULL;
  if (g2 ? backend_fb_g2(gpu, &b2, n, &tg, &e) : backend_fb_g1(gpu, &b1, n, &tg, &e)) die("cuda fixed-base table", &e);
  if (g2 ? backend_fb_g2(cpu, &b2, n, &tc, &e) : backend_fb_g1(cpu, &b1, n, &tc, &e)) die("cpu fixed-base table", &e);
  double t0 = ps_now();
  if (backend_fb_mul(tg, k, n, a, NULL, NULL, &e)) die("cuda fixed-base products", &e);
  double t1 = ps_now();
  if (backend_fb_mul(tc, k, n, b, NULL, NULL, &e)) die("cpu fixed-base products", &e);
  double t2 = ps_now();
  char what[96];
  snprintf(what, sizeof what, "keygen fixed-base G%d 2^%-2u", g2 + 1, (unsigned)(63 - __builtin_clzll(n)));
  report(what, !memcmp(a, b, n * psz), (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  backend_fb_free(tg), backend_fb_free(tc);
  free(k), free(a), free(b);
}

/* Jobs of three partitions on one GPU context: the first with its phases in the usual
 * order (b_g2 after msm: the first B_G2 of its batch takes the witness's sort that msm
 * left), the second, on scalars uploaded again, with b_g2 before msm (nothing to take).
 * Returns whether every proof verifies. */
typedef struct phase_arg {
  g16_job *j;
  int rc;
  ps_err e;
} phase_arg;

static void *b_g2_thread(void *p) {
  phase_arg *a = p;
  a->rc = g16_b_g2(a->j, &a->e);
  return NULL;
}

/* fn (ntt_h or msm) of job j on this thread and b_g2 on another at the same time, as
 * groth16.h's graph allows: the two share the context's backend handle. */
static int beside_b_g2(int (*fn)(g16_job *, ps_err *), g16_job *j, ps_err *e) {
  phase_arg a = {j, 0, {{0}, 0}};
  pthread_t t;
  if (pthread_create(&t, NULL, b_g2_thread, &a)) return ps_fail(e, PS_ERR, "cannot start a thread");
  int rc = fn(j, e);
  pthread_join(t, NULL);
  if (!rc && a.rc) *e = a.e;
  return rc ? rc : a.rc;
}

static int prove_jobs(g16_ctx *c, const g16_keys *k) {
  ps_err e = {0};
  int ok = 1;
  /* b_g2 after msm, before it, beside ntt_h and beside msm */
  for (int round = 0; round < 4; round++) {
    const uint64_t seeds[3] = {11 + 3 * (uint64_t)round, 12 + 3 * (uint64_t)round, 13 + 3 * (uint64_t)round};
    g16_job *j = g16_job_new(c, 3, seeds, 5 + (uint64_t)round);
    int rc = g16_synth(j, &e) || g16_prep(j, &e);
    if (!rc && round == 2) rc = beside_b_g2(g16_ntt_h, j, &e) || g16_msm(j, &e);
    else if (!rc && round == 3) rc = g16_ntt_h(j, &e) || beside_b_g2(g16_msm, j, &e);
    else if (!rc) rc = g16_ntt_h(j, &e) || (round == 0 ? g16_msm(j, &e) || g16_b_g2(j, &e) : g16_b_g2(j, &e) || g16_msm(j, &e));
    if (rc || g16_epilogue(j, &e)) die("a job of three partitions on the GPU", &e);
    for (int i = 0; i < 3; i++) {
      int np = 0;
      const fr_t *pub = g16_job_public(j, i, &np);
      ok &= g16_verify(g16_keys_vk(k), g16_job_proof(j, i), pub, np, &e) == 1;
    }
    g16_job_free(j);
  }
  return ok;
}

/* Whole Groth16 keys of 2^log_n made on the GPU and on the CPUs: every point equal, byte
 * for byte, and proofs made with the GPU's keys on the GPU verify (one alone, then the
 * jobs of prove_jobs). */
static void check_keys(ps_backend *gpu, ps_backend *cpu, unsigned log_n, uint64_t seed) {
  ps_err e = {0};
  g16_circuit_params p = {"mimc", (int64_t)1 << log_n, -1, seed};
  g16_setup_opts og = {gpu, NULL, NULL, NULL}, oc = {cpu, NULL, NULL, NULL};
  g16_keys *kg = NULL, *kc = NULL;
  double t0 = ps_now();
  if (g16_keys_make(&p, NULL, &og, &kg, &e)) die("keys on cuda", &e);
  double t1 = ps_now();
  if (g16_keys_make(&p, NULL, &oc, &kc, &e)) die("keys on cpu", &e);
  double t2 = ps_now();
  int ok = kg->nvars == kc->nvars && kg->nl == kc->nl && kg->nh == kc->nh && kg->vk.nic == kc->vk.nic;
  ok = ok && !memcmp(kg->a, kc->a, kg->nvars * sizeof *kg->a) && !memcmp(kg->b_g1, kc->b_g1, kg->nvars * sizeof *kg->a) &&
       !memcmp(kg->l, kc->l, kg->nl * sizeof *kg->l) && !memcmp(kg->h, kc->h, kg->nh * sizeof *kg->h) &&
       !memcmp(kg->b_g2, kc->b_g2, kg->nvars * sizeof *kg->b_g2) &&
       !memcmp(kg->vk.ic, kc->vk.ic, (size_t)kg->vk.nic * sizeof *kg->vk.ic) &&
       !memcmp(&kg->alpha_g1, &kc->alpha_g1, sizeof kg->alpha_g1) && !memcmp(&kg->beta_g1, &kc->beta_g1, sizeof kg->beta_g1) &&
       !memcmp(&kg->delta_g1, &kc->delta_g1, sizeof kg->delta_g1) && !memcmp(&kg->beta_g2, &kc->beta_g2, sizeof kg->beta_g2) &&
       !memcmp(&kg->gamma_g2, &kc->gamma_g2, sizeof kg->gamma_g2) && !memcmp(&kg->delta_g2, &kc->delta_g2, sizeof kg->delta_g2);
  g16_ctx *c = NULL;
  g16_proof pr;
  fr_t pub[8];
  int npub = 0;
  if (g16_ctx_open(gpu, kg, &c, &e) || g16_prove(c, 3, 4, &pr, pub, &npub, &e)) die("proving with the GPU's keys", &e);
  ok = ok && g16_verify(g16_keys_vk(kg), &pr, pub, npub, &e) == 1;
  ok = prove_jobs(c, kg) && ok;
  g16_ctx_close(c);
  char what[96];
  snprintf(what, sizeof what, "keygen Groth16 keys 2^%-2u (setup)", log_n);
  report(what, ok, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  g16_keys_free(kg), g16_keys_free(kc);
}

int main(int argc, char **argv) {
  unsigned ntt_max = 24, g1_min = 12, g1_max = 22, g2_max = 20;
  unsigned skew_min = 16, skew_max = 20;
  int quick = 0, skew_only = 0, keygen_only = 0;
  unsigned keygen_max = 16; /* --keygen-max K: key generation checks at 2^12 .. 2^K (step 4) */
  unsigned pre_max = 0; /* --precomp-max K: precomputed-base MSMs up to 2^K (and nothing else) */
  unsigned sparse_max = 20; /* --sparse-max K: witness-like scalar sets up to 2^K + 3 points */
  int sparse_only = 0;
  int batch = 1, batch_only = 0; /* --no-batch, --batch-only: check_batch_all */
  int ntt_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--ntt-max") && i + 1 < argc) ntt_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--g1-max") && i + 1 < argc) g1_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--g1-min") && i + 1 < argc) g1_min = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--g2-max") && i + 1 < argc) g2_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = 1;
    else if (!strcmp(argv[i], "--skew-min") && i + 1 < argc) skew_min = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--skew-max") && i + 1 < argc) skew_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--skew-only")) skew_only = 1;
    else if (!strcmp(argv[i], "--precomp-max") && i + 1 < argc) pre_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--keygen-max") && i + 1 < argc) keygen_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--keygen-only")) keygen_only = 1;
    else if (!strcmp(argv[i], "--sparse-max") && i + 1 < argc) sparse_max = (unsigned)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--sparse-only")) sparse_only = 1;
    else if (!strcmp(argv[i], "--no-batch")) batch = 0;
    else if (!strcmp(argv[i], "--batch-only")) batch_only = 1;
    else if (!strcmp(argv[i], "--ntt-only")) ntt_only = 1;
    else {
      fprintf(stderr, "usage: gpu_check [--ntt-max K] [--g1-min K] [--g1-max K] [--g2-max K] [--quick]\n"
                      "                 [--skew-min K] [--skew-max K] [--skew-only] [--precomp-max K]\n"
                      "                 [--keygen-max K] [--keygen-only] [--sparse-max K] [--sparse-only]\n"
                      "                 [--no-batch] [--batch-only] [--ntt-only]\n");
      return 100;
    }
  }
  ps_err e = {0};
  ps_backend *gpu = backend_open("cuda", &e);
  if (!gpu) die("opening the cuda backend", &e);
  ps_backend *cpu = backend_open("cpu", &e);
  if (!cpu) die("opening the cpu backend", &e);
  printf("gpu_check: %s against the plain-C backend (%s)\n", backend_device(gpu), backend_device(cpu));

  uint64_t seed = 1000;
  if (ntt_only) goto ntts;
  for (unsigned k = 12; k <= keygen_max; k += 4) {
    check_fb(gpu, cpu, 0, (size_t)1 << k, seed++);
    check_fb(gpu, cpu, 1, (size_t)1 << k, seed++);
    check_keys(gpu, cpu, k, seed++);
  }
  if (keygen_only) goto done;
  if (batch) check_batch_all(gpu, cpu, &seed);
  if (batch_only) goto done;
  if (sparse_max >= 14) check_sparse_all(gpu, cpu, sparse_max, &seed);
  if (sparse_only) goto done;
  if (pre_max) {
    /* Precomputed bases: small sizes with edge cases, windows 2..22 (one set of buckets
     * for all windows), then sizes up to 2^pre_max with wide windows; G2 small. */
    static const size_t small[] = {1, 2, 3, 8, 100, 4097};
    for (size_t j = 0; j < sizeof small / sizeof small[0]; j++)
      check_msm_pre(gpu, cpu, 0, small[j], 0, 1, seed++, 8);
    for (unsigned w = 2; w <= 22; w += (w < 10 ? 1 : 3)) check_msm_pre(gpu, cpu, 0, 3000, 0, 1, seed++, w);
    for (unsigned k = 12; k <= pre_max; k += 2) check_msm_pre(gpu, cpu, 0, (size_t)1 << k, 0, k == 12, seed++, k >= 20 ? 22 : 16);
    check_msm_pre(gpu, cpu, 1, 1000, 0, 1, seed++, 10);
    check_msm_pre(gpu, cpu, 1, (size_t)1 << 14, 0, 0, seed++, 16);
    goto done;
  }
  check_skewed_all(gpu, cpu, skew_min, skew_max, &seed);
  if (skew_only) goto done;
ntts:
  for (unsigned k = 1; k <= ntt_max; k++) {
    if (k <= 12 && !quick) {
      for (int f = 0; f < 16; f++) check_ntt(gpu, cpu, k, f, seed++);
    } else {
      /* prover-bench's three, the coset inverse, the Groth16 H step's three (a coset
       * forward from bit-reversed input, an inverse and a coset inverse to bit-reversed
       * output), then the two natural-to-natural ones (a bit-reversal permutation). */
      static const int common[] = {NTT_OUT_BITREV,
                                   NTT_COSET | NTT_OUT_BITREV,
                                   NTT_INVERSE | NTT_IN_BITREV,
                                   NTT_COSET | NTT_INVERSE | NTT_IN_BITREV,
                                   NTT_COSET | NTT_IN_BITREV,
                                   NTT_INVERSE | NTT_OUT_BITREV,
                                   NTT_COSET | NTT_INVERSE | NTT_OUT_BITREV,
                                   0,
                                   NTT_INVERSE};
      size_t nc = k >= 22 ? 7 : 9;
      for (size_t j = 0; j < nc; j++) check_ntt(gpu, cpu, k, common[j], seed++);
    }
  }
  if (ntt_only) goto done;
  static const size_t small[] = {1, 2, 3, 7, 8, 33, 100, 1000, 4097};
  for (int g2 = 0; g2 <= 1; g2++) {
    for (size_t j = 0; j < sizeof small / sizeof small[0]; j++) {
      check_msm(gpu, cpu, g2, small[j], 0, 0, seed++);
      check_msm(gpu, cpu, g2, small[j], 0, 1, seed++);
    }
    unsigned kmax = g2 ? g2_max : g1_max;
    for (unsigned k = g2 ? 12 : g1_min; k <= kmax; k += (k < 16 ? 2 : 1))
      check_msm(gpu, cpu, g2, (size_t)1 << k, 0, k == 16, seed++);
  }
  /* Every window size on one input size (tests the digit, scan and reduction paths). */
  for (unsigned w = 2; w <= (quick ? 8u : 20u); w++) check_msm(gpu, cpu, 0, 3000, w, 1, seed++);
  for (unsigned w = 4; w <= 16; w += 3) check_msm(gpu, cpu, 1, 2000, w, 1, seed++);

done:
  printf("gpu_check: %d of %d checks failed\n", fails, checks);
  backend_close(gpu);
  backend_close(cpu);
  return fails;
}
