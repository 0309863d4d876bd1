/* numa: node-list parsing, request checks, binding through libnuma and
 * page-placement queries through move_pages(2).  The only file that
 * tests HAVE_LIBNUMA. */
#include "numa.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "pagesize.h"
#include "sizing.h"

#if HAVE_LIBNUMA
#include <numa_sys.h>   /* the system <numa.h>; see numa_sys.h */
#endif

#define NODE_LIST_HINT "use numactl syntax, e.g. 0, 0-1, 0,2 or all"

static const char unbuilt_text[] = "built without libnuma; install libnuma-dev and rebuild";

/* ---- node lists ------------------------------------------------------ */

/* C as a message shows it: 'c' when printable ASCII, else as mb_shown
 * writes it (^[, \xc3: never a raw control byte on a terminal). */
static const char *shown_char(char c, char buf[8])
{
    unsigned char u = (unsigned char)c;
    const char one[2] = { c, '\0' };
    if (u >= 0x20 && u < 0x7f)
        snprintf(buf, 8, "'%c'", c);
    else
        mb_shown(one, 0, buf, 8);
    return buf;
}

/* One node number at *p; advances *p.  0 or -EINVAL with why. */
static int parse_node(const char **p, unsigned *node, char *why, size_t whylen)
{
    const char *s = *p;
    char c[8];
    if (!isdigit((unsigned char)*s)) {
        if (*s == '\0' || *s == ',')
            snprintf(why, whylen, "missing node number");
        else
            snprintf(why, whylen, "%s is not part of a node number", shown_char(*s, c));
        return -EINVAL;
    }
    unsigned long v = 0;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (unsigned long)(*s - '0');
        if (v > 1000000)
            break;
        s++;
    }
    if (v >= MB_NUMA_MAX_NODES) {
        snprintf(why, whylen, "node %lu is beyond the supported maximum %d",
                 v, MB_NUMA_MAX_NODES - 1);
        return -EINVAL;
    }
    *node = (unsigned)v;
    *p = s;
    return 0;
}

int mb_numa_parse_nodes(const char *text, uint64_t all, uint64_t *mask,
                        char *msg, size_t msglen)
{
    char why[128];
    uint64_t m = 0;
    *mask = 0;
    if (!text || !*text) {
        snprintf(msg, msglen, "empty node list; " NODE_LIST_HINT);
        return -EINVAL;
    }
    if (strcmp(text, "all") == 0) {
        *mask = all;
        return 0;
    }
    const char *p = text;
    for (;;) {
        unsigned lo, hi;
        if (parse_node(&p, &lo, why, sizeof why) < 0)
            goto bad;
        hi = lo;
        if (*p == '-') {
            p++;
            if (parse_node(&p, &hi, why, sizeof why) < 0)
                goto bad;
            if (hi < lo) {
                snprintf(why, sizeof why, "range %u-%u runs backwards", lo, hi);
                goto bad;
            }
        }
        for (unsigned n = lo; n <= hi; n++)
            m |= UINT64_C(1) << n;
        if (*p == '\0')
            break;
        if (*p != ',') {
            char c[8];
            snprintf(why, sizeof why, "unexpected %s after node %u", shown_char(*p, c), hi);
            goto bad;
        }
        p++;
    }
    *mask = m;
    return 0;
bad:;
    char shown[96];             /* the list as the message shows it (escaped, cut) */
    snprintf(msg, msglen, "invalid node list '%s': %s; " NODE_LIST_HINT,
             mb_shown(text, 40, shown, sizeof shown), why);
    return -EINVAL;
}

const char *mb_numa_format_nodes(uint64_t mask, char *buf, size_t buflen)
{
    size_t len = 0;
    if (buflen == 0)
        return buf;
    buf[0] = '\0';
    for (int n = 0; n < MB_NUMA_MAX_NODES; n++) {
        if (!(mask >> n & 1))
            continue;
        int end = n;
        while (end + 1 < MB_NUMA_MAX_NODES && (mask >> (end + 1) & 1))
            end++;
        int w = end == n
            ? snprintf(buf + len, buflen - len, "%s%d", len ? "," : "", n)
            : snprintf(buf + len, buflen - len, "%s%d-%d", len ? "," : "", n, end);
        if (w < 0 || (size_t)w >= buflen - len)
            break;
        len += (size_t)w;
        n = end;
    }
    return buf;
}

/* ---- what the kernel shows in sysfs ------------------------------------ */

