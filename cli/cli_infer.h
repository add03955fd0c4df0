/* `provesim infer` (cli_infer.c): a daemon's own coarse timing logs -> the hidden CPU work
 * inside its lock, a model, and what-ifs (sim/infer.h does the fitting). Takes the
 * arguments after its name (argv[0] is the command name) and returns the exit code. */
#ifndef PROVESIM_CLI_INFER_H
#define PROVESIM_CLI_INFER_H

int sim_cmd_infer(int argc, char **argv);

#endif
