/* `provesim sensitivity`: which input moves a metric most (sim/sensitivity.h), as a table
 * sorted by effect or a provesim.sensitivity/1 document. Returns a PS_EXIT_* code. */
#ifndef PROVESIM_CLI_SENSITIVITY_H
#define PROVESIM_CLI_SENSITIVITY_H

int sim_cmd_sensitivity(int argc, char **argv);

#endif
