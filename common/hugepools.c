/* hugepools: <sysfs>/kernel/mm/hugepages/hugepages-<size>kB counters. */
#include "hugepools.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "sizing.h"

static long long read_ll(const char *dir, const char *name)
{
    char path[4400], line[64];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return -1;
    if (mb_read_line(path, line, sizeof line) != 0)
        return -1;
    return strtoll(line, NULL, 10);
}

int mb_hugepools_read(mb_hugepool_t *pools, int max, char *why, size_t whylen)
{
    char dir[4096];
    mb_sysfs_path(dir, sizeof dir, "/kernel/mm/hugepages");
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(why, whylen, "%.180s: cannot open", dir);
        return -1;
    }
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        long long kib;
        if (sscanf(de->d_name, "hugepages-%lldkB", &kib) != 1)
            continue;
        char sub[4400];
        if (snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name) >= (int)sizeof sub)
            continue;
        mb_hugepool_t *p = &pools[n++];
        p->size_kib = kib;
        p->total = read_ll(sub, "nr_hugepages");
        p->free_pages = read_ll(sub, "free_hugepages");
        p->surplus = read_ll(sub, "surplus_hugepages");
        p->reserved = read_ll(sub, "resv_hugepages");
    }
    closedir(d);
    for (int i = 1; i < n; i++)   /* smallest page size first */
        for (int k = i; k > 0 && pools[k].size_kib < pools[k - 1].size_kib; k--) {
            mb_hugepool_t t = pools[k];
            pools[k] = pools[k - 1];
            pools[k - 1] = t;
        }
    return n;
}
