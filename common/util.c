/* Implementation of common/util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

int ps_fail(ps_err *e, int code, const char *fmt, ...) {
  if (e) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
  }
  return code;
}

static void oom(size_t n) {
  fprintf(stderr, "provesim: out of memory allocating %zu bytes\n", n);
  abort();
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom(n);
  return p;
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) oom(n * size);
  return p;
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom(n);
  return q;
}

char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = xmalloc(n);
  memcpy(p, s, n);
  return p;
}

char *xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n < 0) oom(0);
  return s;
}

void ps__assert_fail(const char *what, const char *file, int line) {
  fprintf(stderr, "provesim: internal error: %s:%d: assertion failed: %s\n", file, line, what);
  abort();
}

double ps_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ps_deadline_in(struct timespec *ts, double s) {
  clock_gettime(CLOCK_REALTIME, ts);
  long ns = ts->tv_nsec + (long)(s * 1e9);
  ts->tv_sec += ns / 1000000000L;
  ts->tv_nsec = ns % 1000000000L;
}

void ps_buf_append(ps_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

void ps_buf_vprintf(ps_buf *b, const char *fmt, va_list ap) {
  char tmp[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof tmp) {
    ps_buf_append(b, tmp, (size_t)n);
  } else {
    char *big = xmalloc((size_t)n + 1);
    vsnprintf(big, (size_t)n + 1, fmt, ap2);
    ps_buf_append(b, big, (size_t)n);
    free(big);
  }
  va_end(ap2);
}

void ps_buf_printf(ps_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ps_buf_vprintf(b, fmt, ap);
  va_end(ap);
}

void ps_buf_json_str(ps_buf *b, const char *s) {
  ps_buf_append(b, "\"", 1);
  for (const char *p = s; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if (c == '"' || c == '\\') {
      char t[2] = {'\\', (char)c};
      ps_buf_append(b, t, 2);
    } else if (c < 0x20) {
      ps_buf_printf(b, "\\u%04x", c);
    } else {
      ps_buf_append(b, p, 1);
    }
  }
  ps_buf_append(b, "\"", 1);
}

int ps_csv_split(const char *s, char *out, char ***f, int **col, int *cap) {
  int n = 0;
  const char *p = s;
  for (;;) {
    if (n == *cap) {
      *cap = *cap ? 2 * *cap : 16;
      *f = xrealloc(*f, (size_t)*cap * sizeof **f);
      *col = xrealloc(*col, (size_t)*cap * sizeof **col);
    }
    while (*p == ' ' || *p == '\t') p++;
    (*col)[n] = (int)(p - s) + 1;
    (*f)[n] = out;
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p) return -(int)((*col)[n]);
        if (*p == '"' && p[1] == '"') *out++ = *p++;
        else if (*p == '"') break;
        else *out++ = *p;
      }
      p++;
      while (*p == ' ' || *p == '\t') p++;
      if (*p && *p != ',') return -(int)(p - s + 1);
    } else {
      char *o0 = out;
      while (*p && *p != ',') *out++ = *p++;
      while (out > o0 && (out[-1] == ' ' || out[-1] == '\t')) out--;
    }
    *out++ = 0;
    n++;
    if (!*p) return n;
    p++; /* the comma */
  }
}

