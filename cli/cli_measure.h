/* `provesim measure`: runs a scenario on the real prover (or the synthetic executor) and
 * reports what was measured, in the simulator's report format. */
#ifndef PROVESIM_CLI_MEASURE_H
#define PROVESIM_CLI_MEASURE_H

int prover_cmd_measure(int argc, char **argv);
/* `provesim record -- COMMAND`: kernels of any CUDA program through CUPTI injection. */
int prover_cmd_record(int argc, char **argv);

#endif
