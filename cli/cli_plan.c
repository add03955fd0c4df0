/* `provesim plan`: argv, help, the progress bar, and the text and CSV of the search that
 * sim/plan.h runs for the cheapest configuration meeting a target (on every MPI rank
 * under mpirun; rank 0 prints). */
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
#include "estimate.h"
#include "farm.h"
#include "report.h"
#include "scn.h"
#include "plan.h"

/* ================================================================ plan */

static const char plan_help[] =
    "usage: provesim plan SCENARIO --target proofs_per_hour=X [--max p99_latency_s=Y]\n"
    "                     [--budget gpus=G,cpu_cores=C,host_mem_gib=M] [options]\n"
    "\n"
    "Searches GPUs, workers per GPU, batch, mutex scope (the model's named scopes) and CPU\n"
    "cores for the cheapest configuration that meets the target: fewest GPUs, then fewest\n"
    "cores, then least host memory (a phase's host_mem_gib is held by every partition in\n"
    "flight: gpus x workers x batch of them), then fewer workers and smaller batches. Prints\n"
    "it, what stops the next-cheaper configuration, and the frontier it explored (the\n"
    "configurations no other beats on cost and throughput and latency). Says plainly when\n"
    "nothing within the budget meets the target.\n"
    "\n"
    "GPU memory: when the model says what the prover holds on a GPU (gpu_memory:\n"
    "{shared_gib: K, per_worker_gib: W, per_partition_gib: P}) and the scenario how much a\n"
    "GPU has (system.gpu_mem_gib: M), a configuration whose GPUs need more than M,\n"
    "K + workers x (W + batch x P), is ruled out without a simulation (docs/whatif.md).\n"
    "\n"
    "A closed backlog meets the target when the simulated proofs per hour reach it (0.1%\n"
    "tolerance). With arrivals, each configuration is simulated with the arrival rate set to\n"
    "the target; it meets it when it keeps up (throughput within 2% of it) and, with --max,\n"
    "the p99 proof latency is within the limit. p99 latency is the partitions' p99 latency\n"
    "for a closed backlog. With arrivals, the column load is the target's offered load over\n"
    "the configuration's capacity bound; \"!\" marks a configuration it overloads (unstable:\n"
    "its queue and latency grow with the run length, whatever the simulation's figures).\n"
    "\n"
    "options:\n"
    "  --target proofs_per_hour=X   the throughput to reach (required)\n"
    "  --max p99_latency_s=Y        a limit on the p99 latency\n"
    "  --budget gpus=G,cpu_cores=C,host_mem_gib=M\n"
    "                               limits of the search (defaults: 16 GPUs, the scenario's\n"
    "                               cores per GPU times the GPUs, no memory limit)\n"
    "  --max-workers N              workers per GPU tried: 1..N (default 8)\n"
    "  --batches LIST               batch sizes tried (default 1,2,4)\n"
    "  --set KEY=VALUE              override a scenario or model key first (repeatable),\n"
    "                               e.g. --set run.replications=3 for a faster search\n"
    "  --jobs N                     simulations at once (default: all cores)\n"
    "  --csv FILE                   write every configuration evaluated\n"
    "  -h, --help                   this text\n"
    "\n"
    "Across machines: in a build with -DPROVESIM_MPI=ON, `mpirun -n N provesim plan ...`\n"
    "spreads each GPU count's candidates over N ranks (each rank --jobs simulations at once);\n"
    "rank 0 prints, and the plan and the CSV are the same bytes as one process's.\n"
    "\n"
    "exit codes: 0 a plan was printed (also when nothing meets the target), 1 run failure,\n"
    "2 bad input\n"
    "\n"
    "example:\n"
    "  provesim plan configs/capacity-8gpu.yaml --target proofs_per_hour=60 --max p99_latency_s=600\n";

static void cfg_desc(const plan_result *r, const plan_cfg *p, char *buf, size_t n) {
  snprintf(buf, n, "%d GPU%s x %d worker%s, batch %d, mutex %s, %d core%s", p->gpus, p->gpus > 1 ? "s" : "", p->workers,
           p->workers > 1 ? "s" : "", p->batch, r->scopes[p->scope].name, p->cores, p->cores > 1 ? "s" : "");
}

