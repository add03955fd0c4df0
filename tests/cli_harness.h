/* Shared by the end-to-end suites: run the provesim binary (PROVESIM_BIN) in a per-test
 * temporary folder, capture its output, look at the files it left. Each suite includes
 * this once; tcase fixtures call cli_tmp_setup/cli_tmp_teardown. */
#ifndef PROVESIM_TESTS_CLI_HARNESS_H
#define PROVESIM_TESTS_CLI_HARNESS_H

#include "ck.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static char tmpdir[256];

__attribute__((unused)) static const char *bin(void) {
  const char *b = getenv("PROVESIM_BIN");
  return b ? b : "./provesim";
}

/* A path under the source tree (PROVESIM_SRC); caller frees. */
__attribute__((unused)) static char *src(const char *rel) {
  const char *s = getenv("PROVESIM_SRC");
  return xasprintf("%s/%s", s ? s : "..", rel);
}

/* The whole file, or NULL when it cannot be read; caller frees. */
__attribute__((unused)) static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *p = NULL;
  size_t n = 0;
  if (getdelim(&p, &n, 0, f) < 0) {
    free(p);
    p = xstrdup("");
  }
  fclose(f);
  return p;
}

/* Runs `provesim ARGS` in tmpdir; captures stdout and stderr (caller frees; either may be
 * NULL). Returns the exit code. */
__attribute__((unused)) static int run(const char *args, char **out, char **err) {
  char *ofile = xasprintf("%s/stdout", tmpdir), *efile = xasprintf("%s/stderr", tmpdir);
  char *cmd = xasprintf("cd %s && %s %s >%s 2>%s", tmpdir, bin(), args, ofile, efile);
  int st = system(cmd);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (out) *out = slurp(ofile);
  if (err) *err = slurp(efile);
  free(cmd);
  free(ofile);
  free(efile);
  return rc;
}

/* 1 when tmpdir/rel exists. */
__attribute__((unused)) static int exists(const char *rel) {
  char *p = xasprintf("%s/%s", tmpdir, rel);
  struct stat st;
  int r = stat(p, &st) == 0;
  free(p);
  return r;
}

/* The text of tmpdir/rel, or NULL; caller frees. */
__attribute__((unused)) static char *tmpfile_text(const char *rel) {
  char *p = xasprintf("%s/%s", tmpdir, rel);
  char *t = slurp(p);
  free(p);
  return t;
}

__attribute__((unused)) static void cli_tmp_setup(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/provesim-test-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

__attribute__((unused)) static void cli_tmp_teardown(void) {
  char *cmd = xasprintf("rm -rf %s", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  free(cmd);
}

#endif
