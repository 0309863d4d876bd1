/* weighted: pages over nodes by weight (see weighted.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "numa.h"
#include "pagesize.h"
#include "sizing.h"
#include "weighted.h"

#define MPOL_WEIGHTED_INTERLEAVE_MODE 6   /* linux/mempolicy.h, Linux 6.9 */
#define MASK_BITS 1024
#define MAX_RANGES 16384                  /* mappings a placement may create */

int mb_weights_parse(const char *text, uint64_t allowed, mb_weights_t *w, char *msg, size_t msglen)
{
    static const char *const form = "the form is NODE:WEIGHT[,NODE:WEIGHT...], weights 0 to 1000, "
                                    "e.g. 0:3,2:1";
    memset(w, 0, sizeof *w);
    if (!text || !*text) {
        snprintf(msg, msglen, "--interleave-weights: empty list; %s", form);
        return -EINVAL;
    }
    char shown[96];             /* the list as messages show it (escaped, cut) */
    const char *tx = mb_shown(text, 40, shown, sizeof shown);
    const char *s = text;
    unsigned total = 0;
    for (;;) {
        const char *item = s;
        size_t len = strcspn(s, ",");
        char *end;
        long node = -1, weight = -1;
        if (len && isdigit((unsigned char)*s)) {
            node = strtol(s, &end, 10);
            if (*end == ':' && isdigit((unsigned char)end[1])) {
                weight = strtol(end + 1, &end, 10);
                if (end != item + len)
                    weight = -1;
            }
        }
        if (node < 0 || weight < 0 || node >= MB_WEIGHTS_MAX || weight > MB_WEIGHT_MAX) {
            char one[40], one_shown[96];
            snprintf(one, sizeof one, "%.*s", (int)len, item);
            snprintf(msg, msglen, "--interleave-weights '%s': '%s' is not NODE:WEIGHT with NODE "
                     "0 to %d; %s", tx, mb_shown(one, 0, one_shown, sizeof one_shown),
                     MB_WEIGHTS_MAX - 1, form);
            return -EINVAL;
        }
        for (int k = 0; k < w->n; k++)
            if (w->node[k] == node) {
                snprintf(msg, msglen, "--interleave-weights '%s': node %ld is listed twice", tx,
                         node);
                return -EINVAL;
            }
        if (!(allowed >> node & 1)) {
            char ok[256];
            snprintf(msg, msglen, "--interleave-weights '%s': node %ld is not a memory node this "
                     "process may use (those are %s)", tx, node,
                     mb_numa_format_nodes(allowed, ok, sizeof ok));
            return -EINVAL;
        }
        w->node[w->n] = (int)node;
        w->weight[w->n++] = (unsigned)weight;
        total += (unsigned)weight;
        s += len;
        if (!*s)
            break;
        s++;   /* the comma: an empty item follows when the list ends here */
    }
    if (total == 0) {
        snprintf(msg, msglen, "--interleave-weights '%s': every weight is 0; give at least one "
                 "node a weight above 0", tx);
        return -EINVAL;
    }
    return 0;
}

const char *mb_weights_format(const mb_weights_t *w, char *buf, size_t buflen)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < w->n && at < buflen; k++)
        at += (size_t)snprintf(buf + at, buflen - at, "%s%d:%u", k ? "," : "", w->node[k],
                               w->weight[k]);
    return buf;
}