/* The stability of configuration p at the target's arrival rate (report_stability): the
 * scenario as plan_search simulates it, with the capacity bound of est_stability. */
static void cfg_stability(const scenario *s, const plan_limits *lim, const plan_result *r, const plan_cfg *p,
                          report_stability *st) {
  scenario t = *s; /* a shallow copy: est_stability only reads it */
  t.gpus = p->gpus;
  t.workers_per_gpu = p->workers;
  t.batch = p->batch;
  t.cpu_cores = p->cores;
  t.mutex_name = (char *)r->scopes[p->scope].name;
  t.mutex_from = r->scopes[p->scope].from;
  t.mutex_to = r->scopes[p->scope].to;
  if (r->open) t.proofs_per_hour = lim->target_pph;
  est_stability(&t, st);
}

/* "load" cell: offered / capacity, with "!" when unstable; "-" when it does not apply. */
static const char *load_cell(const report_stability *st, char *buf, size_t n) {
  if (st->has && isfinite(st->utilization))
    snprintf(buf, n, "%.1f%%%s", 100 * st->utilization, st->unstable ? "!" : " ");
  else
    snprintf(buf, n, "-");
  return buf;
}

/* The progress bar of each GPU level. */
static void plan_progress(void *ctx, int gpus, size_t done, size_t n) {
  cli_progress *bar = ctx;
  if (done == 0) {
    char label[32];
    snprintf(label, sizeof label, "plan %d GPU%s", gpus, gpus > 1 ? "s" : "");
    cli_progress_start(bar, label, n);
  } else if (done < n) {
    cli_progress_tick(bar, done);
  } else {
    cli_progress_end(bar);
  }
}

