/* `provesim prove` and `provesim verify` (docs/prover.md): their arguments and what they
 * print. The proof, the verifying key and the public inputs go through the JSON files of
 * prover/g16_json.h; the proving itself is prover/groth16.h. */
#include "cli_prove.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "g16_json.h"
#include "groth16.h"
#include "r1cs.h"
#include "report.h"
#include "util.h"

static void prove_usage(FILE *f) {
  fprintf(f,
          "usage: provesim prove [--circuit NAME] [--constraints N] [--seed S] [--instance I]\n"
          "                      [--boolean-fraction F] [--backend cpu|cuda] [--cache DIR] [--calls N]\n"
          "                      [--precompute C] [--json] --out DIR\n\n"
          "Makes a Groth16 proof (BLS12-381) that one instance of a circuit is satisfied, and writes\n"
          "DIR/proof.json, DIR/vk.json and DIR/public.json (points in the ZCash compressed encoding,\n"
          "hex; docs/prover.md), which `provesim verify DIR` or any BLS12-381 library can check.\n\n"
          "  --circuit NAME          the circuit family: %s (default mimc, a MiMC-style hash chain\n"
          "                          absorbing range-checked message bits)\n"
          "  --constraints N         R1CS size, as 4096 or 2^12; rounded up to a power of two, the\n"
          "                          NTT domain (default 2^12)\n"
          "  --seed S                the setup's toxic waste (default 1); keys differ per seed, and\n"
          "                          whoever knows the seed can forge proofs: for measurement only\n"
          "  --instance I            which instance (witness and public inputs) to prove (default 1)\n"
          "  --boolean-fraction F    share of the witness that is 0/1, in [0, 0.98] (default 0.9)\n"
          "  --backend cpu|cuda      where the setup's products, the NTTs and the MSMs run (default\n"
          "                          cpu); the keys are the same bytes on both\n"
          "  --cache DIR             keep the keys in DIR, so the next run skips the setup\n"
          "  --calls N               prove N times (default 1): the first call includes uploading the\n"
          "                          proving key to the backend, the other N - 1 are the steady state\n"
          "                          a proving daemon sees (instances I+1 .., each proof verified)\n"
          "  --precompute C          with the key upload, build on the GPU the tables of the A, B_G1,\n"
          "                          L and H bases for MSM window C (2..24 bits; ceil(256/C) times\n"
          "                          those bases' memory), and prove with them; the cpu backend builds\n"
          "                          nothing (the scenario key prover.precompute, docs/model.md)\n"
          "  --json                  print the run as a JSON object (provesim.prove/1) instead of text\n"
          "  --out DIR               where the three files go (created if missing)\n\n"
          "It reports the setup (or the cache load), the first call (key upload + proof) and the\n"
          "steady-state calls (median, max), the backend's busy time per call (cuda: device time\n"
          "between CUDA events around its NTTs and MSMs; cpu: their wall time), the peak GPU\n"
          "memory in use (cudaMemGetInfo, whole GPU) and the peak host RSS (getrusage).\n"
          "The setup shows a progress line on a terminal; otherwise one line per stage goes to\n"
          "standard error (setup: G1 queries ... points on cuda 4.21 s).\n"
          "exit codes: 0 the proof was made and verifies, 1 a failed run (no GPU for --backend\n"
          "cuda, I/O, a proof that does not verify), 2 bad input (options, an --out that cannot be\n"
          "made)\n\n"
          "example:\n  provesim prove --constraints 2^14 --seed 7 --cache ~/.cache/provesim --out /tmp/p\n"
          "  provesim verify /tmp/p\n"
          "  provesim prove --backend cuda --constraints 2^24 --calls 5 --cache /tmp/keys --out /tmp/p\n",
          r1cs_circuits());
}

static void verify_usage(FILE *f) {
  fprintf(f,
          "usage: provesim verify DIR\n\n"
          "Checks the Groth16 proof in DIR/proof.json against DIR/vk.json and DIR/public.json (as\n"
          "written by provesim prove) with the BLS12-381 pairing: e(A, B) = e(alpha, beta) *\n"
          "e(sum x_i IC_i, gamma) * e(C, delta).\n"
          "exit codes: 0 valid, 1 invalid, 2 bad input (a missing or malformed file, a point off\n"
          "the curve or outside the subgroup, a count of public inputs the key does not expect)\n\n"
          "example:\n  provesim prove --constraints 2^10 --out /tmp/p && provesim verify /tmp/p\n");
}

