/* The scenario/model loader (sim/scn.h). A YAML file is read with libyaml's document
 * API and copied into a small tree of our own (mapping, sequence and scalar nodes that
 * remember their file, line and column, or the --set override they came from). The
 * overrides are applied to that tree, then the tree is validated key by key while the
 * model and scenario structs are filled, so an override gets exactly the checks that
 * file content gets. Nothing here is global: every load has its own context. */
#define _GNU_SOURCE
#include "scn.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "spans.h"
#include "window.h"

#define PB 512              /* room for a key path */
#define MAX_DEPTH 64        /* nesting depth of a YAML file (also stops self-referencing aliases) */
#define MAX_NODES 1000000L  /* nodes per load (stops alias bombs) */

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
} ld;

static node *node_new(nkind k, loc at) {
  node *n = xcalloc(1, sizeof *n);
  n->kind = k;
  n->at = at;
  return n;
}

static void node_free(node *n) {
  if (!n) return;
  free(n->str);
  for (int i = 0; i < n->n; i++) {
    if (n->kind == N_MAP) {
      free(n->pairs[i].key);
      node_free(n->pairs[i].val);
    } else if (n->kind == N_SEQ) {
      node_free(n->items[i]);
    }
  }
  free(n->pairs);
  free(n->items);
  free(n);
}

static node *scalar_new(loc at, const char *s, size_t len, int quoted) {
  node *n = node_new(N_SCALAR, at);
  n->str = xmalloc(len + 1);
  memcpy(n->str, s, len);
  n->str[len] = 0;
  n->quoted = quoted;
  return n;
}

static pair *map_find(const node *m, const char *key) {
  if (!m || m->kind != N_MAP) return NULL;
  for (int i = 0; i < m->n; i++)
    if (strcmp(m->pairs[i].key, key) == 0) return &m->pairs[i];
  return NULL;
}

/* Set key to val in m (takes ownership of val), replacing an existing value. */
static pair *map_put(node *m, const char *key, loc at, node *val) {
  pair *p = map_find(m, key);
  if (p) {
    node_free(p->val);
    p->val = val;
    return p;
  }
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 8;
    m->pairs = xrealloc(m->pairs, (size_t)m->cap * sizeof *m->pairs);
  }
  p = &m->pairs[m->n++];
  p->key = xstrdup(key);
  p->at = at;
  p->val = val;
  return p;
}

static void seq_push(node *s, node *item) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 8;
    s->items = xrealloc(s->items, (size_t)s->cap * sizeof *s->items);
  }
  s->items[s->n++] = item;
}

static int is_null(const node *n) {
  if (!n || n->kind != N_SCALAR || n->quoted) return 0;
  const char *s = n->str;
  return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* The value of key in m, or NULL when absent or null (a null value counts as absent). */
static node *opt(const node *m, const char *key) {
  pair *p = map_find(m, key);
  return p && !is_null(p->val) ? p->val : NULL;
}

static const char *ld_file(ld *c, const char *name) {
  c->files = xrealloc(c->files, (size_t)(c->nfiles + 1) * sizeof *c->files);
  c->files[c->nfiles] = xstrdup(name);
  return c->files[c->nfiles++];
}

static void ld_done(ld *c) {
  for (int i = 0; i < c->nfiles; i++) free(c->files[i]);
  free(c->files);
}

/* ---------------------------------------------------------------------------------- */
/* Errors. */

/* Plain scalars that read as numbers: [-+]digits[.digits][e[-+]digits], or .digits. */
static int looks_numeric(const char *s) {
  const char *p = s;
  if (*p == '+' || *p == '-') p++;
  int digits = 0;
  while (isdigit((unsigned char)*p)) p++, digits++;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) p++, digits++;
  }
  if (!digits) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
  }
  return *p == 0;
}

static int simple_word(const char *s) {
  if (!*s) return 0;
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("_-./^", *p)) return 0;
  return 1;
}

static void put_quoted(ps_buf *b, const char *s) {
  ps_buf_append(b, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      char t[2] = {'\\', (char)*p};
      ps_buf_append(b, t, 2);
    } else if (*p < 0x20) {
      ps_buf_printf(b, "\\x%02x", *p);
    } else {
      ps_buf_append(b, (const char *)p, 1);
    }
  }
  ps_buf_append(b, "\"", 1);
}

static void render_into(ps_buf *b, const node *n, int inner) {
  if (b->len > 200) return;
  switch (n->kind) {
  case N_SCALAR:
    if (is_null(n)) ps_buf_printf(b, "null");
    else if (!n->quoted && (looks_numeric(n->str) || !strcmp(n->str, "true") || !strcmp(n->str, "false")))
      ps_buf_printf(b, "%s", n->str);
    else if (inner && !n->quoted && simple_word(n->str)) ps_buf_printf(b, "%s", n->str);
    else put_quoted(b, n->str);
    break;
  case N_MAP:
    ps_buf_append(b, "{", 1);
    for (int i = 0; i < n->n; i++) {
      if (i) ps_buf_append(b, ", ", 2);
      ps_buf_printf(b, "%s: ", n->pairs[i].key);
      render_into(b, n->pairs[i].val, 1);
    }
    ps_buf_append(b, "}", 1);
    break;
  case N_SEQ:
    ps_buf_append(b, "[", 1);
    for (int i = 0; i < n->n; i++) {
      if (i) ps_buf_append(b, ", ", 2);
      render_into(b, n->items[i], 1);
    }
    ps_buf_append(b, "]", 1);
    break;
  }
}

/* How a value is shown after "got": numbers bare, strings quoted, lists and mappings in
 * flow style, cut at about 80 characters. */
static const char *render(const node *n, char *out, size_t cap) {
  if (!n) {
    snprintf(out, cap, "nothing");
    return out;
  }
  ps_buf b = {0};
  render_into(&b, n, 0);
  if (b.len > 80) snprintf(out, cap, "%.77s...", b.p);
  else snprintf(out, cap, "%s", b.p ? b.p : "");
  ps_buf_free(&b);
  return out;
}

/* Report an error at a location: "FILE:LINE:COL: PATH: MESSAGE" for file content,
 * "--set TEXT: PATH: MESSAGE" for override content. Returns PS_EINPUT. */
__attribute__((format(printf, 4, 5))) static int fail_at(ld *c, const loc *at, const char *path, const char *fmt,
                                                          ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *p = path && *path ? path : "(top level)";
  if (at->origin) return ps_fail(c->e, PS_EINPUT, "--set %s: %s: %s", at->origin, p, msg);
  return ps_fail(c->e, PS_EINPUT, "%s:%d:%d: %s: %s", at->file ? at->file : "?", at->line, at->col, p, msg);
}

/* "expected WHAT, got VALUE" at n. */
static int expect(ld *c, const node *n, const char *path, const char *what) {
  char g[128];
  return fail_at(c, &n->at, path, "expected %s, got %s", what, render(n, g, sizeof g));
}

/* Appends the strings of a NULL-terminated list to out, cutting at cap: key paths longer
 * than the buffer only ever shorten a message. */
static void cat_path(char *out, size_t cap, const char *const *parts) {
  size_t i = 0;
  for (; *parts; parts++)
    for (const char *q = *parts; *q && i + 1 < cap; q++) out[i++] = *q;
  out[i] = 0;
}

static void jp(char *out, size_t cap, const char *base, const char *key) {
  const char *one[] = {key, NULL}, *two[] = {base, ".", key, NULL};
  cat_path(out, cap, (!base || !*base) ? one : two);
}

/* A required key: missing ones are reported at the enclosing mapping. */
static int req(ld *c, const node *m, const char *base, const char *key, const char *what, node **out) {
  char p[PB];
  jp(p, sizeof p, base, key);
  pair *pr = map_find(m, key);
  if (!pr) return fail_at(c, &m->at, p, "expected %s, got nothing", what);
  if (is_null(pr->val)) return expect(c, pr->val, p, what);
  *out = pr->val;
  return 0;
}

