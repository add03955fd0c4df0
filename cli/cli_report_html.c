/* The sections of `provesim report` drawn from what-if documents (cli_report.h): a sweep's
 * utilization and throughput against its swept keys (from its JSON or CSV), a plan's
 * frontier (from its CSV), validate's measured values against the prediction intervals,
 * and sensitivity's tornado plot. Each plot's reading is computed from the document. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_report.h"
#include "report.h"
#include "svg.h"

#define SW_MAX_SERIES 8 /* lines drawn in a sweep plot; more are listed in its table only */

/* ================================================================ sweeps */

/* A sweep, from either of its files: per point the values of the swept keys and the
 * figures plotted. */
typedef struct swp {
  char *name;
  int nk, n;
  char **keys;   /* nk */
  char ***vals;  /* [point][key] */
  double *util, *util_ci, *pph, *pph_ci;
  char **limit;
} swp;

static void swp_alloc(swp *s, int n) {
  s->n = n;
  s->vals = xcalloc((size_t)n, sizeof *s->vals);
  s->util = xcalloc((size_t)n, sizeof(double));
  s->util_ci = xcalloc((size_t)n, sizeof(double));
  s->pph = xcalloc((size_t)n, sizeof(double));
  s->pph_ci = xcalloc((size_t)n, sizeof(double));
  s->limit = xcalloc((size_t)n, sizeof(char *));
}

static void swp_free(swp *s) {
  for (int i = 0; i < s->n; i++) {
    for (int k = 0; k < s->nk && s->vals[i]; k++) free(s->vals[i][k]);
    free(s->vals[i]);
    free(s->limit[i]);
  }
  for (int k = 0; k < s->nk; k++) free(s->keys[k]);
  free(s->keys), free(s->vals), free(s->util), free(s->util_ci), free(s->pph), free(s->pph_ci), free(s->limit);
  free(s->name);
}

/* The unit a swept key's values are in, for the axis label. */
static const char *key_unit(const char *k) {
  const char *leaf = strrchr(k, '.') ? strrchr(k, '.') + 1 : k;
  if (!strcmp(leaf, "workers_per_gpu")) return "workers per GPU";
  if (!strcmp(leaf, "gpus")) return "GPUs";
  if (!strcmp(leaf, "cpu_cores")) return "cores";
  if (!strcmp(leaf, "batch")) return "partitions per call";
  if (!strcmp(leaf, "mutex")) return "lock scope";
  if (!strcmp(leaf, "proofs_per_hour")) return "proofs/h";
  if (!strcmp(leaf, "partitions") || !strcmp(leaf, "partitions_per_proof")) return "partitions";
  if (strstr(k, "time") || !strcmp(leaf, "mean") || !strcmp(leaf, "sd") || !strcmp(leaf, "value") ||
      !strcmp(leaf, "min") || !strcmp(leaf, "max"))
    return "s";
  return "value";
}

