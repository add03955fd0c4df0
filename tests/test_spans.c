/* Check suite of the spans reader (common/spans.c) on hostile input: every bad file is
 * PS_EINPUT with a message naming the file, the line and the problem; nothing blocks,
 * nothing grows without bound, no out-of-range conversion; and a good file reads back
 * what was written. */
#define _GNU_SOURCE
#include "ck.h"
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include <sys/resource.h>
#include <zlib.h>

#include "spans.h"

static char *write_tmp(const char *text) {
  char *path = xstrdup("/tmp/provesim-test-spans-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  size_t n = strlen(text);
  ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
  close(fd);
  return path;
}

static int count_cb(void *ctx, const span_rec *r) {
  (void)r;
  ++*(int *)ctx;
  return 0;
}

#define HDR "{\"schema\":\"provesim.spans/1\",\"source\":\"sim\",\"scenario\":\"x\"}\n"

/* Reads the spans file at p; returns the code, with the message in msg. */
static int read_path(const char *p, char *msg, size_t n, int *count) {
  ps_err e = {0};
  int c = 0;
  int rc = spans_read(p, NULL, count_cb, &c, &e);
  snprintf(msg, n, "%s", e.msg);
  if (count) *count = c;
  return rc;
}

/* Reads text as a spans file. */
static int read_text(const char *text, char *msg, size_t n, int *count) {
  char *p = write_tmp(text);
  int rc = read_path(p, msg, n, count);
  unlink(p);
  free(p);
  return rc;
}

static void bad(const char *text, const char *want) {
  char msg[1024];
  ck_assert_int_eq(read_text(text, msg, sizeof msg, NULL), PS_EINPUT);
  ck_assert_msg(strstr(msg, want) && strstr(msg, "/tmp/provesim-test-spans-"), "message \"%s\", wanted \"%s\"", msg, want);
}

START_TEST(good_file_reads_back) {
  ps_buf b = {0};
  span_header h = {.source = "sim", .scenario = "s"};
  spans_format_header(&b, &h);
  int64_t parts[] = {3, 4};
  span_rec r = {.kind = SPAN_PHASE, .rep = 1, .gpu = 2, .worker = 0, .call = 7, .partitions = parts,
                .npartitions = 2, .phase = "msm", .resource = "gpu", .t0 = 1.5, .t1 = 2.25};
  spans_format(&b, &r);
  char msg[1024];
  int n = 0;
  ck_assert_int_eq(read_text(b.p, msg, sizeof msg, &n), PS_OK);
  ck_assert_int_eq(n, 1);
  ps_buf_free(&b);
}
END_TEST

static int cpu_cb(void *ctx, const span_rec *r) {
  *(double *)ctx = r->cpu_s;
  return 0;
}

/* A phase span's cpu_s (measure: the CPU seconds the phase used): written when above 0 with
 * nine decimals, read back, 0 when absent; negative, too large or not a number is refused
 * naming the line and the member. */
START_TEST(phase_cpu_seconds) {
  ps_buf b = {0};
  span_header h = {.source = "prover", .scenario = "s"};
  spans_format_header(&b, &h);
  span_rec r = {.kind = SPAN_PHASE, .rep = 0, .gpu = 0, .worker = 1, .call = 2, .phase = "synth", .resource = "cpu",
                .threads = 7, .cpu_s = 0.123456789, .t0 = 1, .t1 = 1.25};
  spans_format(&b, &r);
  ck_assert_ptr_nonnull(strstr(b.p, "\"threads\":7,\"cpu_s\":0.123456789,\"t0\""));
  char *p = write_tmp(b.p);
  ps_err e = {0};
  double got = -1;
  ck_assert_int_eq(spans_read(p, NULL, cpu_cb, &got, &e), PS_OK);
  ck_assert(got == 0.123456789);
  unlink(p);
  free(p);
  b.len = 0;
  spans_format_header(&b, &h);
  r.cpu_s = 0;
  spans_format(&b, &r);
  ck_assert_ptr_null(strstr(b.p, "cpu_s"));
  p = write_tmp(b.p);
  got = -1;
  ck_assert_int_eq(spans_read(p, NULL, cpu_cb, &got, &e), PS_OK);
  ck_assert(got == 0);
  unlink(p);
  free(p);
  ps_buf_free(&b);
  bad(HDR "{\"phase\":\"p\",\"cpu_s\":-0.5,\"t0\":0,\"t1\":1}\n", ":2: cpu_s: expected seconds from 0 to 1e+09");
  bad(HDR "{\"phase\":\"p\",\"cpu_s\":1e300,\"t0\":0,\"t1\":1}\n", ":2: cpu_s: expected seconds");
  bad(HDR "{\"phase\":\"p\",\"cpu_s\":\"1\",\"t0\":0,\"t1\":1}\n", ":2: cpu_s: expected seconds");
}
END_TEST

static int cores_cb(void *ctx, const span_header *h) {
  *(int *)ctx = h->cpu_cores;
  return 0;
}

/* The header's cpu_cores: written when known, read back, 0 when absent, and checked. */
START_TEST(header_cpu_cores) {
  ps_buf b = {0};
  span_header h = {.source = "prover", .scenario = "s", .cpu_cores = 4};
  spans_format_header(&b, &h);
  ck_assert_ptr_nonnull(strstr(b.p, ",\"cpu_cores\":4}"));
  int cores = -1;
  ps_err e = {0};
  char *p = write_tmp(b.p);
  ck_assert_int_eq(spans_read(p, cores_cb, NULL, &cores, &e), PS_OK);
  ck_assert_int_eq(cores, 4);
  unlink(p);
  free(p);
  /* without a span callback the spans are still read and checked */
  p = write_tmp(HDR "{\"phase\":\"p\",\"t0\":0,\"t1\":1}\n");
  ck_assert_int_eq(spans_read(p, cores_cb, NULL, &cores, &e), PS_OK);
  ck_assert_int_eq(cores, 0);
  unlink(p);
  free(p);
  p = write_tmp(HDR "{\"phase\":\"p\",\"t0\":2,\"t1\":1}\n");
  ck_assert_int_eq(spans_read(p, cores_cb, NULL, &cores, &e), PS_EINPUT);
  unlink(p);
  free(p);
  bad("{\"schema\":\"provesim.spans/1\",\"cpu_cores\":0}\n", ":1: cpu_cores: expected an integer from 1 to 1048576");
  bad("{\"schema\":\"provesim.spans/1\",\"cpu_cores\":\"4\"}\n", ":1: cpu_cores: expected an integer");
  bad("{\"schema\":\"provesim.spans/1\",\"cpu_cores\":2.5}\n", ":1: cpu_cores: expected an integer");
  ps_buf_free(&b);
}
END_TEST

static int steal_cb(void *ctx, const span_header *h) {
  *(double *)ctx = spans_header_steal(h);
  return 0;
}

static double read_steal(const char *text) {
  char *p = write_tmp(text);
  double v = -2;
  ps_err e = {0};
  ck_assert_int_eq(spans_read(p, steal_cb, NULL, &v, &e), PS_OK);
  unlink(p);
  free(p);
  return v;
}

/* The header's host_steal: a value, a slot that reads null until filled, and checked. */
START_TEST(header_host_steal) {
  ps_buf b = {0};
  span_header h = {.source = "prover", .scenario = "s", .steal = SPANS_STEAL_VALUE, .host_steal = 0.0625};
  ck_assert_int_eq(spans_format_header(&b, &h), -1);
  ck_assert_ptr_nonnull(strstr(b.p, ",\"host_steal\":0.062500}"));
  ck_assert_double_eq_tol(read_steal(b.p), 0.0625, 1e-12);
  b.len = 0;
  /* a slot: null (not recorded) as written, the value once filled, the line's length kept */
  h.steal = SPANS_STEAL_SLOT;
  ps_buf_printf(&b, "x");
  long at = spans_format_header(&b, &h);
  ck_assert_int_gt(at, 1);
  size_t len = b.len;
  ck_assert_double_eq(read_steal(b.p + 1), -1);
  spans_put_steal(b.p + at, 0.125);
  ck_assert_uint_eq(b.len, len);
  ck_assert_double_eq_tol(read_steal(b.p + 1), 0.125, 1e-12);
  spans_put_steal(b.p + at, 1.0);
  ck_assert_double_eq(read_steal(b.p + 1), 1.0);
  spans_put_steal(b.p + at, 7.0); /* clamped: a share */
  ck_assert_double_eq(read_steal(b.p + 1), 1.0);
  /* none written when not recorded */
  b.len = 0;
  h.steal = SPANS_STEAL_NONE;
  spans_format_header(&b, &h);
  ck_assert_ptr_null(strstr(b.p, "host_steal"));
  ck_assert_double_eq(read_steal(b.p), -1);
  bad("{\"schema\":\"provesim.spans/1\",\"host_steal\":1.5}\n", ":1: host_steal: expected a share from 0 to 1");
  bad("{\"schema\":\"provesim.spans/1\",\"host_steal\":-0.1}\n", ":1: host_steal: expected a share");
  bad("{\"schema\":\"provesim.spans/1\",\"host_steal\":\"0.1\"}\n", ":1: host_steal: expected a share");
  ps_buf_free(&b);
}
END_TEST

static int seed_cb(void *ctx, const span_header *h) {
  *(int64_t *)ctx = h->has_seed ? h->seed : -1;
  return 0;
}

/* The header's seed (measure's run.seed, from which validate draws its arrivals again):
 * written when recorded, read back exactly up to 2^53, checked. */
START_TEST(header_seed) {
  ps_buf b = {0};
  ps_err e = {0};
  const int64_t seeds[] = {0, 5, (int64_t)1 << 53};
  for (int i = 0; i < 3; i++) {
    span_header h = {.source = "prover", .scenario = "s", .has_seed = 1, .seed = seeds[i]};
    b.len = 0;
    spans_format_header(&b, &h);
    char *p = write_tmp(b.p);
    int64_t got = -2;
    ck_assert_int_eq(spans_read(p, seed_cb, NULL, &got, &e), PS_OK);
    ck_assert_int_eq(got, seeds[i]);
    unlink(p);
    free(p);
  }
  span_header h = {.source = "sim", .scenario = "s"};
  b.len = 0;
  spans_format_header(&b, &h);
  ck_assert_ptr_null(strstr(b.p, "seed"));
  char *p = write_tmp(b.p);
  int64_t got = -2;
  ck_assert_int_eq(spans_read(p, seed_cb, NULL, &got, &e), PS_OK);
  ck_assert_int_eq(got, -1);
  unlink(p);
  free(p);
  bad("{\"schema\":\"provesim.spans/1\",\"seed\":-1}\n", ":1: seed: expected an integer from 0 to 2^53");
  bad("{\"schema\":\"provesim.spans/1\",\"seed\":1e300}\n", ":1: seed: expected an integer");
  bad("{\"schema\":\"provesim.spans/1\",\"seed\":\"5\"}\n", ":1: seed: expected an integer");
  bad("{\"schema\":\"provesim.spans/1\",\"seed\":2.5}\n", ":1: seed: expected an integer");
  ps_buf_free(&b);
}
END_TEST

static int rendezvous_cb(void *ctx, const span_header *h) {
  *(int *)ctx = h->rendezvous;
  return 0;
}

/* The header's rendezvous (measure --rendezvous): written only when set, read back,
 * anything but true or false refused naming the key. */
START_TEST(header_rendezvous) {
  ps_buf b = {0};
  ps_err e = {0};
  for (int rv = 0; rv < 2; rv++) {
    span_header h = {.source = "prover", .scenario = "s", .rendezvous = rv};
    b.len = 0;
    spans_format_header(&b, &h);
    ck_assert_int_eq(strstr(b.p, "\"rendezvous\":true") != NULL, rv);
    char *p = write_tmp(b.p);
    int got = -1;
    ck_assert_int_eq(spans_read(p, rendezvous_cb, NULL, &got, &e), PS_OK);
    ck_assert_int_eq(got, rv);
    unlink(p);
    free(p);
  }
  char *p = write_tmp("{\"schema\":\"provesim.spans/1\",\"rendezvous\":false}\n");
  int got = -1;
  ck_assert_int_eq(spans_read(p, rendezvous_cb, NULL, &got, &e), PS_OK);
  ck_assert_int_eq(got, 0);
  unlink(p);
  free(p);
  bad("{\"schema\":\"provesim.spans/1\",\"rendezvous\":1}\n", ":1: rendezvous: expected true or false");
  bad("{\"schema\":\"provesim.spans/1\",\"rendezvous\":\"yes\"}\n", ":1: rendezvous: expected true or false");
  ps_buf_free(&b);
}
END_TEST

START_TEST(wrong_schema_named_not_freed) {
  /* The message once printed the schema after freeing it (ASan: use after free). */
  bad("{\"schema\":\"something-else/9\"}\n", ":1: schema: expected \"provesim.spans/1\" in the first line, got \"something-else/9\"");
  bad("{\"a\":1}\n", ":1: schema: expected \"provesim.spans/1\" in the first line, got none");
}
END_TEST

START_TEST(ids_out_of_range) {
  bad(HDR "{\"rep\":0,\"gpu\":100000000,\"worker\":0,\"call\":0,\"phase\":\"p\",\"t0\":0,\"t1\":1}\n",
      ":2: gpu: expected an integer from 0 to 1023");
  bad(HDR "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":1e30,\"phase\":\"p\",\"t0\":0,\"t1\":1}\n",
      ":2: call: expected an integer from -1 to 2^53");
  bad(HDR "{\"rep\":-3,\"gpu\":0,\"phase\":\"p\",\"t0\":0,\"t1\":1}\n", ":2: rep: expected an integer");
  bad(HDR "{\"rep\":0,\"gpu\":0.5,\"phase\":\"p\",\"t0\":0,\"t1\":1}\n", ":2: gpu: expected an integer");
  bad(HDR "{\"rep\":0,\"gpu\":0,\"worker\":9999999,\"phase\":\"p\",\"t0\":0,\"t1\":1}\n", ":2: worker: expected");
  bad(HDR "{\"rep\":0,\"gpu\":0,\"phase\":\"p\",\"partitions\":[1,1e300],\"t0\":0,\"t1\":1}\n",
      ":2: partitions: expected integers");
}
END_TEST

START_TEST(times_and_trailing_text) {
  bad(HDR "{\"phase\":\"p\",\"t0\":2,\"t1\":1}\n", ":2: expected numbers t0 <= t1");
  bad(HDR "{\"phase\":\"p\",\"t0\":0,\"t1\":1e308}\n", ":2: expected numbers t0 <= t1");
  bad(HDR "{\"phase\":\"p\",\"t0\":0,\"t1\":1} trailing\n", ":2: expected one JSON object per line, got text after it");
  bad(HDR "[1,2]\n", ":2: expected a JSON object per line");
}
END_TEST

START_TEST(long_line_bounded) {
  /* A line of 2 MiB without a newline: refused at the limit, not read whole. */
  size_t n = 2u << 20;
  char *t = xmalloc(n + sizeof HDR + 1);
  strcpy(t, HDR);
  memset(t + strlen(HDR), 'x', n);
  t[strlen(HDR) + n] = 0;
  bad(t, ":2: expected lines of at most 1048576 bytes");
  free(t);
}
END_TEST

START_TEST(fifo_and_folder_refused) {
  char dir[] = "/tmp/provesim-test-spans-fifo-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char *fifo = xasprintf("%s/f.jsonl", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ps_err e = {0};
  int c = 0;
  ck_assert_int_eq(spans_read(fifo, NULL, count_cb, &c, &e), PS_EINPUT); /* does not block */
  ck_assert_msg(strstr(e.msg, "not a regular file"), "%s", e.msg);
  ck_assert_int_eq(spans_sniff(fifo), 0);
  ck_assert_int_eq(spans_read(dir, NULL, count_cb, &c, &e), PS_EINPUT);
  unlink(fifo);
  rmdir(dir);
  free(fifo);
}
END_TEST

/* The one JSON string writer (ps_buf_json_str, used by spans, traces and proofs) and the
 * one CSV field writer (ps_buf_csv_field): what they write reads back as the same string. */
/* Gzip through zlib: concatenated members read in turn; data after the last member, a
 * truncated member and a .gz name over plain text are refused; and a small file that
 * inflates to 256 MiB without a newline stops at the line limit in bounded memory. */
static char *write_gz(const char *const *members, int n, const char *tail, size_t tail_len) {
  char *path = xstrdup("/tmp/provesim-test-spans-XXXXXX.gz");
  int fd = mkstemps(path, 3);
  ck_assert_int_ge(fd, 0);
  for (int i = 0; i < n; i++) {
    unsigned char out[4096];
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)members[i];
    z.avail_in = (uInt)strlen(members[i]);
    z.next_out = out;
    z.avail_out = sizeof out;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    ssize_t len = (ssize_t)(sizeof out - z.avail_out);
    ck_assert_int_eq(write(fd, out, (size_t)len), len);
    deflateEnd(&z);
  }
  if (tail_len) ck_assert_int_eq(write(fd, tail, tail_len), (ssize_t)tail_len);
  close(fd);
  return path;
}

