/* test_facts: common/facts, the verdicts and fixes over sysinfo's
 * collectors, on the fixture trees (tests/fixtures/memsuite-host: bare
 * metal, two sockets, powersave; memsuite-vm: QEMU, no cpufreq) with an
 * empty PATH, so numactl, perf and cpupower are absent (dmidecode may be
 * found in /usr/sbin: MEMSUITE_ASSUME_ROOT=0 keeps it from running). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "facts.h"

static mb_facts_t d;

static const char *repo_root(void)
{
    const char *root = getenv("MEMSUITE_ROOT");
    return root && *root ? root : ".";
}

static void use_fixture(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s/sys", repo_root(), name);
    setenv("MEMSUITE_SYSFS", path, 1);
    snprintf(path, sizeof path, "%s/tests/fixtures/%s/proc", repo_root(), name);
    setenv("MEMSUITE_PROCFS", path, 1);
}

static const mb_envfact_t *find(const char *key)
{
    for (size_t i = 0; i < d.n; i++)
        if (strcmp(d.row[i].key, key) == 0)
            return &d.row[i];
    return NULL;
}

typedef struct {
    const char *fixture, *key;
    mb_verdict_t verdict;
    const char *value_part;   /* a substring of value (or of why when unavailable) */
} want_t;

static const want_t wants[] = {
    { "memsuite-host", "cores", MB_VERDICT_OK, "2" },
    { "memsuite-host", "sockets", MB_VERDICT_OK, "2" },
    { "memsuite-host", "cpus_online", MB_VERDICT_OK, "4" },
    { "memsuite-host", "llc", MB_VERDICT_OK, "32.0 MiB total" },
    { "memsuite-host", "virtualization", MB_VERDICT_OK, "none (DMI sys_vendor 'Dell Inc.'" },
    { "memsuite-host", "cpu_flags", MB_VERDICT_OK, "sse2 avx avx2" },
    { "memsuite-host", "microcode", MB_VERDICT_UNAVAILABLE, "no microcode line in cpuinfo" },
    { "memsuite-host", "firmware", MB_VERDICT_OK, "Dell Inc. 1.5.6 (2022-03-21)" },
    { "memsuite-vm", "firmware", MB_VERDICT_UNAVAILABLE,
      "/memsuite-vm/sys/class/dmi/id/bios_version (no DMI: a VM or non-x86 may have none)" },
    { "memsuite-vm", "cpu_flags", MB_VERDICT_OK, "sse2 hypervisor" },
    { "memsuite-host", "cpu_freq_khz", MB_VERDICT_OK, "2000000" },
    { "memsuite-host", "throttle_count", MB_VERDICT_UNAVAILABLE, "no cpuN/thermal_throttle counters" },
    { "memsuite-host", "cpupower", MB_VERDICT_WARN, "not installed" },
    { "memsuite-host", "governor.cpu0", MB_VERDICT_WARN, "powersave" },
    { "memsuite-host", "governor.cpu3", MB_VERDICT_WARN, "powersave" },
    { "memsuite-host", "smt", MB_VERDICT_WARN, "on" },
    { "memsuite-host", "thp_enabled", MB_VERDICT_OK, "madvise" },
    { "memsuite-host", "damon", MB_VERDICT_WARN, "kdamond 0 on (paddr; pageout at age >= 12 x 5 s)" },
    { "memsuite-vm", "damon", MB_VERDICT_OK, "not running (no DAMON sysfs interface" },
    { "memsuite-host", "numa", MB_VERDICT_UNAVAILABLE, "numactl is not installed" },
    { "memsuite-host", "numa_balancing", MB_VERDICT_WARN, "1" },
    { "memsuite-host", "swappiness", MB_VERDICT_WARN, "60" },
    { "memsuite-host", "dirty_ratio", MB_VERDICT_OK, "20" },
    { "memsuite-host", "dimms", MB_VERDICT_UNAVAILABLE, "dmidecode needs root" },
    { "memsuite-host", "peak", MB_VERDICT_UNAVAILABLE, "no DIMM data (needs root)" },
    { "memsuite-host", "counters", MB_VERDICT_UNAVAILABLE, "neither perf nor papi_avail" },
    { "memsuite-vm", "virtualization", MB_VERDICT_OK, "qemu (DMI sys_vendor 'QEMU'; cpuinfo flag hypervisor)" },
    { "memsuite-vm", "governor", MB_VERDICT_UNAVAILABLE, "no cpufreq under" },
    { "memsuite-vm", "smt", MB_VERDICT_OK, "notsupported (no SMT siblings)" },
    { "memsuite-vm", "numa_balancing", MB_VERDICT_UNAVAILABLE, "cannot read" },
    { "memsuite-vm", "swappiness", MB_VERDICT_WARN, "60" },
    { "memsuite-vm", "dimms", MB_VERDICT_UNAVAILABLE, "no DMI table at" },
};

