/* Check suite of sensitivity (sim/sensitivity.c), run.precision (sim/precision.c, the
 * loader's run.precision) and dist_scale. Sensitivity: a deterministic pipeline whose
 * effects have closed forms (a phase outside the bottleneck changes nothing; the
 * bottleneck's ±10% changes throughput by 1/1.1 - 1 and 1/0.9 - 1; a second GPU doubles
 * it), CIs of 0 with constant phases, narrower CIs than the noise with common random
 * numbers, and results independent of the thread count. Precision: on random scenarios
 * the half-width is met and the replications are sim_run's own; the cap is honoured and
 * reported; spans come in replication order. Through the binary: the table, the JSON
 * document, bad arguments (exit 2, nothing written). */
#define _GNU_SOURCE
#include "ck.h"
#include <cjson/cJSON.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "dist.h"
#include "pipe.h"
#include "precision.h"
#include "report.h"
#include "scn.h"
#include "sensitivity.h"
#include "seed.h"
#include "util.h"

/* Writes text to tmpdir/name; returns the path (caller frees). */
static char *put(const char *name, const char *text) {
  char *p = xasprintf("%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  return p;
}

/* Two workers on one GPU; prep (cpu, 1 s) outside a mutex over synth (gpu, 2 s): the GPU
 * is never idle after the first prep, so throughput is 1/2 per second exactly. */
static const char DET[] =
    "scenario: det\n"
    "model:\n"
    "  model: det\n"
    "  phases:\n"
    "    - {name: prep, resource: cpu, threads: 1, time: {dist: const, value: 1.0}}\n"
    "    - {name: synth, resource: gpu, time: {dist: const, value: 2.0}}\n"
    "  scopes:\n"
    "    kernels: {from: synth, to: synth}\n"
    "system: {gpus: 1, workers_per_gpu: 2, cpu_cores: 8, batch: 1, mutex: kernels}\n"
    "workload: {partitions: 400}\n"
    "run: {warmup: 20, replications: 3, seed: 7}\n";

static const sens_input *find_input(const sens_result *r, const char *name) {
  for (int i = 0; i < r->nin; i++)
    if (!strcmp(r->in[i].name, name)) return &r->in[i];
  ck_abort_msg("no input %s", name);
  return NULL;
}

#define NEAR(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol), "%s = %.15g, expected %.15g", #a, (double)(a), (double)(b))

START_TEST(sens_closed_forms) {
  char *path = put("det.yaml", DET);
  sens_result *r = NULL;
  ps_err e = {0};
  int rc = sens_run(path, NULL, 0, RM_THROUGHPUT, 0.1, 2, &r, &e);
  ck_assert_msg(rc == PS_OK, "%s", e.msg);
  NEAR(r->base, 0.5, 1e-12);
  NEAR(r->base_ci95, 0, 1e-12);
  const sens_input *syn = find_input(r, "phase synth mean"), *prep = find_input(r, "phase prep mean");
  ck_assert_int_eq(syn->kind, SENS_PHASE);
  NEAR(syn->base_input, 2.0, 0);
  NEAR(syn->low.input, 1.8, 1e-12);
  NEAR(syn->high.effect, 0.5 * (1 / 1.1 - 1), 1e-12);
  NEAR(syn->low.effect, 0.5 * (1 / 0.9 - 1), 1e-12);
  NEAR(syn->high.ci95, 0, 1e-12);
  NEAR(prep->low.effect, 0, 1e-12);
  NEAR(prep->high.effect, 0, 1e-12);
  NEAR(prep->high.ci95, 0, 1e-12);
  /* Counts move by one: one worker alone cycles prep + synth = 3 s; a third changes
   * nothing; a second GPU with its own two workers doubles throughput. */
  const sens_input *w = find_input(r, "system.workers_per_gpu"), *g = find_input(r, "system.gpus");
  ck_assert_int_eq(w->kind, SENS_SYSTEM);
  ck_assert(w->low.ok && w->high.ok);
  NEAR(w->low.input, 1, 0);
  NEAR(w->low.effect, 1.0 / 3 - 0.5, 1e-12);
  NEAR(w->high.effect, 0, 1e-12);
  ck_assert(!g->low.ok);
  ck_assert_ptr_nonnull(strstr(g->low.why, "least"));
  NEAR(g->high.effect, 0.5, 1e-12);
  const sens_input *b = find_input(r, "system.batch"), *c = find_input(r, "system.cpu_cores");
  NEAR(b->high.effect, 0, 1e-12);
  NEAR(c->low.effect, 0, 1e-12);
  NEAR(c->high.input, 9, 0);
  /* Sorted by effect: the GPU count, the workers, the bottleneck phase, then the rest. */
  ck_assert_str_eq(r->in[0].name, "system.gpus");
  ck_assert_str_eq(r->in[1].name, "system.workers_per_gpu");
  ck_assert_str_eq(r->in[2].name, "phase synth mean");
  ck_assert_int_eq(r->nin, 6);
  ck_assert_int_eq(r->runs, 1 + 2 * 6 - 2); /* gpus and batch cannot go below 1 */
  sens_free(r);
  free(path);
}
END_TEST

/* A stochastic pipeline: GPU-bound, lognormal and gamma phases. */
static const char NOISY[] =
    "scenario: noisy\n"
    "model:\n"
    "  model: noisy\n"
    "  phases:\n"
    "    - {name: prep, resource: cpu, threads: 1, time: {dist: lognormal, mean: 1.0, cv: 0.3}}\n"
    "    - {name: synth, resource: gpu, time: {dist: gamma, mean: 2.0, cv: 0.2}}\n"
    "    - {name: post, resource: cpu, threads: 1, time: {dist: uniform, min: 0.2, max: 0.4}}\n"
    "  scopes:\n"
    "    kernels: {from: synth, to: synth}\n"
    "system: {gpus: 1, workers_per_gpu: 2, cpu_cores: 8, mutex: kernels}\n"
    "workload: {partitions: 300}\n"
    "run: {warmup: 20, replications: 8, seed: 3}\n";

START_TEST(sens_common_random_numbers_and_threads) {
  char *path = put("noisy.yaml", NOISY);
  sens_result *r1 = NULL, *r2 = NULL;
  ps_err e = {0};
  ck_assert_int_eq(sens_run(path, NULL, 0, RM_THROUGHPUT, 0.1, 1, &r1, &e), PS_OK);
  ck_assert_int_eq(sens_run(path, NULL, 0, RM_THROUGHPUT, 0.1, 2, &r2, &e), PS_OK);
  ck_assert_int_eq(r1->nin, r2->nin);
  ck_assert(r1->base == r2->base);
  for (int i = 0; i < r1->nin; i++) {
    ck_assert_str_eq(r1->in[i].name, r2->in[i].name);
    ck_assert(r1->in[i].low.effect == r2->in[i].low.effect || (!r1->in[i].low.ok && !r2->in[i].low.ok));
    ck_assert(r1->in[i].high.ci95 == r2->in[i].high.ci95 || (!r1->in[i].high.ok && !r2->in[i].high.ok));
  }
  /* The paired differences vary far less than the metric itself: the effect of the
   * bottleneck phase is known better than the base value. */
  const sens_input *syn = find_input(r1, "phase synth mean");
  ck_assert_msg(syn->high.ci95 < 0.5 * r1->base_ci95, "effect CI %.3g, base CI %.3g", syn->high.ci95, r1->base_ci95);
  ck_assert_msg(syn->high.ci95 > 0, "a stochastic model has a spread");
  sens_free(r1);
  sens_free(r2);
  free(path);
}
END_TEST

START_TEST(sens_cli_table_and_json) {
  char *path = put("det.yaml", DET), *out = NULL, *err = NULL;
  ck_assert_int_eq(run("sensitivity det.yaml --delta 10% --json -o s.json --threads 2", NULL, &err), 0);
  char *txt = tmpfile_text("s.json");
  cJSON *doc = cJSON_Parse(txt);
  ck_assert_ptr_nonnull(doc);
  ck_assert_str_eq(cJSON_GetObjectItem(doc, "schema")->valuestring, "provesim.sensitivity/1");
  ck_assert_str_eq(cJSON_GetObjectItem(doc, "metric")->valuestring, "throughput");
  NEAR(cJSON_GetObjectItem(doc, "delta")->valuedouble, 0.1, 0);
  NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "base"), "value")->valuedouble, 0.5, 1e-12);
  cJSON *ef = cJSON_GetObjectItem(doc, "effects"), *x;
  ck_assert_int_eq(cJSON_GetArraySize(ef), 6);
  double prev = INFINITY;
  cJSON_ArrayForEach(x, ef) {
    double lo = cJSON_GetObjectItem(x, "effect_low")->valuedouble, hi = cJSON_GetObjectItem(x, "effect_high")->valuedouble;
    double m = fmax(cJSON_IsNull(cJSON_GetObjectItem(x, "effect_low")) ? 0 : fabs(lo), fabs(hi));
    ck_assert_msg(m <= prev + 1e-15, "effects not sorted");
    prev = m;
    if (!strcmp(cJSON_GetObjectItem(x, "input")->valuestring, "phase synth mean")) {
      ck_assert_str_eq(cJSON_GetObjectItem(x, "kind")->valuestring, "phase");
      NEAR(cJSON_GetObjectItem(x, "high")->valuedouble, 0.5 / 1.1, 1e-12);
      NEAR(cJSON_GetObjectItem(x, "ci95_high")->valuedouble, 0, 1e-12);
    }
  }
  ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(ef, 0), "kind")->valuestring, "system");
  ck_assert_ptr_nonnull(cJSON_GetObjectItem(cJSON_GetArrayItem(ef, 0), "skipped_low"));
  cJSON_Delete(doc);
  free(txt);
  /* The same document with one thread. */
  ck_assert_int_eq(run("sensitivity det.yaml --json -o s1.json --threads 1", NULL, NULL), 0);
  char *a = tmpfile_text("s.json"), *b = tmpfile_text("s1.json");
  ck_assert_str_eq(a, b);
  free(a);
  free(b);
  ck_assert_int_eq(run("sensitivity det.yaml --metric gpu_util", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "phase synth mean"));
  ck_assert_ptr_nonnull(strstr(out, "sensitivity of gpu_util"));
  free(out);
  free(err);
  /* Bad arguments: exit 2, one line, nothing written. */
  const char *bad[] = {"sensitivity det.yaml --delta 0 -o x.json", "sensitivity det.yaml --delta 95% -o x.json",
                       "sensitivity det.yaml --delta ten -o x.json", "sensitivity det.yaml --metric speed -o x.json",
                       "sensitivity det.yaml --set system.gpus=0 -o x.json", "sensitivity nosuch.yaml -o x.json"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(run(bad[i], NULL, &err) == 2, "%s: expected exit 2", bad[i]);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s: one line, got %s", bad[i], err);
    ck_assert(!exists("x.json"));
    free(err);
  }
  free(path);
}
END_TEST