/* The figure of one metric (util: GPU utilization, else throughput) against keys[0]. */
static void sweep_plot(ps_buf *b, const swp *s, int util) {
  const double *y = util ? s->util : s->pph, *ci = util ? s->util_ci : s->pph_ci;
  double sc = util ? 100 : 1;
  /* x: the first key's values, numeric when every one reads as a number. */
  int num = s->nk > 0;
  double *xv = xcalloc((size_t)s->n, sizeof *xv);
  for (int i = 0; i < s->n; i++)
    if (!s->nk || ps_parse_num(s->vals[i][0], &xv[i])) num = 0;
  const char **cats = xcalloc((size_t)s->n + 1, sizeof *cats);
  int ncat = 0;
  if (!num)
    for (int i = 0; i < s->n; i++) {
      const char *v = s->nk ? s->vals[i][0] : "all points";
      int c = 0;
      while (c < ncat && strcmp(cats[c], v)) c++;
      if (c == ncat) cats[ncat++] = v;
      xv[i] = c;
    }
  /* Series: the other keys' values, in order of appearance. */
  char **ser = xcalloc((size_t)s->n, sizeof *ser);
  int *si = xcalloc((size_t)s->n, sizeof *si), nser = 0;
  for (int i = 0; i < s->n; i++) {
    ps_buf t = {0};
    for (int k = 1; k < s->nk; k++) ps_buf_printf(&t, "%s%s=%s", k > 1 ? ", " : "", s->keys[k], s->vals[i][k]);
    char *lab = t.p ? t.p : xstrdup(s->nk ? "" : "points");
    int c = 0;
    while (c < nser && strcmp(ser[c], lab)) c++;
    if (c == nser) ser[nser++] = lab;
    else free(lab);
    si[i] = c;
  }
  double lo = INFINITY, hi = -INFINITY, xlo = INFINITY, xhi = -INFINITY;
  int best = -1, worst = -1;
  for (int i = 0; i < s->n; i++) {
    if (!isfinite(y[i])) continue;
    double c = isfinite(ci[i]) ? ci[i] : 0;
    lo = fmin(lo, sc * (y[i] - c)), hi = fmax(hi, sc * (y[i] + c));
    xlo = fmin(xlo, xv[i]), xhi = fmax(xhi, xv[i]);
    if (best < 0 || y[i] > y[best]) best = i;
    if (worst < 0 || y[i] < y[worst]) worst = i;
  }
  char xl[300], title[64];
  snprintf(xl, sizeof xl, "%s (%s)", s->nk ? s->keys[0] : "sweep", s->nk ? key_unit(s->keys[0]) : "point");
  svg_axis x = num ? svg_axis_num(xlo, xhi, 8, xl) : svg_axis_cat(cats, ncat, xl);
  if (num && xhi > xlo) x.lo = xlo - 0.04 * (xhi - xlo), x.hi = xhi + 0.04 * (xhi - xlo);
  svg_axis ya = svg_axis_num(util ? 0 : fmin(0, lo), util ? fmax(hi, 1) : hi, 6,
                             util ? "GPU utilization (%)" : "throughput (proofs/h)");
  if (util && ya.hi > 100 && hi <= 100) ya.hi = 100;
  snprintf(title, sizeof title, "%s against %s", util ? "GPU utilization" : "throughput",
           s->nk ? "the swept keys" : "points");
  rep_figure_begin(b, util ? "sweep-util" : "sweep-throughput");
  svg_plot p;
  svg_begin(&p, b, 900, 360, &x, &ya, title);
  svg_axes(&p);
  int shown = nser < SW_MAX_SERIES ? nser : SW_MAX_SERIES;
  const char *cols[SW_MAX_SERIES];
  for (int c = 0; c < shown; c++) cols[c] = svg_color(c);
  if (s->nk > 1) svg_legend(&p, (const char *const *)ser, cols, shown);
  double *lx = xcalloc((size_t)s->n, sizeof *lx), *ly = xcalloc((size_t)s->n, sizeof *ly);
  for (int c = 0; c < shown; c++) {
    int m = 0;
    for (int i = 0; i < s->n; i++)
      if (si[i] == c) lx[m] = xv[i], ly[m++] = sc * y[i];
    svg_line(&p, lx, ly, m, cols[c], NULL);
    for (int i = 0; i < s->n; i++) {
      if (si[i] != c) continue;
      char tip[256];
      snprintf(tip, sizeof tip, "%s%s%s: %.2f%s", s->nk ? s->vals[i][0] : "", s->nk > 1 ? ", " : "", ser[c],
               sc * y[i], util ? "%" : " proofs/h");
      svg_ybar(&p, xv[i], sc * (y[i] - ci[i]), sc * (y[i] + ci[i]), cols[c]);
      svg_marker(&p, xv[i], sc * y[i], 3.5, cols[c], tip);
    }
  }
  svg_end(&p);
  char r[1024] = "No point has a value.";
  if (best >= 0) {
    ps_buf at = {0}, at2 = {0};
    for (int k = 0; k < s->nk; k++) ps_buf_printf(&at, "%s%s=%s", k ? ", " : "", s->keys[k], s->vals[best][k]);
    for (int k = 0; k < s->nk; k++) ps_buf_printf(&at2, "%s%s=%s", k ? ", " : "", s->keys[k], s->vals[worst][k]);
    if (s->n == 1)
      snprintf(r, sizeof r, util ? "GPU utilization is %.1f%% at the one point." : "Throughput is %.1f proofs/h at "
               "the one point.", util ? 100 * y[best] : y[best]);
    else if (util)
      snprintf(r, sizeof r, "GPU utilization is highest, %.1f%%, at %s, and lowest, %.1f%%, at %s.", 100 * y[best],
               at.p ? at.p : "the only point", 100 * y[worst], at2.p ? at2.p : "the only point");
    else
      snprintf(r, sizeof r, "Throughput is highest, %.1f proofs/h, at %s, and lowest, %.1f proofs/h, at %s.", y[best],
               at.p ? at.p : "the only point", y[worst], at2.p ? at2.p : "the only point");
    ps_buf_free(&at), ps_buf_free(&at2);
  }
  if (nser > shown) {
    size_t l = strlen(r);
    snprintf(r + l, sizeof r - l, " (%d of %d series drawn; the table lists every point.)", shown, nser);
  }
  rep_figure_end(b, r);
  for (int c = 0; c < nser; c++) free(ser[c]);
  free(ser), free(si), free(xv), free(cats), free(lx), free(ly);
}

