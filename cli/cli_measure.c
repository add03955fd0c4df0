/* The `measure` subcommand (cli_measure.h): arguments, Ctrl-C, the report and the spans
 * file. Outputs are written atomically; on bad input nothing is written (exit 2); when a
 * run fails or is interrupted the spans recorded so far are still written (exit 1). */
#define _GNU_SOURCE
#include "cli_measure.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spans.h"
#include "scn.h"
#include "runner.h"

static const char measure_help[] =
    "usage: provesim measure SCENARIO [options]\n"
    "\n"
    "Runs the scenario for real: worker threads pinned to GPUs (worker i on GPU i mod gpus), one\n"
    "pthread mutex per GPU held exactly over the scope region (FIFO handoff), the model's phase\n"
    "graph per call with concurrent phases on helper threads, batching, closed backlog or\n"
    "arrivals, warm-up and cool-down partitions left out exactly as `simulate` does. Reports, in\n"
    "the same format as `simulate`: true GPU utilization (union of kernel intervals from CUPTI\n"
    "over the window), the nvidia-smi figure beside it (gpu_util_nvml), throughput, latencies,\n"
    "mutex wait and hold, and time statistics per phase.\n"
    "\n"
    "options:\n"
    "  --backend cuda|cpu     where GPU work runs (default cuda). cpu: GPU phases run on the\n"
    "                         CPU and GPU utilization comes from the GPU phase spans\n"
    "  --executor groth16|synthetic\n"
    "                         groth16: the real prover; the model must name the phases synth,\n"
    "                         prep, ntt_h, msm, b_g2, epilogue (models/provesim-groth16.yaml) and\n"
    "                         the scenario its size (prover: {circuit, constraints}). The workers\n"
    "                         of a GPU share one proving key there; the report adds the GPU\n"
    "                         memory (key + each worker's buffers), the first call against the\n"
    "                         steady-state calls, GPU time per call and the peaks of memory.\n"
    "                         synthetic: any model; each phase burns its drawn duration (cpu:\n"
    "                         busy-spin, gpu: a spin kernel, or a sleep on --backend cpu).\n"
    "                         Default: groth16 when the scenario has a prover: section\n"
    "  --set KEY=VALUE        override a scenario or model key (repeatable), as in simulate:\n"
    "                         --set system.workers_per_gpu=2  --set phases.msm.time.mean=0.2\n"
    "  --spans FILE           write every span (phases, mutex wait/held, kernels, memcpys;\n"
    "                         provesim.spans/1) to FILE; also written when the run fails\n"
    "  --json                 print the provesim.report/1 JSON document instead of the table\n"
    "  --csv                  print one CSV header line and one row\n"
    "  -o, --out FILE         write the report to FILE instead of standard output\n"
    "  --cache DIR            Groth16 key cache (default $XDG_CACHE_HOME/provesim or\n"
    "                         ~/.cache/provesim; 'none' for no cache)\n"
    "  --no-cupti             time kernels with CUDA events instead of CUPTI (synthetic only)\n"
    "  --nvml-period S        NVML sampling period in seconds (default 0.1)\n"
    "  --rendezvous           the overlap run for `calibrate --overlap`: before each call's GPU\n"
    "                         phases the workers of a GPU wait for each other, so their GPU\n"
    "                         phases start together. Needs system.mutex none and two or more\n"
    "                         workers per GPU. Its figures are of that forced schedule, so\n"
    "                         calibrate takes it only as --overlap and validate refuses it\n"
    "  -h, --help             this text\n"
    "\n"
    "Ctrl-C stops the run cleanly: running phases end, mutexes are released, the spans so far\n"
    "are written, no report.\n"
    "\n"
    "A progress bar with an ETA is drawn on standard error when it is a terminal.\n"
    "exit codes: 0 success; 1 run failure (no GPU for --backend cuda, not enough GPU memory, a\n"
    "failing phase, Ctrl-C, I/O); 2 bad input (arguments, scenario, a model the executor cannot\n"
    "run), with nothing written\n"
    "\n"
    "examples:\n"
    "  provesim measure configs/measure-seed.yaml --backend cpu\n"
    "  provesim measure configs/measure-groth16.yaml --set system.mutex=kernels --spans s.jsonl\n"
    "  provesim measure configs/measure-groth16.yaml --set system.mutex=none --set system.workers_per_gpu=2 \\\n"
    "      --rendezvous --spans overlap.jsonl\n";

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

