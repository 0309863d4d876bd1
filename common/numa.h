/* numa: thread/memory binding through libnuma and page-placement
 * verification.  Built without libnuma (HAVE_LIBNUMA=0), every call that
 * would change placement returns -ENOSYS and mb_numa_why() says
 * "built without libnuma; install libnuma-dev and rebuild".
 * HAVE_LIBNUMA is tested in numa.c only. */
#ifndef MB_NUMA_H
#define MB_NUMA_H

#include <stdbool.h>
#include <stddef.h>

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
/* True when built and the kernel supports NUMA; otherwise false and why
 * holds the reason. */
bool mb_numa_usable(char *why, size_t whylen);
const char *mb_numa_why_unbuilt(void);    /* the fixed "built without" text */
int mb_numa_node_count(void);             /* configured nodes; 1 when unknown */

/* Validate a request (nodes exist, options not in conflict: membind and
 * interleave together are a conflict).  0 or -EINVAL/-ENOSYS with msg. */
int mb_numa_check_request(const mb_numa_request_t *req, char *msg, size_t msglen);
/* Apply a request to the calling process (before threads start and before
 * allocation).  Returns 0, -ENOSYS (not built: caller exits 4), -EINVAL. */
int mb_numa_apply(const mb_numa_request_t *req, char *msg, size_t msglen);
/* One-line description, e.g. "membind=0 cpunodebind=0" or "default (first touch)". */
const char *mb_numa_describe(const mb_numa_request_t *req, char *buf, size_t buflen);

/* Query the node of every stride-th page of [buf, buf+bytes) via
 * move_pages(2) (query mode).  max_samples bounds the work (0: 4096). */
int mb_numa_placement(const void *buf, size_t bytes, size_t max_samples,
                      mb_numa_placement_t *out);

#endif