/* ---------------------------------------------------------------- dist_scale */

START_TEST(scale_keeps_draws_in_step) {
  dist d[7];
  const char *why;
  ck_assert_int_eq(dist_const(&d[0], 1.5, &why), 0);
  ck_assert_int_eq(dist_uniform(&d[1], 0.5, 2.0, &why), 0);
  ck_assert_int_eq(dist_normal(&d[2], 0.3, 0.4, &why), 0); /* truncated often */
  ck_assert_int_eq(dist_lognormal_mean_cv(&d[3], 1.0, 0.5, &why), 0);
  ck_assert_int_eq(dist_gamma_mean_cv(&d[4], 2.0, 1.5, &why), 0); /* shape < 1 */
  ck_assert_int_eq(dist_exponential(&d[5], 0.7, &why), 0);
  double *xs = xmalloc(3 * sizeof *xs);
  xs[0] = 0.1, xs[1] = 0.2, xs[2] = 0.7;
  ck_assert_int_eq(dist_empirical(&d[6], xs, 3, &why), 0);
  gsl_rng *r1 = gsl_rng_alloc(gsl_rng_mt19937), *r2 = gsl_rng_alloc(gsl_rng_mt19937);
  for (int k = 0; k < 7; k++)
    for (int fi = 0; fi < 2; fi++) {
      double f = fi ? 1.1 : 0.9;
      dist s;
      dist_copy(&s, &d[k]);
      dist_scale(&s, f);
      ck_assert_msg(fabs(dist_mean(&s) - f * dist_mean(&d[k])) <= 1e-12 * dist_mean(&d[k]), "%s: mean",
                    dist_kind_name(d[k].kind));
      gsl_rng_set(r1, 11);
      gsl_rng_set(r2, 11);
      for (int i = 0; i < 2000; i++) {
        double a = dist_draw(&d[k], r1), b = dist_draw(&s, r2);
        ck_assert_msg(fabs(b - f * a) <= 1e-12 * (1 + a), "%s draw %d: %.17g, expected %.17g",
                      dist_kind_name(d[k].kind), i, b, f * a);
      }
      ck_assert_int_eq(gsl_rng_get(r1), gsl_rng_get(r2)); /* as many random numbers used */
      dist_free(&s);
    }
  for (int k = 0; k < 7; k++) dist_free(&d[k]);
  gsl_rng_free(r1);
  gsl_rng_free(r2);
}
END_TEST

