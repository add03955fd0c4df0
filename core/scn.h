/* Loading scenarios and models from YAML, with every key checked. Errors read
 * `file:line:col: key.path: expected ..., got ...` and the functions return PS_EINPUT,
 * so the CLI can exit with code 2 before it writes anything. */
#ifndef PROVESIM_SCN_H
#define PROVESIM_SCN_H

#include <cjson/cJSON.h>

#include "util.h"
#include "model.h"

/* Bounds of the counts a scenario may ask for, so that every scenario the loader accepts
 * can run: the engine keeps about SCN_WORKER_BYTES per worker per simulation thread and a
 * few hundred bytes per replication. A value past a bound is an input error that says so. */
#define SCN_MAX_WORKERS 1000000 /* gpus x workers_per_gpu */
#define SCN_WORKER_BYTES 520
#define SCN_MAX_CORES 1000000
#define SCN_MAX_BATCH 100000
#define SCN_MAX_REPLICATIONS 1000000

/* Load the scenario at path, applying overrides in order. Each override is "key=value"
 * where key is a dotted path: scenario keys (`system.workers_per_gpu`, `run.seed`,
 * `workload.arrivals.proofs_per_hour`) or model keys, addressed through the model
 * whether inline or in its own file: `phases.NAME.KEY...` (a phase by name, e.g.
 * `phases.prep.time.mean`), `scopes.NAME`, `model.name`. The value is parsed as a YAML
 * flow value (`4`, `kernels`, `{from: ntt_h, to: msm}`, `[prep]`). Overrides are checked
 * like file content; an error names the override (`--set system.batch=0: ...`).
 * On success *out is a new scenario the caller frees with scn_free. */
int scn_load(const char *path, const char *const *overrides, int noverrides, scenario **out, ps_err *e);

/* Load a model file alone (used by calibrate/validate and tests). */
int scn_load_model(const char *path, model **out, ps_err *e);

void scn_free(scenario *s);  /* accepts NULL */
void scn_model_free(model *m); /* accepts NULL */

/* The scenario as resolved (defaults filled, model inlined), for the report's
 * "scenario" member. Caller owns the returned object (cJSON_Delete). */
cJSON *scn_to_json(const scenario *s);

/* Index of the phase named name, or -1. */
int scn_phase_index(const model *m, const char *name);

const char *scn_res_name(res_kind r);

#endif
