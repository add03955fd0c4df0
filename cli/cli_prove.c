/* `provesim prove` and `provesim verify`, and the JSON files they share (docs/prover.md):
 * proof.json, vk.json and public.json, points in the ZCash compressed encodings (enc.h)
 * and scalars as 32-byte big-endian integers, all hex. The reader below is a small strict
 * JSON parser that keeps the string and string-array members of the top-level object. */
#include "cli_prove.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "enc.h"
#include "fr.h"
#include "r1cs.h"

/* ---- writing ---- */

static void hex(ps_buf *b, const uint8_t *p, size_t n) {
  static const char d[] = "0123456789abcdef";
  ps_buf_append(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    char two[2] = {d[p[i] >> 4], d[p[i] & 15]};
    ps_buf_append(b, two, 2);
  }
  ps_buf_append(b, "\"", 1);
}

static void hex_g1(ps_buf *b, const g1_affine_t *p) {
  uint8_t x[ENC_G1_COMPRESSED];
  enc_g1_compress(x, p);
  hex(b, x, sizeof x);
}

static void hex_g2(ps_buf *b, const g2_affine_t *p) {
  uint8_t x[ENC_G2_COMPRESSED];
  enc_g2_compress(x, p);
  hex(b, x, sizeof x);
}

static void json_head(ps_buf *b, const char *schema, const g16_meta *m, int with_instance) {
  ps_buf_printf(b, "{\n  \"schema\": \"%s\",\n  \"protocol\": \"groth16\",\n  \"curve\": \"bls12_381\",\n",
                schema);
  if (m)
    ps_buf_printf(b,
                  "  \"circuit\": \"%s\",\n  \"constraints\": %lld,\n  \"setup_seed\": %llu,\n"
                  "  \"boolean_fraction\": %.4f,\n",
                  m->circuit, m->constraints, m->seed, m->boolean_fraction);
  if (m && with_instance) ps_buf_printf(b, "  \"instance\": %llu,\n", m->instance);
}

int g16_json_write(const char *dir, const g16_vk *vk, const g16_proof *p, const fr_t *pub, int npub,
                   const g16_meta *meta, ps_err *e) {
  if (mkdir(dir, 0777) && errno != EEXIST)
    return ps_fail(e, PS_ERR, "%s: cannot create the directory: %s", dir, strerror(errno));
  ps_buf b[3] = {{0}};
  json_head(&b[0], "provesim.groth16.proof/1", meta, 1);
  ps_buf_printf(&b[0], "  \"encoding\": \"zcash-compressed-hex\",\n  \"a\": ");
  hex_g1(&b[0], &p->a);
  ps_buf_printf(&b[0], ",\n  \"b\": ");
  hex_g2(&b[0], &p->b);
  ps_buf_printf(&b[0], ",\n  \"c\": ");
  hex_g1(&b[0], &p->c);
  ps_buf_printf(&b[0], "\n}\n");

  json_head(&b[1], "provesim.groth16.vk/1", meta, 0);
  ps_buf_printf(&b[1], "  \"encoding\": \"zcash-compressed-hex\",\n  \"alpha_g1\": ");
  hex_g1(&b[1], &vk->alpha_g1);
  ps_buf_printf(&b[1], ",\n  \"beta_g2\": ");
  hex_g2(&b[1], &vk->beta_g2);
  ps_buf_printf(&b[1], ",\n  \"gamma_g2\": ");
  hex_g2(&b[1], &vk->gamma_g2);
  ps_buf_printf(&b[1], ",\n  \"delta_g2\": ");
  hex_g2(&b[1], &vk->delta_g2);
  ps_buf_printf(&b[1], ",\n  \"ic\": [");
  for (int i = 0; i < vk->nic; i++) {
    ps_buf_printf(&b[1], "%s\n    ", i ? "," : "");
    hex_g1(&b[1], &vk->ic[i]);
  }
  ps_buf_printf(&b[1], "\n  ]\n}\n");

  json_head(&b[2], "provesim.groth16.public/1", meta, 1);
  ps_buf_printf(&b[2], "  \"encoding\": \"fr-big-endian-hex\",\n  \"inputs\": [");
  for (int i = 0; i < npub; i++) {
    uint8_t x[32];
    fr_to_bytes(x, &pub[i]);
    ps_buf_printf(&b[2], "%s\n    ", i ? "," : "");
    hex(&b[2], x, sizeof x);
  }
  ps_buf_printf(&b[2], "\n  ]\n}\n");

  static const char *names[3] = {"proof.json", "vk.json", "public.json"};
  int rc = PS_OK;
  for (int i = 0; i < 3 && rc == PS_OK; i++) {
    char *path = xasprintf("%s/%s", dir, names[i]);
    rc = ps_write_file_atomic(path, b[i].p, b[i].len, e);
    free(path);
  }
  for (int i = 0; i < 3; i++) ps_buf_free(&b[i]);
  return rc;
}