START_TEST(gzip_through_zlib) {
  const char *span = "{\"rep\":0,\"gpu\":0,\"worker\":0,\"call\":0,\"phase\":\"a\",\"resource\":\"cpu\",\"t0\":0,\"t1\":1}\n";
  const char *m[] = {HDR, span, span};
  char msg[1024];
  int count = 0;
  char *p = write_gz(m, 3, NULL, 0);
  ck_assert_int_eq(read_path(p, msg, sizeof msg, &count), PS_OK);
  ck_assert_int_eq(count, 2);
  ck_assert_int_eq(spans_sniff(p), 1);
  unlink(p), free(p);

  p = write_gz(m, 2, "garbage!", 8);
  ck_assert_int_eq(read_path(p, msg, sizeof msg, NULL), PS_EINPUT);
  ck_assert_msg(strstr(msg, "followed by other data"), "%s", msg);
  unlink(p), free(p);

  /* Truncated: the first member cut in half. */
  p = write_gz(m, 2, NULL, 0);
  struct stat st;
  ck_assert_int_eq(stat(p, &st), 0);
  ck_assert_int_eq(truncate(p, st.st_size / 2), 0);
  ck_assert_int_eq(read_path(p, msg, sizeof msg, NULL), PS_EINPUT);
  ck_assert_msg(strstr(msg, "truncated"), "%s", msg);
  unlink(p), free(p);

  p = write_gz(m, 0, HDR, strlen(HDR));
  ck_assert_int_eq(read_path(p, msg, sizeof msg, NULL), PS_EINPUT);
  ck_assert_msg(strstr(msg, "not gzip"), "%s", msg);
  unlink(p), free(p);

  /* 32 MiB of 'x' (32 times the line limit) in a gzip file of about 32 KiB, deflated 1 MiB at a time so this
   * process never holds it. */
  char *q = xstrdup("/tmp/provesim-test-spans-XXXXXX.gz");
  int fd = mkstemps(q, 3);
  ck_assert_int_ge(fd, 0);
  size_t blk = (size_t)1 << 20;
  unsigned char *xs = xmalloc(blk), *out = xmalloc(blk);
  memset(xs, 'x', blk);
  z_stream z = {0};
  ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  for (int i = 0; i < 32; i++) {
    z.next_in = xs, z.avail_in = (uInt)blk;
    int zr;
    do {
      z.next_out = out, z.avail_out = (uInt)blk;
      zr = deflate(&z, i == 31 ? Z_FINISH : Z_NO_FLUSH);
      ssize_t len = (ssize_t)(blk - z.avail_out);
      ck_assert_int_eq(write(fd, out, (size_t)len), len);
    } while (z.avail_out == 0 || (i == 31 && zr != Z_STREAM_END));
  }
  deflateEnd(&z);
  close(fd);
  free(xs), free(out);
  struct rusage ru0, ru1;
  getrusage(RUSAGE_SELF, &ru0);
  ck_assert_int_eq(read_path(q, msg, sizeof msg, NULL), PS_EINPUT);
  getrusage(RUSAGE_SELF, &ru1);
  ck_assert_msg(strstr(msg, ":1: expected lines of at most"), "%s", msg);
  /* The peak grew by at most a line's limit and the buffers (ru_maxrss in KiB). */
  ck_assert_msg(ru1.ru_maxrss - ru0.ru_maxrss < 64 * 1024, "peak RSS grew by %ld KiB", ru1.ru_maxrss - ru0.ru_maxrss);
  unlink(q), free(q);
}
END_TEST

