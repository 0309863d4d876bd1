/* cputopo: where one CPU sits, from sysfs (honours MEMSUITE_SYSFS): its
 * package (socket), die, and L3 domain, for marking the boundaries of a
 * core-to-core matrix.  Each field is -1 when sysfs does not say. */
#ifndef MB_CPUTOPO_H
#define MB_CPUTOPO_H

#include <sched.h>

typedef struct {
    int package;     /* topology/physical_package_id */
    int die;         /* topology/die_id */
    int l3;          /* the lowest CPU in the shared_cpu_list of its level-3 cache */
} mb_cpu_place_t;

/* Fills *out for cpu (>= 0); never fails: unknown fields are -1. */
void mb_cpu_place(int cpu, mb_cpu_place_t *out);

/* A kernel CPU list ("0-3,8,10-11"; empty is no CPU) into *set.  0, or
 * -EINVAL for anything else. */
int mb_cpulist_parse(const char *text, cpu_set_t *set);

#endif