/* m must be a mapping whose keys are all among keys (NULL-terminated). */
static int check_map(ld *c, const node *m, const char *path, const char *const *keys) {
  if (m->kind != N_MAP) return expect(c, m, path, "a mapping");
  for (int i = 0; i < m->n; i++) {
    int ok = 0;
    for (const char *const *k = keys; *k && !ok; k++) ok = !strcmp(*k, m->pairs[i].key);
    if (ok) continue;
    ps_buf b = {0};
    for (const char *const *k = keys; *k; k++) ps_buf_printf(&b, "%s%s", k == keys ? "" : ", ", *k);
    char p[PB], g[128];
    jp(p, sizeof p, path, m->pairs[i].key);
    node tmp = {.kind = N_SCALAR, .str = m->pairs[i].key, .quoted = 1};
    int rc = fail_at(c, &m->pairs[i].at, p, "expected one of the keys %s, got unknown key %s", b.p,
                     render(&tmp, g, sizeof g));
    ps_buf_free(&b);
    return rc;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Typed values. */

static int scalar_double(const node *n, double *out) {
  if (n->kind != N_SCALAR || n->quoted || !looks_numeric(n->str)) return -1;
  errno = 0;
  double v = strtod(n->str, NULL);
  if (!isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* An integer: digits, or a number that is exactly integral (so 1e6 reads as 1000000). */
static int scalar_i64(const node *n, int64_t *out) {
  if (n->kind != N_SCALAR || n->quoted) return -1;
  const char *p = n->str;
  if (*p == '+' || *p == '-') p++;
  int all_digits = *p != 0;
  for (const char *q = p; *q; q++) all_digits &= isdigit((unsigned char)*q) != 0;
  if (all_digits) {
    errno = 0;
    long long v = strtoll(n->str, NULL, 10);
    if (errno == ERANGE) return -1;
    *out = v;
    return 0;
  }
  double d;
  if (scalar_double(n, &d) || d != floor(d) || fabs(d) > 9007199254740992.0) return -1;
  *out = (int64_t)d;
  return 0;
}

static int rd_int(ld *c, const node *n, const char *path, int64_t lo, int64_t hi, int64_t *out) {
  char what[96];
  int64_t v;
  int bad = scalar_i64(n, &v);
  /* The upper bound is only worth mentioning to someone who went past it. */
  if (hi == INT64_MAX || bad || v <= hi) snprintf(what, sizeof what, "an integer >= %" PRId64, lo);
  else snprintf(what, sizeof what, "an integer from %" PRId64 " to %" PRId64, lo, hi);
  if (bad || v < lo || v > hi) return expect(c, n, path, what);
  *out = v;
  return 0;
}

static int rd_i(ld *c, const node *n, const char *path, int lo, int *out) {
  int64_t v = 0;
  int rc = rd_int(c, n, path, lo, INT_MAX, &v);
  if (!rc) *out = (int)v;
  return rc;
}

/* A finite number, > lo when strict, >= lo otherwise; lo = -INFINITY for any. */
static int rd_num(ld *c, const node *n, const char *path, double lo, int strict, double *out) {
  char what[64];
  if (lo == -INFINITY) snprintf(what, sizeof what, "a number");
  else snprintf(what, sizeof what, "a number %s %g", strict ? ">" : ">=", lo);
  double v;
  if (scalar_double(n, &v) || (strict ? !(v > lo) : !(v >= lo))) return expect(c, n, path, what);
  *out = v;
  return 0;
}

static int rd_str(ld *c, const node *n, const char *path, const char **out) {
  if (n->kind != N_SCALAR || is_null(n)) return expect(c, n, path, "a string");
  *out = n->str;
  return 0;
}

/* One of names (NULL-terminated); *out is its index. */
static int rd_enum(ld *c, const node *n, const char *path, const char *const *names, int *out) {
  if (n->kind == N_SCALAR)
    for (int i = 0; names[i]; i++)
      if (!strcmp(n->str, names[i])) {
        *out = i;
        return 0;
      }
  char what[160] = "one of ";
  for (int i = 0; names[i]; i++) {
    strncat(what, i ? ", " : "", sizeof what - strlen(what) - 1);
    strncat(what, names[i], sizeof what - strlen(what) - 1);
  }
  return expect(c, n, path, what);
}

/* Names of phases and scopes: letters, digits, '_' and '-', so `phases.NAME.KEY` can
 * address them. */
static int rd_name(ld *c, const node *n, const char *path, const char **out) {
  if (n->kind == N_SCALAR && !is_null(n)) {
    int ok = 1;
    for (const char *p = n->str; *p; p++) ok &= isalnum((unsigned char)*p) || *p == '_' || *p == '-';
    if (ok) {
      *out = n->str;
      return 0;
    }
  }
  return expect(c, n, path, "a name of letters, digits, '_' and '-'");
}

/* ---------------------------------------------------------------------------------- */
/* From libyaml to the tree. */

static int conv(ld *c, yaml_document_t *doc, yaml_node_t *y, const char *file, const char *origin, const char *path,
                int depth, node **out) {
  loc at = {file, origin, (int)y->start_mark.line + 1, (int)y->start_mark.column + 1};
  if (depth > MAX_DEPTH)
    return fail_at(c, &at, path, "expected YAML nested at most %d deep (or an alias that refers to itself)", MAX_DEPTH);
  if (++c->nodes > MAX_NODES)
    return fail_at(c, &at, path, "expected at most %ld YAML nodes (aliases count each time they are used)", MAX_NODES);
  node *n;
  char p[PB];
  switch (y->type) {
  case YAML_SCALAR_NODE:
    *out = scalar_new(at, (const char *)y->data.scalar.value, y->data.scalar.length,
                      y->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
    return 0;
  case YAML_SEQUENCE_NODE:
    n = node_new(N_SEQ, at);
    for (yaml_node_item_t *it = y->data.sequence.items.start; it < y->data.sequence.items.top; it++) {
      yaml_node_t *ch = yaml_document_get_node(doc, *it);
      PS_ASSERT(ch);
      snprintf(p, sizeof p, "%s[%d]", path, n->n);
      node *item;
      if (conv(c, doc, ch, file, origin, p, depth + 1, &item)) {
        node_free(n);
        return PS_EINPUT;
      }
      seq_push(n, item);
    }
    *out = n;
    return 0;
  case YAML_MAPPING_NODE:
    n = node_new(N_MAP, at);
    for (yaml_node_pair_t *pr = y->data.mapping.pairs.start; pr < y->data.mapping.pairs.top; pr++) {
      yaml_node_t *k = yaml_document_get_node(doc, pr->key);
      yaml_node_t *v = yaml_document_get_node(doc, pr->value);
      PS_ASSERT(k && v);
      loc kat = {file, origin, (int)k->start_mark.line + 1, (int)k->start_mark.column + 1};
      if (k->type != YAML_SCALAR_NODE) {
        node_free(n);
        return fail_at(c, &kat, path, "expected keys that are strings, got a %s as a key",
                       k->type == YAML_MAPPING_NODE ? "mapping" : "list");
      }
      const char *key = (const char *)k->data.scalar.value;
      jp(p, sizeof p, path, key);
      if (map_find(n, key)) {
        node_free(n);
        return fail_at(c, &kat, p, "expected each key once in a mapping, got \"%s\" a second time", key);
      }
      node *val;
      if (conv(c, doc, v, file, origin, p, depth + 1, &val)) {
        node_free(n);
        return PS_EINPUT;
      }
      map_put(n, key, kat, val);
    }
    *out = n;
    return 0;
  default: break;
  }
  return fail_at(c, &at, path, "expected a YAML value, got an empty node");
}

/* Parse YAML from parser into *out; file/origin name the source in locations. An empty
 * document gives a null scalar. */
static int parse_tree(ld *c, yaml_parser_t *yp, const char *file, const char *origin, const char *ypath, node **out) {
  yaml_document_t doc;
  if (!yaml_parser_load(yp, &doc)) {
    loc at = {file, origin, (int)yp->problem_mark.line + 1, (int)yp->problem_mark.column + 1};
    char ctx[160] = "";
    if (yp->error == YAML_READER_ERROR)
      snprintf(ctx, sizeof ctx, " (at byte %zu of the input)", yp->problem_offset);
    else if (yp->context)
      snprintf(ctx, sizeof ctx, " (%s that started at line %d, column %d)", yp->context,
               (int)yp->context_mark.line + 1, (int)yp->context_mark.column + 1);
    return fail_at(c, &at, ypath, "expected valid YAML, got a syntax error: %s%s",
                   yp->problem ? yp->problem : "unknown problem", ctx);
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  int rc = 0;
  if (!root) {
    loc at = {file, origin, 1, 1};
    *out = scalar_new(at, "", 0, 0);
  } else {
    rc = conv(c, &doc, root, file, origin, "", 0, out);
  }
  yaml_document_delete(&doc);
  if (rc) return rc;
  /* A second document would be silently ignored; say so instead. */
  yaml_document_t doc2;
  if (!yaml_parser_load(yp, &doc2)) return 0; /* trailing garbage after the first document is libyaml's to report */
  yaml_node_t *r2 = yaml_document_get_root_node(&doc2);
  if (r2) {
    loc at = {file, origin, (int)r2->start_mark.line + 1, (int)r2->start_mark.column + 1};
    yaml_document_delete(&doc2);
    node_free(*out);
    *out = NULL;
    return fail_at(c, &at, ypath, "expected a single YAML document, got a second one");
  }
  yaml_document_delete(&doc2);
  return 0;
}

/* Read a YAML file into a tree whose root must be a mapping. what names the file's role
 * ("scenario", "model"); ref/refpath, when given, say where the file was named. */
static int load_file(ld *c, const char *path, const char *what, const loc *ref, const char *refpath, node **out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (ref)
      return fail_at(c, ref, refpath, "expected a readable %s file, got \"%s\" (%s)", what, path, strerror(errno));
    return ps_fail(c->e, PS_EINPUT, "%s: expected a readable %s file (%s)", path, what, strerror(errno));
  }
  const char *file = ld_file(c, path);
  yaml_parser_t yp;
  if (!yaml_parser_initialize(&yp)) {
    fclose(f);
    return ps_fail(c->e, PS_ERR, "%s: cannot initialise the YAML parser", path);
  }
  yaml_parser_set_input_file(&yp, f);
  node *root = NULL;
  int rc = parse_tree(c, &yp, file, NULL, "yaml", &root);
  yaml_parser_delete(&yp);
  fclose(f);
  if (rc) return rc;
  if (root->kind != N_MAP) {
    char g[128];
    rc = fail_at(c, &root->at, "", "expected a mapping (a %s), got %s", what,
                 is_null(root) ? "an empty document" : render(root, g, sizeof g));
    node_free(root);
    return rc;
  }
  *out = root;
  return 0;
}

/* path of rel as seen from the directory of the file base (rel itself when absolute,
 * or when base is NULL: values given on the command line are relative to the current
 * directory). Caller frees. */
static char *relative_to(const char *base, const char *rel) {
  if (!base || rel[0] == '/') return xstrdup(rel);
  const char *slash = strrchr(base, '/');
  if (!slash) return xstrdup(rel);
  return xasprintf("%.*s/%s", (int)(slash - base), base, rel);
}

/* ---------------------------------------------------------------------------------- */
/* Distributions. */

typedef struct dparam {
  const char *name;
  node *n;
  double v;
} dparam;

static int word_in(const char *text, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
    int left = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (left && right) return 1;
  }
  return 0;
}

/* A constructor refused the parameters: blame the one parameter its reason names, or
 * the whole mapping when it names several. */
static int dist_refused(ld *c, const node *m, const char *path, const dparam *ps, int np, const char *why) {
  int hit = -1, hits = 0, ohit = -1, ohits = 0;
  for (int i = 0; i < np; i++)
    if (ps[i].n && word_in(why, ps[i].name)) {
      hit = i, hits++;
      if (ps[i].n->at.origin) ohit = i, ohits++;
    }
  /* Of several named parameters, the one an override set is the one to blame. */
  if (hits > 1 && ohits == 1 && !m->at.origin) hit = ohit, hits = 1;
  if (hits == 1) {
    char p[PB];
    jp(p, sizeof p, path, ps[hit].name);
    return expect(c, ps[hit].n, p, why);
  }
  return expect(c, m, path, why);
}

typedef struct emp_ctx {
  const char *phase;
  double *v;
  size_t n, cap;
} emp_ctx;

static int emp_collect(void *ctx, const span_rec *r) {
  emp_ctx *x = ctx;
  if (r->kind != SPAN_PHASE || !r->phase || strcmp(r->phase, x->phase)) return 0;
  double t = r->t1 - r->t0;
  if (r->npartitions > 1) t /= r->npartitions;
  if (x->n == x->cap) {
    x->cap = x->cap ? 2 * x->cap : 64;
    x->v = xrealloc(x->v, x->cap * sizeof *x->v);
  }
  x->v[x->n++] = t;
  return 0;
}

static const char *const DIST_KINDS[] = {"const", "uniform", "normal", "lognormal", "gamma", "exponential", "empirical", NULL};

static int rd_dist(ld *c, node *n, const char *path, dist *d) {
  const char *why = NULL;
  double v;
  if (n->kind == N_SCALAR && !scalar_double(n, &v)) {
    if (dist_const(d, v, &why)) return expect(c, n, path, why);
    return 0;
  }
  if (n->kind != N_MAP)
    return expect(c, n, path, "a distribution: a number of seconds or a mapping {dist: KIND, ...}");
  node *kn;
  int kind;
  char p[PB];
  jp(p, sizeof p, path, "dist");
  if (req(c, n, path, "dist", "one of const, uniform, normal, lognormal, gamma, exponential, empirical", &kn) ||
      rd_enum(c, kn, p, DIST_KINDS, &kind))
    return PS_EINPUT;
  static const char *const keys[][5] = {
      {"dist", "value", NULL}, {"dist", "min", "max", NULL},     {"dist", "mean", "sd", NULL},
      {"dist", "mean", "cv", "mu", "sigma"}, {"dist", "mean", "cv", NULL}, {"dist", "mean", NULL},
      {"dist", "samples", "file", "phase", NULL}};
  const char *klist[6] = {0};
  for (int i = 0; i < 5 && keys[kind][i]; i++) klist[i] = keys[kind][i];
  if (check_map(c, n, path, klist)) return PS_EINPUT;

  dparam ps[4] = {{0}};
  int np = 0;
  /* The numeric parameters this kind takes, in the order they are named. */
  const char *names[4] = {0};
  if (kind == DIST_LOGNORMAL) {
    int ms = opt(n, "mu") || opt(n, "sigma"), mc = opt(n, "mean") || opt(n, "cv");
    if (ms && mc) {
      const char *k = opt(n, "mu") ? "mu" : "sigma";
      jp(p, sizeof p, path, k);
      return fail_at(c, &map_find(n, k)->at, p, "expected either {mean, cv} or {mu, sigma}, got both kinds of parameter");
    }
    names[0] = ms ? "mu" : "mean";
    names[1] = ms ? "sigma" : "cv";
    np = 2;
  } else if (kind != DIST_EMPIRICAL) {
    for (int i = 1; i < 5 && keys[kind][i]; i++) names[np++] = keys[kind][i];
  }
  for (int i = 0; i < np; i++) {
    ps[i].name = names[i];
    if (req(c, n, path, names[i], "a number", &ps[i].n)) return PS_EINPUT;
    jp(p, sizeof p, path, names[i]);
    if (rd_num(c, ps[i].n, p, -INFINITY, 0, &ps[i].v)) return PS_EINPUT;
  }
  int rc = 0;
  switch ((dist_kind)kind) {
  case DIST_CONST: rc = dist_const(d, ps[0].v, &why); break;
  case DIST_UNIFORM: rc = dist_uniform(d, ps[0].v, ps[1].v, &why); break;
  case DIST_NORMAL: rc = dist_normal(d, ps[0].v, ps[1].v, &why); break;
  case DIST_LOGNORMAL:
    rc = names[0][0] == 'm' && names[0][1] == 'u' ? dist_lognormal_mu_sigma(d, ps[0].v, ps[1].v, &why)
                                                  : dist_lognormal_mean_cv(d, ps[0].v, ps[1].v, &why);
    break;
  case DIST_GAMMA: rc = dist_gamma_mean_cv(d, ps[0].v, ps[1].v, &why); break;
  case DIST_EXPONENTIAL: rc = dist_exponential(d, ps[0].v, &why); break;
  case DIST_EMPIRICAL: {
    node *sn = opt(n, "samples"), *fn = opt(n, "file"), *pn = opt(n, "phase");
    if (sn && (fn || pn)) {
      const char *k = fn ? "file" : "phase";
      jp(p, sizeof p, path, k);
      return fail_at(c, &map_find(n, k)->at, p, "expected either samples or {file, phase}, got both");
    }
    double *xs = NULL;
    size_t nx = 0;
    if (sn || !(fn || pn)) {
      if (req(c, n, path, "samples", "a list of numbers >= 0 (or file and phase)", &sn)) return PS_EINPUT;
      jp(p, sizeof p, path, "samples");
      if (sn->kind != N_SEQ || sn->n == 0) return expect(c, sn, p, "a non-empty list of numbers >= 0");
      xs = xmalloc((size_t)sn->n * sizeof *xs);
      for (int i = 0; i < sn->n; i++) {
        char pi[PB + 16];
        snprintf(pi, sizeof pi, "%s[%d]", p, i);
        if (rd_num(c, sn->items[i], pi, 0, 0, &xs[i])) {
          free(xs);
          return PS_EINPUT;
        }
      }
      nx = (size_t)sn->n;
    } else {
      const char *file, *ph;
      char pf[PB], pp[PB];
      jp(pf, sizeof pf, path, "file");
      jp(pp, sizeof pp, path, "phase");
      if (req(c, n, path, "file", "a spans file (provesim.spans/1)", &fn) || rd_str(c, fn, pf, &file) ||
          req(c, n, path, "phase", "the name of a phase in the spans file", &pn) || rd_str(c, pn, pp, &ph))
        return PS_EINPUT;
      char *fpath = relative_to(fn->at.origin ? NULL : fn->at.file, file);
      emp_ctx x = {.phase = ph};
      ps_err se;
      int src = spans_read(fpath, NULL, emp_collect, &x, &se);
      if (src) {
        free(x.v);
        rc = fail_at(c, &fn->at, pf, "expected a readable provesim.spans/1 file, got \"%s\" (%s)", fpath, se.msg);
        free(fpath);
        return rc;
      }
      if (x.n == 0) {
        rc = fail_at(c, &pn->at, pp, "expected a phase with spans in %s, got \"%s\" (no span has that phase)", fpath, ph);
        free(fpath);
        return rc;
      }
      free(fpath);
      xs = x.v;
      nx = x.n;
    }
    if (dist_empirical(d, xs, nx, &why)) return expect(c, opt(n, "samples") ? opt(n, "samples") : n, path, why);
    return 0;
  }
  }
  if (rc) return dist_refused(c, n, path, ps, np, why);
  return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Models. */

static const char *const RES_NAMES[] = {"cpu", "gpu", "pcie", "none", NULL};
static const char *const MODEL_KEYS[] = {"model", "source", "phases", "scopes", NULL};
static const char *const PHASE_KEYS[] = {"name",  "resource", "threads",      "time", "fixed",
                                         "batch", "after",    "host_mem_gib", "busy", NULL};

/* "a, b, c" of the model's phase names (or scope names), for error messages. */
static void list_names(char *out, size_t cap, const model *m, int scopes) {
  out[0] = 0;
  int n = scopes ? m->nscopes : m->nphases;
  for (int i = 0; i < n; i++) {
    const char *s = scopes ? m->scopes[i].name : m->phases[i].name;
    if (strlen(out) + strlen(s) + 8 > cap) {
      strncat(out, ", ...", cap - strlen(out) - 1);
      break;
    }
    if (i) strcat(out, ", ");
    strcat(out, s);
  }
}

/* A phase name given as a value (in after, scopes, mutex): its index. */
static int rd_phase_ref(ld *c, const model *m, const node *n, const char *path, int *out) {
  if (n->kind == N_SCALAR && !is_null(n)) {
    int i = scn_phase_index(m, n->str);
    if (i >= 0) {
      *out = i;
      return 0;
    }
  }
  char names[400], what[480];
  list_names(names, sizeof names, m, 0);
  snprintf(what, sizeof what, "the name of a phase of the model (%s)", names);
  return expect(c, n, path, what);
}

/* A {from: PHASE, to: PHASE} region. */
static int rd_region(ld *c, const model *m, const node *n, const char *path, int *from, int *to) {
  static const char *const keys[] = {"from", "to", NULL};
  node *fn, *tn;
  char p[PB];
  if (check_map(c, n, path, keys) || req(c, n, path, "from", "a phase name", &fn) ||
      req(c, n, path, "to", "a phase name", &tn))
    return PS_EINPUT;
  jp(p, sizeof p, path, "from");
  if (rd_phase_ref(c, m, fn, p, from)) return PS_EINPUT;
  jp(p, sizeof p, path, "to");
  if (rd_phase_ref(c, m, tn, p, to)) return PS_EINPUT;
  if (*to < *from) {
    char what[PB];
    snprintf(what, sizeof what, "a phase listed no earlier than from (%s) in phases", m->phases[*from].name);
    return expect(c, tn, p, what);
  }
  return 0;
}

/* The key path of phase i: phases.NAME when it has a name, phases[i] otherwise. */
static void phase_path(char *out, size_t cap, const char *base, const node *item, int i) {
  const node *nm = opt(item, "name");
  char ph[PB];
  jp(ph, sizeof ph, base, "phases");
  char idx[24];
  snprintf(idx, sizeof idx, "[%d]", i);
  const char *named[] = {ph, ".", nm ? nm->str : "", NULL}, *indexed[] = {ph, idx, NULL};
  cat_path(out, cap, (nm && nm->kind == N_SCALAR) ? named : indexed);
}

/* Find a cycle in the after graph; on success returns 0, else fills cyc[0..*len-1]
 * (each waits for the next, and the last for the first) and returns 1. */
static int find_cycle(const model *m, int *cyc, int *len) {
  int n = m->nphases, rc = 0;
  int *color = xcalloc((size_t)n, sizeof *color), *stack = xmalloc((size_t)n * sizeof *stack),
      *edge = xmalloc((size_t)n * sizeof *edge);
  for (int s = 0; s < n && !rc; s++) {
    if (color[s]) continue;
    int top = 0;
    stack[top] = s, edge[top] = 0, color[s] = 1;
    while (top >= 0 && !rc) {
      int u = stack[top];
      if (edge[top] < m->phases[u].nafter) {
        int w = m->phases[u].after[edge[top]++];
        if (color[w] == 1) {
          int k = top;
          while (stack[k] != w) k--;
          *len = 0;
          for (int j = k; j <= top; j++) cyc[(*len)++] = stack[j];
          rc = 1;
        } else if (!color[w]) {
          top++;
          stack[top] = w, edge[top] = 0, color[w] = 1;
        }
      } else {
        color[u] = 2;
        top--;
      }
    }
  }
  free(color);
  free(stack);
  free(edge);
  return rc;
}

/* Build a model from the mapping mn; base is the key path of mn ("" for a model file,
 * "model" for an inline model). */
static int build_model(ld *c, node *mn, const char *base, const char *path, model **out) {
  char p[PB], pp[PB];
  model *m = xcalloc(1, sizeof *m);
  node *x, *phs;
  const char *s = NULL;
  int rc = PS_EINPUT;
  if (check_map(c, mn, base, MODEL_KEYS)) goto fail;
  jp(p, sizeof p, base, "model");
  if (req(c, mn, base, "model", "the model's name (a string)", &x) || rd_str(c, x, p, &s)) goto fail;
  m->name = xstrdup(s);
  if ((x = opt(mn, "source"))) {
    jp(p, sizeof p, base, "source");
    if (rd_str(c, x, p, &s)) goto fail;
    m->source = xstrdup(s);
  }
  m->path = path ? xstrdup(path) : NULL;
  jp(p, sizeof p, base, "phases");
  if (req(c, mn, base, "phases", "a non-empty list of phases", &phs)) goto fail;
  if (phs->kind != N_SEQ || phs->n == 0) {
    expect(c, phs, p, "a non-empty list of phases");
    goto fail;
  }
  m->phases = xcalloc((size_t)phs->n, sizeof *m->phases);
  /* First the names, so after/scopes can refer to phases listed later. */
  for (int i = 0; i < phs->n; i++) {
    node *it = phs->items[i];
    phase_path(pp, sizeof pp, base, it, i);
    if (check_map(c, it, pp, PHASE_KEYS)) goto fail;
    jp(p, sizeof p, pp, "name");
    if (req(c, it, pp, "name", "the phase's name", &x) || rd_name(c, x, p, &s)) goto fail;
    if (!strcmp(s, "mutex_wait") || !strcmp(s, "mutex_held")) {
      expect(c, x, p, "a name other than mutex_wait and mutex_held (spans use those)");
      goto fail;
    }
    if (scn_phase_index(m, s) >= 0) {
      expect(c, x, p, "a name no other phase has");
      goto fail;
    }
    m->phases[i].name = xstrdup(s);
    m->nphases = i + 1;
  }
  for (int i = 0; i < phs->n; i++) {
    node *it = phs->items[i];
    phase *ph = &m->phases[i];
    int r;
    phase_path(pp, sizeof pp, base, it, i);
    jp(p, sizeof p, pp, "resource");
    if (req(c, it, pp, "resource", "one of cpu, gpu, pcie, none", &x) || rd_enum(c, x, p, RES_NAMES, &r)) goto fail;
    ph->resource = (res_kind)r;
    ph->threads = 1;
    if ((x = opt(it, "threads"))) {
      jp(p, sizeof p, pp, "threads");
      if (rd_i(c, x, p, 1, &ph->threads)) goto fail;
      if (ph->resource != RES_CPU && ph->threads != 1) {
        char what[96];
        snprintf(what, sizeof what, "1 for a %s phase (threads counts CPU cores)", RES_NAMES[r]);
        expect(c, x, p, what);
        goto fail;
      }
    }
    jp(p, sizeof p, pp, "time");
    if (req(c, it, pp, "time", "a distribution (seconds per partition)", &x) || rd_dist(c, x, p, &ph->time)) goto fail;
    if ((x = opt(it, "fixed"))) {
      jp(p, sizeof p, pp, "fixed");
      if (rd_dist(c, x, p, &ph->fixed)) goto fail;
      ph->has_fixed = 1;
    }
    if ((x = opt(it, "batch"))) {
      static const char *const bkeys[] = {"scale", NULL};
      node *sc;
      jp(p, sizeof p, pp, "batch");
      if (check_map(c, x, p, bkeys) || req(c, x, p, "scale", "a non-empty list of numbers > 0", &sc)) goto fail;
      jp(p, sizeof p, pp, "batch.scale");
      if (sc->kind != N_SEQ || sc->n == 0) {
        expect(c, sc, p, "a non-empty list of numbers > 0 (multipliers for k = 1, 2, ...)");
        goto fail;
      }
      ph->scale = xmalloc((size_t)sc->n * sizeof *ph->scale);
      ph->nscale = sc->n;
      for (int k = 0; k < sc->n; k++) {
        char pk[PB + 16];
        snprintf(pk, sizeof pk, "%s[%d]", p, k);
        if (rd_num(c, sc->items[k], pk, 0, 1, &ph->scale[k])) goto fail;
      }
    }
    if ((x = opt(it, "host_mem_gib"))) {
      jp(p, sizeof p, pp, "host_mem_gib");
      if (rd_num(c, x, p, 0, 0, &ph->host_mem_gib)) goto fail;
    }
    ph->busy = 1;
    if ((x = opt(it, "busy"))) {
      jp(p, sizeof p, pp, "busy");
      if (ph->resource != RES_GPU) {
        expect(c, x, p, "no busy: key on a cpu/pcie/none phase (busy is the kernel share of a gpu phase)");
        goto fail;
      }
      if (rd_num(c, x, p, 0, 1, &ph->busy)) goto fail;
      if (ph->busy > 1) {
        expect(c, x, p, "a number > 0 and <= 1 (the share of the phase's time the GPU executes kernels)");
        goto fail;
      }
    }
    pair *ap = map_find(it, "after");
    if (!ap || is_null(ap->val)) {
      if (i > 0) {
        ph->after = xmalloc(sizeof *ph->after);
        ph->after[0] = i - 1;
        ph->nafter = 1;
      }
    } else {
      x = ap->val;
      jp(p, sizeof p, pp, "after");
      if (x->kind != N_SEQ) {
        expect(c, x, p, "a list of phase names ([] for the start of the call)");
        goto fail;
      }
      ph->after = xmalloc((size_t)(x->n ? x->n : 1) * sizeof *ph->after);
      for (int k = 0; k < x->n; k++) {
        char pk[PB + 16];
        snprintf(pk, sizeof pk, "%s[%d]", p, k);
        int w;
        if (rd_phase_ref(c, m, x->items[k], pk, &w)) goto fail;
        for (int j = 0; j < ph->nafter; j++)
          if (ph->after[j] == w) {
            expect(c, x->items[k], pk, "each phase once in after");
            goto fail;
          }
        ph->after[ph->nafter++] = w;
      }
    }
  }
  int *cyc = xmalloc((size_t)m->nphases * sizeof *cyc), clen;
  if (find_cycle(m, cyc, &clen)) {
    /* Blame an explicit after list on the cycle (a default edge only points back to
     * the previous phase, so every cycle has one), preferring one set by an override. */
    int blame = -1;
    for (int k = 0; k < clen; k++) {
      pair *ap = map_find(phs->items[cyc[k]], "after");
      if (ap && !is_null(ap->val) && (blame < 0 || ap->val->at.origin)) blame = k;
    }
    PS_ASSERT(blame >= 0);
    ps_buf b = {0};
    for (int k = 0; k <= clen; k++) ps_buf_printf(&b, "%s%s", k ? " -> " : "", m->phases[cyc[(blame + k) % clen]].name);
    node *it = phs->items[cyc[blame]];
    phase_path(pp, sizeof pp, base, it, cyc[blame]);
    jp(p, sizeof p, pp, "after");
    fail_at(c, &map_find(it, "after")->val->at, p,
            "expected phases whose after lists form no cycle, got the cycle %s (each waits for the next)", b.p);
    ps_buf_free(&b);
    free(cyc);
    goto fail;
  }
  free(cyc);
  if ((x = opt(mn, "scopes"))) {
    jp(pp, sizeof pp, base, "scopes");
    if (x->kind != N_MAP) {
      expect(c, x, pp, "a mapping of scope names to {from: PHASE, to: PHASE}");
      goto fail;
    }
    m->scopes = xcalloc((size_t)(x->n ? x->n : 1), sizeof *m->scopes);
    for (int k = 0; k < x->n; k++) {
      pair *sp = &x->pairs[k];
      jp(p, sizeof p, pp, sp->key);
      node keyn = {.kind = N_SCALAR, .at = sp->at, .str = sp->key};
      if (rd_name(c, &keyn, p, &s)) goto fail;
      if (!strcmp(s, "none")) {
        fail_at(c, &sp->at, p, "expected a scope name other than none, got \"none\" (it is reserved: it means no mutex)");
        goto fail;
      }
      scope *sc = &m->scopes[m->nscopes];
      if (rd_region(c, m, sp->val, p, &sc->from, &sc->to)) goto fail;
      sc->name = xstrdup(s);
      m->nscopes++;
    }
  }
  *out = m;
  return 0;
fail:
  scn_model_free(m);
  return rc;
}

/* ---------------------------------------------------------------------------------- */
/* Overrides. */

typedef struct ovr {
  const char *text; /* "key=value", borrowed */
  char *key;
  char **segs;
  int nsegs;
  node *val; /* owned until applied */
  loc at;
} ovr;

static void ovr_free(ovr *o) {
  free(o->key);
  for (int i = 0; i < o->nsegs; i++) free(o->segs[i]);
  free(o->segs);
  node_free(o->val);
}

static int ovr_parse(ld *c, const char *text, ovr *o) {
  *o = (ovr){.text = text, .at = {NULL, text, 0, 0}};
  const char *eq = strchr(text, '=');
  if (!eq || eq == text)
    return ps_fail(c->e, PS_EINPUT, "--set %s: expected KEY=VALUE (e.g. system.workers_per_gpu=4), got \"%s\"", text,
                   text);
  o->key = xasprintf("%.*s", (int)(eq - text), text);
  for (const char *p = o->key;;) {
    const char *d = strchr(p, '.');
    size_t n = d ? (size_t)(d - p) : strlen(p);
    if (n == 0) return fail_at(c, &o->at, o->key, "expected a dotted key path (like run.seed), got an empty part");
    o->segs = xrealloc(o->segs, (size_t)(o->nsegs + 1) * sizeof *o->segs);
    o->segs[o->nsegs++] = xasprintf("%.*s", (int)n, p);
    if (!d) break;
    p = d + 1;
  }
  yaml_parser_t yp;
  if (!yaml_parser_initialize(&yp)) return ps_fail(c->e, PS_ERR, "--set %s: cannot initialise the YAML parser", text);
  const char *v = eq + 1;
  yaml_parser_set_input_string(&yp, (const unsigned char *)v, strlen(v));
  /* Everything the override brings is located at the override, not in a file. */
  int rc = parse_tree(c, &yp, NULL, text, o->key, &o->val);
  yaml_parser_delete(&yp);
  return rc;
}

/* Set segs (relative to root, whose key path is base) to o's value, creating missing
 * mappings on the way. */
static int set_path(ld *c, node *root, const char *base, char *const *segs, int nsegs, ovr *o) {
  char p[PB];
  snprintf(p, sizeof p, "%s", base);
  node *cur = root;
  for (int i = 0; i < nsegs; i++) {
    if (cur->kind != N_MAP) {
      char g[128];
      return fail_at(c, &o->at, p, "expected a mapping to set %s in, got %s", segs[i], render(cur, g, sizeof g));
    }
    if (i == nsegs - 1) {
      map_put(cur, segs[i], o->at, o->val);
      o->val = NULL;
      return 0;
    }
    pair *pr = map_find(cur, segs[i]);
    if (!pr) pr = map_put(cur, segs[i], o->at, node_new(N_MAP, o->at));
    else if (is_null(pr->val)) {
      node_free(pr->val);
      pr->val = node_new(N_MAP, o->at);
    }
    cur = pr->val;
    char q[PB];
    jp(q, sizeof q, p, segs[i]);
    memcpy(p, q, sizeof p);
  }
  PS_ASSERT(0);
  return PS_EINPUT;
}

/* Is this override addressed to the model (phases.*, scopes.*, model.*)? */
static int ovr_is_model(const ovr *o) {
  return !strcmp(o->segs[0], "phases") || !strcmp(o->segs[0], "scopes") ||
         (!strcmp(o->segs[0], "model") && o->nsegs > 1);
}

static int apply_model_ovr(ld *c, node *mroot, const char *base, ovr *o) {
  char *const *segs = o->segs;
  int nsegs = o->nsegs;
  char p[PB];
  if (!strcmp(segs[0], "model")) {
    if (nsegs == 2 && !strcmp(segs[1], "name")) {
      char *k[] = {"model"};
      return set_path(c, mroot, base, k, 1, o);
    }
    if (nsegs == 2 && !strcmp(segs[1], "source")) return set_path(c, mroot, base, segs + 1, 1, o);
    if (strcmp(segs[1], "phases") && strcmp(segs[1], "scopes"))
      return fail_at(c, &o->at, o->key,
                     "expected a model key (model.name, model.source, phases.NAME.KEY, scopes.NAME), got \"%s\"",
                     o->key);
    segs++, nsegs--;
  }
  if (!strcmp(segs[0], "scopes") || nsegs == 1) return set_path(c, mroot, base, segs, nsegs, o);
  /* phases.NAME[.KEY...]: the phase with that name. */
  jp(p, sizeof p, base, "phases");
  node *phs = opt(mroot, "phases");
  if (!phs || phs->kind != N_SEQ) {
    char g[128];
    return fail_at(c, &o->at, p, "expected a list of phases to address by name, got %s", render(phs, g, sizeof g));
  }
  int idx = -1;
  ps_buf names = {0};
  for (int i = 0; i < phs->n; i++) {
    node *nm = opt(phs->items[i], "name");
    if (!nm || nm->kind != N_SCALAR) continue;
    ps_buf_printf(&names, "%s%s", names.len ? ", " : "", nm->str);
    if (idx < 0 && !strcmp(nm->str, segs[1])) idx = i;
  }
  char q[PB];
  jp(q, sizeof q, p, segs[1]);
  if (idx < 0) {
    int rc = fail_at(c, &o->at, q, "expected the name of a phase of the model (%s), got \"%s\"",
                     names.p ? names.p : "", segs[1]);
    ps_buf_free(&names);
    return rc;
  }
  ps_buf_free(&names);
  if (nsegs == 2) {
    /* The whole phase: keep its name unless the new mapping gives one. */
    if (o->val->kind == N_MAP && !map_find(o->val, "name"))
      map_put(o->val, "name", o->at, scalar_new(o->at, segs[1], strlen(segs[1]), 1));
    node_free(phs->items[idx]);
    phs->items[idx] = o->val;
    o->val = NULL;
    return 0;
  }
  return set_path(c, phs->items[idx], q, segs + 2, nsegs - 2, o);
}

/* ---------------------------------------------------------------------------------- */
/* Scenarios. */

static const char *const SCN_KEYS[] = {"scenario", "description", "model", "system", "workload", "run", "prover", NULL};
static const char *const SYS_KEYS[] = {"gpus", "workers_per_gpu", "cpu_cores", "batch", "mutex", "gpu_sharing", "cpu_sharing", NULL};
static const char *const WL_KEYS[] = {"partitions", "arrivals", NULL};
static const char *const ARR_KEYS[] = {"process", "proofs_per_hour", "partitions_per_proof", NULL};
static const char *const RUN_KEYS[] = {"warmup", "cooldown", "replications", "seed", NULL};
static const char *const PROVER_KEYS[] = {"circuit", "constraints", NULL};

static int scope_index(const model *m, const char *name) {
  for (int i = 0; i < m->nscopes; i++)
    if (!strcmp(m->scopes[i].name, name)) return i;
  return -1;
}

static int rd_mutex(ld *c, scenario *s, node *n) {
  model *m = s->model;
  if (!n) {
    int k = scope_index(m, "call");
    s->mutex_name = xstrdup(k >= 0 ? "call" : "none");
    s->mutex_from = k >= 0 ? m->scopes[k].from : -1;
    s->mutex_to = k >= 0 ? m->scopes[k].to : -1;
    return 0;
  }
  if (n->kind == N_MAP) {
    if (rd_region(c, m, n, "system.mutex", &s->mutex_from, &s->mutex_to)) return PS_EINPUT;
    s->mutex_name = xstrdup("custom");
    return 0;
  }
  if (n->kind == N_SCALAR && !strcmp(n->str, "none")) {
    s->mutex_name = xstrdup("none");
    s->mutex_from = s->mutex_to = -1;
    return 0;
  }
  int k = n->kind == N_SCALAR ? scope_index(m, n->str) : -1;
  if (k < 0) {
    char names[400], what[520];
    list_names(names, sizeof names, m, 1);
    snprintf(what, sizeof what, "none, a scope of the model (%s) or {from: PHASE, to: PHASE}",
             m->nscopes ? names : "it offers none");
    return expect(c, n, "system.mutex", what);
  }
  s->mutex_name = xstrdup(m->scopes[k].name);
  s->mutex_from = m->scopes[k].from;
  s->mutex_to = m->scopes[k].to;
  return 0;
}

/* Pick, of two nodes in a cross-check, the one an override set (so the error names the
 * override that caused it), else a (which may be NULL). */
static const node *pick(const node *a, const node *b) {
  if (b && b->at.origin && !(a && a->at.origin)) return b;
  return a ? a : b;
}

static int build_scenario(ld *c, const char *path, node *root, ovr *ovs, int nov, scenario *s) {
  char p[PB];
  node *x, *y;
  const char *str = NULL;
  if (check_map(c, root, "", SCN_KEYS)) return PS_EINPUT;
  s->path = xstrdup(path);
  if (req(c, root, "", "scenario", "the scenario's name (a string)", &x) || rd_str(c, x, "scenario", &str))
    return PS_EINPUT;
  s->name = xstrdup(str);
  if ((x = opt(root, "description"))) {
    if (rd_str(c, x, "description", &str)) return PS_EINPUT;
    s->description = xstrdup(str);
    /* A folded or literal block keeps its final line break; a report has no use for it. */
    for (size_t n = strlen(s->description); n > 0 && s->description[n - 1] == '\n'; n--) s->description[n - 1] = 0;
  }

  /* The model: inline, or a file named relative to the scenario. */
  node *mroot = NULL, *mfile = NULL;
  const char *mbase = "model";
  char *mpath = NULL;
  if (req(c, root, "", "model", "a model file name or an inline model mapping", &x)) return PS_EINPUT;
  if (x->kind == N_MAP) {
    mroot = x;
  } else if (x->kind == N_SCALAR) {
    mpath = relative_to(x->at.origin ? NULL : x->at.file, x->str);
    if (load_file(c, mpath, "model", &x->at, "model", &mfile)) {
      free(mpath);
      return PS_EINPUT;
    }
    mroot = mfile;
    mbase = "";
  } else {
    return expect(c, x, "model", "a model file name or an inline model mapping");
  }
  int rc = 0;
  for (int i = 0; i < nov && !rc; i++)
    if (ovr_is_model(&ovs[i])) rc = apply_model_ovr(c, mroot, mbase, &ovs[i]);
  if (!rc) rc = build_model(c, mroot, mbase, mpath, &s->model);
  free(mpath);
  if (rc) {
    node_free(mfile);
    return rc;
  }

  /* system */
  node *sys = opt(root, "system");
  if (sys && check_map(c, sys, "system", SYS_KEYS)) goto fail;
  s->gpus = s->workers_per_gpu = s->batch = 1;
  s->cpu_cores = 32;
  struct {
    const char *key;
    int *dst;
  } ints[] = {{"gpus", &s->gpus}, {"workers_per_gpu", &s->workers_per_gpu}, {"cpu_cores", &s->cpu_cores}, {"batch", &s->batch}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if ((x = opt(sys, ints[i].key))) {
      jp(p, sizeof p, "system", ints[i].key);
      if (i == 0) {
        int64_t v = 0;
        if (rd_int(c, x, p, 1, PS_MAX_GPUS, &v)) goto fail;
        *ints[i].dst = (int)v;
      } else if (rd_i(c, x, p, 1, ints[i].dst)) {
        goto fail;
      }
    }
  if (rd_mutex(c, s, opt(sys, "mutex"))) goto fail;
  if ((x = opt(sys, "gpu_sharing"))) {
    static const char *const v[] = {"exclusive", "shared", NULL};
    if (rd_enum(c, x, "system.gpu_sharing", v, &s->gpu_shared)) goto fail;
  }
  if ((x = opt(sys, "cpu_sharing"))) {
    static const char *const v[] = {"ps", "fifo", NULL};
    if (rd_enum(c, x, "system.cpu_sharing", v, &s->cpu_fifo)) goto fail;
  }

  /* workload */
  node *wl = opt(root, "workload");
  if (!wl) {
    fail_at(c, &root->at, "workload.partitions", "expected an integer >= 1, got nothing");
    goto fail;
  }
  if (check_map(c, wl, "workload", WL_KEYS)) goto fail;
  if (req(c, wl, "workload", "partitions", "an integer >= 1", &x) ||
      rd_int(c, x, "workload.partitions", 1, INT64_MAX, &s->partitions))
    goto fail;
  s->arrivals = ARR_CLOSED;
  s->partitions_per_proof = 1;
  if ((x = opt(wl, "arrivals"))) {
    static const char *const procs[] = {"poisson", "fixed", NULL};
    int pk;
    if (check_map(c, x, "workload.arrivals", ARR_KEYS) ||
        req(c, x, "workload.arrivals", "process", "one of poisson, fixed", &y) ||
        rd_enum(c, y, "workload.arrivals.process", procs, &pk))
      goto fail;
    s->arrivals = pk == 0 ? ARR_POISSON : ARR_FIXED;
    if (req(c, x, "workload.arrivals", "proofs_per_hour", "a number > 0", &y) ||
        rd_num(c, y, "workload.arrivals.proofs_per_hour", 0, 1, &s->proofs_per_hour))
      goto fail;
    if ((y = opt(x, "partitions_per_proof")) &&
        rd_i(c, y, "workload.arrivals.partitions_per_proof", 1, &s->partitions_per_proof))
      goto fail;
  }

  /* run */
  node *run = opt(root, "run");
  if (run && check_map(c, run, "run", RUN_KEYS)) goto fail;
  s->replications = 1;
  s->seed = 1;
  node *wn = opt(run, "warmup");
  if (wn && rd_int(c, wn, "run.warmup", 0, INT64_MAX, &s->warmup)) goto fail;
  node *cn = opt(run, "cooldown");
  if (cn && rd_int(c, cn, "run.cooldown", 0, INT64_MAX, &s->cooldown)) goto fail;
  if ((x = opt(run, "replications")) && rd_i(c, x, "run.replications", 1, &s->replications)) goto fail;
  if ((x = opt(run, "seed"))) {
    int ok = x->kind == N_SCALAR && !x->quoted && x->str[0] && x->str[0] != '-';
    for (const char *q = x->str; ok && *q; q++) ok = isdigit((unsigned char)*q) || (q == x->str && *q == '+');
    errno = 0;
    unsigned long long v = ok ? strtoull(x->str, NULL, 10) : 0;
    if (!ok || errno == ERANGE) {
      expect(c, x, "run.seed", "an integer from 0 to 18446744073709551615");
      goto fail;
    }
    s->seed = (uint64_t)v;
  }

  /* prover (read by measure, ignored by the simulator) */
  if ((x = opt(root, "prover"))) {
    if (check_map(c, x, "prover", PROVER_KEYS)) goto fail;
    if ((y = opt(x, "circuit"))) {
      if (rd_str(c, y, "prover.circuit", &str)) goto fail;
      s->prover_circuit = xstrdup(str);
    }
    if ((y = opt(x, "constraints"))) {
      int64_t v = 0;
      int ok = !scalar_i64(y, &v) && v >= 1;
      if (!ok && y->kind == N_SCALAR && !strncmp(y->str, "2^", 2)) {
        char *end;
        errno = 0;
        long e = strtol(y->str + 2, &end, 10);
        if (end != y->str + 2 && !*end && !errno && e >= 0 && e <= 62) v = (int64_t)1 << e, ok = 1;
      }
      if (!ok) {
        expect(c, y, "prover.constraints", "an integer >= 1 or a power of two written \"2^N\" (N from 0 to 62)");
        goto fail;
      }
      s->prover_constraints = v;
    }
  }

  /* Checks across keys. */
  if (s->warmup >= s->partitions) {
    const node *pn = map_find(wl, "partitions")->val;
    const node *at = pick(wn, pn);
    char what[160];
    if (at == wn) {
      snprintf(what, sizeof what, "an integer from 0 to %" PRId64 " (fewer than workload.partitions, %" PRId64 ")",
               s->partitions - 1, s->partitions);
      expect(c, wn, "run.warmup", what);
    } else {
      snprintf(what, sizeof what, "an integer > run.warmup (%" PRId64 ")", s->warmup);
      expect(c, pn, "workload.partitions", what);
    }
    goto fail;
  }
  if (s->cooldown > s->partitions - s->warmup - 1) {
    /* The window runs from the warmup-th completion to the (partitions - cooldown)-th. */
    node *pn = map_find(wl, "partitions")->val;
    const node *at = cn;
    if (!cn->at.origin) at = pn->at.origin ? pn : wn && wn->at.origin ? wn : cn;
    char what[200];
    if (at == cn) {
      snprintf(what, sizeof what, "an integer from 0 to %" PRId64 " (workload.partitions - run.warmup - 1)",
               s->partitions - s->warmup - 1);
      expect(c, cn, "run.cooldown", what);
    } else if (at == pn) {
      snprintf(what, sizeof what, "an integer > run.warmup + run.cooldown (%" PRId64 ")", s->warmup + s->cooldown);
      expect(c, pn, "workload.partitions", what);
    } else {
      snprintf(what, sizeof what, "an integer from 0 to %" PRId64 " (workload.partitions - run.cooldown - 1)",
               s->partitions - s->cooldown - 1);
      expect(c, wn, "run.warmup", what);
    }
    goto fail;
  }
  node *mphs = opt(mroot, "phases");
  for (int i = 0; i < s->model->nphases; i++) {
    phase *ph = &s->model->phases[i];
    node *it = mphs->items[i];
    char pp[PB];
    phase_path(pp, sizeof pp, mbase, it, i);
    if (ph->threads > s->cpu_cores) {
      node *tn = opt(it, "threads"), *coren = opt(sys, "cpu_cores");
      char what[PB];
      jp(p, sizeof p, pp, "threads");
      if (pick(coren, tn) == coren) {
        snprintf(what, sizeof what, "an integer >= %d (phase %s wants threads: %d)", ph->threads, ph->name, ph->threads);
        expect(c, coren, "system.cpu_cores", what);
      } else {
        snprintf(what, sizeof what, "an integer from 1 to %d (system.cpu_cores)", s->cpu_cores);
        expect(c, tn, p, what);
      }
      goto fail;
    }
    if (ph->nscale && s->batch > ph->nscale) {
      node *bn = opt(sys, "batch"), *sn = opt(opt(it, "batch"), "scale");
      char what[PB];
      if (pick(bn, sn) == bn) {
        snprintf(what, sizeof what, "an integer from 1 to %d (phase %s's batch.scale has %d multipliers)", ph->nscale,
                 ph->name, ph->nscale);
        expect(c, bn, "system.batch", what);
      } else {
        jp(p, sizeof p, pp, "batch.scale");
        snprintf(what, sizeof what, "at least %d multipliers (system.batch is %d)", s->batch, s->batch);
        expect(c, sn, p, what);
      }
      goto fail;
    }
  }
  node_free(mfile);
  return 0;
fail:
  node_free(mfile);
  return PS_EINPUT;
}

/* ---------------------------------------------------------------------------------- */
/* Public API. */

int scn_load(const char *path, const char *const *overrides, int noverrides, scenario **out, ps_err *e) {
  ld c = {.e = e};
  node *root = NULL;
  ovr *ovs = xcalloc((size_t)(noverrides > 0 ? noverrides : 1), sizeof *ovs);
  int nov = 0, rc;
  scenario *s = NULL;
  if ((rc = load_file(&c, path, "scenario", NULL, NULL, &root))) goto out;
  for (; nov < noverrides; nov++)
    if ((rc = ovr_parse(&c, overrides[nov], &ovs[nov]))) {
      nov++;
      goto out;
    }
  /* Scenario keys now, in order; model keys once the model's tree is at hand. */
  for (int i = 0; i < nov; i++)
    if (!ovr_is_model(&ovs[i]) && (rc = set_path(&c, root, "", ovs[i].segs, ovs[i].nsegs, &ovs[i]))) goto out;
  s = xcalloc(1, sizeof *s);
  if ((rc = build_scenario(&c, path, root, ovs, nov, s))) goto out;
  *out = s;
  s = NULL;
out:
  scn_free(s);
  for (int i = 0; i < nov; i++) ovr_free(&ovs[i]);
  free(ovs);
  node_free(root);
  ld_done(&c);
  return rc;
}

int scn_load_model(const char *path, model **out, ps_err *e) {
  ld c = {.e = e};
  node *root = NULL;
  int rc = load_file(&c, path, "model", NULL, NULL, &root);
  if (!rc) rc = build_model(&c, root, "", path, out);
  node_free(root);
  ld_done(&c);
  return rc;
}

void scn_model_free(model *m) {
  if (!m) return;
  free(m->name);
  free(m->source);
  free(m->path);
  for (int i = 0; i < m->nphases; i++) {
    phase *p = &m->phases[i];
    free(p->name);
    dist_free(&p->time);
    dist_free(&p->fixed);
    free(p->scale);
    free(p->after);
  }
  /* A model freed while being built may have phases allocated past nphases. */
  free(m->phases);
  for (int i = 0; i < m->nscopes; i++) free(m->scopes[i].name);
  free(m->scopes);
  free(m);
}

void scn_free(scenario *s) {
  if (!s) return;
  free(s->name);
  free(s->description);
  free(s->path);
  scn_model_free(s->model);
  free(s->mutex_name);
  free(s->prover_circuit);
  free(s);
}

int scn_phase_index(const model *m, const char *name) {
  for (int i = 0; i < m->nphases; i++)
    if (m->phases[i].name && !strcmp(m->phases[i].name, name)) return i;
  return -1;
}

const char *scn_res_name(res_kind r) { return (unsigned)r < 4 ? RES_NAMES[r] : "?"; }

static void add_i64(cJSON *o, const char *key, int64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  cJSON_AddRawToObject(o, key, b);
}

static cJSON *dist_json(const dist *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "dist", dist_kind_name(d->kind));
  switch (d->kind) {
  case DIST_CONST: cJSON_AddNumberToObject(o, "value", d->a); break;
  case DIST_UNIFORM:
    cJSON_AddNumberToObject(o, "min", d->a);
    cJSON_AddNumberToObject(o, "max", d->b);
    break;
  case DIST_NORMAL:
    cJSON_AddNumberToObject(o, "mu", d->a);
    cJSON_AddNumberToObject(o, "sd", d->b);
    break;
  case DIST_LOGNORMAL:
    cJSON_AddNumberToObject(o, "mu", d->a);
    cJSON_AddNumberToObject(o, "sigma", d->b);
    break;
  case DIST_GAMMA:
    cJSON_AddNumberToObject(o, "shape", d->a);
    cJSON_AddNumberToObject(o, "scale", d->b);
    break;
  case DIST_EXPONENTIAL: break;
  case DIST_EMPIRICAL: {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < d->n; i++) lo = fmin(lo, d->samples[i]), hi = fmax(hi, d->samples[i]);
    add_i64(o, "n", (int64_t)d->n);
    cJSON_AddNumberToObject(o, "min", lo);
    cJSON_AddNumberToObject(o, "max", hi);
    break;
  }
  }
  cJSON_AddNumberToObject(o, "mean", dist_mean(d));
  return o;
}

static void add_str_or_null(cJSON *o, const char *key, const char *s) {
  if (s) cJSON_AddStringToObject(o, key, s);
  else cJSON_AddNullToObject(o, key);
}

cJSON *scn_to_json(const scenario *s) {
  const model *m = s->model;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "scenario", s->name);
  add_str_or_null(o, "description", s->description);

  cJSON *mj = cJSON_AddObjectToObject(o, "model");
  cJSON_AddStringToObject(mj, "model", m->name);
  add_str_or_null(mj, "source", m->source);
  cJSON *phs = cJSON_AddArrayToObject(mj, "phases");
  for (int i = 0; i < m->nphases; i++) {
    const phase *p = &m->phases[i];
    cJSON *pj = cJSON_CreateObject();
    cJSON_AddStringToObject(pj, "name", p->name);
    cJSON_AddStringToObject(pj, "resource", scn_res_name(p->resource));
    cJSON_AddNumberToObject(pj, "threads", p->threads);
    cJSON_AddItemToObject(pj, "time", dist_json(&p->time));
    if (p->has_fixed) cJSON_AddItemToObject(pj, "fixed", dist_json(&p->fixed));
    else cJSON_AddNullToObject(pj, "fixed");
    if (p->nscale) {
      cJSON *b = cJSON_AddObjectToObject(pj, "batch");
      cJSON_AddItemToObject(b, "scale", cJSON_CreateDoubleArray(p->scale, p->nscale));
    } else {
      cJSON_AddNullToObject(pj, "batch");
    }
    cJSON *af = cJSON_AddArrayToObject(pj, "after");
    for (int k = 0; k < p->nafter; k++) cJSON_AddItemToArray(af, cJSON_CreateString(m->phases[p->after[k]].name));
    cJSON_AddNumberToObject(pj, "host_mem_gib", p->host_mem_gib);
    if (p->resource == RES_GPU) cJSON_AddNumberToObject(pj, "busy", p->busy);
    cJSON_AddItemToArray(phs, pj);
  }
  cJSON *sc = cJSON_AddObjectToObject(mj, "scopes");
  for (int i = 0; i < m->nscopes; i++) {
    cJSON *r = cJSON_AddObjectToObject(sc, m->scopes[i].name);
    cJSON_AddStringToObject(r, "from", m->phases[m->scopes[i].from].name);
    cJSON_AddStringToObject(r, "to", m->phases[m->scopes[i].to].name);
  }

  cJSON *sys = cJSON_AddObjectToObject(o, "system");
  cJSON_AddNumberToObject(sys, "gpus", s->gpus);
  cJSON_AddNumberToObject(sys, "workers_per_gpu", s->workers_per_gpu);
  cJSON_AddNumberToObject(sys, "cpu_cores", s->cpu_cores);
  cJSON_AddNumberToObject(sys, "batch", s->batch);
  cJSON *mx = cJSON_AddObjectToObject(sys, "mutex");
  cJSON_AddStringToObject(mx, "scope", s->mutex_name);
  add_str_or_null(mx, "from", s->mutex_from >= 0 ? m->phases[s->mutex_from].name : NULL);
  add_str_or_null(mx, "to", s->mutex_to >= 0 ? m->phases[s->mutex_to].name : NULL);
  cJSON_AddStringToObject(sys, "gpu_sharing", s->gpu_shared ? "shared" : "exclusive");
  cJSON_AddStringToObject(sys, "cpu_sharing", s->cpu_fifo ? "fifo" : "ps");

  cJSON *wl = cJSON_AddObjectToObject(o, "workload");
  add_i64(wl, "partitions", s->partitions);
  if (s->arrivals == ARR_CLOSED) {
    cJSON_AddNullToObject(wl, "arrivals");
  } else {
    cJSON *a = cJSON_AddObjectToObject(wl, "arrivals");
    cJSON_AddStringToObject(a, "process", s->arrivals == ARR_POISSON ? "poisson" : "fixed");
    cJSON_AddNumberToObject(a, "proofs_per_hour", s->proofs_per_hour);
    cJSON_AddNumberToObject(a, "partitions_per_proof", s->partitions_per_proof);
  }

  cJSON *run = cJSON_AddObjectToObject(o, "run");
  add_i64(run, "warmup", s->warmup);
  add_i64(run, "cooldown", s->cooldown);
  cJSON_AddNumberToObject(run, "replications", s->replications);
  char b[32];
  snprintf(b, sizeof b, "%" PRIu64, s->seed);
  cJSON_AddRawToObject(run, "seed", b);

  cJSON *pv = cJSON_AddObjectToObject(o, "prover");
  add_str_or_null(pv, "circuit", s->prover_circuit);
  add_i64(pv, "constraints", s->prover_constraints);
  return o;
}
