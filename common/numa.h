/* numa: thread/memory binding through libnuma and page-placement
 * verification.  Built without libnuma (HAVE_LIBNUMA=0), every call that
 * would change placement returns -ENOSYS and mb_numa_why_unbuilt() says
 * "built without libnuma; install libnuma-dev and rebuild".
 * HAVE_LIBNUMA is tested in numa.c only. */
#ifndef MB_NUMA_H
#define MB_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_NUMA_MAX_NODES 64

typedef enum {
    MB_NUMA_POLICY_DEFAULT = 0, /* first touch, nothing requested */
    MB_NUMA_POLICY_BIND,        /* --membind N */
    MB_NUMA_POLICY_INTERLEAVE,  /* --interleave [all|LIST] */
} mb_numa_mem_policy_t;

/* What the user asked for.  Node lists use numactl syntax ("0", "0-1",
 * "0,2", "all"). NULL/empty means "not asked". */
typedef struct {
    const char *cpunodebind;   /* --cpunodebind */
    const char *membind;       /* --membind */
    const char *interleave;    /* --interleave */
} mb_numa_request_t;

/* Where the pages of a buffer landed. */
typedef struct {
    bool valid;                          /* false: see why */
    char why[160];
    size_t pages_sampled;                /* pages queried */
    size_t pages_not_present;            /* -ENOENT: never touched */
    size_t pages_on_node[MB_NUMA_MAX_NODES];
    int max_node;                        /* highest node seen, -1 if none */
} mb_numa_placement_t;

bool mb_numa_built(void);                 /* compiled with libnuma */
/* "API 2" (LIBNUMA_API_VERSION) or "not built". */
const char *mb_numa_version(char *buf, size_t buflen);
/* True when built and the kernel supports NUMA; otherwise false and why
 * holds the reason. */
bool mb_numa_usable(char *why, size_t whylen);
const char *mb_numa_why_unbuilt(void);    /* the fixed "built without" text */
int mb_numa_node_count(void);             /* configured nodes; 1 when unknown */
/* Nodes listed under <sysfs>/devices/system/node (honours MEMSUITE_SYSFS):
 * the count, or -ENOENT with why when the kernel has no node directory. */
int mb_numa_sysfs_nodes(char *why, size_t whylen);
/* Online nodes as a bit mask (bit n = node n), from
 * <sysfs>/devices/system/node/online; {0} when the kernel has no NUMA. */
uint64_t mb_numa_online_mask(void);
/* The nodes of `online` that have CPUs, from <sysfs>/devices/system/node/
 * has_cpu, else each node whose nodeN/cpulist is empty counts as CPU-less
 * (an unreadable list counts as having CPUs: unknown is not "none"). */
uint64_t mb_numa_cpu_mask(uint64_t online);

/* Parse a numactl-style node list ("0", "0-1", "0,2", "1-3,5", "all")
 * into a bit mask.  "all" yields `all`.  0, or -EINVAL with msg naming
 * the offending part.  Nodes above MB_NUMA_MAX_NODES-1 are rejected. */
int mb_numa_parse_nodes(const char *text, uint64_t all, uint64_t *mask,
                        char *msg, size_t msglen);
/* "0-1,3" from a mask ("" for an empty mask). */
const char *mb_numa_format_nodes(uint64_t mask, char *buf, size_t buflen);

/* Validate a request (syntax; nodes exist, checked against the online
 * nodes in sysfs; options not in conflict: membind and interleave
 * together are a conflict).  0, -EINVAL (usage: caller exits 2) or,
 * for a valid non-empty request in a build without libnuma, -ENOSYS
 * (caller exits 4), with msg. */
int mb_numa_check_request(const mb_numa_request_t *req, char *msg, size_t msglen);
/* Apply a request to the calling process (before threads start and before
 * allocation).  Returns 0, -ENOSYS (not built: caller exits 4), -EINVAL
 * (bad request: exits 2), -ENODEV (kernel without NUMA support: exits 3),
 * or the -errno of a refused set_mempolicy/sched_setaffinity (exits 3).
 * An empty request is 0 in every build. */
int mb_numa_apply(const mb_numa_request_t *req, char *msg, size_t msglen);
/* One-line description, e.g. "membind=0 cpunodebind=0"; for an empty request
 * the policy inherited from the parent ("inherited from the parent (e.g.
 * numactl): membind=0") or "default (first touch)". */
const char *mb_numa_describe(const mb_numa_request_t *req, char *buf, size_t buflen);

/* Query the node of every stride-th page of [buf, buf+bytes) via
 * move_pages(2) (query mode, raw syscall: works in builds without
 * libnuma too).  max_samples bounds the work (0: 4096).  A page whose
 * status is an error (-ENOENT: never touched, or -EFAULT ...) counts as
 * not present; nodes >= MB_NUMA_MAX_NODES raise max_node only.
 * Returns 0 (out->valid true), or -errno with out->why filled. */
int mb_numa_placement(const void *buf, size_t bytes, size_t max_samples,
                      mb_numa_placement_t *out);

/* Binds the pages of [p, p + bytes) (p page aligned; the range is
 * trimmed to whole pages) to memory node `node` with mbind(2) MPOL_BIND,
 * before anything is touched: the matrix's per-cell placement.  A raw
 * system call, so it works in builds without libnuma.  0, or -errno with
 * why naming the node. */
int mb_numa_bind_range(void *p, size_t bytes, int node, char *why, size_t whylen);

#endif
