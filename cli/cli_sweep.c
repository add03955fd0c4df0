/* `provesim sweep`: argv, help, the table, CSV and JSON of a grid of what-ifs that
 * sim/whatif.h builds and sim/farm.h runs (on threads, and on MPI ranks under mpirun).
 * Each point is written as soon as it and every point before it are done: to the
 * outputs, which are temporaries renamed at the end (so a failing or interrupted run
 * leaves none behind), and to a checkpoint, FILE.partial beside the first output, which
 * an interrupted or failed run leaves for --resume. */
#define _GNU_SOURCE
#include "cli_whatif.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "estimate.h"
#include "farm.h"
#include "report.h"
#include "scn.h"
#include "whatif.h"

/* ================================================================ sweep */

static const char sweep_help[] =
    "usage: provesim sweep SCENARIO --vary KEY=VALUES [--vary ...] [options]\n"
    "\n"
    "Simulates every point of a grid of what-ifs: the cartesian product of the --vary lists,\n"
    "the first --vary varying slowest. Each point is the scenario with those overrides (checked\n"
    "like --set), simulated with all its replications. Points run in parallel; the output is\n"
    "the same whatever --jobs is. Prints a table; --csv and --json write every metric with its\n"
    "95% confidence half-width.\n"
    "\n"
    "VALUES:\n"
    "  1..8              integers 1 to 8\n"
    "  1.0..2.0:0.25     1.0, 1.25, ..., 2.0 (a step is needed for non-integers)\n"
    "  call,kernels      a list; commas inside {...}, [...] or quotes do not split\n"
    "  'call;{from: ntt_h, to: msm}'   with a ';' anywhere, ';' separates the list instead\n"
    "\n"
    "options:\n"
    "  --vary KEY=VALUES   a scenario or model key and its values (repeatable):\n"
    "                      system.workers_per_gpu=1..8  system.mutex=call,kernels\n"
    "                      system.batch=1,2,4  phases.prep.time.mean=1.0..2.0:0.25\n"
    "  --set KEY=VALUE     a fixed override applied to every point (repeatable)\n"
    "  --jobs N            points simulated at once (default: all cores)\n"
    "  --csv FILE          write one CSV row per point\n"
    "  --json FILE         write a provesim.sweep/1 JSON document\n"
    "  --resume PARTIAL    skip the points already in PARTIAL, the checkpoint an interrupted\n"
    "                      or failed run of the same grid left (see below)\n"
    "  -q, --quiet         no table on standard output\n"
    "  -h, --help          this text\n"
    "\n"
    "Points are written in grid order as they finish. The outputs appear whole at the end;\n"
    "meanwhile every finished point is also in FILE.partial beside the first of --csv and\n"
    "--json. A run that is interrupted (Ctrl-C, a kill, a lost machine) or whose points fail\n"
    "leaves that file; run the same command with --resume FILE.partial to simulate only the\n"
    "points it lacks. The result is the same bytes as an uninterrupted run. The checkpoint\n"
    "names the grid and scenario it was written for, and another grid is refused. A finished\n"
    "run removes it.\n"
    "\n"
    "Across machines: in a build with -DPROVESIM_MPI=ON, `mpirun -n N provesim sweep ...`\n"
    "spreads the points over N ranks; rank 0 writes everything, the same bytes as one process.\n"
    "A rank that fails (its scenario unreadable, a point that cannot run) is reported with its\n"
    "points, which --resume runs again.\n"
    "\n"
    "A progress bar with an ETA is drawn on standard error when it is a terminal.\n"
    "exit codes: 0 success, 1 run failure (I/O, a point that failed to run), 2 bad input (a bad\n"
    "--vary, a scenario error, a checkpoint of another grid)\n"
    "\n"
    "examples:\n"
    "  provesim sweep configs/seed-coarse-mutex.yaml --vary system.workers_per_gpu=1..6 \\\n"
    "      --vary system.mutex=call,kernels --csv sweep.csv\n"
    "  (interrupted)   ... --csv sweep.csv --resume sweep.csv.partial\n"
    "  mpirun -n 4 provesim sweep configs/seed-coarse-mutex.yaml --vary run.seed=1..1000 --csv s.csv -q\n";

#define SWEEP_PARTIAL_SCHEMA "provesim.sweep-partial/1"

/* The table's cells of one point. */
typedef struct sweep_row {
  double u, uci, tput, tci, p99, wait, cpu, load;
  int has, unstable;
  char lim[64];
} sweep_row;