/* ---- reading ---- */

typedef struct jmember {
  char *key;
  char *str;    /* a string value, or NULL */
  char **arr;   /* an array of strings, or NULL */
  int narr;
  int other;    /* another kind of value */
} jmember;

typedef struct jobj {
  jmember *m;
  int n;
} jobj;

typedef struct jparser {
  const char *s, *file;
  size_t i, len;
  ps_err *e;
} jparser;

static void jobj_free(jobj *o) {
  for (int i = 0; i < o->n; i++) {
    free(o->m[i].key);
    free(o->m[i].str);
    for (int j = 0; j < o->m[i].narr; j++) free(o->m[i].arr[j]);
    free(o->m[i].arr);
  }
  free(o->m);
  memset(o, 0, sizeof *o);
}

static void jws(jparser *p) {
  while (p->i < p->len && strchr(" \t\r\n", p->s[p->i])) p->i++;
}

static int jerr(jparser *p, const char *what) {
  size_t line = 1, col = 1;
  for (size_t k = 0; k < p->i && k < p->len; k++) {
    if (p->s[k] == '\n') line++, col = 1;
    else col++;
  }
  return ps_fail(p->e, PS_EINPUT, "%s:%zu:%zu: malformed JSON: %s", p->file, line, col, what);
}

/* A string without escapes other than \" \\ \/ (our files never need more). */
static int jstring(jparser *p, char **out) {
  if (p->i >= p->len || p->s[p->i] != '"') return jerr(p, "expected a string");
  p->i++;
  ps_buf b = {0};
  while (p->i < p->len && p->s[p->i] != '"') {
    char c = p->s[p->i++];
    if (c == '\\') {
      if (p->i >= p->len || !strchr("\"\\/", p->s[p->i])) {
        ps_buf_free(&b);
        return jerr(p, "unsupported escape in a string");
      }
      c = p->s[p->i++];
    }
    ps_buf_append(&b, &c, 1);
  }
  if (p->i >= p->len) {
    ps_buf_free(&b);
    return jerr(p, "unterminated string");
  }
  p->i++;
  ps_buf_append(&b, "", 1);
  *out = b.p;
  return PS_OK;
}

static int jskip_scalar(jparser *p) {
  size_t st = p->i;
  while (p->i < p->len && (strchr("+-.eE", p->s[p->i]) || (p->s[p->i] >= '0' && p->s[p->i] <= '9') ||
                           (p->s[p->i] >= 'a' && p->s[p->i] <= 'z')))
    p->i++;
  if (p->i == st) return jerr(p, "expected a value");
  return PS_OK;
}

static int jparse(const char *file, const char *s, size_t len, jobj *o, ps_err *e) {
  jparser p = {s, file, 0, len, e};
  memset(o, 0, sizeof *o);
  int rc;
  jws(&p);
  if (p.i >= len || s[p.i] != '{') return jerr(&p, "expected an object");
  p.i++;
  jws(&p);
  if (p.i < len && s[p.i] == '}') {
    p.i++;
    goto end;
  }
  for (;;) {
    jws(&p);
    jmember m = {0};
    if ((rc = jstring(&p, &m.key))) goto fail;
    o->m = xrealloc(o->m, (size_t)(o->n + 1) * sizeof *o->m);
    o->m[o->n++] = m;
    jmember *mm = &o->m[o->n - 1];
    jws(&p);
    if (p.i >= len || s[p.i] != ':') {
      rc = jerr(&p, "expected ':'");
      goto fail;
    }
    p.i++;
    jws(&p);
    if (p.i < len && s[p.i] == '"') {
      if ((rc = jstring(&p, &mm->str))) goto fail;
    } else if (p.i < len && s[p.i] == '[') {
      p.i++;
      mm->arr = xmalloc(sizeof *mm->arr);
      jws(&p);
      if (p.i < len && s[p.i] == ']') p.i++;
      else
        for (;;) {
          jws(&p);
          char *x;
          if (p.i < len && s[p.i] == '"') {
            if ((rc = jstring(&p, &x))) goto fail;
            mm->arr = xrealloc(mm->arr, (size_t)(mm->narr + 1) * sizeof *mm->arr);
            mm->arr[mm->narr++] = x;
          } else {
            if ((rc = jskip_scalar(&p))) goto fail;
            mm->other = 1;
          }
          jws(&p);
          if (p.i < len && s[p.i] == ',') {
            p.i++;
            continue;
          }
          if (p.i < len && s[p.i] == ']') {
            p.i++;
            break;
          }
          rc = jerr(&p, "expected ',' or ']'");
          goto fail;
        }
    } else {
      if ((rc = jskip_scalar(&p))) goto fail;
      mm->other = 1;
    }
    jws(&p);
    if (p.i < len && s[p.i] == ',') {
      p.i++;
      continue;
    }
    if (p.i < len && s[p.i] == '}') {
      p.i++;
      break;
    }
    rc = jerr(&p, "expected ',' or '}'");
    goto fail;
  }
end:
  jws(&p);
  if (p.i != len) return jerr(&p, "trailing text after the object"), jobj_free(o), PS_EINPUT;
  return PS_OK;
fail:
  jobj_free(o);
  return rc;
}