void ps_buf_free(ps_buf *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

int ps_write_file_atomic(const char *path, const char *data, size_t n, ps_err *e) {
  ps_outfile o;
  if (ps_out_open(&o, path, e) != PS_OK) return PS_ERR;
  if (fwrite(data, 1, n, o.f) != n) {
    int rc = ps_fail(e, PS_ERR, "%s: cannot write: %s", path, strerror(errno));
    ps_out_abort(&o);
    return rc;
  }
  return ps_out_commit(&o, e);
}

/* A target that exists and is not a regular file — a device (/dev/null), a FIFO, or a
 * symbolic link (/dev/stdout, or a link to a file elsewhere) — is written in place:
 * renaming over it would replace the device or the link with a file. */
/* Temporary files of outputs not yet committed, removed by a SIGINT, SIGTERM or SIGHUP
 * handler before the signal takes its default course, so an interrupted run leaves no
 * "name.tmp.PID" behind. A fixed table of slots, claimed and released with atomics, keeps
 * the handler async-signal-safe (it only calls unlink, signal and raise). */
#define TMP_SLOTS 16
static char *volatile tmp_slots[TMP_SLOTS];

static void on_fatal_signal(int sig) {
  for (int i = 0; i < TMP_SLOTS; i++) {
    char *t = tmp_slots[i];
    if (t) unlink(t);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

static void tmp_track(char *t) {
  static int installed;
  if (!__atomic_exchange_n(&installed, 1, __ATOMIC_SEQ_CST)) {
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int i = 0; i < 3; i++) {
      struct sigaction old;
      /* Keep a handler the program installed itself (measure's Ctrl-C stops the run). */
      if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) signal(sigs[i], on_fatal_signal);
    }
  }
  for (int i = 0; i < TMP_SLOTS; i++) {
    char *expect = NULL;
    if (__atomic_compare_exchange_n(&tmp_slots[i], &expect, t, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
  }
}

static void tmp_untrack(char *t) {
  for (int i = 0; i < TMP_SLOTS; i++) {
    char *expect = t;
    if (__atomic_compare_exchange_n(&tmp_slots[i], &expect, NULL, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
  }
}

int ps_out_open(ps_outfile *o, const char *path, ps_err *e) {
  struct stat st;
  o->path = (char *)path;
  o->tmp = NULL;
  if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    o->f = fopen(path, "w");
  } else {
    o->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    tmp_track(o->tmp);
    o->f = fopen(o->tmp, "w");
  }
  if (!o->f) {
    int rc = ps_fail(e, PS_ERR, "%s: cannot write: %s", path, strerror(errno));
    if (o->tmp) tmp_untrack(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return rc;
  }
  return PS_OK;
}

int ps_out_commit(ps_outfile *o, ps_err *e) {
  int bad = ferror(o->f) | (fclose(o->f) != 0);
  int err = errno;
  o->f = NULL;
  if (!bad && o->tmp && rename(o->tmp, o->path) != 0) {
    bad = 1;
    err = errno;
  }
  if (o->tmp) tmp_untrack(o->tmp);
  if (bad) {
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return ps_fail(e, PS_ERR, "%s: cannot write: %s", o->path, strerror(err));
  }
  free(o->tmp);
  o->tmp = NULL;
  return PS_OK;
}

void ps_out_abort(ps_outfile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp) {
    tmp_untrack(o->tmp);
    unlink(o->tmp);
  }
  free(o->tmp);
  o->tmp = NULL;
}

void ps_buf_csv_field(ps_buf *b, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    ps_buf_append(b, s, strlen(s));
    return;
  }
  ps_buf_append(b, "\"", 1);
  for (const char *p = s; *p; p++) {
    if (*p == '"') ps_buf_append(b, "\"", 1);
    ps_buf_append(b, p, 1);
  }
  ps_buf_append(b, "\"", 1);
}

int ps_out_check(const char *path, ps_err *e) {
  struct stat st;
  if (!path || !*path) return ps_fail(e, PS_EINPUT, "expected an output file name, got nothing");
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return ps_fail(e, PS_EINPUT, "%s: cannot write: it is a folder", path);
    if (!S_ISREG(st.st_mode)) return access(path, W_OK) == 0 ? PS_OK : ps_fail(e, PS_EINPUT, "%s: cannot write: %s", path, strerror(errno));
  }
  /* A new or regular file is written beside itself and renamed: its folder must take it. */
  const char *slash = strrchr(path, '/');
  char *dir = slash ? (slash == path ? xstrdup("/") : xasprintf("%.*s", (int)(slash - path), path)) : xstrdup(".");
  int rc = PS_OK;
  if (stat(dir, &st) != 0)
    rc = ps_fail(e, PS_EINPUT, "%s: cannot write: the folder %s does not exist", path, dir);
  else if (!S_ISDIR(st.st_mode))
    rc = ps_fail(e, PS_EINPUT, "%s: cannot write: %s is not a folder", path, dir);
  else if (access(dir, W_OK | X_OK) != 0)
    rc = ps_fail(e, PS_EINPUT, "%s: cannot write: the folder %s: %s", path, dir, strerror(errno));
  free(dir);
  return rc;
}

int ps_write_stdout(const char *data, size_t n, ps_err *e) {
  errno = 0;
  if ((n && fwrite(data, 1, n, stdout) != n) || fflush(stdout) != 0 || ferror(stdout))
    return ps_fail(e, PS_ERR, "standard output: cannot write: %s", strerror(errno ? errno : EIO));
  return PS_OK;
}

void ps_out_remove(const char *path) {
  struct stat st;
  if (path && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) unlink(path);
}

void ps_buf_csv_num(ps_buf *b, double v) {
  if (isfinite(v))
    ps_buf_printf(b, ",%.9g", v);
  else
    ps_buf_append(b, ",", 1);
}

int ps_parse_ll(const char *v, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || end == v || *end || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

int ps_parse_int(const char *v, long lo, long hi, int *out) {
  long long x;
  if (ps_parse_ll(v, lo, hi, &x)) return -1;
  *out = (int)x;
  return 0;
}

int ps_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ps_sort_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, ps_cmp_double);
  return v[n / 2];
}

int ps_parse_num(const char *v, double *out) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || end == v || *end || !isfinite(x)) return -1;
  *out = x;
  return 0;
}