/* What every rank needs to compute a point. */
typedef struct sweep_cfg {
  const whatif_sweep *sw;
  int csv, json; /* the pieces each point line carries */
} sweep_cfg;

/* Rank 0's state while the points arrive. */
typedef struct sweep_run {
  const whatif_sweep *sw;
  int csv_on, json_on;
  ps_outfile csv, json;
  FILE *ck;          /* the checkpoint, or NULL */
  char *ckpath;
  int ck_is_resume;  /* the checkpoint is the resume file: its points are there already */
  FILE *rf;          /* the resume file, or NULL */
  const char *rpath;
  long *roff;        /* offset of point i's line in rf, or -1 */
  sweep_row *rows;   /* the table's rows, or NULL with -q */
  long done, njson, nunstable, nfail;
  int fail_rc;       /* the first failure's code, its message, and some failed points */
  char fail_msg[1200];
  long fail_pts[12];
  int stop_rc;       /* why the deliveries stopped (I/O, a bad resume line), with stop */
  ps_err stop;
  cli_progress bar;
  int tty;
  ps_buf line;
} sweep_run;

/* ---------------------------------------------------------------- one point */

static cJSON *row_json(const whatif_point *p) {
  const report_summary *m = &p->sum;
  const report_stability *st = &m->stab;
  char lim[64];
  report_limit_name(p->limit, lim, sizeof lim);
  double v[] = {m->gpu_util_mean, m->gpu_util_mean_ci, m->tput, m->tput_ci, m->has_proofs ? m->proof_p99 : m->lat_p99,
                m->wait_mean, m->cpu_util, st->has, st->has ? st->utilization : NAN, st->unstable};
  cJSON *a = cJSON_CreateArray();
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    cJSON_AddItemToArray(a, isfinite(v[k]) ? cJSON_CreateNumber(v[k]) : cJSON_CreateNull());
  cJSON_AddItemToArray(a, cJSON_CreateString(lim));
  return a;
}

static double num_or_nan(const cJSON *x) {
  return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* The row of a point line's "row" array; -1 when it is not one. */
static int row_read(const cJSON *a, sweep_row *r) {
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 11 || !cJSON_IsString(cJSON_GetArrayItem(a, 10))) return -1;
  double v[10];
  for (int k = 0; k < 10; k++) v[k] = num_or_nan(cJSON_GetArrayItem(a, k));
  *r = (sweep_row){.u = v[0], .uci = v[1], .tput = v[2], .tci = v[3], .p99 = v[4], .wait = v[5], .cpu = v[6],
                   .has = v[7] == 1, .load = v[8], .unstable = v[9] == 1};
  snprintf(r->lim, sizeof r->lim, "%s", cJSON_GetArrayItem(a, 10)->valuestring);
  return 0;
}

/* The JSON document's object of a point. */
static cJSON *point_json(const whatif_sweep *sw, const whatif_point *p, long i) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "point", (double)i);
  cJSON *set = cJSON_AddObjectToObject(o, "values");
  for (int k = 0; k < sw->nv; k++) cJSON_AddItemToObject(set, sw->vs[k].key, cli_json_value(whatif_point_value(p, k)));
  cJSON *sys = cJSON_AddObjectToObject(o, "system");
  cJSON_AddNumberToObject(sys, "gpus", p->s->gpus);
  cJSON_AddNumberToObject(sys, "workers_per_gpu", p->s->workers_per_gpu);
  cJSON_AddNumberToObject(sys, "cpu_cores", p->s->cpu_cores);
  cJSON_AddNumberToObject(sys, "batch", p->s->batch);
  cJSON_AddStringToObject(sys, "mutex", p->s->mutex_name ? p->s->mutex_name : "none");
  cJSON *doc = report_json(p->s, &p->sum);
  cJSON_AddItemToObject(o, "metrics", cJSON_DetachItemFromObject(doc, "metrics"));
  cJSON_AddItemToObject(o, "ci95", cJSON_DetachItemFromObject(doc, "ci95"));
  if (p->sum.stab.has) cJSON_AddItemToObject(o, "stability", cJSON_DetachItemFromObject(doc, "stability"));
  if (p->sum.precision) cJSON_AddItemToObject(o, "precision", cJSON_DetachItemFromObject(doc, "precision"));
  cJSON_AddNumberToObject(o, "replications", p->sum.nreps);
  cJSON_Delete(doc);
  return o;
}

/* farm_item_fn: simulates point i into its checkpoint line,
 * {"point":I,"row":[table cells],"csv":"CSV row","json":"JSON object"}\n
 * ("point" first, so a resume can index the lines without parsing them). */
