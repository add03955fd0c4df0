/* Implementation of common/spans.h with cJSON for reading and hand-formatted lines for
 * writing (writing is on the simulator's hot path when --spans is on). */
#define _GNU_SOURCE
#include "spans.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

long spans_format_header(ps_buf *b, const span_header *h) {
  ps_buf_printf(b, "{\"schema\":\"%s\",\"source\":", SPANS_SCHEMA);
  ps_buf_json_str(b, h->source ? h->source : "sim");
  ps_buf_printf(b, ",\"scenario\":");
  ps_buf_json_str(b, h->scenario ? h->scenario : "");
  ps_buf_printf(b, ",\"t_unit\":\"s\"");
  if (h->host) {
    ps_buf_printf(b, ",\"host\":");
    ps_buf_json_str(b, h->host);
  }
  if (h->gpu) {
    ps_buf_printf(b, ",\"gpu\":");
    ps_buf_json_str(b, h->gpu);
  }
  if (h->cpu) {
    ps_buf_printf(b, ",\"cpu\":");
    ps_buf_json_str(b, h->cpu);
  }
  if (h->cpu_cores > 0) ps_buf_printf(b, ",\"cpu_cores\":%d", h->cpu_cores);
  long slot = -1;
  if (h->steal == SPANS_STEAL_SLOT) {
    /* "null" padded to the slot's width: valid JSON now, and after spans_put_steal */
    ps_buf_printf(b, ",\"host_steal\":");
    slot = (long)b->len;
    ps_buf_printf(b, "%-*s", SPANS_STEAL_WIDTH, "null");
  } else if (h->steal == SPANS_STEAL_VALUE) {
    ps_buf_printf(b, ",\"host_steal\":%.6f", h->host_steal);
  }
  if (h->t0_monotonic > 0) ps_buf_printf(b, ",\"t0_monotonic\":%.9f", h->t0_monotonic);
  if (h->has_seed) ps_buf_printf(b, ",\"seed\":%lld", (long long)h->seed);
  if (h->rendezvous) ps_buf_printf(b, ",\"rendezvous\":true");
  ps_buf_append(b, "}\n", 2);
  return slot;
}

void spans_put_steal(char *slot, double v) {
  char t[32];
  snprintf(t, sizeof t, "%.6f", v >= 0 && v <= 1 ? v : v > 1 ? 1.0 : 0.0); /* 0.xxxxxx or 1.000000 */
  memcpy(slot, t, SPANS_STEAL_WIDTH);
}

/* Formatting a span is the cost of `simulate --spans` (6 spans a partition in the seed
 * scenario), so numbers are written by hand, with the bytes printf gives. */
static char *put_u64(char *p, uint64_t v) {
  char t[20];
  int n = 0;
  do t[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  while (n) *p++ = t[--n];
  return p;
}

static char *put_i64(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return put_u64(p, (uint64_t)0 - (uint64_t)v);
  }
  return put_u64(p, (uint64_t)v);
}

/* x as printf's "%.9f" writes it: the exact binary value rounded to nine decimals, ties
 * to even. x = m 2^e exactly; m 10^9 fits 83 bits. Beyond 2^53 s or not finite: printf. */
static char *put_fixed9(char *p, double x) {
  if (!isfinite(x) || fabs(x) >= 9007199254740992.0) return p + sprintf(p, "%.9f", x);
  if (signbit(x)) *p++ = '-', x = -x;
  int e;
  double f = frexp(x, &e);
  uint64_t m = (uint64_t)ldexp(f, 53);
  e -= 53;
  unsigned __int128 q = (unsigned __int128)m * 1000000000u;
  if (e >= 0) {
    q <<= e;
  } else if (-e >= 128) {
    q = 0; /* below 2^-75: nowhere near half a nanosecond */
  } else {
    int sh = -e;
    unsigned __int128 r = q & (((unsigned __int128)1 << sh) - 1), half = (unsigned __int128)1 << (sh - 1);
    q >>= sh;
    if (r > half || (r == half && (q & 1))) q++;
  }
  p = put_u64(p, (uint64_t)(q / 1000000000u));
  *p++ = '.';
  uint64_t frac = (uint64_t)(q % 1000000000u);
  for (int i = 8; i >= 0; i--) p[i] = (char)('0' + frac % 10), frac /= 10;
  return p + 9;
}

