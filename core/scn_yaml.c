/* The scenario loader's YAML half (scn_int.h): libyaml's document API read into a small
 * tree of our own, the tree's helpers, and the readers that check a node's type and range
 * and fail with file:line:col, the key path and what was expected. scn.c builds models
 * and scenarios from the tree. Nothing here is global: every load has its own context. */
#define _GNU_SOURCE
#include "scn.h"
#include "scn_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "spans.h"
#include "window.h"

node *scn__node_new(nkind k, loc at) {
  node *n = xcalloc(1, sizeof *n);
  n->kind = k;
  n->at = at;
  return n;
}

void scn__node_free(node *n) {
  if (!n) return;
  free(n->str);
  for (int i = 0; i < n->n; i++) {
    if (n->kind == N_MAP) {
      free(n->pairs[i].key);
      scn__node_free(n->pairs[i].val);
    } else if (n->kind == N_SEQ) {
      scn__node_free(n->items[i]);
    }
  }
  free(n->pairs);
  free(n->items);
  free(n);
}

node *scn__scalar_new(loc at, const char *s, size_t len, int quoted) {
  node *n = scn__node_new(N_SCALAR, at);
  n->str = xmalloc(len + 1);
  memcpy(n->str, s, len);
  n->str[len] = 0;
  n->quoted = quoted;
  return n;
}

pair *scn__map_find(const node *m, const char *key) {
  if (!m || m->kind != N_MAP) return NULL;
  for (int i = 0; i < m->n; i++)
    if (strcmp(m->pairs[i].key, key) == 0) return &m->pairs[i];
  return NULL;
}