static int sweep_item(void *ctx, size_t i, ps_buf *out) {
  const sweep_cfg *c = ctx;
  const whatif_sweep *sw = c->sw;
  whatif_point p;
  whatif_point_make(sw, (long)i, &p);
  if (whatif_point_run(sw, &p) != PS_OK) {
    ps_err e = {0};
    int rc = whatif_point_fail(sw, &p, (long)i, &e);
    ps_buf_printf(out, "%s", e.msg);
    whatif_point_clear(sw, &p);
    return rc;
  }
  est_stability(p.s, &p.sum.stab);
  cJSON *line = cJSON_CreateObject();
  cJSON_AddNumberToObject(line, "point", (double)i);
  cJSON_AddItemToObject(line, "row", row_json(&p));
  if (c->csv) {
    ps_buf b = {0};
    char *ov = cli_join_sets(p.sets, sw->nsets + sw->nv);
    report_csv_extra x = {.point = (long)i, .overrides = ov};
    report_csv_row(&b, p.s, &p.sum, &x);
    cJSON_AddStringToObject(line, "csv", b.p ? b.p : "");
    ps_buf_free(&b);
    free(ov);
  }
  if (c->json) {
    cJSON *o = point_json(sw, &p, (long)i);
    char *t = cJSON_PrintUnformatted(o);
    cJSON_AddStringToObject(line, "json", t);
    free(t);
    cJSON_Delete(o);
  }
  char *t = cJSON_PrintUnformatted(line);
  ps_buf_printf(out, "%s\n", t);
  free(t);
  cJSON_Delete(line);
  whatif_point_clear(sw, &p);
  return PS_OK;
}

/* ---------------------------------------------------------------- rank 0 */

static int run_stop(sweep_run *R, int rc, const char *fmt, const char *a, const char *b) {
  R->stop_rc = rc;
  ps_fail(&R->stop, rc, fmt, a, b);
  return -1;
}

/* Writes one point's line: to the checkpoint (unless it is there already), its pieces to
 * the outputs, its row to the table. */
static int sweep_take(sweep_run *R, size_t i, const char *data, size_t len, int copy_ck) {
  if (copy_ck && R->ck && (fwrite(data, 1, len, R->ck) != len || fflush(R->ck) != 0))
    return run_stop(R, PS_ERR, "%s: cannot write: %s", R->ckpath, strerror(errno));
  cJSON *line = cJSON_ParseWithLength(data, len);
  const cJSON *csv = cJSON_GetObjectItem(line, "csv"), *json = cJSON_GetObjectItem(line, "json");
  sweep_row row;
  if (!line || row_read(cJSON_GetObjectItem(line, "row"), &row) || (R->csv_on && !cJSON_IsString(csv)) ||
      (R->json_on && !cJSON_IsString(json))) {
    cJSON_Delete(line);
    char pt[32];
    snprintf(pt, sizeof pt, "%zu", i);
    return run_stop(R, PS_EINPUT, "%s: the line of point %s is not a point line of this sweep", R->rpath ? R->rpath : "?", pt);
  }
  if (R->csv_on && fputs(csv->valuestring, R->csv.f) < 0)
    return cJSON_Delete(line), run_stop(R, PS_ERR, "%s: cannot write: %s", R->csv.path, strerror(errno));
  if (R->json_on && ((R->njson++ && fputc(',', R->json.f) == EOF) || fputs(json->valuestring, R->json.f) < 0))
    return cJSON_Delete(line), run_stop(R, PS_ERR, "%s: cannot write: %s", R->json.path, strerror(errno));
  if (R->rows) R->rows[i] = row;
  R->nunstable += row.unstable;
  cJSON_Delete(line);
  return 0;
}

/* farm_emit_fn: the points in grid order. */
static int sweep_emit(void *ctx, size_t i, int rc, const char *data, size_t len, int rank) {
  sweep_run *R = ctx;
  int r = 0;
  if (rc == FARM_SKIPPED) {
    /* Already in the resume file: its line, copied. */
    ssize_t n = -1;
    size_t cap = R->line.cap;
    if (fseek(R->rf, R->roff[i], SEEK_SET) == 0) n = getline(&R->line.p, &cap, R->rf);
    R->line.cap = cap;
    if (n <= 0) return run_stop(R, PS_ERR, "%s: cannot read: %s", R->rpath, strerror(errno ? errno : EIO));
    R->line.len = (size_t)n;
    r = sweep_take(R, i, R->line.p, R->line.len, !R->ck_is_resume);
  } else if (rc != PS_OK) {
    if (R->nfail == 0) {
      R->fail_rc = rc;
      if (rank > 0 && strncmp(data, "rank ", 5))
        snprintf(R->fail_msg, sizeof R->fail_msg, "%.*s (on rank %d)", (int)len, data, rank);
      else
        snprintf(R->fail_msg, sizeof R->fail_msg, "%.*s", (int)len, data);
    }
    if (R->nfail < (long)(sizeof R->fail_pts / sizeof R->fail_pts[0])) R->fail_pts[R->nfail] = (long)i;
    R->nfail++;
  } else {
    r = sweep_take(R, i, data, len, 1);
  }
  R->done++;
  if (R->tty) cli_progress_tick(&R->bar, (size_t)R->done);
  return r;
}

