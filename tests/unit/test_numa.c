/* test_numa: node-list parsing and formatting (tables), node discovery
 * and request checks over fixture sysfs trees, describe(), the
 * "built without libnuma" answers, and page placement through
 * move_pages(2) on this machine (applying a policy in a child). */
#include "check.h"
#include "numa.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void use_fixture(const char *name)
{
    const char *root = getenv("MEMSUITE_ROOT");
    char path[4096];
    if (!root || !*root)
        root = ".";
    snprintf(path, sizeof path, "%s/tests/fixtures/%s/sys", root, name);
    setenv("MEMSUITE_SYSFS", path, 1);
    snprintf(path, sizeof path, "%s/tests/fixtures/%s/proc", root, name);
    setenv("MEMSUITE_PROCFS", path, 1);
}

static void use_real_system(void)
{
    unsetenv("MEMSUITE_SYSFS");
    unsetenv("MEMSUITE_PROCFS");
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
    const char *text;
    uint64_t all;          /* what "all" expands to */
    int rc;
    uint64_t want;
    const char *in_msg;    /* rc != 0: the message must contain this */
} parse_case_t;

static const parse_case_t parse_cases[] = {
    { "0", 0x3, 0, 0x1, NULL },
    { "1", 0x3, 0, 0x2, NULL },
    { "0-1", 0x3, 0, 0x3, NULL },
    { "0,2", 0xf, 0, 0x5, NULL },
    { "1-3,5", 0xff, 0, 0x2e, NULL },
    { "2,0", 0xf, 0, 0x5, NULL },
    { "3-3", 0xf, 0, 0x8, NULL },
    { "63", 0, 0, UINT64_C(1) << 63, NULL },
    { "all", 0xf, 0, 0xf, NULL },
    { "all", 0x5, 0, 0x5, NULL },
    { "", 0x3, -EINVAL, 0, "empty node list" },
    { "x", 0x3, -EINVAL, 0, "'x' is not part of a node number" },
    { "-1", 0x3, -EINVAL, 0, "'-'" },
    { "1-", 0x3, -EINVAL, 0, "missing node number" },
    { "3-1", 0xf, -EINVAL, 0, "runs backwards" },
    { "0,,1", 0x3, -EINVAL, 0, "missing node number" },
    { "0,", 0x3, -EINVAL, 0, "missing node number" },
    { "0;1", 0x3, -EINVAL, 0, "unexpected ';'" },
    { "0 1", 0x3, -EINVAL, 0, "unexpected ' '" },
    { "64", 0x3, -EINVAL, 0, "node 64 is beyond the supported maximum 63" },
    { "0-99", 0x3, -EINVAL, 0, "node 99" },
    { "99999999999999999999", 0x3, -EINVAL, 0, "beyond the supported maximum" },
    { "ALL", 0x3, -EINVAL, 0, "invalid node list 'ALL'" },
};

static void test_parse(void)
{
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
        const parse_case_t *c = &parse_cases[i];
        char msg[256] = "";
        uint64_t m = 0xdead;
        int rc = mb_numa_parse_nodes(c->text, c->all, &m, msg, sizeof msg);
        if (c->rc == 0) {
            CHECK(rc == 0 && m == c->want, "parse '%s' -> %#llx (got rc %d mask %#llx)",
                  c->text, (unsigned long long)c->want, rc, (unsigned long long)m);
        } else {
            CHECK(rc == c->rc && strstr(msg, c->in_msg) && strstr(msg, "numactl syntax"),
                  "parse '%s' rejected with '%s' (got rc %d: %s)", c->text, c->in_msg, rc, msg);
        }
    }
}

typedef struct {
    uint64_t mask;
    const char *want;
} format_case_t;

static const format_case_t format_cases[] = {
    { 0x0, "" },
    { 0x1, "0" },
    { 0x3, "0-1" },
    { 0x5, "0,2" },
    { 0x2f, "0-3,5" },
    { UINT64_C(0xc000000000000001), "0,62-63" },
};