static void plan_text(ps_buf *b, const char *path, const scenario *s, const plan_limits *lim, const char *batches,
                      int cores_budget, const plan_result *r) {
  char desc[256];
  ps_buf_printf(b, "plan for %s: %.1f proofs/hour", s->name, lim->target_pph);
  if (lim->has_max) ps_buf_printf(b, ", p99 %s latency <= %.1f s", r->open ? "proof" : "partition", lim->max_p99_s);
  ps_buf_printf(b, "\nsearched: 1..%d GPUs, 1..%d workers per GPU, batch %s, mutex ", r->gpus_searched,
                lim->max_workers, batches);
  for (int k = 0; k < r->nscopes; k++) ps_buf_printf(b, "%s%s", k ? "/" : "", r->scopes[k].name);
  ps_buf_printf(b, ", cores up to %s", cores_budget ? "the budget" : "the scenario's cores per GPU");
  if (lim->has_mem) ps_buf_printf(b, ", host memory <= %.1f GiB", lim->max_mem_gib);
  const int gmem = s->model->has_gpu_mem; /* only then GPU memory is shown, so other plans stay as they were */
  if (gmem && s->gpu_mem_gib > 0) ps_buf_printf(b, ", GPU memory <= %.6g GiB per GPU", s->gpu_mem_gib);
  else if (gmem) ps_buf_printf(b, ", GPU memory not checked (no system.gpu_mem_gib)");
  else if (s->gpu_mem_gib > 0) ps_buf_printf(b, ", GPU memory not counted (the model has no gpu_memory)");
  ps_buf_printf(b, "\n          %d configurations, %d simulations, %.1f s\n", r->nall, r->sims, r->wall_s);
  int nover = 0, first = -1;
  for (int i = 0; i < r->nall; i++)
    if (r->all[i].gpu_over && nover++ == 0) first = i;
  if (nover) { /* the first in cheapest order: the fewest workers and the smallest batch that do not fit */
    const plan_cfg *p = &r->all[first];
    const char *why = p->limit + (strncmp(p->limit, "GPU memory: ", 12) ? 0 : 12);
    ps_buf_printf(b, "          GPU memory rules out %d of them; the first, %d GPU%s x %d worker%s, batch %d: %s\n", nover,
                  p->gpus, p->gpus > 1 ? "s" : "", p->workers, p->workers > 1 ? "s" : "", p->batch, why);
  }
  ps_buf_printf(b, "\n");

  if (r->found) {
    const plan_cfg *p = &r->best;
    cfg_desc(r, p, desc, sizeof desc);
    ps_buf_printf(b, "cheapest: %s\n", desc);
    ps_buf_printf(b, "          %.1f proofs/hour, p99 latency %.1f s, GPU utilization %.1f%%, host memory %.1f GiB",
                  p->pph, p->p99, 100 * p->util, p->mem);
    if (gmem) ps_buf_printf(b, ", GPU memory %.1f GiB per GPU", p->gpu_mem);
    ps_buf_printf(b, "\n");
    ps_buf_printf(b, "          (provesim simulate %s --set system.gpus=%d --set system.workers_per_gpu=%d "
                     "--set system.batch=%d --set system.mutex=%s --set system.cpu_cores=%d)\n",
                  path, p->gpus, p->workers, p->batch, r->scopes[p->scope].name, p->cores);
    report_stability st;
    cfg_stability(s, lim, r, p, &st);
    if (st.unstable) {
      char line[512];
      ps_buf_printf(b, "          WARNING: %s\n", report_unstable_line(&st, line, sizeof line));
    }
    ps_buf_printf(b, "\n");
    ps_buf_printf(b, "next cheaper:\n");
    if (r->has_fewer_cores) {
      const plan_cfg *q = &r->fewer_cores;
      ps_buf_printf(b, "  with %d core%s: %.1f proofs/h, p99 %.1f s; limited by: %s\n", q->cores, q->cores > 1 ? "s" : "",
                    q->pph, q->p99, q->limit);
    }
    const plan_near *f = &r->fewer_gpus;
    if (f->kind == PLAN_BOUND) {
      ps_buf_printf(b, "  with %d GPU%s: nothing worth simulating; %s\n", p->gpus - 1, p->gpus > 2 ? "s" : "",
                    f->cfg.limit);
    } else if (f->kind == PLAN_SIMULATED) {
      cfg_desc(r, &f->cfg, desc, sizeof desc);
      ps_buf_printf(b, "  with %d GPU%s, the best (%s) reaches %.1f proofs/h; limited by: %s\n", p->gpus - 1,
                    p->gpus > 2 ? "s" : "", desc, f->cfg.pph, f->cfg.limit);
    }
    if (!r->has_fewer_cores && f->kind == PLAN_NONE)
      ps_buf_printf(b, "  none: one GPU and one core is the cheapest there is\n");
  } else {
    const plan_near *f = &r->closest;
    ps_buf_printf(b, "NO CONFIGURATION MEETS THE TARGET within the budget.\n");
    if (f->kind == PLAN_SIMULATED) {
      cfg_desc(r, &f->cfg, desc, sizeof desc);
      ps_buf_printf(b, "the best simulated: %s: %.1f proofs/h, p99 %.1f s\n  limited by: %s\n", desc, f->cfg.pph,
                    f->cfg.p99, f->cfg.limit);
    } else if (f->kind == PLAN_BOUND) {
      ps_buf_printf(b, "no configuration was worth simulating: at best %.1f proofs/h\n  limited by: %s\n", f->cfg.pph,
                    f->cfg.limit);
    }
  }

  ps_buf_printf(b, "\nfrontier explored (no other configuration is as cheap, as fast and as quick):\n");
  ps_buf_printf(b, "  %4s %7s %5s %-10s %5s %8s ", "gpus", "workers", "batch", "mutex", "cores", "mem GiB");
  if (gmem) ps_buf_printf(b, "%8s ", "GPU GiB");
  ps_buf_printf(b, "%10s %9s %8s  ", "proofs/h", "p99 s", "GPU");
  if (r->open) ps_buf_printf(b, "%8s  ", "load");
  ps_buf_printf(b, "meets\n");
  if (r->nlog == 0) ps_buf_printf(b, "  (nothing simulated: every configuration was ruled out by a bound)\n");
  int nunstable = 0;
  for (int i = 0; i < r->nfrontier; i++) {
    const plan_cfg *p = &r->frontier[i];
    ps_buf_printf(b, "  %4d %7d %5d %-10s %5d %8.1f ", p->gpus, p->workers, p->batch, r->scopes[p->scope].name,
                  p->cores, p->mem);
    if (gmem) ps_buf_printf(b, "%8.1f ", p->gpu_mem);
    ps_buf_printf(b, "%10.1f %9.1f %7.1f%%  ", p->pph, p->p99, 100 * p->util);
    if (r->open) {
      report_stability st;
      char ld[32];
      cfg_stability(s, lim, r, p, &st);
      nunstable += st.unstable;
      ps_buf_printf(b, "%8s  ", load_cell(&st, ld, sizeof ld));
    }
    ps_buf_printf(b, "%s\n", p->meets ? "yes" : "no");
  }
  if (nunstable)
    ps_buf_printf(b, "\n! unstable: the target's arrivals offer more than the configuration's capacity bound; its "
                     "queue grows for as long as the run lasts, so its latency figures grow with the run length\n");
}

