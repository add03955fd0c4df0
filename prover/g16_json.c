/* The JSON files of a Groth16 proof: proof.json, vk.json and public.json (g16_json.h).
 * The writer prints them by hand, so their layout stays fixed byte for byte; the reader
 * parses them with cJSON and checks every field it uses, naming the file and the field
 * (or the line and column of malformed JSON) in its errors. */
#include "g16_json.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "enc.h"
#include "fr.h"

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
  if (m) {
    ps_buf_printf(b, "  \"circuit\": ");
    ps_buf_json_str(b, m->circuit);
    ps_buf_printf(b,
                  ",\n  \"constraints\": %lld,\n  \"setup_seed\": %llu,\n  \"boolean_fraction\": %.4f,\n",
                  m->constraints, m->seed, m->boolean_fraction);
  }
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

/* What kind of JSON value x is, for "expected ..., got <kind>"; NULL is a missing member. */
static const char *jkind(const cJSON *x) {
  if (!x) return "nothing";
  if (cJSON_IsString(x)) return "a string";
  if (cJSON_IsNumber(x)) return "a number";
  if (cJSON_IsBool(x)) return "a boolean";
  if (cJSON_IsNull(x)) return "null";
  if (cJSON_IsArray(x)) return cJSON_GetArraySize(x) ? "an array" : "an empty array";
  if (cJSON_IsObject(x)) return "an object";
  return "an unknown value";
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

/* "path:line:col: malformed JSON: ..." for the byte at offset at of s. */
static int malformed(const char *path, const char *s, size_t len, size_t at, const char *why, ps_err *e) {
  size_t line = 1, col = 1;
  for (size_t k = 0; k < at && k < len; k++) {
    if (s[k] == '\n') line++, col = 1;
    else col++;
  }
  if (at >= len)
    return ps_fail(e, PS_EINPUT, "%s:%zu:%zu: malformed JSON: the file ends inside a value", path, line, col);
  if (why) return ps_fail(e, PS_EINPUT, "%s:%zu:%zu: malformed JSON: %s", path, line, col, why);
  /* Quote the text where cJSON stopped, up to the end of its line (at most 20 bytes). */
  char near[96];
  size_t o = 0, k = at;
  for (; k < len && k < at + 20 && s[k] != '\n'; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c >= 0x20 && c < 0x7f) near[o++] = (char)c;
    else o += (size_t)snprintf(near + o, sizeof near - o, "\\x%02x", c);
  }
  near[o] = 0;
  return ps_fail(e, PS_EINPUT, "%s:%zu:%zu: malformed JSON: unexpected '%s%s'", path, line, col, near,
                 k < len && s[k] != '\n' ? "..." : "");
}

/* Parses dir/name into *out, a JSON object whose "schema" member is schema. */
static int load_obj(const char *dir, const char *name, const char *schema, cJSON **out, ps_err *e) {
  char *path = xasprintf("%s/%s", dir, name), *s = NULL;
  cJSON *o = NULL;
  size_t len;
  int rc = read_whole(path, &s, &len, e);
  if (rc) goto out;
  const char *nul = memchr(s, 0, len), *end = NULL;
  if (nul) {
    rc = malformed(path, s, len, (size_t)(nul - s), "a NUL byte", e);
    goto out;
  }
  if (strspn(s, " \t\r\n") == len) {
    rc = ps_fail(e, PS_EINPUT, "%s: expected a JSON object, got an empty file", path);
    goto out;
  }
  /* len + 1: with require_null_terminated, cJSON must see the terminating NUL to accept
   * the end; anything else after the value is an error at that place. */
  if (!(o = cJSON_ParseWithLengthOpts(s, len + 1, &end, 1))) {
    rc = malformed(path, s, len, end ? (size_t)(end - s) : 0, NULL, e);
    goto out;
  }
  if (!cJSON_IsObject(o)) {
    rc = ps_fail(e, PS_EINPUT, "%s: expected a JSON object, got %s", path, jkind(o));
    goto out;
  }
  const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "schema"));
  if (!got || strcmp(got, schema)) {
    rc = ps_fail(e, PS_EINPUT, "%s: schema: expected \"%s\", got %s%s%s", path, schema, got ? "\"" : "",
                 got ? got : jkind(cJSON_GetObjectItemCaseSensitive(o, "schema")), got ? "\"" : "");
    goto out;
  }
  *out = o;
  o = NULL;
out:
  cJSON_Delete(o);
  free(s);
  free(path);
  return rc;
}

/* Hex digits to n bytes; -1 unless h is exactly 2n hex digits. */
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

/* The name of a field in errors: "key" or "key[idx]". */
static void field_name(char *buf, size_t n, const char *key, int idx) {
  if (idx >= 0) snprintf(buf, n, "%s[%d]", key, idx);
  else snprintf(buf, n, "%s", key);
}

/* Decodes the point x (g2 = 0/1) of the field key (or key[idx], idx >= 0) of dir/file. */
static int dec_point(const cJSON *x, int g2, void *out, const char *dir, const char *file, const char *key,
                     int idx, ps_err *e) {
  uint8_t buf[ENC_G2_COMPRESSED];
  size_t n = g2 ? ENC_G2_COMPRESSED : ENC_G1_COMPRESSED;
  char where[160];
  field_name(where, sizeof where, key, idx);
  const char *hexs = cJSON_GetStringValue(x);
  if (!hexs) return ps_fail(e, PS_EINPUT, "%s/%s: %s: expected a hex string, got %s", dir, file, where, jkind(x));
  if (unhex(hexs, buf, n))
    return ps_fail(e, PS_EINPUT, "%s/%s: %s: expected %zu hex digits (a compressed G%d point), got %zu characters%s",
                   dir, file, where, 2 * n, g2 + 1, strlen(hexs), strlen(hexs) == 2 * n ? " with a non-hex digit" : "");
  int rc = g2 ? enc_g2_decode(out, buf, n) : enc_g1_decode(out, buf, n);
  if (rc) return ps_fail(e, PS_EINPUT, "%s/%s: %s: %s", dir, file, where, enc_strerror(rc));
  return PS_OK;
}