/* Set key to val in m (takes ownership of val), replacing an existing value. */
pair *scn__map_put(node *m, const char *key, loc at, node *val) {
  pair *p = scn__map_find(m, key);
  if (p) {
    scn__node_free(p->val);
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

int scn__is_null(const node *n) {
  if (!n || n->kind != N_SCALAR || n->quoted) return 0;
  const char *s = n->str;
  return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* The value of key in m, or NULL when absent or null (a null value counts as absent). */
node *scn__opt(const node *m, const char *key) {
  pair *p = scn__map_find(m, key);
  return p && !scn__is_null(p->val) ? p->val : NULL;
}

static const char *ld_file(ld *c, const char *name) {
  c->files = xrealloc(c->files, (size_t)(c->nfiles + 1) * sizeof *c->files);
  c->files[c->nfiles] = xstrdup(name);
  return c->files[c->nfiles++];
}

void scn__ld_done(ld *c) {
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
    if (scn__is_null(n)) ps_buf_printf(b, "null");
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
const char *scn__render(const node *n, char *out, size_t cap) {
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
int scn__fail_at(ld *c, const loc *at, const char *path, const char *fmt, ...) {
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
int scn__expect(ld *c, const node *n, const char *path, const char *what) {
  char g[128];
  return scn__fail_at(c, &n->at, path, "expected %s, got %s", what, scn__render(n, g, sizeof g));
}

/* Appends the strings of a NULL-terminated list to out, cutting at cap: key paths longer
 * than the buffer only ever shorten a message. */
void scn__cat_path(char *out, size_t cap, const char *const *parts) {
  size_t i = 0;
  for (; *parts; parts++)
    for (const char *q = *parts; *q && i + 1 < cap; q++) out[i++] = *q;
  out[i] = 0;
}

void scn__jp(char *out, size_t cap, const char *base, const char *key) {
  const char *one[] = {key, NULL}, *two[] = {base, ".", key, NULL};
  scn__cat_path(out, cap, (!base || !*base) ? one : two);
}

/* A required key: missing ones are reported at the enclosing mapping. */
int scn__req(ld *c, const node *m, const char *base, const char *key, const char *what, node **out) {
  char p[PB];
  scn__jp(p, sizeof p, base, key);
  pair *pr = scn__map_find(m, key);
  if (!pr) return scn__fail_at(c, &m->at, p, "expected %s, got nothing", what);
  if (scn__is_null(pr->val)) return scn__expect(c, pr->val, p, what);
  *out = pr->val;
  return 0;
}

/* m must be a mapping whose keys are all among keys (NULL-terminated). */
int scn__check_map(ld *c, const node *m, const char *path, const char *const *keys) {
  if (m->kind != N_MAP) return scn__expect(c, m, path, "a mapping");
  for (int i = 0; i < m->n; i++) {
    int ok = 0;
    for (const char *const *k = keys; *k && !ok; k++) ok = !strcmp(*k, m->pairs[i].key);
    if (ok) continue;
    ps_buf b = {0};
    for (const char *const *k = keys; *k; k++) ps_buf_printf(&b, "%s%s", k == keys ? "" : ", ", *k);
    char p[PB], g[128];
    scn__jp(p, sizeof p, path, m->pairs[i].key);
    node tmp = {.kind = N_SCALAR, .str = m->pairs[i].key, .quoted = 1};
    int rc = scn__fail_at(c, &m->pairs[i].at, p, "expected one of the keys %s, got unknown key %s", b.p,
                     scn__render(&tmp, g, sizeof g));
    ps_buf_free(&b);
    return rc;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------- */
/* Typed values. */

int scn__scalar_double(const node *n, double *out) {
  if (n->kind != N_SCALAR || n->quoted || !looks_numeric(n->str)) return -1;
  errno = 0;
  double v = strtod(n->str, NULL);
  if (!isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* An integer: digits, or a number that is exactly integral (so 1e6 reads as 1000000). */
int scn__scalar_i64(const node *n, int64_t *out) {
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
  if (scn__scalar_double(n, &d) || d != floor(d) || fabs(d) > 9007199254740992.0) return -1;
  *out = (int64_t)d;
  return 0;
}

int scn__rd_int(ld *c, const node *n, const char *path, int64_t lo, int64_t hi, int64_t *out) {
  char what[96];
  int64_t v;
  int bad = scn__scalar_i64(n, &v);
  /* The upper bound is only worth mentioning to someone who went past it. */
  if (hi == INT64_MAX || bad || v <= hi) snprintf(what, sizeof what, "an integer >= %" PRId64, lo);
  else snprintf(what, sizeof what, "an integer from %" PRId64 " to %" PRId64, lo, hi);
  if (bad || v < lo || v > hi) return scn__expect(c, n, path, what);
  *out = v;
  return 0;
}

int scn__rd_i(ld *c, const node *n, const char *path, int lo, int *out) {
  int64_t v = 0;
  int rc = scn__rd_int(c, n, path, lo, INT_MAX, &v);
  if (!rc) *out = (int)v;
  return rc;
}

/* A finite number, > lo when strict, >= lo otherwise; lo = -INFINITY for any. */
int scn__rd_num(ld *c, const node *n, const char *path, double lo, int strict, double *out) {
  char what[64];
  if (lo == -INFINITY) snprintf(what, sizeof what, "a number");
  else snprintf(what, sizeof what, "a number %s %g", strict ? ">" : ">=", lo);
  double v;
  if (scn__scalar_double(n, &v) || (strict ? !(v > lo) : !(v >= lo))) return scn__expect(c, n, path, what);
  *out = v;
  return 0;
}

int scn__rd_str(ld *c, const node *n, const char *path, const char **out) {
  if (n->kind != N_SCALAR || scn__is_null(n)) return scn__expect(c, n, path, "a string");
  *out = n->str;
  return 0;
}

/* One of names (NULL-terminated); *out is its index. */
int scn__rd_enum(ld *c, const node *n, const char *path, const char *const *names, int *out) {
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
  return scn__expect(c, n, path, what);
}

/* Names of phases and scopes: letters, digits, '_' and '-', so `phases.NAME.KEY` can
 * address them. */
int scn__rd_name(ld *c, const node *n, const char *path, const char **out) {
  if (n->kind == N_SCALAR && !scn__is_null(n)) {
    int ok = 1;
    for (const char *p = n->str; *p; p++) ok &= isalnum((unsigned char)*p) || *p == '_' || *p == '-';
    if (ok) {
      *out = n->str;
      return 0;
    }
  }
  return scn__expect(c, n, path, "a name of letters, digits, '_' and '-'");
}

/* ---------------------------------------------------------------------------------- */
/* From libyaml to the tree. */

static int conv(ld *c, yaml_document_t *doc, yaml_node_t *y, const char *file, const char *origin, const char *path,
                int depth, node **out) {
  loc at = {file, origin, (int)y->start_mark.line + 1, (int)y->start_mark.column + 1};
  if (depth > MAX_DEPTH)
    return scn__fail_at(c, &at, path, "expected YAML nested at most %d deep (or an alias that refers to itself)", MAX_DEPTH);
  if (++c->nodes > MAX_NODES)
    return scn__fail_at(c, &at, path, "expected at most %ld YAML nodes (aliases count each time they are used)", MAX_NODES);
  node *n;
  char p[PB];
  switch (y->type) {
  case YAML_SCALAR_NODE:
    *out = scn__scalar_new(at, (const char *)y->data.scalar.value, y->data.scalar.length,
                      y->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
    return 0;
  case YAML_SEQUENCE_NODE:
    n = scn__node_new(N_SEQ, at);
    for (yaml_node_item_t *it = y->data.sequence.items.start; it < y->data.sequence.items.top; it++) {
      yaml_node_t *ch = yaml_document_get_node(doc, *it);
      PS_ASSERT(ch);
      snprintf(p, sizeof p, "%s[%d]", path, n->n);
      node *item;
      if (conv(c, doc, ch, file, origin, p, depth + 1, &item)) {
        scn__node_free(n);
        return PS_EINPUT;
      }
      seq_push(n, item);
    }
    *out = n;
    return 0;
  case YAML_MAPPING_NODE:
    n = scn__node_new(N_MAP, at);
    for (yaml_node_pair_t *pr = y->data.mapping.pairs.start; pr < y->data.mapping.pairs.top; pr++) {
      yaml_node_t *k = yaml_document_get_node(doc, pr->key);
      yaml_node_t *v = yaml_document_get_node(doc, pr->value);
      PS_ASSERT(k && v);
      loc kat = {file, origin, (int)k->start_mark.line + 1, (int)k->start_mark.column + 1};
      if (k->type != YAML_SCALAR_NODE) {
        scn__node_free(n);
        return scn__fail_at(c, &kat, path, "expected keys that are strings, got a %s as a key",
                       k->type == YAML_MAPPING_NODE ? "mapping" : "list");
      }
      const char *key = (const char *)k->data.scalar.value;
      scn__jp(p, sizeof p, path, key);
      if (scn__map_find(n, key)) {
        scn__node_free(n);
        return scn__fail_at(c, &kat, p, "expected each key once in a mapping, got \"%s\" a second time", key);
      }
      node *val;
      if (conv(c, doc, v, file, origin, p, depth + 1, &val)) {
        scn__node_free(n);
        return PS_EINPUT;
      }
      scn__map_put(n, key, kat, val);
    }
    *out = n;
    return 0;
  default: break;
  }
  return scn__fail_at(c, &at, path, "expected a YAML value, got an empty node");
}

/* Parse YAML from parser into *out; file/origin name the source in locations. An empty
 * document gives a null scalar. */
int scn__parse_tree(ld *c, yaml_parser_t *yp, const char *file, const char *origin, const char *ypath, node **out) {
  yaml_document_t doc;
  if (!yaml_parser_load(yp, &doc)) {
    loc at = {file, origin, (int)yp->problem_mark.line + 1, (int)yp->problem_mark.column + 1};
    char ctx[160] = "";
    if (yp->error == YAML_READER_ERROR)
      snprintf(ctx, sizeof ctx, " (at byte %zu of the input)", yp->problem_offset);
    else if (yp->context)
      snprintf(ctx, sizeof ctx, " (%s that started at line %d, column %d)", yp->context,
               (int)yp->context_mark.line + 1, (int)yp->context_mark.column + 1);
    return scn__fail_at(c, &at, ypath, "expected valid YAML, got a syntax error: %s%s",
                   yp->problem ? yp->problem : "unknown problem", ctx);
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  int rc = 0;
  if (!root) {
    loc at = {file, origin, 1, 1};
    *out = scn__scalar_new(at, "", 0, 0);
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
    scn__node_free(*out);
    *out = NULL;
    return scn__fail_at(c, &at, ypath, "expected a single YAML document, got a second one");
  }
  yaml_document_delete(&doc2);
  return 0;
}

/* Read a YAML file into a tree whose root must be a mapping. what names the file's role
 * ("scenario", "model"); ref/refpath, when given, say where the file was named. */
int scn__load_file(ld *c, const char *path, const char *what, const loc *ref, const char *refpath, node **out) {
  struct stat st;
  /* A FIFO or a device would block or never end, and a file this large is no scenario. */
  if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_size > SCN_MAX_FILE)) {
    const char *why = S_ISDIR(st.st_mode) ? "a folder" : !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 16 MiB";
    if (ref) return scn__fail_at(c, ref, refpath, "expected a readable %s file, got \"%s\" (%s)", what, path, why);
    return ps_fail(c->e, PS_EINPUT, "%s: expected a readable %s file (%s)", path, what, why);
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (ref)
      return scn__fail_at(c, ref, refpath, "expected a readable %s file, got \"%s\" (%s)", what, path, strerror(errno));
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
  int rc = scn__parse_tree(c, &yp, file, NULL, "yaml", &root);
  yaml_parser_delete(&yp);
  fclose(f);
  if (rc) return rc;
  if (root->kind != N_MAP) {
    char g[128];
    rc = scn__fail_at(c, &root->at, "", "expected a mapping (a %s), got %s", what,
                 scn__is_null(root) ? "an empty document" : scn__render(root, g, sizeof g));
    scn__node_free(root);
    return rc;
  }
  *out = root;
  return 0;
}

/* path of rel as seen from the directory of the file base (rel itself when absolute,
 * or when base is NULL: values given on the command line are relative to the current
 * directory). Caller frees. */
char *scn__relative_to(const char *base, const char *rel) {
  if (!base || rel[0] == '/') return xstrdup(rel);
  const char *slash = strrchr(base, '/');
  if (!slash) return xstrdup(rel);
  return xasprintf("%.*s/%s", (int)(slash - base), base, rel);
}

