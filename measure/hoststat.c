/* Steal over a set of CPUs from /proc/stat, and the speed probe (hoststat.h). */
#include "hoststat.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int host_cpu_times_read(const char *path, const cpu_set_t *set, host_cpu_times *t) {
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path ? path : "/proc/stat", "r");
  if (!f) return -1;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    /* "cpuN user nice system idle iowait irq softirq steal ..." (the "cpu " total skipped) */
    if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
    char *p = line + 3, *end;
    unsigned long cpu = strtoul(p, &end, 10);
    if (end == p || (set && (cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, set)))) continue;
    uint64_t v[8] = {0};
    int n = 0;
    for (p = end; n < 8; n++, p = end) {
      v[n] = strtoull(p, &end, 10);
      if (end == p) break;
    }
    if (n < 8) continue; /* a kernel without steal (before 2.6.11) or a cut line */
    t->busy += v[0] + v[1] + v[2] + v[5] + v[6];
    t->steal += v[7];
    t->cpus++;
  }
  fclose(f);
  return t->cpus ? 0 : -1;
}

double host_steal_share(const host_cpu_times *a, const host_cpu_times *b) {
  if (!a->cpus || a->cpus != b->cpus || b->busy < a->busy || b->steal < a->steal) return -1;
  uint64_t busy = b->busy - a->busy, steal = b->steal - a->steal;
  return busy + steal ? (double)steal / (double)(busy + steal) : -1;
}

typedef struct speed_job {
  int cpu;
  double secs;
  uint64_t sink;
} speed_job;

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *speed_thread(void *p) {
  speed_job *j = p;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(j->cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return NULL;
  /* x <- x * y + c over four 64-bit limbs (the low 256 bits of the product), y fixed: a
   * chain of 10 dependent multiplications a step that no compiler can fold */
  uint64_t x[4] = {0x243f6a8885a308d3u, 0x13198a2e03707344u, 0xa4093822299f31d0u, 0x082efa98ec4e6c89u};
  const uint64_t y[4] = {0x452821e638d01377u, 0xbe5466cf34e90c6cu, 0xc0ac29b7c97c50ddu, 0x3f84d5b5b5470917u};
  double t0 = mono_s();
  for (long s = 0; s < HOST_SPEED_STEPS; s++) {
    unsigned __int128 a0 = (unsigned __int128)x[0] * y[0] + (uint64_t)s;
    unsigned __int128 a1 = (unsigned __int128)x[0] * y[1] + (unsigned __int128)x[1] * y[0] + (uint64_t)(a0 >> 64);
    unsigned __int128 a2 = (unsigned __int128)x[0] * y[2] + (unsigned __int128)x[2] * y[0] + (uint64_t)(a1 >> 64);
    uint64_t a3 = x[0] * y[3] + x[1] * y[2] + x[2] * y[1] + x[3] * y[0] + (uint64_t)(a2 >> 64);
    a2 += (unsigned __int128)x[1] * y[1];
    x[0] = (uint64_t)a0, x[1] = (uint64_t)a1, x[2] = (uint64_t)a2, x[3] = a3 + (uint64_t)(a2 >> 64);
  }
  j->secs = mono_s() - t0;
  j->sink = x[0] ^ x[1] ^ x[2] ^ x[3];
  return NULL;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double host_speed_probe(const cpu_set_t *set) {
  cpu_set_t own;
  if (!set) {
    if (sched_getaffinity(0, sizeof own, &own) != 0) return NAN;
    set = &own;
  }
  int n = CPU_COUNT(set), k = 0;
  if (n <= 0) return NAN;
  speed_job *j = calloc((size_t)n, sizeof *j);
  pthread_t *th = calloc((size_t)n, sizeof *th);
  char *up = calloc((size_t)n, 1);
  if (!j || !th || !up) {
    free(j), free(th), free(up);
    return NAN;
  }
  for (int c = 0; c < CPU_SETSIZE && k < n; c++)
    if (CPU_ISSET(c, set)) j[k].cpu = c, j[k].secs = NAN, up[k] = pthread_create(&th[k], NULL, speed_thread, &j[k]) == 0, k++;
  double *v = calloc((size_t)n, sizeof *v);
  int m = 0;
  for (int i = 0; i < k; i++) {
    if (!up[i]) continue;
    pthread_join(th[i], NULL);
    if (!isnan(j[i].secs) && v) v[m++] = j[i].secs;
  }
  double med = NAN;
  if (m) {
    qsort(v, (size_t)m, sizeof *v, cmp_d);
    med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
  }
  free(v), free(j), free(th), free(up);
  return med;
}
