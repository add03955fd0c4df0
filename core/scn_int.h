/* The scenario loader's private header (scn.c, scn_yaml.c): the tree a YAML file is
 * copied into (nodes that remember their file, line and column, or the --set override
 * they came from), the load context, and the readers that check a node and say exactly
 * what was expected where. Not for use outside the loader. */
#ifndef PROVESIM_SCN_INT_H
#define PROVESIM_SCN_INT_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "util.h"

#define PB 512              /* room for a key path */
#define MAX_DEPTH 64        /* nesting depth of a YAML file (also stops self-referencing aliases) */
#define MAX_NODES 1000000L  /* nodes per load (stops alias bombs) */
#define SCN_MAX_FILE (16L << 20) /* bytes of one scenario or model file */
#define SCN_MAX_TIME 1e9 /* seconds: the largest phase time or distribution parameter */
#define SCN_MAX_ARRIVALS 10000000L /* arrivals of one trace (workload.arrivals.trace) */
#define SCN_MAX_GIB 1e6 /* GiB: the largest memory figure (gpu_memory's, system.gpu_mem_gib) */

/* ---------------------------------------------------------------------------------- */
/* The tree. */

/* Where a node came from: a file position (1-based), or the text of an override. */
typedef struct loc {
  const char *file;   /* borrowed from the load context's file pool; NULL for overrides */
  const char *origin; /* the "--set" text, borrowed from the caller; NULL for files */
  int line, col;
} loc;

typedef enum nkind { N_SCALAR, N_MAP, N_SEQ } nkind;

typedef struct node node;
typedef struct pair {
  char *key;
  loc at; /* position of the key */
  node *val;
} pair;

struct node {
  nkind kind;
  loc at;
  char *str;  /* scalar text */
  int quoted; /* scalar was quoted or a block scalar, so it is a string */
  pair *pairs; /* N_MAP */
  node **items; /* N_SEQ */
  int n, cap;
};

/* One load: where errors go and the file names that locations point into. */
typedef struct ld {
  ps_err *e;
  char **files;
  int nfiles;
  long nodes;
  const char *src; /* the text being parsed (a file's or an override's), for what the   */
  size_t srclen;   /* YAML tree does not keep: whether a scalar was written with a tag  */
} ld;

/* ---- the tree (scn_yaml.c) */
node *scn__node_new(nkind k, loc at);
void scn__node_free(node *n);
node *scn__scalar_new(loc at, const char *s, size_t len, int quoted);
pair *scn__map_find(const node *m, const char *key);
pair *scn__map_put(node *m, const char *key, loc at, node *val);
int scn__is_null(const node *n);
node *scn__opt(const node *m, const char *key);
void scn__ld_done(ld *c);
const char *scn__render(const node *n, char *out, size_t cap);
int scn__expect(ld *c, const node *n, const char *path, const char *what);
void scn__cat_path(char *out, size_t cap, const char *const *parts);
void scn__jp(char *out, size_t cap, const char *base, const char *key);
int scn__req(ld *c, const node *m, const char *base, const char *key, const char *what, node **out);
int scn__check_map(ld *c, const node *m, const char *path, const char *const *keys);
int scn__scalar_double(const node *n, double *out);
int scn__scalar_i64(const node *n, int64_t *out);
int scn__rd_int(ld *c, const node *n, const char *path, int64_t lo, int64_t hi, int64_t *out);
int scn__rd_i(ld *c, const node *n, const char *path, int lo, int *out);
int scn__rd_num(ld *c, const node *n, const char *path, double lo, int strict, double *out);
int scn__rd_str(ld *c, const node *n, const char *path, const char **out);
int scn__rd_enum(ld *c, const node *n, const char *path, const char *const *names, int *out);
int scn__rd_name(ld *c, const node *n, const char *path, const char **out);
int scn__parse_tree(ld *c, yaml_parser_t *yp, const char *file, const char *origin, const char *ypath, node **out);
int scn__load_file(ld *c, const char *path, const char *what, const loc *ref, const char *refpath, node **out);
char *scn__relative_to(const char *base, const char *rel);
/* Reads the arrivals trace at path (named by node fn at key): a CSV file with a header that
 * has a column t or time_s, or JSON Lines of objects with a number t; arrival times in
 * seconds from the start, each from 0 to 1e9, nondecreasing, at least one and at most
 * SCN_MAX_ARRIVALS, lines of at most 1 MiB; blank lines are skipped. On success *out
 * (caller frees) holds the *n times; errors name fn's position, key and path:line. */
int scn__load_trace(ld *c, const node *fn, const char *key, const char *path, double **out, int64_t *n);
int scn__fail_at(ld *c, const loc *at, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- models (scn_model.c) */
void scn__list_names(char *out, size_t cap, const model *m, int scopes);
int scn__rd_region(ld *c, const model *m, const node *n, const char *path, int *from, int *to);
void scn__phase_path(char *out, size_t cap, const char *base, const node *item, int i);
int scn__build_model(ld *c, node *mn, const char *base, const char *path, model **out);

#endif
