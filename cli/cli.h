/* What every provesim subcommand shares: reading its arguments and reporting usage errors
 * the same way (`--opt VALUE` and `--opt=VALUE` forms, exit code 2 with a pointer to
 * --help), parsing numbers, writing outputs, and a progress bar. */
#ifndef PROVESIM_CLI_H
#define PROVESIM_CLI_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Prints "provesim CMD: <fmt with arg> (provesim CMD --help)" to stderr; returns
 * PS_EXIT_USAGE, for `return cli_usage_error(...)`. */
int cli_usage_error(const char *cmd, const char *fmt, const char *arg);

/* The value of argv[*i] when it is `NAME=VALUE`, or of argv[*i+1] when argv[*i] is NAME
 * (then *i advances); NULL when the value is missing or argv[*i] is another option. */
const char *cli_optval(int argc, char **argv, int *i, const char *name);

/* 1 when a is NAME or NAME=... */
int cli_is_opt(const char *a, const char *name);

/* The last branch of a one-scenario command's option loop, for an argument no option
 * took: an option (-x, --x) is unknown; the first other argument becomes *path; a second
 * is refused. Returns 0, or PS_EXIT_USAGE with the message printed (it sets no exit
 * code of the caller's: a loop whose rc already holds one keeps it). */
int cli_operand(const char *cmd, const char *a, const char **path);

/* A JSON value for an override's text: a number when it reads as one, else a string. */
cJSON *cli_json_value(const char *v);

/* Writes b to path atomically; prints "provesim CMD: reason" on failure. Returns 0 or -1. */
int cli_write_out(const char *cmd, const char *path, const ps_buf *b);

/* Checks the output paths (NULL entries are skipped) before any work, with ps_out_check;
 * prints "provesim CMD: reason" for the first that cannot be written. Returns 0, or
 * PS_EXIT_USAGE. */
int cli_check_outputs(const char *cmd, const char *const *paths, int n);

/* The overrides joined as "KEY=VALUE; KEY=VALUE" (the CSV's overrides column); caller
 * frees. n may be 0. */
char *cli_join_sets(const char *const *sets, int n);


/* A progress bar with an ETA on standard error (commands draw it only on a terminal),
 * driven by par_for's tick on the caller's thread. */
typedef struct cli_progress {
  char label[32];
  size_t n;
  double t0;
} cli_progress;
void cli_progress_start(cli_progress *p, const char *label, size_t n);
void cli_progress_tick(void *ctx, size_t done); /* ctx: the cli_progress */
void cli_progress_end(cli_progress *p);

#ifdef __cplusplus
}
#endif

#endif
