/* A string table: distinct strings to dense ids 0, 1, 2, ... in order of first sight
 * (open addressing on FNV-1a). The spans trace interns span names with it, the log reader
 * of `infer` worker names. */
#ifndef PROVESIM_STRTAB_H
#define PROVESIM_STRTAB_H

#include <stddef.h>

typedef struct strtab {
  char **names;  /* by id: the table's own copies */
  int *slot;     /* open addressing: id + 1, 0 = empty */
  size_t cap, n; /* slots, strings */
} strtab;

/* The id of s, a new one when unseen; -1 when unseen and the table already holds max
 * strings. A zeroed strtab is empty. */
int strtab_id(strtab *t, const char *s, size_t max);
static inline const char *strtab_name(const strtab *t, int id) { return t->names[id]; }
void strtab_free(strtab *t);

#endif