/* The writer formats times by hand; they must be printf's "%.9f" to the byte: 100,000 random
 * doubles of every magnitude a time has, dyadic fractions (exact ties at the ninth
 * decimal among them), negatives and zeros. */
START_TEST(times_as_printf) {
  uint64_t st = 0x9E3779B97F4A7C15ull;
  char want[64];
  for (int i = 0; i < 100000; i++) {
    st ^= st << 13, st ^= st >> 7, st ^= st << 17;
    double x;
    switch (i % 4) {
    case 0: x = (double)(st >> 11) / 9007199254740992.0 * pow(10, (int)(st % 19) - 9); break; /* 1e-9 .. 1e9 */
    case 1: x = (double)(st % 1000000000000ull) / 1e9; break;                                 /* whole ns */
    case 2: x = ldexp((double)(st % (1ull << 40)), -(int)(st >> 58) - 1); break;             /* dyadic */
    default: x = (double)(int64_t)(st % 2000000) / 2e9 - 5e-4; break;                        /* half ns */
    }
    if (i % 7 == 3) x = -x;
    ps_buf b = {0};
    span_rec r = {.kind = SPAN_PHASE, .phase = "p", .resource = "cpu", .t0 = x, .t1 = i == 0 ? -0.0 : 0.0};
    spans_format(&b, &r);
    snprintf(want, sizeof want, ",\"t0\":%.9f,\"t1\":%.9f}", x, r.t1);
    ck_assert_msg(strstr(b.p, want), "%.17g: got %s, want %s", x, b.p, want);
    ps_buf_free(&b);
  }
}
END_TEST

