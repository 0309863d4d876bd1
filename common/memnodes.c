/* memnodes: memory nodes, memory tiers and HMAT figures from sysfs. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cputopo.h"
#include "factfile.h"
#include "memnodes.h"
#include "numa.h"
#include "sizing.h"

/* <sysfs>/devices/system/node<rel> */
static const char *node_path(char *buf, size_t len, const char *fmt, int a, int b)
{
    char rel[256];
    snprintf(rel, sizeof rel, fmt, a, b);
    char sub[300];
    snprintf(sub, sizeof sub, "/devices/system/node%s", rel);
    return mb_sysfs_path(buf, len, sub);
}

static bool nodes_in_list(const char *file, int node, bool *known)
{
    char path[4096], line[1024];
    uint64_t mask = 0;
    *known = mb_read_line(mb_sysfs_path(path, sizeof path, file), line, sizeof line) == 0 &&
             (line[0] == '\0' || mb_numa_parse_nodes(line, 0, &mask, NULL, 0) == 0);
    return *known && node < 64 && (mask >> node & 1);
}

/* MemTotal of nodeN/meminfo ("Node 0 MemTotal:  24576000 kB"), bytes. */
static size_t node_mem_total(int node)
{
    char path[4096], line[256];
    FILE *f = mb_fact_fopen(node_path(path, sizeof path, "/node%d/meminfo", node, 0));
    size_t bytes = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *m = strstr(line, "MemTotal:");
        unsigned long long kb;
        if (m && sscanf(m + 9, "%llu", &kb) == 1) {
            bytes = (size_t)kb * 1024;
            break;
        }
    }
    if (f)
        fclose(f);
    return bytes;
}

/* The K of the memory_tierK under <sysfs>/devices/virtual/memory_tiering
 * whose nodelist holds node (Linux 6.1+), or -1. */
static int node_tier(int node)
{
    char path[4096];
    DIR *d = opendir(mb_sysfs_path(path, sizeof path, "/devices/virtual/memory_tiering"));
    int tier = -1;
    for (struct dirent *e; d && tier < 0 && (e = readdir(d));) {
        int k;
        char tail, rel[300];
        bool known;
        if (sscanf(e->d_name, "memory_tier%d%c", &k, &tail) != 1 || k < 0)
            continue;
        snprintf(rel, sizeof rel, "/devices/virtual/memory_tiering/%s/nodelist", e->d_name);
        if (nodes_in_list(rel, node, &known))
            tier = k;
    }
    if (d)
        closedir(d);
    return tier;
}

static void describe(mb_memnode_t *n, int node)
{
    char path[4096], line[4096];
    bool known;
    memset(n, 0, sizeof *n);
    n->node = node;
    if (mb_read_line(node_path(path, sizeof path, "/node%d/cpulist", node, 0), line, sizeof line) == 0
        && mb_cpulist_parse(line, &n->cpus) == 0)
        n->has_cpu = CPU_COUNT(&n->cpus) > 0;
    n->mem_total_bytes = node_mem_total(node);
    n->has_memory = nodes_in_list("/devices/system/node/has_memory", node, &known);
    n->memory_known = known || n->mem_total_bytes > 0;
    if (!known)
        n->has_memory = n->mem_total_bytes > 0;
    n->memory_tier = node_tier(node);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int mb_memnodes_list(mb_memnode_t *out, int max, char *why, size_t whylen)
{
    char path[4096];
    DIR *d = opendir(mb_sysfs_path(path, sizeof path, "/devices/system/node"));
    if (!d) {
        snprintf(why, whylen, "no node directory at %.200s (a kernel without NUMA): one node holds "
                              "everything", path);
        return -ENOENT;
    }
    int ids[MB_MEMNODES_MAX], n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < max && n < MB_MEMNODES_MAX;) {
        int k;
        char tail;
        if (sscanf(e->d_name, "node%d%c", &k, &tail) == 1 && k >= 0)
            ids[n++] = k;
    }
    closedir(d);
    if (n == 0) {
        snprintf(why, whylen, "no nodeN directory under %.200s", path);
        return -ENOENT;
    }
    qsort(ids, (size_t)n, sizeof ids[0], cmp_int);
    for (int i = 0; i < n; i++)
        describe(&out[i], ids[i]);
    return n;
}

const char *mb_memnode_kind(const mb_memnode_t *n)
{
    if (!n->memory_known)
        return n->has_cpu ? "CPUs, memory not described" : "memory not described";
    if (n->has_memory)
        return n->has_cpu ? "local DRAM" : "CPU-less memory";
    return n->has_cpu ? "CPUs, no memory" : "neither CPUs nor memory";
}

static double read_num(const char *path)
{
    char line[64], *end;
    if (mb_read_line(path, line, sizeof line) != 0)
        return NAN;
    double v = strtod(line, &end);
    return end == line ? NAN : v;
}

void mb_hmat_lookup(int target, int initiator, mb_hmat_t *out)
{
    *out = (mb_hmat_t){ .declared = false, .access_class = -1, .read_latency_ns = NAN,
                        .write_latency_ns = NAN, .read_bandwidth_mbps = NAN,
                        .write_bandwidth_mbps = NAN };
    for (int c = 0; c <= 1; c++) {
        char path[4096], link[300];
        snprintf(link, sizeof link, "/node%d/access%d/initiators/node%d", target, c, initiator);
        char rel[320];
        snprintf(rel, sizeof rel, "/devices/system/node%s", link);
        if (access(mb_sysfs_path(path, sizeof path, rel), F_OK) != 0)
            continue;
        static const struct { const char *file; size_t off; } figures[] = {
            { "read_latency", offsetof(mb_hmat_t, read_latency_ns) },
            { "write_latency", offsetof(mb_hmat_t, write_latency_ns) },
            { "read_bandwidth", offsetof(mb_hmat_t, read_bandwidth_mbps) },
            { "write_bandwidth", offsetof(mb_hmat_t, write_bandwidth_mbps) },
        };
        for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++) {
            char f[320];
            snprintf(f, sizeof f, "/devices/system/node/node%d/access%d/initiators/%s", target, c,
                     figures[k].file);
            *(double *)(void *)((char *)out + figures[k].off) =
                read_num(mb_sysfs_path(path, sizeof path, f));
        }
        out->declared = true;
        out->access_class = c;
        return;
    }
}

uint64_t mb_memnodes_usable_mask(void)
{
    mb_memnode_t n[MB_MEMNODES_MAX];
    char why[256], path[4096], line[1024];
    int k = mb_memnodes_list(n, MB_MEMNODES_MAX, why, sizeof why);
    if (k <= 0)
        return 1;
    uint64_t mask = 0, allowed = ~0ULL;
    for (int i = 0; i < k; i++)
        if (n[i].has_memory && n[i].node < 64)
            mask |= 1ULL << n[i].node;
    FILE *f = mb_fact_fopen(mb_procfs_path(path, sizeof path, "/self/status"));
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Mems_allowed_list:", 18) != 0)
            continue;
        char *v = line + 18;
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        uint64_t m;
        if (mb_numa_parse_nodes(v, ~0ULL, &m, NULL, 0) == 0)
            allowed = m;
        break;
    }
    if (f)
        fclose(f);
    return mask & allowed;
}
