/* Implementation of common/cli.h. */
#include "cli.h"

#include <stdio.h>
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
