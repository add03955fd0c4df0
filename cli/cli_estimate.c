/* `provesim estimate`: argv, help, and the table or JSON of the analytic answers that
 * sim/estimate.h computes beside the simulation. */
#define _GNU_SOURCE
#include "cli_whatif.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "scn.h"
#include "estimate.h"

/* ================================================================ estimate */

static const char estimate_help[] =
    "usage: provesim estimate SCENARIO [--set KEY=VALUE]... [--json]\n"
    "\n"
    "Puts the analytic answers beside the simulated one: the exact closed form of a\n"
    "deterministic pipeline behind a lock, the finite-source (machine-repairman) queue\n"
    "M/M/c//N, exact Mean Value Analysis with a load-dependent multi-core CPU station, and\n"
    "the asymptotic bounds. Says which assumptions of each model the scenario meets, and how\n"
    "far the simulation is from each figure. Models whose assumptions fail are still shown,\n"
    "marked approximate, when they can be computed from the phases' means.\n"
    "\n"
    "options:\n"
    "  --set KEY=VALUE   override a scenario or model key (repeatable)\n"
    "  --json            print a provesim.estimate/1 JSON document instead of the table\n"
    "  --threads N       threads for the simulation's replications (default: all cores)\n"
    "  -h, --help        this text\n"
    "\n"
    "exit codes: 0 success, 1 run failure, 2 bad input\n"
    "\n"
    "example:\n"
    "  provesim estimate configs/seed-coarse-mutex.yaml --set system.mutex=kernels\n";

static void yesno(ps_buf *b, cJSON *o, const char *key, int v, const char *text) {
  ps_buf_printf(b, "  [%s] %s\n", v ? "yes" : " no", text);
  cJSON_AddBoolToObject(o, key, v);
}

/* The table into b and the provesim.estimate/1 document (returned; cJSON_Delete). */
static cJSON *estimate_render(ps_buf *b, const scenario *s, const est_result *est) {
  const an_assume *a = &est->a;
  const est_decomp *d = &est->d;
  const report_summary *sum = &est->sim;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "schema", "provesim.estimate/1");
  cJSON_AddStringToObject(root, "scenario", s->name);
  ps_buf_printf(b, "scenario  %s (model %s)\n", s->name, s->model->name);
  ps_buf_printf(b, "system    %d GPU%s x %d worker%s, %d CPU cores, batch %d, mutex %s\n\n", s->gpus,
                s->gpus > 1 ? "s" : "", s->workers_per_gpu, s->workers_per_gpu > 1 ? "s" : "", s->cpu_cores,
                s->batch, s->mutex_name ? s->mutex_name : "none");
  ps_buf_printf(b, "assumptions\n");
  cJSON *ja = cJSON_AddObjectToObject(root, "assumptions");
  yesno(b, ja, "closed", a->closed, "closed backlog (no arrival process)");
  yesno(b, ja, "sequential", a->sequential, "phases run one after another (no concurrent phases, no barrier)");
  yesno(b, ja, "deterministic", a->deterministic, "every phase time is constant");
  yesno(b, ja, "gpu_exclusive", a->gpu_exclusive, "GPU phases of one GPU run one at a time");
  yesno(b, ja, "cores_enough", a->cores_enough, "enough cores that no worker waits for one");
  yesno(b, ja, "no_pcie", a->no_pcie, "no PCIe phase");
  yesno(b, ja, "lock_covers_gpu", a->lock_covers_gpu, "every GPU phase lies inside the lock region");
  yesno(b, ja, "single_gpu_exponential", a->single_gpu_exponential,
        "one GPU phase, exponential, batch 1 (machine repairman)");
  ps_buf_printf(b, "\nper call (means): %.4f s inside the lock, %.4f s outside it, %.4f s on the GPU\n", d->t_locked,
                d->t_free, d->t_gpu);
  if (d->t_locked_max > d->t_locked)
    ps_buf_printf(b, "  (critical path of the lock region alone; uncontended the lock is held %.4f s, from its\n"
                     "  request to its release, while work beside the region finishes)\n",
                  d->t_locked_max);
  cJSON *jc = cJSON_AddObjectToObject(root, "per_call_s");
  report_json_num(jc, "locked", d->t_locked);
  report_json_num(jc, "free", d->t_free);
  report_json_num(jc, "gpu", d->t_gpu);
  if (est->has_repairman) {
    cJSON *jr = cJSON_AddObjectToObject(root, "repairman");
    cJSON_AddNumberToObject(jr, "customers", est->rp_customers);
    cJSON_AddNumberToObject(jr, "servers", est->rp_servers);
    cJSON_AddNumberToObject(jr, "think_s", est->rp_think_s);
    cJSON_AddNumberToObject(jr, "service_s", est->rp_service_s);
    cJSON_AddNumberToObject(jr, "p0", est->rp.p0);
    cJSON_AddNumberToObject(jr, "throughput", est->rp.throughput);
    cJSON_AddNumberToObject(jr, "utilization", est->rp.utilization);
    cJSON_AddNumberToObject(jr, "response_s", est->rp.response);
  }

  double sx = sum->tput, sxc = sum->tput_ci, su = sum->gpu_util_mean, suc = sum->gpu_util_mean_ci;
  ps_buf_printf(b, "\n  %-44s %-12s %18s %16s  %s\n", "model", "status", "throughput (p/s)", "GPU util",
                "simulation vs model");
  char xs[64], us[64];
  snprintf(xs, sizeof xs, isfinite(sxc) ? "%.6f ±%.6f" : "%.6f", sx, sxc);
  snprintf(us, sizeof us, isfinite(suc) ? "%.2f%% ±%.2f%%" : "%.2f%%", 100 * su, 100 * suc);
  char simlabel[64];
  snprintf(simlabel, sizeof simlabel, "simulation (%d replication%s)", sum->nreps, sum->nreps > 1 ? "s" : "");
  ps_buf_printf(b, "  %-44s %-12s %18s %16s\n", simlabel, "", xs, us);
  cJSON *js = cJSON_AddObjectToObject(root, "simulation");
  report_json_num(js, "throughput_pps", sx);
  report_json_num(js, "throughput_pps_ci95", sxc);
  report_json_num(js, "gpu_util", su);
  report_json_num(js, "gpu_util_ci95", suc);
  cJSON_AddNumberToObject(js, "replications", sum->nreps);
  cJSON *jrows = cJSON_AddArrayToObject(root, "analytic");
  for (int k = 0; k < est->nrows; k++) {
    const est_row *r = &est->rows[k];
    cJSON *jo = cJSON_CreateObject();
    cJSON_AddStringToObject(jo, "model", r->name);
    cJSON_AddStringToObject(jo, "label", r->label);
    cJSON_AddStringToObject(jo, "status", r->status);
    cJSON_AddStringToObject(jo, "why", r->why);
    char gap[96];
    if (!strcmp(r->status, "bounds")) {
      snprintf(xs, sizeof xs, "[%.4f, %.4f]", r->x_lo, r->x_hi);
      snprintf(us, sizeof us, "-");
      snprintf(gap, sizeof gap, "inside: %s", !r->inside ? "NO" : r->inside_strict ? "yes" : "yes, within the CI");
      report_json_num(jo, "throughput_lower_pps", r->x_lo);
      report_json_num(jo, "throughput_upper_pps", r->x_hi);
      cJSON_AddBoolToObject(jo, "simulation_inside", r->inside);
    } else {
      snprintf(xs, sizeof xs, "%.6f", r->x);
      snprintf(us, sizeof us, "%.2f%%", 100 * r->util);
      snprintf(gap, sizeof gap, "%+.2f%%%s", 100 * r->gap, r->within_ci ? " (within the CI)" : "");
      report_json_num(jo, "throughput_pps", r->x);
      report_json_num(jo, "gpu_util", r->util);
      report_json_num(jo, "gap", r->gap);
      cJSON_AddBoolToObject(jo, "within_ci", r->within_ci);
    }
    ps_buf_printf(b, "  %-44s %-12s %18s %16s  %s\n", r->label, r->status, xs, us, gap);
    cJSON_AddItemToArray(jrows, jo);
  }
  if (est->nrows == 0) ps_buf_printf(b, "  (no analytic model applies to this scenario)\n");
  ps_buf_printf(b, "\n");
  for (int k = 0; k < est->nrows; k++) ps_buf_printf(b, "  %s: %s\n", est->rows[k].label, est->rows[k].why);
  if (est->has_repairman)
    ps_buf_printf(b,
                  "\nmachine repairman: N=%d, c=%d, Z=%.6g s, S=%.6g s: p0 = %.6f, throughput %.6f/s, "
                  "utilization %.6f, response %.6f s, queue %.6f\n",
                  est->rp_customers, est->rp_servers, est->rp_think_s, est->rp_service_s, est->rp.p0,
                  est->rp.throughput, est->rp.utilization, est->rp.response, est->rp.queue_len);
  return root;
}

