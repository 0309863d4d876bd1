/* vmstat: reclaim, swap, THP and compaction counters from
 * <procfs>/vmstat (MEMSUITE_PROCFS-aware), sampled by stability. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sizing.h"
#include "factfile.h"
#include "vmstat.h"

const char *const mc_vmstat_keys[MC_VMSTAT_KEYS] = {
    "pgscan_kswapd", "pgscan_direct", "pgsteal_kswapd", "pgsteal_direct",
    "pswpin",        "pswpout",       "pgmajfault",     "thp_fault_alloc",
    "thp_fault_fallback", "compact_stall", "numa_pages_migrated",
};

/* Older kernels split reclaim counters per zone ("pgscan_kswapd_normal"). */
static bool zone_variant(const char *name, const char *key)
{
    static const char *const zones[] = { "dma", "dma32", "normal", "movable", "high" };
    size_t n = strlen(key);
    if (strncmp(name, key, n) != 0 || name[n] != '_')
        return false;
    for (size_t i = 0; i < sizeof zones / sizeof zones[0]; i++)
        if (strcmp(name + n + 1, zones[i]) == 0)
            return true;
    return false;
}

int mc_vmstat_read(long long *vals, char *why, size_t whylen)
{
    for (int i = 0; i < MC_VMSTAT_KEYS; i++)
        vals[i] = -1;
    char path[4096];
    FILE *f = mb_fact_fopen(mb_procfs_path(path, sizeof path, "/vmstat"));
    if (!f) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", path, mb_fact_strerror(e));
        return -e;
    }
    char name[128];
    long long v;
    while (fscanf(f, "%127s %lld", name, &v) == 2)
        for (int i = 0; i < MC_VMSTAT_KEYS; i++)
            if (strcmp(name, mc_vmstat_keys[i]) == 0 || zone_variant(name, mc_vmstat_keys[i]))
                vals[i] = (vals[i] < 0 ? 0 : vals[i]) + v;
    fclose(f);
    return 0;
}
