/* `provesim report`: one self-contained HTML page of plots (inline SVG from core/svg.h, no
 * script, nothing fetched) from the documents other commands write. cli_report.c reads
 * the inputs, tells their kinds apart and writes the page with the simulation section;
 * cli_report_tl.c draws the timeline of a spans file; cli_report_html.c renders the
 * sweep, plan, validation and sensitivity sections. The helpers below, which all three
 * share, are cli_report_page.c's. */
#ifndef PROVESIM_CLI_REPORT_H
#define PROVESIM_CLI_REPORT_H

#include <cjson/cJSON.h>

#include "util.h"

int sim_cmd_report(int argc, char **argv);

/* A CSV file read whole: the header's names and the rows' cells (strings owned by the
 * table; an empty cell is ""). */
typedef struct rep_csv {
  int ncols, nrows;
  char **head;
  char ***rows; /* rows[i][j] */
  long *line;   /* the file line of each row, for messages */
} rep_csv;

/* The column named name, or -1. */
int rep_csv_col(const rep_csv *t, const char *name);
/* Cell (i, name) as a number: NaN when empty; PS_EINPUT with e naming file, line and
 * column when it is not a number. The column must exist (rep_csv_need checks that). */
int rep_csv_num(const rep_csv *t, const char *path, int i, const char *name, double *out, ps_err *e);
/* PS_OK when every name in the NULL-terminated list is a column; else PS_EINPUT naming it. */
int rep_csv_need(const rep_csv *t, const char *path, const char *const *names, ps_err *e);

/* Member path "a.b.c" of a JSON document as a number (NaN when absent, null or not a
 * number), or as a string (NULL). */
double rep_num(const cJSON *o, const char *path);
const char *rep_str(const cJSON *o, const char *path);

/* The page: a section's heading and source line, a figure's start and end (the reading
 * under each plot, escaped), a paragraph of escaped text. */
void rep_section(ps_buf *b, const char *kind, const char *heading, const char *path);
void rep_figure_begin(ps_buf *b, const char *id);
void rep_figure_end(ps_buf *b, const char *reading);
void rep_para(ps_buf *b, const char *cls, const char *text);
/* A table cell holding a number: data-v carries the value with 17 significant digits (so
 * a test can compare it with the document), the text shows it as fmt formats v * scale
 * followed by unit; "-" when v is not finite. */
void rep_cell(ps_buf *b, double v, const char *fmt, double scale, const char *unit);

/* The timeline of a spans file (cli_report_tl.c); PS_EINPUT or PS_ERR with e filled. */
int rep_timeline(ps_buf *b, const char *path, ps_err *e);

/* The sections of cli_report_html.c: each renders one document; PS_EINPUT with e filled
 * when the document lacks what it needs. */
int rep_sweep_json(ps_buf *b, const char *path, const cJSON *doc, ps_err *e);
int rep_sweep_csv(ps_buf *b, const char *path, const rep_csv *t, ps_err *e);
int rep_plan_csv(ps_buf *b, const char *path, const rep_csv *t, ps_err *e);
int rep_validate(ps_buf *b, const char *path, const cJSON *doc, ps_err *e);
int rep_sensitivity(ps_buf *b, const char *path, const cJSON *doc, ps_err *e);

#endif
