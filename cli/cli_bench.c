/* provesim prover-bench: how fast the prover's kernels run on a backend, beside the time
 * their field multiplications would take at the rate the field benchmark measured
 * ("mult-time"). On the cuda backend that is a floor (every kernel measured so far runs
 * above it, the rest going to memory, sorting and idle lanes); on the cpu backend it is
 * not (at the default sizes its kernels run below it), so the column is named for what it
 * is, not called a floor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "cli.h"
#include "cli_bench.h"
#include "r1cs.h"

typedef struct bench_opts {
  const char *backend;
  int lo, hi;       /* --sizes; 0 = the per-kernel defaults */
  int reps;
  int do_field, do_ntt, do_g1, do_g2, do_synth;
  int threads;      /* --threads: synth's CPU threads (0 = every CPU) */
  int wlo, whi;     /* --windows: sweep MSM windows (0 = the backend's choice) */
  int precomp;      /* --precomp C: MSMs over bases precomputed for window C (0 = no) */
} bench_opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: provesim prover-bench [--backend cpu|cuda] [--sizes A..B] [--reps N]\n"
          "                             [--only field,ntt,msm-g1,msm-g2,synth] [--windows A..B]\n"
          "                             [--threads N]\n"
          "\n"
          "Times the prover's kernels on one backend and prints a table: field\n"
          "multiplications per second (Fr, Fp, and Fp squarings), NTTs over Fr (forward\n"
          "natural->bit-reversed, coset forward, inverse), and MSMs on G1 and G2 (Pippenger).\n"
          "Each time is the median of N runs after a warm-up. Beside each time: the field\n"
          "multiplications the algorithm needs (a square, and each product of a sum that\n"
          "is reduced once, counted as a product), their mult-time (those multiplications\n"
          "at the rate measured above) and the ratio time / mult-time. On the cuda backend\n"
          "the mult-time is about a floor (squares and sums cost a little less than the\n"
          "products counted): how far above 1 the ratio is shows time going to anything but\n"
          "multiplying. On the cpu backend\n"
          "it is no bound (kernels can run below it); compare the ratio across sizes and kernels.\n"
          "\n"
          "How it times. cuda: NTT data stays on the GPU and device events bracket the\n"
          "kernels; an MSM is timed on the host clock around the whole call, bases resident on\n"
          "the GPU and scalars uploaded from pinned host memory in every call (as sppark's\n"
          "figures are). cpu: wall clock, all CPUs.\n"
          "\n"
          "synth, only when --only names it, is host work on any backend: Groth16's synth phase\n"
          "(the witness of one instance, then A·z, B·z and C·z over the sparse matrices) on\n"
          "--threads CPUs, wall clock. It is the largest CPU phase of a call, and how fast the\n"
          "host runs it (its memory included) is what moves a CPU-bound pipeline.\n"
          "\n"
          "options:\n"
          "  --backend cpu|cuda  the backend (default: cuda when built with CUDA, else cpu)\n"
          "  --sizes A..B        log2 sizes to run (default cuda: NTT 16..26, MSM G1 16..24,\n"
          "                      G2 16..22, synth 16..22; cpu: NTT 10..20, G1 10..16, G2\n"
          "                      10..14, synth 10..20); a single number N means N..N\n"
          "  --reps N            runs per measurement, the median is shown (default 5)\n"
          "  --only LIST         comma-separated subset of field,ntt,msm-g1,msm-g2,synth\n"
          "                      (default: all but synth)\n"
          "  --threads N         synth's CPU threads, 1..4096 (default: every CPU)\n"
          "  --windows A..B      also time every MSM window A..B bits (tuning); default: the\n"
          "                      backend's choice only\n"
          "  --precomp C         MSMs over fixed bases precomputed for window C (the tables\n"
          "                      2^(C j) * bases, ceil(256/C) of them, built once and not timed;\n"
          "                      the build time is printed); rows say msm-g1-pre / msm-g2-pre\n"
          "\n"
          "Progress goes to stderr; the table to stdout.\n"
          "exit codes: 0 success, 1 a failed run (no GPU for --backend cuda, a device error), 2 bad\n"
          "input (options)\n"
          "\n"
          "example:\n"
          "  provesim prover-bench --backend cuda --sizes 20..24 --only ntt,msm-g1\n"
          "  provesim prover-bench --backend cpu --only synth --sizes 20 --threads 6 --reps 9\n");
}

