/* The log reader of sim/infer.h (infer_log_read): a daemon's per-call records from CSV with
 * a header row, or JSON Lines, with the columns named on the command line; bounded lines
 * (1 MiB) and record counts; every error names file:line:col and the expectation. */
#define _GNU_SOURCE
#include "infer.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strtab.h"

typedef struct lread {
  FILE *f;
  char *buf; /* INFER_MAX_LINE + 1 bytes */
  size_t len;
  long line;
} lread;


/* The next line into r->buf (NUL-terminated, without its newline or a trailing CR): 1, or
 * 0 at the end of the file, -1 for a line over INFER_MAX_LINE bytes, -2 for a NUL byte. */
static int lread_next(lread *r) {
  int c = getc_unlocked(r->f);
  if (c == EOF) return 0;
  r->line++;
  size_t n = 0;
  for (; c != EOF && c != '\n'; c = getc_unlocked(r->f)) {
    if (c == 0) return -2;
    if (n >= INFER_MAX_LINE) return -1;
    r->buf[n++] = (char)c;
  }
  if (n && r->buf[n - 1] == '\r') n--;
  r->buf[n] = 0;
  r->len = n;
  return 1;
}

static int blank(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return !*s;
}

/* Field text for a message: quoted, cut at 40 characters, control characters shown as
 * '?'; "nothing" when empty. */
static const char *got_text(const char *s, char *out, size_t cap) {
  if (!*s) return "nothing";
  char t[41];
  size_t n = 0;
  for (; s[n] && n < 40; n++) t[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
  t[n] = 0;
  snprintf(out, cap, "\"%s%s\"", t, s[n] ? "..." : "");
  return out;
}

/* What one record says, before it is stored. */
enum { Q_CALL, Q_WAIT, Q_START, Q_WORKER, Q_N };
static const char *const q_flag[Q_N] = {"--call-col", "--wait-col", "--start-col", "--worker-col"};

typedef struct rdr {
  const char *path;
  const infer_cols *c;
  const char *name[Q_N]; /* column names, NULL when not logged */
  infer_log *out;
  size_t cap;
  strtab wh; /* worker names to dense ids */
  ps_err *e;
} rdr;

/* Checks and stores one record's texts (v[q] NULL for a quantity not logged); col[q] is
 * where each value starts on the line. */
static int rdr_record(rdr *R, long line, const char *const *v, const int *col) {
  char g[64];
  double x[3] = {0, 0, 0};
  if (R->out->n >= (size_t)INFER_MAX_RECORDS)
    return ps_fail(R->e, PS_EINPUT, "%s:%ld: expected at most %ld records, got more", R->path, line,
                   INFER_MAX_RECORDS);
  for (int q = Q_CALL; q <= Q_START; q++) {
    if (!R->name[q]) continue;
    char *end;
    errno = 0;
    double d = *v[q] ? strtod(v[q], &end) : NAN;
    int ok = *v[q] && !*end && isfinite(d) && (q == Q_START || d >= 0);
    if (!ok)
      return ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: %s: expected %s in %s (a number%s), got %s", R->path, line, col[q],
                     R->name[q], q == Q_START ? "a time" : "a duration", R->c->unit_name,
                     q == Q_START ? "" : " >= 0", got_text(v[q], g, sizeof g));
    x[q] = d * R->c->unit;
  }
  if (R->name[Q_WAIT] && R->c->wait_in_call && x[Q_CALL] < x[Q_WAIT])
    return ps_fail(R->e, PS_EINPUT,
                   "%s:%ld:%d: %s: expected a call at least as long as its wait (%s: %s), since the call includes "
                   "the wait (--call-is call; --call-is locked when it does not), got %s",
                   R->path, line, col[Q_CALL], R->name[Q_CALL], R->name[Q_WAIT], v[Q_WAIT], v[Q_CALL]);
  int wid = 0;
  if (R->name[Q_WORKER]) {
    if (!*v[Q_WORKER])
      return ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: %s: expected a worker name or number, got nothing", R->path, line,
                     col[Q_WORKER], R->name[Q_WORKER]);
    if ((wid = strtab_id(&R->wh, v[Q_WORKER], INFER_MAX_WORKERS)) < 0)
      return ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: %s: expected at most %d distinct workers, got more", R->path, line,
                     col[Q_WORKER], R->name[Q_WORKER], INFER_MAX_WORKERS);
  }
  infer_log *L = R->out;
  if (L->n == R->cap) {
    R->cap = R->cap ? 2 * R->cap : 1024;
    L->call = xrealloc(L->call, R->cap * sizeof(double));
    if (R->name[Q_WAIT]) L->wait = xrealloc(L->wait, R->cap * sizeof(double));
    if (R->name[Q_START]) L->start = xrealloc(L->start, R->cap * sizeof(double));
    if (R->name[Q_WORKER]) L->worker = xrealloc(L->worker, R->cap * sizeof(int));
  }
  L->call[L->n] = x[Q_CALL];
  if (L->wait) L->wait[L->n] = x[Q_WAIT];
  if (L->start) L->start[L->n] = x[Q_START];
  if (L->worker) L->worker[L->n] = wid;
  L->n++;
  return PS_OK;
}