/* N as 1234 or 2^k. */
static int parse_size(const char *s, long long *out) {
  char *end;
  if (!strncmp(s, "2^", 2)) {
    long k = strtol(s + 2, &end, 10);
    if (*end || end == s + 2 || k < 0 || k > 40) return -1;
    *out = 1LL << k;
    return 0;
  }
  long long v = strtoll(s, &end, 10);
  if (*end || end == s || v < 1) return -1;
  *out = v;
  return 0;
}

static int parse_u64(const char *s, unsigned long long *out) {
  char *end;
  if (!*s || *s == '-') return -1;
  errno = 0;
  *out = strtoull(s, &end, 0);
  return *end || errno ? -1 : 0;
}

static void on_progress(double f, void *ctx) {
  int *last = ctx;
  int pct = (int)(f * 100);
  if (pct != *last) {
    *last = pct;
    fprintf(stderr, "\rsetup: %3d%%", pct);
    if (pct >= 100) fprintf(stderr, "\n");
  }
}

/* One line per stage of the setup, when standard error is not a terminal. */
static void on_stage(const char *line, void *ctx) {
  (void)ctx;
  fprintf(stderr, "%s\n", line);
}

/* Median and max of v[0..n) (n >= 1; sorts v). */
static void median_max(double *v, int n, double *med, double *max) {
  qsort(v, (size_t)n, sizeof *v, ps_cmp_double);
  *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  *max = v[n - 1];
}

/* Bytes as "12.34 GiB", or in MiB below 1 GiB. */
static const char *bytes_str(char *buf, size_t n, double b) {
  if (b >= 1073741824.0) snprintf(buf, n, "%.2f GiB", b / 1073741824.0);
  else snprintf(buf, n, "%.1f MiB", b / 1048576.0);
  return buf;
}

