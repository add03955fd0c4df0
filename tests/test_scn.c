/* Check suite of the scenario/model loader (sim/scn.c): the happy paths (defaults,
 * `after` chaining, inline models, overrides, mutex regions, empirical distributions,
 * the resolved JSON) and one test per kind of input error, each asserting the exact
 * `file:line:col: key.path:` prefix and the expectation. Fixtures live in
 * tests/data/scn/; the suite runs from that folder so messages carry short names. */
#define _GNU_SOURCE
#include "ck.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrivals.h"
#include "scn.h"

/* Load name with overrides and return the resulting error message (static storage per
 * call site is not needed: the test copies what it checks). Fails the test when the
 * load succeeds. */
static ps_err load_fail(const char *name, const char *const *ov, int nov) {
  ps_err e = {0};
  scenario *s = NULL;
  int rc = scn_load(name, ov, nov, &s, &e);
  ck_assert_msg(rc == PS_EINPUT, "%s: expected PS_EINPUT, got %d", name, rc);
  ck_assert_ptr_null(s);
  return e;
}

static scenario *load_ok(const char *name, const char *const *ov, int nov) {
  ps_err e = {0};
  scenario *s = NULL;
  int rc = scn_load(name, ov, nov, &s, &e);
  ck_assert_msg(rc == PS_OK, "%s: %s", name, e.msg);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* The message starts with prefix and contains expect. */
#define ASSERT_ERR(msg, prefix, expect)                                                    \
  do {                                                                                     \
    ck_assert_msg(strncmp((msg), (prefix), strlen(prefix)) == 0, "message \"%s\" does not start with \"%s\"", \
                  (msg), (prefix));                                                        \
    ck_assert_msg(strstr((msg), (expect)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (expect)); \
  } while (0)

/* ---- happy paths ---------------------------------------------------------------- */

START_TEST(test_defaults) {
  scenario *s = load_ok("good-defaults.yaml", NULL, 0);
  ck_assert_str_eq(s->name, "defaults");
  ck_assert_ptr_null(s->description);
  ck_assert_str_eq(s->path, "good-defaults.yaml");
  ck_assert_int_eq(s->gpus, 1);
  ck_assert_int_eq(s->workers_per_gpu, 1);
  ck_assert_int_eq(s->cpu_cores, 32);
  ck_assert_int_eq(s->batch, 1);
  ck_assert_str_eq(s->mutex_name, "call"); /* the model offers `call` */
  ck_assert_int_eq(s->mutex_from, 0);
  ck_assert_int_eq(s->mutex_to, 4);
  ck_assert_int_eq(s->gpu_shared, 0);
  ck_assert_int_eq(s->cpu_fifo, 0);
  ck_assert_int_eq(s->partitions, 10);
  ck_assert_int_eq(s->arrivals, ARR_CLOSED);
  ck_assert_int_eq(s->partitions_per_proof, 1);
  ck_assert_int_eq(s->warmup, 0);
  ck_assert_int_eq(s->cooldown, 0);
  ck_assert_int_eq(s->replications, 1);
  ck_assert_uint_eq(s->seed, 1);
  ck_assert_ptr_null(s->prover_circuit);
  ck_assert_int_eq(s->prover_constraints, 0);

  const model *m = s->model;
  ck_assert_str_eq(m->name, "basic");
  ck_assert_str_eq(m->source, "test fixture");
  ck_assert_str_eq(m->path, "model-basic.yaml");
  ck_assert_int_eq(m->nphases, 5);
  ck_assert_int_eq(scn_phase_index(m, "msm"), 2);
  ck_assert_int_eq(scn_phase_index(m, "nope"), -1);
  const phase *prep = &m->phases[0], *ntt = &m->phases[1], *msm = &m->phases[2], *b_g2 = &m->phases[3];
  ck_assert_int_eq(prep->resource, RES_CPU);
  ck_assert_int_eq(prep->threads, 2);
  ck_assert_int_eq(prep->time.kind, DIST_LOGNORMAL);
  ck_assert_double_eq_tol(dist_mean(&prep->time), 1.91, 1e-12);
  ck_assert_int_eq(prep->has_fixed, 1);
  ck_assert_int_eq(prep->fixed.kind, DIST_CONST);
  ck_assert_int_eq(prep->nafter, 0);
  ck_assert_int_eq(ntt->resource, RES_GPU);
  ck_assert_int_eq(ntt->threads, 1);
  ck_assert_int_eq(ntt->nafter, 0);
  ck_assert_int_eq(ntt->has_fixed, 0);
  ck_assert_int_eq(msm->time.kind, DIST_CONST); /* a bare number */
  ck_assert_double_eq(msm->time.a, 1.13);
  ck_assert_int_eq(msm->nafter, 2);
  ck_assert_int_eq(msm->after[0], 0);
  ck_assert_int_eq(msm->after[1], 1);
  ck_assert_int_eq(msm->nscale, 3);
  ck_assert_double_eq(msm->scale[2], 2.7);
  ck_assert_double_eq(b_g2->host_mem_gib, 2.5);
  ck_assert_int_eq(m->phases[4].time.kind, DIST_EXPONENTIAL);
  ck_assert_int_eq(m->nscopes, 2);
  ck_assert_str_eq(m->scopes[1].name, "kernels");
  ck_assert_int_eq(m->scopes[1].from, 1);
  ck_assert_int_eq(m->scopes[1].to, 2);
  scn_free(s);
}
END_TEST

START_TEST(test_full) {
  scenario *s = load_ok("good-full.yaml", NULL, 0);
  ck_assert_str_eq(s->description, "every key given");
  ck_assert_int_eq(s->gpus, 2);
  ck_assert_int_eq(s->workers_per_gpu, 3);
  ck_assert_int_eq(s->cpu_cores, 16);
  ck_assert_int_eq(s->batch, 3);
  ck_assert_str_eq(s->mutex_name, "kernels");
  ck_assert_int_eq(s->mutex_from, 1);
  ck_assert_int_eq(s->mutex_to, 2);
  ck_assert_int_eq(s->gpu_shared, 1);
  ck_assert_int_eq(s->cpu_fifo, 1);
  ck_assert_int_eq(s->partitions, 1000); /* written 1e3 */
  ck_assert_int_eq(s->arrivals, ARR_POISSON);
  ck_assert_double_eq(s->proofs_per_hour, 90);
  ck_assert_int_eq(s->partitions_per_proof, 10);
  ck_assert_int_eq(s->warmup, 100);
  ck_assert_int_eq(s->cooldown, 50);
  ck_assert_int_eq(s->replications, 5);
  ck_assert_uint_eq(s->seed, UINT64_MAX);
  ck_assert_str_eq(s->prover_circuit, "synthetic");
  ck_assert_int_eq(s->prover_constraints, 1024);
  scn_free(s);
}
END_TEST

START_TEST(test_after_chaining_and_inline) {
  scenario *s = load_ok("good-inline.yaml", NULL, 0);
  const model *m = s->model;
  ck_assert_str_eq(m->name, "chain");
  ck_assert_ptr_null(m->path);
  ck_assert_ptr_null(m->source);
  ck_assert_int_eq(m->nphases, 4);
  ck_assert_int_eq(m->phases[0].nafter, 0);   /* first phase: call start */
  ck_assert_int_eq(m->phases[1].nafter, 1);   /* b after a (previous) */
  ck_assert_int_eq(m->phases[1].after[0], 0);
  ck_assert_int_eq(m->phases[2].nafter, 1);   /* c after b (previous) */
  ck_assert_int_eq(m->phases[2].after[0], 1);
  ck_assert_int_eq(m->phases[3].nafter, 1);   /* d after a (explicit) */
  ck_assert_int_eq(m->phases[3].after[0], 0);
  ck_assert_int_eq(m->phases[2].resource, RES_PCIE);
  ck_assert_int_eq(m->phases[3].resource, RES_NONE);
  ck_assert_int_eq(m->phases[1].time.kind, DIST_GAMMA);
  ck_assert_double_eq_tol(dist_mean(&m->phases[1].time), 2.0, 1e-12);
  ck_assert_double_eq_tol(m->phases[2].time.b, 0.25, 1e-15);
  /* No `call` scope in this model: the mutex here is an explicit region. */
  ck_assert_str_eq(s->mutex_name, "custom");
  ck_assert_int_eq(s->mutex_from, 1);
  ck_assert_int_eq(s->mutex_to, 2);
  scn_free(s);
}
END_TEST

START_TEST(test_mutex_default_none_and_region_override) {
  const char *ov1[] = {"system.mutex=none"};
  scenario *s = load_ok("good-inline.yaml", ov1, 1);
  ck_assert_str_eq(s->mutex_name, "none");
  ck_assert_int_eq(s->mutex_from, -1);
  ck_assert_int_eq(s->mutex_to, -1);
  scn_free(s);
  /* Null counts as absent: the inline model has no `call` scope, so the default is none. */
  const char *ov2[] = {"system.mutex=null"};
  s = load_ok("good-inline.yaml", ov2, 1);
  ck_assert_str_eq(s->mutex_name, "none");
  scn_free(s);
  const char *ov3[] = {"system.mutex={from: ntt_h, to: msm}"};
  s = load_ok("good-defaults.yaml", ov3, 1);
  ck_assert_str_eq(s->mutex_name, "custom");
  ck_assert_int_eq(s->mutex_from, 1);
  ck_assert_int_eq(s->mutex_to, 2);
  scn_free(s);
}
END_TEST

START_TEST(test_overrides) {
  const char *ov[] = {"system.workers_per_gpu=4",
                      "run.seed=7",
                      "phases.prep.time.mean=1.5",
                      "phases.b_g2.resource=gpu",
                      "phases.b_g2.threads=1",
                      "model.name=renamed",
                      "model.source=an override",
                      "scopes.tail={from: msm, to: epilogue}",
                      "system.mutex=tail",
                      "workload.arrivals={process: fixed, proofs_per_hour: 60}",
                      "workload.arrivals.proofs_per_hour=90",
                      "system.workers_per_gpu=5"};
  scenario *s = load_ok("good-defaults.yaml", ov, (int)(sizeof ov / sizeof ov[0]));
  ck_assert_int_eq(s->workers_per_gpu, 5); /* in order: the last one wins */
  ck_assert_uint_eq(s->seed, 7);
  ck_assert_double_eq_tol(dist_mean(&s->model->phases[0].time), 1.5, 1e-12);
  ck_assert_int_eq(s->model->phases[3].resource, RES_GPU);
  ck_assert_str_eq(s->model->name, "renamed");
  ck_assert_str_eq(s->model->source, "an override");
  ck_assert_int_eq(s->model->nscopes, 3);
  ck_assert_str_eq(s->mutex_name, "tail");
  ck_assert_int_eq(s->mutex_from, 2);
  ck_assert_int_eq(s->mutex_to, 4);
  ck_assert_int_eq(s->arrivals, ARR_FIXED);
  ck_assert_double_eq(s->proofs_per_hour, 90);
  scn_free(s);

  /* Model keys of an inline model are addressed the same way. */
  const char *ov2[] = {"phases.d.time={dist: uniform, min: 1, max: 3}", "phases.b.after=[]"};
  s = load_ok("good-inline.yaml", ov2, 2);
  ck_assert_double_eq(dist_mean(&s->model->phases[3].time), 2.0);
  ck_assert_int_eq(s->model->phases[1].nafter, 0);
  scn_free(s);
}
END_TEST

START_TEST(test_empirical) {
  model *m = NULL;
  ps_err e = {0};
  int rc = scn_load_model("model-empirical.yaml", &m, &e);
  ck_assert_msg(rc == PS_OK, "%s", e.msg);
  /* From spans.jsonl: prep spans last 2 s and 4 s over 2 partitions; the kernel span
   * named prep and the mutex_wait span are not phase spans of prep. */
  const dist *d = &m->phases[0].time;
  ck_assert_int_eq(d->kind, DIST_EMPIRICAL);
  ck_assert_uint_eq(d->n, 2);
  ck_assert_double_eq_tol(d->samples[0], 2.0, 1e-12);
  ck_assert_double_eq_tol(d->samples[1], 2.0, 1e-12);
  const dist *d2 = &m->phases[1].time;
  ck_assert_int_eq(d2->kind, DIST_EMPIRICAL);
  ck_assert_uint_eq(d2->n, 3);
  ck_assert_double_eq_tol(dist_mean(d2), 2.5, 1e-12);
  scn_model_free(m);
}
END_TEST

static char *json_of(const char *name, const char *const *ov, int nov) {
  scenario *s = load_ok(name, ov, nov);
  cJSON *j = scn_to_json(s);
  char *txt = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  scn_free(s);
  return txt;
}

/* system.host_steal: every cpu phase's time (and fixed part) (1 - share)^-exponent times
 * as long, the GPU phases as they were; the resolved JSON says so; bad values refused with
 * the key's path. */
START_TEST(test_host_steal) {
  scenario *b = load_ok("good-defaults.yaml", NULL, 0);
  const char *ov[] = {"system.host_steal={share: 0.2, exponent: 1.26}"};
  scenario *s = load_ok("good-defaults.yaml", ov, 1);
  const double f = pow(0.8, -1.26);
  ck_assert_double_eq_tol(s->host_steal, 0.2, 1e-12);
  ck_assert_double_eq_tol(s->host_steal_exponent, 1.26, 1e-12);
  for (int p = 0; p < s->model->nphases; p++) {
    const phase *x = &s->model->phases[p], *y = &b->model->phases[p];
    double want = dist_mean(&y->time) * (x->resource == RES_CPU ? f : 1);
    ck_assert_msg(fabs(dist_mean(&x->time) - want) < 1e-9 * want, "%s: %g, want %g", x->name, dist_mean(&x->time), want);
  }
  scn_free(s);
  scn_free(b);
  char *js = json_of("good-defaults.yaml", ov, 1);
  ck_assert_msg(strstr(js, "\"host_steal\":{\"share\":0.2,\"exponent\":1.26}"), "%s", js);
  free(js);
  js = json_of("good-defaults.yaml", NULL, 0);
  ck_assert_ptr_null(strstr(js, "host_steal"));
  free(js);
  const char *ov1[] = {"system.host_steal.share=0.2"}; /* the exponent defaults to 1 */
  s = load_ok("good-defaults.yaml", ov1, 1);
  ck_assert_double_eq_tol(s->host_steal_exponent, 1, 1e-12);
  scn_free(s);
  const char *bad[] = {"system.host_steal.share=0.95", "system.host_steal={share: 0.1, exponent: 5}",
                       "system.host_steal={exponent: 2}", "system.host_steal={share: 0.1, by: 2}"};
  const char *want[] = {"system.host_steal.share: expected a share from 0 to 0.9",
                        "system.host_steal.exponent: expected a number from 0 to 4",
                        "system.host_steal.share: expected a share from 0 to 0.9", "system.host_steal"};
  for (int i = 0; i < 4; i++) {
    ps_err e = load_fail("good-defaults.yaml", &bad[i], 1);
    ck_assert_msg(strstr(e.msg, want[i]), "%s: %s", bad[i], e.msg);
  }
}
END_TEST

START_TEST(test_json_stable) {
  char *a = json_of("good-inline.yaml", NULL, 0);
  char *b = json_of("good-inline.yaml", NULL, 0);
  ck_assert_str_eq(a, b);
  const char *want =
      "{\"scenario\":\"inline\",\"description\":null,"
      "\"model\":{\"model\":\"chain\",\"source\":null,\"phases\":["
      "{\"name\":\"a\",\"resource\":\"cpu\",\"threads\":1,\"time\":{\"dist\":\"const\",\"value\":1,\"mean\":1},"
      "\"fixed\":null,\"batch\":null,\"after\":[],\"host_mem_gib\":0},"
      "{\"name\":\"b\",\"resource\":\"gpu\",\"threads\":1,\"time\":{\"dist\":\"gamma\",\"shape\":4,\"scale\":0.5,\"mean\":2},"
      "\"fixed\":null,\"batch\":null,\"after\":[\"a\"],\"host_mem_gib\":0,\"busy\":1},"
      "{\"name\":\"c\",\"resource\":\"pcie\",\"threads\":1,\"time\":{\"dist\":\"lognormal\",\"mu\":0,\"sigma\":0.25,"
      "\"mean\":1.0317434074991028},\"fixed\":null,\"batch\":null,\"after\":[\"b\"],\"host_mem_gib\":0},"
      "{\"name\":\"d\",\"resource\":\"none\",\"threads\":1,\"time\":{\"dist\":\"const\",\"value\":0.5,\"mean\":0.5},"
      "\"fixed\":null,\"batch\":null,\"after\":[\"a\"],\"host_mem_gib\":0}],\"scopes\":{}},"
      "\"system\":{\"gpus\":1,\"workers_per_gpu\":1,\"cpu_cores\":32,\"batch\":1,"
      "\"mutex\":{\"scope\":\"custom\",\"from\":\"b\",\"to\":\"c\"},\"gpu_sharing\":\"exclusive\",\"cpu_sharing\":\"ps\",\"threads\":{\"per_worker\":\"share\",\"keep_core\":true,\"threads_per_worker\":31}},"
      "\"workload\":{\"partitions\":4,\"arrivals\":null},"
      "\"run\":{\"warmup\":0,\"cooldown\":0,\"replications\":1,\"seed\":1},"
      "\"prover\":{\"circuit\":null,\"constraints\":0}}";
  ck_assert_str_eq(a, want);
  free(a);
  free(b);

  /* Big integers stay exact; every member is there in a fixed order. */
  char *f = json_of("good-full.yaml", NULL, 0);
  ck_assert_ptr_nonnull(strstr(f, "\"seed\":18446744073709551615"));
  ck_assert_ptr_nonnull(strstr(f, "\"arrivals\":{\"process\":\"poisson\",\"proofs_per_hour\":90,\"partitions_per_proof\":10}"));
  ck_assert_ptr_nonnull(strstr(f, "\"batch\":{\"scale\":[1,1.9,2.7]}"));
  ck_assert_ptr_nonnull(strstr(f, "\"mutex\":{\"scope\":\"kernels\",\"from\":\"ntt_h\",\"to\":\"msm\"}"));
  free(f);
}
END_TEST

/* Loads share nothing: several threads loading at once get the same result. */
static void *load_thread(void *arg) {
  char **out = arg;
  const char *ov[] = {"system.mutex={from: ntt_h, to: b_g2}", "phases.prep.time.cv=0.2"};
  *out = json_of("good-full.yaml", ov, 2);
  return NULL;
}

START_TEST(test_threads) {
  enum { T = 8 };
  pthread_t th[T];
  char *out[T];
  for (int i = 0; i < T; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, load_thread, &out[i]), 0);
  for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
  for (int i = 1; i < T; i++) ck_assert_str_eq(out[i], out[0]);
  for (int i = 0; i < T; i++) free(out[i]);
}
END_TEST

/* ---- one test per error kind ------------------------------------------------------ */

/* prover.precompute: off (the default, not echoed), auto, or a window of 2..24 bits; the
 * echo says what was set. Anything else: file, line, key and expectation, exit 2. */
START_TEST(test_prover_precompute) {
  scenario *s = load_ok("good-defaults.yaml", NULL, 0);
  ck_assert_int_eq(s->prover_precompute, 0);
  scn_free(s);
  const char *ov1[] = {"prover.precompute=20"}, *ov2[] = {"prover.precompute=auto"}, *ov3[] = {"prover.precompute=off"};
  s = load_ok("good-defaults.yaml", ov1, 1);
  ck_assert_int_eq(s->prover_precompute, 20);
  scn_free(s);
  s = load_ok("good-defaults.yaml", ov2, 1);
  ck_assert_int_eq(s->prover_precompute, -1);
  scn_free(s);
  s = load_ok("good-defaults.yaml", ov3, 1);
  ck_assert_int_eq(s->prover_precompute, 0);
  scn_free(s);
  char *j = json_of("good-defaults.yaml", ov1, 1);
  ck_assert_ptr_nonnull(strstr(j, "\"prover\":{\"circuit\":null,\"constraints\":0,\"precompute\":20}"));
  free(j);
  j = json_of("good-defaults.yaml", ov2, 1);
  ck_assert_ptr_nonnull(strstr(j, "\"precompute\":\"auto\""));
  free(j);
  j = json_of("good-defaults.yaml", ov3, 1);
  ck_assert_ptr_null(strstr(j, "precompute"));
  free(j);

  ps_err e = load_fail("bad-precompute.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-precompute.yaml:6:15: prover.precompute: expected off, auto, or a window in bits from 2 "
                          "to 24 (e.g. 20), got \"fast\"");
  const char *b1[] = {"prover.precompute=1"}, *b2[] = {"prover.precompute=25"}, *b3[] = {"prover.precompute=20.5"},
             *b4[] = {"prover.precompute=\"auto\""}, *b5[] = {"prover.precompute=[20]"};
  e = load_fail("good-defaults.yaml", b1, 1);
  ck_assert_str_eq(e.msg, "--set prover.precompute=1: prover.precompute: expected off, auto, or a window in bits from "
                          "2 to 24 (e.g. 20), got 1");
  e = load_fail("good-defaults.yaml", b2, 1);
  ASSERT_ERR(e.msg, "--set prover.precompute=25: prover.precompute: ", "got 25");
  e = load_fail("good-defaults.yaml", b3, 1);
  ASSERT_ERR(e.msg, "--set prover.precompute=20.5: prover.precompute: ", "from 2 to 24");
  e = load_fail("good-defaults.yaml", b4, 1); /* a string, not the keyword */
  ASSERT_ERR(e.msg, "--set prover.precompute=\"auto\": prover.precompute: ", "expected off, auto");
  e = load_fail("good-defaults.yaml", b5, 1);
  ASSERT_ERR(e.msg, "--set prover.precompute=[20]: prover.precompute: ", "expected off, auto");
}
END_TEST

/* The model's gpu_memory and the scenario's system.gpu_mem_gib (plan's GPU memory bound):
 * read from a file or an override, on a model in a file or inline, echoed only when given;
 * a bad value names file, line, key and expectation. */
START_TEST(test_gpu_memory) {
  scenario *s = load_ok("good-gpu-memory.yaml", NULL, 0);
  ck_assert_int_eq(s->model->has_gpu_mem, 1);
  ck_assert_double_eq(s->model->gpu_shared_gib, 36.5);
  ck_assert_double_eq(s->model->gpu_worker_gib, 18.25);
  ck_assert_double_eq(s->model->gpu_part_gib, 8);
  ck_assert_double_eq(s->gpu_mem_gib, 140);
  /* K + w x (W + b x P), exactly (every figure a binary fraction). */
  ck_assert_double_eq(model_gpu_gib(s->model, 3, 2), 36.5 + 3 * (18.25 + 2 * 8));
  ck_assert_double_eq(model_gpu_gib(s->model, 1, 1), 62.75);
  ck_assert_double_eq(model_gpu_gib(s->model, 0, 4), 36.5);
  scn_free(s);
  char *j = json_of("good-gpu-memory.yaml", NULL, 0);
  ck_assert_ptr_nonnull(strstr(j, "\"gpu_memory\":{\"shared_gib\":36.5,\"per_worker_gib\":18.25,\"per_partition_gib\":8}"));
  ck_assert_ptr_nonnull(strstr(j, "\"gpu_mem_gib\":140"));
  free(j);
  /* Absent: zeros, and nothing in the echo. */
  s = load_ok("good-defaults.yaml", NULL, 0);
  ck_assert_int_eq(s->model->has_gpu_mem, 0);
  ck_assert_double_eq(model_gpu_gib(s->model, 8, 4), 0);
  ck_assert_double_eq(s->gpu_mem_gib, 0);
  scn_free(s);
  j = json_of("good-defaults.yaml", NULL, 0);
  ck_assert_ptr_null(strstr(j, "gpu_mem"));
  free(j);
  /* Overrides: the whole mapping or one key, on a model file and on an inline model;
   * per_partition_gib defaults to 0. */
  const char *o1[] = {"model.gpu_memory={shared_gib: 72, per_worker_gib: 52.25}", "system.gpu_mem_gib=140.5"};
  s = load_ok("good-defaults.yaml", o1, 2);
  ck_assert_int_eq(s->model->has_gpu_mem, 1);
  ck_assert_double_eq(model_gpu_gib(s->model, 2, 4), 72 + 2 * 52.25);
  ck_assert_double_eq(s->gpu_mem_gib, 140.5);
  scn_free(s);
  const char *o2[] = {"model.gpu_memory.per_partition_gib=16", "model.gpu_memory.shared_gib=0"};
  s = load_ok("good-gpu-memory.yaml", o2, 2);
  ck_assert_double_eq(model_gpu_gib(s->model, 2, 3), 2 * (18.25 + 3 * 16));
  scn_free(s);
  const char *o3[] = {"model.gpu_memory={shared_gib: 1, per_worker_gib: 2, per_partition_gib: 0.5}"};
  s = load_ok("good-inline.yaml", o3, 1);
  ck_assert_double_eq(model_gpu_gib(s->model, 2, 2), 1 + 2 * (2 + 2 * 0.5));
  scn_free(s);

  ps_err e = load_fail("bad-gpu-memory.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-gpu-memory.yaml:8:21: model.gpu_memory.per_worker_gib: expected a number >= 0, got -52.3");
  e = load_fail("bad-gpu-mem-gib.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-gpu-mem-gib.yaml:5:16: system.gpu_mem_gib: expected a number > 0, got \"140GiB\"");
  const char *b1[] = {"model.gpu_memory=36"}, *b2[] = {"model.gpu_memory.per_worker=1"},
             *b3[] = {"model.gpu_memory={shared_gib: 1}"}, *b4[] = {"model.gpu_memory.shared_gib=2e6"},
             *b5[] = {"system.gpu_mem_gib=0"}, *b6[] = {"system.gpu_mem_gib=1e7"},
             *b7[] = {"model.gpu_memory.shared_gib.x=1"},
             *b8[] = {"model.gpu_memory={shared_gib: 1, per_worker_gib: null}"},
             *b9[] = {"model.gpu_memory.shared_gib=\"36\""};
  e = load_fail("good-defaults.yaml", b1, 1);
  ck_assert_str_eq(e.msg, "--set model.gpu_memory=36: gpu_memory: expected a mapping {shared_gib: K, per_worker_gib: "
                          "W, per_partition_gib: P} (GiB per GPU), got 36");
  e = load_fail("good-defaults.yaml", b2, 1);
  ck_assert_str_eq(e.msg, "--set model.gpu_memory.per_worker=1: gpu_memory.per_worker: expected one of the keys "
                          "shared_gib, per_worker_gib, per_partition_gib, got unknown key \"per_worker\"");
  e = load_fail("good-defaults.yaml", b3, 1);
  ck_assert_str_eq(e.msg, "--set model.gpu_memory={shared_gib: 1}: gpu_memory.per_worker_gib: expected a number >= 0, "
                          "GiB per worker (its work buffers), got nothing");
  e = load_fail("good-defaults.yaml", b4, 1);
  ck_assert_str_eq(e.msg, "--set model.gpu_memory.shared_gib=2e6: gpu_memory.shared_gib: expected a number from 0 to "
                          "1000000 (GiB), got 2e6");
  e = load_fail("good-defaults.yaml", b5, 1);
  ck_assert_str_eq(e.msg, "--set system.gpu_mem_gib=0: system.gpu_mem_gib: expected a number > 0, got 0");
  e = load_fail("good-defaults.yaml", b6, 1);
  ck_assert_str_eq(e.msg, "--set system.gpu_mem_gib=1e7: system.gpu_mem_gib: expected a number > 0 and at most "
                          "1000000 (GiB of one GPU), got 1e7");
  e = load_fail("good-defaults.yaml", b7, 1);
  ASSERT_ERR(e.msg, "--set model.gpu_memory.shared_gib.x=1: model.gpu_memory.shared_gib.x: ",
             "expected a model key (model.name, model.source, model.gpu_memory.KEY, model.host_speed.sd, phases.NAME.KEY, scopes.NAME)");
  e = load_fail("good-defaults.yaml", b8, 1);
  ASSERT_ERR(e.msg, "--set model.gpu_memory={shared_gib: 1, per_worker_gib: null}: gpu_memory.per_worker_gib: ",
             "got null");
  e = load_fail("good-defaults.yaml", b9, 1);
  ASSERT_ERR(e.msg, "--set model.gpu_memory.shared_gib=\"36\": gpu_memory.shared_gib: ", "expected a number >= 0");
}
END_TEST

START_TEST(test_err_unknown_key) {
  ps_err e = load_fail("bad-unknown-key.yaml", NULL, 0);
  ASSERT_ERR(e.msg, "bad-unknown-key.yaml:5:3: system.wrokers_per_gpu: ",
             "expected one of the keys gpus, workers_per_gpu, cpu_cores, batch, mutex, gpu_sharing, cpu_sharing, threads, "
             "gpu_mem_gib, host_steal, got unknown key \"wrokers_per_gpu\"");
}
END_TEST

START_TEST(test_err_duplicate_key) {
  ps_err e = load_fail("bad-duplicate-key.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-duplicate-key.yaml:6:3: run.seed: expected each key once in a mapping, got \"seed\" a "
                          "second time");
}
END_TEST

START_TEST(test_err_wrong_type) {
  ps_err e = load_fail("bad-wrong-type.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-wrong-type.yaml:7:20: system.workers_per_gpu: expected an integer >= 1, got \"two\"");
}
END_TEST

START_TEST(test_err_out_of_range) {
  ps_err e = load_fail("bad-range.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-range.yaml:6:17: run.replications: expected an integer >= 1, got 0");
  /* warmup must leave partitions to measure. */
  const char *ov[] = {"run.warmup=10"};
  e = load_fail("good-defaults.yaml", ov, 1);
  ASSERT_ERR(e.msg, "--set run.warmup=10: run.warmup: ", "expected an integer from 0 to 9");
  const char *ov2[] = {"run.warmup=4", "run.cooldown=6"};
  e = load_fail("good-defaults.yaml", ov2, 2);
  ck_assert_str_eq(e.msg, "--set run.cooldown=6: run.cooldown: expected an integer from 0 to 5 "
                          "(workload.partitions - run.warmup - 1), got 6");
  const char *ov3[] = {"workload.partitions=150"};
  e = load_fail("good-full.yaml", ov3, 1);
  ck_assert_str_eq(e.msg, "--set workload.partitions=150: workload.partitions: expected an integer > "
                          "run.warmup + run.cooldown (150), got 150");
}
END_TEST

START_TEST(test_err_missing_key) {
  ps_err e = load_fail("bad-missing-key.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-missing-key.yaml:4:3: workload.partitions: expected an integer >= 1, got nothing");
}
END_TEST

START_TEST(test_err_unknown_phase_in_after) {
  model *m = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load_model("model-bad-after.yaml", &m, &e), PS_EINPUT);
  ck_assert_ptr_null(m);
  ck_assert_str_eq(e.msg, "model-bad-after.yaml:9:19: phases.msm.after[1]: expected the name of a phase of the model "
                          "(prep, msm), got \"nttt\"");
}
END_TEST

