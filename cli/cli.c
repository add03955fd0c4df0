/* Implementation of cli.h: the option helpers, the number parsers, the output helpers and
 * the progress bar that every command shares. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int cli_usage_error(const char *cmd, const char *fmt, const char *arg) {
  fprintf(stderr, "provesim %s: ", cmd);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (provesim %s --help)\n", cmd);
  return PS_EXIT_USAGE;
}

const char *cli_optval(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=') return argv[*i] + n + 1;
  if (!strcmp(argv[*i], name)) {
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
  }
  return NULL;
}

int cli_is_opt(const char *a, const char *name) {
  size_t n = strlen(name);
  return !strcmp(a, name) || (!strncmp(a, name, n) && a[n] == '=');
}

int cli_operand(const char *cmd, const char *a, const char **path) {
  if (a[0] == '-' && a[1]) return cli_usage_error(cmd, "unknown option %s", a);
  if (*path) return cli_usage_error(cmd, "unexpected argument %s: one scenario at a time", a);
  *path = a;
  return 0;
}



/* A JSON value for an override's text: a number when it reads as one, else a string. */
cJSON *cli_json_value(const char *v) {
  double x;
  if (!ps_parse_num(v, &x)) return cJSON_CreateNumber(x);
  return cJSON_CreateString(v);
}

/* Writes buf to path atomically; prints the error. Returns 0 or -1. */
int cli_write_out(const char *cmd, const char *path, const ps_buf *b) {
  ps_err e = {0};
  if (ps_write_file_atomic(path, b->p ? b->p : "", b->len, &e) != PS_OK) {
    fprintf(stderr, "provesim %s: %s\n", cmd, e.msg);
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- cli_progress */

static void cli__progress_draw(const char *label, size_t done, size_t n, double elapsed) {
  const int width = 30;
  int fill = n > 0 ? (int)((double)width * (double)done / (double)n) : width;
  char bar[64];
  for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
  bar[width] = 0;
  char eta[32] = "ETA --";
  if (done > 0 && done < n) {
    double left = elapsed / (double)done * (double)(n - done);
    if (left >= 60)
      snprintf(eta, sizeof eta, "ETA %dm%02ds", (int)(left / 60), (int)fmod(left, 60));
    else
      snprintf(eta, sizeof eta, "ETA %.0fs", ceil(left));
  } else if (done >= n) {
    snprintf(eta, sizeof eta, "%.1fs", elapsed);
  }
  fprintf(stderr, "\r%s [%s] %zu/%zu %3d%%  %s\033[K", label, bar, done, n, n ? (int)(100 * done / n) : 100, eta);
  fflush(stderr);
}

/* A progress bar on standard error, drawn from par_for's tick on the caller's thread. */

void cli_progress_start(cli_progress *p, const char *label, size_t n) {
  snprintf(p->label, sizeof p->label, "%s", label);
  p->n = n;
  p->t0 = ps_now();
  cli__progress_draw(p->label, 0, n, 0);
}

void cli_progress_tick(void *ctx, size_t done) {
  cli_progress *p = ctx;
  cli__progress_draw(p->label, done, p->n, ps_now() - p->t0);
}

void cli_progress_end(cli_progress *p) {
  cli__progress_draw(p->label, p->n, p->n, ps_now() - p->t0);
  fputs("\r\033[K", stderr);
  fflush(stderr);
}

char *cli_join_sets(const char *const *sets, int n) {
  ps_buf b = {0};
  for (int i = 0; i < n; i++) ps_buf_printf(&b, "%s%s", i ? "; " : "", sets[i]);
  return b.p ? b.p : xstrdup("");
}

int cli_check_outputs(const char *cmd, const char *const *paths, int n) {
  for (int i = 0; i < n; i++) {
    ps_err e = {0};
    if (paths[i] && ps_out_check(paths[i], &e) != PS_OK) {
      fprintf(stderr, "provesim %s: %s\n", cmd, e.msg);
      return PS_EXIT_USAGE;
    }
  }
  return 0;
}
