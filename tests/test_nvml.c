/* measure's NVML sampler (measure_nvml.c) against tests/fake_nvml.c, loaded by the same
 * dlopen("libnvidia-ml.so.1") as on a GPU machine (ctest puts the fake first on
 * LD_LIBRARY_PATH): utilization and SM clock samples, the slowdown reasons that count
 * (the fake's "GPU idle" does not), windows merged, and the report's gpu_clocks member
 * and table line for a run on the CPU backend given those figures. */
#define _GNU_SOURCE
#include "ck.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure_exec.h"
#include "runner.h"
#include "scn.h"
#include "util.h"

static void sleep_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

START_TEST(fake_device_clocks) {
  mnvml *m = NULL;
  ps_err e = {0};
  double t0 = ps_now();
  ck_assert_msg(mnvml_start(1, NULL, 0.005, &m, &e) == PS_OK, "%s", e.msg);
  ck_assert_int_eq(mnvml_ndev(m), 1);
  mnvml_clk c;
  for (int tries = 0; tries < 400; tries++) { /* at least 6 samples, however slow the host */
    sleep_s(0.01);
    mnvml_clocks(m, 0, t0, ps_now(), &c);
    if (c.n >= 6) break;
  }
  double t1 = ps_now();
  mnvml_clocks(m, 0, t0, t1, &c);
  ck_assert_int_ge(c.n, 6);
  ck_assert_double_eq(c.min_mhz, 1755);
  ck_assert_double_eq(c.max_mhz, 1980);
  ck_assert_double_eq(c.board_max_mhz, 1980);
  ck_assert_uint_eq(c.reasons, MNVML_SLOW_POWER_CAP); /* the fake's idle bit is not a slowdown */
  /* every 1755 read, and only those, had the power cap in force: the share and the mean
   * describe the same samples */
  int low = (int)lround(c.slowed * c.n);
  ck_assert_double_eq_tol(c.slowed * c.n, low, 1e-9);
  ck_assert_int_ge(low, c.n / 2 - 1);
  ck_assert_int_le(low, c.n / 2 + 1);
  ck_assert_double_eq_tol(c.mean_mhz, (1755.0 * low + 1980.0 * (c.n - low)) / c.n, 1e-9);
  int cnt;
  ck_assert_double_eq_tol(mnvml_mean(m, 0, t0, t1, &cnt), 0.5, 1e-12);
  ck_assert_int_eq(cnt, c.n);
  /* a window with no sample, a device that is not there */
  mnvml_clocks(m, 0, t1 + 100, t1 + 200, &c);
  ck_assert_int_eq(c.n, 0);
  ck_assert(isnan(c.mean_mhz) && isnan(c.slowed));
  ck_assert_double_eq(c.board_max_mhz, 1980);
  mnvml_clocks(m, 1, t0, t1, &c);
  ck_assert(c.n == 0 && isnan(c.board_max_mhz));
  mnvml_stop(m);
}
END_TEST

START_TEST(windows_merge) {
  mnvml_clk acc, a = {4, 1900, 1800, 1980, 1980, 0.25, MNVML_SLOW_POWER_CAP},
                 b = {1, 1500, 1500, 1500, 1980, 1, MNVML_SLOW_HW_THERMAL};
  mnvml_clocks(NULL, 0, 0, 1, &acc);
  ck_assert_int_eq(acc.n, 0);
  mnvml_clk_merge(&acc, &a);
  ck_assert_int_eq(acc.n, 4);
  ck_assert_double_eq(acc.mean_mhz, 1900);
  mnvml_clk_merge(&acc, &b);
  ck_assert_int_eq(acc.n, 5);
  ck_assert_double_eq_tol(acc.mean_mhz, (4 * 1900.0 + 1500) / 5, 1e-9);
  ck_assert_double_eq(acc.min_mhz, 1500);
  ck_assert_double_eq(acc.max_mhz, 1980);
  ck_assert_double_eq_tol(acc.slowed, (4 * 0.25 + 1) / 5, 1e-12);
  ck_assert_uint_eq(acc.reasons, MNVML_SLOW_POWER_CAP | MNVML_SLOW_HW_THERMAL);
  mnvml_clk none;
  mnvml_clocks(NULL, 0, 0, 1, &none);
  mnvml_clk_merge(&acc, &none); /* an empty window changes nothing */
  ck_assert_int_eq(acc.n, 5);
  const char *nm[8];
  ck_assert_int_eq(mnvml_reason_names(acc.reasons, nm, 8), 2);
  ck_assert_str_eq(nm[0], "power_cap");
  ck_assert_str_eq(nm[1], "hw_thermal");
  ck_assert_int_eq(mnvml_reason_names(MNVML_SLOW_ALL, nm, 8), 5);
  ck_assert_int_eq(mnvml_reason_names(0x1 | 0x2 | 0x10, nm, 8), 0); /* idle, app clocks, sync boost */
}
END_TEST