START_TEST(test_err_unknown_phase_in_scopes) {
  model *m = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load_model("model-bad-scope.yaml", &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "model-bad-scope.yaml:7:19: scopes.kernels.from: expected the name of a phase of the "
                          "model (prep, msm), got \"msn\"");
}
END_TEST

START_TEST(test_err_cycle) {
  model *m = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load_model("model-cycle.yaml", &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "model-cycle.yaml:6:12: phases.a.after: expected phases whose after lists form no cycle, "
                          "got the cycle a -> c -> b -> a (each waits for the next)");
  /* A cycle made by an override names the override. */
  const char *ov[] = {"phases.prep.after=[epilogue]"};
  e = load_fail("good-defaults.yaml", ov, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.after=[epilogue]: phases.prep.after: ",
             "got the cycle prep -> epilogue -> msm -> prep");
}
END_TEST

START_TEST(test_err_unknown_mutex_scope) {
  ps_err e = load_fail("bad-mutex.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-mutex.yaml:4:10: system.mutex: expected none, a scope of the model (call, kernels) "
                          "or {from: PHASE, to: PHASE}, got \"kernel\"");
}
END_TEST

START_TEST(test_err_missing_model_file) {
  ps_err e = load_fail("bad-missing-model.yaml", NULL, 0);
  ASSERT_ERR(e.msg, "bad-missing-model.yaml:2:8: model: ",
             "expected a readable model file, got \"../no/such-model.yaml\" (No such file or directory)");
  e = load_fail("no-such-scenario.yaml", NULL, 0);
  ASSERT_ERR(e.msg, "no-such-scenario.yaml: ", "expected a readable scenario file");
}
END_TEST