static int parse_range(const char *s, int *lo, int *hi) {
  char *end;
  long a = strtol(s, &end, 10), b = a;
  if (end == s) return -1;
  if (*end == '.' && end[1] == '.') {
    const char *q = end + 2;
    b = strtol(q, &end, 10);
    if (end == q) return -1;
  }
  if (*end || a < 1 || b < a || b > 31) return -1;
  *lo = (int)a;
  *hi = (int)b;
  return 0;
}

static int parse_only(const char *s, bench_opts *o) {
  char *dup = xstrdup(s), *save = NULL;
  o->do_field = o->do_ntt = o->do_g1 = o->do_g2 = o->do_synth = 0;
  for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (!strcmp(t, "field")) o->do_field = 1;
    else if (!strcmp(t, "ntt")) o->do_ntt = 1;
    else if (!strcmp(t, "msm-g1")) o->do_g1 = 1;
    else if (!strcmp(t, "msm-g2")) o->do_g2 = 1;
    else if (!strcmp(t, "synth")) o->do_synth = 1;
    else {
      fprintf(stderr, "provesim prover-bench: --only: unknown kernel '%s' (expected field, ntt, msm-g1, msm-g2, synth)\n",
              t);
      free(dup);
      return -1;
    }
  }
  free(dup);
  if (!(o->do_field || o->do_ntt || o->do_g1 || o->do_g2 || o->do_synth)) {
    fprintf(stderr, "provesim prover-bench: --only: expected a list of field, ntt, msm-g1, msm-g2, synth, got '%s'\n",
            s);
    return -1;
  }
  return 0;
}

static void range_for(const bench_opts *o, int cuda, int kind, int *lo, int *hi) {
  static const int dc[4][2] = {{16, 26}, {16, 24}, {16, 22}, {16, 22}},
                   dp[4][2] = {{10, 20}, {10, 16}, {10, 14}, {10, 20}};
  if (o->lo) {
    *lo = o->lo;
    *hi = o->hi;
  } else {
    *lo = cuda ? dc[kind][0] : dp[kind][0];
    *hi = cuda ? dc[kind][1] : dp[kind][1];
  }
}

/* Field multiplications of the algorithms, counted as implemented. */
static double ntt_mults(int log_n, int flags) {
  double n = (double)(1ull << log_n), m = n / 2 * log_n;
  if (flags & NTT_COSET) m += 2 * n;           /* power table product and the scaling */
  else if (flags & NTT_INVERSE) m += n;        /* 1/n */
  return m;
}
/* In Fp multiplications; a G2 (Fp2) multiplication is 3 Fp multiplications. With
 * precomputed bases the windows share one set of buckets (reduced once, no doublings). */
static double msm_mults(int g2, int log_n, unsigned c, int pre) {
  double n = (double)(1ull << log_n), w = (256 + c - 1) / c, nb = (double)(1u << (c - 1));
  double madd = 10, add = 14, dbl = 9;                /* XYZZ formulas, field mults */
  double m = pre ? n * w * madd + nb * 2 * add : n * w * madd + w * nb * 2 * add + 256 * dbl;
  return g2 ? 3 * m : m;
}

static void fmt_size(char *buf, size_t n, int log_n) { snprintf(buf, n, "2^%d", log_n); }

