/* The simulator's subcommands: `simulate` and `trace`. Output files are written to a
 * temporary name and renamed at the end, so a failing run leaves no partial output. */
#define _GNU_SOURCE
#include "cli_sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "estimate.h"
#include "spans.h"
#include "whatif.h"
#include "pipe.h"
#include "plan.h"
#include "precision.h"
#include "report.h"
#include "scn.h"
#include "trace.h"

static const char simulate_help[] =
    "usage: provesim simulate SCENARIO [options]\n"
    "\n"
    "Runs the scenario's pipeline model (workers, GPU mutex, CPU/GPU phases, batching, GPUs)\n"
    "as a discrete-event simulation and reports, with 95% confidence intervals over the\n"
    "replications: GPU utilization (the share of the window a GPU computes), throughput,\n"
    "partition latency, mutex wait, time inside the prove call, CPU utilization, and what\n"
    "limits throughput. The same scenario and seed always give the same report. With\n"
    "arrivals it also compares the offered load with the capacity, and warns when the\n"
    "arrivals offer more than the system can serve (the latency then grows with the run).\n"
    "\n"
    "options:\n"
    "  --set KEY=VALUE   override a scenario or model key (repeatable), checked like the file:\n"
    "                    --set system.workers_per_gpu=4   --set system.mutex=kernels\n"
    "                    --set 'system.mutex={from: ntt_h, to: msm}'  --set phases.prep.time.mean=1.2\n"
    "  --json            print the provesim.report/1 JSON document instead of the table\n"
    "  --csv             print one CSV header line and one row\n"
    "  -o, --out FILE    write the report to FILE instead of standard output\n"
    "  --spans FILE      write every span (provesim.spans/1 JSON Lines) to FILE\n"
    "  --trace FILE      write a Chrome/Perfetto timeline of replication 0 to FILE (its first\n"
    "                    million spans; `provesim trace` on the spans chooses other windows)\n"
    "  --threads N       replications run on N threads (default: all cores); results do not\n"
    "                    depend on N\n"
    "  -h, --help        this text\n"
    "\n"
    "A progress bar with an ETA is drawn on standard error when it is a terminal and the run\n"
    "is long (replications x partitions of 2 million or more).\n"
    "exit codes: 0 success, 1 run failure (I/O), 2 bad input (the message names file:line:col)\n"
    "\n"
    "example:\n"
    "  provesim simulate configs/seed-coarse-mutex.yaml --set system.mutex=kernels\n";

static const char trace_help[] =
    "usage: provesim trace SPANS -o TRACE.json [--rep N] [--from S] [--to S] [--max-spans N]\n"
    "\n"
    "Turns a provesim.spans/1 file (from `simulate --spans` or `measure --spans`) into a Chrome\n"
    "Trace Event file: open it in https://ui.perfetto.dev or chrome://tracing. One process per\n"
    "GPU; tracks per worker (cpu phases, gpu phases, mutex), a track with every GPU phase, one\n"
    "for kernels and one for memcpys; a 'GPU busy' counter track. Slices that overlap go to\n"
    "lanes of their track, so Perfetto shows every one.\n"
    "\n"
    "options:\n"
    "  -o, --out FILE    the trace file to write (required)\n"
    "  --rep N           which replication to show (default 0)\n"
    "  --from S, --to S  only spans that overlap [S, S) seconds of the run (default: all)\n"
    "  --max-spans N     keep at most N spans of the window, the first in the file (default\n"
    "                    1000000, about what Perfetto's UI loads; memory is 32 bytes per span\n"
    "                    kept, and the output is written as it is made); a note on standard\n"
    "                    error says how many were left out and where the trace ends\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 success, 1 a failed run (I/O), 2 bad input (a missing or malformed spans file)\n"
    "\n"
    "example:\n"
    "  provesim simulate configs/seed-coarse-mutex.yaml --spans run.jsonl\n"
    "  provesim trace run.jsonl -o run.trace.json\n"
    "  provesim trace run.jsonl -o late.trace.json --from 3600 --to 3660\n";

/* Spans streamed to a temporary file, renamed on success. */
typedef struct span_sink {
  ps_outfile out;
  ps_buf buf;
  trace *tr;
  int err;
} span_sink;

static void sink_flush(span_sink *k) {
  if (k->out.f && k->buf.len) {
    if (fwrite(k->buf.p, 1, k->buf.len, k->out.f) != k->buf.len) k->err = errno ? errno : EIO;
    k->buf.len = 0;
  }
}

static void on_span(void *ctx, const sim_span *sp) {
  span_sink *k = ctx;
  span_rec r = {.kind = SPAN_PHASE, .rep = sp->rep, .gpu = sp->gpu, .worker = sp->worker, .call = sp->call,
                .partitions = sp->partitions, .npartitions = sp->npartitions, .phase = sp->phase,
                .resource = sp->resource, .threads = sp->threads, .t0 = sp->t0, .t1 = sp->t1};
  if (k->out.f) {
    spans_format(&k->buf, &r);
    if (k->buf.len > (1 << 20)) sink_flush(k);
  }
  if (k->tr) trace_add(k->tr, &r);
}