static const jmember *jget(const jobj *o, const char *key) {
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->m[i].key, key)) return &o->m[i];
  return NULL;
}

static int read_whole(const char *path, char **out, size_t *len, ps_err *e) {
  FILE *f = fopen(path, "rb");
  if (!f) return ps_fail(e, PS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  ps_buf b = {0};
  char tmp[65536];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) ps_buf_append(&b, tmp, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    ps_buf_free(&b);
    return ps_fail(e, PS_EINPUT, "%s: read error", path);
  }
  ps_buf_append(&b, "", 1);
  *out = b.p;
  *len = b.len - 1;
  return PS_OK;
}

static int load_obj(const char *dir, const char *name, const char *schema, jobj *o, ps_err *e) {
  char *path = xasprintf("%s/%s", dir, name), *s = NULL;
  size_t len;
  int rc = read_whole(path, &s, &len, e);
  if (!rc) rc = jparse(path, s, len, o, e);
  free(s);
  if (!rc) {
    const jmember *m = jget(o, "schema");
    if (!m || !m->str || strcmp(m->str, schema)) {
      rc = ps_fail(e, PS_EINPUT, "%s: schema: expected \"%s\", got %s%s%s", path, schema,
                   m && m->str ? "\"" : "", m && m->str ? m->str : "nothing", m && m->str ? "\"" : "");
      jobj_free(o);
    }
  }
  free(path);
  return rc;
}