static bool is_node_entry(const char *name)
{
    if (strncmp(name, "node", 4) != 0 || !name[4])
        return false;
    for (const char *s = name + 4; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

int mb_numa_sysfs_nodes(char *why, size_t whylen)
{
    char path[4096];
    mb_sysfs_path(path, sizeof path, "/devices/system/node");
    DIR *d = opendir(path);
    if (!d) {
        int e = errno;
        snprintf(why, whylen, "no %s: %s (kernel without NUMA support)", path, strerror(e));
        return -e;
    }
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (is_node_entry(de->d_name))
            n++;
    closedir(d);
    if (n == 0) {
        snprintf(why, whylen, "no nodeN entries in %s", path);
        return -ENOENT;
    }
    return n;
}

int mb_numa_node_count(void)
{
    char why[256];
    int n = mb_numa_sysfs_nodes(why, sizeof why);
    return n > 0 ? n : 1;
}

uint64_t mb_numa_online_mask(void)
{
    char path[4096], line[512], msg[256];
    uint64_t m;
    mb_sysfs_path(path, sizeof path, "/devices/system/node/online");
    if (mb_read_line(path, line, sizeof line) == 0 &&
        mb_numa_parse_nodes(line, 0, &m, msg, sizeof msg) == 0 && m)
        return m;
    /* No online list: node directories, else the single node 0. */
    mb_sysfs_path(path, sizeof path, "/devices/system/node");
    m = 0;
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (!is_node_entry(de->d_name))
                continue;
            long id = strtol(de->d_name + 4, NULL, 10);
            if (id >= 0 && id < MB_NUMA_MAX_NODES)
                m |= UINT64_C(1) << id;
        }
        closedir(d);
    }
    return m ? m : 1;
}

/* ---- requests ---------------------------------------------------------- */

typedef struct {
    const char *option;     /* "--membind" */
    const char *value;      /* the list, NULL/"" when not asked */
} req_item_t;

static bool asked(const char *s)
{
    return s && *s;
}

static size_t request_items(const mb_numa_request_t *req, req_item_t it[3])
{
    size_t n = 0;
    if (!req)
        return 0;
    const req_item_t all[3] = {
        { "--membind", req->membind },
        { "--interleave", req->interleave },
        { "--cpunodebind", req->cpunodebind },
    };
    for (size_t i = 0; i < 3; i++)
        if (asked(all[i].value))
            it[n++] = all[i];
    return n;
}

uint64_t mb_numa_cpu_mask(uint64_t online)
{
    char path[4096], line[512], msg[256];
    uint64_t m;
    mb_sysfs_path(path, sizeof path, "/devices/system/node/has_cpu");
    if (mb_read_line(path, line, sizeof line) == 0 &&
        mb_numa_parse_nodes(line, 0, &m, msg, sizeof msg) == 0 && m)
        return m & online;
    m = 0;
    for (int n = 0; n < MB_NUMA_MAX_NODES; n++) {
        if (!(online & (UINT64_C(1) << n)))
            continue;
        char rel[64];
        snprintf(rel, sizeof rel, "/devices/system/node/node%d/cpulist", n);
        mb_sysfs_path(path, sizeof path, rel);
        int rc = mb_read_line(path, line, sizeof line);
        bool empty = (rc == 0 && !line[0]) || rc == -ENODATA;
        if (!empty)
            m |= UINT64_C(1) << n;
    }
    return m;
}

int mb_numa_check_request(const mb_numa_request_t *req, char *msg, size_t msglen)
{
    req_item_t it[3];
    size_t n = request_items(req, it);
    uint64_t online = mb_numa_online_mask();
    char err[256], valid[128];

    for (size_t i = 0; i < n; i++) {
        uint64_t m;
        if (mb_numa_parse_nodes(it[i].value, online, &m, err, sizeof err) < 0) {
            snprintf(msg, msglen, "%s: %s", it[i].option, err);
            return -EINVAL;
        }
        uint64_t bad = m & ~online;
        if (bad) {
            snprintf(msg, msglen, "%s %s: node %d does not exist; valid nodes are %s "
                     "(see numactl --hardware)", it[i].option, it[i].value,
                     __builtin_ctzll(bad), mb_numa_format_nodes(online, valid, sizeof valid));
            return -EINVAL;
        }
        /* A memory-only node (CXL expander, HBM) has no CPU to run on:
         * libnuma would fail later with a bare EINVAL. */
        uint64_t cpus = mb_numa_cpu_mask(online);
        uint64_t nocpu = m & ~cpus;
        if (strcmp(it[i].option, "--cpunodebind") == 0 && strcmp(it[i].value, "all") != 0 &&
            nocpu) {
            snprintf(msg, msglen, "%s %s: node %d has no CPUs (a memory-only node); nodes "
                     "with CPUs are %s; use its memory with --membind or --interleave",
                     it[i].option, it[i].value, __builtin_ctzll(nocpu),
                     mb_numa_format_nodes(cpus, valid, sizeof valid));
            return -EINVAL;
        }
    }
    if (asked(req ? req->membind : NULL) && asked(req->interleave)) {
        snprintf(msg, msglen, "--membind and --interleave conflict: memory takes one "
                 "policy; give only one of them");
        return -EINVAL;
    }
    if (n && !mb_numa_built()) {
        snprintf(msg, msglen, "%s: %s", it[0].option, unbuilt_text);
        return -ENOSYS;
    }
    return 0;
}