/* ---------------------------------------------------------------- run.precision */

/* A random small scenario: 1-2 GPUs, 1-4 workers, lognormal/gamma/uniform phases, a
 * closed backlog or Poisson arrivals under capacity, run.precision as given. */
static char *random_scenario(uint64_t seed, const char *precision) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, (unsigned long)ps_seed_mix(seed, 99));
  double prep = 0.5 + gsl_rng_uniform(r), gpu = 0.5 + gsl_rng_uniform(r), post = 0.1 + 0.3 * gsl_rng_uniform(r);
  int gpus = 1 + (int)gsl_rng_uniform_int(r, 2), w = 1 + (int)gsl_rng_uniform_int(r, 4);
  int open = (int)gsl_rng_uniform_int(r, 2), call = (int)gsl_rng_uniform_int(r, 2);
  char arr[160] = "";
  if (open) /* half the capacity: a GPU serves one call (mutex call) or one gpu phase at a time */
    snprintf(arr, sizeof arr, ", arrivals: {process: poisson, proofs_per_hour: %.3f}",
             0.5 * 3600.0 * gpus / (call ? prep + gpu + 1.5 * post : gpu));
  char *t = xasprintf("scenario: random-%llu\n"
                      "model:\n"
                      "  model: random\n"
                      "  phases:\n"
                      "    - {name: prep, resource: cpu, threads: 1, time: {dist: lognormal, mean: %.4f, cv: 0.4}}\n"
                      "    - {name: gpu, resource: gpu, time: {dist: gamma, mean: %.4f, cv: 0.3}}\n"
                      "    - {name: post, resource: cpu, threads: 1, time: {dist: uniform, min: %.4f, max: %.4f}}\n"
                      "  scopes:\n"
                      "    call: {from: prep, to: post}\n"
                      "    kernels: {from: gpu, to: gpu}\n"
                      "system: {gpus: %d, workers_per_gpu: %d, cpu_cores: 16, mutex: %s}\n"
                      "workload: {partitions: %d%s}\n"
                      "run: {warmup: 20, replications: 4, seed: %llu, precision: %s}\n",
                      (unsigned long long)seed, prep, gpu, post, 2 * post, gpus, w,
                      call ? "call" : "kernels", 150 + (int)gsl_rng_uniform_int(r, 200), arr,
                      (unsigned long long)seed, precision);
  gsl_rng_free(r);
  return t;
}

