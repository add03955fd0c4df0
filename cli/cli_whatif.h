/* What-if subcommands of the simulator half: `sweep` (a grid of overrides, run in
 * parallel), `plan` (the cheapest configuration that meets a throughput and latency
 * target) and `estimate` (closed forms, machine repairman and MVA beside the simulation).
 * Also the saturation point that `simulate`'s "why" section prints. */
#ifndef PROVESIM_CLI_WHATIF_H
#define PROVESIM_CLI_WHATIF_H

#include <stddef.h>

#include "util.h"
#include "model.h"

int sim_cmd_sweep(int argc, char **argv);
int sim_cmd_plan(int argc, char **argv);
int sim_cmd_estimate(int argc, char **argv);

#define WHATIF_SAT_MAX 64

/* GPU utilization against workers per GPU, from short simulations (fewer partitions and
 * replications than the scenario asks for), and the saturation point: the smallest
 * worker count beyond which no larger count raises utilization by more than 1 point. */
typedef struct whatif_sat {
  int nworkers;                     /* counts simulated: 1..nworkers */
  double util[WHATIF_SAT_MAX + 1];  /* util[w], mean over GPUs and replications */
  double tput[WHATIF_SAT_MAX + 1];  /* partitions per second */
  int saturation;                   /* workers per GPU at the saturation point */
} whatif_sat;

/* Simulates s (borrowed) with workers_per_gpu = 1..max_workers (capped at WHATIF_SAT_MAX;
 * 0 picks max(8, 2 x the scenario's)). Returns PS_OK, or PS_EINPUT with e filled. */
int whatif_saturation(const scenario *s, int max_workers, whatif_sat *out, ps_err *e);

/* One line for simulate's "why" section, e.g. "saturation: GPU utilization stops rising
 * beyond 3 workers per GPU (78.1%; 8 workers: 78.4%); this scenario runs 2". Written into
 * buf (n bytes) and returned; on failure the line says why. */
const char *whatif_saturation_line(const scenario *s, char *buf, size_t n);

#endif