static void test_format(void)
{
    for (size_t i = 0; i < sizeof format_cases / sizeof format_cases[0]; i++) {
        char buf[64], name[64];
        snprintf(name, sizeof name, "format %#llx", (unsigned long long)format_cases[i].mask);
        CHECK_EQ_STR(mb_numa_format_nodes(format_cases[i].mask, buf, sizeof buf),
                     format_cases[i].want, name);
    }
    /* Round trip: every formatted list parses back to the same mask. */
    for (size_t i = 1; i < sizeof format_cases / sizeof format_cases[0]; i++) {
        char buf[64], msg[256];
        uint64_t m = 0;
        mb_numa_format_nodes(format_cases[i].mask, buf, sizeof buf);
        CHECK(mb_numa_parse_nodes(buf, 0, &m, msg, sizeof msg) == 0 && m == format_cases[i].mask,
              "round trip of '%s'", buf);
    }
}

/* ---- node discovery over fixtures --------------------------------------- */

typedef struct {
    const char *fixture;
    int nodes;              /* mb_numa_sysfs_nodes; <0: -errno */
    int count;              /* mb_numa_node_count */
    uint64_t online;
} nodes_case_t;

static const nodes_case_t nodes_cases[] = {
    { "env-uniform", 2, 2, 0x3 },
    { "env-mixed", 4, 4, 0xf },
    { "env-vm", -ENOENT, 1, 0x1 },
};

static void test_nodes(void)
{
    for (size_t i = 0; i < sizeof nodes_cases / sizeof nodes_cases[0]; i++) {
        const nodes_case_t *c = &nodes_cases[i];
        char why[256] = "";
        use_fixture(c->fixture);
        int n = mb_numa_sysfs_nodes(why, sizeof why);
        CHECK(n == c->nodes, "%s: sysfs nodes %d (got %d, why '%s')", c->fixture, c->nodes, n, why);
        if (c->nodes < 0)
            CHECK(strstr(why, "/devices/system/node") && strstr(why, "without NUMA"),
                  "%s: why names the missing directory: %s", c->fixture, why);
        CHECK(mb_numa_node_count() == c->count, "%s: node count %d", c->fixture, c->count);
        CHECK(mb_numa_online_mask() == c->online, "%s: online mask %#llx (got %#llx)",
              c->fixture, (unsigned long long)c->online,
              (unsigned long long)mb_numa_online_mask());
    }
}

/* ---- requests ---------------------------------------------------------------- */

typedef struct {
    const char *fixture;
    mb_numa_request_t req;
    int rc;                 /* for a built library; valid non-empty -> -ENOSYS unbuilt */
    const char *in_msg[3];
} check_case_t;

static const check_case_t check_cases[] = {
    { "env-uniform", { NULL, NULL, NULL }, 0, { NULL } },
    { "env-uniform", { "", "", "" }, 0, { NULL } },
    { "env-uniform", { NULL, "1", NULL }, 0, { NULL } },
    { "env-uniform", { "0", "0-1", NULL }, 0, { NULL } },
    { "env-uniform", { NULL, NULL, "all" }, 0, { NULL } },
    { "env-uniform", { NULL, "2", NULL }, -EINVAL,
      { "--membind 2", "node 2 does not exist", "valid nodes are 0-1" } },
    { "env-uniform", { "0,3", NULL, NULL }, -EINVAL,
      { "--cpunodebind 0,3", "node 3 does not exist", "0-1" } },
    { "env-mixed", { NULL, NULL, "1-5" }, -EINVAL,
      { "--interleave 1-5", "node 4 does not exist", "valid nodes are 0-3" } },
    { "env-mixed", { NULL, NULL, "0-3" }, 0, { NULL } },
    { "env-mixed", { NULL, "0", "1" }, -EINVAL, { "--membind and --interleave conflict", NULL } },
    { "env-mixed", { "a", NULL, NULL }, -EINVAL, { "--cpunodebind", "invalid node list 'a'" } },
    { "env-vm", { NULL, "0", NULL }, 0, { NULL } },
    /* node2 holds memory and no CPUs (found by make check-topology: libnuma
     * failed later with a bare EINVAL and exit 3) */
    { "numa-cpuless", { "2", NULL, NULL }, -EINVAL,
      { "--cpunodebind 2", "node 2 has no CPUs", "nodes with CPUs are 0-1" } },
    { "numa-cpuless", { "1-2", NULL, NULL }, -EINVAL, { "node 2 has no CPUs", NULL } },
    { "numa-cpuless", { "1", "2", NULL }, 0, { NULL } },
    { "numa-cpuless", { "all", NULL, "all" }, 0, { NULL } },
    { "numa-cpuless", { NULL, "2", NULL }, 0, { NULL } },
    { "env-vm", { NULL, "1", NULL }, -EINVAL, { "node 1 does not exist", "valid nodes are 0" } },
};

