/* team: which CPUs the workers run on.  One thread per physical core,
 * never two SMT siblings, chosen from the sysfs topology of the CPUs this
 * process may use. */
#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "team.h"

/* Parses a kernel CPU list ("0-3,8,10-11") into a set. 0 or -EINVAL. */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s || a < 0)
            return -EINVAL;
        long b = a;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a)
                return -EINVAL;
            s = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        if (*s == ',')
            s++;
        else if (*s && !isspace((unsigned char)*s))
            return -EINVAL;
        else if (*s)
            break;
    }
    return 0;
}

static int read_siblings(int cpu, cpu_set_t *sib)
{
    static const char *const files[] = { "thread_siblings_list", "core_cpus_list" };
    char rel[128], path[4096], line[1024];
    int rc = -ENOENT;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/topology/%s", cpu, files[i]);
        rc = mb_read_line(mb_sysfs_path(path, sizeof path, rel), line, sizeof line);
        if (rc == 0)
            return parse_cpulist(line, sib);
    }
    return rc;
}

int mc_physical_cpus(const cpu_set_t *allowed, int *cpus, int max, int *smt_extra, int *nextra,
                     char *why, size_t whylen)
{
    cpu_set_t covered;
    CPU_ZERO(&covered);
    int n = 0, ne = 0;
    why[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, allowed) || CPU_ISSET(c, &covered))
            continue;
        cpu_set_t sib;
        int rc = read_siblings(c, &sib);
        if (rc != 0) {
            snprintf(why, whylen,
                     "topology of cpu%d unreadable (%s); one thread per allowed CPU, SMT "
                     "siblings not excluded", c, strerror(-rc));
            n = 0;
            for (int d = 0; d < CPU_SETSIZE && n < max; d++)
                if (CPU_ISSET(d, allowed))
                    cpus[n++] = d;
            if (nextra)
                *nextra = 0;
            return n;
        }
        CPU_SET(c, &sib);
        for (int d = 0; d < CPU_SETSIZE; d++)
            if (CPU_ISSET(d, &sib) && CPU_ISSET(d, allowed) && !CPU_ISSET(d, &covered)) {
                CPU_SET(d, &covered);
                if (d != c && smt_extra && ne < max)
                    smt_extra[ne++] = d;
            }
        if (n < max)
            cpus[n++] = c;
    }
    if (nextra)
        *nextra = ne;
    return n;
}

int mc_pin_self(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -errno;
}

void mc_restore_mask(const mc_config_t *cfg)
{
    (void)sched_setaffinity(0, sizeof cfg->orig_mask, &cfg->orig_mask);
}

void mc_team_record(const mc_config_t *cfg, mb_affinity_t *aff)
{
    memset(aff, 0, sizeof *aff);
    for (int t = 0; t < MB_MAX_THREADS; t++)
        aff->cpu[t] = -1;
    const char *v;
    snprintf(aff->omp_num_threads, sizeof aff->omp_num_threads, "%s",
             (v = getenv("OMP_NUM_THREADS")) ? v : "");
    snprintf(aff->omp_proc_bind, sizeof aff->omp_proc_bind, "%s",
             (v = getenv("OMP_PROC_BIND")) ? v : "");
    snprintf(aff->omp_places, sizeof aff->omp_places, "%s", (v = getenv("OMP_PLACES")) ? v : "");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    aff->online_cpus = online > 0 ? (int)online : -1;
    aff->allowed_cpus = cfg->ncpus_allowed;
    aff->requested = cfg->nthreads;
    int counted = 0;
    int *cpu = aff->cpu;
#pragma omp parallel num_threads(cfg->nthreads)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        cpu[t] = sched_getcpu();
#pragma omp single
        counted = omp_get_num_threads();
    }
    mc_restore_mask(cfg);
    aff->counted = counted;
}

int mc_cpu_node(int cpu)
{
    unsigned c = 0, node = 0;
    if (cpu < 0 && syscall(SYS_getcpu, &c, &node, NULL) == 0)
        return (int)node;
    /* a given CPU: look for the nodeN link in its sysfs directory */
    char rel[64], path[4096];
    snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d", cpu);
    mb_sysfs_path(path, sizeof path, rel);
    for (int n = 0; n < MB_NUMA_MAX_NODES; n++) {
        char p2[4200];
        snprintf(p2, sizeof p2, "%s/node%d", path, n);
        if (access(p2, F_OK) == 0)
            return n;
    }
    return -1;
}
