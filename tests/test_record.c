/* Check suite of `provesim record`'s arithmetic and command line without a GPU
 * (measure/record.c): a recording's kernel-busy time per device is the union of its
 * kernels (overlapping streams count once), clipped to the window; memcpys and NVTX
 * ranges are counted, not busy; the header's start on the monotonic clock and the kernel
 * streams survive the spans writer and reader; a committed H200 recording gives the same
 * busy time as a plain sweep over its intervals written here; and the command's errors
 * (no program, no injection library) exit as documented. */
#define _GNU_SOURCE
#include "ck.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "spans.h"

static char dir[] = "/tmp/provesim-rec-XXXXXX";

static void add(ps_buf *b, span_kind k, int gpu, double t0, double t1, int64_t stream) {
  span_rec r = {.kind = k, .gpu = gpu, .worker = -1, .call = -1, .name = k == SPAN_KERNEL ? "k" : "memcpy HtoD",
                .stream = stream, .t0 = t0, .t1 = t1};
  spans_format(b, &r);
}

static char *write_rec(const char *name, const ps_buf *body, double t0m) {
  char *p = xasprintf("%s/%s", dir, name);
  ps_buf b = {0};
  span_header h = {.source = "record", .scenario = "t", .t0_monotonic = t0m};
  spans_format_header(&b, &h);
  ps_buf_append(&b, body->p, body->len);
  FILE *f = fopen(p, "w");
  fwrite(b.p, 1, b.len, f);
  fclose(f);
  ps_buf_free(&b);
  return p;
}

/* GPU 0: kernels [0,1] and [0.5,2] on two streams, [3,4]; a memcpy [1,3]. GPU 1: [1,2].
 * Busy over [0, 4]: GPU 0 = 2 + 1 = 3, GPU 1 = 1; over [1.5, 3.5]: 0.5 + 0.5 and 0.5. */
START_TEST(union_and_window) {
  ps_buf b = {0};
  add(&b, SPAN_KERNEL, 0, 0, 1, 8);
  add(&b, SPAN_KERNEL, 0, 0.5, 2, 14);
  add(&b, SPAN_KERNEL, 0, 3, 4, 8);
  add(&b, SPAN_MEMCPY, 0, 1, 3, 8);
  add(&b, SPAN_KERNEL, 1, 1, 2, 1);
  span_rec nv = {.kind = SPAN_PHASE, .gpu = 0, .worker = 0, .call = -1, .phase = "step", .resource = "none", .t0 = 0, .t1 = 4};
  spans_format(&b, &nv);
  char *p = write_rec("a.jsonl", &b, 12345.5);
  record_summary s;
  ps_err e;
  ck_assert_int_eq(record_summarize(p, 0, 4, &s, &e), PS_OK);
  ck_assert_int_eq(s.ngpus, 2);
  ck_assert_double_eq_tol(s.busy[0], 3, 1e-9);
  ck_assert_double_eq_tol(s.busy[1], 1, 1e-9);
  ck_assert_int_eq(s.kernels[0], 3);
  ck_assert_int_eq(s.memcpys[0], 1);
  ck_assert_int_eq(s.nvtx, 1);
  ck_assert_double_eq_tol(s.t0_monotonic, 12345.5, 1e-9);
  ck_assert_double_eq_tol(s.last, 4, 1e-12);
  ck_assert_int_eq(record_summarize(p, 1.5, 3.5, &s, &e), PS_OK);
  ck_assert_double_eq_tol(s.busy[0], 1.0, 1e-9);
  ck_assert_double_eq_tol(s.busy[1], 0.5, 1e-9);
  /* w1 = NaN: up to the last kernel's end. */
  ck_assert_int_eq(record_summarize(p, 0, NAN, &s, &e), PS_OK);
  ck_assert_double_eq_tol(s.w1, 4, 1e-12);
  free(p);
  ps_buf_free(&b);
}
END_TEST

static int on_k(void *ctx, const span_rec *r) {
  if (r->kind == SPAN_KERNEL) ck_assert_int_eq(r->stream, *(int64_t *)ctx);
  return 0;
}

static int on_w(void *ctx, const span_rec *r) {
  if (r->kind == SPAN_KERNEL) *(int *)ctx = r->worker;
  return 0;
}

/* The launching thread of a kernel (record's worker) survives the writer and reader. */
START_TEST(kernel_thread_roundtrip) {
  ps_buf b = {0};
  span_rec r = {.kind = SPAN_KERNEL, .gpu = 0, .worker = 3, .call = -1, .name = "k", .t0 = 0, .t1 = 1};
  spans_format(&b, &r);
  ck_assert_ptr_nonnull(strstr(b.p, "\"worker\":3"));
  char *p = write_rec("w.jsonl", &b, 0);
  int w = -9;
  ps_err e;
  ck_assert_int_eq(spans_read(p, NULL, on_w, &w, &e), PS_OK);
  ck_assert_int_eq(w, 3);
  free(p);
  ps_buf_free(&b);
}
END_TEST