static void sweep_render(ps_buf *b, const char *path, const swp *s) {
  char h[256];
  snprintf(h, sizeof h, "Sweep: %s, %d point%s", s->name ? s->name : "(unnamed scenario)", s->n, s->n > 1 ? "s" : "");
  rep_section(b, "sweep", h, path);
  sweep_plot(b, s, 1);
  sweep_plot(b, s, 0);
  ps_buf_printf(b, "<table class=\"points\"><tr>");
  for (int k = 0; k < s->nk; k++) {
    ps_buf_printf(b, "<th>");
    svg_escape(b, s->keys[k]);
    ps_buf_printf(b, "</th>");
  }
  ps_buf_printf(b, "<th>GPU util</th><th>&#177;95%%</th><th>proofs/h</th><th>&#177;95%%</th>"
                   "<th>limited by</th></tr>\n");
  for (int i = 0; i < s->n; i++) {
    ps_buf_printf(b, "<tr data-point=\"%d\">", i);
    for (int k = 0; k < s->nk; k++) {
      ps_buf_printf(b, "<td>");
      svg_escape(b, s->vals[i][k]);
      ps_buf_printf(b, "</td>");
    }
    rep_cell(b, s->util[i], "%.2f", 100, "%");
    rep_cell(b, s->util_ci[i], "%.2f", 100, "%");
    rep_cell(b, s->pph[i], "%.1f", 1, "");
    rep_cell(b, s->pph_ci[i], "%.1f", 1, "");
    ps_buf_printf(b, "<td>");
    svg_escape(b, s->limit[i] ? s->limit[i] : "");
    ps_buf_printf(b, "</td></tr>\n");
  }
  ps_buf_printf(b, "</table>\n</section>\n");
}

/* A number's text as sweep wrote it (cli_json_value made numbers of numeric texts). */
static char *json_text(const cJSON *v) {
  if (cJSON_IsString(v)) return xstrdup(v->valuestring);
  if (cJSON_IsNumber(v)) return xasprintf("%.15g", v->valuedouble);
  char *t = cJSON_PrintUnformatted(v);
  char *r = xstrdup(t ? t : "");
  free(t);
  return r;
}

int rep_sweep_json(ps_buf *b, const char *path, const cJSON *doc, ps_err *e) {
  const cJSON *vary = cJSON_GetObjectItemCaseSensitive(doc, "vary");
  const cJSON *pts = cJSON_GetObjectItemCaseSensitive(doc, "points");
  if (!cJSON_IsArray(vary) || !cJSON_IsArray(pts) || cJSON_GetArraySize(pts) < 1)
    return ps_fail(e, PS_EINPUT, "%s: expected a provesim.sweep/1 document with a \"vary\" array and at least one "
                   "point", path);
  swp s = {0};
  s.nk = cJSON_GetArraySize(vary);
  s.keys = xcalloc((size_t)s.nk + 1, sizeof *s.keys);
  for (int k = 0; k < s.nk; k++) {
    const char *key = rep_str(cJSON_GetArrayItem(vary, k), "key");
    s.keys[k] = xstrdup(key ? key : "?");
  }
  const char *nm = rep_str(doc, "scenario");
  s.name = nm ? xstrdup(nm) : NULL;
  swp_alloc(&s, cJSON_GetArraySize(pts));
  int rc = PS_OK, i = 0;
  char lim[64];
  for (const cJSON *p = pts->child; p; p = p->next, i++) {
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values");
    s.vals[i] = xcalloc((size_t)s.nk + 1, sizeof(char *));
    for (int k = 0; k < s.nk; k++) s.vals[i][k] = json_text(cJSON_GetObjectItemCaseSensitive(vals, s.keys[k]));
    s.util[i] = rep_num(p, "metrics.gpu_util_mean");
    s.util_ci[i] = rep_num(p, "ci95.gpu_util_mean");
    s.pph[i] = rep_num(p, "metrics.proofs_per_hour");
    /* The JSON gives the throughput's half-width in partitions/s; proofs/h scale alike. */
    double tp = rep_num(p, "metrics.throughput_pps");
    s.pph_ci[i] = tp > 0 ? rep_num(p, "ci95.throughput_pps") * s.pph[i] / tp : NAN;
    const char *bn = rep_str(p, "metrics.bottleneck");
    report_limit_name(bn ? bn : "", lim, sizeof lim);
    s.limit[i] = xstrdup(lim);
    if (!isfinite(s.util[i]) && rc == PS_OK)
      rc = ps_fail(e, PS_EINPUT, "%s: points[%d].metrics.gpu_util_mean: expected a number", path, i);
  }
  if (rc == PS_OK) sweep_render(b, path, &s);
  swp_free(&s);
  return rc;
}

