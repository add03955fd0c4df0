/* The scenario loader's YAML half (scn_int.h): libyaml's document API read into a small
 * tree of our own, the tree's helpers, and the readers that check a node's type and range
 * and fail with file:line:col, the key path and what was expected. scn.c builds models
 * and scenarios from the tree. Also the reader of the other text file a scenario names,
 * an arrivals trace (scn__load_trace). Nothing here is global: every load has its own
 * context. */
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
#include <cjson/cJSON.h>

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
  case YAML_SCALAR_NODE: {
    /* A tagged scalar (`!!str 50`) is a string, like a quoted one: the tree keeps no tag,
     * so the text at the node's start says (past an anchor, `&a !!str 50`). */
    int tagged = 0;
    if (c->src && y->start_mark.index < c->srclen) {
      const char *q = c->src + y->start_mark.index, *end = c->src + c->srclen;
      if (*q == '&') {
        while (q < end && *q != ' ' && *q != '\t' && *q != '\n') q++;
        while (q < end && (*q == ' ' || *q == '\t')) q++;
      }
      tagged = q < end && *q == '!';
    }
    *out = scn__scalar_new(at, (const char *)y->data.scalar.value, y->data.scalar.length,
                      y->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || tagged);
    return 0;
  }
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

/* libyaml takes time quadratic in the depth of flow collections (`[` and `{`) before the
 * tree's depth check sees them (40,000 deep: 6 s). So the text is scanned first, outside
 * quoted scalars and comments, and a flow nesting deeper than MAX_DEPTH is refused at the
 * bracket that passes it. (A bracket inside a plain scalar counts too; no real file nests
 * that deep.) */
static int flow_depth_check(ld *c, const char *file, const char *origin, const char *ypath) {
  const char *s = c->src;
  size_t n = c->srclen;
  int depth = 0, line = 1, col = 0;
  char quote = 0;
  for (size_t i = 0; s && i < n; i++) {
    char ch = s[i];
    col++;
    if (ch == '\n') {
      line++, col = 0;
      continue;
    }
    if (quote) {
      if (quote == '"' && ch == '\\' && i + 1 < n) i++, col++;
      else if (ch == quote) quote = 0;
      continue;
    }
    char prev = i ? s[i - 1] : '\n';
    int at_token = prev == ' ' || prev == '\t' || prev == '\n' || prev == '[' || prev == '{' || prev == ',' || prev == ':';
    if (ch == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
      while (i + 1 < n && s[i + 1] != '\n') i++;
    } else if ((ch == '"' || ch == '\'') && at_token) {
      quote = ch;
    } else if (ch == '[' || ch == '{') {
      if (++depth > MAX_DEPTH) {
        loc at = {file, origin, line, col};
        return scn__fail_at(c, &at, ypath, "expected YAML nested at most %d deep (or an alias that refers to itself)",
                            MAX_DEPTH);
      }
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      depth--;
    }
  }
  return 0;
}

/* Parse YAML from parser into *out; file/origin name the source in locations. An empty
 * document gives a null scalar. */