/* A 64-bit digest of everything that decides the points' bytes: the scenario path, point
 * 0's resolved scenario (the files' contents), the base overrides and the grid. */
static void grid_digest(const whatif_sweep *sw, const scenario *s0, char out[17]) {
  ps_buf m = {0};
  ps_buf_printf(&m, "%s\n%s\n", SWEEP_PARTIAL_SCHEMA, sw->path);
  cJSON *sj = scn_to_json(s0);
  char *t = cJSON_PrintUnformatted(sj);
  ps_buf_printf(&m, "%s\n", t);
  free(t);
  cJSON_Delete(sj);
  for (int k = 0; k < sw->nsets; k++) ps_buf_printf(&m, "set %s\n", sw->sets[k]);
  for (int k = 0; k < sw->nv; k++) {
    ps_buf_printf(&m, "vary %s", sw->vs[k].key);
    for (int j = 0; j < sw->vs[k].nvals; j++) ps_buf_printf(&m, "\x1f%s", sw->vs[k].vals[j]);
    ps_buf_printf(&m, "\n");
  }
  unsigned long c = crc32(0L, (const Bytef *)m.p, (uInt)m.len), a = adler32(1L, (const Bytef *)m.p, (uInt)m.len);
  snprintf(out, 17, "%08lx%08lx", c & 0xffffffffUL, a & 0xffffffffUL);
  ps_buf_free(&m);
}

/* The longest line a checkpoint may hold: a point's CSV row and JSON object with a
 * thousand GPUs' figures stay far below it. */
#define SWEEP_LINE_MAX (16L << 20)

/* Reads one line of f in bounded memory: its first hn - 1 bytes into head (NUL-ended),
 * its length with the newline into *len (0 at the end of the file), and whether it is
 * whole (ends with a newline) and ends with "}\n". */
static void scan_line(FILE *f, char *head, size_t hn, long *len, int *whole, int *brace) {
  long n = 0;
  int c, prev = 0;
  *whole = *brace = 0;
  while ((c = getc(f)) != EOF) {
    if ((size_t)n < hn - 1) head[n] = (char)c;
    n++;
    if (c == '\n') {
      *whole = 1;
      *brace = prev == '}';
      break;
    }
    prev = c;
  }
  head[(size_t)n < hn - 1 ? (size_t)n : hn - 1] = 0;
  *len = n;
}

/* Reads the resume file's header and indexes its point lines (skip[i] = 1, roff[i]), in
 * bounded memory whatever the file holds. An incomplete last line (an interrupted write)
 * is dropped, and cut off when the file is this run's checkpoint, which then grows from
 * there. */
