/* memnodes: the memory nodes of the machine as sysfs describes them
 * (honours MEMSUITE_SYSFS): which have CPUs and which memory, their size,
 * their memory tier, and the performance the firmware declares for an
 * initiator node reaching them (ACPI HMAT, exposed by the kernel under
 * nodeN/access0 and access1).
 *
 * HMAT in sysfs (Documentation/admin-guide/mm/numaperf.rst):
 *   nodeT/accessC/initiators/nodeI      a link per initiator of class C
 *   nodeT/accessC/initiators/read_latency, write_latency     ns
 *   nodeT/accessC/initiators/read_bandwidth, write_bandwidth MB/s
 * Class 0 lists the best initiators of any kind, class 1 the best that
 * have CPUs. */
#ifndef MB_MEMNODES_H
#define MB_MEMNODES_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_MEMNODES_MAX 64

typedef struct {
    int node;
    bool has_cpu;            /* a non-empty nodeN/cpulist */
    bool has_memory;         /* listed in has_memory (else MemTotal > 0) */
    bool memory_known;       /* has_memory or nodeN/meminfo was readable */
    cpu_set_t cpus;          /* nodeN/cpulist */
    size_t mem_total_bytes;  /* nodeN/meminfo MemTotal; 0 unknown */
    int memory_tier;         /* K of the memory_tierK listing the node; -1 none */
} mb_memnode_t;

/* The online nodes (node/online, else every nodeN directory), ascending,
 * into out[max].  The count (>= 1), or -ENOENT with why when sysfs has no
 * node directory (a kernel without NUMA): then the caller has one node 0
 * holding everything. */
int mb_memnodes_list(mb_memnode_t *out, int max, char *why, size_t whylen);
/* The nodes with memory this process may allocate on: has_memory (or
 * every listed node) within /proc/self/status Mems_allowed_list (honours
 * MEMSUITE_PROCFS; when unreadable, every node with memory).  A bit per
 * node; {0} on a kernel without NUMA. */
uint64_t mb_memnodes_usable_mask(void);
/* "local DRAM", "CPU-less memory", "CPUs, no memory", or, when sysfs
 * describes no memory at all, "CPUs, memory not described" */
const char *mb_memnode_kind(const mb_memnode_t *n);

typedef struct {
    bool declared;           /* initiator is listed for target in some class */
    int access_class;        /* 0 or 1; -1 when not declared */
    double read_latency_ns, write_latency_ns;    /* NAN when the file is absent */
    double read_bandwidth_mbps, write_bandwidth_mbps;
} mb_hmat_t;

/* What the firmware declares for `initiator` reaching `target`: the
 * first access class (0, then 1) that lists the initiator. */
void mb_hmat_lookup(int target, int initiator, mb_hmat_t *out);

#endif