static int read_csv(rdr *R, lread *L) {
  char **f = NULL, *scratch = xmalloc(2 * (size_t)INFER_MAX_LINE + 4);
  int *col = NULL, cap = 0, rc = PS_OK, idx[Q_N] = {-1, -1, -1, -1}, nhead = 0, got, header = 1;
  while ((got = lread_next(L)) == 1) {
    if (blank(L->buf)) continue;
    char *line = L->buf;
    if (header && L->line == 1 && !strncmp(line, "\xEF\xBB\xBF", 3)) line += 3; /* a UTF-8 byte-order mark */
    int nf = ps_csv_split(line, scratch, &f, &col, &cap);
    if (nf < 0) {
      rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: expected a CSV field (a closing quote, then a comma or the end of "
                   "the line), got %s", R->path, L->line, -nf, got_text(line + (-nf - 1), (char[64]){0}, 64));
      goto out;
    }
    if (header) {
      header = 0;
      nhead = nf;
      for (int q = 0; q < Q_N; q++) {
        if (!R->name[q]) continue;
        for (int i = 0; i < nf; i++)
          if (!strcmp(f[i], R->name[q])) {
            if (idx[q] >= 0) {
              rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: header: expected each column name once, got \"%s\" twice",
                           R->path, L->line, col[i], R->name[q]);
              goto out;
            }
            idx[q] = i;
          }
        if (idx[q] < 0) {
          ps_buf b = {0};
          for (int i = 0; i < nf && b.len < 200; i++)
            ps_buf_printf(&b, "%s%s", i ? ", " : "", got_text(f[i], (char[64]){0}, 64));
          if (b.len >= 200) ps_buf_printf(&b, ", ...");
          rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:1: header: expected a column named \"%s\" (%s), got the columns %s",
                       R->path, L->line, R->name[q], q_flag[q], b.p ? b.p : "(none)");
          ps_buf_free(&b);
          goto out;
        }
      }
      continue;
    }
    if (nf > nhead) { /* a field the header does not name: the columns have shifted */
      rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: expected %d field%s, as the header has, got a line of %d", R->path,
                   L->line, col[nhead] + (int)(line - L->buf), nhead, nhead == 1 ? "" : "s", nf);
      goto out;
    }
    const char *v[Q_N] = {NULL, NULL, NULL, NULL};
    int c[Q_N] = {0, 0, 0, 0};
    for (int q = 0; q < Q_N; q++) {
      if (idx[q] < 0) continue;
      if (idx[q] >= nf) {
        rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: %s: expected a value in column %d (the header has %d), got a line of "
                     "%d field%s", R->path, L->line, (int)strlen(line) + 1, R->name[q], idx[q] + 1, nhead, nf,
                     nf == 1 ? "" : "s");
        goto out;
      }
      v[q] = f[idx[q]];
      c[q] = col[idx[q]] + (int)(line - L->buf);
    }
    if ((rc = rdr_record(R, L->line, v, c)) != PS_OK) goto out;
  }
  if (got < 0) {
    rc = ps_fail(R->e, PS_EINPUT, "%s:%ld: expected %s, got %s", R->path, L->line,
                 got == -1 ? "a line of at most 1 MiB" : "text", got == -1 ? "a longer one" : "a NUL byte");
    goto out;
  }
  if (header) rc = ps_fail(R->e, PS_EINPUT, "%s: expected a header row naming the columns, then one call per line, "
                           "got an empty file", R->path);