static int resume_read(sweep_run *R, const char *digest, int want_csv, int want_json, unsigned char *skip, ps_err *e) {
  const char *rp = R->rpath;
  long npts = R->sw->npts;
  struct stat st;
  if (stat(rp, &st) == 0 && !S_ISREG(st.st_mode))
    return ps_fail(e, PS_EINPUT, "--resume %s: expected a regular file (the FILE.partial an interrupted sweep leaves)", rp);
  R->rf = fopen(rp, R->ck_is_resume ? "r+" : "r");
  if (!R->rf) return ps_fail(e, PS_EINPUT, "--resume %s: cannot read: %s", rp, strerror(errno));
  char head[4096];
  long n;
  int whole, brace;
  scan_line(R->rf, head, sizeof head, &n, &whole, &brace);
  cJSON *h = whole && n < (long)sizeof head ? cJSON_Parse(head) : NULL;
  const cJSON *sc = cJSON_GetObjectItem(h, "schema"), *g = cJSON_GetObjectItem(h, "grid"),
              *np = cJSON_GetObjectItem(h, "points");
  int rc = PS_OK;
  if (!cJSON_IsString(sc) || strcmp(sc->valuestring, SWEEP_PARTIAL_SCHEMA) || !cJSON_IsString(g) || !cJSON_IsNumber(np))
    rc = ps_fail(e, PS_EINPUT, "--resume %s:1: expected a %s header (the FILE.partial an interrupted sweep leaves)",
                 rp, SWEEP_PARTIAL_SCHEMA);
  else if (strcmp(g->valuestring, digest) || np->valuedouble != (double)npts)
    rc = ps_fail(e, PS_EINPUT, "--resume %s: written for another grid or scenario (%.0f points, grid %s; this sweep: "
                 "%ld points, grid %s): resume with the scenario files, --set and --vary of the interrupted run",
                 rp, np->valuedouble, g->valuestring, npts, digest);
  else if ((want_csv && !cJSON_IsTrue(cJSON_GetObjectItem(h, "csv"))) ||
           (want_json && !cJSON_IsTrue(cJSON_GetObjectItem(h, "json"))))
    rc = ps_fail(e, PS_EINPUT, "--resume %s: its run wrote no %s: resume with the outputs of the interrupted run", rp,
                 want_csv && !cJSON_IsTrue(cJSON_GetObjectItem(h, "csv")) ? "--csv" : "--json");
  cJSON_Delete(h);
  long off = n, lineno = 1, good_end = off;
  R->roff = xmalloc((size_t)npts * sizeof *R->roff);
  for (long i = 0; i < npts; i++) R->roff[i] = -1;
  while (rc == PS_OK) {
    scan_line(R->rf, head, 64, &n, &whole, &brace);
    if (n == 0 || !whole) break; /* the end, or a line cut short: dropped */
    lineno++;
    long pt = -1;
    int at = 0;
    if (n > SWEEP_LINE_MAX)
      rc = ps_fail(e, PS_EINPUT, "--resume %s:%ld: a line of %ld bytes; a point line has at most %ld", rp, lineno, n,
                   SWEEP_LINE_MAX);
    else if (sscanf(head, "{\"point\":%ld,%n", &pt, &at) < 1 || at == 0 || pt < 0 || pt >= npts || !brace)
      rc = ps_fail(e, PS_EINPUT, "--resume %s:%ld: expected a point line {\"point\":N,...} with N from 0 to %ld", rp,
                   lineno, npts - 1);
    else if (!skip[pt]) {
      skip[pt] = 1;
      R->roff[pt] = off;
    }
    off += n;
    good_end = off;
  }
  if (rc == PS_OK && ferror(R->rf)) rc = ps_fail(e, PS_ERR, "--resume %s: cannot read: %s", rp, strerror(errno));
  if (rc == PS_OK && R->ck_is_resume && (fflush(R->rf) != 0 || ftruncate(fileno(R->rf), good_end) != 0))
    rc = ps_fail(e, PS_ERR, "--resume %s: cannot write: %s", rp, strerror(errno));
  return rc;
}

/* Regular files (or names not yet taken) get a checkpoint beside them; devices do not. */
static int is_regular_or_new(const char *path) {
  struct stat st;
  return lstat(path, &st) != 0 || S_ISREG(st.st_mode);
}

/* Rank 0, before any point runs: the digest, the resume file, the checkpoint and the
 * outputs' temporaries with their heads. */
