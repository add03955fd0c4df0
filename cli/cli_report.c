/* `provesim report`: argv, help, reading the inputs (JSON documents told apart by their
 * schema, sweep and plan CSVs by their header, spans files by spans_sniff), the page, and
 * its simulation section; cli_report_tl.c draws the timeline, cli_report_html.c the
 * what-if sections. The page
 * is written atomically at the end, so a failing run leaves no file behind. */
#define _GNU_SOURCE
#include "cli_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "spans.h"
#include "svg.h"

static const char report_help[] =
    "usage: provesim report RESULT... -o REPORT.html [--spans SPANS] [--title TEXT]\n"
    "\n"
    "Writes one self-contained HTML page (plots as inline SVG, no script, nothing fetched:\n"
    "it reads offline and can be mailed) from what the other commands wrote. Each RESULT is\n"
    "recognised by its content:\n"
    "  simulate --json (or measure --json)  the utilization breakdown (GPU busy, idle with\n"
    "                                       the lock held, idle for no work) and the metrics\n"
    "  a spans file (simulate --spans)      a timeline excerpt: a few calls of every worker\n"
    "                                       of GPU 0, phases coloured by resource, the lock\n"
    "  sweep --json or --csv                utilization and throughput against the swept keys\n"
    "  plan --csv                           the frontier: throughput against p99 latency\n"
    "  validate --json                      measured against the 95% prediction intervals\n"
    "  sensitivity --json                   a tornado plot of the effects\n"
    "Every plot has labelled axes with units and a line under it that reads it.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the page to write (required)\n"
    "  --spans FILE        a spans file for the timeline (the same as giving it as a RESULT)\n"
    "  --title TEXT        the page's title (default: the first result's scenario)\n"
    "  -h, --help          this text\n"
    "\n"
    "exit codes: 0 the page was written, 1 it could not be written, 2 bad input (a file that\n"
    "is not one of the results above, invalid JSON or CSV; the message names the file)\n"
    "\n"
    "example:\n"
    "  provesim simulate configs/seed-coarse-mutex.yaml --json -o run.json --spans run.jsonl\n"
    "  provesim sweep configs/seed-coarse-mutex.yaml --vary system.workers_per_gpu=1..4 \\\n"
    "      --vary system.mutex=call,kernels --json sweep.json\n"
    "  provesim report run.json run.jsonl sweep.json -o report.html\n";

#define REP_MAX_BYTES (64L << 20) /* the largest JSON or CSV input read (a sweep's JSON takes about 1.2 KiB a point) */

static void csv_free(rep_csv *t) {
  for (int i = 0; i < t->nrows; i++) {
    for (int j = 0; j < t->ncols; j++) free(t->rows[i][j]);
    free(t->rows[i]);
  }
  for (int j = 0; j < t->ncols; j++) free(t->head[j]);
  free(t->rows);
  free(t->head);
  free(t->line);
  memset(t, 0, sizeof *t);
}

/* Parses text as CSV with a header row into t; every row must have the header's fields. */
static int csv_parse(const char *path, char *text, rep_csv *t, ps_err *e) {
  char **f = NULL, *scratch = NULL;
  int *col = NULL, cap = 0, rc = PS_OK, cap_rows = 0;
  long ln = 0;
  memset(t, 0, sizeof *t);
  for (char *line = text, *next; line && *line; line = next) {
    ln++;
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r') line[--n] = 0;
    if (!n) continue;
    scratch = xrealloc(scratch, 2 * n + 2);
    int nf = ps_csv_split(line, scratch, &f, &col, &cap);
    if (nf < 0) {
      rc = ps_fail(e, PS_EINPUT, "%s:%ld:%d: expected a CSV field (a closing quote, then a comma or the end of the "
                   "line)", path, ln, -nf);
      break;
    }
    if (!t->head) {
      t->ncols = nf;
      t->head = xcalloc((size_t)nf, sizeof *t->head);
      for (int j = 0; j < nf; j++) t->head[j] = xstrdup(f[j]);
      continue;
    }
    if (nf != t->ncols) {
      rc = ps_fail(e, PS_EINPUT, "%s:%ld: expected %d fields, as the header has, got %d", path, ln, t->ncols, nf);
      break;
    }
    if (t->nrows == cap_rows) {
      cap_rows = cap_rows ? 2 * cap_rows : 64;
      t->rows = xrealloc(t->rows, (size_t)cap_rows * sizeof *t->rows);
      t->line = xrealloc(t->line, (size_t)cap_rows * sizeof *t->line);
    }
    t->rows[t->nrows] = xcalloc((size_t)nf, sizeof(char *));
    for (int j = 0; j < nf; j++) t->rows[t->nrows][j] = xstrdup(f[j]);
    t->line[t->nrows++] = ln;
  }
  free(f), free(col), free(scratch);
  if (rc == PS_OK && t->nrows == 0) rc = ps_fail(e, PS_EINPUT, "%s: expected a header and at least one row", path);
  if (rc != PS_OK) csv_free(t);
  return rc;
}