int prover_cmd_prove(int argc, char **argv) {
  const char *circuit = NULL, *backend = "cpu", *cache = NULL, *out = NULL, *v;
  long long n = 1 << 12, calls = 1, precompute = 0;
  int json = 0;
  unsigned long long seed = 1, instance = 1;
  double frac = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      prove_usage(stdout);
      return PS_EXIT_OK;
    }
    if (cli_is_opt(a, "--circuit")) {
      if (!(circuit = cli_optval(argc, argv, &i, "--circuit"))) return cli_usage_error("prove", "%s: expected a circuit name", a);
    } else if (cli_is_opt(a, "--constraints")) {
      if (!(v = cli_optval(argc, argv, &i, "--constraints")) || parse_size(v, &n))
        return cli_usage_error("prove", "--constraints: expected a count like 4096 or 2^12, got '%s'", v ? v : "");
    } else if (cli_is_opt(a, "--seed")) {
      if (!(v = cli_optval(argc, argv, &i, "--seed")) || parse_u64(v, &seed))
        return cli_usage_error("prove", "--seed: expected an integer >= 0, got '%s'", v ? v : "");
    } else if (cli_is_opt(a, "--instance")) {
      if (!(v = cli_optval(argc, argv, &i, "--instance")) || parse_u64(v, &instance))
        return cli_usage_error("prove", "--instance: expected an integer >= 0, got '%s'", v ? v : "");
    } else if (cli_is_opt(a, "--boolean-fraction")) {
      char *end;
      if (!(v = cli_optval(argc, argv, &i, "--boolean-fraction")) || (frac = strtod(v, &end), *end || end == v))
        return cli_usage_error("prove", "--boolean-fraction: expected a number in [0, 0.98], got '%s'", v ? v : "");
      if (!(frac >= 0 && frac <= 0.98))
        return cli_usage_error("prove", "--boolean-fraction: expected a number in [0, 0.98], got '%s'", v);
    } else if (cli_is_opt(a, "--backend")) {
      if (!(backend = cli_optval(argc, argv, &i, "--backend"))) return cli_usage_error("prove", "%s: expected cpu or cuda", a);
    } else if (cli_is_opt(a, "--cache")) {
      if (!(cache = cli_optval(argc, argv, &i, "--cache"))) return cli_usage_error("prove", "%s: expected a directory", a);
    } else if (cli_is_opt(a, "--calls")) {
      char *end;
      if (!(v = cli_optval(argc, argv, &i, "--calls")) || (calls = strtoll(v, &end, 10), *end || end == v) ||
          calls < 1 || calls > 100000)
        return cli_usage_error("prove", "--calls: expected an integer in 1..100000, got '%s'", v ? v : "");
    } else if (cli_is_opt(a, "--precompute")) {
      char *end;
      if (!(v = cli_optval(argc, argv, &i, "--precompute")) || (precompute = strtoll(v, &end, 10), *end || end == v) ||
          precompute < 2 || precompute > 24)
        return cli_usage_error("prove", "--precompute: expected a window in bits from 2 to 24, got '%s'", v ? v : "");
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (cli_is_opt(a, "--out")) {
      if (!(out = cli_optval(argc, argv, &i, "--out"))) return cli_usage_error("prove", "%s: expected a directory", a);
    } else {
      return cli_usage_error("prove", "unknown argument '%s'", a);
    }
  }
  if (!out) return cli_usage_error("prove", "%s", "--out DIR is required");
  ps_err e = {0};
  /* --out is checked before the setup, which can take minutes: an existing folder, or one
   * whose parent folder exists (a file inside it stands for the files to come). */
  struct stat st;
  char *probe = xasprintf("%s/proof.json", out);
  int bad_out = stat(out, &st) == 0 ? !S_ISDIR(st.st_mode) : 0;
  if (!bad_out && stat(out, &st) != 0) {
    char *parent = xstrdup(out);
    size_t pn = strlen(parent);
    while (pn > 1 && parent[pn - 1] == '/') parent[--pn] = 0;
    char *slash = strrchr(parent, '/');
    if (!slash) strcpy(parent, ".");
    else if (slash == parent) parent[1] = 0;
    else *slash = 0;
    bad_out = stat(parent, &st) != 0 || !S_ISDIR(st.st_mode);
    free(parent);
    if (bad_out) ps_fail(&e, PS_EINPUT, "%s: cannot make the folder: its parent folder does not exist", out);
  } else if (bad_out) {
    ps_fail(&e, PS_EINPUT, "%s: expected a folder, got a file", out);
  } else if (ps_out_check(probe, &e) != PS_OK) {
    bad_out = 1;
  }
  free(probe);
  if (bad_out) {
    fprintf(stderr, "provesim prove: --out %s\n", e.msg);
    return PS_EXIT_USAGE;
  }
  if (cache && stat(cache, &st) == 0 && !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "provesim prove: --cache %s: expected a folder, got a file\n", cache);
    return PS_EXIT_USAGE;
  }
  ps_backend *b = backend_open(backend, &e);
  if (!b) {
    fprintf(stderr, "provesim prove: %s\n", e.msg);
    /* A backend that cannot run here (no GPU) is a failed run; an unknown one, a missing
     * GPU or a tuning variable out of range is bad input. */
    return ps_exit_failed(e.code);
  }
  g16_circuit_params p = {circuit, n, frac, seed};
  g16_keys *k = NULL;
  g16_ctx *c = NULL;
  int last = -1, rc, code = PS_EXIT_FAIL, tty = isatty(2);
  double *wall = xcalloc((size_t)calls, sizeof *wall), *busy = xcalloc((size_t)calls, sizeof *busy);
  g16_setup_opts so = {b, tty ? on_progress : NULL, tty ? NULL : on_stage, &last};
  double t0 = ps_now();
  rc = g16_keys_make(&p, cache, &so, &k, &e);
  double t1 = ps_now();
  if (rc) goto fail;
  g16_keys_set_precompute(k, (unsigned)precompute);
  /* The first call uploads the proving key (the context's bases) and proves; the others
   * prove on the resident key, as a daemon's steady state does. */
  double b0 = backend_busy_s(b);
  if ((rc = g16_ctx_open(b, k, &c, &e))) goto fail;
  double t_up = ps_now(), b_up = backend_busy_s(b);
  g16_proof pr, pr_i;
  fr_t pub[8], pub_i[8];
  int npub, npub_i, verified = 0, ok = 0;
  for (long long i = 0; i < calls; i++) {
    double s0 = ps_now(), c0 = backend_busy_s(b);
    uint64_t inst = instance + (uint64_t)i;
    if ((rc = g16_prove(c, inst, inst ^ 0x5eedull ^ (seed << 20), i ? &pr_i : &pr, i ? pub_i : pub,
                        i ? &npub_i : &npub, &e)))
      goto fail;
    wall[i] = ps_now() - s0;
    busy[i] = backend_busy_s(b) - c0;
    if (i) verified += g16_verify(g16_keys_vk(k), &pr_i, pub_i, npub_i, &e) == 1; /* the first: below */
  }
  wall[0] += t_up - t1; /* the first call includes the key upload */
  busy[0] += b_up - b0;
  const r1cs *cs = g16_keys_r1cs(k);
  g16_meta m = {{0}, (long long)cs->nrows, seed, instance, p.boolean_fraction < 0 ? R1CS_DEFAULT_BOOLEAN_FRACTION : p.boolean_fraction};
  snprintf(m.circuit, sizeof m.circuit, "%s", cs->circuit);
  if ((rc = g16_json_write(out, g16_keys_vk(k), &pr, pub, npub, &m, &e))) goto fail;
  ok = g16_verify(g16_keys_vk(k), &pr, pub, npub, &e);
  verified += ok == 1;
  int steady = (int)calls - 1, dev = backend_has_device(b);
  double smed = 0, smax = 0, bmed = 0, bmax = 0, rss = (double)backend_host_peak_bytes(), gpu = (double)backend_device_peak_bytes(b);
  if (steady) {
    median_max(wall + 1, steady, &smed, &smax);
    median_max(busy + 1, steady, &bmed, &bmax);
  }
  const char *keys_how = g16_keys_from_cache(k) ? "loaded from the cache" : cache ? "setup, saved to the cache" : "setup";
  ps_buf ob = {0};
  if (json) {
    cJSON *o = cJSON_CreateObject(), *x;
    cJSON_AddStringToObject(o, "schema", "provesim.prove/1");
    cJSON_AddStringToObject(o, "circuit", cs->circuit);
    cJSON_AddNumberToObject(o, "constraints", (double)cs->nrows);
    cJSON_AddNumberToObject(o, "variables", (double)cs->nvars);
    cJSON_AddNumberToObject(o, "setup_seed", (double)seed);
    cJSON_AddNumberToObject(o, "instance", (double)instance);
    cJSON_AddStringToObject(o, "backend", backend_name(b));
    cJSON_AddStringToObject(o, "device", backend_device(b));
    cJSON_AddItemToObject(o, "keys", x = cJSON_CreateObject());
    cJSON_AddStringToObject(x, "source", g16_keys_from_cache(k) ? "cache" : "setup");
    report_json_num(x, "s", t1 - t0);
    cJSON_AddItemToObject(o, "first_call", x = cJSON_CreateObject());
    report_json_num(x, "wall_s", wall[0]);
    report_json_num(x, "key_upload_s", t_up - t1);
    report_json_num(x, "busy_s", busy[0]);
    if (precompute) {
      cJSON *y = cJSON_AddObjectToObject(o, "precompute");
      cJSON_AddNumberToObject(y, "window", (double)precompute);
      cJSON_AddNumberToObject(y, "table_bytes", (double)g16_precompute_bytes(k, (unsigned)precompute));
      cJSON_AddBoolToObject(y, "built", dev);
    }
    cJSON_AddItemToObject(o, "steady", x = cJSON_CreateObject());
    cJSON_AddNumberToObject(x, "calls", steady);
    report_json_num(x, "wall_median_s", steady ? smed : NAN);
    report_json_num(x, "wall_max_s", steady ? smax : NAN);
    report_json_num(x, "busy_median_s", steady ? bmed : NAN);
    report_json_num(x, "busy_max_s", steady ? bmax : NAN);
    cJSON_AddStringToObject(o, "busy_is", dev ? "device time between CUDA events around the backend's operations"
                                              : "wall time of the backend's operations (cpu)");
    report_json_num(o, "peak_gpu_bytes", dev ? gpu : NAN);
    report_json_num(o, "peak_host_rss_bytes", rss);
    cJSON_AddNumberToObject(o, "calls", (double)calls);
    cJSON_AddNumberToObject(o, "verified", verified);
    cJSON_AddStringToObject(o, "out", out);
    char *txt = cJSON_Print(o);
    ps_buf_printf(&ob, "%s\n", txt);
    free(txt);
    cJSON_Delete(o);
  } else {
    ps_buf_printf(&ob, "proved %s with 2^%u constraints (%lld variables, %.0f%% of the witness 0/1), setup seed %llu, "
                  "instance %llu, on %s (%s)\n",
                  cs->circuit, cs->log_n, (long long)cs->nvars, 100 * cs->boolean_fraction, seed, instance,
                  backend_name(b), backend_device(b));
    ps_buf_printf(&ob, "keys %.2f s (%s), first call %.2f s (key upload %.2f s, proof %.2f s); wrote %s/proof.json, "
                  "vk.json, public.json; %s\n",
                  t1 - t0, keys_how, wall[0], t_up - t1, wall[0] - (t_up - t1), out,
                  ok == 1 ? "the proof verifies" : "THE PROOF DOES NOT VERIFY");
    if (steady)
      ps_buf_printf(&ob, "steady state: %d calls, median %.3f s, max %.3f s; %d of %lld proofs verify\n", steady, smed,
                    smax, verified, calls);
    if (precompute) {
      char tb[32];
      ps_buf_printf(&ob, "precomputed bases: window %lld, tables %s %s\n", precompute,
                    bytes_str(tb, sizeof tb, (double)g16_precompute_bytes(k, (unsigned)precompute)),
                    dev ? "on the GPU (in the key upload)" : "not built (the cpu backend proves without them)");
    }
    ps_buf_printf(&ob, "%s per call: first %.3f s", dev ? "GPU time (CUDA events around the backend's operations)"
                                                        : "backend time (cpu: wall time of its NTTs and MSMs)",
                  busy[0]);
    if (steady) ps_buf_printf(&ob, ", steady median %.3f s, max %.3f s", bmed, bmax);
    ps_buf_printf(&ob, "\n");
    char mb[32];
    if (dev) ps_buf_printf(&ob, "peak memory: GPU %s in use (cudaMemGetInfo, whole GPU), ", bytes_str(mb, sizeof mb, gpu));
    else ps_buf_printf(&ob, "peak memory: ");
    ps_buf_printf(&ob, "host RSS %s (getrusage)\n", bytes_str(mb, sizeof mb, rss));
  }
  code = ok == 1 && verified == calls ? PS_EXIT_OK : PS_EXIT_FAIL;
  if (ps_write_stdout(ob.p, ob.len, &e) != PS_OK) {
    fprintf(stderr, "provesim prove: %s\n", e.msg);
    code = PS_EXIT_FAIL;
  }
  ps_buf_free(&ob);
  goto done;