static unsigned gcd(unsigned a, unsigned b)
{
    while (b) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Whether the kernel's system-wide weights give the asked ratio: every
 * node with a weight above 0 has a weight file, and the two lists
 * reduced by their gcd are equal.  why says why not. */
static bool kernel_weights_match(const mb_weights_t *w, char *why, size_t whylen)
{
    char path[4096], line[32];
    unsigned want_g = 0, have_g = 0, have[MB_WEIGHTS_MAX] = { 0 };
    if (mb_read_line(mb_sysfs_path(path, sizeof path, "/kernel/mm/mempolicy/weighted_interleave/node0"),
                     line, sizeof line) == -ENOENT) {
        char dir[4096];
        snprintf(why, whylen, "the kernel has no weighted interleave (%s: Linux 6.9+)",
                 mb_sysfs_path(dir, sizeof dir, "/kernel/mm/mempolicy/weighted_interleave"));
        return false;
    }
    for (int k = 0; k < w->n; k++) {
        if (!w->weight[k])
            continue;
        char rel[96];
        snprintf(rel, sizeof rel, "/kernel/mm/mempolicy/weighted_interleave/node%d", w->node[k]);
        if (mb_read_line(mb_sysfs_path(path, sizeof path, rel), line, sizeof line) != 0 ||
            (have[k] = (unsigned)strtoul(line, NULL, 10)) == 0) {
            snprintf(why, whylen, "the kernel's weighted interleave has no weight for node %d",
                     w->node[k]);
            return false;
        }
        want_g = gcd(want_g, w->weight[k]);
        have_g = gcd(have_g, have[k]);
    }
    for (int k = 0; k < w->n; k++)
        if (w->weight[k] && w->weight[k] / want_g != have[k] / have_g) {
            snprintf(why, whylen, "the kernel's system-wide weights (%s) give node %d weight %u, "
                     "not the ratio asked; memsuite does not change them",
                     mb_sysfs_path(path, sizeof path, "/kernel/mm/mempolicy/weighted_interleave"),
                     w->node[k], have[k]);
            return false;
        }
    return true;
}

static long mbind_nodes(void *p, size_t len, int mode, const unsigned long *mask)
{
    return syscall(SYS_mbind, p, (unsigned long)len, mode, mask, (unsigned long)MASK_BITS + 1, 0u);
}

int mb_weights_place(void *p, size_t bytes, const mb_weights_t *w, char *how, size_t howlen)
{
    const size_t pg = mb_page_size();
    bytes &= ~(pg - 1);
    char why[320] = "";
    if (kernel_weights_match(w, why, sizeof why)) {
        unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))] = { 0 };
        for (int k = 0; k < w->n; k++)
            if (w->weight[k])
                mask[w->node[k] / 64] |= 1UL << (w->node[k] % 64);
        if (mbind_nodes(p, bytes, MPOL_WEIGHTED_INTERLEAVE_MODE, mask) == 0) {
            snprintf(how, howlen, "kernel MPOL_WEIGHTED_INTERLEAVE (its system-wide weights give "
                     "the ratio asked)");
            return 0;
        }
        snprintf(why, sizeof why, "mbind(MPOL_WEIGHTED_INTERLEAVE) failed: %s", strerror(errno));
    }
    unsigned total = 0;
    for (int k = 0; k < w->n; k++)
        total += w->weight[k];
    /* The unit: the PMD huge page (2 MiB with 4 KiB pages, 512 MiB with
     * 64 KiB; common/pagesize), so THP can still back the buffer, when
     * the buffer holds 64 rounds of the weights; a base page for smaller
     * buffers so the ratio holds; and no more than MAX_RANGES ranges, each
     * a mapping of its own (vm.max_map_count is 65530 by default). */
    const size_t huge = mb_huge_align();
    size_t unit = bytes / 64 / huge >= (size_t)total ? huge : pg;
    while (bytes / unit > MAX_RANGES)
        unit *= 2;
    char *at = p, *end = (char *)p + bytes;
    while (at < end) {
        for (int k = 0; k < w->n && at < end; k++) {
            if (!w->weight[k])
                continue;
            size_t len = (size_t)w->weight[k] * unit;
            if (len > (size_t)(end - at))
                len = (size_t)(end - at);
            char err[200];
            if (mb_numa_bind_range(at, len, w->node[k], err, sizeof err) != 0) {
                snprintf(how, howlen, "placing by weight failed: %s", err);
                return -EIO;
            }
            at += len;
        }
    }
    char u[32];
    snprintf(how, howlen, "ranges of %s per weight unit bound node by node (mbind), repeated over "
             "the buffer; %s", mb_format_bytes(unit, u, sizeof u), why);
    return 0;
}
