/* Subcommands of the simulator half. Each takes the arguments after its name
 * (argv[0] is the command name) and returns the process exit code. */
#ifndef PROVESIM_CLI_SIM_H
#define PROVESIM_CLI_SIM_H

int sim_cmd_simulate(int argc, char **argv);
int sim_cmd_trace(int argc, char **argv);

#endif