fail:
  fprintf(stderr, "provesim prove: %s\n", e.msg);
  code = ps_exit_failed(rc);
done:
  free(wall), free(busy);
  g16_ctx_close(c);
  g16_keys_free(k);
  backend_close(b);
  return code;
}

int prover_cmd_verify(int argc, char **argv) {
  const char *dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      verify_usage(stdout);
      return PS_EXIT_OK;
    }
    if (argv[i][0] == '-') return cli_usage_error("verify", "unknown option '%s'", argv[i]);
    if (dir) return cli_usage_error("verify", "one directory expected, got also '%s'", argv[i]);
    dir = argv[i];
  }
  if (!dir) return cli_usage_error("verify", "%s", "expected a directory holding proof.json, vk.json, public.json");
  g16_vk vk;
  g16_proof p;
  fr_t *pub;
  int npub;
  ps_err e = {0};
  if (g16_json_read(dir, &vk, &p, &pub, &npub, &e)) {
    fprintf(stderr, "provesim verify: %s\n", e.msg);
    return PS_EXIT_USAGE;
  }
  int ok = g16_verify(&vk, &p, pub, npub, &e);
  g16_vk_clear(&vk);
  free(pub);
  if (ok < 0) {
    fprintf(stderr, "provesim verify: %s/: %s\n", dir, e.msg);
    return PS_EXIT_USAGE;
  }
  if (ok == 0) {
    printf("%s: INVALID: the pairing equation e(A,B) = e(alpha,beta) e(IC(x),gamma) e(C,delta) does not "
           "hold for this proof, key and public inputs\n",
           dir);
    fflush(stdout);
    return PS_EXIT_FAIL;
  }
  char *msg = xasprintf("%s: valid Groth16 proof (BLS12-381, %d public inputs)\n", dir, npub);
  int wr = ps_write_stdout(msg, strlen(msg), &e);
  free(msg);
  if (wr != PS_OK) {
    fprintf(stderr, "provesim verify: %s\n", e.msg);
    return PS_EXIT_FAIL;
  }
  return PS_EXIT_OK;
}
