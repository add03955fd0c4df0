/* Check suite of sim/analytic.c. Expected values were computed independently of this
 * code, with a short Python script that solves each model a different way: the
 * machine-repairman queue from its birth-death balance equations (in exact rational
 * arithmetic for the large cases), and closed networks by enumerating every state of the
 * product-form solution (Gordon-Newell / BCMP: P(n_1..n_K) proportional to
 * prod_k f_k(n_k), f = D^n/n! for a delay, D^n for a queue, D^n / prod_{j<=n} min(j,c)
 * for c servers; X(N) = G(N-1)/G(N)). */
#include "ck.h"
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "analytic.h"

/* ---------------------------------------------------------------- machine repairman */

/* The textbook case of issue 3: M/M/2//3 with Z = 2, S = 0.25. By hand: with rho = S/Z,
 * p_k/p_0 = 1, 3 rho = 0.375, 0.375 * 2 rho / 2 = 0.046875, 0.046875 * rho / 2 =
 * 0.0029296875, so p0 = 1/1.4248046875 = 0.701851 and X = p0 (0.375*4 + 0.046875*8 +
 * 0.0029296875*8) = 1.332419 (Gross & Harris, finite-source M/M/c/K/K, section 2.8). */
START_TEST(repairman_textbook) {
  double p[4];
  an_repairman r;
  ck_assert_int_eq(an_repairman_solve(3, 2, 2.0, 0.25, p, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(r.p0, 0.701851, 1e-6);
  ck_assert_double_eq_tol(r.throughput, 1.332419, 1e-6);
  ck_assert_double_eq_tol(p[0], 0.701850582591, 1e-11);
  ck_assert_double_eq_tol(p[1], 0.263193968472, 1e-11);
  ck_assert_double_eq_tol(p[2], 0.0328992460589, 1e-11);
  ck_assert_double_eq_tol(p[3], 0.00205620287868, 1e-11);
  ck_assert_double_eq_tol(r.utilization, 0.166552433173, 1e-11); /* X S / c */
  ck_assert_double_eq_tol(r.response, 0.251543209877, 1e-11);    /* N/X - Z */
  ck_assert_double_eq_tol(r.queue_len, 0.335161069225, 1e-11);
  ck_assert_double_eq_tol(r.waiting_len, 0.00205620287868, 1e-11);
  /* Little's law at the station and the interactive response time law. */
  ck_assert_double_eq_tol(r.queue_len, r.throughput * r.response, 1e-12);
  ck_assert_double_eq_tol(3.0, r.throughput * (r.response + 2.0), 1e-12);
}
END_TEST

/* c = 1: utilization = 1 - p0 with p0 = [sum_{n=0..N} N!/(N-n)! (S/Z)^n]^-1 (issue 2).
 * N = 5, Z = 4, S = 1: the sum is 1 + 5/4 + 20/16 + 60/64 + 120/256 + 120/1024 = 5.0234375. */
START_TEST(repairman_single_server) {
  an_repairman r;
  ck_assert_int_eq(an_repairman_solve(5, 1, 4.0, 1.0, NULL, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(r.p0, 1 / 5.0234375, 1e-12);
  ck_assert_double_eq_tol(r.utilization, 1 - r.p0, 1e-12);
  ck_assert_double_eq_tol(r.throughput, 0.800933125972, 1e-11);
  ck_assert_double_eq_tol(r.response, 2.2427184466, 1e-10);
  ck_assert_double_eq_tol(r.waiting_len, 0.99533437014, 1e-10);
}
END_TEST

START_TEST(repairman_more_cases) {
  an_repairman r;
  double p[11];
  ck_assert_int_eq(an_repairman_solve(10, 3, 5.0, 1.2, p, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(p[0], 0.107790401071, 1e-11);
  ck_assert_double_eq_tol(p[4], 0.100134350696, 1e-11);
  ck_assert_double_eq_tol(p[10], 1.88997258448e-05, 1e-15);
  ck_assert_double_eq_tol(r.throughput, 1.56653512672, 1e-10);
  ck_assert_double_eq_tol(r.utilization, 0.626614050689, 1e-11);
  ck_assert_double_eq_tol(r.waiting_len, 0.28748221432, 1e-10);
  double sum = 0;
  for (int k = 0; k <= 10; k++) sum += p[k];
  ck_assert_double_eq_tol(sum, 1.0, 1e-14);

  /* One customer: it alternates Z and S, so X = 1/(Z+S). */
  ck_assert_int_eq(an_repairman_solve(1, 1, 1.0, 1.0, NULL, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(r.throughput, 0.5, 1e-15);
  ck_assert_double_eq_tol(r.response, 1.0, 1e-15);

  /* No think time: the station always holds all N, so X = min(N, c)/S. */
  ck_assert_int_eq(an_repairman_solve(4, 3, 0.0, 2.0, p, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(r.throughput, 1.5, 1e-15);
  ck_assert_double_eq_tol(p[4], 1.0, 1e-15);
  ck_assert_double_eq_tol(r.p0, 0.0, 1e-15);
}
END_TEST

/* Heavy load, where the unscaled terms N!/(N-n)! (S/Z)^n reach 1e80: exact rational
 * arithmetic gives p0 = 1.0684007903750887e-09, X = 2.666666505592783 for M/M/4//60 with
 * Z = 10, S = 1.5, and p0 = 6.640263745781608e-07, X = 7.99365772861328 for M/M/8//200
 * with Z = 20, S = 1. */
START_TEST(repairman_large) {
  an_repairman r;
  ck_assert_int_eq(an_repairman_solve(60, 4, 10.0, 1.5, NULL, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(r.p0 / 1.0684007903750887e-09, 1.0, 1e-9);
  ck_assert_double_eq_tol(r.throughput, 2.666666505592783, 1e-10);
  ck_assert_double_eq_tol(r.response, 12.500001359060978, 1e-8);
  ck_assert_int_eq(an_repairman_solve(200, 8, 20.0, 1.0, NULL, &r, NULL), PS_OK);
  ck_assert_double_eq_tol(r.p0 / 6.640263745781608e-07, 1.0, 1e-9);
  ck_assert_double_eq_tol(r.throughput, 7.99365772861328, 1e-10);
}
END_TEST

START_TEST(repairman_errors) {
  an_repairman r = {.p0 = -7};
  ps_err e;
  ck_assert_int_eq(an_repairman_solve(0, 1, 1, 1, NULL, &r, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "repairman: customers: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_repairman_solve(2, 0, 1, 1, NULL, &r, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "repairman: servers: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_repairman_solve(2, 1, -1, 1, NULL, &r, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "repairman: think time: expected a finite number >= 0, got -1");
  ck_assert_int_eq(an_repairman_solve(2, 1, 1, 0, NULL, &r, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "repairman: service time: expected a finite number > 0, got 0");
  ck_assert_int_eq(an_repairman_solve(2, 1, 1, NAN, NULL, &r, NULL), PS_EINPUT);
  ck_assert_double_eq(r.p0, -7); /* a failing call writes nothing */
}
END_TEST

/* ---------------------------------------------------------------- MVA */

/* A single exponential queue with a delay is the M/M/1//N repairman; a c-server station
 * with a delay is M/M/c//N. MVA must give the same throughput and response for every
 * population (Lazowska et al., QSP, section 6.3 and chapter 20). */
START_TEST(mva_equals_repairman) {
  const double z = 4.0, s = 1.0;
  an_station st[2] = {{AN_DELAY, z, 0}, {AN_QUEUE, s, 0}};
  an_mva m;
  ck_assert_int_eq(an_mva_solve(st, 2, 12, &m, NULL), PS_OK);
  for (int n = 1; n <= 12; n++) {
    an_repairman r;
    ck_assert_int_eq(an_repairman_solve(n, 1, z, s, NULL, &r, NULL), PS_OK);
    ck_assert_double_eq_tol(m.throughput[n], r.throughput, 1e-12);
    ck_assert_double_eq_tol(m.response[n], r.response, 1e-11);
    ck_assert_double_eq_tol(AN_MVA_AT(&m, utilization, n, 1), 1 - r.p0, 1e-12);
    ck_assert_double_eq_tol(AN_MVA_AT(&m, queue, n, 1), r.queue_len, 1e-11);
  }
  an_mva_free(&m);

  /* The load-dependent station: the textbook M/M/2//3 again, through MVA. */
  an_station st2[2] = {{AN_DELAY, 2.0, 0}, {AN_MULTI, 0.25, 2}};
  ck_assert_int_eq(an_mva_solve(st2, 2, 3, &m, NULL), PS_OK);
  ck_assert_double_eq_tol(m.throughput[3], 1.332419, 1e-6);
  ck_assert_double_eq_tol(m.throughput[3], 1.33241946539, 1e-11);
  ck_assert_double_eq_tol(m.response[3], 0.251543209877, 1e-11);
  ck_assert_double_eq_tol(AN_MVA_AT(&m, utilization, 3, 1), 0.166552433173, 1e-11);
  an_mva_free(&m);

  /* Heavy load on a multi-server station, where p(0|n) comes from a subtraction. */
  an_station st3[2] = {{AN_DELAY, 10.0, 0}, {AN_MULTI, 1.5, 4}};
  ck_assert_int_eq(an_mva_solve(st3, 2, 60, &m, NULL), PS_OK);
  ck_assert_double_eq_tol(m.throughput[60], 2.666666505592783, 1e-9);
  for (int n = 1; n <= 60; n += 7) {
    an_repairman r;
    ck_assert_int_eq(an_repairman_solve(n, 4, 10.0, 1.5, NULL, &r, NULL), PS_OK);
    ck_assert_double_eq_tol(m.throughput[n], r.throughput, 1e-9);
    ck_assert_double_eq_tol(m.response[n], r.response, 1e-8);
  }
  an_mva_free(&m);
}
END_TEST

/* Delay 3 + queues 0.4 and 0.25 + a 4-core station of demand 2, against the enumerated
 * product-form solution. */
START_TEST(mva_network) {
  an_station st[4] = {{AN_DELAY, 3.0, 0}, {AN_QUEUE, 0.4, 0}, {AN_QUEUE, 0.25, 0}, {AN_MULTI, 2.0, 4}};
  static const struct {
    int n;
    double x, q[4];
  } want[] = {
      {1, 0.176991150442, {0.530973451327, 0.070796460177, 0.0442477876106, 0.353982300885}},
      {2, 0.351532120081, {1.05459636024, 0.150567739928, 0.0917716596671, 0.703064240162}},
      {5, 0.855539706171, {2.56661911851, 0.459718998184, 0.256159422738, 1.71750246056}},
      {8, 1.29442411845, {3.88327235534, 0.899745183404, 0.447199752484, 2.76978270877}},
  };
  an_mva m;
  ck_assert_int_eq(an_mva_solve(st, 4, 8, &m, NULL), PS_OK);
  ck_assert_int_eq(m.npop, 8);
  ck_assert_int_eq(m.nstations, 4);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int n = want[i].n;
    ck_assert_double_eq_tol(m.throughput[n], want[i].x, 1e-11);
    double qsum = 0;
    for (int k = 0; k < 4; k++) {
      ck_assert_double_eq_tol(AN_MVA_AT(&m, queue, n, k), want[i].q[k], 1e-10);
      qsum += AN_MVA_AT(&m, queue, n, k);
    }
    ck_assert_double_eq_tol(qsum, n, 1e-11);
    ck_assert_double_eq_tol(m.response[n], n / m.throughput[n] - 3.0, 1e-11);
    /* Utilization law: U = X D, per server for the 4-core station. */
    ck_assert_double_eq_tol(AN_MVA_AT(&m, utilization, n, 1), m.throughput[n] * 0.4, 1e-12);
    ck_assert_double_eq_tol(AN_MVA_AT(&m, utilization, n, 3), m.throughput[n] * 2.0 / 4, 1e-12);
  }
  an_mva_free(&m);
  an_mva_free(&m); /* freeing twice, or NULL, is harmless */
  an_mva_free(NULL);
}
END_TEST

START_TEST(mva_errors) {
  an_station st[2] = {{AN_DELAY, 1.0, 0}, {AN_MULTI, 1.0, 0}};
  an_mva m;
  ps_err e;
  ck_assert_int_eq(an_mva_solve(st, 2, 3, &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "mva: station 1: servers: expected an integer >= 1, got 0");
  ck_assert_ptr_null(m.throughput);
  ck_assert_int_eq(an_mva_solve(st, 1, 0, &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "mva: population: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_mva_solve(st, 0, 3, &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "mva: stations: expected at least 1, got 0");
  an_station neg = {AN_QUEUE, -1.0, 0};
  ck_assert_int_eq(an_mva_solve(&neg, 1, 3, &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "mva: station 0: demand: expected a finite number >= 0, got -1");
  an_station zero = {AN_QUEUE, 0.0, 0};
  ck_assert_int_eq(an_mva_solve(&zero, 1, 3, &m, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "mva: demands: expected at least one > 0, all are 0");
}
END_TEST

/* ---------------------------------------------------------------- deterministic */

/* Ts = 1, Tg = 2, Tc = 3 (issue 2): lock over the GPU phase gives min(N/6, 1/2) calls/s,
 * utilization X Tg; a lock over the whole call gives 1/6 and Tg/6 = 1/3 for every N. */
START_TEST(det_pipeline) {
  an_det d;
  for (int n = 1; n <= 6; n++) {
    ck_assert_int_eq(an_det_pipeline(n, 1, 1, 1, 2, 3, AN_LOCK_GPU, &d, NULL), PS_OK);
    double x = fmin(n / 6.0, 0.5);
    ck_assert_double_eq_tol(d.throughput, x, 1e-15);
    ck_assert_double_eq_tol(d.gpu_util, x * 2, 1e-15);
    ck_assert_int_eq(d.lock_bound, n >= 3);
    ck_assert_double_eq_tol(d.cycle, n / x, 1e-12);
    ck_assert_int_eq(an_det_pipeline(n, 1, 1, 1, 2, 3, AN_LOCK_CALL, &d, NULL), PS_OK);
    ck_assert_double_eq_tol(d.throughput, 1 / 6.0, 1e-15);
    ck_assert_double_eq_tol(d.gpu_util, 1 / 3.0, 1e-15);
  }
  /* The field's case: two workers, 1.82 s of GPU in a 4.6 s locked call: 39.6%. */
  ck_assert_int_eq(an_det_pipeline(2, 1, 1, 2.26, 1.82, 0.52, AN_LOCK_CALL, &d, NULL), PS_OK);
  ck_assert_double_eq_tol(d.gpu_util, 1.82 / 4.6, 1e-15);

  /* G GPUs with workers pinned per GPU: throughput times G, utilization per GPU unchanged. */
  ck_assert_int_eq(an_det_pipeline(2, 4, 1, 1, 2, 3, AN_LOCK_GPU, &d, NULL), PS_OK);
  ck_assert_double_eq_tol(d.throughput, 4 * (2 / 6.0), 1e-15);
  ck_assert_double_eq_tol(d.gpu_util, 2 / 3.0, 1e-15);
  ck_assert_double_eq_tol(d.call_rate, 1 / 3.0, 1e-15);

  /* Batching k = 3 with per-call fixed parts: Ts = 0.5 + 3*1, Tg = 0.3 + 3*0.5,
   * Tc = 0 + 3*0.2; with 2 workers the call rate is min(2/5.9, 1/1.8) = 1/2.95 and
   * partitions flow at 3 times that. */
  double ts = an_batch_time(0.5, 1.0, 3), tg = an_batch_time(0.3, 0.5, 3), tc = an_batch_time(0, 0.2, 3);
  ck_assert_double_eq_tol(ts, 3.5, 1e-15);
  ck_assert_double_eq_tol(tg, 1.8, 1e-15);
  ck_assert_int_eq(an_det_pipeline(2, 1, 3, ts, tg, tc, AN_LOCK_GPU, &d, NULL), PS_OK);
  ck_assert_double_eq_tol(d.call_rate, 2 / 5.9, 1e-15);
  ck_assert_double_eq_tol(d.throughput, 3 * 2 / 5.9, 1e-14);
  ck_assert_double_eq_tol(d.gpu_util, 1.8 * 2 / 5.9, 1e-14);

  /* A lock over part of the CPU work: locked 1 + 2, free 3, GPU 2, N = 2 -> 1/3 calls/s. */
  ck_assert_int_eq(an_det_lock(2, 1, 1, 3, 3, 2, &d, NULL), PS_OK);
  ck_assert_double_eq_tol(d.call_rate, 1 / 3.0, 1e-15);
  ck_assert_double_eq_tol(d.gpu_util, 2 / 3.0, 1e-15);
  ck_assert_int_eq(d.lock_bound, 1);
}
END_TEST

START_TEST(det_errors) {
  an_det d;
  ps_err e;
  ck_assert_int_eq(an_det_lock(0, 1, 1, 1, 1, 1, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: workers_per_gpu: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_det_lock(1, 0, 1, 1, 1, 1, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: gpus: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_det_lock(1, 1, 0, 1, 1, 1, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: batch: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_det_lock(1, 1, 1, 0, 1, 0, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: locked time: expected a finite number > 0, got 0");
  ck_assert_int_eq(an_det_lock(1, 1, 1, 1, -1, 1, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: unlocked time: expected a finite number >= 0, got -1");
  ck_assert_int_eq(an_det_lock(1, 1, 1, 1, 1, 2, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: gpu time: expected a number in [0, locked time 1], got 2");
  ck_assert_int_eq(an_det_pipeline(1, 1, 1, -1, 1, 1, AN_LOCK_GPU, &d, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "det: cpu times: expected numbers >= 0, got -1 and 1");
}
END_TEST

/* ---------------------------------------------------------------- bounds */

/* ABA on numbers worked by hand: D = 3, Dmax = 2, Z = 5, N = 10:
 * X <= min(10/8, 1/2) = 0.5, X >= 10/35, R >= max(3, 20 - 5) = 15, R <= 30, N* = 4. */
START_TEST(bounds_by_hand) {
  an_bounds b;
  ck_assert_int_eq(an_bounds_aba(3, 2, 5, 10, &b, NULL), PS_OK);
  ck_assert_double_eq_tol(b.x_upper, 0.5, 1e-15);
  ck_assert_double_eq_tol(b.x_lower, 10 / 35.0, 1e-15);
  ck_assert_double_eq_tol(b.r_lower, 15, 1e-15);
  ck_assert_double_eq_tol(b.r_upper, 30, 1e-15);
  ck_assert_double_eq_tol(b.n_star, 4, 1e-15);
  ck_assert_int_eq(an_bounds_aba(3, 2, 5, 2, &b, NULL), PS_OK);
  ck_assert_double_eq_tol(b.x_upper, 2 / 8.0, 1e-15);
  ck_assert_double_eq_tol(b.r_lower, 3, 1e-15);

  ps_err e;
  ck_assert_int_eq(an_bounds_aba(1, 2, 0, 1, &b, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "bounds: demands: expected 0 <= Dmax <= D, got D=1 Dmax=2");
  ck_assert_int_eq(an_bounds_aba(1, 1, 0, 0, &b, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "bounds: population: expected an integer >= 1, got 0");
  ck_assert_int_eq(an_bounds_aba(1, 1, -2, 1, &b, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "bounds: think time: expected a finite number >= 0, got -2");
  ck_assert_int_eq(an_bounds_aba(0, 0, 0, 1, &b, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "bounds: expected D + Z > 0, got 0");
}
END_TEST

/* The bounds must hold for the exact MVA solution of random networks, with and without
 * multi-server stations (where only ABA applies). */
START_TEST(bounds_hold) {
  unsigned seed = 12345;
  for (int trial = 0; trial < 400; trial++) {
    an_station st[6];
    int nst = 1 + rand_r(&seed) % 6;
    int multi = trial % 2;
    for (int k = 0; k < nst; k++) {
      int r = rand_r(&seed) % 4;
      st[k].kind = r == 0 ? AN_DELAY : (multi && r == 3) ? AN_MULTI : AN_QUEUE;
      st[k].demand = 0.01 + 5.0 * rand_r(&seed) / RAND_MAX;
      st[k].servers = 1 + rand_r(&seed) % 8;
    }
    st[0].kind = AN_QUEUE; /* at least one queueing station */
    int npop = 1 + rand_r(&seed) % 40;
    an_mva m;
    ck_assert_int_eq(an_mva_solve(st, nst, npop, &m, NULL), PS_OK);
    for (int n = 1; n <= npop; n++) {
      an_bounds b;
      ck_assert_int_eq(an_bounds_network(st, nst, n, &b, NULL), PS_OK);
      double x = m.throughput[n], r = m.response[n], tol = 1e-9 * (1 + x + r);
      ck_assert_msg(x <= b.x_upper + tol && x >= b.x_lower - tol,
                    "trial %d n %d: X %g outside [%g, %g] (balanced %d)", trial, n, x, b.x_lower,
                    b.x_upper, b.balanced);
      ck_assert_msg(r >= b.r_lower - tol && r <= b.r_upper + tol,
                    "trial %d n %d: R %g outside [%g, %g] (balanced %d)", trial, n, r, b.r_lower,
                    b.r_upper, b.balanced);
    }
    an_mva_free(&m);
  }
}
END_TEST

/* Balanced job bounds are exact for a balanced network without think time (X = N/(D +
 * (N-1) Davg)), so both sides meet there; a multi-server station switches them off. */
START_TEST(bounds_balanced) {
  an_station st[3] = {{AN_QUEUE, 1.0, 0}, {AN_QUEUE, 1.0, 0}, {AN_QUEUE, 1.0, 0}};
  an_bounds b;
  ck_assert_int_eq(an_bounds_network(st, 3, 4, &b, NULL), PS_OK);
  ck_assert_int_eq(b.balanced, 1);
  ck_assert_double_eq_tol(b.x_upper, 4 / 6.0, 1e-15);
  ck_assert_double_eq_tol(b.x_lower, 4 / 6.0, 1e-15);
  an_station st2[2] = {{AN_DELAY, 2.0, 0}, {AN_MULTI, 4.0, 2}};
  ck_assert_int_eq(an_bounds_network(st2, 2, 3, &b, NULL), PS_OK);
  ck_assert_int_eq(b.balanced, 0);
  ck_assert_double_eq_tol(b.x_upper, fmin(3 / 6.0, 2 / 4.0), 1e-15); /* Dmax = D/c */
  ps_err e;
  st2[1].servers = 0;
  ck_assert_int_eq(an_bounds_network(st2, 2, 3, &b, &e), PS_EINPUT);
  ck_assert_str_eq(e.msg, "bounds: station 1: servers: expected an integer >= 1, got 0");
}
END_TEST

/* ---------------------------------------------------------------- scenario assumptions */

static void set_phase(phase *ph, const char *name, res_kind res, dist_kind kind, double a, int prev) {
  static int idx[16];
  memset(ph, 0, sizeof *ph); /* every field a later version adds starts at its default */
  ph->busy = 1;
  ph->name = (char *)name;
  ph->resource = res;
  ph->threads = 1;
  ph->time.kind = kind;
  ph->time.a = a;
  ph->time.b = 0;
  ph->has_fixed = 0;
  ph->nscale = 0;
  ph->scale = NULL;
  if (prev >= 0) {
    idx[prev] = prev;
    ph->after = &idx[prev];
    ph->nafter = 1;
  } else {
    ph->after = NULL;
    ph->nafter = 0;
  }
}

START_TEST(assumptions_from_scenario) {
  phase ph[3];
  set_phase(&ph[0], "setup", RES_CPU, DIST_CONST, 1.0, -1);
  set_phase(&ph[1], "kern", RES_GPU, DIST_CONST, 2.0, 0);
  set_phase(&ph[2], "tail", RES_CPU, DIST_CONST, 3.0, 1);
  model m = {.name = "t", .phases = ph, .nphases = 3};
  scenario s = {.name = "t", .model = &m, .gpus = 1, .workers_per_gpu = 2, .cpu_cores = 32,
                .batch = 1, .mutex_from = 0, .mutex_to = 2, .arrivals = ARR_CLOSED,
                .partitions = 100, .replications = 1};
  an_assume a;
  an_assumptions(&s, &a);
  ck_assert_int_eq(a.sequential, 1);
  ck_assert_int_eq(a.deterministic, 1);
  ck_assert_int_eq(a.det_exact, 1);
  ck_assert_int_eq(a.repairman_exact, 0);
  ck_assert_double_eq_tol(a.t_locked, 6, 1e-15);
  ck_assert_double_eq_tol(a.t_free, 0, 1e-15);
  ck_assert_double_eq_tol(a.t_gpu, 2, 1e-15);

  /* No mutex, exclusive GPU, exponential kernel: the machine-repairman queue. */
  s.mutex_from = s.mutex_to = -1;
  ph[1].time.kind = DIST_EXPONENTIAL;
  an_assumptions(&s, &a);
  ck_assert_int_eq(a.deterministic, 0);
  ck_assert_int_eq(a.det_exact, 0);
  ck_assert_int_eq(a.repairman_exact, 1);
  ck_assert_double_eq_tol(a.t_locked, 2, 1e-15);
  ck_assert_double_eq_tol(a.t_free, 4, 1e-15);

  /* A shared GPU without a mutex locks nothing; too few cores break both forms. */
  s.gpu_shared = 1;
  an_assumptions(&s, &a);
  ck_assert_int_eq(a.lock_covers_gpu, 0);
  ck_assert_int_eq(a.repairman_exact, 0);
  s.gpu_shared = 0;
  s.cpu_cores = 1;
  an_assumptions(&s, &a);
  ck_assert_int_eq(a.cores_enough, 0);
  ck_assert_int_eq(a.repairman_exact, 0);
  s.cpu_cores = 32;

  /* The tail running beside the kernel is no longer a sequential call. */
  static int after_setup = 0;
  ph[2].after = &after_setup;
  an_assumptions(&s, &a);
  ck_assert_int_eq(a.sequential, 0);
  ck_assert_int_eq(a.repairman_exact, 0);
}
END_TEST

static Suite *analytic_suite(void) {
  Suite *s = suite_create("analytic");
  TCase *t = tcase_create("repairman");
  tcase_add_test(t, repairman_textbook);
  tcase_add_test(t, repairman_single_server);
  tcase_add_test(t, repairman_more_cases);
  tcase_add_test(t, repairman_large);
  tcase_add_test(t, repairman_errors);
  suite_add_tcase(s, t);
  t = tcase_create("mva");
  tcase_add_test(t, mva_equals_repairman);
  tcase_add_test(t, mva_network);
  tcase_add_test(t, mva_errors);
  suite_add_tcase(s, t);
  t = tcase_create("deterministic");
  tcase_add_test(t, det_pipeline);
  tcase_add_test(t, det_errors);
  suite_add_tcase(s, t);
  t = tcase_create("bounds");
  tcase_add_test(t, bounds_by_hand);
  tcase_add_test(t, bounds_hold);
  tcase_add_test(t, bounds_balanced);
  suite_add_tcase(s, t);
  t = tcase_create("assumptions");
  tcase_add_test(t, assumptions_from_scenario);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(analytic_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed;
}