/* The whole of a regular file of at most REP_MAX_BYTES, NUL-terminated; caller frees. */
static int read_text(const char *path, char **out, size_t *len, ps_err *e) {
  FILE *f = fopen(path, "rb");
  if (!f) return ps_fail(e, PS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
    fclose(f);
    return ps_fail(e, PS_EINPUT, "%s: expected a regular file", path);
  }
  if (st.st_size > REP_MAX_BYTES) {
    fclose(f);
    return ps_fail(e, PS_EINPUT, "%s: expected at most %ld MiB, got %lld bytes", path, REP_MAX_BYTES >> 20,
                   (long long)st.st_size);
  }
  char *p = xmalloc((size_t)st.st_size + 1);
  size_t n = fread(p, 1, (size_t)st.st_size, f);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(p);
    return ps_fail(e, PS_EINPUT, "%s: cannot read", path);
  }
  p[n] = 0;
  if (strlen(p) != n) {
    free(p);
    return ps_fail(e, PS_EINPUT, "%s: expected text, got a NUL byte", path);
  }
  *out = p;
  *len = n;
  return PS_OK;
}

/* "line:col" of offset off in text. */
static void text_pos(const char *text, size_t off, long *line, long *colm) {
  *line = 1, *colm = 1;
  for (size_t i = 0; i < off && text[i]; i++) {
    if (text[i] == '\n') (*line)++, *colm = 1;
    else (*colm)++;
  }
}

/* ================================================================ a simulation's report */

typedef struct mrow {
  const char *label, *key, *ci, *fmt, *unit;
  double scale;
} mrow;

static const mrow mrows[] = {
    {"GPU utilization, mean over GPUs", "metrics.gpu_util_mean", "ci95.gpu_util_mean", "%.2f", "%", 100},
    {"throughput", "metrics.throughput_pps", "ci95.throughput_pps", "%.4f", " partitions/s", 1},
    {"proofs per hour", "metrics.proofs_per_hour", NULL, "%.1f", " proofs/h", 1},
    {"latency, mean", "metrics.latency_s.mean", "ci95.latency_mean_s", "%.3f", " s", 1},
    {"latency, p50", "metrics.latency_s.p50", NULL, "%.3f", " s", 1},
    {"latency, p99", "metrics.latency_s.p99", "ci95.latency_p99_s", "%.3f", " s", 1},
    {"proof latency, mean", "metrics.proof_latency_s.mean", NULL, "%.3f", " s", 1},
    {"proof latency, p99", "metrics.proof_latency_s.p99", NULL, "%.3f", " s", 1},
    {"mutex wait per call, mean", "metrics.mutex_wait_s.mean", "ci95.mutex_wait_mean_s", "%.3f", " s", 1},
    {"mutex held per call, mean", "metrics.mutex_held_s.mean", NULL, "%.3f", " s", 1},
    {"call time, mean", "metrics.call_s.mean", "ci95.call_mean_s", "%.3f", " s", 1},
    {"CPU utilization", "metrics.cpu_util", "ci95.cpu_util", "%.2f", "%", 100},
};