START_TEST(precision_met_on_random_scenarios) {
  int grown = 0; /* scenarios that needed more than the first round */
  for (uint64_t seed = 1; seed <= 5; seed++) {
    char *yaml = random_scenario(seed, "{target: 0.01, metrics: [throughput, gpu_util, latency], max_replications: 400, batch: 6}");
    char *path = put("rand.yaml", yaml);
    scenario *s = NULL;
    ps_err e = {0};
    ck_assert_msg(scn_load(path, NULL, 0, &s, &e) == PS_OK, "%s", e.msg);
    sim_opts o1 = {.threads = 1}, o2 = {.threads = 2};
    sim_result *a = NULL, *b = NULL, *c = NULL;
    ck_assert_int_eq(prec_run(s, &o1, &a, &e), PS_OK);
    ck_assert_int_eq(prec_run(s, &o2, &b, &e), PS_OK);
    ck_assert(a->precision);
    ck_assert_int_eq(a->nreps, b->nreps);
    ck_assert((a->nreps - 4) % 6 == 0 || a->nreps == 400);
    grown += a->nreps > 4;
    /* The half-width is met, by the report's own CIs. */
    report_summary m;
    report_summarize(a, &m);
    ck_assert_msg(a->nreps < 400, "seed %llu: the cap stopped it", (unsigned long long)seed);
    ck_assert_msg(m.tput_ci <= 0.01 * m.tput, "seed %llu: throughput %.5g ±%.3g", (unsigned long long)seed, m.tput, m.tput_ci);
    ck_assert(m.gpu_util_mean_ci <= 0.01 * m.gpu_util_mean);
    ck_assert(m.lat_mean_ci <= 0.01 * m.lat_mean);
    ck_assert(a->precision_reached <= 0.01);
    ck_assert(a->precision_reached == prec_reached(s, a->reps, a->nreps));
    /* One round fewer would not have met it (it stops at the first round that does). */
    if (a->nreps > 4) ck_assert(prec_reached(s, a->reps, a->nreps - 6) > 0.01);
    /* Replication i is sim_run's replication i, whatever the thread count. */
    scenario t = *s;
    t.replications = a->nreps;
    t.prec_target = 0;
    ck_assert_int_eq(sim_run(&t, &o2, &c, &e), PS_OK);
    for (int i = 0; i < a->nreps; i++) {
      ck_assert(a->reps[i].throughput_pps == b->reps[i].throughput_pps);
      ck_assert(a->reps[i].throughput_pps == c->reps[i].throughput_pps);
      ck_assert(a->reps[i].lat_p99 == c->reps[i].lat_p99);
    }
    report_summary_free(&m);
    sim_result_free(a);
    sim_result_free(b);
    sim_result_free(c);
    scn_free(s);
    free(path);
    free(yaml);
  }
  ck_assert_int_ge(grown, 3);
}
END_TEST