static int sweep_setup(sweep_run *R, const char *csvf, const char *jsonf, const char *resume, unsigned char *skip,
                       ps_err *e) {
  const whatif_sweep *sw = R->sw;
  whatif_point p0;
  whatif_point_make(sw, 0, &p0);
  scenario *s0 = NULL;
  int rc = scn_load(sw->path, p0.sets, sw->nsets + sw->nv, &s0, e);
  whatif_point_clear(sw, &p0);
  if (rc != PS_OK) return rc;
  char digest[17];
  grid_digest(sw, s0, digest);
  const char *first = csvf ? csvf : jsonf;
  if (first && is_regular_or_new(first)) R->ckpath = xasprintf("%s.partial", first);
  if (resume) {
    R->rpath = resume;
    struct stat a, b;
    R->ck_is_resume = R->ckpath && stat(resume, &a) == 0 && stat(R->ckpath, &b) == 0 && a.st_dev == b.st_dev &&
                      a.st_ino == b.st_ino;
    rc = resume_read(R, digest, csvf != NULL, jsonf != NULL, skip, e);
  }
  if (rc == PS_OK && R->ckpath && !R->ck_is_resume) {
    struct stat st;
    if (lstat(R->ckpath, &st) == 0)
      rc = ps_fail(e, PS_EINPUT, "%s: a checkpoint of an earlier run is there: resume it with --resume %s, or remove it",
                   R->ckpath, R->ckpath);
    else if (!(R->ck = fopen(R->ckpath, "w")))
      rc = ps_fail(e, PS_ERR, "%s: cannot write: %s", R->ckpath, strerror(errno));
    else
      fprintf(R->ck, "{\"schema\":\"%s\",\"grid\":\"%s\",\"points\":%ld,\"csv\":%s,\"json\":%s}\n", SWEEP_PARTIAL_SCHEMA,
              digest, sw->npts, csvf ? "true" : "false", jsonf ? "true" : "false");
  } else if (rc == PS_OK && R->ck_is_resume) {
    /* Appended to (every line so far is a point of this grid), through a handle of its own:
     * rf reads the lines of the points it has. */
    if (!(R->ck = fopen(R->ckpath, "a"))) rc = ps_fail(e, PS_ERR, "%s: cannot write: %s", R->ckpath, strerror(errno));
  }
  if (rc == PS_OK && csvf) {
    if ((rc = ps_out_open(&R->csv, csvf, e)) == PS_OK) {
      R->csv_on = 1;
      ps_buf b = {0};
      report_csv_header(&b);
      fputs(b.p, R->csv.f);
      ps_buf_free(&b);
    }
  }
  if (rc == PS_OK && jsonf) {
    if ((rc = ps_out_open(&R->json, jsonf, e)) == PS_OK) {
      R->json_on = 1;
      /* The document's head as cJSON prints it with no points yet, less the closing "]}". */
      cJSON *root = cJSON_CreateObject();
      cJSON_AddStringToObject(root, "schema", "provesim.sweep/1");
      cJSON_AddStringToObject(root, "scenario", s0->name);
      cJSON_AddStringToObject(root, "file", sw->path);
      cJSON *va = cJSON_AddArrayToObject(root, "vary");
      for (int k = 0; k < sw->nv; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", sw->vs[k].key);
        cJSON *vals = cJSON_AddArrayToObject(o, "values");
        for (int j = 0; j < sw->vs[k].nvals; j++) cJSON_AddItemToArray(vals, cli_json_value(sw->vs[k].vals[j]));
        cJSON_AddItemToArray(va, o);
      }
      cJSON_AddArrayToObject(root, "points");
      char *t = cJSON_PrintUnformatted(root);
      size_t n = strlen(t);
      PS_ASSERT(n >= 2 && !strcmp(t + n - 2, "]}"));
      fwrite(t, 1, n - 2, R->json.f);
      free(t);
      cJSON_Delete(root);
    }
  }
  scn_free(s0);
  return rc;
}

static void sweep_run_free(sweep_run *R) {
  if (R->csv_on) ps_out_abort(&R->csv);
  if (R->json_on) ps_out_abort(&R->json);
  if (R->ck) fclose(R->ck);
  if (R->rf) fclose(R->rf);
  free(R->ckpath);
  free(R->roff);
  free(R->rows);
  ps_buf_free(&R->line);
}

static void sweep_table(ps_buf *b, const whatif_sweep *sw, const sweep_row *rows) {
  int nv = sw->nv;
  const whatif_vary *vs = sw->vs;
  int *w = xcalloc((size_t)nv, sizeof *w);
  for (int k = 0; k < nv; k++) {
    w[k] = (int)strlen(vs[k].key);
    for (int j = 0; j < vs[k].nvals; j++)
      if ((int)strlen(vs[k].vals[j]) > w[k]) w[k] = (int)strlen(vs[k].vals[j]);
    if (w[k] > 40) w[k] = 40;
  }
  for (int k = 0; k < nv; k++) ps_buf_printf(b, "%-*s  ", w[k], vs[k].key);
  /* With arrivals, a column of the offered load against the capacity; "!" marks a point
   * whose queue grows without end (report_stability). */
  int open = 0, nunstable = 0;
  for (long i = 0; i < sw->npts; i++) open |= rows[i].has;
  ps_buf_printf(b, "%8s %7s %10s %9s %9s %9s %7s  ", "GPU util", "±95%", "parts/h", "±95%", "p99 lat s", "wait s",
                "CPU");
  if (open) ps_buf_printf(b, "%8s  ", "load");
  ps_buf_printf(b, "%s\n", "limited by");
  for (long i = 0; i < sw->npts; i++) {
    const sweep_row *m = &rows[i];
    for (int k = 0; k < nv; k++) ps_buf_printf(b, "%-*s  ", w[k], whatif_grid_value(sw, i, k));
    char ci1[16] = "-", ci2[16] = "-";
    if (isfinite(m->uci)) snprintf(ci1, sizeof ci1, "%.2f%%", 100 * m->uci);
    if (isfinite(m->tci)) snprintf(ci2, sizeof ci2, "%.1f", 3600 * m->tci);
    ps_buf_printf(b, "%7.2f%% %7s %10.1f %9s %9.3f %9.3f %6.1f%%  ", 100 * m->u, ci1, 3600 * m->tput, ci2, m->p99,
                  m->wait, 100 * m->cpu);
    if (open) {
      char ld[32] = "-";
      if (m->has && isfinite(m->load)) snprintf(ld, sizeof ld, "%.1f%%%s", 100 * m->load, m->unstable ? "!" : " ");
      nunstable += m->unstable;
      ps_buf_printf(b, "%8s  ", ld);
    }
    ps_buf_printf(b, "%s\n", m->lim);
  }
  if (nunstable)
    ps_buf_printf(b, "\n! unstable: the arrivals offer more than the capacity (load = offered / capacity bound); "
                     "the queue grows for as long as the run lasts, so those latency figures grow with the run "
                     "length and describe no steady state\n");
  free(w);
}

