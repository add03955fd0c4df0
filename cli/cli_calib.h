/* `provesim calibrate` (cli_calib.c) and `provesim validate` (cli_validate.c). Each takes the arguments after its name
 * (argv[0] is the command name) and returns the process exit code. */
#ifndef PROVESIM_CLI_CALIB_H
#define PROVESIM_CLI_CALIB_H

int sim_cmd_calibrate(int argc, char **argv);
int sim_cmd_validate(int argc, char **argv);

#endif
