/* The nvidia-smi figure (measure_exec.h): NVML loaded with dlopen("libnvidia-ml.so.1")
 * and nvmlDeviceGetUtilizationRates sampled in a thread. NVML's "gpu" figure is the share
 * of the driver's last sample period (1/6 s to 1 s) during which some kernel ran, which
 * is why it reads higher than the union of kernel intervals when kernels come and go.
 * Each sample also takes the SM clock and the reasons the driver gives for holding it
 * down (power cap, thermal, hardware slowdown), when the library has those calls: the
 * same code runs slower at a lower clock, so a run that missed its prediction can say
 * whether the GPU or the host was the slower one. The few NVML types are declared here:
 * nvml.h is not on every build machine. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure_exec.h"
#include "report.h"

typedef int nvml_return;
typedef struct nvml_device_st *nvml_device;
typedef struct nvml_utilization {
  unsigned int gpu, memory;
} nvml_utilization;

typedef struct nvml_sample {
  double t, u;
  double clk;       /* SM clock in MHz; NaN when not read */
  unsigned reasons; /* the slowdown reasons among MNVML_SLOW_ALL in force */
} nvml_sample;

/* nvmlClockType_t's NVML_CLOCK_SM */
#define NVML_CLOCK_SM_ 1

struct mnvml {
  void *lib;
  nvml_return (*shutdown)(void);
  nvml_return (*util)(nvml_device, nvml_utilization *);
  nvml_return (*clock)(nvml_device, int, unsigned *);              /* NULL when absent */
  nvml_return (*reasons)(nvml_device, unsigned long long *);       /* NULL when absent */
  int n;
  double *max_clk; /* per device, MHz; NaN when not known */
  nvml_device *dev;
  nvml_sample **s;
  size_t *ns, *cap;
  double period;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int stop;
};

static void *sampler(void *p) {
  mnvml *m = p;
  pthread_mutex_lock(&m->mu);
  while (!m->stop) {
    for (int i = 0; i < m->n; i++) {
      nvml_utilization u;
      if (m->util(m->dev[i], &u) != 0) continue;
      if (m->ns[i] == m->cap[i]) {
        m->cap[i] = m->cap[i] ? 2 * m->cap[i] : 1024;
        m->s[i] = xrealloc(m->s[i], m->cap[i] * sizeof *m->s[i]);
      }
      nvml_sample x = {ps_now(), u.gpu / 100.0, NAN, 0};
      unsigned mhz;
      unsigned long long why;
      if (m->clock && m->clock(m->dev[i], NVML_CLOCK_SM_, &mhz) == 0) x.clk = mhz;
      if (m->reasons && m->reasons(m->dev[i], &why) == 0) x.reasons = (unsigned)(why & MNVML_SLOW_ALL);
      m->s[i][m->ns[i]++] = x;
    }
    struct timespec ts;
    ps_deadline_in(&ts, m->period);
    while (!m->stop && pthread_cond_timedwait(&m->cv, &m->mu, &ts) != ETIMEDOUT) {
    }
  }
  pthread_mutex_unlock(&m->mu);
  return NULL;
}

