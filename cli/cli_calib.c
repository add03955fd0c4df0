/* `provesim calibrate`: spans -> model. It reads the spans format the simulator and the
 * prover share; `provesim validate` lives in cli_validate.c. */
#define _GNU_SOURCE
#include "cli_calib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "calib.h"
#include "spans.h"
#include "scn.h"

static const char calibrate_help[] =
    "usage: provesim calibrate SPANS... --model TEMPLATE.yaml -o MODEL.yaml [options]\n"
    "\n"
    "Fits each phase's duration distribution from recorded spans (provesim.spans/1, from\n"
    "`measure --spans` or `simulate --spans`) and writes a model: the template's phase graph,\n"
    "resources and scopes with the fitted times. For every phase the candidates normal,\n"
    "lognormal, gamma, exponential and uniform are fitted by maximum likelihood and the best\n"
    "AIC wins (const when the durations do not vary) among those whose mean lies within 3\n"
    "standard errors of the durations' mean: a uniform fitted to durations in two clusters\n"
    "of unequal size (its mean the middle of their range) is passed over, and a note says so.\n"
    "Calls of k = 1, 2, ... partitions give batch multipliers (batch.scale). A table of the\n"
    "fits (mean, cv, family, Kolmogorov-Smirnov distance) goes to standard output.\n"
    "\n"
    "Scaling laws: a cpu phase whose template says  threads: all  and  scaling: {serial: F}\n"
    "gets Amdahl's law fitted, time(k) = serial + parallel / k, by least squares over the\n"
    "thread counts its spans ran at (the spans' \"threads\"), and its time becomes the one-core\n"
    "time. That needs spans at two or more thread counts: record single-worker runs at, e.g.,\n"
    "the default policy and  --set system.threads.per_worker=4 ; one count is refused with the\n"
    "reason, and so is a phase without a law that ran at several counts.\n"
    "A phase with a law whose calls of k > 1 partitions also ran at two or more thread counts\n"
    "gets a law for them too (batch.serial): what batching gains then depends on the threads\n"
    "(record a batch run at each count, e.g.  --set system.batch=2  with and without\n"
    "--set system.threads.per_worker=6 ). Calls of k at one count keep one multiplier for\n"
    "every count, and a note says so.\n"
    "\n"
    "Host speed: when two or more of the files are runs of the same settings (each cpu phase's\n"
    "threads, the largest call, the workers, and the cores when the spans header gives them),\n"
    "the spread of their cpu time per partition, less what the spans within a run explain,\n"
    "is the host's run-to-run speed spread: host_speed: {sd: S}, and each simulated\n"
    "replication then runs its cpu phases at a speed drawn around 1 (validate's prediction\n"
    "intervals include it). Repeat a calibration run (minutes apart) to measure it; without\n"
    "repeats the model has no host_speed.\n"
    "\n"
    "A shared host: measure records in each spans header the share of the run's cores' busy\n"
    "time the hypervisor gave to other guests (host_steal). When a run lost more than 2%,\n"
    "calibrate warns: its cpu phases ran slower than they will on the host when it is quiet,\n"
    "and so will the model's. The largest share is in the table and the model's provenance.\n"
    "--max-steal S leaves such runs out instead (spans files and --overlap files whose header\n"
    "says more than S); the table names them. On the H200 a run that lost 4% this way ran its\n"
    "cpu phases up to 22% slower than the same settings on a quiet host (docs/validation.md,\n"
    "\"An eleventh session\").\n"
    "--steal-exponent K corrects for it instead: a cpu span of a run that lost the share s\n"
    "is taken as lasting (1 - s)^K of its length. On the H200, twelve runs of one setting\n"
    "whose steal went from 0.1% to 21% took cpu time in proportion to (1 - s)^-1.26 (r 0.96;\n"
    "docs/validation-sessions.md, \"Probe 8\"): --steal-exponent 1.26.\n"
    "\n"
    "The model records its provenance: the GPU, host and CPU from the spans headers, the commit\n"
    "this provesim was built from, the spans files, the template and the date (UTC; from\n"
    "SOURCE_DATE_EPOCH when set, for reproducible files).\n"
    "\n"
    "Memory does not grow with the spans files: they are read as streams (again when a phase\n"
    "has a scaling law, first to rank the calls when --skip-calls is given and a worker's calls\n"
    "are not in order of number, and twice more for the host speed, keeping a few numbers per\n"
    "file and phase). Each phase keeps the sums its fits need and a sample\n"
    "for the KS distance and an empirical fit: every duration up to 2^20 per phase (12 MiB),\n"
    "beyond that a reservoir of 2^20 with a fixed seed, so the same files give the same model;\n"
    "the table and the model's provenance (\"sample\") say when a phase passed the cap. Kernel\n"
    "records must come in order of start within each GPU, as measure writes them.\n"
    "\n"
    "options:\n"
    "  --model FILE      the template model (phase names must match the spans)\n"
    "  -o, --out FILE    the calibrated model to write\n"
    "  --dist FAMILY     auto (default), const, normal, lognormal, gamma, exponential, uniform,\n"
    "                    empirical (every sample kept)\n"
    "  --skip-calls N    leave out each worker's first N calls (warm-up effects; default 0)\n"
    "  --name NAME       the model's name (default: the template's, suffixed -calibrated)\n"
    "  --overlap FILE    spans of a run where GPU phases of different workers overlap (two\n"
    "                    or more workers, system.mutex=none): fits gpu_overlap.interference\n"
    "                    s, each of n phases at once running at 1/(1 + s(n-1)), against the\n"
    "                    solo times fitted from the other files; the model then defaults to\n"
    "                    gpu_sharing: shared; and cpu_contention c, a cpu phase beside m\n"
    "                    other workers' cpu phases running at 1/(1 + c m). Repeat it to fit\n"
    "                    both from several such runs together (e.g. 2 and 4 workers)\n"
    "  --contention HOW  within (default): c fitted within each overlap run, beside a host\n"
    "                    speed of its own for each run and phase, so a run made while the\n"
    "                    host ran slower moves that speed, not c; across: c by least squares\n"
    "                    over the runs against the solo times (reads a slower host as c);\n"
    "                    significant: within, but 0 unless it lies two standard errors\n"
    "                    or more from 0 (one noisy overlap run cannot set c)\n"
    "  --gpu-order       the phase that started first keeps more of the GPU: write the\n"
    "                    interference by order of start (gpu_overlap: {interference: s,\n"
    "                    first: s1}) in place of the pooled s. The table reports the order\n"
    "                    with or without it; when the overlap runs do not identify it, the\n"
    "                    table says why and the model keeps the pooled s\n"
    "  --gpu-pairs       each GPU phase's rate beside exactly one other, by the other's\n"
    "                    phase: write gpu_pairs: {P: {Q: rate}} for the pairs the overlap\n"
    "                    runs identify (a tenth of P's overlapped time and 0.05 s beside Q,\n"
    "                    three spans mostly there); other pairs and three or more at once\n"
    "                    keep gpu_overlap's law. The table prints each rate beside the\n"
    "                    pooled law's\n"
    "  --max-steal S     leave out the spans and --overlap files whose header host_steal is\n"
    "                    above S (a share from 0 to 1, e.g. 0.02), and name them; exit 2\n"
    "                    when none of the spans files, or of the --overlap files, is left\n"
    "  --steal-exponent K  take each cpu span of a run whose spans header says host_steal s\n"
    "                    as lasting (1 - s)^K of its length (the host made quiet; K from 0\n"
    "                    to 10; default 0: as measured)\n"
    "  --host-threads fit|template|load  a GPU phase's host_threads (the cores its launching\n"
    "                    and waiting thread takes): fit (default) sets them from the spans'\n"
    "                    cpu_s (measure records it), their CPU time over their length, when\n"
    "                    every kept span of the phase has it; template keeps the template's;\n"
    "                    load fits them as fit does, then, from two one-worker runs with the\n"
    "                    same threads on fewer and more cores, raises every GPU phase's to\n"
    "                    the load that slows the cpu phase beside it as much as those runs\n"
    "                    show (the driver's and tracer's threads count, which cpu_s misses)\n"
    "  --run-modes fit|none  a GPU phase that ran in two modes by run (a kernel fast in some\n"
    "                    processes and slow in others, for the whole run; the note in the\n"
    "                    table names it): fit (default) writes run_mode: {share: P, scale: R}\n"
    "                    on it, so that each simulated run takes the slow mode (R times as\n"
    "                    long) with chance P, the share of such runs among the calibration's,\n"
    "                    and its mean over runs stays the fit's (validate's intervals then\n"
    "                    include the mode); none leaves the phase one distribution\n"
    "  --mutex-overhead fit|holds|none  the mutex's own time (mutex_overhead): holds sets\n"
    "                    the holder's launch, from the acquire to its region's first phase,\n"
    "                    and from the last phase to the release, from the spans' holds\n"
    "                    (mutex_held spans with phases inside, medians); fit (default) sets\n"
    "                    those and a handover's wake, from a release to the waiting worker's\n"
    "                    acquire, taken as the acquire's (each wakes one sleeping thread; a\n"
    "                    one-worker run has no waiter to time); none leaves it out\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 success, 1 a failed run (I/O), 2 bad input (spans, template, options)\n"
    "\n"
    "example:\n"
    "  provesim measure configs/measure-groth16.yaml --set system.workers_per_gpu=1 --spans a.jsonl\n"
    "  provesim measure configs/measure-groth16.yaml --set system.workers_per_gpu=1 \\\n"
    "      --set system.threads.per_worker=4 --spans b.jsonl\n"
    "  provesim calibrate a.jsonl b.jsonl --model models/provesim-groth16.yaml -o models/h200.yaml\n";