START_TEST(report_carries_clocks) {
  char *cfg = xasprintf("%s/tests/data/measure/const-seed.yaml", getenv("PROVESIM_SRC") ? getenv("PROVESIM_SRC") : ".");
  const char *ov[] = {"workload.partitions=12", "run.warmup=2", "run.cooldown=1"};
  scenario *s = NULL;
  ps_err e = {0};
  ck_assert_msg(scn_load(cfg, ov, 3, &s, &e) == PS_OK, "%s", e.msg);
  runner_opts o = {.backend = "cpu", .executor = "synthetic"};
  runner_result *r = NULL;
  ck_assert_msg(runner_run(s, &o, &r, &e) == PS_OK, "%s", e.msg);
  /* the CPU backend samples no NVML: null, and no clock line */
  cJSON *d = runner_report_json(s, &o, r);
  const cJSON *gc = cJSON_GetObjectItem(cJSON_GetObjectItem(d, "measurement"), "gpu_clocks");
  ck_assert(cJSON_IsArray(gc) && cJSON_GetArraySize(gc) == 1 && cJSON_IsNull(cJSON_GetArrayItem(gc, 0)));
  cJSON_Delete(d);
  r->clocks[0] = (mnvml_clk){10, 1935.5, 1755, 1980, 1980, 0.2, MNVML_SLOW_POWER_CAP | MNVML_SLOW_SW_THERMAL};
  d = runner_report_json(s, &o, r);
  gc = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "measurement"), "gpu_clocks"), 0);
  ck_assert_double_eq(cJSON_GetObjectItem(gc, "samples")->valuedouble, 10);
  ck_assert_double_eq(cJSON_GetObjectItem(gc, "mean_mhz")->valuedouble, 1935.5);
  ck_assert_double_eq(cJSON_GetObjectItem(gc, "min_mhz")->valuedouble, 1755);
  ck_assert_double_eq(cJSON_GetObjectItem(gc, "board_max_mhz")->valuedouble, 1980);
  ck_assert_double_eq(cJSON_GetObjectItem(gc, "slowed_share")->valuedouble, 0.2);
  const cJSON *why = cJSON_GetObjectItem(gc, "slowdown_reasons");
  ck_assert_int_eq(cJSON_GetArraySize(why), 2);
  ck_assert_str_eq(cJSON_GetArrayItem(why, 0)->valuestring, "power_cap");
  ck_assert_str_eq(cJSON_GetArrayItem(why, 1)->valuestring, "sw_thermal");
  cJSON_Delete(d);
  r->gpu_util_nvml[0] = 0.9; /* the clock line goes under the nvidia-smi line */
  ps_buf b = {0};
  runner_report_table(&b, s, &o, r, 1.0);
  ps_buf_append(&b, "", 1);
  ck_assert_msg(strstr(b.p, "GPU 0: SM clock 1936 MHz on average (1755 to 1980; the board's highest 1980); held down "
                            "in 20% of samples (power_cap, sw_thermal)\n"),
                "%s", b.p);
  ps_buf_free(&b);
  runner_result_free(r);
  scn_free(s);
  free(cfg);
}
END_TEST

int main(void) {
  Suite *su = suite_create("nvml");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, fake_device_clocks);
  tcase_add_test(tc, windows_merge);
  tcase_add_test(tc, report_carries_clocks);
  suite_add_tcase(su, tc);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
