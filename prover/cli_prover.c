/* The prover's subcommands. prover-bench lives in bench.c; this file holds the dispatch
 * points common/main.c calls. */
#include "cli_prover.h"