/* A digest of a span stream: order-sensitive, over replication, call, phase and times. */
typedef struct span_digest {
  uint64_t h;
  long n;
  int last_rep, ordered;
} span_digest;

static void digest_span(void *ctx, const sim_span *sp) {
  span_digest *d = ctx;
  double v[4] = {sp->rep, (double)sp->call, sp->t0, sp->t1};
  const unsigned char *b = (const unsigned char *)v;
  for (size_t i = 0; i < sizeof v; i++) d->h = (d->h ^ b[i]) * 1099511628211ull;
  for (const char *c = sp->phase; *c; c++) d->h = (d->h ^ (unsigned char)*c) * 1099511628211ull;
  if (sp->rep < d->last_rep) d->ordered = 0;
  d->last_rep = sp->rep;
  d->n++;
}

START_TEST(precision_spans_in_replication_order) {
  char *yaml = random_scenario(4, "{target: 0.002, max_replications: 30, batch: 7}");
  char *path = put("spans.yaml", yaml);
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load(path, NULL, 0, &s, &e), PS_OK);
  span_digest a = {.h = 14695981039346656037ull, .ordered = 1}, b = a;
  sim_opts oa = {.threads = 2, .on_span = digest_span, .span_ctx = &a};
  sim_result *ra = NULL, *rb = NULL;
  ck_assert_int_eq(prec_run(s, &oa, &ra, &e), PS_OK);
  ck_assert_int_gt(ra->nreps, 4); /* rounds were added */
  scenario t = *s;
  t.replications = ra->nreps;
  t.prec_target = 0;
  sim_opts ob = {.threads = 2, .on_span = digest_span, .span_ctx = &b};
  ck_assert_int_eq(sim_run(&t, &ob, &rb, &e), PS_OK);
  ck_assert(a.ordered);
  ck_assert_int_eq(a.last_rep, ra->nreps - 1);
  ck_assert_int_eq(a.n, b.n);
  ck_assert(a.h == b.h);
  sim_result_free(ra);
  sim_result_free(rb);
  scn_free(s);
  free(path);
  free(yaml);
}
END_TEST

START_TEST(precision_cap_honoured_and_reported) {
  char *yaml = random_scenario(2, "{target: 0.0001, max_replications: 12, batch: 5}");
  char *path = put("cap.yaml", yaml), *out = NULL;
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load(path, NULL, 0, &s, &e), PS_OK);
  sim_result *a = NULL;
  ck_assert_int_eq(prec_run(s, NULL, &a, &e), PS_OK);
  ck_assert_int_eq(a->nreps, 12); /* 4, 9, then 3 to the cap */
  ck_assert(a->precision_reached > 0.0001);
  sim_result_free(a);
  scn_free(s);
  ck_assert_int_eq(run("simulate cap.yaml --json", &out, NULL), 0);
  cJSON *doc = cJSON_Parse(out);
  ck_assert_ptr_nonnull(doc);
  ck_assert_int_eq(cJSON_GetObjectItem(doc, "replications")->valueint, 12);
  cJSON *p = cJSON_GetObjectItem(doc, "precision");
  ck_assert_ptr_nonnull(p);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(p, "capped")));
  ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(p, "met")));
  cJSON *rp = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "scenario"), "run"), "precision");
  ck_assert_int_eq(cJSON_GetObjectItem(rp, "max_replications")->valueint, 12);
  cJSON_Delete(doc);
  free(out);
  ck_assert_int_eq(run("simulate cap.yaml", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "NOT met: stopped at the cap, run.precision.max_replications = 12"));
  free(out);
  /* A target it meets at once says so. */
  free(put("det.yaml", DET));
  ck_assert_int_eq(run("simulate det.yaml --set run.precision=0.005", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "met with 3 replications"));
  free(out);
  free(path);
  free(yaml);
}
END_TEST

