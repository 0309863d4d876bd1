/* team: the CPUs of the thread team (physical cores first), pinning, and
 * the NUMA node of a CPU. */
#ifndef MC_TEAM_H
#define MC_TEAM_H

#include <sched.h>
#include <stddef.h>

#include "affinity.h"
#include "config.h"

/* Physical cores among the allowed CPUs: one CPU per core, the lowest
 * numbered sibling, in CPU order.  Returns the count (>0) and fills
 * cpus[]; when the topology cannot be read, every allowed CPU is used and
 * why says so.  smt_extra receives the remaining siblings (may be NULL). */
int mc_physical_cpus(const cpu_set_t *allowed, int *cpus, int max, int *smt_extra, int *nextra,
                     char *why, size_t whylen);
int mc_pin_self(int cpu);             /* sched_setaffinity of the calling thread */
void mc_restore_mask(const mc_config_t *cfg);
/* Runs a pinned parallel region and records each thread's CPU. */
void mc_team_record(const mc_config_t *cfg, mb_affinity_t *aff);
/* NUMA node of a CPU: cpu < 0 asks getcpu(2) for the calling thread;
 * otherwise the cpuN/nodeM link in sysfs.  -1 when unknown. */
int mc_cpu_node(int cpu);

#endif