/* The utilization breakdown: one stacked bar of the window's shares. */
static void breakdown(ps_buf *b, const cJSON *doc) {
  double busy = rep_num(doc, "metrics.gpu_util_mean"), held = rep_num(doc, "metrics.gpu_idle.mutex_held"),
         free_ = rep_num(doc, "metrics.gpu_idle.mutex_free"),
         wb = rep_num(doc, "metrics.gpu_idle.mutex_free_workers_busy"),
         nw = rep_num(doc, "metrics.gpu_idle.mutex_free_no_work");
  const char *names[4];
  const char *colors[4];
  double v[4];
  int n = 0;
  names[n] = "GPU busy", colors[n] = "#009E73", v[n++] = busy;
  if (isfinite(held)) names[n] = "idle, a worker holds the lock", colors[n] = "#E69F00", v[n++] = held;
  if (isfinite(wb) && isfinite(nw)) {
    names[n] = "idle, lock free, workers busy elsewhere", colors[n] = "#0072B2", v[n++] = wb;
    names[n] = "idle, no work", colors[n] = "#999999", v[n++] = nw;
  } else if (isfinite(free_)) {
    names[n] = "idle, lock free", colors[n] = "#0072B2", v[n++] = free_;
  } else if (!isfinite(held)) {
    names[n] = "idle", colors[n] = "#999999", v[n++] = 1 - busy; /* a report without the idle split */
  }
  rep_figure_begin(b, "breakdown");
  static const char *const cat[] = {"GPUs (mean)"};
  svg_axis x = svg_axis_num(0, 100, 6, "share of the measurement window (%)"), y = svg_axis_cat(cat, 1, "");
  y.label = "where the window goes";
  svg_plot p;
  svg_begin(&p, b, 900, 170, &x, &y, "GPU utilization breakdown");
  svg_axes(&p);
  svg_legend(&p, names, colors, n);
  double at = 0;
  for (int i = 0; i < n; i++) {
    if (!isfinite(v[i]) || v[i] <= 0) continue;
    char tip[128], lab[32];
    snprintf(tip, sizeof tip, "%s: %.2f%%", names[i], 100 * v[i]);
    svg_rect(&p, at, -0.3, at + 100 * v[i], 0.3, colors[i], tip);
    snprintf(lab, sizeof lab, "%.1f%%", 100 * v[i]);
    if (v[i] > 0.06) svg_text(&p, at + 50 * v[i], 0, "middle", lab);
    at += 100 * v[i];
  }
  svg_end(&p);
  /* The reading names the largest idle part. */
  int big = -1;
  for (int i = 1; i < n; i++)
    if (isfinite(v[i]) && (big < 0 || v[i] > v[big])) big = i;
  char r[512];
  if (big < 0 || busy >= 0.95 || !(v[big] > 0.005))
    snprintf(r, sizeof r, "The GPU computes %.1f%% of the window: it is the bottleneck.", 100 * busy);
  else if (!strcmp(names[big], "idle, a worker holds the lock"))
    snprintf(r, sizeof r, "The GPU computes %.1f%% of the window and idles %.1f%% while a worker holds the lock for "
             "CPU work.", 100 * busy, 100 * v[big]);
  else if (!strcmp(names[big], "idle, no work"))
    snprintf(r, sizeof r, "The GPU computes %.1f%% of the window and idles %.1f%% with no work to do (arrivals too "
             "slow, or a drained backlog).", 100 * busy, 100 * v[big]);
  else
    snprintf(r, sizeof r, "The GPU computes %.1f%% of the window and idles %.1f%% (%s).", 100 * busy, 100 * v[big],
             names[big]);
  rep_figure_end(b, r);
}