/* ---- the inherited memory policy ---------------------------------------
 * With no NUMA option the policy is whatever the parent set (numactl
 * --membind, --interleave, --preferred, --localalloc).  get_mempolicy(2)
 * reads it without libnuma.  The mode values are the kernel's ABI
 * (linux/mempolicy.h, which clashes with libnuma's numaif.h). */
enum { POL_PREFERRED = 1, POL_BIND = 2, POL_INTERLEAVE = 3, POL_LOCAL = 4 };
#define POL_FLAGS ((1 << 15) | (1 << 14))   /* MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES */
#define POL_MAX_NODES 1024

/* Node list in numactl syntax (0-3,6) from a bit mask. */
static void policy_nodes_text(const unsigned long *mask, char *buf, size_t buflen)
{
    const size_t bits = 8 * sizeof *mask;
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < POL_MAX_NODES; i++) {
        if (!((mask[i / bits] >> (i % bits)) & 1ul))
            continue;
        size_t j = i;
        while (j + 1 < POL_MAX_NODES && ((mask[(j + 1) / bits] >> ((j + 1) % bits)) & 1ul))
            j++;
        int w = j > i ? snprintf(buf + len, buflen - len, "%s%zu-%zu", len ? "," : "", i, j)
                      : snprintf(buf + len, buflen - len, "%s%zu", len ? "," : "", i);
        if (w < 0 || (size_t)w >= buflen - len)
            return;
        len += (size_t)w;
        i = j;
    }
}

/* Writes e.g. "inherited from the parent (e.g. numactl): membind=0-1";
 * returns false when the policy is the default or cannot be read. */
static bool policy_inherited(char *buf, size_t buflen)
{
    unsigned long mask[POL_MAX_NODES / (8 * sizeof(unsigned long))];
    int mode = 0;
    memset(mask, 0, sizeof mask);
    if (syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)POL_MAX_NODES + 1, NULL, 0ul) != 0)
        return false;
    static const char *const names[] = {
        [POL_PREFERRED] = "preferred", [POL_BIND] = "membind",
        [POL_INTERLEAVE] = "interleave", [POL_LOCAL] = "localalloc",
    };
    int m = mode & ~POL_FLAGS;
    if (m <= 0 || m >= (int)(sizeof names / sizeof names[0]) || !names[m])
        return false;
    char nodes[128];
    policy_nodes_text(mask, nodes, sizeof nodes);
    snprintf(buf, buflen, "inherited from the parent (e.g. numactl): %s%s%s", names[m],
             nodes[0] ? "=" : "", nodes);
    return true;
}

const char *mb_numa_describe(const mb_numa_request_t *req, char *buf, size_t buflen)
{
    req_item_t it[3];
    size_t n = request_items(req, it), len = 0;
    if (buflen == 0)
        return buf;
    buf[0] = '\0';
    if (n == 0) {
        if (!policy_inherited(buf, buflen))
            snprintf(buf, buflen, "default (first touch)");
        return buf;
    }
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(buf + len, buflen - len, "%s%s=%s", i ? " " : "",
                         it[i].option + 2, it[i].value);
        if (w < 0 || (size_t)w >= buflen - len)
            break;
        len += (size_t)w;
    }
    return buf;
}

/* ---- why a NUMA system call failed ------------------------------------- */

/* ENOSYS from get_mempolicy, mbind, move_pages or set_mempolicy: a Linux
 * kernel built without NUMA answers these with ENOSYS too, but so does a
 * user-mode emulator (qemu-user implements none of them), and there the
 * kernel is not at fault.  The words every message uses for it. */
#define NUMA_ENOSYS_TEXT "the NUMA system calls are not implemented here (an emulator? or a kernel without CONFIG_NUMA)"