static void test_check_request(void)
{
    for (size_t i = 0; i < sizeof check_cases / sizeof check_cases[0]; i++) {
        const check_case_t *c = &check_cases[i];
        const mb_numa_request_t *r = &c->req;
        bool any = (r->cpunodebind && *r->cpunodebind) || (r->membind && *r->membind) ||
                   (r->interleave && *r->interleave);
        int want = c->rc;
        if (want == 0 && any && !mb_numa_built())
            want = -ENOSYS;
        char msg[512] = "";
        use_fixture(c->fixture);
        int rc = mb_numa_check_request(r, msg, sizeof msg);
        CHECK(rc == want, "%s: check case %zu returns %d (got %d: %s)", c->fixture, i, want, rc, msg);
        for (size_t k = 0; k < 3 && c->in_msg[k]; k++)
            CHECK(strstr(msg, c->in_msg[k]) != NULL, "%s: case %zu message has '%s': %s",
                  c->fixture, i, c->in_msg[k], msg);
        if (want == -ENOSYS)
            CHECK(strstr(msg, "install libnuma-dev and rebuild") != NULL,
                  "unbuilt: case %zu says how to get libnuma: %s", i, msg);
    }
    CHECK(mb_numa_check_request(NULL, NULL, 0) == 0, "a NULL request is fine");
}

typedef struct {
    mb_numa_request_t req;
    const char *want;
} describe_case_t;

static const describe_case_t describe_cases[] = {
    { { NULL, NULL, NULL }, "default (first touch)" },
    { { "", "", NULL }, "default (first touch)" },
    { { "0", "0", NULL }, "membind=0 cpunodebind=0" },
    { { NULL, NULL, "all" }, "interleave=all" },
    { { "1", NULL, "0-1" }, "interleave=0-1 cpunodebind=1" },
};

static void test_describe(void)
{
    for (size_t i = 0; i < sizeof describe_cases / sizeof describe_cases[0]; i++) {
        char buf[128];
        CHECK_EQ_STR(mb_numa_describe(&describe_cases[i].req, buf, sizeof buf),
                     describe_cases[i].want, describe_cases[i].want);
    }
    char small[8];
    mb_numa_describe(&describe_cases[2].req, small, sizeof small);
    CHECK(strlen(small) < sizeof small, "describe never overruns a small buffer ('%s')", small);
}

static void test_build_answers(void)
{
    char why[256] = "", ver[64];
    CHECK_EQ_STR(mb_numa_why_unbuilt(), "built without libnuma; install libnuma-dev and rebuild",
                 "the unbuilt text");
    mb_numa_version(ver, sizeof ver);
    if (mb_numa_built()) {
        CHECK(strncmp(ver, "API ", 4) == 0, "version names the libnuma API: %s", ver);
    } else {
        CHECK_EQ_STR(ver, "not built", "version without libnuma");
        CHECK(!mb_numa_usable(why, sizeof why) && strcmp(why, mb_numa_why_unbuilt()) == 0,
              "unusable without libnuma, with the reason: %s", why);
        mb_numa_request_t r = { NULL, "0", NULL };
        char msg[256] = "";
        use_real_system();
        CHECK(mb_numa_apply(&r, msg, sizeof msg) == -ENOSYS && strstr(msg, "libnuma-dev"),
              "apply without libnuma: -ENOSYS: %s", msg);
    }
    mb_numa_request_t none = { NULL, NULL, NULL };
    char msg[64];
    CHECK(mb_numa_apply(&none, msg, sizeof msg) == 0, "an empty request applies in every build");
}

