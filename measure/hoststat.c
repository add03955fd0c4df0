/* Steal over a set of CPUs from /proc/stat (hoststat.h). */
#include "hoststat.h"

#include <inttypes.h>
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