#if HAVE_LIBNUMA
/* get_mempolicy(2) probed: 0 when it answers, else the errno. */
static int numa_syscalls_errno(void)
{
    int mode = 0;
    return syscall(SYS_get_mempolicy, &mode, NULL, 0ul, NULL, 0ul) == 0 ? 0 : errno;
}
#endif

/* ---- placement: move_pages(2) in query mode ---------------------------- */

#define PLACEMENT_BATCH 512

int mb_numa_placement(const void *buf, size_t bytes, size_t max_samples,
                      mb_numa_placement_t *out)
{
    memset(out, 0, sizeof *out);
    out->max_node = -1;
    if (!buf || bytes == 0) {
        snprintf(out->why, sizeof out->why, "empty buffer: nothing to query");
        return -EINVAL;
    }
#ifndef SYS_move_pages
    snprintf(out->why, sizeof out->why, "move_pages(2) does not exist on this architecture");
    return -ENOSYS;
#else
    size_t page = mb_page_size();
    uintptr_t start = (uintptr_t)buf & ~(uintptr_t)(page - 1);
    uintptr_t end = (uintptr_t)buf + bytes;
    size_t npages = (size_t)(end - start + page - 1) / page;
    if (max_samples == 0)
        max_samples = 4096;
    size_t stride = (npages + max_samples - 1) / max_samples;
    if (stride == 0)
        stride = 1;

    void *pages[PLACEMENT_BATCH];
    int status[PLACEMENT_BATCH];
    size_t idx = 0;
    while (idx < npages) {
        unsigned long cnt = 0;
        for (; cnt < PLACEMENT_BATCH && idx < npages; cnt++, idx += stride) {
            pages[cnt] = (void *)(start + idx * page);
            status[cnt] = -1;
        }
        long r = syscall(SYS_move_pages, 0, cnt, pages, NULL, status, 0);
        if (r < 0) {
            int e = errno;
            snprintf(out->why, sizeof out->why, "move_pages(2) query failed: %s%s",
                     strerror(e), e == ENOSYS ? " (" NUMA_ENOSYS_TEXT ")" : "");
            out->valid = false;
            return -e;
        }
        for (unsigned long i = 0; i < cnt; i++) {
            int node = status[i];
            out->pages_sampled++;
            if (node < 0) {
                out->pages_not_present++;
                continue;
            }
            if (node > out->max_node)
                out->max_node = node;
            if (node < MB_NUMA_MAX_NODES)
                out->pages_on_node[node]++;
        }
    }
    out->valid = true;
    return 0;
#endif
}

/* ---- the libnuma-dependent part ---------------------------------------- */

const char *mb_numa_why_unbuilt(void)
{
    return unbuilt_text;
}

#if HAVE_LIBNUMA

bool mb_numa_built(void)
{
    return true;
}

const char *mb_numa_version(char *buf, size_t buflen)
{
    snprintf(buf, buflen, "API %d", LIBNUMA_API_VERSION);
    return buf;
}

bool mb_numa_usable(char *why, size_t whylen)
{
    if (numa_available() < 0) {
        if (numa_syscalls_errno() == ENOSYS)
            snprintf(why, whylen, "%s: get_mempolicy(2) answered ENOSYS", NUMA_ENOSYS_TEXT);
        else
            snprintf(why, whylen, "the kernel reports no NUMA support (numa_available() < 0)");
        return false;
    }
    if (whylen)
        why[0] = '\0';
    return true;
}

/* libnuma's diagnostics hooks (weak in libnuma, meant to be replaced by
 * the application): route them through our log so they keep our shape. */
void numa_error(char *where)
{
    int e = errno;
    mb_warn("libnuma: %s: %s", where, strerror(e));
}

void numa_warn(int num, char *fmt, ...)
{
    char text[256];
    va_list ap;
    (void)num;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    size_t len = strlen(text);
    while (len && text[len - 1] == '\n')
        text[--len] = '\0';
    mb_warn("libnuma: %s", text);
}

typedef enum { APPLY_CPU, APPLY_BIND, APPLY_INTERLEAVE } apply_kind_t;

/* Apply one option; read the policy back, since numa_set_membind and
 * numa_set_interleave_mask return nothing. */