int sim_cmd_estimate(int argc, char **argv) {
  const char *path = NULL;
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, json = 0, threads = 0, rc = PS_EXIT_USAGE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(estimate_help, stdout);
      free(sets);
      return PS_EXIT_OK;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("estimate", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (!strcmp(a, "--json")) {
      json = 1;
    } else if (cli_is_opt(a, "--threads")) {
      if (!(v = cli_optval(argc, argv, &i, "--threads"))) goto missing;
      if (ps_parse_int(v, 1, 4096, &threads)) {
        rc = cli_usage_error("estimate", "--threads: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (cli_operand("estimate", a, &path)) {
      rc = PS_EXIT_USAGE;
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("estimate", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("estimate", "%s", "expected a scenario file");
    goto done;
  }

  scenario *s = NULL;
  ps_err e = {0};
  int lr = scn_load(path, sets, nsets, &s, &e);
  if (lr != PS_OK) {
    fprintf(stderr, "provesim estimate: %s\n", e.msg);
    rc = ps_exit_failed(lr);
    goto done;
  }
  est_result est;
  int sr = est_run(s, threads, &est, &e);
  if (sr != PS_OK) {
    fprintf(stderr, "provesim estimate: %s\n", e.msg);
    scn_free(s);
    rc = ps_exit_failed(sr);
    goto done;
  }
  ps_buf b = {0};
  cJSON *root = estimate_render(&b, s, &est);
  if (json) {
    char *txt = cJSON_Print(root);
    b.len = 0;
    ps_buf_printf(&b, "%s\n", txt);
    free(txt);
  }
  rc = PS_EXIT_OK;
  if (ps_write_stdout(b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim estimate: %s\n", e.msg);
    rc = PS_EXIT_FAIL;
  }
  cJSON_Delete(root);
  ps_buf_free(&b);
  est_free(&est);
  scn_free(s);
done:
  free(sets);
  return rc;
}

