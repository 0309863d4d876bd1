/* cputopo: a CPU's package, die and L3 domain from sysfs. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cputopo.h"
#include "sizing.h"

/* The integer in <sysfs>/devices/system/cpu/cpuN/<rel>, or -1. */
static int cpu_int(int cpu, const char *rel)
{
    char sub[160], path[4096], line[64], *end;
    snprintf(sub, sizeof sub, "/devices/system/cpu/cpu%d/%s", cpu, rel);
    if (mb_read_line(mb_sysfs_path(path, sizeof path, sub), line, sizeof line) != 0)
        return -1;
    long v = strtol(line, &end, 10);
    return (end == line || v < 0 || v > 1 << 30) ? -1 : (int)v;
}

/* The first CPU of the shared_cpu_list of cpu's level-3 cache ("0-15",
 * "0,2,4"), or -1 when no cache index of level 3 is listed. */
static int l3_domain(int cpu)
{
    for (int idx = 0; idx < 16; idx++) {
        char rel[64];
        snprintf(rel, sizeof rel, "cache/index%d/level", idx);
        int level = cpu_int(cpu, rel);
        if (level < 0)
            return -1;      /* indexes are numbered without gaps */
        if (level != 3)
            continue;
        snprintf(rel, sizeof rel, "cache/index%d/shared_cpu_list", idx);
        return cpu_int(cpu, rel);   /* strtol stops at the first '-' or ',' */
    }
    return -1;
}

void mb_cpu_place(int cpu, mb_cpu_place_t *out)
{
    out->package = cpu_int(cpu, "topology/physical_package_id");
    out->die = cpu_int(cpu, "topology/die_id");
    out->l3 = l3_domain(cpu);
}

int mb_cpulist_parse(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *s = text;
    while (*s && *s != '\n') {
        char *end;
        if (!isdigit((unsigned char)*s))
            return -EINVAL;
        long a = strtol(s, &end, 10), b = a;
        s = end;
        if (*s == '-') {
            if (!isdigit((unsigned char)s[1]))
                return -EINVAL;
            b = strtol(s + 1, &end, 10);
            s = end;
        }
        if (a < 0 || b < a || b >= CPU_SETSIZE)
            return -EINVAL;
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -EINVAL;
    }
    return 0;
}