/* After the last point: the outputs committed and the checkpoint removed, or, when points
 * failed or the deliveries stopped, the outputs dropped and the checkpoint kept. Returns
 * the exit code. */
static int sweep_finish(sweep_run *R, int quiet) {
  const whatif_sweep *sw = R->sw;
  ps_err e = {0};
  if (R->tty) cli_progress_end(&R->bar);
  if (R->stop_rc != PS_OK) {
    fprintf(stderr, "provesim sweep: %s\n", R->stop.msg);
  } else if (R->nfail) {
    fprintf(stderr, "provesim sweep: %ld of %ld point%s failed; the first: %s\n", R->nfail, sw->npts,
            sw->npts > 1 ? "s" : "", R->fail_msg);
    fprintf(stderr, "provesim sweep: failed points:");
    long shown = R->nfail < 12 ? R->nfail : 12;
    for (long k = 0; k < shown; k++) fprintf(stderr, "%s %ld", k ? "," : "", R->fail_pts[k]);
    fprintf(stderr, "%s\n", R->nfail > shown ? ", ..." : "");
  }
  int rc = R->stop_rc != PS_OK ? R->stop_rc : R->nfail ? R->fail_rc : PS_OK;
  if (R->stop_rc == PS_EINPUT && R->ck && !R->ck_is_resume) {
    /* A resume file found bad: no output of this run stays, its checkpoint neither. */
    fclose(R->ck);
    R->ck = NULL;
    unlink(R->ckpath);
  }
  if (rc != PS_OK) {
    if (R->ck) {
      fflush(R->ck);
      fprintf(stderr, "provesim sweep: the %ld point%s done are in %s: once the cause is fixed, run the same command "
                      "with --resume %s\n", R->done - R->nfail, R->done - R->nfail == 1 ? "" : "s", R->ckpath,
              R->ckpath);
    }
    return ps_exit_failed(rc);
  }
  if (R->nunstable && quiet)
    fprintf(stderr, "provesim sweep: warning: at %ld of %ld points the arrivals offer more than the capacity "
                    "(unstable; the queue and the latency figures grow with the run length)\n", R->nunstable, sw->npts);
  /* Both outputs or neither. */
  if (R->json_on && fputs("]}\n", R->json.f) < 0) rc = PS_ERR;
  if (rc == PS_OK && R->csv_on) {
    R->csv_on = 0;
    rc = ps_out_commit(&R->csv, &e);
  }
  if (rc == PS_OK && R->json_on) {
    R->json_on = 0;
    if ((rc = ps_out_commit(&R->json, &e)) != PS_OK && R->csv.path) ps_out_remove(R->csv.path);
  }
  if (rc != PS_OK) {
    fprintf(stderr, "provesim sweep: %s\n", e.msg[0] ? e.msg : "cannot write the JSON document");
    return PS_EXIT_FAIL;
  }
  if (R->ck) {
    fclose(R->ck);
    R->ck = NULL;
    unlink(R->ckpath);
  }
  if (R->rows) {
    ps_buf tb = {0};
    sweep_table(&tb, sw, R->rows);
    if (ps_write_stdout(tb.p, tb.len, &e) != PS_OK) {
      fprintf(stderr, "provesim sweep: %s\n", e.msg);
      if (R->csv.path) ps_out_remove(R->csv.path);
      if (R->json.path) ps_out_remove(R->json.path);
      rc = PS_ERR;
    }
    ps_buf_free(&tb);
  }
  return rc == PS_OK ? PS_EXIT_OK : PS_EXIT_FAIL;
}