static char *put_str(char *p, const char *s, size_t n) {
  memcpy(p, s, n);
  return p + n;
}
#define PUT_LIT(p, lit) put_str(p, lit, sizeof lit - 1)

void spans_format(ps_buf *b, const span_rec *r) {
  char buf[256], *p = buf;
  p = PUT_LIT(p, "{\"rep\":");
  p = put_i64(p, r->rep);
  p = PUT_LIT(p, ",\"gpu\":");
  p = put_i64(p, r->gpu);
  if (r->kind == SPAN_PHASE) {
    p = PUT_LIT(p, ",\"worker\":");
    p = put_i64(p, r->worker);
    p = PUT_LIT(p, ",\"call\":");
    p = put_i64(p, r->call);
    ps_buf_append(b, buf, (size_t)(p - buf));
    p = buf;
    if (r->npartitions > 0) {
      p = PUT_LIT(p, ",\"partitions\":[");
      for (int i = 0; i < r->npartitions; i++) {
        if (p - buf > (int)sizeof buf - 24) ps_buf_append(b, buf, (size_t)(p - buf)), p = buf;
        if (i) *p++ = ',';
        p = put_i64(p, r->partitions[i]);
      }
      *p++ = ']';
    }
    p = PUT_LIT(p, ",\"phase\":");
    ps_buf_append(b, buf, (size_t)(p - buf));
    ps_buf_json_str(b, r->phase);
    p = buf;
    p = PUT_LIT(p, ",\"resource\":");
    ps_buf_append(b, buf, (size_t)(p - buf));
    ps_buf_json_str(b, r->resource ? r->resource : "none");
    p = buf;
    if (r->threads > 0) {
      p = PUT_LIT(p, ",\"threads\":");
      p = put_i64(p, r->threads);
    }
    if (r->cpu_s > 0) {
      p = PUT_LIT(p, ",\"cpu_s\":");
      p = put_fixed9(p, r->cpu_s);
    }
  } else {
    if (r->worker >= 0) { /* the launching thread (record) */
      p = PUT_LIT(p, ",\"worker\":");
      p = put_i64(p, r->worker);
    }
    p = r->kind == SPAN_KERNEL ? PUT_LIT(p, ",\"kind\":\"kernel\",\"name\":") : PUT_LIT(p, ",\"kind\":\"memcpy\",\"name\":");
    ps_buf_append(b, buf, (size_t)(p - buf));
    ps_buf_json_str(b, r->name ? r->name : "");
    p = buf;
    if (r->stream > 0) {
      p = PUT_LIT(p, ",\"stream\":");
      p = put_i64(p, r->stream - 1);
    }
  }
  p = PUT_LIT(p, ",\"t0\":");
  p = put_fixed9(p, r->t0);
  p = PUT_LIT(p, ",\"t1\":");
  p = put_fixed9(p, r->t1);
  p = PUT_LIT(p, "}\n");
  ps_buf_append(b, buf, (size_t)(p - buf));
}

static int num_val(const cJSON *x, double *v) {
  if (!cJSON_IsNumber(x)) return -1;
  *v = x->valuedouble;
  return 0;
}

static int num(const cJSON *o, const char *k, double *v) {
  return num_val(cJSON_GetObjectItemCaseSensitive(o, k), v);
}

/* An optional integer member x within [lo, hi] (def when absent). -1 when present but not
 * such an integer: a float-to-integer conversion out of range is undefined behaviour. */
static int int_val(const cJSON *x, double lo, double hi, int64_t def, int64_t *out) {
  if (!x) {
    *out = def;
    return 0;
  }
  if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi) || x->valuedouble != floor(x->valuedouble))
    return -1;
  *out = (int64_t)x->valuedouble;
  return 0;
}

static int int_member(const cJSON *o, const char *k, double lo, double hi, int64_t def, int64_t *out) {
  return int_val(cJSON_GetObjectItemCaseSensitive(o, k), lo, hi, def, out);
}

/* The first member name that appears twice in o, or NULL. cJSON would silently use the
 * first of them; a file that says two things at once is refused. O(n^2) in the members,
 * which a line of at most SPANS_MAX_LINE bytes keeps small enough only for short objects,
 * so objects with many members are checked by the caller's known keys instead. */
static const char *dup_member(const cJSON *o) {
  int n = 0;
  for (const cJSON *a = o->child; a; a = a->next, n++)
    if (n > 64) return NULL;
  for (const cJSON *a = o->child; a; a = a->next)
    for (const cJSON *b = a->next; b; b = b->next)
      if (a->string && b->string && !strcmp(a->string, b->string)) return a->string;
  return NULL;
}