static int section_report(ps_buf *b, const char *path, const cJSON *doc, ps_err *e) {
  if (!isfinite(rep_num(doc, "metrics.gpu_util_mean")))
    return ps_fail(e, PS_EINPUT, "%s: metrics.gpu_util_mean: expected a number (a provesim.report/1 document)", path);
  const char *name = rep_str(doc, "scenario.scenario"), *src = rep_str(doc, "source");
  char h[256];
  snprintf(h, sizeof h, "%s: %s", src && !strcmp(src, "prover") ? "Measurement" : "Simulation",
           name ? name : "(unnamed scenario)");
  rep_section(b, "report", h, path);
  const char *lim = rep_str(doc, "metrics.bottleneck");
  if (lim) rep_para(b, "bottleneck", lim);
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "stability");
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "unstable"))) {
    char w[256];
    snprintf(w, sizeof w, "Unstable: the arrivals offer %.1f%% of the capacity, so the queue and the latency figures "
             "grow with the run length.", 100 * rep_num(st, "utilization_offered"));
    rep_para(b, "warning", w);
  }
  breakdown(b, doc);
  ps_buf_printf(b, "<table class=\"metrics\"><tr><th>metric</th><th>value</th><th>&#177;95%%</th></tr>\n");
  const cJSON *gu = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metrics"), "gpu_util");
  int ng = cJSON_GetArraySize(gu);
  for (int g = 0; g < ng && ng > 1 && g < 64; g++) {
    const cJSON *v = cJSON_GetArrayItem(gu, g);
    ps_buf_printf(b, "<tr><td>GPU %d utilization</td>", g);
    rep_cell(b, cJSON_IsNumber(v) ? v->valuedouble : NAN, "%.2f", 100, "%");
    ps_buf_printf(b, "<td></td></tr>\n");
  }
  /* A measurement's nvidia-smi figure (NVML's sampled "utilization"), per GPU, beside the
   * kernel-busy figure above: the two can differ widely. */
  const cJSON *gn = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "metrics"), "gpu_util_nvml");
  for (int g = 0; g < cJSON_GetArraySize(gn) && g < 64; g++) {
    const cJSON *v = cJSON_GetArrayItem(gn, g);
    ps_buf_printf(b, "<tr data-key=\"metrics.gpu_util_nvml.%d\"><td>GPU %d, nvidia-smi's utilization (NVML)</td>", g,
                  g);
    rep_cell(b, cJSON_IsNumber(v) ? v->valuedouble : NAN, "%.2f", 100, "%");
    ps_buf_printf(b, "<td></td></tr>\n");
  }
  for (size_t i = 0; i < sizeof mrows / sizeof mrows[0]; i++) {
    double v = rep_num(doc, mrows[i].key);
    if (!isfinite(v) && strstr(mrows[i].key, "proof_latency")) continue;
    ps_buf_printf(b, "<tr data-key=\"%s\"><td>%s</td>", mrows[i].key, mrows[i].label);
    rep_cell(b, v, mrows[i].fmt, mrows[i].scale, mrows[i].unit);
    if (mrows[i].ci) rep_cell(b, rep_num(doc, mrows[i].ci), mrows[i].fmt, mrows[i].scale, mrows[i].unit);
    else ps_buf_printf(b, "<td></td>");
    ps_buf_printf(b, "</tr>\n");
  }
  ps_buf_printf(b, "</table>\n");
  /* The run: replications, the warm-up (MSER-5's choice with run.warmup: auto) and, with
   * run.precision, the relative half-width reached. */
  char t[512];
  int n = snprintf(t, sizeof t, "%.0f replications, %.0f events", rep_num(doc, "replications"), rep_num(doc, "events"));
  double wu = rep_num(doc, "scenario.run.warmup");
  const char *wa = rep_str(doc, "scenario.run.warmup_auto");
  if (isfinite(wu))
    n += snprintf(t + n, sizeof t - (size_t)n, "; warm-up %.0f partitions%s%s%s", wu, wa ? " (chosen by " : "",
                  wa ? wa : "", wa ? ")" : "");
  const cJSON *pr = cJSON_GetObjectItemCaseSensitive(doc, "precision");
  if (pr)
    snprintf(t + n, sizeof t - (size_t)n, "; precision: target %.3g, reached %.3g (%s%s)", rep_num(pr, "target"),
             rep_num(pr, "reached"), cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pr, "met")) ? "met" : "not met",
             cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pr, "capped")) ? ", stopped at the cap" : "");
  rep_para(b, "note", t);
  ps_buf_printf(b, "</section>\n");
  return PS_OK;
}

/* ================================================================ inputs and the page */

/* Renders one input into b; *title gets the first scenario name seen (caller frees). */
static int render_input(ps_buf *b, const char *path, char **title, ps_err *e) {
  if (spans_sniff(path)) return rep_timeline(b, path, e);
  char *txt = NULL;
  size_t n = 0;
  int rc = read_text(path, &txt, &n, e);
  if (rc != PS_OK) return rc;
  size_t k = strspn(txt, " \t\r\n");
  if (txt[k] == '{') {
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(txt, n, &end, 0);
    long line, colm;
    if (!doc) {
      const char *at = cJSON_GetErrorPtr();
      text_pos(txt, at && at >= txt && at <= txt + n ? (size_t)(at - txt) : 0, &line, &colm);
      rc = ps_fail(e, PS_EINPUT, "%s:%ld:%ld: expected a JSON document, got invalid JSON", path, line, colm);
    } else if (end[strspn(end, " \t\r\n")]) {
      text_pos(txt, (size_t)(end - txt) + strspn(end, " \t\r\n"), &line, &colm);
      rc = ps_fail(e, PS_EINPUT, "%s:%ld:%ld: expected one JSON document, got more text after it", path, line, colm);
    } else {
      const char *schema = rep_str(doc, "schema");
      const char *name = rep_str(doc, "scenario.scenario");
      if (!name) name = rep_str(doc, "scenario.name");
      if (!name) name = rep_str(doc, "scenario");
      if (name && !*title) *title = xstrdup(name);
      if (!schema)
        rc = ps_fail(e, PS_EINPUT, "%s: schema: expected a provesim document's schema, got none", path);
      else if (!strcmp(schema, "provesim.report/1"))
        rc = section_report(b, path, doc, e);
      else if (!strcmp(schema, "provesim.sweep/1"))
        rc = rep_sweep_json(b, path, doc, e);
      else if (!strcmp(schema, "provesim.validate/1"))
        rc = rep_validate(b, path, doc, e);
      else if (!strcmp(schema, "provesim.sensitivity/1"))
        rc = rep_sensitivity(b, path, doc, e);
      else
        rc = ps_fail(e, PS_EINPUT, "%s: schema: expected provesim.report/1, provesim.sweep/1, provesim.validate/1 or "
                     "provesim.sensitivity/1, got \"%.60s\"", path, schema);
    }
    cJSON_Delete(doc);
  } else if (!strncmp(txt + k, "point,overrides,", 16) || !strncmp(txt + k, "gpus,workers_per_gpu,batch,", 27)) {
    int plan = txt[k] == 'g';
    rep_csv t;
    rc = csv_parse(path, txt, &t, e);
    if (rc == PS_OK) {
      int j = rep_csv_col(&t, "scenario");
      if (j >= 0 && !*title) *title = xstrdup(t.rows[0][j]);
      rc = plan ? rep_plan_csv(b, path, &t, e) : rep_sweep_csv(b, path, &t, e);
      csv_free(&t);
    }
  } else {
    int w = (int)strcspn(txt + k, "\r\n");
    rc = ps_fail(e, PS_EINPUT, "%s:1: expected a provesim JSON document (report, sweep, validate, sensitivity), a "
                 "provesim.spans/1 file, or a sweep or plan CSV, got \"%.*s\"", path, w < 30 ? w : 30, txt + k);
  }
  free(txt);
  return rc;
}

