/* weighted: a buffer's pages spread over memory nodes in proportion to
 * weights (--interleave-weights 0:3,2:1: three pages on node 0 for every
 * one on node 2), the placement tiered memory (DRAM plus CXL or HBM)
 * is tuned with.
 *
 * Two ways, and the result says which was used:
 *   kernel    MPOL_WEIGHTED_INTERLEAVE (Linux 6.9+) when the kernel has it
 *             and its weights (system-wide, in /sys/kernel/mm/mempolicy/
 *             weighted_interleave/nodeN) already give the asked ratio:
 *             memsuite never rewrites those system settings;
 *   ranges    otherwise, consecutive ranges bound (mbind MPOL_BIND) node
 *             by node, weight units each, repeated over the buffer, as
 *             multichase's -W places its arena; the unit is the PMD
 *             huge page (2 MiB with 4 KiB pages; common/pagesize) when
 *             the buffer holds 64 rounds of them, else the base page. */
#ifndef MB_WEIGHTED_H
#define MB_WEIGHTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_WEIGHTS_MAX 64
#define MB_WEIGHT_MAX 1000

typedef struct {
    int n;
    int node[MB_WEIGHTS_MAX];
    unsigned weight[MB_WEIGHTS_MAX];   /* 0..MB_WEIGHT_MAX, at least one above 0 */
} mb_weights_t;

/* "NODE:W,NODE:W..." into *w.  Every node must be in `allowed` (a bit per
 * node: the nodes with memory this process may use).  0, or -EINVAL with
 * msg naming the bad item and the accepted form: an empty list or item,
 * a node or weight that is not a whole number, a weight above
 * MB_WEIGHT_MAX or negative, a node listed twice or outside `allowed`,
 * every weight 0. */
int mb_weights_parse(const char *text, uint64_t allowed, mb_weights_t *w, char *msg, size_t msglen);
/* "0:3,2:1" */
const char *mb_weights_format(const mb_weights_t *w, char *buf, size_t buflen);
/* Places the untouched [p, p + bytes) (p page aligned) by weight; how
 * gets "kernel MPOL_WEIGHTED_INTERLEAVE" or "ranges of 2 MiB ..." (the unit) and,
 * for ranges, why the kernel's way was not used.  0, or -errno with how
 * naming the failure. */
int mb_weights_place(void *p, size_t bytes, const mb_weights_t *w, char *how, size_t howlen);

#endif