int sim_cmd_sweep(int argc, char **argv) {
  const char *path = NULL, *csvf = NULL, *jsonf = NULL, *resume = NULL;
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  whatif_vary *vs = xcalloc((size_t)argc + 1, sizeof *vs);
  int nsets = 0, nv = 0, jobs = 0, quiet = 0, rc = PS_EXIT_USAGE;
  whatif_sweep *sw = NULL;
  sweep_run R = {0};
  unsigned char *skip = NULL;
  ps_err e = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(sweep_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--vary")) {
      if (!(v = cli_optval(argc, argv, &i, "--vary"))) goto missing;
      if (whatif_vary_parse(v, &vs[nv], &e) != PS_OK) {
        fprintf(stderr, "provesim sweep: %s\n", e.msg);
        goto done;
      }
      for (int k = 0; k < nv; k++)
        if (!strcmp(vs[k].key, vs[nv].key)) {
          fprintf(stderr, "provesim sweep: --vary %s: the key is varied twice\n", vs[nv].key);
          whatif_vary_free(&vs[nv]);
          goto done;
        }
      nv++;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("sweep", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--jobs") || !strcmp(a, "-j")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'j' ? "-j" : "--jobs"))) goto missing;
      if (ps_parse_int(v, 1, 4096, &jobs)) {
        rc = cli_usage_error("sweep", "--jobs: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--csv")) {
      if (!(v = cli_optval(argc, argv, &i, "--csv"))) goto missing;
      csvf = v;
    } else if (cli_is_opt(a, "--json")) {
      if (!(v = cli_optval(argc, argv, &i, "--json"))) goto missing;
      jsonf = v;
    } else if (cli_is_opt(a, "--resume")) {
      if (!(v = cli_optval(argc, argv, &i, "--resume"))) goto missing;
      resume = v;
    } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
      quiet = 1;
    } else if (cli_operand("sweep", a, &path)) {
      rc = PS_EXIT_USAGE;
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("sweep", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("sweep", "%s", "expected a scenario file");
    goto done;
  }
  if (nv == 0) {
    rc = cli_usage_error("sweep", "%s", "expected at least one --vary KEY=VALUES");
    goto done;
  }

  /* From here on every rank takes part in the farm, whatever fails. */
  farm_start();
  int rank0 = farm_rank() == 0, ready = PS_OK;
  const char *outs[] = {csvf, jsonf};
  if (rank0 && cli_check_outputs("sweep", outs, 2)) ready = PS_EINPUT; /* before the sweep runs */
  if (ready == PS_OK) ready = whatif_sweep_new(path, sets, nsets, vs, nv, &sw, &e);
  if (ready == PS_OK && rank0) {
    R.sw = sw;
    skip = xcalloc((size_t)sw->npts, 1);
    if (!quiet) R.rows = xcalloc((size_t)sw->npts, sizeof *R.rows);
    ready = sweep_setup(&R, csvf, jsonf, resume, skip, &e);
    if (ready != PS_OK) {
      fprintf(stderr, "provesim sweep: %s\n", e.msg);
      if (R.ck && !R.ck_is_resume) { /* nothing ran: the checkpoint it began goes too */
        fclose(R.ck);
        R.ck = NULL;
        unlink(R.ckpath);
      }
    }
  } else if (ready != PS_OK && rank0 && e.msg[0]) {
    fprintf(stderr, "provesim sweep: %s\n", e.msg);
  }
  sweep_cfg cfg = {.sw = sw, .csv = csvf != NULL, .json = jsonf != NULL};
  farm_opts fo = {.jobs = jobs, .skip = skip, .ready = ready, .ready_msg = e.msg};
  if (rank0 && ready == PS_OK && (R.tty = isatty(2))) cli_progress_start(&R.bar, "sweep", (size_t)sw->npts);
  int fr = farm_run(sw ? (size_t)sw->npts : 0, &fo, sweep_item, &cfg, sweep_emit, &R);
  if (!rank0)
    rc = PS_EXIT_OK;
  else if (ready != PS_OK)
    rc = ps_exit_failed(ready);
  else
    rc = sweep_finish(&R, quiet);
  (void)fr;
  rc = farm_end(rc);
done:
  sweep_run_free(&R);
  free(skip);
  whatif_sweep_free(sw);
  for (int k = 0; k < nv; k++) whatif_vary_free(&vs[k]);
  free(vs);
  free(sets);
  return rc;
}
