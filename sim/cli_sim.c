/* in progress */
#include "cli_sim.h"
int sim_cmd_simulate(int argc, char **argv) { (void)argc; (void)argv; return 1; }
int sim_cmd_trace(int argc, char **argv) { (void)argc; (void)argv; return 1; }