out:
  free(f);
  free(col);
  free(scratch);
  return rc;
}

/* The column where "key" first appears on the line, else 1. */
static int key_col(const char *line, const char *key) {
  char *pat = xasprintf("\"%s\"", key);
  const char *p = strstr(line, pat);
  free(pat);
  return p ? (int)(p - line) + 1 : 1;
}

static int read_jsonl(rdr *R, lread *L) {
  int got, any = 0, rc = PS_OK;
  while ((got = lread_next(L)) == 1) {
    if (blank(L->buf)) continue;
    any = 1;
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithOpts(L->buf, &end, 0);
    if (o && end) {
      while (*end == ' ' || *end == '\t') end++;
      if (*end) cJSON_Delete(o), o = NULL;
    }
    if (!cJSON_IsObject(o)) {
      char g[64];
      cJSON_Delete(o);
      return ps_fail(R->e, PS_EINPUT, "%s:%ld:1: expected one JSON object per line, got %s", R->path, L->line,
                     got_text(L->buf, g, sizeof g));
    }
    char txt[Q_N][256];
    const char *v[Q_N] = {NULL, NULL, NULL, NULL};
    int c[Q_N] = {0, 0, 0, 0};
    for (int q = 0; q < Q_N && rc == PS_OK; q++) {
      if (!R->name[q]) continue;
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, R->name[q]);
      c[q] = key_col(L->buf, R->name[q]);
      v[q] = txt[q];
      if (q == Q_WORKER) {
        if (cJSON_IsNumber(x)) snprintf(txt[q], sizeof txt[q], "%.17g", x->valuedouble);
        else if (cJSON_IsString(x)) snprintf(txt[q], sizeof txt[q], "%s", x->valuestring);
        else if (!x || cJSON_IsNull(x)) txt[q][0] = 0; /* rdr_record says "got nothing" */
        else
          rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: %s: expected a worker name or number, got %s", R->path, L->line,
                       c[q], R->name[q], cJSON_IsArray(x) ? "an array" : cJSON_IsObject(x) ? "an object" : "true/false");
      } else if (cJSON_IsNumber(x)) {
        snprintf(txt[q], sizeof txt[q], "%.17g", x->valuedouble);
      } else {
        rc = ps_fail(R->e, PS_EINPUT, "%s:%ld:%d: %s: expected %s in %s (a number%s), got %s", R->path, L->line, c[q],
                     R->name[q], q == Q_START ? "a time" : "a duration", R->c->unit_name, q == Q_START ? "" : " >= 0",
                     !x ? "nothing (no such key)" : cJSON_IsNull(x) ? "null" : cJSON_IsString(x) ? "a string"
                     : cJSON_IsArray(x) ? "an array" : cJSON_IsObject(x) ? "an object" : "true/false");
      }
    }
    cJSON_Delete(o);
    if (rc == PS_OK) rc = rdr_record(R, L->line, v, c);
    if (rc != PS_OK) return rc;
  }
  if (got < 0)
    return ps_fail(R->e, PS_EINPUT, "%s:%ld: expected %s, got %s", R->path, L->line,
                   got == -1 ? "a line of at most 1 MiB" : "text", got == -1 ? "a longer one" : "a NUL byte");
  if (!any) return ps_fail(R->e, PS_EINPUT, "%s: expected one JSON object per line (a call each), got an empty file", R->path);
  return PS_OK;
}