START_TEST(json_and_csv_escaping) {
  static const char *const cases[] = {"plain", "quote \" and \\ backslash", "tab\tnew\nline\rcr", "\x01\x1f ctl",
                                      "utf-8: \xc3\xa9\xe2\x82\xac", "", "a,b", NULL};
  for (int i = 0; cases[i]; i++) {
    ps_buf b = {0};
    ps_buf_json_str(&b, cases[i]);
    cJSON *j = cJSON_ParseWithLength(b.p, b.len);
    ck_assert_msg(cJSON_IsString(j), "not a JSON string: %s", b.p);
    ck_assert_str_eq(j->valuestring, cases[i]);
    cJSON_Delete(j);
    ps_buf_free(&b);
  }
  ps_buf c = {0};
  ps_buf_csv_field(&c, "a,\"b\"\nc");
  ps_buf_append(&c, "", 1);
  ck_assert_str_eq(c.p, "\"a,\"\"b\"\"\nc\"");
  ps_buf_free(&c);
  ps_buf d = {0};
  ps_buf_csv_field(&d, "plain_name-1");
  ps_buf_append(&d, "", 1);
  ck_assert_str_eq(d.p, "plain_name-1");
  ps_buf_free(&d);
}
END_TEST

int main(void) {
  Suite *su = suite_create("spans");
  TCase *tc = tcase_create("reader");
  tcase_add_test(tc, good_file_reads_back);
  tcase_add_test(tc, phase_cpu_seconds);
  tcase_add_test(tc, wrong_schema_named_not_freed);
  tcase_add_test(tc, header_cpu_cores);
  tcase_add_test(tc, header_host_steal);
  tcase_add_test(tc, header_seed);
  tcase_add_test(tc, header_rendezvous);
  tcase_add_test(tc, ids_out_of_range);
  tcase_add_test(tc, times_and_trailing_text);
  tcase_add_test(tc, long_line_bounded);
  tcase_add_test(tc, fifo_and_folder_refused);
  tcase_add_test(tc, json_and_csv_escaping);
  tcase_add_test(tc, gzip_through_zlib);
  tcase_add_test(tc, times_as_printf);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