START_TEST(precision_loader) {
  char *path = put("det.yaml", DET);
  scenario *s = NULL;
  ps_err e = {0};
  const char *plain[] = {"run.precision=0.02"};
  ck_assert_int_eq(scn_load(path, plain, 1, &s, &e), PS_OK);
  ck_assert(s->prec_target == 0.02);
  ck_assert_uint_eq(s->prec_metrics, 1u << RM_THROUGHPUT | 1u << RM_GPU_UTIL);
  ck_assert_int_eq(s->prec_max, 200);
  ck_assert_int_eq(s->prec_batch, 10);
  scn_free(s);
  const char *full[] = {"run.precision={target: 0.01, metrics: [p99], max_replications: 50, batch: 4}"};
  ck_assert_int_eq(scn_load(path, full, 1, &s, &e), PS_OK);
  ck_assert_uint_eq(s->prec_metrics, 1u << RM_P99);
  ck_assert_int_eq(s->prec_max, 50);
  ck_assert_int_eq(s->prec_batch, 4);
  scn_free(s);
  /* The default cap grows to a larger first round. */
  const char *big[] = {"run.replications=300", "run.precision=0.01"};
  ck_assert_int_eq(scn_load(path, big, 2, &s, &e), PS_OK);
  ck_assert_int_eq(s->prec_max, 300);
  scn_free(s);
  struct {
    const char *set, *want;
  } bad[] = {
      {"run.precision=0", "run.precision: expected a number from 0.0001 to 0.5"},
      {"run.precision=0.9", "run.precision: expected a number from 0.0001 to 0.5"},
      {"run.precision=\"0.01\"", "run.precision: expected"},
      {"run.precision={target: 0.01, metrics: [speed]}", "run.precision.metrics[0]: expected one of throughput"},
      {"run.precision={target: 0.01, metrics: []}", "run.precision.metrics: expected a non-empty list"},
      {"run.precision={metrics: [p99]}", "target"},
      {"run.precision={target: 0.01, max_replications: 2}", "run.precision.max_replications: expected an integer from 3"},
      {"run.precision={target: 0.01, batch: 0}", "run.precision.batch: expected an integer >= 1"},
      {"run.precision={target: 0.01, cap: 9}", "unknown key \"cap\""},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *set[] = {bad[i].set};
    s = NULL;
    ck_assert_int_eq(scn_load(path, set, 1, &s, &e), PS_EINPUT);
    ck_assert_msg(strstr(e.msg, bad[i].want), "%s: got %s", bad[i].set, e.msg);
    ck_assert_ptr_null(s);
  }
  free(path);
}
END_TEST

int main(void) {
  Suite *su = suite_create("sensitivity");
  TCase *tc = tcase_create("sensitivity");
  tcase_add_checked_fixture(tc, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, sens_closed_forms);
  tcase_add_test(tc, sens_common_random_numbers_and_threads);
  tcase_add_test(tc, sens_cli_table_and_json);
  tcase_add_test(tc, scale_keeps_draws_in_step);
  suite_add_tcase(su, tc);
  TCase *tp = tcase_create("precision");
  tcase_add_checked_fixture(tp, cli_tmp_setup, cli_tmp_teardown);
  tcase_set_timeout(tp, 300);
  tcase_add_test(tp, precision_met_on_random_scenarios);
  tcase_add_test(tp, precision_cap_honoured_and_reported);
  tcase_add_test(tp, precision_spans_in_replication_order);
  tcase_add_test(tp, precision_loader);
  suite_add_tcase(su, tp);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf;
}