/* ---- placement on this machine ----------------------------------------------- */

#define BUF_BYTES ((size_t)4 << 20)

static void test_placement(void)
{
    use_real_system();
    mb_numa_placement_t p;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    CHECK(mb_numa_placement(NULL, 10, 0, &p) == -EINVAL && !p.valid && p.why[0],
          "an empty buffer is refused: %s", p.why);

    char *buf = mmap(NULL, BUF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(buf != MAP_FAILED, "mmap 4 MiB");
    if (buf == MAP_FAILED)
        return;
    madvise(buf, BUF_BYTES, MADV_NOHUGEPAGE);
    int rc = mb_numa_placement(buf, BUF_BYTES, 0, &p);
    if (rc == -ENOSYS) {
        printf("ok %d - # skip move_pages not available here: %s\n", ++check_count_, p.why);
        munmap(buf, BUF_BYTES);
        return;
    }
    CHECK(rc == 0 && p.valid, "untouched buffer queried (rc %d: %s)", rc, p.why);
    CHECK(p.pages_sampled == BUF_BYTES / page, "all %zu pages sampled (got %zu)",
          BUF_BYTES / page, p.pages_sampled);
    CHECK(p.pages_not_present == p.pages_sampled && p.max_node == -1,
          "untouched pages are not present (%zu of %zu, max node %d)", p.pages_not_present,
          p.pages_sampled, p.max_node);

    memset(buf, 1, BUF_BYTES);
    rc = mb_numa_placement(buf, BUF_BYTES, 100, &p);
    CHECK(rc == 0 && p.pages_sampled >= 1 && p.pages_sampled <= 100,
          "max_samples bounds the work (%zu samples)", p.pages_sampled);
    size_t on_nodes = 0;
    for (int n = 0; n < MB_NUMA_MAX_NODES; n++)
        on_nodes += p.pages_on_node[n];
    CHECK(p.pages_not_present == 0 && on_nodes == p.pages_sampled && p.max_node >= 0,
          "touched pages all sit on a node (%zu of %zu, max node %d)", on_nodes,
          p.pages_sampled, p.max_node);
    /* An unaligned sub-range spanning two pages samples both. */
    rc = mb_numa_placement(buf + page - 8, 16, 0, &p);
    CHECK(rc == 0 && p.pages_sampled == 2, "unaligned 16 bytes span 2 pages (got %zu)",
          p.pages_sampled);
    munmap(buf, BUF_BYTES);
}

/* Apply membind+cpunodebind to node 0 in a child, allocate, check where
 * the pages went; the child's verdict comes back as its exit status. */
static void test_apply_child(void)
{
    char why[256];
    use_real_system();
    if (!mb_numa_usable(why, sizeof why)) {
        printf("ok %d - # skip apply: %s\n", ++check_count_, why);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        mb_numa_request_t r = { "0", "0", NULL };
        char msg[256];
        if (mb_numa_apply(&r, msg, sizeof msg) != 0) {
            fprintf(stderr, "apply: %s\n", msg);
            _exit(10);
        }
        char *b = malloc(BUF_BYTES);
        if (!b)
            _exit(11);
        memset(b, 2, BUF_BYTES);
        mb_numa_placement_t p;
        if (mb_numa_placement(b, BUF_BYTES, 0, &p) != 0)
            _exit(12);
        _exit(p.pages_on_node[0] == p.pages_sampled && p.pages_sampled > 0 ? 0 : 13);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "membind=0 cpunodebind=0 applied and every page landed on node 0 (child status %d)",
          WIFEXITED(st) ? WEXITSTATUS(st) : -1);

    pid = fork();
    if (pid == 0) {
        mb_numa_request_t r = { NULL, NULL, "all" };
        char msg[256];
        _exit(mb_numa_apply(&r, msg, sizeof msg) == 0 ? 0 : 1);
    }
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "interleave=all applies");

    /* A node that does not exist here is refused before libnuma sees it. */
    char msg[256] = "";
    mb_numa_request_t bad = { NULL, "63", NULL };
    CHECK(mb_numa_apply(&bad, msg, sizeof msg) == -EINVAL && strstr(msg, "node 63 does not exist"),
          "apply refuses a missing node: %s", msg);
}