START_TEST(test_err_malformed_yaml) {
  ps_err e = load_fail("bad-malformed.yaml", NULL, 0);
  ASSERT_ERR(e.msg, "bad-malformed.yaml:5:2: yaml: ", "expected valid YAML, got a syntax error: ");
}
END_TEST

START_TEST(test_err_bad_override) {
  const char *ov1[] = {"system.batch=0"};
  ps_err e = load_fail("good-defaults.yaml", ov1, 1);
  ck_assert_str_eq(e.msg, "--set system.batch=0: system.batch: expected an integer >= 1, got 0");
  const char *ov2[] = {"system.wrkers=4"};
  e = load_fail("good-defaults.yaml", ov2, 1);
  ASSERT_ERR(e.msg, "--set system.wrkers=4: system.wrkers: ", "got unknown key \"wrkers\"");
  const char *ov3[] = {"system.mutex={from: prep"};
  e = load_fail("good-defaults.yaml", ov3, 1);
  ASSERT_ERR(e.msg, "--set system.mutex={from: prep: system.mutex: ", "expected valid YAML");
  const char *ov4[] = {"run.seed"};
  e = load_fail("good-defaults.yaml", ov4, 1);
  ASSERT_ERR(e.msg, "--set run.seed: ", "expected KEY=VALUE");
  const char *ov5[] = {"phases.nope.time=1"};
  e = load_fail("good-defaults.yaml", ov5, 1);
  ASSERT_ERR(e.msg, "--set phases.nope.time=1: phases.nope: ",
             "expected the name of a phase of the model (prep, ntt_h, msm, b_g2, epilogue), got \"nope\"");
  /* A missing intermediate mapping is created, and must then validate. */
  const char *ov6[] = {"workload.arrivals.proofs_per_hour=90"};
  e = load_fail("good-defaults.yaml", ov6, 1);
  ck_assert_str_eq(e.msg, "--set workload.arrivals.proofs_per_hour=90: workload.arrivals.process: expected one of "
                          "poisson, fixed (or trace: FILE), got nothing");
  const char *ov7[] = {"workload.partitions.x=1"};
  e = load_fail("good-defaults.yaml", ov7, 1);
  ck_assert_str_eq(e.msg, "--set workload.partitions.x=1: workload.partitions: expected a mapping to set x in, got 10");
  const char *ov8[] = {"model.colour=red"};
  e = load_fail("good-defaults.yaml", ov8, 1);
  ASSERT_ERR(e.msg, "--set model.colour=red: model.colour: ", "expected a model key");
  /* Later checks that an override makes fail name the override. */
  const char *ov9[] = {"phases.prep.threads=64"};
  e = load_fail("good-defaults.yaml", ov9, 1);
  ck_assert_str_eq(e.msg, "--set phases.prep.threads=64: phases.prep.threads: expected an integer from 1 to 32 "
                          "(system.cpu_cores), got 64");
  const char *ov10[] = {"system.batch=4"};
  e = load_fail("good-defaults.yaml", ov10, 1);
  ASSERT_ERR(e.msg, "--set system.batch=4: system.batch: ", "expected an integer from 1 to 3");
}
END_TEST