int prover_cmd_bench(int argc, char **argv) {
  bench_opts o = {backend_has_cuda() ? "cuda" : "cpu", 0, 0, 5, 1, 1, 1, 1, 0, 0, 0, 0, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--backend")) {
      if (!(v = cli_optval(argc, argv, &i, "--backend"))) goto missing;
      o.backend = v;
    } else if (cli_is_opt(a, "--sizes")) {
      if (!(v = cli_optval(argc, argv, &i, "--sizes"))) goto missing;
      if (parse_range(v, &o.lo, &o.hi))
        return cli_usage_error("prover-bench", "--sizes '%s': expected A..B or N with 1 <= A <= B <= 31", v);
    } else if (cli_is_opt(a, "--windows")) {
      if (!(v = cli_optval(argc, argv, &i, "--windows"))) goto missing;
      if (parse_range(v, &o.wlo, &o.whi) || o.wlo < 2 || o.whi > 24)
        return cli_usage_error("prover-bench", "--windows '%s': expected A..B with 2 <= A <= B <= 24", v);
    } else if (cli_is_opt(a, "--precomp")) {
      if (!(v = cli_optval(argc, argv, &i, "--precomp"))) goto missing;
      if (ps_parse_int(v, 2, 24, &o.precomp))
        return cli_usage_error("prover-bench", "--precomp '%s': expected a window of 2..24 bits", v);
    } else if (cli_is_opt(a, "--reps")) {
      if (!(v = cli_optval(argc, argv, &i, "--reps"))) goto missing;
      if (ps_parse_int(v, 1, 1000, &o.reps))
        return cli_usage_error("prover-bench", "--reps '%s': expected an integer 1..1000", v);
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      if (ps_parse_int(v, 1, 4096, &o.threads))
        return cli_usage_error("prover-bench", "--threads '%s': expected an integer 1..4096", v);
    } else if (cli_is_opt(a, "--only")) {
      if (!(v = cli_optval(argc, argv, &i, "--only"))) goto missing;
      if (parse_only(v, &o)) return PS_EXIT_USAGE;
    } else {
      return cli_usage_error("prover-bench", "unknown argument '%s'", a);
    }
    continue;
  missing:
    return cli_usage_error("prover-bench", "%s: expected a value", a);
  }

  ps_err e = {0};
  ps_backend *b = backend_open(o.backend, &e);
  if (!b) {
    fprintf(stderr, "provesim prover-bench: %s\n", e.msg);
    /* A backend that cannot run here (no GPU) is a failed run; an unknown one, a missing
     * GPU or a tuning variable out of range is bad input. */
    return ps_exit_failed(e.code);
  }
  int cuda = !strcmp(backend_name(b), "cuda"), rc = PS_EXIT_OK;
  double fr_rate = 0, fp_rate = 0, sqr_rate = 0;
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
  fprintf(stderr, "[prover-bench] backend %s on %s\n", backend_name(b), backend_device(b));
  if (backend_bench_field(b, 0, &fr_rate, &e) || backend_bench_field(b, 1, &fp_rate, &e)) goto fail;
  if (o.do_field && backend_bench_field(b, 2, &sqr_rate, &e)) goto fail;

  printf("provesim prover-bench: backend %s on %s, %s, median of %d runs\n\n", backend_name(b),
         backend_device(b), date, o.reps);
  if (o.do_field) {
    printf("field  multiplications/s\n");
    printf("Fr     %.3e\n", fr_rate);
    printf("Fp     %.3e\n", fp_rate);
    printf("Fp sqr %.3e  (squarings/s)\n\n", sqr_rate);
  }
  printf("%-14s %-6s %6s %11s %12s %10s %8s\n", "kernel", "size", "window", "median ms",
         "field mults", "mult-time", "x mult-t");
  fflush(stdout);

  if (o.do_ntt) {
    int lo, hi;
    static const struct { const char *name; int flags; } v[] = {
        {"ntt", NTT_OUT_BITREV}, {"ntt-coset", NTT_COSET | NTT_OUT_BITREV}, {"intt", NTT_INVERSE | NTT_IN_BITREV}};
    range_for(&o, cuda, 0, &lo, &hi);
    for (int k = lo; k <= hi; k++)
      for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
        double ms;
        char sz[16];
        fprintf(stderr, "[prover-bench] %s 2^%d\n", v[j].name, k);
        if (backend_bench_ntt(b, (unsigned)k, v[j].flags, o.reps, &ms, &e)) goto fail;
        double m = ntt_mults(k, v[j].flags), floor_ms = m / fr_rate * 1e3;
        fmt_size(sz, sizeof sz, k);
        printf("%-14s %-6s %6s %11.3f %12.3e %10.3f %8.2f\n", v[j].name, sz, "-", ms, m, floor_ms, ms / floor_ms);
        fflush(stdout);
      }
  }
  if (o.do_synth) {
    int lo, hi;
    range_for(&o, cuda, 3, &lo, &hi);
    for (int k = lo; k <= hi; k++) {
      double ms;
      char sz[16], th[8];
      fprintf(stderr, "[prover-bench] synth 2^%d\n", k);
      if (r1cs_bench(k, (unsigned)o.threads, o.reps, &ms, &e)) goto fail;
      fmt_size(sz, sizeof sz, k);
      snprintf(th, sizeof th, "%dt", o.threads);
      printf("%-14s %-6s %6s %11.3f %12s %10s %8s\n", "synth", sz, o.threads ? th : "all", ms, "-", "-", "-");
      fflush(stdout);
    }
  }
  for (int g2 = 0; g2 <= 1; g2++) {
    if (g2 ? !o.do_g2 : !o.do_g1) continue;
    int lo, hi;
    range_for(&o, cuda, 1 + g2, &lo, &hi);
    size_t nmax = (size_t)1 << hi;
    void *bases = xmalloc(nmax * (g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t)));
    fr_t *sc = backend_host_alloc(b, nmax * sizeof(fr_t));
    backend_msm_bases *mb = NULL;
    fprintf(stderr, "[prover-bench] making 2^%d random %s bases and scalars\n", hi, g2 ? "G2" : "G1");
    if (g2) backend_random_g2(bases, nmax, 7);
    else backend_random_g1(bases, nmax, 7);
    backend_random_scalars(sc, nmax, 8);
    if ((g2 ? backend_msm_bases_g2(b, bases, nmax, &mb, &e) : backend_msm_bases_g1(b, bases, nmax, &mb, &e))) {
      free(bases);
      backend_host_free(b, sc);
      goto fail;
    }
    if (o.precomp && !cuda) {
      printf("# the %s backend keeps no precomputed tables: --precomp %d times plain MSMs with window %d\n",
             backend_name(b), o.precomp, o.precomp);
    } else if (o.precomp) {
      fprintf(stderr, "[prover-bench] precomputing 2^%d %s bases for window %d\n", hi, g2 ? "G2" : "G1", o.precomp);
      double t0 = ps_now();
      if (backend_msm_precompute(mb, (unsigned)o.precomp, &e)) {
        backend_msm_bases_free(mb);
        free(bases);
        backend_host_free(b, sc);
        goto fail;
      }
      unsigned nt = (256 + (unsigned)o.precomp - 1) / (unsigned)o.precomp;
      printf("# %s bases, 2^%d points, precomputed for window %d: %u tables, %.1f GiB, %.2f s (not in the times)\n",
             g2 ? "G2" : "G1", hi, o.precomp, nt,
             (double)nt * (double)nmax * (double)(g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t)) / 1073741824.0,
             ps_now() - t0);
      fflush(stdout);
    }
    for (int k = lo; k <= hi && rc == PS_EXIT_OK; k++) {
      size_t n = (size_t)1 << k;
      unsigned w0 = o.wlo ? (unsigned)o.wlo : (unsigned)o.precomp, w1 = o.wlo ? (unsigned)o.whi : (unsigned)o.precomp;
      for (unsigned w = w0; w <= w1; w++) {
        double ms;
        char sz[16], wb[8];
        backend_set_msm_window(b, w);
        unsigned c = backend_msm_window(b, g2, n);
        fprintf(stderr, "[prover-bench] msm-%s 2^%d window %u\n", g2 ? "g2" : "g1", k, c);
        if (backend_bench_msm(b, mb, sc, n, o.reps, &ms, &e)) {
          rc = PS_EXIT_FAIL;
          break;
        }
        int pre = cuda && o.precomp && c == (unsigned)o.precomp;
        double m = msm_mults(g2, k, c, pre), floor_ms = m / fp_rate * 1e3;
        fmt_size(sz, sizeof sz, k);
        snprintf(wb, sizeof wb, "%u", c);
        printf("%-14s %-6s %6s %11.3f %12.3e %10.3f %8.2f\n",
               g2 ? (pre ? "msm-g2-pre" : "msm-g2") : (pre ? "msm-g1-pre" : "msm-g1"), sz, wb, ms, m, floor_ms,
               ms / floor_ms);
        fflush(stdout);
      }
      backend_set_msm_window(b, 0);
    }
    backend_msm_bases_free(mb);
    backend_host_free(b, sc);
    free(bases);
    if (rc) goto fail;
  }
  if (o.do_synth) printf("\nsynth: its window column is its threads (all: every CPU).");
  printf("\nfield mults: Fr for NTTs, Fp for MSMs (a G2 Fp2 multiplication counts 3);\n"
         "mult-time = field mults / the measured rate, in ms (a floor on cuda, no bound on cpu);\n"
         "x mult-t = median / mult-time.\n");
  backend_close(b);
  return PS_EXIT_OK;
fail:
  fprintf(stderr, "provesim prover-bench: %s\n", e.msg);
  backend_close(b);
  return ps_exit_failed(e.code); /* bad input: exit 2 */
}