int scn__parse_tree(ld *c, yaml_parser_t *yp, const char *file, const char *origin, const char *ypath, node **out) {
  if (flow_depth_check(c, file, origin, ypath)) return PS_EINPUT;
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
  /* The text stays in memory (at most SCN_MAX_FILE) for conv's look at tags. */
  struct stat fst;
  /* (a size of 0 may be a /proc file, whose size is not known: then the bound) */
  size_t cap = fstat(fileno(f), &fst) == 0 && fst.st_size > 0 && fst.st_size < SCN_MAX_FILE ? (size_t)fst.st_size + 1
                                                                                             : (size_t)SCN_MAX_FILE + 1;
  char *text = xmalloc(cap);
  size_t len = fread(text, 1, cap, f);
  fclose(f);
  if (len == cap) { /* past the bound, or grown since fstat */
    free(text);
    yaml_parser_delete(&yp);
    const char *why = cap > (size_t)SCN_MAX_FILE ? "larger than 16 MiB" : "it changed while being read";
    if (ref) return scn__fail_at(c, ref, refpath, "expected a readable %s file, got \"%s\" (%s)", what, path, why);
    return ps_fail(c->e, PS_EINPUT, "%s: expected a readable %s file (%s)", path, what, why);
  }
  yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
  c->src = text, c->srclen = len;
  node *root = NULL;
  int rc = scn__parse_tree(c, &yp, file, NULL, "yaml", &root);
  c->src = NULL, c->srclen = 0;
  yaml_parser_delete(&yp);
  free(text);
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

/* ---------------------------------------------------------------------------------- */
/* Arrival traces. */

#define TRACE_MAX_LINE (1L << 20)

typedef struct trace_rd {
  ld *c;
  const loc *at;     /* the trace: key, for every error */
  const char *key;   /* its key path */
  const char *path;  /* the file as opened */
  long line;
  double *t;
  int64_t n, cap;
} trace_rd;

/* "SCENARIO:L:C: KEY: TRACE:LINE: MESSAGE" (or without the trace's line). */
static int trace_fail(trace_rd *r, long line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int trace_fail(trace_rd *r, long line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) return scn__fail_at(r->c, r->at, r->key, "%s:%ld: %s", r->path, line, msg);
  return scn__fail_at(r->c, r->at, r->key, "%s: %s", r->path, msg);
}

/* Quoted, printable and cut to 60 bytes: the "got" of a message. */
static const char *trace_got(const char *s, char *out, size_t cap) {
  size_t k = 0;
  if (cap < 8) return "";
  out[k++] = '"';
  for (const char *p = s; *p && k + 5 < cap && p - s < 60; p++)
    out[k++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
  if (strlen(s) > 60 && k + 4 < cap) out[k++] = '.', out[k++] = '.', out[k++] = '.';
  out[k++] = '"';
  out[k] = 0;
  return out;
}

/* Trims spaces (and a CR) at both ends, then one pair of double quotes. */
static char *trace_trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
    s[n - 1] = 0;
    s++;
  }
  return s;
}

/* One arrival time t (seconds) from line `line`: checked and appended. */
static int arrivals_add(trace_rd *r, double t, const char *text) {
  char g[80];
  if (!isfinite(t)) return trace_fail(r, r->line, "expected a number of seconds, got %s", trace_got(text, g, sizeof g));
  if (t < 0) return trace_fail(r, r->line, "expected a time >= 0 (seconds from the start), got %s", trace_got(text, g, sizeof g));
  if (t > SCN_MAX_TIME) return trace_fail(r, r->line, "expected a time of at most 1e9 s, got %s", trace_got(text, g, sizeof g));
  if (r->n > 0 && t < r->t[r->n - 1])
    return trace_fail(r, r->line, "expected times in nondecreasing order, got %.17g after %.17g", t, r->t[r->n - 1]);
  if (r->n >= SCN_MAX_ARRIVALS)
    return trace_fail(r, r->line, "expected at most %ld arrivals, got more", (long)SCN_MAX_ARRIVALS);
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 1024;
    r->t = xrealloc(r->t, (size_t)r->cap * sizeof *r->t);
  }
  r->t[r->n++] = t;
  return 0;
}

/* A number that is the whole of s (after trimming). */
static int trace_num(const char *s, double *out) {
  if (!*s) return -1;
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  return *end || end == s ? -1 : 0;
}

/* The column of the CSV header named t or time_s, or -1. */
static int trace_header(char *h) {
  for (int k = 0; h; k++) {
    char *e = strchr(h, ',');
    if (e) *e = 0;
    char *name = trace_trim(h);
    if (!strcmp(name, "t") || !strcmp(name, "time_s")) return k;
    h = e ? e + 1 : NULL;
  }
  return -1;
}

/* The field number col of a CSV line (commas only; NULL when the line is shorter). */
static char *trace_field(char *s, int col) {
  for (int k = 0; k < col; k++) {
    s = strchr(s, ',');
    if (!s) return NULL;
    s++;
  }
  char *e = strchr(s, ',');
  if (e) *e = 0;
  return trace_trim(s);
}