int sim_cmd_calibrate(int argc, char **argv) {
  const char **files = xcalloc((size_t)argc, sizeof *files);
  const char **overlap = xcalloc((size_t)argc, sizeof *overlap);
  const char *tmpl = NULL, *out = NULL, *name = NULL;
  calib_overlap_report ovr = {0};
  int nfiles = 0, noverlap = 0, fam = CALIB_AUTO, skip = 0, rc = PS_EXIT_USAGE;
  unsigned ovflags = 0;
  double max_steal = -1; /* --max-steal: < 0 keeps every file */
  double steal_k = 0;    /* --steal-exponent */
  int tmpl_host = 0;     /* --host-threads template */
  int host_load = 0;     /* --host-threads load */
  int mutex_mode = 2;    /* --mutex-overhead: 0 none, 1 holds, 2 fit (holds and the handover) */
  int run_modes = 1;     /* --run-modes fit (1) or none (0) */
  ps_buf dropped = {0};  /* the files --max-steal left out, for the table */
  model *m = NULL;
  calib_phase_report *reps = NULL;
  ps_buf b = {0}, t = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(calibrate_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--model")) {
      if (!(v = cli_optval(argc, argv, &i, "--model"))) goto missing;
      tmpl = v;
    } else if (cli_is_opt(a, "--out") || !strcmp(a, "-o")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out"))) goto missing;
      out = v;
    } else if (cli_is_opt(a, "--dist")) {
      if (!(v = cli_optval(argc, argv, &i, "--dist"))) goto missing;
      if ((fam = calib_family_parse(v)) < 0) {
        rc = cli_usage_error("calibrate", "--dist %s: expected auto, const, normal, lognormal, gamma, exponential, "
                                          "uniform or empirical", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--skip-calls")) {
      if (!(v = cli_optval(argc, argv, &i, "--skip-calls"))) goto missing;
      char *end;
      long n = strtol(v, &end, 10);
      if (*end || n < 0 || n > 1000000) {
        rc = cli_usage_error("calibrate", "--skip-calls: expected an integer >= 0, got \"%s\"", v);
        goto done;
      }
      skip = (int)n;
    } else if (cli_is_opt(a, "--overlap")) {
      if (!(v = cli_optval(argc, argv, &i, "--overlap"))) goto missing;
      overlap[noverlap++] = v;
    } else if (!strcmp(a, "--gpu-order")) {
      ovflags |= CALIB_OV_ORDER;
    } else if (!strcmp(a, "--gpu-pairs")) {
      ovflags |= CALIB_OV_PAIRS;
    } else if (cli_is_opt(a, "--host-threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--host-threads"))) goto missing;
      if (strcmp(v, "fit") && strcmp(v, "template") && strcmp(v, "load")) {
        rc = cli_usage_error("calibrate", "--host-threads: expected fit, template or load, got \"%s\"", v);
        goto done;
      }
      tmpl_host = !strcmp(v, "template");
      host_load = !strcmp(v, "load");
    } else if (cli_is_opt(a, "--mutex-overhead")) {
      if (!(v = cli_optval(argc, argv, &i, "--mutex-overhead"))) goto missing;
      mutex_mode = !strcmp(v, "none") ? 0 : !strcmp(v, "holds") ? 1 : !strcmp(v, "fit") ? 2 : -1;
      if (mutex_mode < 0) {
        rc = cli_usage_error("calibrate", "--mutex-overhead: expected fit, holds or none, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--run-modes")) {
      if (!(v = cli_optval(argc, argv, &i, "--run-modes"))) goto missing;
      run_modes = !strcmp(v, "fit") ? 1 : !strcmp(v, "none") ? 0 : -1;
      if (run_modes < 0) {
        rc = cli_usage_error("calibrate", "--run-modes: expected fit or none, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--steal-exponent")) {
      if (!(v = cli_optval(argc, argv, &i, "--steal-exponent"))) goto missing;
      if (ps_parse_num(v, &steal_k) || !(steal_k >= 0 && steal_k <= 10)) {
        rc = cli_usage_error("calibrate", "--steal-exponent: expected a number from 0 to 10 (e.g. 1.26), got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--max-steal")) {
      if (!(v = cli_optval(argc, argv, &i, "--max-steal"))) goto missing;
      if (ps_parse_num(v, &max_steal) || !(max_steal >= 0 && max_steal <= 1)) {
        rc = cli_usage_error("calibrate", "--max-steal: expected a share from 0 to 1 (e.g. 0.02), got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--contention")) {
      if (!(v = cli_optval(argc, argv, &i, "--contention"))) goto missing;
      unsigned how = !strcmp(v, "across") ? CALIB_OV_ACROSS : !strcmp(v, "significant") ? CALIB_OV_SIGNIF : 0;
      if (how || !strcmp(v, "within")) /* the last one given counts */
        ovflags = (ovflags & ~(unsigned)(CALIB_OV_ACROSS | CALIB_OV_SIGNIF)) | how;
      else {
        rc = cli_usage_error("calibrate", "--contention %s: expected within, significant or across", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--name")) {
      if (!(v = cli_optval(argc, argv, &i, "--name"))) goto missing;
      name = v;
      if (!*name) {
        rc = cli_usage_error("calibrate", "%s", "--name: expected a non-empty model name");
        goto done;
      }
    } else if (a[0] == '-' && a[1]) {
      rc = cli_usage_error("calibrate", "unknown option %s", a);
      goto done;
    } else {
      files[nfiles++] = a;
    }
    continue;
  missing:
    rc = cli_usage_error("calibrate", "%s: expected a value", a);
    goto done;
  }
  if (!nfiles) {
    rc = cli_usage_error("calibrate", "%s", "expected at least one spans file");
    goto done;
  }
  if (!tmpl || !out) {
    rc = cli_usage_error("calibrate", "%s", "expected --model TEMPLATE.yaml and -o MODEL.yaml");
    goto done;
  }
  const char *capv = getenv("PROVESIM_CALIB_SAMPLE_CAP"); /* for the tests: a small sample cap */
  if (capv && *capv) {
    long long cap;
    if (ps_parse_ll(capv, 1, 1ll << 30, &cap)) {
      rc = cli_usage_error("calibrate", "PROVESIM_CALIB_SAMPLE_CAP: expected an integer from 1 to 2^30, got \"%s\"", capv);
      goto done;
    }
    calib_set_sample_cap((size_t)cap);
  }
  /* The model's provenance date: SOURCE_DATE_EPOCH (seconds since 1970) when set. */
  const char *sde = getenv("SOURCE_DATE_EPOCH");
  time_t when = time(NULL);
  long long epoch;
  if (sde && *sde) {
    if (ps_parse_ll(sde, 0, 253402300799ll, &epoch)) { /* up to 9999-12-31 */
      rc = cli_usage_error("calibrate", "SOURCE_DATE_EPOCH: expected seconds since 1970 (an integer up to the year 9999), got \"%s\"", sde);
      goto done;
    }
    when = (time_t)epoch;
  }
  ps_err e = {0};
  if (cli_check_outputs("calibrate", &out, 1)) {
    rc = PS_EXIT_USAGE;
    goto done;
  }
  if (max_steal >= 0) { /* leave out the runs of a shared host, before anything reads them */
    const char **lists[] = {files, overlap};
    int *counts[] = {&nfiles, &noverlap}, had[] = {nfiles, noverlap};
    for (int l = 0; l < 2; l++) {
      int kept = 0;
      size_t from = dropped.len; /* where this list's files start in `dropped` */
      for (int k = 0; k < *counts[l]; k++) {
        double st;
        if (calib_header_steal(lists[l][k], &st, &e) != PS_OK) {
          fprintf(stderr, "provesim calibrate: %s\n", e.msg);
          rc = PS_EXIT_USAGE;
          goto done;
        }
        if (st > max_steal) ps_buf_printf(&dropped, "%s%s (%.2f%%)", dropped.len ? ", " : "", lists[l][k], 100 * st);
        else lists[l][kept++] = lists[l][k];
      }
      *counts[l] = kept;
      if (had[l] && !kept) {
        fprintf(stderr, "provesim calibrate: --max-steal %g: every %s lost more than that share of its cores' busy "
                "time to other guests (%s); record them again on a quiet host, or raise --max-steal\n", max_steal,
                l ? "--overlap file" : "spans file", dropped.p + from + (from ? 2 : 0));
        rc = PS_EXIT_USAGE;
        goto done;
      }
    }
  }
  const calib_read rd = {.skip_calls = skip, .steal_exponent = steal_k, .template_host_threads = tmpl_host};
  int lr = scn_load_model(tmpl, &m, &e);
  if (lr == PS_OK) lr = calib_model(m, files, nfiles, (calib_family)fam, &rd, &reps, &e);
  if (lr == PS_OK && noverlap) lr = calib_overlap(m, overlap, noverlap, &rd, ovflags, &ovr, &e);
  calib_host_report hr = {0};
  if (lr == PS_OK) lr = calib_host(files, nfiles, &rd, &hr, &e);
  if (lr == PS_OK && hr.identified) m->host_speed_sd = hr.sd;
  calib_load_report lo = {.small = -1};
  if (lr == PS_OK && host_load) lr = calib_host_load(m, files, nfiles, &rd, &lo, &e);
  calib_mutex_report mr = {0};
  if (lr == PS_OK && mutex_mode) lr = calib_mutex(m, files, nfiles, &rd, &mr, &e);
  if (lr == PS_OK && mr.holds) {
    m->mutex_acquire_s = mr.acquire_s, m->mutex_release_s = mr.release_s;
    if (mutex_mode == 2) m->mutex_handover_s = mr.acquire_s; /* one woken thread, as the acquire's */
  }
  if (lr != PS_OK) {
    fprintf(stderr, "provesim calibrate: %s\n", e.msg);
    rc = ps_exit_failed(lr);
    goto done;
  }
  if (run_modes) calib_run_modes(m, &hr); /* last: the fits above simulate the model without them */
  char *nm = name ? xstrdup(name) : xasprintf("%s-calibrated", m->name);
  free(m->name);
  m->name = nm;
  ps_buf src = {0};
  ps_buf_printf(&src, "calibrated by provesim calibrate from");
  for (int i = 0; i < nfiles; i++) ps_buf_printf(&src, " %s", files[i]);
  ps_buf_printf(&src, " (template %s, %d warm-up calls skipped per worker)", tmpl, skip);
  free(m->source);
  m->source = src.p;
  {
    ps_buf v = {0};
    for (int i = 0; i < nfiles; i++) ps_buf_printf(&v, i ? " %s" : "%s", files[i]);
    for (int i = 0; i < noverlap; i++) ps_buf_printf(&v, i ? " %s" : " (overlap: %s", overlap[i]);
    if (noverlap) ps_buf_printf(&v, ")");
    calib_set_provenance(m, "spans", v.p);
    ps_buf_free(&v);
    calib_set_provenance(m, "template", tmpl);
    calib_set_provenance(m, "commit", PROVESIM_COMMIT);
    struct tm tm;
    char date[32];
    gmtime_r(&when, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    calib_set_provenance(m, "date", date);
    if (hr.steal_runs) {
      char *st = xasprintf("largest %.2f%% of a run's cores' busy time (%s); %d of %d runs above %.0f%%",
                           100 * hr.steal_max, files[hr.steal_max_file], hr.steal_over, hr.steal_runs,
                           100 * SPANS_STEAL_WARN);
      calib_set_provenance(m, "host_steal", st);
      free(st);
    }
    if (steal_k > 0) {
      char *st = xasprintf("cpu spans of each run times (1 - host_steal)^%g (--steal-exponent)", steal_k);
      calib_set_provenance(m, "steal_exponent", st);
      free(st);
    }
    if (dropped.len) {
      char *st = xasprintf("--max-steal %g left out %s", max_steal, dropped.p);
      calib_set_provenance(m, "left_out", st);
      free(st);
    }
  }
  calib_model_yaml(&b, m);
  if (ps_write_file_atomic(out, b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim calibrate: %s\n", e.msg);
    rc = PS_EXIT_FAIL;
    goto done;
  }
  ps_buf_printf(&t, "%-14s %8s %11s %7s  %-12s %7s  %-14s %-7s %s\n", "phase", "spans", "mean s", "cv", "fit", "KS",
                "serial (thr)", "busy", "batch scale");
  for (int p = 0; p < m->nphases; p++) {
    const calib_fit_result *f = &reps[p].fit;
    char law[32] = "-";
    if (m->phases[p].law == SCALE_AMDAHL)
      snprintf(law, sizeof law, "%.4f (%d)", reps[p].serial, reps[p].nthreads);
    ps_buf_printf(&t, "%-14s %8zu %11.6f %7.4f  %-12s %7.4f  %-14s ", reps[p].phase, f->n, f->mean, f->cv,
                  calib_family_name(f->family), f->ks, law);
    if (reps[p].busy >= 0) ps_buf_printf(&t, "%-7.4f ", reps[p].busy);
    else ps_buf_printf(&t, "%-7s ", "-");
    if (m->phases[p].nscale == 0) ps_buf_printf(&t, "-");
    for (int k = 0; k < m->phases[p].nscale; k++) ps_buf_printf(&t, k ? ", %.3f" : "%.3f", m->phases[p].scale[k]);
    if (m->phases[p].bserial) {
      ps_buf_printf(&t, " (serial");
      for (int k = 0; k < m->phases[p].nscale; k++) ps_buf_printf(&t, k ? ", %.4f" : " %.4f", m->phases[p].bserial[k]);
      ps_buf_printf(&t, ")");
    }
    ps_buf_printf(&t, "\n");
  }
  /* One line for the phases with a law whose calls of several partitions ran at one
   * thread count (the first such phase's k and count). */
  ps_buf one = {0};
  int k1 = 0, t1 = 0;
  for (int p = 0; p < m->nphases; p++)
    if (reps[p].one_thr_k) {
      if (!k1) k1 = reps[p].one_thr_k, t1 = reps[p].one_thr_t;
      ps_buf_printf(&one, one.len ? ", %s" : "%s", reps[p].phase);
    }
  if (k1)
    ps_buf_printf(&t, "note: calls of %d partitions ran at one thread count (%d) in %s: the batch multipliers there are "
                  "taken as the same at every thread count; a run of %d partitions at another count gives each phase a "
                  "law of its own (batch.serial)\n", k1, t1, one.p, k1);
  free(one.p);
  for (int p = 0; p < m->nphases; p++)
    if (reps[p].fit.nsample < reps[p].fit.n && reps[p].fit.family != CALIB_CONST)
      ps_buf_printf(&t, "note: phase %s has %zu durations, more than the sample cap: %s from a reservoir of %zu "
                    "of them (fixed seed)\n", reps[p].phase, reps[p].fit.n,
                    fam == CALIB_EMPIRICAL ? "its empirical samples are" : "its fit is from all of them, its KS distance",
                    reps[p].fit.nsample);
  for (int p = 0; p < m->nphases; p++) {
    const calib_fit_result *f = &reps[p].fit;
    if (f->mean_off != CALIB_AUTO)
      ps_buf_printf(&t, "note: phase %s: %s, best by AIC, left out: its mean %.6f s is %.1f standard errors from "
                    "the durations' %.6f s\n", reps[p].phase, calib_family_name(f->mean_off), f->mean_off_mean,
                    f->mean_off_se, f->mean);
  }
  if (noverlap) {
    ps_buf ov = {0};
    for (int i = 0; i < noverlap; i++) ps_buf_printf(&ov, i ? ", %s" : "%s", overlap[i]);
    ps_buf_printf(&t, "GPU overlap (%s%s): phases alone %.3f s, overlapped %.3f s (up to %d at once), solo work %.3f s: "
                  "interference %.4f\n", ov.p, !ovr.forced ? "" : ovr.forced == noverlap ? "; forced by measure --rendezvous"
                  : "; some forced by measure --rendezvous", ovr.alone_s, ovr.overlapped_s, ovr.max_at_once, ovr.work_s,
                  ovr.interference);
    if (ovr.first_identified)
      ps_buf_printf(&t, "GPU overlap by order of start (two at once): the phase that started first %.4f, the other "
                    "%.4f%s\n", ovr.interference_first, ovr.interference_later,
                    ovflags & CALIB_OV_ORDER ? " (the model's, --gpu-order)" : " (not in the model without --gpu-order)");
    else
      ps_buf_printf(&t, "GPU overlap by order of start: not identified (%s); one interference for both\n",
                    ovr.first_why);
    if (ovflags & CALIB_OV_PAIRS) { /* only when asked: the other options' tables stay as they were */
      ps_buf_printf(&t, "GPU overlap by pairs (beside exactly one other, rate of solo speed; the pooled law's in "
                    "brackets):");
      for (int k = 0; k < ovr.npairs; k++)
        ps_buf_printf(&t, "%s %s beside %s %.4f [%.4f] (%.3f s)", k ? "," : "", m->phases[ovr.pairs[k].phase].name,
                      m->phases[ovr.pairs[k].beside].name, ovr.pairs[k].rate, ovr.pairs[k].pooled,
                      ovr.pairs[k].time_s);
      ps_buf_printf(&t, "%s%s%s\n", ovr.npairs ? "" : " none identified", ovr.pairs_why[0] ? "; not identified: " : "",
                    ovr.pairs_why);
    }
    if (ovr.cpu_side_by_side > 0) {
      ps_buf_printf(&t, "CPU contention (%s): cpu phases beside other workers' slow by 1/(1 + %.4f m)\n", ov.p,
                    ovr.cpu_contention);
      if (ovr.cpu_within)
        ps_buf_printf(&t, "CPU contention within each run: %.4f (host speed against the model %.3f, m's sd %.2f, "
                      "standard error %.4f); across runs: %.4f; the model takes %s\n", ovr.cpu_within_c, ovr.cpu_host,
                      ovr.cpu_m_sd, ovr.cpu_within_se, ovr.cpu_across,
                      ovflags & CALIB_OV_ACROSS ? "across (--contention across)"
                      : !(ovflags & CALIB_OV_SIGNIF) ? "within"
                      : ovr.cpu_within_signif ? "within (two standard errors or more from 0, --contention significant)"
                      : "0 (within is less than two standard errors from 0, --contention significant)");
      else
        ps_buf_printf(&t, "CPU contention within each run: not identified (m's sd within the runs %.2f, under 0.1); "
                      "the model's is across runs\n", ovr.cpu_m_sd);
    } else
      ps_buf_printf(&t, "CPU contention (%s): the cpu phases never ran side by side; 0\n", ov.p);
    ps_buf_free(&ov);
  }
  if (hr.identified)
    ps_buf_printf(&t, "host speed (%d runs, %d settings run more than once): run-to-run sd %.4f (the runs' spread "
                  "%.4f, of it within-run sampling %.4f); 95%% interval %.4f to %.4f from %d degrees of freedom%s\n",
                  hr.nrepeated, hr.ngroups, hr.sd, hr.raw_sd, hr.within_sd, hr.sd_lo, hr.sd_hi, hr.df,
                  hr.sd_hi > 2 * hr.sd_lo ? " (repeat more calibration runs to narrow it)" : "");
  else
    ps_buf_printf(&t, "host speed: no settings run twice among the %d runs; not measured (repeat a calibration run "
                  "to measure it)\n", hr.nruns);
  for (int k = 0; k < hr.nmodes; k++) {
    const calib_gpu_mode *g = &hr.modes[k];
    ps_buf_printf(&t, "note: the GPU phase %s ran in two modes by run: %d of the %d runs of one worker and calls of one "
                  "partition at %.2f ms a partition, the other %d at %.2f ms (%.3f times; split at %.2f ms); ",
                  g->phase, g->nslow, g->nruns, 1e3 * g->slow, g->nruns - g->nslow, 1e3 * g->fast, g->slow / g->fast,
                  1e3 * g->cut);
    const int p = scn_phase_index(m, g->phase);
    const phase *ph = p >= 0 ? &m->phases[p] : NULL;
    if (ph && ph->mode_share > 0)
      ps_buf_printf(&t, "the model's run_mode: {share: %.4f, scale: %.4f}, each simulated run taking the slow mode "
                    "with that chance, its mean over runs the fit's\n", ph->mode_share, ph->mode_scale);
    else
      ps_buf_printf(&t, "the model's %s draws from every run%s, so its mean carries this share of the slow mode, and "
                    "runs that take it more or less often will be slower or faster than predicted\n", g->phase,
                    run_modes ? "" : " (--run-modes none)");
  }
  {
    /* Batch multipliers from the calls of one run: that run's host speed is in them. */
    ps_buf once = {0};
    int kb = 0;
    for (int p = 0; p < m->nphases; p++)
      if (reps[p].batch_runs == 1 && m->phases[p].resource == RES_CPU) {
        if (!kb) kb = reps[p].batch_runs_k;
        ps_buf_printf(&once, once.len ? ", %s" : "%s", reps[p].phase);
      }
    if (kb) {
      if (hr.identified)
        ps_buf_printf(&t, "note: the batch multipliers of %s come from one run's calls of %d partitions: that run's "
                      "host speed is in them (run-to-run sd %.4f above); repeat the run, alternated with the runs of "
                      "one partition, to average it\n", once.p, kb, hr.sd);
      else
        ps_buf_printf(&t, "note: the batch multipliers of %s come from one run's calls of %d partitions: that run's "
                      "host speed is in them, by as much as a run's moves (not measured here); repeat the run, "
                      "alternated with the runs of one partition, to average it\n", once.p, kb);
    }
    ps_buf_free(&once);
  }
  if (mr.holds)
    ps_buf_printf(&t, "mutex overhead (%zu holds with phases inside): acquire to the first phase %.1f us, the last "
                  "phase to the release %.1f us (medians)%s\n", mr.holds, 1e6 * mr.acquire_s, 1e6 * mr.release_s,
                  mutex_mode == 2 ? "; a handover's wake taken as the acquire's" : "");
  if (hr.steal_runs)
    ps_buf_printf(&t, "host steal (%d runs recorded it): largest %.2f%% of the run's cores' busy time (%s); %d "
                  "above %.0f%%\n", hr.steal_runs, 100 * hr.steal_max, files[hr.steal_max_file], hr.steal_over,
                  100 * SPANS_STEAL_WARN);
  if (steal_k > 0)
    ps_buf_printf(&t, "cpu spans made quiet: each run's cpu phase spans taken as (1 - host_steal)^%g of their length "
                  "(--steal-exponent)\n", steal_k);
  {
    /* GPU phases' host threads, where the spans carry cpu_s (measure at 16a6451 or later) */
    ps_buf ht = {0}, part = {0};
    for (int p = 0; p < m->nphases; p++) {
      const calib_phase_report *r = &reps[p];
      if (m->phases[p].resource != RES_GPU || r->host_spans == 0) continue;
      if (r->host_threads >= 0) ps_buf_printf(&ht, "%s%s %.3f", ht.len ? ", " : "", r->phase, r->host_threads);
      else if (r->host_missing)
        ps_buf_printf(&part, "%s%s (%ld of %ld spans without cpu_s)", part.len ? ", " : "", r->phase, r->host_missing,
                      r->host_missing + r->host_spans);
    }
    if (ht.len)
      ps_buf_printf(&t, "host threads of the GPU phases (their spans' cpu_s over their length): %s\n", ht.p);
    if (part.len)
      ps_buf_printf(&t, "host threads not fitted, the template's kept: %s\n", part.p);
    if (tmpl_host)
      ps_buf_printf(&t, "host threads: the template's (--host-threads template)\n");
    if (host_load && lo.fitted)
      ps_buf_printf(&t, "host load of the GPU phases: %.3f threads (%s at %d threads %.3f times as long on %d cores as on "
                    "%d, simulated %.3f; %s, %s)\n", lo.h, lo.phase, lo.threads, lo.measured, lo.cores_small,
                    lo.cores_large, lo.simulated, files[lo.small], files[lo.large]);
    else if (host_load)
      ps_buf_printf(&t, "host load not fitted: no two one-worker runs with the same threads on fewer and more cores "
                    "and a cpu phase beside a GPU phase; host threads as fitted\n");
    ps_buf_free(&ht), ps_buf_free(&part);
  }
  if (dropped.len)
    ps_buf_printf(&t, "left out by --max-steal %g (host steal above it): %s\n", max_steal, dropped.p);
  ps_buf_printf(&t, "wrote %s\n", out);
  if (ps_write_stdout(t.p, t.len, &e) != PS_OK) {
    fprintf(stderr, "provesim calibrate: %s\n", e.msg);
    ps_out_remove(out); /* the model and its table, or neither */
    rc = PS_EXIT_FAIL;
    goto done;
  }
  if (hr.steal_over)
    fprintf(stderr, "provesim calibrate: warning: %d of %d runs lost more than %.0f%% of their cores' busy time to "
            "other guests of the host (hypervisor steal; %.1f%% in %s): the host was shared while they ran, so the "
            "model's cpu phases are slower than this host's when it is quiet. Calibrate again on a quiet host "
            "(docs/validation-sessions.md, \"A ninth session\")\n", hr.steal_over, hr.steal_runs, 100 * SPANS_STEAL_WARN,
            100 * hr.steal_max, files[hr.steal_max_file]);
  rc = PS_EXIT_OK;
done:
  if (reps && m)
    for (int p = 0; p < m->nphases; p++) dist_free(&reps[p].fit.d);
  free(reps);
  scn_model_free(m);
  ps_buf_free(&b);
  ps_buf_free(&t);
  ps_buf_free(&dropped);
  free(files);
  free(overlap);
  return rc;
}
