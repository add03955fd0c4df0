/* The hypervisor's steal over the cores a run uses, from the per-CPU lines of /proc/stat:
 * the time the host ran other guests while these CPUs had work. A run that lost a share
 * of its cores' time this way ran on a shared host, slower than it will on a quiet one,
 * and nothing in its own times shows it (docs/validation-sessions.md, "A ninth session"). */
#ifndef PROVESIM_HOSTSTAT_H
#define PROVESIM_HOSTSTAT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>

typedef struct host_cpu_times {
  uint64_t busy;  /* user + nice + system + irq + softirq, in clock ticks */
  uint64_t steal; /* steal, in clock ticks */
  int cpus;       /* CPUs of the set found in the file */
} host_cpu_times;

/* Sums the times of the CPUs in set (all CPUs when set is NULL) from PATH (/proc/stat
 * when NULL). Returns 0, or -1 when the file cannot be read or has none of the CPUs. */
int host_cpu_times_read(const char *path, const cpu_set_t *set, host_cpu_times *t);

/* The share of busy + steal time between two readings that was steal: from 0 to 1, or
 * -1 when the CPUs had no time in between. */
double host_steal_share(const host_cpu_times *before, const host_cpu_times *after);

#endif