static int trace_jsonl(trace_rd *r, const char *text) {
  const char *end = NULL;
  cJSON *o = cJSON_ParseWithOpts(text, &end, 0);
  char g[80];
  if (o && end) {
    while (*end == ' ' || *end == '\t' || *end == '\r') end++;
    if (*end) {
      cJSON_Delete(o);
      return trace_fail(r, r->line, "expected one JSON object on the line, got text after it: %s", trace_got(end, g, sizeof g));
    }
  }
  cJSON *t = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "t") : NULL;
  if (cJSON_IsObject(o) && !t) t = cJSON_GetObjectItemCaseSensitive(o, "time_s");
  if (!cJSON_IsNumber(t)) {
    cJSON_Delete(o);
    return trace_fail(r, r->line, "expected a JSON object with a number \"t\" (seconds from the start), got %s",
                      trace_got(text, g, sizeof g));
  }
  double v = t->valuedouble;
  cJSON_Delete(o);
  return arrivals_add(r, v, text);
}

int scn__load_trace(ld *c, const node *fn, const char *key, const char *path, double **out, int64_t *n) {
  trace_rd r = {.c = c, .at = &fn->at, .key = key, .path = path};
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
    return scn__fail_at(c, &fn->at, key, "expected a readable arrivals file (CSV or JSON Lines), got \"%s\" (%s)", path,
                        S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
  FILE *f = fopen(path, "rb");
  if (!f)
    return scn__fail_at(c, &fn->at, key, "expected a readable arrivals file (CSV or JSON Lines), got \"%s\" (%s)", path,
                        strerror(errno));
  char *buf = xmalloc((size_t)TRACE_MAX_LINE + 1);
  int rc = 0, json = -1, col = -1;
  long header_line = 0;
  for (int ch = 0; ch != EOF && !rc;) {
    size_t len = 0;
    while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
      if (len == (size_t)TRACE_MAX_LINE) {
        rc = trace_fail(&r, r.line + 1, "expected lines of at most 1 MiB, got a longer one");
        break;
      }
      if (ch == 0) {
        rc = trace_fail(&r, r.line + 1, "expected text, got a NUL byte");
        break;
      }
      buf[len++] = (char)ch;
    }
    if (rc) break;
    if (ch == EOF && len == 0) break;
    r.line++;
    buf[len] = 0;
    char *s = buf;
    if (r.line == 1 && !strncmp(s, "\xef\xbb\xbf", 3)) s += 3; /* a UTF-8 byte order mark */
    if (!s[strspn(s, " \t\r")]) continue; /* a blank line */
    if (json < 0) {
      json = s[strspn(s, " \t")] == '{';
      if (!json) {
        char g[80];
        trace_got(s, g, sizeof g);
        col = trace_header(s);
        header_line = r.line;
        if (col < 0)
          rc = trace_fail(&r, r.line, "expected a CSV header with a column t or time_s (seconds from the start), "
                                      "or JSON Lines of objects {\"t\": seconds}, got %s", g);
        continue;
      }
    }
    if (json) {
      rc = trace_jsonl(&r, s);
    } else {
      char *v = trace_field(s, col);
      double x;
      char g[80];
      if (!v) rc = trace_fail(&r, r.line, "expected a value in column %d (the header's t), got a line of fewer columns",
                              col + 1);
      else if (trace_num(v, &x)) rc = trace_fail(&r, r.line, "expected a number of seconds, got %s", trace_got(v, g, sizeof g));
      else rc = arrivals_add(&r, x, v);
    }
  }
  if (!rc && ferror(f)) rc = trace_fail(&r, 0, "expected a readable file, got a read error (%s)", strerror(errno));
  fclose(f);
  free(buf);
  if (!rc && r.n == 0)
    rc = header_line ? trace_fail(&r, header_line, "expected at least one arrival after the header, got none")
                     : trace_fail(&r, 0, "expected at least one arrival, got an empty file");
  if (rc) {
    free(r.t);
    return rc;
  }
  *out = r.t;
  *n = r.n;
  return 0;
}