/* ENOSYS from every NUMA system call, as under qemu-user: a child
 * installs a seccomp filter that answers get_mempolicy, set_mempolicy,
 * mbind and move_pages with ENOSYS, and sends back what each layer says.
 * The messages must name the missing calls, not blame the kernel.  Where
 * the calls answer ENOSYS by themselves (qemu-user), no filter is needed
 * and the layers are asked in this process. */
static int enosys_filter(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_get_mempolicy, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_set_mempolicy, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mbind, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_move_pages, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* What each layer says, one line each: "placement RC WHY", ... */
static void enosys_report(FILE *out)
{
    char why[256];
    char *b = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) {
        fprintf(out, "mmap failed\n");
        return;
    }
    memset(b, 1, 1 << 20);
    mb_numa_placement_t p;
    int rc = mb_numa_placement(b, 1 << 20, 0, &p);
    fprintf(out, "placement %d %s\n", rc, p.why);
    rc = mb_numa_bind_range(b, 1 << 20, 0, why, sizeof why);
    fprintf(out, "bind %d %s\n", rc, why);
    if (mb_numa_built()) {
        bool ok = mb_numa_usable(why, sizeof why);
        fprintf(out, "usable %d %s\n", ok, why);
        mb_numa_request_t r = { NULL, "0", NULL };
        rc = mb_numa_apply(&r, why, sizeof why);
        fprintf(out, "apply %d %s\n", rc, why);
    }
    munmap(b, 1 << 20);
}

static void test_enosys(void)
{
    char text[2048] = "";
    int mode = 0;
    if (syscall(SYS_get_mempolicy, &mode, NULL, 0ul, NULL, 0ul) != 0 && errno == ENOSYS) {
        /* the calls answer ENOSYS by themselves (qemu-user, where a fork
         * of this threaded process can hang the emulator): ask here */
        FILE *out = fmemopen(text, sizeof text - 1, "w");
        CHECK(out != NULL, "ENOSYS here already: report in this process");
        if (!out)
            return;
        enosys_report(out);
        fclose(out);
    } else {
        int fds[2];
        CHECK(pipe(fds) == 0, "pipe");
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            FILE *out = fdopen(fds[1], "w");
            if (!out)
                _exit(2);
            if (enosys_filter() != 0) {
                fprintf(out, "nofilter\n");
                _exit(0);
            }
            enosys_report(out);
            fclose(out);
            _exit(0);
        }
        close(fds[1]);
        size_t n = 0;
        ssize_t r;
        while (n < sizeof text - 1 && (r = read(fds[0], text + n, sizeof text - 1 - n)) > 0)
            n += (size_t)r;
        text[n] = '\0';
        close(fds[0]);
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "ENOSYS child ran (status %d)", st);
        if (strncmp(text, "nofilter", 8) == 0) {
            printf("ok %d - # skip ENOSYS: seccomp filters cannot be installed here\n",
                   ++check_count_);
            return;
        }
    }
    static const char *const layers[] = { "placement -", "bind -", "usable 0", "apply -" };
    const char *want = "the NUMA system calls are not implemented here (an emulator?";
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        if (i >= 2 && !mb_numa_built())
            continue;
        const char *line = strstr(text, layers[i]);
        const char *end = line ? strchr(line, '\n') : NULL;
        CHECK(line && end && strstr(line, want) && strstr(line, want) < end &&
                  !(strstr(line, "kernel without NUMA support") &&
                    strstr(line, "kernel without NUMA support") < end),
              "ENOSYS %s: the calls named as not implemented here: %.*s", layers[i],
              line && end ? (int)(end - line) : 0, line ? line : "(missing)");
    }
}

int main(void)
{
    test_parse();
    test_format();
    test_nodes();
    test_check_request();
    test_describe();
    test_build_answers();
    test_placement();
    test_apply_child();
    test_enosys();
    return check_done();
}
