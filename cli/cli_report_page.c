/* The pieces of `provesim report`'s page that its three parts share (cli_report.h):
 * members of a JSON document, cells of a CSV table, headings, figures and number cells.
 * cli_report.c, cli_report_html.c and cli_report_tl.c use them; this file uses none of
 * theirs. */
#define _GNU_SOURCE
#include "cli_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

/* Member path "a.b.c" of o, or NULL. */
static const cJSON *rep_at(const cJSON *o, const char *path) {
  char key[128];
  for (const char *p = path; o && *p;) {
    size_t n = strcspn(p, ".");
    if (n >= sizeof key) return NULL;
    memcpy(key, p, n);
    key[n] = 0;
    o = cJSON_GetObjectItemCaseSensitive(o, key);
    p += n + (p[n] == '.');
  }
  return o;
}

double rep_num(const cJSON *o, const char *path) {
  const cJSON *v = rep_at(o, path);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *rep_str(const cJSON *o, const char *path) {
  const cJSON *v = rep_at(o, path);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

void rep_section(ps_buf *b, const char *kind, const char *heading, const char *path) {
  ps_buf_printf(b, "<section class=\"doc\" data-kind=\"%s\">\n<h2>", kind);
  svg_escape(b, heading);
  ps_buf_printf(b, "</h2>\n<p class=\"source\">from <code>");
  svg_escape(b, path);
  ps_buf_printf(b, "</code></p>\n");
}

void rep_figure_begin(ps_buf *b, const char *kind) {
  ps_buf_printf(b, "<figure class=\"plot-figure\" data-plot=\"%s\">\n", kind);
}

void rep_figure_end(ps_buf *b, const char *reading) {
  ps_buf_printf(b, "<figcaption class=\"reading\">");
  svg_escape(b, reading);
  ps_buf_printf(b, "</figcaption>\n</figure>\n");
}

void rep_para(ps_buf *b, const char *cls, const char *text) {
  ps_buf_printf(b, "<p class=\"%s\">", cls);
  svg_escape(b, text);
  ps_buf_printf(b, "</p>\n");
}

void rep_cell(ps_buf *b, double v, const char *fmt, double scale, const char *unit) {
  if (!isfinite(v)) {
    ps_buf_printf(b, "<td class=\"num\">-</td>");
    return;
  }
  char t[64];
  snprintf(t, sizeof t, fmt, v * scale);
  ps_buf_printf(b, "<td class=\"num\" data-v=\"%.17g\">%s%s</td>", v, t, unit);
}

int rep_csv_col(const rep_csv *t, const char *name) {
  for (int j = 0; j < t->ncols; j++)
    if (!strcmp(t->head[j], name)) return j;
  return -1;
}

int rep_csv_need(const rep_csv *t, const char *path, const char *const *names, ps_err *e) {
  for (int k = 0; names[k]; k++)
    if (rep_csv_col(t, names[k]) < 0)
      return ps_fail(e, PS_EINPUT, "%s:1: header: expected a column named \"%s\"", path, names[k]);
  return PS_OK;
}

int rep_csv_num(const rep_csv *t, const char *path, int i, const char *name, double *out, ps_err *e) {
  int j = rep_csv_col(t, name);
  PS_ASSERT(j >= 0);
  const char *c = t->rows[i][j];
  *out = NAN;
  if (!*c) return PS_OK;
  if (ps_parse_num(c, out))
    return ps_fail(e, PS_EINPUT, "%s:%ld: %s: expected a number, got \"%.40s\"", path, t->line[i], name, c);
  return PS_OK;
}
