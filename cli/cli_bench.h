/* provesim prover-bench. Takes the arguments after its name (argv[0] is the command name)
 * and returns the process exit code. */
#ifndef PROVESIM_CLI_BENCH_H
#define PROVESIM_CLI_BENCH_H

/* provesim prover-bench (cli_bench.c): kernel timings of a backend, against compute floors. */
int prover_cmd_bench(int argc, char **argv);

#endif