int mnvml_start(int n, const char *const *pci, double period_s, mnvml **out, ps_err *e) {
  *out = NULL;
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return ps_fail(e, PS_ERR, "cannot load libnvidia-ml.so.1: %s", dlerror());
  nvml_return (*init)(void);
  nvml_return (*by_index)(unsigned int, nvml_device *);
  nvml_return (*by_pci)(const char *, nvml_device *);
  const char *(*errstr)(nvml_return);
  mnvml *m = xcalloc(1, sizeof *m);
  m->lib = lib;
  *(void **)&init = dlsym(lib, "nvmlInit_v2");
  *(void **)&by_index = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
  *(void **)&by_pci = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
  *(void **)&errstr = dlsym(lib, "nvmlErrorString");
  *(void **)&m->shutdown = dlsym(lib, "nvmlShutdown");
  *(void **)&m->util = dlsym(lib, "nvmlDeviceGetUtilizationRates");
  *(void **)&m->clock = dlsym(lib, "nvmlDeviceGetClockInfo");
  /* the newer name first (drivers from 535 have both) */
  if (!(*(void **)&m->reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons")))
    *(void **)&m->reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!init || !by_index || !by_pci || !m->shutdown || !m->util) {
    dlclose(lib);
    free(m);
    return ps_fail(e, PS_ERR, "libnvidia-ml.so.1 lacks the functions provesim uses");
  }
  nvml_return r = init();
  if (r != 0) {
    dlclose(lib);
    free(m);
    return ps_fail(e, PS_ERR, "nvmlInit: %s", errstr ? errstr(r) : "error");
  }
  if (n <= 0) { /* every device NVML sees */
    nvml_return (*count)(unsigned int *);
    unsigned c = 0;
    *(void **)&count = dlsym(lib, "nvmlDeviceGetCount_v2");
    if (!count || count(&c) != 0 || c == 0) {
      m->shutdown();
      dlclose(lib);
      free(m);
      return ps_fail(e, PS_ERR, "%s", "NVML sees no GPU");
    }
    n = c > PS_MAX_GPUS ? PS_MAX_GPUS : (int)c;
  }
  m->n = n;
  m->dev = xcalloc((size_t)n, sizeof *m->dev);
  for (int i = 0; i < n; i++) {
    r = pci ? by_pci(pci[i], &m->dev[i]) : by_index((unsigned)i, &m->dev[i]);
    if (r != 0) {
      m->shutdown();
      dlclose(lib);
      free(m->dev);
      free(m);
      return ps_fail(e, PS_ERR, "NVML cannot find GPU %d%s%s: %s", i, pci ? " at " : "", pci ? pci[i] : "",
                     errstr ? errstr(r) : "error");
    }
  }
  nvml_return (*max_clock)(nvml_device, int, unsigned *);
  *(void **)&max_clock = dlsym(lib, "nvmlDeviceGetMaxClockInfo");
  m->max_clk = xcalloc((size_t)n, sizeof *m->max_clk);
  for (int i = 0; i < n; i++) {
    unsigned mhz;
    m->max_clk[i] = max_clock && max_clock(m->dev[i], NVML_CLOCK_SM_, &mhz) == 0 ? mhz : NAN;
  }
  m->s = xcalloc((size_t)n, sizeof *m->s);
  m->ns = xcalloc((size_t)n, sizeof *m->ns);
  m->cap = xcalloc((size_t)n, sizeof *m->cap);
  m->period = period_s > 0 ? period_s : 0.1;
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  int pr = pthread_create(&m->th, NULL, sampler, m);
  if (pr != 0) {
    m->shutdown();
    dlclose(lib);
    free(m->dev), free(m->max_clk), free(m->s), free(m->ns), free(m->cap), free(m);
    return ps_fail(e, PS_ERR, "cannot start the NVML sampling thread: %s", strerror(pr));
  }
  *out = m;
  return PS_OK;
}

double mnvml_mean(mnvml *m, int i, double t0, double t1, int *count) {
  *count = 0;
  if (!m || i < 0 || i >= m->n) return NAN;
  pthread_mutex_lock(&m->mu);
  double s = 0;
  int c = 0;
  for (size_t j = 0; j < m->ns[i]; j++)
    if (m->s[i][j].t >= t0 && m->s[i][j].t <= t1) s += m->s[i][j].u, c++;
  pthread_mutex_unlock(&m->mu);
  *count = c;
  return c ? s / c : NAN;
}

int mnvml_samples(mnvml *m, int i, double t0, double t1, double *out, int max) {
  if (!m || i < 0 || i >= m->n) return 0;
  pthread_mutex_lock(&m->mu);
  int c = 0;
  for (size_t j = 0; j < m->ns[i] && c < max; j++)
    if (m->s[i][j].t >= t0 && m->s[i][j].t <= t1) out[c++] = m->s[i][j].u;
  pthread_mutex_unlock(&m->mu);
  return c;
}

void mnvml_clocks(mnvml *m, int i, double t0, double t1, mnvml_clk *out) {
  *out = (mnvml_clk){0, NAN, NAN, NAN, NAN, NAN, 0};
  if (!m || i < 0 || i >= m->n) return;
  out->board_max_mhz = m->max_clk[i];
  pthread_mutex_lock(&m->mu);
  double s = 0, lo = INFINITY, hi = -INFINITY;
  int slowed = 0;
  for (size_t j = 0; j < m->ns[i]; j++) {
    const nvml_sample *x = &m->s[i][j];
    if (x->t < t0 || x->t > t1 || isnan(x->clk)) continue;
    out->n++;
    s += x->clk;
    lo = x->clk < lo ? x->clk : lo;
    hi = x->clk > hi ? x->clk : hi;
    slowed += x->reasons != 0;
    out->reasons |= x->reasons;
  }
  pthread_mutex_unlock(&m->mu);
  if (out->n) {
    out->mean_mhz = s / out->n;
    out->min_mhz = lo;
    out->max_mhz = hi;
    out->slowed = (double)slowed / out->n;
  }
}

void mnvml_clk_merge(mnvml_clk *acc, const mnvml_clk *x) {
  if (isnan(acc->board_max_mhz)) acc->board_max_mhz = x->board_max_mhz;
  if (!x->n) return;
  if (!acc->n) {
    *acc = *x;
    return;
  }
  double n = acc->n + x->n;
  acc->mean_mhz = (acc->mean_mhz * acc->n + x->mean_mhz * x->n) / n;
  acc->slowed = (acc->slowed * acc->n + x->slowed * x->n) / n;
  acc->min_mhz = x->min_mhz < acc->min_mhz ? x->min_mhz : acc->min_mhz;
  acc->max_mhz = x->max_mhz > acc->max_mhz ? x->max_mhz : acc->max_mhz;
  acc->reasons |= x->reasons;
  acc->n += x->n;
}

int mnvml_reason_names(unsigned reasons, const char **names, int max) {
  static const struct {
    unsigned bit;
    const char *name;
  } k[] = {{MNVML_SLOW_POWER_CAP, "power_cap"},
           {MNVML_SLOW_HW, "hw_slowdown"},
           {MNVML_SLOW_SW_THERMAL, "sw_thermal"},
           {MNVML_SLOW_HW_THERMAL, "hw_thermal"},
           {MNVML_SLOW_POWER_BRAKE, "power_brake"}};
  int c = 0;
  for (size_t j = 0; j < sizeof k / sizeof k[0] && c < max; j++)
    if (reasons & k[j].bit) names[c++] = k[j].name;
  return c;
}

cJSON *mnvml_clk_json(const mnvml_clk *c) {
  if (!c || !c->n) return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "samples", c->n);
  report_json_num(o, "mean_mhz", c->mean_mhz);
  report_json_num(o, "min_mhz", c->min_mhz);
  report_json_num(o, "max_mhz", c->max_mhz);
  report_json_num(o, "board_max_mhz", c->board_max_mhz);
  report_json_num(o, "slowed_share", c->slowed);
  const char *nm[8];
  int k = mnvml_reason_names(c->reasons, nm, 8);
  cJSON_AddItemToObject(o, "slowdown_reasons", cJSON_CreateStringArray(nm, k));
  return o;
}