/* Every count has a bound, so an accepted scenario can run: the numbers that once made the
 * engine abort on allocation (176 GB of workers, 200 GB of replications) are input errors
 * that say what they would cost. */
START_TEST(test_err_counts_bounded) {
  const char *ov1[] = {"system.workers_per_gpu=2000000000"};
  ps_err e = load_fail("good-defaults.yaml", ov1, 1);
  ck_assert_str_eq(e.msg, "--set system.workers_per_gpu=2000000000: system.workers_per_gpu: expected an integer from 1 "
                          "to 1000000, got 2000000000");
  const char *ov2[] = {"run.replications=1000000000"};
  e = load_fail("good-defaults.yaml", ov2, 1);
  ck_assert_str_eq(e.msg, "--set run.replications=1000000000: run.replications: expected an integer from 1 to 1000000, "
                          "got 1000000000");
  const char *ov3[] = {"system.gpus=1000", "system.workers_per_gpu=2000"};
  e = load_fail("good-defaults.yaml", ov3, 2);
  ck_assert_msg(strstr(e.msg, "system.workers_per_gpu: expected at most 1000000 workers in all (gpus x workers_per_gpu; "
                              "1000 x 2000 would take about 992 MiB per simulation thread), got 2000"), "%s", e.msg);
  const char *ov4[] = {"system.gpus=1025"};
  e = load_fail("good-defaults.yaml", ov4, 1);
  ck_assert_msg(strstr(e.msg, "system.gpus: expected an integer from 1 to 1024, got 1025"), "%s", e.msg);
  const char *ov5[] = {"system.batch=100001"};
  e = load_fail("good-defaults.yaml", ov5, 1);
  ck_assert_msg(strstr(e.msg, "system.batch: expected an integer from 1 to 100000"), "%s", e.msg);
  const char *ov6[] = {"system.gpus=1000", "system.workers_per_gpu=1000"};
  scenario *s = load_ok("good-defaults.yaml", ov6, 2); /* exactly the bound */
  scn_free(s);
  /* Times: a const of 1e308 gave a report full of NaN. */
  const char *ov7[] = {"phases.epilogue.time={dist: const, value: 1e308}"};
  e = load_fail("good-defaults.yaml", ov7, 1);
  ck_assert_msg(strstr(e.msg, "phases.epilogue.time.value: expected a number from -1e9 to 1e9"), "%s", e.msg);
  const char *ov8[] = {"phases.epilogue.time={dist: lognormal, mu: 900, sigma: 1}"};
  e = load_fail("good-defaults.yaml", ov8, 1);
  ck_assert_msg(strstr(e.msg, "phases.epilogue.time: expected a distribution whose mean is at most 1e9 s"), "%s", e.msg);
}
END_TEST

