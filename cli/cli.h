/* Helpers every provesim subcommand uses to read its arguments and report usage errors
 * the same way: `--opt VALUE` and `--opt=VALUE` forms, exit code 2 with a pointer to
 * --help. */
#ifndef PROVESIM_CLI_H
#define PROVESIM_CLI_H

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

#ifdef __cplusplus
}
#endif

#endif