int rep_sweep_csv(ps_buf *b, const char *path, const rep_csv *t, ps_err *e) {
  static const char *const need[] = {"overrides", "scenario", "gpu_util", "gpu_util_ci95", "proofs_per_hour",
                                     "proofs_per_hour_ci95", "limited_by", NULL};
  if (rep_csv_need(t, path, need, e) != PS_OK) return PS_EINPUT;
  int jo = rep_csv_col(t, "overrides");
  /* The swept keys: those of the overrides whose value differs between rows. */
  swp s = {0};
  char **allk = NULL;
  int nall = 0;
  char ***kv = xcalloc((size_t)t->nrows, sizeof *kv); /* per row: values of allk (grown) */
  for (int i = 0; i < t->nrows; i++) {
    char *dup = xstrdup(t->rows[i][jo]), *save = NULL;
    for (char *tok = strtok_r(dup, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
      tok += strspn(tok, " ");
      char *eq = strchr(tok, '=');
      if (!eq) continue;
      *eq = 0;
      int k = 0;
      while (k < nall && strcmp(allk[k], tok)) k++;
      if (k == nall) {
        allk = xrealloc(allk, (size_t)(nall + 1) * sizeof *allk);
        allk[nall++] = xstrdup(tok);
        for (int r = 0; r < t->nrows; r++) {
          kv[r] = xrealloc(kv[r], (size_t)nall * sizeof **kv);
          kv[r][nall - 1] = NULL;
        }
      }
      free(kv[i][k]);
      kv[i][k] = xstrdup(eq + 1);
    }
    free(dup);
  }
  int *swept = xcalloc((size_t)nall + 1, sizeof *swept);
  for (int k = 0; k < nall; k++)
    for (int i = 1; i < t->nrows; i++) {
      const char *a = kv[0][k] ? kv[0][k] : "", *c = kv[i][k] ? kv[i][k] : "";
      if (strcmp(a, c)) swept[k] = 1;
    }
  s.keys = xcalloc((size_t)nall + 1, sizeof *s.keys);
  for (int k = 0; k < nall; k++)
    if (swept[k]) s.keys[s.nk++] = xstrdup(allk[k]);
  s.name = xstrdup(t->rows[0][rep_csv_col(t, "scenario")]);
  swp_alloc(&s, t->nrows);
  int rc = PS_OK;
  for (int i = 0; i < t->nrows; i++) {
    s.vals[i] = xcalloc((size_t)s.nk + 1, sizeof(char *));
    for (int k = 0, m = 0; k < nall; k++)
      if (swept[k]) s.vals[i][m++] = xstrdup(kv[i][k] ? kv[i][k] : "");
    s.limit[i] = xstrdup(t->rows[i][rep_csv_col(t, "limited_by")]);
    if (rc == PS_OK) rc = rep_csv_num(t, path, i, "gpu_util", &s.util[i], e);
    if (rc == PS_OK) rc = rep_csv_num(t, path, i, "gpu_util_ci95", &s.util_ci[i], e);
    if (rc == PS_OK) rc = rep_csv_num(t, path, i, "proofs_per_hour", &s.pph[i], e);
    if (rc == PS_OK) rc = rep_csv_num(t, path, i, "proofs_per_hour_ci95", &s.pph_ci[i], e);
  }
  if (rc == PS_OK) sweep_render(b, path, &s);
  for (int i = 0; i < t->nrows; i++) {
    for (int k = 0; k < nall; k++) free(kv[i][k]);
    free(kv[i]);
  }
  for (int k = 0; k < nall; k++) free(allk[k]);
  free(kv), free(allk), free(swept);
  swp_free(&s);
  return rc;
}

/* ================================================================ plan */

int rep_plan_csv(ps_buf *b, const char *path, const rep_csv *t, ps_err *e) {
  static const char *const need[] = {"gpus", "workers_per_gpu", "batch", "mutex", "cpu_cores", "host_mem_gib",
                                     "simulated", "proofs_per_hour", "p99_latency_s", "gpu_util", "meets", NULL};
  if (rep_csv_need(t, path, need, e) != PS_OK) return PS_EINPUT;
  int n = t->nrows, jf = rep_csv_col(t, "frontier"), rc = PS_OK, nsim = 0, nfr = 0, cheapest = -1, fastest = -1;
  double (*v)[9] = xcalloc((size_t)n, sizeof *v);
  static const char *const cols[] = {"gpus", "workers_per_gpu", "batch", "cpu_cores", "host_mem_gib", "simulated",
                                     "proofs_per_hour", "p99_latency_s", "gpu_util"};
  int *fr = xcalloc((size_t)n, sizeof *fr), *meets = xcalloc((size_t)n, sizeof *meets);
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (int i = 0; i < n && rc == PS_OK; i++) {
    for (int c = 0; c < 9 && rc == PS_OK; c++) rc = rep_csv_num(t, path, i, cols[c], &v[i][c], e);
    if (rc != PS_OK || v[i][5] != 1 || !isfinite(v[i][6])) continue;
    nsim++;
    meets[i] = !strcmp(t->rows[i][rep_csv_col(t, "meets")], "1");
    fr[i] = jf < 0 || !strcmp(t->rows[i][jf], "1"); /* an older CSV without the column: every one */
    nfr += fr[i];
    if (meets[i] && cheapest < 0) cheapest = i; /* the rows run cheapest first */
    if (fastest < 0 || v[i][6] > v[fastest][6]) fastest = i;
    xlo = fmin(xlo, v[i][6]), xhi = fmax(xhi, v[i][6]);
    if (isfinite(v[i][7])) ylo = fmin(ylo, v[i][7]), yhi = fmax(yhi, v[i][7]);
  }
  if (rc == PS_OK && nsim == 0) rc = ps_fail(e, PS_EINPUT, "%s: expected at least one simulated configuration", path);
  if (rc != PS_OK) goto out;
  rep_section(b, "plan", "Plan: the configurations simulated and the frontier", path);
  rep_figure_begin(b, "plan-frontier");
  svg_axis x = svg_axis_num(fmin(0, xlo), xhi, 8, "throughput (proofs/h)"),
           y = svg_axis_num(0, isfinite(yhi) ? yhi : 1, 6, "p99 latency (s)");
  svg_plot p;
  svg_begin(&p, b, 900, 380, &x, &y, "plan frontier");
  svg_axes(&p);
  static const char *const ln[] = {"frontier, meets the target", "frontier, does not", "other configurations"},
                           *const lc[] = {"#009E73", "#D55E00", "#BBBBBB"};
  svg_legend(&p, ln, lc, 3);
  for (int pass = 0; pass < 2; pass++) /* the others first, so the frontier is drawn on top */
    for (int i = 0; i < n; i++) {
      if (v[i][5] != 1 || !isfinite(v[i][6]) || fr[i] != pass) continue;
      char tip[256];
      snprintf(tip, sizeof tip, "%g GPU x %g workers, batch %g, mutex %.40s, %g cores: %.1f proofs/h, p99 %.2f s",
               v[i][0], v[i][1], v[i][2], t->rows[i][rep_csv_col(t, "mutex")], v[i][3], v[i][6], v[i][7]);
      svg_marker(&p, v[i][6], v[i][7], pass ? 5 : 3, pass ? (meets[i] ? lc[0] : lc[1]) : lc[2], tip);
    }
  svg_end(&p);
  char r[512];
  const int k = cheapest >= 0 ? cheapest : fastest;
  snprintf(r, sizeof r, "%s %g GPU%s x %g workers, batch %g, mutex %.40s, %g cores: %.1f proofs/h, p99 latency %.2f s "
           "(%d configurations simulated, %d on the frontier).",
           cheapest >= 0 ? "The cheapest configuration that meets the target is" :
                           "No configuration simulated meets the target; the fastest is",
           v[k][0], v[k][0] > 1 ? "s" : "", v[k][1], v[k][2], t->rows[k][rep_csv_col(t, "mutex")], v[k][3], v[k][6],
           v[k][7], nsim, nfr);
  rep_figure_end(b, r);
  ps_buf_printf(b, "<table class=\"frontier\"><tr><th>GPUs</th><th>workers</th><th>batch</th><th>mutex</th>"
                   "<th>cores</th><th>mem GiB</th><th>proofs/h</th><th>p99 s</th><th>GPU util</th>"
                   "<th>meets</th></tr>\n");
  for (int i = 0; i < n; i++) {
    if (!fr[i] || v[i][5] != 1) continue;
    ps_buf_printf(b, "<tr>");
    rep_cell(b, v[i][0], "%.0f", 1, "");
    rep_cell(b, v[i][1], "%.0f", 1, "");
    rep_cell(b, v[i][2], "%.0f", 1, "");
    ps_buf_printf(b, "<td>");
    svg_escape(b, t->rows[i][rep_csv_col(t, "mutex")]);
    ps_buf_printf(b, "</td>");
    rep_cell(b, v[i][3], "%.0f", 1, "");
    rep_cell(b, v[i][4], "%.1f", 1, "");
    rep_cell(b, v[i][6], "%.1f", 1, "");
    rep_cell(b, v[i][7], "%.2f", 1, "");
    rep_cell(b, v[i][8], "%.1f", 100, "%");
    ps_buf_printf(b, "<td>%s</td></tr>\n", meets[i] ? "yes" : "no");
  }
  ps_buf_printf(b, "</table>\n");
  if (jf < 0) rep_para(b, "note", "This CSV has no frontier column (an older provesim): every configuration is shown.");
  ps_buf_printf(b, "</section>\n");
out:
  free(v), free(fr), free(meets);
  return rc;
}

/* ================================================================ validate */

int rep_validate(ps_buf *b, const char *path, const cJSON *doc, ps_err *e) {
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(doc, "metrics");
  int n = cJSON_GetArraySize(ms);
  if (!cJSON_IsArray(ms) || n < 1 || n > 4096)
    return ps_fail(e, PS_EINPUT, "%s: metrics: expected an array of 1 to 4096 rows (a provesim.validate/1 document)",
                   path);
  char **lab = xcalloc((size_t)n, sizeof *lab);
  double lo = 0, hi = 0;
  int i = 0;
  for (const cJSON *m = ms->child; m; m = m->next, i++) {
    const char *name = rep_str(m, "metric");
    double g = rep_num(m, "gpu");
    lab[n - 1 - i] = isfinite(g) ? xasprintf("%s, GPU %.0f", name ? name : "?", g) : xstrdup(name ? name : "?");
    double pr = rep_num(m, "predicted");
    const char *keys[] = {"pi_low", "pi_high", "measured"};
    for (int k = 0; k < 3 && pr != 0 && isfinite(pr); k++) {
      double x = 100 * (rep_num(m, keys[k]) / pr - 1);
      if (isfinite(x)) lo = fmin(lo, x), hi = fmax(hi, x);
    }
  }
  const char *sn = rep_str(doc, "scenario.name");
  char h[256];
  snprintf(h, sizeof h, "Validation: %s", sn ? sn : "(unnamed scenario)");
  rep_section(b, "validate", h, path);
  rep_figure_begin(b, "validate");
  svg_axis x = svg_axis_num(lo, hi, 8, "difference from the prediction (% of the predicted value)"),
           y = svg_axis_cat((const char *const *)lab, n, "metric");
  svg_plot p;
  svg_begin(&p, b, 900, 90 + 34 * n, &x, &y, "measured against predicted");
  svg_axes(&p);
  static const char *const ln[] = {"95% prediction interval", "measured, inside", "measured, outside"},
                           *const lc[] = {"#BFD7EA", "#009E73", "#D55E00"};
  svg_legend(&p, ln, lc, 3);
  double z[2] = {0, 0}, zy[2] = {-0.5, n - 0.5};
  svg_line(&p, z, zy, 2, "#555", "4 3");
  i = 0;
  for (const cJSON *m = ms->child; m; m = m->next, i++) {
    double pr = rep_num(m, "predicted"), row = n - 1 - i;
    if (!isfinite(pr) || pr == 0) continue;
    double a = 100 * (rep_num(m, "pi_low") / pr - 1), c = 100 * (rep_num(m, "pi_high") / pr - 1),
           me = 100 * (rep_num(m, "measured") / pr - 1);
    const char *verdict = rep_str(m, "verdict");
    char tip[256];
    snprintf(tip, sizeof tip, "%s: predicted %.6g, 95%% interval %.6g to %.6g", lab[n - 1 - i], pr,
             rep_num(m, "pi_low"), rep_num(m, "pi_high"));
    if (isfinite(a) && isfinite(c)) svg_rect(&p, a, row - 0.25, c, row + 0.25, lc[0], tip);
    snprintf(tip, sizeof tip, "%s: measured %.6g (%s)", lab[n - 1 - i], rep_num(m, "measured"),
             verdict ? verdict : "-");
    svg_marker(&p, me, row, 5, verdict && !strcmp(verdict, "outside") ? lc[2] : lc[1], tip);
  }
  svg_end(&p);
  char r[512];
  double in = rep_num(doc, "inside"), out = rep_num(doc, "outside"), ue = rep_num(doc, "utilization_error_max_pp");
  snprintf(r, sizeof r, "%.0f of %.0f metrics fall inside their 95%% prediction interval%s; the largest GPU "
           "utilization error is %.2f percentage points.", in, in + out, out > 0 ? " (a model to revisit)" : "", ue);
  rep_figure_end(b, r);
  ps_buf_printf(b, "<table class=\"validate\"><tr><th>metric</th><th>unit</th><th>predicted</th><th>95%% low</th>"
                   "<th>95%% high</th><th>measured</th><th>error</th><th>verdict</th></tr>\n");
  i = 0;
  for (const cJSON *m = ms->child; m; m = m->next, i++) {
    const char *u = rep_str(m, "unit"), *eu = rep_str(m, "error_unit"), *vd = rep_str(m, "verdict");
    ps_buf_printf(b, "<tr><td>");
    svg_escape(b, lab[n - 1 - i]);
    ps_buf_printf(b, "</td><td>");
    svg_escape(b, u ? u : "");
    ps_buf_printf(b, "</td>");
    static const char *const k[] = {"predicted", "pi_low", "pi_high", "measured"};
    for (int j = 0; j < 4; j++) rep_cell(b, rep_num(m, k[j]), "%.6g", 1, "");
    rep_cell(b, rep_num(m, "error"), "%.3g", 1, eu && !strcmp(eu, "pp") ? " pp" : "%");
    ps_buf_printf(b, "<td>%s</td></tr>\n", vd && !strcmp(vd, "outside") ? "outside" : vd ? "inside" : "-");
  }
  ps_buf_printf(b, "</table>\n</section>\n");
  for (i = 0; i < n; i++) free(lab[i]);
  free(lab);
  return PS_OK;
}

/* ================================================================ sensitivity */

/* One side of an effect: the change of the metric and its 95% half-width (provesim
 * sensitivity writes effect_low, ci95_low, ...; a document with plain low and ci95 is
 * read alike). */
static void side(const cJSON *q, int high, double *eff, double *ci) {
  *eff = rep_num(q, high ? "effect_high" : "effect_low");
  *ci = rep_num(q, high ? "ci95_high" : "ci95_low");
  if (!cJSON_GetObjectItemCaseSensitive(q, high ? "effect_high" : "effect_low")) {
    *eff = rep_num(q, high ? "high" : "low");
    *ci = rep_num(q, "ci95");
  }
}

int rep_sensitivity(ps_buf *b, const char *path, const cJSON *doc, ps_err *e) {
  const cJSON *ef = cJSON_GetObjectItemCaseSensitive(doc, "effects");
  int n = cJSON_GetArraySize(ef);
  if (!cJSON_IsArray(ef) || n < 1 || n > 1000)
    return ps_fail(e, PS_EINPUT, "%s: effects: expected an array of 1 to 1000 effects (a provesim.sensitivity/1 "
                   "document)", path);
  const char *metric = rep_str(doc, "metric"), *unit = rep_str(doc, "unit");
  if (!metric) metric = "the metric";
  const cJSON *dj = cJSON_GetObjectItemCaseSensitive(doc, "delta");
  char delta[64] = "delta";
  if (cJSON_IsString(dj)) snprintf(delta, sizeof delta, "%.60s", dj->valuestring);
  else if (cJSON_IsNumber(dj)) snprintf(delta, sizeof delta, "%g%%", 100 * dj->valuedouble);
  char **lab = xcalloc((size_t)n, sizeof *lab);
  double lo = 0, hi = 0, el, ci, eh, ch;
  int i = 0, small = 0;
  for (const cJSON *q = ef->child; q; q = q->next, i++) {
    const char *in = rep_str(q, "input");
    lab[n - 1 - i] = xstrdup(in ? in : "?"); /* the largest effect on top */
    side(q, 0, &el, &ci), side(q, 1, &eh, &ch);
    if (isfinite(el)) lo = fmin(lo, el - (isfinite(ci) ? ci : 0)), hi = fmax(hi, el + (isfinite(ci) ? ci : 0));
    if (isfinite(eh)) lo = fmin(lo, eh - (isfinite(ch) ? ch : 0)), hi = fmax(hi, eh + (isfinite(ch) ? ch : 0));
    small += !(fabs(el) > ci) && !(fabs(eh) > ch);
  }
  char h[256], xl[256];
  snprintf(h, sizeof h, "Sensitivity of %s", metric);
  rep_section(b, "sensitivity", h, path);
  double base = rep_num(doc, "base.value");
  if (isfinite(base)) {
    char t[160];
    snprintf(t, sizeof t, "Base: %s = %.6g %s; each input moved by -/+%s.", metric, base, unit ? unit : "", delta);
    rep_para(b, "note", t);
  }
  rep_figure_begin(b, "tornado");
  snprintf(xl, sizeof xl, "change in %s (%s) when the input moves by -/+%s", metric, unit ? unit : "its unit", delta);
  svg_axis x = svg_axis_num(lo, hi, 8, xl), y = svg_axis_cat((const char *const *)lab, n, "input");
  svg_plot p;
  svg_begin(&p, b, 900, 90 + 28 * n, &x, &y, "tornado plot");
  svg_axes(&p);
  char l0[96], l1[96];
  snprintf(l0, sizeof l0, "input -%s", delta);
  snprintf(l1, sizeof l1, "input +%s", delta);
  const char *ln[] = {l0, l1, "95% CI"}, *lc[] = {"#56B4E9", "#E69F00", "#333333"};
  svg_legend(&p, ln, lc, 3);
  i = 0;
  for (const cJSON *q = ef->child; q; q = q->next, i++) {
    double row = n - 1 - i;
    side(q, 0, &el, &ci), side(q, 1, &eh, &ch);
    char tip[256];
    snprintf(tip, sizeof tip, "%s -%s: %+.6g", lab[n - 1 - i], delta, el);
    if (isfinite(el)) svg_rect(&p, 0, row - 0.3, el, row + 0.3, lc[0], tip);
    snprintf(tip, sizeof tip, "%s +%s: %+.6g", lab[n - 1 - i], delta, eh);
    if (isfinite(eh)) svg_rect(&p, 0, row - 0.3, eh, row + 0.3, lc[1], tip);
    svg_xbar(&p, row - 0.12, el - ci, el + ci, lc[2]);
    svg_xbar(&p, row + 0.12, eh - ch, eh + ch, lc[2]);
  }
  double z[2] = {0, 0}, zy[2] = {-0.5, n - 0.5};
  svg_line(&p, z, zy, 2, "#333", NULL);
  svg_end(&p);
  const cJSON *top = ef->child;
  side(top, 0, &el, &ci), side(top, 1, &eh, &ch);
  char r[512], cl[64] = "not run", ch_[64] = "not run";
  if (isfinite(el)) snprintf(cl, sizeof cl, "%+.4g %s", el, unit ? unit : "");
  if (isfinite(eh)) snprintf(ch_, sizeof ch_, "%+.4g %s", eh, unit ? unit : "");
  snprintf(r, sizeof r, "%s moves %s the most: by %s at -%s and %s at +%s; %d of %d input%s change it by no more than "
           "the 95%% CI of the change.", rep_str(top, "input") ? rep_str(top, "input") : "?", metric, cl, delta, ch_,
           delta, small, n, n > 1 ? "s" : "");
  rep_figure_end(b, r);
  ps_buf_printf(b, "<table class=\"effects\"><tr><th>input</th><th>");
  svg_escape(b, l0);
  ps_buf_printf(b, "</th><th>&#177;95%%</th><th>");
  svg_escape(b, l1);
  ps_buf_printf(b, "</th><th>&#177;95%%</th></tr>\n");
  for (const cJSON *q = ef->child; q; q = q->next) {
    side(q, 0, &el, &ci), side(q, 1, &eh, &ch);
    ps_buf_printf(b, "<tr><td>");
    svg_escape(b, rep_str(q, "input"));
    ps_buf_printf(b, "</td>");
    rep_cell(b, el, "%+.6g", 1, "");
    rep_cell(b, ci, "%.3g", 1, "");
    rep_cell(b, eh, "%+.6g", 1, "");
    rep_cell(b, ch, "%.3g", 1, "");
    ps_buf_printf(b, "</tr>\n");
  }
  ps_buf_printf(b, "</table>\n</section>\n");
  for (i = 0; i < n; i++) free(lab[i]);
  free(lab);
  return PS_OK;
}