/* Every configuration evaluated: the simulated ones, then those a bound ruled out. The
 * last column, gpu_mem_gib, only when the model has gpu_memory. */
static void plan_csv(ps_buf *b, const scenario *s, const plan_limits *lim, const plan_result *r) {
  const int gmem = s->model->has_gpu_mem;
  ps_buf_printf(b, "gpus,workers_per_gpu,batch,mutex,cpu_cores,host_mem_gib,simulated,proofs_per_hour,"
                   "p99_latency_s,gpu_util,meets,frontier,limited_by,load,unstable%s\n", gmem ? ",gpu_mem_gib" : "");
  int fi = 0; /* the frontier is a subsequence of the log */
  for (int i = 0; i < r->nall + r->nlog; i++) {
    const plan_cfg *p = i < r->nlog ? &r->log[i] : &r->all[i - r->nlog];
    if (i >= r->nlog && p->simulated) continue; /* in the log already */
    ps_buf_printf(b, "%d,%d,%d,", p->gpus, p->workers, p->batch);
    ps_buf_csv_field(b, r->scopes[p->scope].name);
    ps_buf_printf(b, ",%d,%.9g,%d", p->cores, p->mem, p->simulated);
    ps_buf_csv_num(b, p->simulated ? p->pph : NAN);
    ps_buf_csv_num(b, p->simulated ? p->p99 : NAN);
    ps_buf_csv_num(b, p->simulated ? p->util : NAN);
    const plan_cfg *f = fi < r->nfrontier && i < r->nlog ? &r->frontier[fi] : NULL;
    int onf = f && f->gpus == p->gpus && f->workers == p->workers && f->batch == p->batch && f->scope == p->scope &&
              f->cores == p->cores;
    fi += onf;
    ps_buf_printf(b, ",%d,%d,", p->meets, onf);
    ps_buf_csv_field(b, p->limit);
    report_stability st;
    cfg_stability(s, lim, r, p, &st);
    ps_buf_csv_num(b, st.has ? st.utilization : NAN);
    ps_buf_printf(b, ",%s", st.has ? (st.unstable ? "1" : "0") : "");
    if (gmem) ps_buf_printf(b, ",%.9g", p->gpu_mem);
    ps_buf_printf(b, "\n");
  }
}

static int parse_kv_list(const char *cmd, const char *opt, const char *text, const char *const *keys, double *vals,
                         int *given) {
  char *dup = xstrdup(text), *save = NULL;
  int rc = 0;
  for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    int k = -1;
    if (eq) {
      *eq = 0;
      for (int j = 0; keys[j]; j++)
        if (!strcmp(tok, keys[j])) k = j;
    }
    if (!eq || k < 0) {
      fprintf(stderr, "provesim %s: %s %s: expected ", cmd, opt, text);
      for (int j = 0; keys[j]; j++) fprintf(stderr, "%s%s=NUMBER", j ? " or " : "", keys[j]);
      fprintf(stderr, ", got \"%s\"\n", tok);
      rc = -1;
      break;
    }
    if (ps_parse_num(eq + 1, &vals[k]) || !(vals[k] > 0)) {
      fprintf(stderr, "provesim %s: %s %s: %s: expected a number > 0, got \"%s\"\n", cmd, opt, text, tok, eq + 1);
      rc = -1;
      break;
    }
    given[k] = 1;
  }
  free(dup);
  return rc;
}

