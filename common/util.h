/* Small helpers every part of provesim uses: allocation that aborts with the byte count
 * on out-of-memory (so call sites stay clean), an error buffer that recoverable errors
 * fill for the caller to print, and assertions that name file and line. */
#ifndef PROVESIM_UTIL_H
#define PROVESIM_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of the provesim binary. */
#define PS_EXIT_OK 0
#define PS_EXIT_FAIL 1  /* a run failed (I/O, GPU, a bug) */
#define PS_EXIT_USAGE 2 /* bad input: arguments, scenario, model */

/* The most GPUs a scenario, a measurement or a spans file may have (the loader, the spans
 * reader and the window module all check against this one figure). */
#define PS_MAX_GPUS 1024

/* Return codes of recoverable errors. */
#define PS_OK 0
#define PS_ERR -1   /* failure not caused by the input (I/O, device) */
#define PS_EINPUT -2 /* bad input; the message says where and what was expected */

/* The exit code of a failed call's return code: bad input (PS_EINPUT) exits
 * PS_EXIT_USAGE, any other failure PS_EXIT_FAIL. */
static inline int ps_exit_failed(int rc) { return rc == PS_EINPUT ? PS_EXIT_USAGE : PS_EXIT_FAIL; }

/* The exit code of any return code: PS_OK exits PS_EXIT_OK, a failure as ps_exit_failed. */
static inline int ps_exit_code(int rc) { return rc == PS_OK ? PS_EXIT_OK : ps_exit_failed(rc); }

/* An error message filled by a failing function; the caller prints it. code is the
 * failure's kind (PS_ERR or PS_EINPUT), for callers that get only a NULL back. */
typedef struct ps_err {
  char msg[1024];
  int code;
} ps_err;

/* Fill e (may be NULL) with a printf-style message and code; returns code, for `return
 * ps_fail(...)`. */
int ps_fail(ps_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* qsort's comparison of doubles, ascending. */
int ps_cmp_double(const void *a, const void *b);
/* Sorts v[0..n-1] (n >= 1) ascending and returns v[n / 2]: the median of an odd n, the
 * upper of the middle two of an even n (prover-bench's median of its runs). */
double ps_sort_median(double *v, size_t n);

/* An integer in [lo, hi] / a finite number, the whole of v; 0, or -1 (out unchanged). */
int ps_parse_int(const char *v, long lo, long hi, int *out);
int ps_parse_ll(const char *v, long long lo, long long hi, long long *out);
int ps_parse_num(const char *v, double *out);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A bug: an invariant that must hold. Prints file:line and aborts. */
#define PS_ASSERT(cond)                                                            \
  do {                                                                             \
    if (!(cond)) ps__assert_fail(#cond, __FILE__, __LINE__);                       \
  } while (0)
void ps__assert_fail(const char *what, const char *file, int line) __attribute__((noreturn));

/* Monotonic clock in seconds (CLOCK_MONOTONIC). */
double ps_now(void);
/* *ts (a struct timespec) set to s seconds from now on CLOCK_REALTIME, the clock of a
 * pthread_cond_timedwait deadline. */
struct timespec;
void ps_deadline_in(struct timespec *ts, double s);

/* Growable byte buffer, used for output that must appear whole or not at all. */
typedef struct ps_buf {
  char *p;
  size_t len, cap;
} ps_buf;
void ps_buf_printf(ps_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ps_buf_vprintf(ps_buf *b, const char *fmt, va_list ap);
void ps_buf_append(ps_buf *b, const char *s, size_t n);
void ps_buf_free(ps_buf *b);
/* Appends s as one CSV field (RFC 4180): quoted, with quotes doubled, when it holds a
 * comma, a quote, a carriage return or a newline; as is otherwise. */
void ps_buf_csv_field(ps_buf *b, const char *s);
/* Appends ",number" (9 significant digits), or "," alone when v is not finite: the CSV
 * cell of a value that does not apply. */
void ps_buf_csv_num(ps_buf *b, double v);
/* Splits a CSV line (RFC 4180 quoting, no newline inside a field) into fields written to
 * out (which holds at least 2 * strlen(s) + 2 bytes; each field NUL-terminated, unquoted
 * fields trimmed of blanks), pointed to by (*f)[i], with their starting columns (*col)[i]
 * (1-based); *f and *col grow as needed (caller frees; *cap their capacity, 0 at first).
 * Returns the number of fields, or -(column) of a quoting error. */
int ps_csv_split(const char *s, char *out, char ***f, int **col, int *cap);
/* Appends s as a JSON string literal (quotes, \" \\ and \u00XX escapes). */
void ps_buf_json_str(ps_buf *b, const char *s);

/* Write n bytes to path atomically: a temporary file beside it, then rename. Nothing is
 * left behind on failure. Returns PS_OK or PS_ERR with e filled. */
int ps_write_file_atomic(const char *path, const char *data, size_t n, ps_err *e);

/* An output file that appears whole or not at all: written to a temporary name beside
 * the target and renamed by ps_out_commit; ps_out_abort removes it. A target that exists
 * and is not a regular file (/dev/null, a FIFO, a symbolic link such as /dev/stdout) is
 * written in place. */
typedef struct ps_outfile {
  FILE *f;
  char *path; /* borrowed */
  char *tmp;  /* NULL when writing in place */
} ps_outfile;
int ps_out_open(ps_outfile *o, const char *path, ps_err *e);
/* Before any work: PS_OK when path can be written as an output (it is not a folder, and
 * its folder exists and is writable, or it is an existing file that is not regular, such
 * as /dev/null); otherwise PS_EINPUT with e naming the path and the reason. */
int ps_out_check(const char *path, ps_err *e);
/* Removes an output this run wrote, when a later output failed; only a regular file is
 * removed (never /dev/null or a device written in place). */
void ps_out_remove(const char *path);
/* Writes n bytes to standard output and flushes it; PS_ERR with e filled when that fails
 * (a full disk, a closed pipe), so no command reports success for output that is lost. */
int ps_write_stdout(const char *data, size_t n, ps_err *e);
int ps_out_commit(ps_outfile *o, ps_err *e); /* closes; PS_OK or PS_ERR (nothing left behind) */
void ps_out_abort(ps_outfile *o);             /* closes and removes; accepts an unopened o */

#ifdef __cplusplus
}
#endif

#endif