void mnvml_clk_line(ps_buf *b, int g, const mnvml_clk *c) {
  if (!c || !c->n) return;
  ps_buf_printf(b, "  GPU %d: SM clock %.0f MHz on average (%.0f to %.0f", g, c->mean_mhz, c->min_mhz, c->max_mhz);
  if (isfinite(c->board_max_mhz)) ps_buf_printf(b, "; the board's highest %.0f", c->board_max_mhz);
  ps_buf_printf(b, ")");
  if (c->reasons) {
    const char *nm[8];
    int k = mnvml_reason_names(c->reasons, nm, 8);
    ps_buf_printf(b, "; held down in %.0f%% of samples (", 100 * c->slowed);
    for (int i = 0; i < k; i++) ps_buf_printf(b, "%s%s", i ? ", " : "", nm[i]);
    ps_buf_printf(b, ")");
  }
  ps_buf_printf(b, "\n");
}

int mnvml_ndev(const mnvml *m) { return m ? m->n : 0; }

void mnvml_stop(mnvml *m) {
  if (!m) return;
  pthread_mutex_lock(&m->mu);
  m->stop = 1;
  pthread_cond_broadcast(&m->cv);
  pthread_mutex_unlock(&m->mu);
  pthread_join(m->th, NULL);
  m->shutdown();
  dlclose(m->lib);
  for (int i = 0; i < m->n; i++) free(m->s[i]);
  free(m->s), free(m->ns), free(m->cap), free(m->dev), free(m->max_clk);
  pthread_mutex_destroy(&m->mu);
  pthread_cond_destroy(&m->cv);
  free(m);
}