static char *default_cache(void) {
  const char *x = getenv("XDG_CACHE_HOME");
  if (x && *x) return xasprintf("%s/provesim", x);
  const char *h = getenv("HOME");
  if (h && *h) return xasprintf("%s/.cache/provesim", h);
  return NULL;
}

int prover_cmd_measure(int argc, char **argv) {
  const char *path = NULL, *out = NULL, *spans = NULL, *backend = "cuda", *executor = NULL, *cache = NULL;
  const char **sets = xcalloc((size_t)argc, sizeof *sets);
  int nsets = 0, json = 0, csv = 0, no_cupti = 0, rendezvous = 0, rc = PS_EXIT_USAGE;
  double period = 0.1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(measure_help, stdout);
      free(sets);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("measure", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--backend")) {
      if (!(v = cli_optval(argc, argv, &i, "--backend"))) goto missing;
      if (strcmp(v, "cuda") && strcmp(v, "cpu")) {
        rc = cli_usage_error("measure", "--backend: expected cuda or cpu, got \"%s\"", v);
        goto done;
      }
      backend = v;
    } else if (cli_is_opt(a, "--executor")) {
      if (!(v = cli_optval(argc, argv, &i, "--executor"))) goto missing;
      if (strcmp(v, "groth16") && strcmp(v, "synthetic")) {
        rc = cli_usage_error("measure", "--executor: expected groth16 or synthetic, got \"%s\"", v);
        goto done;
      }
      executor = v;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (!strcmp(a, "--csv")) {
      csv = 1;
    } else if (!strcmp(a, "--no-cupti")) {
      no_cupti = 1;
    } else if (!strcmp(a, "--rendezvous")) {
      rendezvous = 1;
    } else if (cli_is_opt(a, "--out") || !strcmp(a, "-o")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'o' ? "-o" : "--out"))) goto missing;
      out = v;
    } else if (cli_is_opt(a, "--spans")) {
      if (!(v = cli_optval(argc, argv, &i, "--spans"))) goto missing;
      spans = v;
    } else if (cli_is_opt(a, "--cache")) {
      if (!(v = cli_optval(argc, argv, &i, "--cache"))) goto missing;
      cache = v;
    } else if (cli_is_opt(a, "--nvml-period")) {
      if (!(v = cli_optval(argc, argv, &i, "--nvml-period"))) goto missing;
      char *end;
      period = strtod(v, &end);
      if (*end || !(period >= 0.01 && period <= 10)) {
        rc = cli_usage_error("measure", "--nvml-period: expected seconds in [0.01, 10], got \"%s\"", v);
        goto done;
      }
    } else if (cli_operand("measure", a, &path)) {
      rc = PS_EXIT_USAGE;
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("measure", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("measure", "%s", "expected a scenario file");
    goto done;
  }
  if (json && csv) {
    rc = cli_usage_error("measure", "%s", "--json and --csv: choose one");
    goto done;
  }

  scenario *s = NULL;
  ps_err e = {0};
  /* Output paths are checked before a run that may take minutes of GPU time. */
  const char *outs[] = {out, spans};
  if (cli_check_outputs("measure", outs, 2)) {
    rc = PS_EXIT_USAGE;
    goto done;
  }
  int lr = scn_load(path, sets, nsets, &s, &e);
  if (lr != PS_OK) {
    fprintf(stderr, "provesim measure: %s\n", e.msg);
    rc = ps_exit_failed(lr);
    goto done;
  }
  if (!executor) executor = s->prover_constraints > 0 ? "groth16" : "synthetic";
  char *cache_dir = NULL;
  if (!cache)
    cache_dir = default_cache();
  else if (strcmp(cache, "none"))
    cache_dir = xstrdup(cache);

  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);
  interrupted = 0;
  /* The spans go to their file as the run goes (a temporary name until the end), so a
   * long run's memory does not grow with them. */
  ps_outfile sf = {0};
  if (spans && ps_out_open(&sf, spans, &e) != PS_OK) {
    fprintf(stderr, "provesim measure: %s\n", e.msg);
    sigaction(SIGINT, &old, NULL);
    free(cache_dir);
    scn_free(s);
    rc = PS_EXIT_FAIL;
    goto done;
  }
  runner_opts o = {.backend = backend, .executor = executor, .interrupt = &interrupted, .keep_spans = spans != NULL,
                   .spans_file = sf.f, .cache_dir = cache_dir, .nvml_period_s = period, .no_cupti = no_cupti,
                   .rendezvous = rendezvous};
  /* A progress bar on a terminal: a Groth16 run can take minutes before the report. */
  cli_progress bar;
  if (isatty(2)) {
    cli_progress_start(&bar, "measure", (size_t)s->replications * (size_t)s->partitions);
    o.progress = cli_progress_tick;
    o.progress_ctx = &bar;
  }
  runner_result *res = NULL;
  double t0 = ps_now();
  int r = runner_run(s, &o, &res, &e);
  double wall = ps_now() - t0;
  if (isatty(2)) cli_progress_end(&bar);
  sigaction(SIGINT, &old, NULL);
  if (r != PS_OK) fprintf(stderr, "provesim measure: %s\n", e.msg);
  rc = ps_exit_code(r);
  if (spans && !res) {
    ps_out_abort(&sf); /* nothing ran */
  } else if (spans) {
    ps_err we = {0};
    if (ps_out_commit(&sf, &we) != PS_OK) {
      if (r == PS_OK)
        fprintf(stderr, "provesim measure: %s\n", we.msg);
      else /* the run's message said why */
        fprintf(stderr, "provesim measure: %s was not written\n", spans);
      rc = PS_EXIT_FAIL;
    } else if (r != PS_OK) {
      fprintf(stderr, "provesim measure: the spans recorded so far are in %s\n", spans);
    }
  }
  if (res && res->host_steal > SPANS_STEAL_WARN && (json || csv)) /* the table says it itself */
    fprintf(stderr, "provesim measure: the hypervisor took %.1f%% of the run's cores' busy time for other guests "
            "(steal): the host was shared, and this run ran slower than it would on a quiet one\n",
            100 * res->host_steal);
  if (r == PS_OK && rc == PS_EXIT_OK) {
    ps_buf b = {0};
    if (json) {
      cJSON *doc = runner_report_json(s, &o, res);
      char *txt = cJSON_Print(doc);
      ps_buf_printf(&b, "%s\n", txt);
      free(txt);
      cJSON_Delete(doc);
    } else if (csv) {
      char *ov = cli_join_sets(sets, nsets);
      runner_report_csv(&b, s, res, ov);
      free(ov);
    } else {
      runner_report_table(&b, s, &o, res, wall);
    }
    if (out) {
      if (ps_write_file_atomic(out, b.p, b.len, &e) != PS_OK) {
        fprintf(stderr, "provesim measure: %s\n", e.msg);
        rc = PS_EXIT_FAIL;
      }
    } else if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
      fprintf(stderr, "provesim measure: %s\n", e.msg);
      rc = PS_EXIT_FAIL;
    }
    /* The spans of a run are kept when only its report is lost: they are the measurement. */
    if (rc != PS_EXIT_OK && spans) fprintf(stderr, "provesim measure: the run's spans are in %s\n", spans);
    ps_buf_free(&b);
  }
  runner_result_free(res);
  free(cache_dir);
  scn_free(s);
done:
  free(sets);
  return rc;
}