static const char *const verdicts[] = { "ok", "warn", "unavailable" };

static void test_fixture(const char *fixture)
{
    char why[256];
    use_fixture(fixture);
    CHECK(mb_facts_collect(&d, NULL, why, sizeof why) == 0, "%s: collected", fixture);
    for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
        const want_t *w = &wants[i];
        if (strcmp(w->fixture, fixture) != 0)
            continue;
        const mb_envfact_t *r = find(w->key);
        const char *text = r ? (r->verdict == MB_VERDICT_UNAVAILABLE ? r->why : r->value) : "";
        CHECK(r && r->verdict == w->verdict && strstr(text, w->value_part),
              "%s: %s is %s with '%s' (got %s '%s')", fixture, w->key, verdicts[w->verdict],
              w->value_part, r ? verdicts[r->verdict] : "absent", text);
    }
    /* every warn and unavailable says why; keys are unique */
    for (size_t i = 0; i < d.n; i++) {
        CHECK(d.row[i].verdict == MB_VERDICT_OK || d.row[i].why[0], "%s: %s %s says why", fixture,
              d.row[i].key, verdicts[d.row[i].verdict]);
        for (size_t k = 0; k < i; k++)
            if (strcmp(d.row[k].key, d.row[i].key) == 0)
                CHECK(0, "%s: key %s appears twice", fixture, d.row[i].key);
    }
    mb_facts_free(&d);
}

static void test_host_fixes(void)
{
    char why[256];
    use_fixture("memsuite-host");
    mb_facts_collect(&d, "smt,numa", why, sizeof why);
    const mb_envfact_t *r = find("smt");
    CHECK(r && strstr(r->fix, "echo off > ") && strstr(r->fix, "/memsuite-host/sys/devices/system/cpu/smt/control"),
          "smt on: the fix writes the tree's control file (%s)", r ? r->fix : "");
    r = find("numa_balancing");
    CHECK(r && strcmp(r->fix, "sysctl -w kernel.numa_balancing=0") == 0, "numa_balancing: the fix");
    CHECK(d.nnodes == 2 && d.nodes[0] == 0 && d.nodes[1] == 1, "numa nodes 0,1 from sysfs (got %d)", d.nnodes);
    CHECK(!find("cores") && !find("dimms") && !find("firmware"), "--only smt,numa collects only those groups");
    mb_facts_free(&d);
    CHECK(mb_facts_collect(&d, "host,bogus", why, sizeof why) == -EINVAL && strstr(why, "'bogus'") &&
              strstr(why, "host memory virtualization"),
          "an unknown group is refused, naming it and the groups (%s)", why);
    mb_facts_free(&d);
}

static void test_json(void)
{
    char why[256], path[] = "/tmp/test_facts.XXXXXX";
    use_fixture("memsuite-host");
    setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
    mb_facts_collect(&d, NULL, why, sizeof why);
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f && mb_facts_json(&d, f) == 0, "json written");
    if (f)
        fclose(f);
    mb_facts_free(&d);
    unsetenv("GLIBC_TUNABLES");
    static const char *const filters[] = {
        ".schema == \"memsuite/facts/1\"",
        ".facts | length > 20",
        "[.facts[] | select((.key | type) != \"string\" or (.verdict | IN(\"ok\",\"warn\",\"unavailable\") | not))] | length == 0",
        ".cores == 2 and .sockets == 2 and .llc_bytes == 33554432 and .llc_source == \"sysfs\"",
        ".numa_nodes == [0,1]",
        ".peak_mbps == null and (.peak_note | test(\"needs root\"))",
        ".glibc_tunables == \"glibc.malloc.arena_max=2\"",
        ".virtualization.hypervisor == \"none\" and (.virtualization.evidence | startswith(\"none (DMI\"))",
        "[.facts[] | select(.key == \"firmware\") | .verdict + \" \" + .value] == [\"ok Dell Inc. 1.5.6 (2022-03-21)\"]",
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "jq -e '%s' '%s' >/dev/null", filters[i], path);
        CHECK(system(cmd) == 0, "json: %s", filters[i]);
    }
    unlink(path);
}

int main(void)
{
    char empty[] = "/tmp/test_facts_path.XXXXXX";
    const char *jq_dirs = "/usr/bin:/bin";
    char *dir = mkdtemp(empty);
    /* numactl, perf, papi_avail, dmidecode, cpupower: none on this PATH */
    setenv("PATH", dir ? dir : "/nonexistent", 1);
    setenv("MEMSUITE_ASSUME_ROOT", "0", 1);
    test_fixture("memsuite-host");
    test_fixture("memsuite-vm");
    test_host_fixes();
    setenv("PATH", jq_dirs, 1);   /* jq for the document checks; no stub matters there */
    test_json();
    if (dir)
        rmdir(dir);
    return check_done();
}