static const double *sort_key;
static int by_start(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  if (sort_key[i] != sort_key[j]) return sort_key[i] < sort_key[j] ? -1 : 1;
  return i < j ? -1 : i > j;
}

static void permute_d(double *x, const size_t *ix, size_t n) {
  if (!x) return;
  double *t = xmalloc(n * sizeof *t);
  for (size_t i = 0; i < n; i++) t[i] = x[ix[i]];
  memcpy(x, t, n * sizeof *t);
  free(t);
}

int infer_log_read(const char *path, const infer_cols *cols, infer_log *out, ps_err *e) {
  memset(out, 0, sizeof *out);
  struct stat st;
  if (stat(path, &st) != 0)
    return ps_fail(e, PS_EINPUT, "%s: expected a readable log file, got %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return ps_fail(e, PS_EINPUT, "%s: expected a regular file, got %s", path,
                   S_ISDIR(st.st_mode) ? "a folder" : "a FIFO, device or socket");
  FILE *f = fopen(path, "r");
  if (!f) return ps_fail(e, PS_EINPUT, "%s: expected a readable log file, got %s", path, strerror(errno));
  rdr R = {.path = path, .c = cols, .out = out, .e = e};
  R.name[Q_CALL] = cols->call;
  R.name[Q_WAIT] = cols->wait;
  R.name[Q_START] = cols->start;
  R.name[Q_WORKER] = cols->worker;
  lread L = {.f = f, .buf = xmalloc((size_t)INFER_MAX_LINE + 1)};
  infer_fmt fmt = cols->format;
  if (fmt == INFER_FMT_AUTO) {
    const char *dot = strrchr(path, '.');
    if (dot && (!strcmp(dot, ".jsonl") || !strcmp(dot, ".ndjson") || !strcmp(dot, ".json"))) fmt = INFER_FMT_JSONL;
    else if (dot && !strcmp(dot, ".csv")) fmt = INFER_FMT_CSV;
    else {
      int c;
      while ((c = getc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r') {}
      fmt = c == '{' ? INFER_FMT_JSONL : INFER_FMT_CSV;
      rewind(f);
    }
  }
  out->format = fmt == INFER_FMT_JSONL ? "jsonl" : "csv";
  int rc = fmt == INFER_FMT_JSONL ? read_jsonl(&R, &L) : read_csv(&R, &L);
  if (rc == PS_OK && ferror(f)) rc = ps_fail(e, PS_EINPUT, "%s: expected a readable log file, got a read error", path);
  if (rc == PS_OK && out->n < INFER_MIN_RECORDS)
    rc = ps_fail(e, PS_EINPUT, "%s: expected at least %d records (calls) to fit, got %zu", path, INFER_MIN_RECORDS,
                 out->n);
  fclose(f);
  free(L.buf);
  out->nworkers = (int)R.wh.n;
  strtab_free(&R.wh);
  if (rc != PS_OK) {
    infer_log_free(out);
    return rc;
  }
  if (out->start) {
    size_t *ix = xmalloc(out->n * sizeof *ix);
    for (size_t i = 0; i < out->n; i++) ix[i] = i;
    sort_key = out->start; /* the reader is not called from several threads at once */
    qsort(ix, out->n, sizeof *ix, by_start);
    permute_d(out->call, ix, out->n);
    permute_d(out->wait, ix, out->n);
    permute_d(out->start, ix, out->n);
    if (out->worker) {
      int *t = xmalloc(out->n * sizeof *t);
      for (size_t i = 0; i < out->n; i++) t[i] = out->worker[ix[i]];
      memcpy(out->worker, t, out->n * sizeof *t);
      free(t);
    }
    free(ix);
  }
  return PS_OK;
}

void infer_log_free(infer_log *l) {
  free(l->call);
  free(l->wait);
  free(l->start);
  free(l->worker);
  memset(l, 0, sizeof *l);
}