START_TEST(test_busy_share) {
  /* A gpu phase may say which share of its time the GPU executes kernels (0 < busy <= 1,
   * default 1); other phases may not, and the messages say why. */
  const char *ok[] = {"phases.msm.busy=0.85"};
  char *j = json_of("good-defaults.yaml", ok, 1);
  ck_assert_ptr_nonnull(strstr(j, "\"name\":\"msm\""));
  ck_assert_ptr_nonnull(strstr(j, "\"busy\":0.85"));
  ck_assert_ptr_nonnull(strstr(j, "\"busy\":1"));
  free(j);
  const char *ov1[] = {"phases.msm.busy=0"};
  ps_err e = load_fail("good-defaults.yaml", ov1, 1);
  ck_assert_str_eq(e.msg, "--set phases.msm.busy=0: phases.msm.busy: expected a number > 0, got 0");
  const char *ov2[] = {"phases.msm.busy=1.5"};
  e = load_fail("good-defaults.yaml", ov2, 1);
  ASSERT_ERR(e.msg, "--set phases.msm.busy=1.5: phases.msm.busy: ", "expected a number > 0 and <= 1");
  const char *ov3[] = {"phases.prep.busy=0.5"};
  e = load_fail("good-defaults.yaml", ov3, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.busy=0.5: phases.prep.busy: ", "expected no busy: key on a cpu/pcie/none phase");
}
END_TEST


START_TEST(test_thread_policy) {
  /* threads: all takes the policy's threads per worker: (cores - kept) / workers by
   * default, all cores, or a fixed count; and needs a scaling law. */
  const char *a[] = {"phases.prep.threads=all", "phases.prep.scaling={serial: 0.1}", "system.cpu_cores=16",
                     "system.workers_per_gpu=2"};
  scenario *s = load_ok("good-defaults.yaml", a, 4);
  int p = scn_phase_index(s->model, "prep");
  ck_assert_int_eq(s->model->phases[p].threads, 7);
  ck_assert_int_eq(s->model->phases[p].law, SCALE_AMDAHL);
  ck_assert(fabs(s->model->phases[p].serial - 0.1) < 1e-12);
  scn_free(s);
  const char *b[] = {"phases.prep.threads=all", "phases.prep.scaling={serial: 0.1}", "system.cpu_cores=16",
                     "system.workers_per_gpu=2", "system.threads={per_worker: share, keep_core: false}"};
  s = load_ok("good-defaults.yaml", b, 5);
  ck_assert_int_eq(s->model->phases[p].threads, 8);
  scn_free(s);
  const char *c[] = {"phases.prep.threads=all", "phases.prep.scaling={table: {threads: [1, 4], speedup: [1, 3]}}",
                     "system.cpu_cores=6", "system.threads={per_worker: all}", "system.workers_per_gpu=3"};
  s = load_ok("good-defaults.yaml", c, 5);
  ck_assert_int_eq(s->model->phases[p].threads, 6);
  ck_assert_int_eq(s->model->phases[p].law, SCALE_TABLE);
  ck_assert_int_eq(s->model->phases[p].ntab, 2);
  scn_free(s);
  const char *d[] = {"phases.prep.threads=all"};
  ps_err e = load_fail("good-defaults.yaml", d, 1);
  ck_assert_ptr_nonnull(strstr(e.msg, "expected a scaling law for a phase with threads: all"));
  const char *f[] = {"phases.msm.scaling={serial: 0.5}"};
  e = load_fail("good-defaults.yaml", f, 1);
  ASSERT_ERR(e.msg, "--set phases.msm.scaling={serial: 0.5}: phases.msm.scaling: ", "expected no scaling: key on a gpu");
  const char *g[] = {"phases.prep.scaling={table: {threads: [2, 4], speedup: [1, 2]}}"};
  e = load_fail("good-defaults.yaml", g, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.scaling={table: {threads: [2, 4], speedup: [1, 2]}}: phases.prep.scaling.table.threads[0]: ",
             "expected 1 (the table starts at one core)");
  const char *h[] = {"phases.prep.scaling={serial: 1.5}"};
  e = load_fail("good-defaults.yaml", h, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.scaling={serial: 1.5}: phases.prep.scaling.serial: ", "expected a number from 0 to 1");
  /* batch.serial: each batch size's Amdahl share, on a phase with Amdahl's law, one per
   * multiplier, the first the phase's own, each from 0 to 1; the multiplier at the
   * phase's threads is scale * amdahl(batch serial) / amdahl(serial). */
  const char *bs[] = {"phases.prep.threads=4", "phases.prep.scaling={serial: 0.2}",
                      "phases.prep.batch={scale: [1, 1.5], serial: [0.2, 0.6]}", "system.batch=2"};
  s = load_ok("good-defaults.yaml", bs, 4);
  const phase *bp = &s->model->phases[p];
  ck_assert_ptr_nonnull(bp->bserial);
  ck_assert_double_eq_tol(phase__batch_scale(bp, 2), 1.5 * (0.6 + 0.4 / 4) / (0.2 + 0.8 / 4), 1e-12);
  ck_assert_double_eq_tol(phase__batch_scale(bp, 4), 3.0 * (0.6 + 0.4 / 4) / (0.2 + 0.8 / 4), 1e-12);
  scn_free(s);
  const char *bs1[] = {"phases.prep.batch={scale: [1, 1.5], serial: [0.2, 0.6]}"};
  e = load_fail("good-defaults.yaml", bs1, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.batch={scale: [1, 1.5], serial: [0.2, 0.6]}: phases.prep.batch.serial: ", "expected no batch.serial on a phase without scaling: {serial: F}");
  const char *bs2[] = {"phases.prep.threads=4", "phases.prep.scaling={serial: 0.2}",
                       "phases.prep.batch={scale: [1, 1.5], serial: [0.2]}"};
  e = load_fail("good-defaults.yaml", bs2, 3);
  ASSERT_ERR(e.msg, "--set phases.prep.batch={scale: [1, 1.5], serial: [0.2]}: phases.prep.batch.serial: ", "expected a list of 2 numbers from 0 to 1, one for each multiplier");
  const char *bs3[] = {"phases.prep.threads=4", "phases.prep.scaling={serial: 0.2}",
                       "phases.prep.batch={scale: [1, 1.5], serial: [0.25, 0.6]}"};
  e = load_fail("good-defaults.yaml", bs3, 3);
  ASSERT_ERR(e.msg, "--set phases.prep.batch={scale: [1, 1.5], serial: [0.25, 0.6]}: phases.prep.batch.serial[0]: ", "expected 0.2, the phase's scaling.serial");
  const char *bs4[] = {"phases.prep.threads=4", "phases.prep.scaling={serial: 0.2}",
                       "phases.prep.batch={scale: [1, 1.5], serial: [0.2, 1.5]}"};
  e = load_fail("good-defaults.yaml", bs4, 3);
  ASSERT_ERR(e.msg, "--set phases.prep.batch={scale: [1, 1.5], serial: [0.2, 1.5]}: phases.prep.batch.serial[1]: ", "expected a number from 0 to 1");
  const char *i[] = {"system.threads={per_worker: 0}"};
  e = load_fail("good-defaults.yaml", i, 1);
  ASSERT_ERR(e.msg, "--set system.threads={per_worker: 0}: system.threads.per_worker: ", "expected share");
  const char *k[] = {"phases.prep.host_threads=1"};
  e = load_fail("good-defaults.yaml", k, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.host_threads=1: phases.prep.host_threads: ", "expected no host_threads: key on a cpu");
  const char *l[] = {"phases.msm.host_threads=1"};
  s = load_ok("good-defaults.yaml", l, 1);
  ck_assert_double_eq(s->model->phases[scn_phase_index(s->model, "msm")].host_threads, 1);
  scn_free(s);
  /* A fraction of a thread (probe 11 measured about 1.24); more than 64, or below 0, is refused. */
  const char *l2[] = {"phases.msm.host_threads=1.25"};
  s = load_ok("good-defaults.yaml", l2, 1);
  ck_assert_double_eq(s->model->phases[scn_phase_index(s->model, "msm")].host_threads, 1.25);
  scn_free(s);
  const char *l3[] = {"phases.msm.host_threads=64.5"};
  e = load_fail("good-defaults.yaml", l3, 1);
  ASSERT_ERR(e.msg, "--set phases.msm.host_threads=64.5: phases.msm.host_threads: ", "expected a number from 0 to 64");
  const char *l4[] = {"phases.msm.host_threads=-1"};
  e = load_fail("good-defaults.yaml", l4, 1);
  ASSERT_ERR(e.msg, "--set phases.msm.host_threads=-1: phases.msm.host_threads: ", "expected a number >= 0");
  /* A tagged scalar is a string, as a quoted one is: `!!str 2` is no thread count. */
  const char *t2[] = {"phases.prep.threads=!!str 2"};
  e = load_fail("good-defaults.yaml", t2, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.threads=!!str 2: phases.prep.threads: ", "expected an integer from 1");
  const char *j[] = {"phases.prep.threads=many"};
  e = load_fail("good-defaults.yaml", j, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.threads=many: phases.prep.threads: ", "or all (the worker's threads");
}
END_TEST

START_TEST(test_err_bad_distribution) {
  model *m = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load_model("model-bad-dist.yaml", &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "model-bad-dist.yaml:5:35: phases.prep.time.mean: expected mean > 0, got -1.5");
  /* Through a scenario, the error names the model file and its positions. */
  e = load_fail("bad-model-in-file.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "model-bad-dist.yaml:5:35: phases.prep.time.mean: expected mean > 0, got -1.5");
  const char *ov1[] = {"phases.b_g2.time.max=0.1"};
  e = load_fail("good-defaults.yaml", ov1, 1);
  ck_assert_str_eq(e.msg, "--set phases.b_g2.time.max=0.1: phases.b_g2.time.max: expected max >= min, got 0.1");
  const char *ov2[] = {"phases.prep.time={dist: weibull, mean: 1}"};
  e = load_fail("good-defaults.yaml", ov2, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.time={dist: weibull, mean: 1}: phases.prep.time.dist: ",
             "expected one of const, uniform, normal, lognormal, gamma, exponential, empirical, got \"weibull\"");
  const char *ov3[] = {"phases.prep.time={dist: lognormal, mean: 1, cv: 0.1, sigma: 2}"};
  e = load_fail("good-defaults.yaml", ov3, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.time={dist: lognormal, mean: 1, cv: 0.1, sigma: 2}: phases.prep.time.sigma: ",
             "expected either {mean, cv} or {mu, sigma}");
  const char *ov4[] = {"phases.prep.time={dist: normal, mean: 1}"};
  e = load_fail("good-defaults.yaml", ov4, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.time={dist: normal, mean: 1}: phases.prep.time.sd: ", "expected a number, got nothing");
}
END_TEST

START_TEST(test_err_empirical_spans) {
  model *m = NULL;
  ps_err e = {0};
  ck_assert_int_eq(scn_load_model("bad-empirical-phase.yaml", &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "bad-empirical-phase.yaml:5:55: phases.prep.time.phase: expected a phase with spans in "
                          "spans.jsonl, got \"nope\" (no span has that phase)");
  const char *ov[] = {"phases.prep.time={dist: empirical, file: missing.jsonl, phase: prep}"};
  e = load_fail("good-defaults.yaml", ov, 1);
  ASSERT_ERR(e.msg, "--set phases.prep.time={dist: empirical, file: missing.jsonl, phase: prep}: phases.prep.time.file: ",
             "expected a readable provesim.spans/1 file, got \"missing.jsonl\"");
}
END_TEST

/* ---- the arrivals measure draws (arrivals.h) -------------------------------------- */

START_TEST(test_arrivals_measured) {
  int64_t n;
  /* a closed backlog has none */
  scenario *s = load_ok("good-defaults.yaml", NULL, 0);
  ck_assert_ptr_null(arrivals_measured(s, 1, 0, &n));
  ck_assert_int_eq(n, 0);
  scn_free(s);
  /* evenly spaced: proof k at k * 3600 / rate; 7 partitions of 2 per proof are 4 proofs */
  const char *fx[] = {"workload.arrivals={process: fixed, proofs_per_hour: 7200, partitions_per_proof: 2}",
                      "workload.partitions=7"};
  s = load_ok("good-defaults.yaml", fx, 2);
  double *t = arrivals_measured(s, 1, 0, &n);
  ck_assert_int_eq(n, 4);
  for (int k = 0; k < 4; k++) ck_assert_double_eq_tol(t[k], 0.5 * k, 1e-12);
  free(t);
  scn_free(s);
  /* a trace: its own first times */
  s = load_ok("trace-good.yaml", NULL, 0);
  t = arrivals_measured(s, 1, 0, &n);
  ck_assert_int_eq(n, 4);
  for (int k = 0; k < 4; k++) ck_assert_double_eq(t[k], s->trace_t[k]);
  free(t);
  scn_free(s);
  /* Poisson: the same seed and replication give the same times; another seed or
   * replication others; the gaps' mean is 3600 / rate (20000 gaps: within 4 sd) */
  const char *po[] = {"workload.arrivals={process: poisson, proofs_per_hour: 3600}", "workload.partitions=20001"};
  s = load_ok("good-defaults.yaml", po, 2);
  double *a = arrivals_measured(s, 5, 0, &n), *b = arrivals_measured(s, 5, 0, &n), *c = arrivals_measured(s, 6, 0, &n),
         *d = arrivals_measured(s, 5, 1, &n);
  ck_assert_int_eq(n, 20001);
  ck_assert_double_eq(a[0], 0);
  ck_assert_int_eq(memcmp(a, b, (size_t)n * sizeof *a), 0);
  ck_assert(a[1] != c[1] && a[1] != d[1]);
  for (int64_t k = 1; k < n; k++) ck_assert(a[k] >= a[k - 1]);
  ck_assert_double_eq_tol(a[n - 1] / (double)(n - 1), 1.0, 4 / sqrt(20000.0));
  free(a), free(b), free(c), free(d);
  scn_free(s);
}
END_TEST

/* ---- arrival traces ------------------------------------------------------------- */

START_TEST(test_trace) {
  /* CSV: the column time_s among others, a blank line, a quoted value, spaces, two
   * arrivals at one time; partitions default to arrivals x partitions_per_proof. */
  scenario *s = load_ok("trace-good.yaml", NULL, 0);
  const double raw[] = {0, 1.5, 1.5, 4.25};
  ck_assert_int_eq(s->arrivals, ARR_TRACE);
  ck_assert_int_eq(s->ntrace, 4);
  for (int i = 0; i < 4; i++) ck_assert_double_eq(s->trace_t[i], raw[i]);
  ck_assert_int_eq(s->partitions, 8);
  ck_assert_str_eq(s->trace_path, "arrivals-good.csv");
  ck_assert_double_eq(s->rate_scale, 1);
  scn_free(s);
  /* rate_scale divides every gap; JSON Lines ({"t"} or {"time_s"}); fewer partitions. */
  const char *ov[] = {"workload.arrivals.rate_scale=2", "workload.arrivals.trace=arrivals-good.jsonl",
                      "workload.partitions=5"};
  s = load_ok("trace-good.yaml", ov, 3);
  ck_assert_int_eq(s->ntrace, 4);
  for (int i = 0; i < 4; i++) ck_assert_double_eq(s->trace_t[i], raw[i] / 2);
  for (int i = 1; i < 4; i++) ck_assert_double_eq(s->trace_t[i] - s->trace_t[i - 1], (raw[i] - raw[i - 1]) / 2);
  ck_assert_int_eq(s->partitions, 5);
  cJSON *j = scn_to_json(s);
  char *txt = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "workload"), "arrivals"));
  ck_assert_str_eq(txt, "{\"process\":\"trace\",\"trace\":\"arrivals-good.jsonl\",\"rate_scale\":2,\"arrivals\":4,"
                        "\"arrivals_used\":3,\"first_s\":0,\"last_s\":0.75,\"partitions_per_proof\":2}");
  free(txt);
  cJSON_Delete(j);
  scn_free(s);
}
END_TEST

START_TEST(test_err_trace) {
  /* In the scenario file: the key's position, then the trace's file and line. */
  ps_err e = load_fail("bad-trace.yaml", NULL, 0);
  ck_assert_str_eq(e.msg, "bad-trace.yaml:7:21: workload.arrivals.trace: arrivals-bad-order.csv:4: expected times in "
                          "nondecreasing order, got 1 after 2");
  static const struct {
    const char *file, *msg;
  } bad[] = {
      {"arrivals-bad-number.csv", "arrivals-bad-number.csv:4: expected a number of seconds, got \"soon\""},
      {"arrivals-bad-negative.csv", "arrivals-bad-negative.csv:2: expected a time >= 0 (seconds from the start), got \"-1\""},
      {"arrivals-empty.csv", "arrivals-empty.csv: expected at least one arrival, got an empty file"},
      {"arrivals-no-column.csv", "arrivals-no-column.csv:1: expected a CSV header with a column t or time_s (seconds "
                                 "from the start), or JSON Lines of objects {\"t\": seconds}, got \"when,what\""},
      {"arrivals-bad.jsonl", "arrivals-bad.jsonl:2: expected a JSON object with a number \"t\" (seconds from the "
                             "start), got \"{\"s\": 3}\""},
      {"missing.csv", "expected a readable arrivals file (CSV or JSON Lines), got \"missing.csv\" (No such file or "
                      "directory)"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *o = xasprintf("workload.arrivals.trace=%s", bad[i].file);
    const char *ov[] = {o};
    e = load_fail("trace-good.yaml", ov, 1);
    char *want = xasprintf("--set %s: workload.arrivals.trace: %s", o, bad[i].msg);
    ck_assert_str_eq(e.msg, want);
    free(want);
    free(o);
  }
  /* More partitions than the trace brings, a process beside it, a scale without it. */
  const char *ov1[] = {"workload.partitions=9"};
  e = load_fail("trace-good.yaml", ov1, 1);
  ck_assert_str_eq(e.msg, "--set workload.partitions=9: workload.partitions: expected an integer from 1 to 8 (the "
                          "trace's 4 arrivals x 2 partitions per proof), got 9");
  const char *ov2[] = {"workload.arrivals.proofs_per_hour=90"};
  e = load_fail("trace-good.yaml", ov2, 1);
  ASSERT_ERR(e.msg, "--set workload.arrivals.proofs_per_hour=90: workload.arrivals.proofs_per_hour: ",
             "expected no proofs_per_hour beside workload.arrivals.trace");
  const char *ov3[] = {"workload.arrivals={process: poisson, proofs_per_hour: 9, rate_scale: 2}"};
  e = load_fail("trace-good.yaml", ov3, 1);
  ASSERT_ERR(e.msg, "--set workload.arrivals={process: poisson, proofs_per_hour: 9, rate_scale: 2}: "
                    "workload.arrivals.rate_scale: ", "expected no rate_scale without workload.arrivals.trace");
  const char *ov4[] = {"workload.arrivals.rate_scale=0"};
  e = load_fail("trace-good.yaml", ov4, 1);
  ASSERT_ERR(e.msg, "--set workload.arrivals.rate_scale=0: workload.arrivals.rate_scale: ",
             "expected a number from 0.001 to 1000");
  const char *ov5[] = {"run.warmup=8"};
  e = load_fail("trace-good.yaml", ov5, 1);
  ck_assert_str_eq(e.msg, "--set run.warmup=8: run.warmup: expected an integer from 0 to 7 (fewer than "
                          "workload.partitions, 8), got 8");
}
END_TEST

/* run.warmup: auto (the simulator chooses it); anything else but an integer is refused. */
START_TEST(test_warmup_auto) {
  const char *ov[] = {"run.warmup=auto", "run.cooldown=3"};
  scenario *s = load_ok("trace-good.yaml", ov, 2);
  ck_assert_int_eq(s->warmup_auto, 1);
  ck_assert_int_eq(s->warmup, 0);
  cJSON *j = scn_to_json(s);
  char *txt = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "run"));
  ck_assert_str_eq(txt, "{\"warmup\":0,\"warmup_auto\":\"mser-5\",\"cooldown\":3,\"replications\":1,\"seed\":1}");
  free(txt);
  cJSON_Delete(j);
  scn_free(s);
  const char *bad[] = {"run.warmup=\"auto\"", "run.warmup=-1", "run.warmup=[auto]"};
  for (int i = 0; i < 3; i++) {
    ps_err e = load_fail("trace-good.yaml", &bad[i], 1);
    ck_assert_msg(strstr(e.msg, ": run.warmup: expected an integer >= 0, or auto (chosen by MSER-5 from a pilot run), "
                                "got "), "%s", e.msg);
  }
}
END_TEST

/* A trace is bounded: lines of at most 1 MiB, at most 10 million arrivals. */
START_TEST(test_err_trace_bounds) {
  char dir[] = "/tmp/provesim-trace-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char *longf = xasprintf("%s/long.csv", dir), *manyf = xasprintf("%s/many.csv", dir);
  FILE *f = fopen(longf, "w");
  fputs("t\n0\n", f);
  for (long i = 0; i < (1L << 20) + 1; i++) fputc('1', f);
  fputs("\n", f);
  fclose(f);
  f = fopen(manyf, "w");
  fputs("t\n", f);
  for (long i = 0; i < 10000001L; i++) fputs("0\n", f);
  fclose(f);
  char *o1 = xasprintf("workload.arrivals.trace=%s", longf), *o2 = xasprintf("workload.arrivals.trace=%s", manyf);
  const char *ov1[] = {o1}, *ov2[] = {o2};
  ps_err e = load_fail("trace-good.yaml", ov1, 1);
  char *want = xasprintf("--set %s: workload.arrivals.trace: %s:3: expected lines of at most 1 MiB, got a longer one",
                         o1, longf);
  ck_assert_str_eq(e.msg, want);
  free(want);
  e = load_fail("trace-good.yaml", ov2, 1);
  want = xasprintf("--set %s: workload.arrivals.trace: %s:10000002: expected at most 10000000 arrivals, got more", o2,
                   manyf);
  ck_assert_str_eq(e.msg, want);
  free(want);
  unlink(longf);
  unlink(manyf);
  rmdir(dir);
  free(o1), free(o2), free(longf), free(manyf);
}
END_TEST

static Suite *scn_suite(void) {
  Suite *s = suite_create("scn");
  TCase *ok = tcase_create("load");
  tcase_add_test(ok, test_defaults);
  tcase_add_test(ok, test_host_steal);
  tcase_add_test(ok, test_arrivals_measured);
  tcase_add_test(ok, test_full);
  tcase_add_test(ok, test_after_chaining_and_inline);
  tcase_add_test(ok, test_mutex_default_none_and_region_override);
  tcase_add_test(ok, test_overrides);
  tcase_add_test(ok, test_empirical);
  tcase_add_test(ok, test_json_stable);
  tcase_add_test(ok, test_threads);
  tcase_add_test(ok, test_trace);
  tcase_add_test(ok, test_warmup_auto);
  suite_add_tcase(s, ok);
  TCase *err = tcase_create("errors");
  tcase_add_test(err, test_err_unknown_key);
  tcase_add_test(err, test_err_duplicate_key);
  tcase_add_test(err, test_err_wrong_type);
  tcase_add_test(err, test_err_out_of_range);
  tcase_add_test(err, test_err_missing_key);
  tcase_add_test(err, test_err_unknown_phase_in_after);
  tcase_add_test(err, test_err_unknown_phase_in_scopes);
  tcase_add_test(err, test_err_cycle);
  tcase_add_test(err, test_err_unknown_mutex_scope);
  tcase_add_test(err, test_err_missing_model_file);
  tcase_add_test(err, test_err_malformed_yaml);
  tcase_add_test(err, test_err_bad_override);
  tcase_add_test(err, test_err_counts_bounded);
  tcase_add_test(err, test_err_bad_distribution);
  tcase_add_test(err, test_busy_share);
  tcase_add_test(err, test_thread_policy);
  tcase_add_test(err, test_err_empirical_spans);
  tcase_add_test(err, test_err_trace);
  tcase_add_test(err, test_err_trace_bounds);
  tcase_add_test(err, test_prover_precompute);
  tcase_add_test(err, test_gpu_memory);
  suite_add_tcase(s, err);
  return s;
}

int main(void) {
  const char *src = getenv("PROVESIM_SRC");
  char *dir = src ? xasprintf("%s/tests/data/scn", src) : NULL;
  if (chdir(dir ? dir : "tests/data/scn") != 0) {
    fprintf(stderr, "test_scn: cannot enter the fixture folder (set PROVESIM_SRC)\n");
    free(dir);
    return 1;
  }
  free(dir);
  SRunner *sr = srunner_create(scn_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}