static const char page_css[] =
    "body{font:14px/1.45 sans-serif;color:#222;max-width:960px;margin:1.5em auto;padding:0 1em}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}"
    "figure{margin:1em 0}svg text{font:12px sans-serif;fill:#222}svg .axis-label{font-weight:bold}"
    "svg .mark{fill:#fff;font-weight:bold}.reading{font-style:italic;margin-top:.3em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ddd;padding:2px 8px}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}.warning{color:#a00;font-weight:bold}"
    ".source,.note{color:#666;font-size:.9em}";

int sim_cmd_report(int argc, char **argv) {
  const char *out = NULL, *title = NULL;
  const char **in = xcalloc((size_t)argc + 1, sizeof *in);
  int nin = 0, rc = PS_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(report_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "-o") || cli_is_opt(a, "--output")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--output"))) goto missing;
      out = v;
    } else if (cli_is_opt(a, "--spans")) {
      if (!(v = cli_optval(argc, argv, &i, "--spans"))) goto missing;
      in[nin++] = v;
    } else if (cli_is_opt(a, "--title")) {
      if (!(v = cli_optval(argc, argv, &i, "--title"))) goto missing;
      title = v;
    } else if (a[0] == '-' && a[1]) {
      rc = cli_usage_error("report", "unknown option %s", a);
      goto done;
    } else {
      in[nin++] = a;
    }
    continue;
  missing:
    rc = cli_usage_error("report", "%s: expected a value", a);
    goto done;
  }
  if (!nin) {
    rc = cli_usage_error("report", "%s", "expected at least one result file");
    goto done;
  }
  if (!out) {
    rc = cli_usage_error("report", "%s", "expected -o REPORT.html");
    goto done;
  }
  if (cli_check_outputs("report", &out, 1)) goto done;

  ps_buf body = {0}, page = {0};
  char *name = NULL;
  ps_err e = {0};
  int r = PS_OK;
  for (int i = 0; i < nin && r == PS_OK; i++) r = render_input(&body, in[i], &name, &e);
  if (r != PS_OK) {
    fprintf(stderr, "provesim report: %s\n", e.msg);
    rc = ps_exit_failed(r);
  } else {
    char *t = title ? xstrdup(title) : xasprintf("provesim report: %s", name ? name : "results");
    ps_buf_printf(&page, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    svg_escape(&page, t);
    ps_buf_printf(&page, "</title>\n<style>%s</style></head>\n<body>\n<h1>", page_css);
    svg_escape(&page, t);
    ps_buf_printf(&page, "</h1>\n");
    ps_buf_append(&page, body.p, body.len);
    ps_buf_printf(&page, "<footer class=\"note\">Written by provesim report from %d file%s.</footer>\n"
                         "</body></html>\n", nin, nin > 1 ? "s" : "");
    rc = cli_write_out("report", out, &page) ? PS_EXIT_FAIL : PS_EXIT_OK;
    free(t);
  }
  ps_buf_free(&body);
  ps_buf_free(&page);
  free(name);
done:
  free(in);
  return rc;
}