int sim_cmd_plan(int argc, char **argv) {
  const char *path = NULL, *csvf = NULL, *target = NULL, *maxs = NULL, *budget = NULL, *batches = "1,2,4";
  const char **sets = xcalloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, jobs = 0, maxw = 8, rc = PS_EXIT_USAGE, farmed = 0;
  scenario *s = NULL;
  plan_result res = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(plan_help, stdout);
      rc = PS_EXIT_OK;
      goto done;
    } else if (cli_is_opt(a, "--target")) {
      if (!(v = cli_optval(argc, argv, &i, "--target"))) goto missing;
      target = v;
    } else if (cli_is_opt(a, "--max")) {
      if (!(v = cli_optval(argc, argv, &i, "--max"))) goto missing;
      maxs = v;
    } else if (cli_is_opt(a, "--budget")) {
      if (!(v = cli_optval(argc, argv, &i, "--budget"))) goto missing;
      budget = v;
    } else if (cli_is_opt(a, "--max-workers")) {
      if (!(v = cli_optval(argc, argv, &i, "--max-workers"))) goto missing;
      if (ps_parse_int(v, 1, 256, &maxw)) {
        rc = cli_usage_error("plan", "--max-workers: expected an integer from 1 to 256, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--batches")) {
      if (!(v = cli_optval(argc, argv, &i, "--batches"))) goto missing;
      batches = v;
    } else if (cli_is_opt(a, "--set")) {
      if (!(v = cli_optval(argc, argv, &i, "--set"))) goto missing;
      if (!strchr(v, '=')) {
        rc = cli_usage_error("plan", "--set %s: expected KEY=VALUE", v);
        goto done;
      }
      sets[nsets++] = v;
    } else if (cli_is_opt(a, "--jobs") || !strcmp(a, "-j")) {
      if (!(v = cli_optval(argc, argv, &i, a[1] == 'j' ? "-j" : "--jobs"))) goto missing;
      if (ps_parse_int(v, 1, 4096, &jobs)) {
        rc = cli_usage_error("plan", "--jobs: expected an integer >= 1, got \"%s\"", v);
        goto done;
      }
    } else if (cli_is_opt(a, "--csv")) {
      if (!(v = cli_optval(argc, argv, &i, "--csv"))) goto missing;
      csvf = v;
    } else if (cli_operand("plan", a, &path)) {
      rc = PS_EXIT_USAGE;
      goto done;
    }
    continue;
  missing:
    rc = cli_usage_error("plan", "%s: expected a value", a);
    goto done;
  }
  if (!path) {
    rc = cli_usage_error("plan", "%s", "expected a scenario file");
    goto done;
  }
  if (!target) {
    rc = cli_usage_error("plan", "%s", "expected --target proofs_per_hour=X");
    goto done;
  }
  static const char *const tkeys[] = {"proofs_per_hour", NULL}, *const mkeys[] = {"p99_latency_s", NULL},
                           *const bkeys[] = {"gpus", "cpu_cores", "host_mem_gib", NULL};
  double tv[1] = {0}, mv[1] = {0}, bv[3] = {0};
  int tg[1] = {0}, mg[1] = {0}, bg[3] = {0};
  if (parse_kv_list("plan", "--target", target, tkeys, tv, tg) || !tg[0]) goto done;
  if (maxs && parse_kv_list("plan", "--max", maxs, mkeys, mv, mg)) goto done;
  if (budget && parse_kv_list("plan", "--budget", budget, bkeys, bv, bg)) goto done;
  /* Converted to int below, where a value out of int's range is undefined behaviour, so
   * it is refused here (the search itself says what it makes of a small one). */
  if ((bg[0] && !(bv[0] >= 0 && bv[0] <= PS_MAX_GPUS)) || (bg[1] && !(bv[1] >= 0 && bv[1] <= 1e6))) {
    char msg[256];
    snprintf(msg, sizeof msg, "--budget: expected gpus at most %d and cpu_cores at most 1000000, got \"%.80s\"",
             PS_MAX_GPUS, budget);
    rc = cli_usage_error("plan", "%s", msg);
    goto done;
  }
  int bl[16], nb = 0;
  {
    char *dup = xstrdup(batches), *save = NULL;
    int bad = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok && !bad; tok = strtok_r(NULL, ",", &save))
      if (nb >= 16 || ps_parse_int(tok, 1, 1024, &bl[nb++])) bad = 1;
    free(dup);
    if (bad || nb == 0) {
      rc = cli_usage_error("plan", "--batches: expected up to 16 integers >= 1 separated by commas, got \"%s\"", batches);
      goto done;
    }
  }

  ps_err e = {0};
  /* From here on every rank of an mpirun takes part (sim/farm.h), whatever fails: rank 0
   * checks the output and prints, every rank loads the scenario and simulates. */
  farm_start();
  farmed = 1;
  int rank0 = farm_rank() == 0, ready = PS_OK;
  if (rank0 && cli_check_outputs("plan", &csvf, 1)) ready = PS_EINPUT; /* before the search, not after */
  if (ready == PS_OK) ready = scn_load(path, sets, nsets, &s, &e);
  if (ready == PS_OK && s->arrivals == ARR_TRACE)
    /* plan runs each configuration at the target's rate; a trace's times are its own. */
    ready = ps_fail(&e, PS_EINPUT, "%s: workload.arrivals.trace: expected arrivals that plan can set to the target "
                    "rate (process: poisson or fixed), got a trace, whose times are its own (scale them with "
                    "rate_scale in simulate or sweep)", path);
  ready = farm_agree(ready, e.msg, &e);
  if (ready != PS_OK) {
    if (rank0 && e.msg[0]) fprintf(stderr, "provesim plan: %s\n", e.msg);
    rc = ps_exit_failed(ready);
    goto done;
  }
  plan_limits lim = {.target_pph = tv[0], .has_max = mg[0], .max_p99_s = mv[0],
                     .max_gpus = bg[0] ? (int)bv[0] : 16, .max_cores = (int)bv[1], .has_mem = bg[2],
                     .max_mem_gib = bv[2], .max_workers = maxw, .batches = bl, .nbatches = nb, .jobs = jobs};
  cli_progress bar;
  if (rank0 && isatty(2)) {
    lim.progress = plan_progress;
    lim.progress_ctx = &bar;
  }
  int pr = plan_search(s, &lim, &res, &e);
  if (!rank0) {
    rc = PS_EXIT_OK;
    goto done;
  }
  if (pr != PS_OK) {
    fprintf(stderr, "provesim plan: %s\n", e.msg);
    rc = ps_exit_failed(pr);
    goto done;
  }
  ps_buf b = {0};
  plan_text(&b, path, s, &lim, batches, bg[1], &res);
  rc = PS_EXIT_OK;
  if (csvf) {
    ps_buf cb = {0};
    plan_csv(&cb, s, &lim, &res);
    if (cli_write_out("plan", csvf, &cb)) rc = PS_EXIT_FAIL;
    ps_buf_free(&cb);
  }
  if (rc == PS_EXIT_OK && ps_write_stdout(b.p, b.len, &e) != PS_OK) {
    fprintf(stderr, "provesim plan: %s\n", e.msg);
    if (csvf) ps_out_remove(csvf);
    rc = PS_EXIT_FAIL;
  }
  ps_buf_free(&b);
done:
  if (farmed) rc = farm_end(rc);
  plan_result_free(&res);
  scn_free(s);
  free(sets);
  return rc;
}