static int apply_one(apply_kind_t kind, const char *option, const char *list,
                     char *msg, size_t msglen)
{
    struct bitmask *want = numa_parse_nodestring(list);
    if (!want) {
        snprintf(msg, msglen, "%s %s: libnuma rejected the node list (nodes outside "
                 "this process's cpuset?); check with numactl --show", option, list);
        return -EINVAL;
    }
    struct bitmask *got = NULL;
    int rc = 0;
    errno = 0;
    switch (kind) {
    case APPLY_CPU:
        if (numa_run_on_node_mask(want) < 0) {
            rc = -(errno ? errno : EINVAL);
            snprintf(msg, msglen, "%s %s: numa_run_on_node_mask failed: %s; check that "
                     "the cpuset allows those CPUs", option, list, strerror(-rc));
        }
        break;
    case APPLY_BIND:
        numa_set_bind_policy(1);
        numa_set_membind(want);
        got = numa_get_membind();
        break;
    case APPLY_INTERLEAVE:
        numa_set_interleave_mask(want);
        got = numa_get_interleave_mask();
        break;
    }
    if (kind != APPLY_CPU && (!got || !numa_bitmask_equal(want, got))) {
        int e = errno ? errno : EPERM;
        rc = -e;
        snprintf(msg, msglen, "%s %s: set_mempolicy did not take effect: %s; check "
                 "the cpuset's allowed memory nodes", option, list, strerror(e));
    }
    if (got)
        numa_bitmask_free(got);
    numa_bitmask_free(want);
    return rc;
}

int mb_numa_apply(const mb_numa_request_t *req, char *msg, size_t msglen)
{
    int rc = mb_numa_check_request(req, msg, msglen);
    if (rc < 0)
        return rc;
    if (!req || (!asked(req->cpunodebind) && !asked(req->membind) && !asked(req->interleave)))
        return 0;
    if (numa_available() < 0) {
        if (numa_syscalls_errno() == ENOSYS)
            snprintf(msg, msglen, "NUMA placement requested but %s: get_mempolicy(2) answered "
                     "ENOSYS; drop --membind/--interleave/--cpunodebind", NUMA_ENOSYS_TEXT);
        else
            snprintf(msg, msglen, "NUMA placement requested but the kernel reports no NUMA "
                     "support (numa_available() < 0); drop --membind/--interleave/--cpunodebind");
        return -ENODEV;
    }
    if (asked(req->cpunodebind) &&
        (rc = apply_one(APPLY_CPU, "--cpunodebind", req->cpunodebind, msg, msglen)) < 0)
        return rc;
    if (asked(req->membind) &&
        (rc = apply_one(APPLY_BIND, "--membind", req->membind, msg, msglen)) < 0)
        return rc;
    if (asked(req->interleave) &&
        (rc = apply_one(APPLY_INTERLEAVE, "--interleave", req->interleave, msg, msglen)) < 0)
        return rc;
    return 0;
}

#else /* !HAVE_LIBNUMA */

bool mb_numa_built(void)
{
    return false;
}

const char *mb_numa_version(char *buf, size_t buflen)
{
    snprintf(buf, buflen, "not built");
    return buf;
}

bool mb_numa_usable(char *why, size_t whylen)
{
    snprintf(why, whylen, "%s", unbuilt_text);
    return false;
}

int mb_numa_apply(const mb_numa_request_t *req, char *msg, size_t msglen)
{
    /* check_request answers -ENOSYS for any valid non-empty request. */
    return mb_numa_check_request(req, msg, msglen);
}

#endif

/* ---- one range bound to one node: mbind(2) ------------------------------ */

int mb_numa_bind_range(void *p, size_t bytes, int node, char *why, size_t whylen)
{
    if (node < 0 || node >= POL_MAX_NODES) {
        snprintf(why, whylen, "memory node %d is out of range 0..%d", node, POL_MAX_NODES - 1);
        return -EINVAL;
    }
    const uintptr_t pg = mb_page_size(), lo = ((uintptr_t)p + pg - 1) & ~(pg - 1),
                    hi = ((uintptr_t)p + bytes) & ~(pg - 1);
    if (hi <= lo)
        return 0;
    unsigned long mask[POL_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
    mask[(unsigned)node / (8 * sizeof(unsigned long))] |= 1UL << ((unsigned)node % (8 * sizeof(unsigned long)));
    if (syscall(SYS_mbind, (void *)lo, (unsigned long)(hi - lo), POL_BIND, mask,
                (unsigned long)POL_MAX_NODES + 1, 0u) == 0)
        return 0;
    int e = errno;
    snprintf(why, whylen, "mbind to memory node %d failed: %s%s", node, strerror(e),
             e == EINVAL || e == ENODEV ? " (the node has no memory, or does not exist)"
             : e == ENOSYS              ? " (" NUMA_ENOSYS_TEXT ")"
                                        : "");
    return -e;
}
