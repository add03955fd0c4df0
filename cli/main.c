/* The provesim binary: one command table over every subcommand (docs/design.md,
 * "Command line"). `provesim help CMD` is `provesim CMD --help`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_measure.h"
#include "cli_prove.h"
#include "cli_bench.h"
#include "cli_calib.h"
#include "cli_infer.h"
#include "cli_report.h"
#include "cli_sensitivity.h"
#include "cli_sim.h"
#include "cli_whatif.h"
#include "util.h"

typedef struct command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
} command;

static const command commands[] = {
    {"simulate", sim_cmd_simulate, "run a scenario's model; report utilization, throughput, latency with 95% CIs"},
    {"sweep", sim_cmd_sweep, "simulate a grid of what-ifs (--vary KEY=VALUES) in parallel; table, CSV, JSON"},
    {"plan", sim_cmd_plan, "cheapest GPUs/workers/batch/mutex/cores meeting a proofs-per-hour target"},
    {"sensitivity", sim_cmd_sensitivity, "which phase or key moves throughput, utilization or p99 most (±delta, CIs)"},
    {"estimate", sim_cmd_estimate, "closed-form, machine-repairman and MVA answers beside the simulation"},
    {"calibrate", sim_cmd_calibrate, "fit each phase's duration distribution from spans; write a model"},
    {"infer", sim_cmd_infer, "diagnose a daemon from its own per-call logs: the CPU work hidden in its lock; what-ifs"},
    {"validate", sim_cmd_validate, "prediction beside a measurement (report or spans), metric by metric"},
    {"report", sim_cmd_report, "one self-contained HTML page of plots from simulate, sweep, plan, validate results"},
    {"trace", sim_cmd_trace, "turn a spans file into a Chrome/Perfetto timeline"},
    {"prove", prover_cmd_prove, "make a Groth16 proof of a circuit instance; write proof/vk/public JSON"},
    {"verify", prover_cmd_verify, "check a Groth16 proof directory written by prove (exit 0 valid, 1 invalid)"},
    {"measure", prover_cmd_measure, "run a scenario on the real prover (or synthetic phases); measured GPU utilization"},
    {"record", prover_cmd_record, "true GPU busy time of any unmodified CUDA program (CUPTI injection); spans"},
    {"prover-bench", prover_cmd_bench, "field, NTT and MSM timings of a prover backend, as a table"},
};

static void usage(FILE *f) {
  fprintf(f,
          "provesim %s: predicts (and measures) how busy the GPUs of a zero-knowledge proving\n"
          "pipeline are, and why.\n\n"
          "usage: provesim COMMAND [ARGS...]     (provesim help COMMAND for its options)\n\n"
          "commands:\n",
          PROVESIM_VERSION);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nexample:\n  provesim simulate configs/seed-coarse-mutex.yaml --set system.mutex=kernels\n"
             "\nexit codes: 0 success, 1 a failed run (I/O, no GPU, a failing phase), 2 bad input\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return PS_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "help") && argc >= 3) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
      if (!strcmp(argv[2], commands[i].name)) {
        char *av[] = {argv[2], "--help", NULL};
        return commands[i].fn(2, av);
      }
    fprintf(stderr, "provesim help: unknown command '%s' (provesim --help lists them)\n", argv[2]);
    return PS_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return PS_EXIT_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("provesim %s\n", PROVESIM_VERSION);
    return PS_EXIT_OK;
  }
  /* `--` ends the options, as getopt has it. Every operand of every command but `record`
   * is a path, so after `--` an operand that starts with '-' is passed as "./-name", the
   * same file, and each command's own parser never takes it for an option. `record` gets
   * `--` itself: what follows is the program to run, with its own options. */
  char **av = argv, **owned = NULL;
  int ac = argc, nowned = 0;
  for (int i = 2; i < argc && strcmp(argv[1], "record"); i++)
    if (!strcmp(argv[i], "--")) {
      av = xcalloc((size_t)argc + 1, sizeof *av);
      owned = xcalloc((size_t)argc, sizeof *owned);
      ac = 0;
      for (int j = 0; j < argc; j++) {
        if (j == i) continue;
        av[ac++] = j > i && argv[j][0] == '-' ? (owned[nowned++] = xasprintf("./%s", argv[j])) : argv[j];
      }
      break;
    }
  int rc = -1;
  for (size_t i = 0; i < sizeof commands / sizeof commands[0] && rc < 0; i++)
    if (!strcmp(av[1], commands[i].name)) rc = commands[i].fn(ac - 1, av + 1);
  for (int j = 0; j < nowned; j++) free(owned[j]);
  free(owned);
  if (av != argv) free(av);
  if (rc >= 0) return rc;
  fprintf(stderr, "provesim: unknown command '%s' (provesim --help lists them)\n", argv[1]);
  return PS_EXIT_USAGE;
}
