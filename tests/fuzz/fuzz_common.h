/* What the fuzz targets share: the input written to a file of their own (the readers
 * under test take paths), in a folder made once per process under $PROVESIM_FUZZ_TMP
 * (scripts/fuzz.sh makes one per run and removes only its own), /dev/shm or /tmp. */
#ifndef PROVESIM_FUZZ_COMMON_H
#define PROVESIM_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fuzz_dir(void) {
  static char dir[64];
  if (!dir[0]) {
    const char *base = getenv("PROVESIM_FUZZ_TMP");
    if (!base || !*base || strlen(base) > 40) base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/provesim-fuzz-XXXXXX", base);
    if (!mkdtemp(dir)) abort();
  }
  return dir;
}

/* Writes data[0..n) to DIR/name; returns the path (static storage, one per name slot). */
static const char *fuzz_file(const char *name, const unsigned char *data, size_t n, char *path, size_t cap) {
  snprintf(path, cap, "%s/%s", fuzz_dir(), name);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(data, 1, n, f) != n) abort();
  fclose(f);
  return path;
}

#endif