/* Decodes the scalar x, inputs[idx] of dir/public.json. */
static int dec_scalar(const cJSON *x, fr_t *out, const char *dir, int idx, ps_err *e) {
  const char *hexs = cJSON_GetStringValue(x);
  uint8_t b[32];
  if (!hexs)
    return ps_fail(e, PS_EINPUT, "%s/public.json: inputs[%d]: expected 64 hex digits of an integer below r, got %s",
                   dir, idx, jkind(x));
  if (unhex(hexs, b, 32))
    return ps_fail(e, PS_EINPUT,
                   "%s/public.json: inputs[%d]: expected 64 hex digits of an integer below r, got %zu characters%s",
                   dir, idx, strlen(hexs), strlen(hexs) == 64 ? " with a non-hex digit" : "");
  if (fr_from_bytes(out, b) != FR_OK)
    return ps_fail(e, PS_EINPUT,
                   "%s/public.json: inputs[%d]: expected 64 hex digits of an integer below r, got one >= r", dir, idx);
  return PS_OK;
}

void g16_vk_clear(g16_vk *vk) {
  if (!vk) return;
  free(vk->ic);
  vk->ic = NULL;
  vk->nic = 0;
}

int g16_json_read(const char *dir, g16_vk *vk, g16_proof *p, fr_t **pub, int *npub, ps_err *e) {
  cJSON *po = NULL, *vo = NULL, *uo = NULL;
  g16_proof pr; /* copied to *p on success */
  memset(vk, 0, sizeof *vk);
  *pub = NULL;
  *npub = 0;
  int rc;
  if ((rc = load_obj(dir, "proof.json", "provesim.groth16.proof/1", &po, e))) goto out;
  if ((rc = load_obj(dir, "vk.json", "provesim.groth16.vk/1", &vo, e))) goto out;
  if ((rc = load_obj(dir, "public.json", "provesim.groth16.public/1", &uo, e))) goto out;
#define GET(o, k) cJSON_GetObjectItemCaseSensitive(o, k)
  if ((rc = dec_point(GET(po, "a"), 0, &pr.a, dir, "proof.json", "a", -1, e)) ||
      (rc = dec_point(GET(po, "b"), 1, &pr.b, dir, "proof.json", "b", -1, e)) ||
      (rc = dec_point(GET(po, "c"), 0, &pr.c, dir, "proof.json", "c", -1, e)) ||
      (rc = dec_point(GET(vo, "alpha_g1"), 0, &vk->alpha_g1, dir, "vk.json", "alpha_g1", -1, e)) ||
      (rc = dec_point(GET(vo, "beta_g2"), 1, &vk->beta_g2, dir, "vk.json", "beta_g2", -1, e)) ||
      (rc = dec_point(GET(vo, "gamma_g2"), 1, &vk->gamma_g2, dir, "vk.json", "gamma_g2", -1, e)) ||
      (rc = dec_point(GET(vo, "delta_g2"), 1, &vk->delta_g2, dir, "vk.json", "delta_g2", -1, e)))
    goto out;
  const cJSON *ic = GET(vo, "ic"), *in = GET(uo, "inputs"), *x;
#undef GET
  if (!cJSON_IsArray(ic) || cJSON_GetArraySize(ic) < 1) {
    rc = ps_fail(e, PS_EINPUT, "%s/vk.json: ic: expected an array of at least one hex string, got %s", dir,
                 jkind(ic));
    goto out;
  }
  vk->nic = cJSON_GetArraySize(ic);
  vk->ic = xmalloc((size_t)vk->nic * sizeof *vk->ic);
  int i = 0;
  cJSON_ArrayForEach(x, ic) {
    if ((rc = dec_point(x, 0, &vk->ic[i], dir, "vk.json", "ic", i, e))) goto out;
    i++;
  }
  if (!cJSON_IsArray(in)) {
    rc = ps_fail(e, PS_EINPUT, "%s/public.json: inputs: expected an array of hex strings, got %s", dir, jkind(in));
    goto out;
  }
  *npub = cJSON_GetArraySize(in);
  *pub = xmalloc((size_t)(*npub ? *npub : 1) * sizeof **pub);
  i = 0;
  cJSON_ArrayForEach(x, in) {
    if ((rc = dec_scalar(x, &(*pub)[i], dir, i, e))) goto out;
    i++;
  }
  /* Said here, where both files are known, rather than by g16_verify. */
  if (*npub != vk->nic - 1) {
    rc = ps_fail(e, PS_EINPUT, "%s/public.json: inputs: expected %d public inputs (%s/vk.json has %d ic points), got %d",
                 dir, vk->nic - 1, dir, vk->nic, *npub);
    goto out;
  }
  *p = pr;
  rc = PS_OK;
out:
  if (rc) {
    g16_vk_clear(vk);
    free(*pub);
    *pub = NULL;
    *npub = 0;
  }
  cJSON_Delete(po);
  cJSON_Delete(vo);
  cJSON_Delete(uo);
  return rc;
}
