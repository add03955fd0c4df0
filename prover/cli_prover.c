/* Placeholder dispatch of the prover's subcommands until the backends land. */
#include <stdio.h>

#include "../common/util.h"
#include "cli_prover.h"

int prover_cmd_bench(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "provesim prover-bench: the prover backends are not built yet\n");
  return PS_EXIT_FAIL;
}
