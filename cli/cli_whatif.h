/* What-if subcommands of the simulator half: `sweep` (a grid of overrides, run in
 * parallel), `plan` (the cheapest configuration that meets a throughput and latency
 * target) and `estimate` (closed forms, machine repairman and MVA beside the simulation).
 * Each parses its argv and renders what sim/whatif.h, sim/plan.h and sim/estimate.h
 * compute; returns a PS_EXIT_* code. */
#ifndef PROVESIM_CLI_WHATIF_H
#define PROVESIM_CLI_WHATIF_H

int sim_cmd_sweep(int argc, char **argv);
int sim_cmd_plan(int argc, char **argv);
int sim_cmd_estimate(int argc, char **argv);

#endif