START_TEST(stream_roundtrip_and_errors) {
  ps_buf b = {0};
  add(&b, SPAN_KERNEL, 0, 0, 1, 8);
  char *p = write_rec("s.jsonl", &b, 0);
  int64_t want = 8;
  ps_err e;
  ck_assert_int_eq(spans_read(p, NULL, on_k, &want, &e), PS_OK);
  FILE *f = fopen(p, "r");
  char line[512];
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  ck_assert_ptr_null(strstr(line, "t0_monotonic")); /* 0: not written */
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  ck_assert_ptr_nonnull(strstr(line, "\"stream\":7"));
  ck_assert_ptr_null(strstr(line, "\"worker\"")); /* -1: no launching thread written */
  fclose(f);
  /* A bad stream is an input error naming the line. */
  f = fopen(p, "a");
  fputs("{\"rep\":0,\"gpu\":0,\"kind\":\"kernel\",\"name\":\"k\",\"stream\":-3,\"t0\":0,\"t1\":1}\n", f);
  fclose(f);
  record_summary s;
  ck_assert_int_eq(record_summarize(p, 0, 1, &s, &e), PS_EINPUT);
  ck_assert_msg(strstr(e.msg, "s.jsonl:3: stream: expected an integer"), "%s", e.msg);
  free(p);
  ps_buf_free(&b);
}
END_TEST

/* The committed H200 recording: record_summarize against a plain sweep written here. */
typedef struct iv {
  double a, b;
} iv;
static int ivcmp(const void *x, const void *y) {
  const iv *p = x, *q = y;
  return (p->a > q->a) - (p->a < q->a);
}

START_TEST(committed_recording) {
  const char *root = getenv("PROVESIM_SRC");
  char *gz = xasprintf("%s/tests/data/record/h200-prove.jsonl.gz", root ? root : ".");
  if (access(gz, R_OK) != 0) {
    free(gz);
    return; /* not committed yet */
  }
  record_summary s;
  ps_err e;
  ck_assert_msg(record_summarize(gz, 0, NAN, &s, &e) == PS_OK, "%s", e.msg);
  ck_assert(s.kernels[0] > 100);
  /* Independent: every kernel line of GPU 0, sorted, swept. */
  char *cmd = xasprintf("gzip -dc '%s'", gz);
  FILE *f = popen(cmd, "r");
  free(cmd);
  ck_assert_ptr_nonnull(f);
  char line[8192];
  iv *v = NULL;
  size_t n = 0, cap = 0;
  while (fgets(line, sizeof line, f)) {
    if (!strstr(line, "\"kind\":\"kernel\"") || !strstr(line, "\"gpu\":0,")) continue;
    double a, b;
    char *p = strstr(line, "\"t0\":"), *q = strstr(line, "\"t1\":");
    ck_assert(p && q);
    a = strtod(p + 5, NULL), b = strtod(q + 5, NULL);
    if (n == cap) v = xrealloc(v, (cap = cap ? 2 * cap : 1024) * sizeof *v);
    v[n++] = (iv){a, b};
  }
  pclose(f);
  qsort(v, n, sizeof *v, ivcmp);
  double busy = 0, end = -INFINITY;
  for (size_t i = 0; i < n; i++) {
    double a = v[i].a > end ? v[i].a : end;
    if (v[i].b > a) busy += v[i].b - a;
    if (v[i].b > end) end = v[i].b;
  }
  ck_assert_int_eq((long)n, (long)s.kernels[0]);
  ck_assert_double_eq_tol(s.busy[0], busy, 1e-6 * busy);
  free(v);
  free(gz);
}
END_TEST

static int run(const char *args, char **err) {
  const char *bin = getenv("PROVESIM_BIN");
  char *errf = xasprintf("%s/err.txt", dir);
  char *cmd = xasprintf("cd %s && PROVESIM_RECORD_LIB=/nonexistent/lib.so %s %s 2>%s >/dev/null", dir, bin ? bin : "provesim",
                        args, errf);
  int st = system(cmd);
  FILE *f = fopen(errf, "r");
  *err = xcalloc(1, 4096);
  if (f) {
    size_t k = fread(*err, 1, 4095, f);
    (*err)[k] = 0;
    fclose(f);
  }
  free(cmd), free(errf);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(command_errors) {
  char *err;
  ck_assert_int_eq(run("record", &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "expected the program to record"));
  free(err);
  ck_assert_int_eq(run("record --duration -1 -- true", &err), 2);
  ck_assert_ptr_nonnull(strstr(err, "--duration: expected seconds > 0"));
  free(err);
  ck_assert_int_eq(run("record -o out.jsonl -- true", &err), 1);
  ck_assert_ptr_nonnull(strstr(err, "no injection library"));
  ck_assert(access("out.jsonl", F_OK) != 0);
  free(err);
}
END_TEST

int main(void) {
  if (!mkdtemp(dir)) return 1;
  Suite *su = suite_create("record");
  TCase *tc = tcase_create("record");
  tcase_add_test(tc, union_and_window);
  tcase_add_test(tc, stream_roundtrip_and_errors);
  tcase_add_test(tc, kernel_thread_roundtrip);
  tcase_add_test(tc, committed_recording);
  tcase_add_test(tc, command_errors);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  char *rm = xasprintf("rm -rf %s", dir);
  if (system(rm)) {
  }
  free(rm);
  return nf ? 1 : 0;
}