static int unhex(const char *h, uint8_t *out, size_t n) {
  if (strlen(h) != 2 * n) return -1;
  for (size_t i = 0; i < n; i++) {
    int v = 0;
    for (int k = 0; k < 2; k++) {
      char c = h[2 * i + (size_t)k];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    out[i] = (uint8_t)v;
  }
  return 0;
}

/* Decodes one point field: g2 = 0/1; where names "file: key" or "file: key[i]". */
static int dec_point(const char *hexs, int g2, void *out, const char *dir, const char *file,
                     const char *key, int idx, ps_err *e) {
  uint8_t buf[ENC_G2_COMPRESSED];
  size_t n = g2 ? ENC_G2_COMPRESSED : ENC_G1_COMPRESSED;
  char where[160];
  if (idx >= 0) snprintf(where, sizeof where, "%s[%d]", key, idx);
  else snprintf(where, sizeof where, "%s", key);
  if (!hexs)
    return ps_fail(e, PS_EINPUT, "%s/%s: %s: expected a hex string", dir, file, where);
  if (unhex(hexs, buf, n))
    return ps_fail(e, PS_EINPUT, "%s/%s: %s: expected %zu hex digits (a compressed G%d point), got %zu characters",
                   dir, file, where, 2 * n, g2 + 1, strlen(hexs));
  int rc = g2 ? enc_g2_decode(out, buf, n) : enc_g1_decode(out, buf, n);
  if (rc) return ps_fail(e, PS_EINPUT, "%s/%s: %s: %s", dir, file, where, enc_strerror(rc));
  return PS_OK;
}

void g16_vk_clear(g16_vk *vk) {
  if (!vk) return;
  free(vk->ic);
  vk->ic = NULL;
  vk->nic = 0;
}

int g16_json_read(const char *dir, g16_vk *vk, g16_proof *p, fr_t **pub, int *npub, ps_err *e) {
  jobj po = {0}, vo = {0}, uo = {0};
  memset(vk, 0, sizeof *vk);
  *pub = NULL;
  *npub = 0;
  int rc;
  if ((rc = load_obj(dir, "proof.json", "provesim.groth16.proof/1", &po, e))) goto out;
  if ((rc = load_obj(dir, "vk.json", "provesim.groth16.vk/1", &vo, e))) goto out;
  if ((rc = load_obj(dir, "public.json", "provesim.groth16.public/1", &uo, e))) goto out;
  const jmember *m;
#define STR(o, k) ((m = jget(&(o), k)) ? m->str : NULL)
  if ((rc = dec_point(STR(po, "a"), 0, &p->a, dir, "proof.json", "a", -1, e)) ||
      (rc = dec_point(STR(po, "b"), 1, &p->b, dir, "proof.json", "b", -1, e)) ||
      (rc = dec_point(STR(po, "c"), 0, &p->c, dir, "proof.json", "c", -1, e)) ||
      (rc = dec_point(STR(vo, "alpha_g1"), 0, &vk->alpha_g1, dir, "vk.json", "alpha_g1", -1, e)) ||
      (rc = dec_point(STR(vo, "beta_g2"), 1, &vk->beta_g2, dir, "vk.json", "beta_g2", -1, e)) ||
      (rc = dec_point(STR(vo, "gamma_g2"), 1, &vk->gamma_g2, dir, "vk.json", "gamma_g2", -1, e)) ||
      (rc = dec_point(STR(vo, "delta_g2"), 1, &vk->delta_g2, dir, "vk.json", "delta_g2", -1, e)))
    goto out;
#undef STR
  m = jget(&vo, "ic");
  if (!m || !m->arr || m->other || m->narr < 1) {
    rc = ps_fail(e, PS_EINPUT, "%s/vk.json: ic: expected an array of at least one hex string", dir);
    goto out;
  }
  vk->nic = m->narr;
  vk->ic = xmalloc((size_t)m->narr * sizeof *vk->ic);
  for (int i = 0; i < m->narr; i++)
    if ((rc = dec_point(m->arr[i], 0, &vk->ic[i], dir, "vk.json", "ic", i, e))) goto out;
  m = jget(&uo, "inputs");
  if (!m || !m->arr || m->other) {
    rc = ps_fail(e, PS_EINPUT, "%s/public.json: inputs: expected an array of hex strings", dir);
    goto out;
  }
  *npub = m->narr;
  *pub = xmalloc((size_t)(m->narr ? m->narr : 1) * sizeof **pub);
  for (int i = 0; i < m->narr; i++) {
    uint8_t b[32];
    if (unhex(m->arr[i], b, 32) || fr_from_bytes(&(*pub)[i], b) != FR_OK) {
      rc = ps_fail(e, PS_EINPUT,
                   "%s/public.json: inputs[%d]: expected 64 hex digits of an integer below r", dir, i);
      goto out;
    }
  }
  rc = PS_OK;
out:
  if (rc) {
    g16_vk_clear(vk);
    free(*pub);
    *pub = NULL;
    *npub = 0;
  }
  jobj_free(&po), jobj_free(&vo), jobj_free(&uo);
  return rc;
}

/* ---- commands ---- */

static void prove_usage(FILE *f) {
  fprintf(f,
          "usage: provesim prove [--circuit NAME] [--constraints N] [--seed S] [--instance I]\n"
          "                      [--boolean-fraction F] [--backend cpu|cuda] [--cache DIR] --out DIR\n\n"
          "Makes a Groth16 proof (BLS12-381) that one instance of a circuit is satisfied, and writes\n"
          "DIR/proof.json, DIR/vk.json and DIR/public.json (points in the ZCash compressed encoding,\n"
          "hex; docs/prover.md), which `provesim verify DIR` or any BLS12-381 library can check.\n\n"
          "  --circuit NAME          the circuit family: %s (default mimc, a MiMC-style hash chain\n"
          "                          absorbing range-checked message bits)\n"
          "  --constraints N         R1CS size, as 4096 or 2^12; rounded up to a power of two, the\n"
          "                          NTT domain (default 2^12)\n"
          "  --seed S                the setup's toxic waste (default 1); keys differ per seed\n"
          "  --instance I            which instance (witness and public inputs) to prove (default 1)\n"
          "  --boolean-fraction F    share of the witness that is 0/1, in [0, 0.98] (default 0.9)\n"
          "  --backend cpu|cuda      where the NTTs and MSMs run (default cpu)\n"
          "  --cache DIR             keep the keys in DIR, so the next run skips the setup\n"
          "  --out DIR               where the three files go (created if missing)\n\n"
          "example:\n  provesim prove --constraints 2^14 --seed 7 --cache ~/.cache/provesim --out /tmp/p\n"
          "  provesim verify /tmp/p\n",
          r1cs_circuits());
}

static void verify_usage(FILE *f) {
  fprintf(f,
          "usage: provesim verify DIR\n\n"
          "Checks the Groth16 proof in DIR/proof.json against DIR/vk.json and DIR/public.json (as\n"
          "written by provesim prove) with the BLS12-381 pairing: e(A, B) = e(alpha, beta) *\n"
          "e(sum x_i IC_i, gamma) * e(C, delta).\n"
          "Exit status: 0 valid, 1 invalid, 2 bad input (a missing or malformed file, a point off\n"
          "the curve or outside the subgroup, a count of public inputs the key does not expect).\n");
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

int prover_cmd_prove(int argc, char **argv) {
  const char *circuit = NULL, *backend = "cpu", *cache = NULL, *out = NULL, *v;
  long long n = 1 << 12;
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
    } else if (cli_is_opt(a, "--backend")) {
      if (!(backend = cli_optval(argc, argv, &i, "--backend"))) return cli_usage_error("prove", "%s: expected cpu or cuda", a);
    } else if (cli_is_opt(a, "--cache")) {
      if (!(cache = cli_optval(argc, argv, &i, "--cache"))) return cli_usage_error("prove", "%s: expected a directory", a);
    } else if (cli_is_opt(a, "--out")) {
      if (!(out = cli_optval(argc, argv, &i, "--out"))) return cli_usage_error("prove", "%s: expected a directory", a);
    } else {
      return cli_usage_error("prove", "unknown argument '%s'", a);
    }
  }
  if (!out) return cli_usage_error("prove", "%s", "--out DIR is required");
  ps_err e = {{0}};
  ps_backend *b = backend_open(backend, &e);
  if (!b) {
    fprintf(stderr, "provesim prove: %s\n", e.msg);
    return PS_EXIT_USAGE;
  }
  g16_circuit_params p = {circuit, n, frac, seed};
  g16_keys *k = NULL;
  g16_ctx *c = NULL;
  int last = -1, rc, code = PS_EXIT_FAIL;
  double t0 = ps_now();
  rc = g16_keys_get(&p, cache, isatty(2) ? on_progress : NULL, &last, &k, &e);
  double t1 = ps_now();
  if (rc) goto fail;
  if ((rc = g16_ctx_open(b, k, &c, &e))) goto fail;
  g16_proof pr;
  fr_t pub[8];
  int npub;
  if ((rc = g16_prove(c, instance, instance ^ 0x5eedull ^ (seed << 20), &pr, pub, &npub, &e))) goto fail;
  double t2 = ps_now();
  const r1cs *cs = g16_keys_r1cs(k);
  g16_meta m = {{0}, (long long)cs->nrows, seed, instance, p.boolean_fraction < 0 ? R1CS_DEFAULT_BOOLEAN_FRACTION : p.boolean_fraction};
  snprintf(m.circuit, sizeof m.circuit, "%s", cs->circuit);
  if ((rc = g16_json_write(out, g16_keys_vk(k), &pr, pub, npub, &m, &e))) goto fail;
  int ok = g16_verify(g16_keys_vk(k), &pr, pub, npub, &e);
  printf("proved %s with 2^%u constraints (%lld variables, %.0f%% of the witness 0/1), setup seed %llu, "
         "instance %llu, on %s (%s)\n",
         cs->circuit, cs->log_n, (long long)cs->nvars, 100 * cs->boolean_fraction, seed, instance,
         backend_name(b), backend_device(b));
  printf("keys %.2f s (%s), proof %.2f s; wrote %s/proof.json, vk.json, public.json; %s\n", t1 - t0,
         g16_keys_from_cache(k) ? "loaded from the cache" : cache ? "setup, saved to the cache" : "setup",
         t2 - t1, out, ok == 1 ? "the proof verifies" : "THE PROOF DOES NOT VERIFY");
  code = ok == 1 ? PS_EXIT_OK : PS_EXIT_FAIL;
  goto done;
fail:
  fprintf(stderr, "provesim prove: %s\n", e.msg);
  code = rc == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL;
done:
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
  ps_err e = {{0}};
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
    return PS_EXIT_FAIL;
  }
  printf("%s: valid Groth16 proof (BLS12-381, %d public inputs)\n", dir, npub);
  return PS_EXIT_OK;
}