static const char *str_val(const cJSON *x) {
  return cJSON_IsString(x) ? x->valuestring : NULL;
}

static const char *str(const cJSON *o, const char *k) {
  return str_val(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* The members a span line may have, found in one pass over its object: a lookup each by
 * name was a search of the members, and the duplicate check one of every pair, the most
 * of a reading's time. */
enum { SK_REP, SK_GPU, SK_WORKER, SK_CALL, SK_KIND, SK_T0, SK_T1, SK_NAME, SK_STREAM, SK_PHASE, SK_RESOURCE,
       SK_THREADS, SK_PARTITIONS, SK_CPU_S, SK_N };

static int sk_index(const char *k) {
  switch (k[0]) {
  case 'r': return !strcmp(k, "rep") ? SK_REP : !strcmp(k, "resource") ? SK_RESOURCE : -1;
  case 'g': return !strcmp(k, "gpu") ? SK_GPU : -1;
  case 'w': return !strcmp(k, "worker") ? SK_WORKER : -1;
  case 'c': return !strcmp(k, "call") ? SK_CALL : !strcmp(k, "cpu_s") ? SK_CPU_S : -1;
  case 'k': return !strcmp(k, "kind") ? SK_KIND : -1;
  case 't': return !strcmp(k, "t0") ? SK_T0 : !strcmp(k, "t1") ? SK_T1 : !strcmp(k, "threads") ? SK_THREADS : -1;
  case 'n': return !strcmp(k, "name") ? SK_NAME : -1;
  case 's': return !strcmp(k, "stream") ? SK_STREAM : -1;
  case 'p': return !strcmp(k, "phase") ? SK_PHASE : !strcmp(k, "partitions") ? SK_PARTITIONS : -1;
  default: return -1;
  }
}

/* Fills m[SK_N] with o's known members (the first of a name) and returns what dup_member
 * does: it is asked only when a name may appear twice (a known one seen again, or two or
 * more unknown ones), so its answer, and its message, are those of every line before. */
static const char *span_members(const cJSON *o, const cJSON **m) {
  memset(m, 0, SK_N * sizeof *m);
  int again = 0, unknown = 0;
  for (const cJSON *a = o->child; a; a = a->next) {
    int k = a->string ? sk_index(a->string) : -1;
    if (k < 0) unknown++;
    else if (m[k]) again = 1;
    else m[k] = a;
  }
  return again || unknown > 1 ? dup_member(o) : NULL;
}

/* A spans file is read plain, or through zlib's inflate when it begins with gzip's magic
 * bytes (the committed measurements are gzipped): memory stays two buffers and one line
 * whatever the file inflates to. A name ending in .gz must hold gzip data; concatenated
 * gzip members are read in turn, and anything else after the last one is refused (gzip -dc
 * says "trailing garbage" there too). */
typedef struct spans_in {
  FILE *f;
  int gz, zdone, zerr; /* zerr: a corrupt, truncated or foreign gzip stream */
  z_stream z;
  unsigned char in[1 << 16], out[1 << 16];
  size_t have, next;   /* bytes of out not yet taken */
} spans_in;

static spans_in *open_spans(const char *path) {
  struct stat st;
  /* A FIFO or a device would block or never end: only regular files are read. */
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  spans_in *r = xcalloc(1, sizeof *r);
  r->f = f;
  int c0 = getc(f), c1 = getc(f);
  size_t n = strlen(path);
  r->gz = c0 == 0x1f && c1 == 0x8b;
  rewind(f);
  if (r->gz) {
    /* 16 + 15: gzip framing, the largest window. */
    if (inflateInit2(&r->z, 16 + 15) != Z_OK) r->zerr = 1;
  } else if (n > 3 && !strcmp(path + n - 3, ".gz")) {
    r->zerr = 1;
  }
  return r;
}

static void close_spans(spans_in *r) {
  if (r->gz) inflateEnd(&r->z);
  fclose(r->f);
  free(r);
}

/* Refills r->out; 0 at the end of the data (or on an error: r->zerr). */
static int spans_fill(spans_in *r) {
  r->next = r->have = 0;
  if (r->zerr) return 0;
  if (!r->gz) return (int)(r->have = fread(r->out, 1, sizeof r->out, r->f)) > 0;
  while (!r->zdone && r->have == 0) {
    if (r->z.avail_in == 0) {
      r->z.avail_in = (uInt)fread(r->in, 1, sizeof r->in, r->f);
      r->z.next_in = r->in;
      if (r->z.avail_in == 0) { /* the file ended inside a member */
        r->zerr = 1;
        return 0;
      }
    }
    r->z.next_out = r->out;
    r->z.avail_out = sizeof r->out;
    int zr = inflate(&r->z, Z_NO_FLUSH);
    r->have = sizeof r->out - r->z.avail_out;
    if (zr == Z_STREAM_END) {
      /* Another member, nothing, or trailing garbage. */
      if (r->z.avail_in == 0) {
        r->z.avail_in = (uInt)fread(r->in, 1, sizeof r->in, r->f);
        r->z.next_in = r->in;
      }
      if (r->z.avail_in == 0) r->zdone = 1;
      else if (r->z.avail_in >= 2 && r->z.next_in[0] == 0x1f && r->z.next_in[1] == 0x8b) inflateReset(&r->z);
      else r->zerr = 1, r->zdone = 1;
    } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
      r->zerr = 1;
      return 0;
    }
  }
  return r->have > 0;
}

static int spans_getc(spans_in *r) {
  if (r->next == r->have && !spans_fill(r)) return EOF;
  return r->out[r->next++];
}

int spans_sniff(const char *path) {
  spans_in *f = open_spans(path);
  if (!f) return 0;
  char line[512];
  size_t n = 0;
  int c;
  while (n + 1 < sizeof line && (c = spans_getc(f)) != EOF && c != '\n') line[n++] = (char)c;
  line[n] = 0;
  close_spans(f);
  return strstr(line, SPANS_SCHEMA) != NULL;
}

/* Reads one line of at most max bytes into *buf (grown as needed, without its newline);
 * returns its length, -1 at the end of the file (or a read error: see gz_failed), -2 when
 * the line is longer than max (so a file without newlines, /dev/zero say, cannot take the
 * memory). */
static long read_line(spans_in *f, char **buf, size_t *cap, size_t max) {
  size_t n = 0;
  int c = 0;
  while ((c = spans_getc(f)) != EOF && c != '\n') {
    if (n == max) return -2;
    if (n + 1 >= *cap) {
      *cap = *cap ? 2 * *cap : 4096;
      *buf = xrealloc(*buf, *cap);
    }
    (*buf)[n++] = (char)c;
  }
  if (c == EOF && n == 0) return -1;
  if (!*buf) *buf = xmalloc(*cap = 1);
  (*buf)[n] = 0;
  return (long)n;
}

int spans_read(const char *path, spans_hdr_fn hdr_fn, spans_rec_fn fn, void *ctx, ps_err *e) {
  spans_in *f = open_spans(path);
  if (!f) return ps_fail(e, PS_EINPUT, "%s: cannot open: %s", path, errno == EINVAL ? "not a regular file" : strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  long n;
  long lineno = 0;
  int rc = PS_OK, seen_header = 0;
  int64_t *parts = NULL;
  int partcap = 0;
  while ((n = read_line(f, &line, &cap, SPANS_MAX_LINE)) != -1) {
    lineno++;
    if (n == -2) {
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: expected lines of at most %d bytes", path, lineno, SPANS_MAX_LINE);
      break;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (n == 0) continue;
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithOpts(line, &end, 0);
    if (cJSON_IsObject(o)) {
      while (end && (*end == ' ' || *end == '\t')) end++;
      if (!end || *end) {
        cJSON_Delete(o);
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: expected one JSON object per line, got text after it", path, lineno);
        break;
      }
    } else {
      cJSON_Delete(o);
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: expected a JSON object per line", path, lineno);
      break;
    }
    const cJSON *m[SK_N];
    const char *dup = seen_header ? span_members(o, m) : dup_member(o);
    if (dup) {
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: %.64s: expected each key once, got it twice", path, lineno, dup);
      cJSON_Delete(o);
      break;
    }
    if (!seen_header) {
      const char *schema = str(o, "schema");
      if (!schema || strcmp(schema, SPANS_SCHEMA) != 0) {
        /* The message first: schema points into o. */
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: schema: expected \"%s\" in the first line, got %s%.64s%s", path,
                     lineno, SPANS_SCHEMA, schema ? "\"" : "", schema ? schema : "none", schema ? "\"" : "");
        cJSON_Delete(o);
        break;
      }
      const cJSON *tu = cJSON_GetObjectItemCaseSensitive(o, "t_unit");
      if (tu && !(cJSON_IsString(tu) && !strcmp(tu->valuestring, "s"))) {
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: t_unit: expected \"s\" (times in seconds)%s%.32s%s", path, lineno,
                     cJSON_IsString(tu) ? ", got \"" : "", cJSON_IsString(tu) ? tu->valuestring : "",
                     cJSON_IsString(tu) ? "\"" : "");
        cJSON_Delete(o);
        break;
      }
      seen_header = 1;
      span_header h = {str(o, "source"), str(o, "scenario"), str(o, "host"), str(o, "gpu"), str(o, "cpu"), 0, 0, SPANS_STEAL_NONE, 0, 0, 0, 0};
      double t0m;
      if (!num(o, "t0_monotonic", &t0m) && t0m > 0 && t0m < 1e12) h.t0_monotonic = t0m;
      int64_t cores;
      if (int_member(o, "cpu_cores", 1, 1 << 20, 0, &cores)) {
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: cpu_cores: expected an integer from 1 to 1048576 (the cores the run had)",
                     path, lineno);
        cJSON_Delete(o);
        break;
      }
      h.cpu_cores = (int)cores;
      int64_t seed;
      if (int_member(o, "seed", 0, 9007199254740992.0, -1, &seed)) {
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: seed: expected an integer from 0 to 2^53 (the run's seed)", path, lineno);
        cJSON_Delete(o);
        break;
      }
      if (seed >= 0) h.has_seed = 1, h.seed = seed;
      const cJSON *rv = cJSON_GetObjectItemCaseSensitive(o, "rendezvous");
      if (rv && !cJSON_IsBool(rv)) {
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: rendezvous: expected true or false (measure --rendezvous)", path, lineno);
        cJSON_Delete(o);
        break;
      }
      h.rendezvous = cJSON_IsTrue(rv);
      const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "host_steal");
      if (st && !cJSON_IsNull(st)) {
        if (!cJSON_IsNumber(st) || !(st->valuedouble >= 0 && st->valuedouble <= 1)) {
          rc = ps_fail(e, PS_EINPUT, "%s:%ld: host_steal: expected a share from 0 to 1 (or null: not recorded)",
                       path, lineno);
          cJSON_Delete(o);
          break;
        }
        h.host_steal = st->valuedouble;
        h.steal = SPANS_STEAL_VALUE;
      }
      if (hdr_fn) rc = hdr_fn(ctx, &h);
      cJSON_Delete(o);
      if (rc) break;
      continue;
    }
    span_rec r = {0};
    int64_t rep, gpu, worker, call;
    const char *bad = int_val(m[SK_REP], 0, SPANS_MAX_REP, 0, &rep)                  ? "rep: expected an integer from 0 to 1000000"
                      : int_val(m[SK_GPU], 0, PS_MAX_GPUS - 1, 0, &gpu)              ? "gpu: expected an integer from 0 to 1023"
                      : int_val(m[SK_WORKER], -1, SPANS_MAX_WORKER, -1, &worker)     ? "worker: expected an integer from -1 to 100000"
                      : int_val(m[SK_CALL], -1, 9007199254740992.0, -1, &call)       ? "call: expected an integer from -1 to 2^53"
                                                                                       : NULL;
    if (bad) {
      cJSON_Delete(o);
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: %s", path, lineno, bad);
      break;
    }
    r.rep = (int)rep, r.gpu = (int)gpu, r.worker = (int)worker, r.call = call;
    const char *kind = str_val(m[SK_KIND]);
    if (num_val(m[SK_T0], &r.t0) || num_val(m[SK_T1], &r.t1) || !(r.t1 >= r.t0) || !isfinite(r.t0) || !isfinite(r.t1) ||
        fabs(r.t0) > SPANS_MAX_T || fabs(r.t1) > SPANS_MAX_T) {
      cJSON_Delete(o);
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: expected numbers t0 <= t1, in seconds within +-1e9", path, lineno);
      break;
    }
    if (m[SK_KIND] &&
        !(kind && (strcmp(kind, "kernel") == 0 || strcmp(kind, "memcpy") == 0))) {
      cJSON_Delete(o);
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: kind: expected \"kernel\" or \"memcpy\" (or no kind: a phase span)", path, lineno);
      break;
    }
    if (kind) {
      r.kind = kind[0] == 'k' ? SPAN_KERNEL : SPAN_MEMCPY;
      r.name = str_val(m[SK_NAME]);
      if (!r.name) {
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: name: expected a string (the %s's name)", path, lineno,
                     r.kind == SPAN_KERNEL ? "kernel" : "memcpy");
        cJSON_Delete(o);
        break;
      }
      if (m[SK_STREAM]) {
        int64_t st;
        if (int_val(m[SK_STREAM], 0, 9007199254740992.0, 0, &st)) {
          cJSON_Delete(o);
          rc = ps_fail(e, PS_EINPUT, "%s:%ld: stream: expected an integer from 0 to 2^53 (the CUDA stream)", path, lineno);
          break;
        }
        r.stream = st + 1;
      }
    } else {
      r.kind = SPAN_PHASE;
      r.phase = str_val(m[SK_PHASE]);
      r.resource = str_val(m[SK_RESOURCE]);
      if (!r.phase) {
        cJSON_Delete(o);
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: phase: expected a string (or kind: kernel|memcpy)", path, lineno);
        break;
      }
      const cJSON *res = m[SK_RESOURCE];
      if (res && !(r.resource && (!strcmp(r.resource, "cpu") || !strcmp(r.resource, "gpu") ||
                                  !strcmp(r.resource, "pcie") || !strcmp(r.resource, "none")))) {
        cJSON_Delete(o);
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: resource: expected cpu, gpu, pcie or none", path, lineno);
        break;
      }
      if (m[SK_THREADS]) {
        int64_t th;
        if (int_val(m[SK_THREADS], 1, SPANS_MAX_THREADS, 0, &th)) {
          cJSON_Delete(o);
          rc = ps_fail(e, PS_EINPUT, "%s:%ld: threads: expected an integer from 1 to %d (the threads the phase ran with)",
                       path, lineno, SPANS_MAX_THREADS);
          break;
        }
        r.threads = (int)th;
      }
      if (m[SK_CPU_S]) {
        double cs;
        if (num_val(m[SK_CPU_S], &cs) || !(cs >= 0 && cs <= SPANS_MAX_T)) {
          cJSON_Delete(o);
          rc = ps_fail(e, PS_EINPUT, "%s:%ld: cpu_s: expected seconds from 0 to %g (the CPU time the phase used)",
                       path, lineno, SPANS_MAX_T);
          break;
        }
        r.cpu_s = cs;
      }
      const cJSON *pa = m[SK_PARTITIONS];
      if (pa && !cJSON_IsArray(pa)) {
        cJSON_Delete(o);
        rc = ps_fail(e, PS_EINPUT, "%s:%ld: partitions: expected an array of integers", path, lineno);
        break;
      }
      if (cJSON_IsArray(pa)) {
        int np = cJSON_GetArraySize(pa);
        if (np > partcap) {
          partcap = np;
          parts = xrealloc(parts, (size_t)partcap * sizeof *parts);
        }
        int i = 0, badp = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, pa) {
          double x = it->valuedouble;
          if (!cJSON_IsNumber(it) || !(x >= 0 && x <= 9007199254740992.0) || x != floor(x)) badp = 1;
          else parts[i++] = (int64_t)x;
        }
        if (badp) {
          cJSON_Delete(o);
          rc = ps_fail(e, PS_EINPUT, "%s:%ld: partitions: expected integers from 0 to 2^53", path, lineno);
          break;
        }
        r.partitions = parts;
        r.npartitions = np;
      }
    }
    rc = fn ? fn(ctx, &r) : 0;
    cJSON_Delete(o);
    if (rc) break;
  }
  if (rc == PS_OK && !seen_header) rc = ps_fail(e, PS_EINPUT, "%s: empty file, expected a provesim.spans/1 header", path);
  free(parts);
  free(line);
  /* A corrupt or truncated gzip file also reads as lines that end early: that is the first
   * thing to say. */
  if (f->zerr)
    rc = ps_fail(e, PS_EINPUT, "%s: expected a gzip file, but it is %s", path,
                 f->gz ? "corrupt, truncated or followed by other data" : "not gzip (its name ends in .gz)");
  else if (ferror(f->f))
    rc = ps_fail(e, PS_EINPUT, "%s: cannot read: %s", path, strerror(errno));
  close_spans(f);
  return rc;
}
