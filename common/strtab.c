/* Implementation of common/strtab.h. */
#include "strtab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t fnv(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

int strtab_id(strtab *t, const char *s, size_t max) {
  if (2 * (t->n + 1) > t->cap) {
    size_t nc = t->cap ? 2 * t->cap : 64;
    int *ns = xcalloc(nc, sizeof *ns);
    for (size_t i = 0; i < t->n; i++) {
      size_t j = fnv(t->names[i]) & (nc - 1);
      while (ns[j]) j = (j + 1) & (nc - 1);
      ns[j] = (int)i + 1;
    }
    free(t->slot);
    t->slot = ns;
    t->cap = nc;
    t->names = xrealloc(t->names, nc / 2 * sizeof *t->names);
  }
  size_t j = fnv(s) & (t->cap - 1);
  for (; t->slot[j]; j = (j + 1) & (t->cap - 1))
    if (!strcmp(t->names[t->slot[j] - 1], s)) return t->slot[j] - 1;
  if (t->n >= max) return -1;
  t->names[t->n] = xstrdup(s);
  t->slot[j] = (int)++t->n;
  return (int)t->n - 1;
}

void strtab_free(strtab *t) {
  for (size_t i = 0; i < t->n; i++) free(t->names[i]);
  free(t->names);
  free(t->slot);
  *t = (strtab){0};
}