/* When the trace left spans out, says how many and where it ends. */
static void trace_note(const char *cmd, const trace *t) {
  if (trace_dropped(t) > 0)
    fprintf(stderr,
            "provesim %s: note: the trace holds the first %zu spans (up to t = %.6g s); %lld more were left out "
            "(provesim trace SPANS --from/--to/--max-spans chooses the window)\n",
            cmd, trace_count(t), trace_kept_until(t), (long long)trace_dropped(t));
}

int sim_cmd_simulate(int argc, char **argv) {
  const char *path = NULL, *out = NULL, *spans = NULL, *tracef = NULL;
  const char **sets = xcalloc((size_t)argc, sizeof *sets);
  int nsets = 0, json = 0, csv = 0, threads = 0, rc = PS_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(simulate_help, stdout);
      free(sets);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("simulate", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--csv")) {
      csv = 1;
    } else if (cli_is_opt(a, "--out") || !strcmp(a, "-o")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out"))) goto missing;
      out = v;
    } else if (cli_is_opt(a, "--spans")) {
      if (!(v = cli_optval(argc, argv, &i, "--spans"))) goto missing;
      spans = v;
    } else if (cli_is_opt(a, "--trace")) {
      if (!(v = cli_optval(argc, argv, &i, "--trace"))) goto missing;
      tracef = v;
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      char *end;
      long t = strtol(v, &end, 10);
      if (*end || t < 1 || t > 4096) {
        rc = cli_usage_error("simulate", "--threads: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
      threads = (int)t;
    } else if (cli_operand("simulate", a, &path)) {
      rc = PS_EXIT_USAGE;
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("simulate", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("simulate", "%s", "expected a scenario file");
    goto done;
  }
  if (json && csv) {
    rc = cli_usage_error("simulate", "%s", "--json and --csv: choose one");
    goto done;
  }

  scenario *s = NULL;
  ps_err e = {0};
  /* Output paths are checked before any work: a typo costs nothing. */
  const char *outs[] = {out, spans, tracef};
  if (cli_check_outputs("simulate", outs, 3)) {
    rc = PS_EXIT_USAGE;
    goto done;
  }
  int lr = scn_load(path, sets, nsets, &s, &e);
  if (lr != PS_OK) {
    fprintf(stderr, "provesim simulate: %s\n", e.msg);
    rc = ps_exit_failed(lr);
    goto done;
  }
  char gm[512]; /* a scenario whose GPU memory does not fit still runs: the engine does not model memory */
  if (scn_gpu_mem_over(s, s->workers_per_gpu, s->batch, gm, sizeof gm))
    fprintf(stderr, "provesim simulate: warning: %s; the prover would not start, the simulation runs anyway\n", gm);
  if (scn_batch_unmeasured(s, gm, sizeof gm)) fprintf(stderr, "provesim simulate: warning: %s\n", gm);

  span_sink sink = {0};
  if (spans) {
    if (ps_out_open(&sink.out, spans, &e) != PS_OK) {
      fprintf(stderr, "provesim simulate: %s\n", e.msg);
      scn_free(s);
      rc = PS_EXIT_FAIL;
      goto done;
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    span_header h = {.source = "sim", .scenario = s->name, .host = host, .cpu_cores = s->cpu_cores};
    spans_format_header(&sink.buf, &h);
  }
  if (tracef) sink.tr = trace_new(0, TRACE_MAX_SPANS, -INFINITY, INFINITY);
  sim_opts o = {.threads = threads, .on_span = (spans || tracef) ? on_span : NULL, .span_ctx = &sink};
  /* A progress bar on a terminal when the run is long (about a second or more). */
  cli_progress bar;
  int show = isatty(2) && (double)s->replications * (double)s->partitions >= 2e6 && s->replications > 1;
  if (show) {
    cli_progress_start(&bar, "simulate", (size_t)s->replications);
    o.progress = cli_progress_tick;
    o.progress_ctx = &bar;
  }
  sim_result *res = NULL;
  int sr = prec_run(s, &o, &res, &e);
  if (show) cli_progress_end(&bar);
  if (sr != PS_OK) fprintf(stderr, "provesim simulate: %s\n", e.msg);
  if (sr == PS_OK && sink.out.f) {
    sink_flush(&sink);
    if (sink.err) {
      fprintf(stderr, "provesim simulate: %s: cannot write: %s\n", spans, strerror(sink.err));
      sr = PS_ERR;
    }
  }
  /* The trace is written before the spans are committed, so a failure leaves neither. */
  int trace_written = 0;
  if (sr == PS_OK && tracef) {
    if (trace_write(sink.tr, tracef, &e) != PS_OK) {
      fprintf(stderr, "provesim simulate: %s\n", e.msg);
      sr = PS_ERR;
    } else {
      trace_written = 1;
      trace_note("simulate", sink.tr);
    }
  }
  /* The report, then every output or none: the report file first, then the spans are
   * committed (a failure there removes the report file); the trace is already written,
   * and goes when anything after it fails. */
  report_summary sum = {0};
  ps_buf b = {0};
  if (sr == PS_OK) {
    report_summarize(res, &sum);
    est_stability(s, &sum.stab);
    if (json) {
      cJSON *doc = report_json(s, &sum);
      char *txt = cJSON_Print(doc);
      ps_buf_printf(&b, "%s\n", txt);
      free(txt);
      cJSON_Delete(doc);
    } else if (csv) {
      char *ov = cli_join_sets(sets, nsets);
      report_csv_extra x = {.overrides = ov};
      report_csv(&b, s, &sum, &x);
      free(ov);
    } else {
      report_table(&b, s, &sum, res->wall_s);
      char sat[512];
      ps_buf_printf(&b, "%s\n", whatif_saturation_line(s, sat, sizeof sat));
      if (*whatif_sharing_line(s, sat, sizeof sat)) ps_buf_printf(&b, "%s\n", sat);
    }
    if (out) {
      if (ps_write_file_atomic(out, b.p, b.len, &e) != PS_OK) sr = PS_ERR;
    } else if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
      sr = PS_ERR;
    }
    if (sr != PS_OK) fprintf(stderr, "provesim simulate: %s\n", e.msg);
    /* The table says it; JSON, CSV and a report file get the warning on standard error too. */
    if (sr == PS_OK && sum.stab.unstable && (json || csv || out)) {
      char line[512];
      fprintf(stderr, "provesim simulate: warning: %s\n", report_unstable_line(&sum.stab, line, sizeof line));
    }
  }
  if (spans) {
    if (sr == PS_OK) {
      if (ps_out_commit(&sink.out, &e) != PS_OK) {
        fprintf(stderr, "provesim simulate: %s\n", e.msg);
        sr = PS_ERR;
        if (out) ps_out_remove(out);
      }
    } else {
      ps_out_abort(&sink.out);
    }
  }
  if (sr != PS_OK && trace_written) ps_out_remove(tracef);
  ps_buf_free(&sink.buf);
  trace_free(sink.tr);
  rc = ps_exit_code(sr);
  ps_buf_free(&b);
  report_summary_free(&sum);
  sim_result_free(res);
  scn_free(s);
done:
  free(sets);
  return rc;
}

int sim_cmd_trace(int argc, char **argv) {
  const char *in = NULL, *out = NULL;
  int rep = 0;
  double from = -INFINITY, to = INFINITY;
  long max_spans = TRACE_MAX_SPANS;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(trace_help, stdout);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--out") || !strcmp(a, "-o")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out")))
        return cli_usage_error("trace", "%s: expected a value", a);
      out = v;
    } else if (cli_is_opt(a, "--rep")) {
      if (!(v = cli_optval(argc, argv, &i, "--rep"))) return cli_usage_error("trace", "%s: expected a value", a);
      char *end;
      long r = strtol(v, &end, 10);
      if (*end || r < 0) return cli_usage_error("trace", "--rep: expected an integer >= 0, got \"%s\"", v);
      rep = (int)r;
    } else if (cli_is_opt(a, "--from") || cli_is_opt(a, "--to")) {
      int is_from = cli_is_opt(a, "--from");
      if (!(v = cli_optval(argc, argv, &i, is_from ? "--from" : "--to")))
        return cli_usage_error("trace", "%s: expected a value", a);
      double x;
      if (ps_parse_num(v, &x) || !isfinite(x) || fabs(x) > SPANS_MAX_T)
        return cli_usage_error("trace", is_from ? "--from: expected seconds from -1e9 to 1e9, got \"%s\""
                                                : "--to: expected seconds from -1e9 to 1e9, got \"%s\"", v);
      *(is_from ? &from : &to) = x;
    } else if (cli_is_opt(a, "--max-spans")) {
      if (!(v = cli_optval(argc, argv, &i, "--max-spans"))) return cli_usage_error("trace", "%s: expected a value", a);
      char *end;
      errno = 0;
      max_spans = strtol(v, &end, 10);
      if (*end || !*v || errno || max_spans < 1 || max_spans > 100000000)
        return cli_usage_error("trace", "--max-spans: expected an integer from 1 to 100000000, got \"%s\"", v);
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("trace", "unknown option %s", a);
    } else if (!in) {
      in = a;
    } else {
      return cli_usage_error("trace", "unexpected argument %s", a);
    }
  }
  if (!in) return cli_usage_error("trace", "%s", "expected a spans file");
  if (!out) return cli_usage_error("trace", "%s", "expected -o TRACE.json");
  if (!(from < to)) return cli_usage_error("trace", "%s", "--from, --to: expected --from below --to");
  if (cli_check_outputs("trace", &out, 1)) return PS_EXIT_USAGE;
  ps_err e = {0};
  trace *t = trace_new(rep, (size_t)max_spans, from, to);
  int rc = trace_convert(in, out, t, &e);
  if (rc != PS_OK) fprintf(stderr, "provesim trace: %s\n", e.msg);
  else trace_note("trace", t);
  trace_free(t);
  return ps_exit_code(rc);
}
