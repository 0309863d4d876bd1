#ifndef MC_VMSTAT_H
#define MC_VMSTAT_H

#include <stddef.h>

/* vmstat: reclaim / THP indicators from <procfs>/vmstat */
#define MC_VMSTAT_KEYS 11
extern const char *const mc_vmstat_keys[MC_VMSTAT_KEYS];
/* Reads every key (summing per-zone variants); missing keys are -1.
 * 0, or -errno with why. */
int mc_vmstat_read(long long *vals, char *why, size_t whylen);

#endif
