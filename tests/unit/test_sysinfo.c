/* test_sysinfo: every fact over three fixture trees (governor uniform /
 * mixed / absent, SMT on / off / notsupported, THP always / madvise /
 * never, numa_balancing 1 / 0 / absent, NUMA node counts), the
 * environment facts, the JSON rendering (parsed back by jq), DIMMs
 * through a dmidecode stub, and allocator detection, including children
 * re-run with LD_PRELOAD=jemalloc / tcmalloc / mimalloc. */
#include "check.h"
#include "damon.h"
#include "sysinfo.h"

#include "buildinfo.h"
#include "counters.h"
#include "json.h"
#include "numa.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

/* ---- facts over fixtures ------------------------------------------------ */

typedef enum { WANT_TEXT, WANT_NUM, WANT_WHY } want_kind_t;

typedef struct {
    const char *fixture;
    const char *key;
    want_kind_t kind;
    const char *text;      /* WANT_TEXT: the value; WANT_WHY: part of the reason */
    double num;            /* WANT_NUM */
} fact_case_t;

static const fact_case_t fact_cases[] = {
    /* env-uniform: 1 socket, 2 cores x SMT2, performance, THP always */
    { "env-uniform", "cpu_model", WANT_TEXT, "Fixture Uniform CPU @ 2.50GHz", 0 },
    { "env-uniform", "sockets", WANT_NUM, NULL, 1 },
    { "env-uniform", "cores", WANT_NUM, NULL, 2 },
    { "env-uniform", "cpus_online", WANT_NUM, NULL, 4 },
    { "env-uniform", "smt", WANT_TEXT, "on (active)", 0 },
    { "env-uniform", "governor", WANT_TEXT, "performance (4/4 CPUs)", 0 },
    { "env-uniform", "thp_enabled", WANT_TEXT, "always", 0 },
    { "env-uniform", "thp_defrag", WANT_TEXT, "madvise", 0 },
    { "env-uniform", "thp_khugepaged_defrag", WANT_NUM, NULL, 1 },
    { "env-uniform", "numa_balancing", WANT_NUM, NULL, 1 },
    { "env-uniform", "numa_balancing_cmdline", WANT_TEXT, "disable", 0 },
    { "env-uniform", "swappiness", WANT_NUM, NULL, 60 },
    { "env-uniform", "zone_reclaim_mode", WANT_NUM, NULL, 0 },
    { "env-uniform", "overcommit_memory", WANT_NUM, NULL, 0 },
    { "env-uniform", "hugepages_total", WANT_NUM, NULL, 16 },
    { "env-uniform", "hugepage_size_kib", WANT_NUM, NULL, 2048 },
    { "env-uniform", "mem_total_bytes", WANT_NUM, NULL, 16384000.0 * 1024 },
    { "env-uniform", "numa_nodes", WANT_NUM, NULL, 2 },
    /* a kernel/mm directory without DAMON's: a kernel that has none */
    { "env-uniform", "damon", WANT_TEXT, MB_DAMON_ABSENT, 0 },
    /* env-mixed: 2 sockets x 4 cores, SMT off, mixed governors, THP madvise */
    { "env-mixed", "cpu_model", WANT_TEXT, "Fixture Mixed CPU @ 3.00GHz", 0 },
    { "env-mixed", "sockets", WANT_NUM, NULL, 2 },
    { "env-mixed", "cores", WANT_NUM, NULL, 8 },
    { "env-mixed", "cpus_online", WANT_NUM, NULL, 8 },
    { "env-mixed", "smt", WANT_TEXT, "off (inactive)", 0 },
    { "env-mixed", "governor", WANT_TEXT,
      "mixed: performance (5/8 CPUs), powersave (2/8 CPUs), schedutil (1/8 CPUs)", 0 },
    { "env-mixed", "thp_enabled", WANT_TEXT, "madvise", 0 },
    { "env-mixed", "thp_defrag", WANT_TEXT, "never", 0 },
    { "env-mixed", "thp_khugepaged_defrag", WANT_NUM, NULL, 0 },
    { "env-mixed", "numa_balancing", WANT_NUM, NULL, 0 },
    { "env-mixed", "numa_balancing_cmdline", WANT_TEXT, "unset", 0 },
    { "env-mixed", "swappiness", WANT_NUM, NULL, 10 },
    { "env-mixed", "zone_reclaim_mode", WANT_NUM, NULL, 1 },
    { "env-mixed", "overcommit_memory", WANT_NUM, NULL, 2 },
    { "env-mixed", "hugepages_total", WANT_NUM, NULL, 0 },
    { "env-mixed", "numa_nodes", WANT_NUM, NULL, 4 },
    { "env-mixed", "dimms", WANT_WHY, "no DMI table", 0 },
    /* env-vm: no cpufreq, SMT notsupported, THP never, no NUMA */
    { "env-vm", "cpu_model", WANT_TEXT, "QEMU Virtual CPU version 2.5+", 0 },
    { "env-vm", "sockets", WANT_NUM, NULL, 1 },
    { "env-vm", "cores", WANT_NUM, NULL, 2 },
    { "env-vm", "cpus_online", WANT_NUM, NULL, 2 },
    { "env-vm", "smt", WANT_TEXT, "notsupported", 0 },
    { "env-vm", "governor", WANT_WHY,
      "/devices/system/cpu/cpu0 (VM or cpufreq driver not loaded)", 0 },
    { "env-vm", "governor", WANT_WHY, "no cpufreq directory under", 0 },
    { "env-vm", "thp_enabled", WANT_TEXT, "never", 0 },
    { "env-vm", "numa_balancing", WANT_WHY, "sys/kernel/numa_balancing", 0 },
    { "env-vm", "numa_balancing_cmdline", WANT_TEXT, "unset", 0 },
    { "env-vm", "numa_nodes", WANT_WHY, "kernel without NUMA support", 0 },
    { "env-vm", "memory_nodes", WANT_WHY, "no node directory", 0 },
    { "env-mixed", "memory_nodes", WANT_TEXT, "node0 CPUs, memory not described; node1 CPUs, "
      "memory not described; node2 CPUs, memory not described; node3 CPUs, memory not described", 0 },
    { "env-vm", "dimms", WANT_WHY, "no DMI table", 0 },
    /* aarch64 trees: the CPU by its MIDR and firmware, the PMD huge page */
    { "arm-grace", "cpu_model", WANT_TEXT,
      "NVIDIA Grace (ARM Neoverse V2 r0p0; SoC ID jep106:036b:0241)", 0 },
    { "arm-grace", "pmd_size_bytes", WANT_NUM, NULL, 536870912 },
    { "arm-grace", "hugepage_size_kib", WANT_NUM, NULL, 524288 },
    { "arm-graviton3", "cpu_model", WANT_TEXT,
      "AWS Graviton3 (ARM Neoverse V1 r1p1; SMBIOS processor version)", 0 },
    { "arm-graviton3", "pmd_size_bytes", WANT_NUM, NULL, 2097152 },
    { "arm-a64fx", "cpu_model", WANT_TEXT, "Fujitsu A64FX r1p0", 0 },
    { "env-vm", "pmd_size_bytes", WANT_WHY, "transparent_hugepage/hpage_pmd_size", 0 },
};

typedef struct {
    const char *fixture;
    int smt_active, cores, sockets, cpus_online;
} typed_case_t;

static const typed_case_t typed_cases[] = {
    { "env-uniform", 1, 2, 1, 4 },
    { "env-mixed", 0, 8, 2, 8 },
    { "env-vm", -1, 2, 1, 2 },
};

/* The keys sysinfo.h promises. */
static const char *const all_keys[] = {
    "hostname", "kernel", "utc_time", "cpu_model", "sockets", "cores", "cpus_online", "smt",
    "governor", "thp_enabled", "thp_defrag", "thp_khugepaged_defrag", "numa_balancing",
    "numa_balancing_cmdline", "swappiness", "dirty_ratio", "dirty_background_ratio",
    "zone_reclaim_mode", "overcommit_memory",
    "hugepages_total", "hugepage_size_kib", "page_size_bytes", "pmd_size_bytes",
    "mem_total_bytes", "numa_nodes", "memory_nodes", "llc",
    "compiler", "cflags", "openmp", "libnuma", "papi", "glibc", "glibc_tunables", "glibc_tunables_check", "ld_preload",
    "allocator", "dimms", "edac", "virtualization", "firmware", "damon",
};

static mb_sysinfo_t si;      /* large: static */

static void test_fixture_facts(void)
{
    const char *loaded = "";
    for (size_t i = 0; i < sizeof fact_cases / sizeof fact_cases[0]; i++) {
        const fact_case_t *c = &fact_cases[i];
        if (strcmp(loaded, c->fixture) != 0) {
            use_fixture(c->fixture);
            mb_sysinfo_collect(&si);
            loaded = c->fixture;
        }
        const mb_fact_t *f = mb_sysinfo_get(&si, c->key);
        if (!f) {
            CHECK(0, "%s: fact %s exists", c->fixture, c->key);
            continue;
        }
        char name[160];
        switch (c->kind) {
        case WANT_TEXT:
            snprintf(name, sizeof name, "%s: %s = '%s'", c->fixture, c->key, c->text);
            CHECK(f->ok && !f->numeric, "%s is a text value (why: %s)", name, f->why);
            CHECK_EQ_STR(f->value, c->text, name);
            break;
        case WANT_NUM:
            CHECK(f->ok && f->numeric && f->num == c->num, "%s: %s = %.17g (got ok %d num %.17g "
                  "value '%s' why '%s')", c->fixture, c->key, c->num, f->ok, f->num, f->value, f->why);
            break;
        case WANT_WHY:
            CHECK(!f->ok && strstr(f->why, c->text) != NULL,
                  "%s: %s unavailable because '%s' (got ok %d why '%s')", c->fixture, c->key,
                  c->text, f->ok, f->why);
            break;
        }
    }
    for (size_t i = 0; i < sizeof typed_cases / sizeof typed_cases[0]; i++) {
        const typed_case_t *c = &typed_cases[i];
        use_fixture(c->fixture);
        mb_sysinfo_collect(&si);
        CHECK(si.smt_active == c->smt_active && si.cores == c->cores && si.sockets == c->sockets &&
              si.cpus_online == c->cpus_online,
              "%s: typed smt_active %d cores %d sockets %d cpus %d (got %d %d %d %d)", c->fixture,
              c->smt_active, c->cores, c->sockets, c->cpus_online, si.smt_active, si.cores,
              si.sockets, si.cpus_online);
        size_t present = 0, explained = 0;
        for (size_t k = 0; k < sizeof all_keys / sizeof all_keys[0]; k++) {
            const mb_fact_t *f = mb_sysinfo_get(&si, all_keys[k]);
            present += f != NULL;
            explained += f && (f->ok || f->why[0]);
        }
        CHECK(present == sizeof all_keys / sizeof all_keys[0] && explained == present &&
              si.n == present, "%s: all %zu keys present, each a value or a reason (%zu/%zu, n %zu)",
              c->fixture, sizeof all_keys / sizeof all_keys[0], present, explained, si.n);
    }
    CHECK(mb_sysinfo_get(&si, "no_such_fact") == NULL, "an unknown key is NULL");
}

/* A missing fixture root: nothing is invented. */
static void test_empty_root(void)
{
    setenv("MEMSUITE_SYSFS", "/nonexistent-memsuite-root/sys", 1);
    setenv("MEMSUITE_PROCFS", "/nonexistent-memsuite-root/proc", 1);
    mb_sysinfo_collect(&si);
    static const char *const from_files[] = {
        "cpu_model", "sockets", "cores", "smt", "governor", "thp_enabled", "numa_balancing",
        "numa_balancing_cmdline", "swappiness", "hugepages_total", "numa_nodes", "firmware", "damon",
    };
    for (size_t i = 0; i < sizeof from_files / sizeof from_files[0]; i++) {
        const mb_fact_t *f = mb_sysinfo_get(&si, from_files[i]);
        CHECK(f && !f->ok && strstr(f->why, "/nonexistent-memsuite-root"),
              "no root: %s unavailable, naming the path (%s)", from_files[i], f ? f->why : "?");
    }
    CHECK(si.smt_active == -1 && si.cores == -1 && si.sockets == -1,
          "no root: typed fields say unknown");
}

/* ---- firmware: DMI BIOS strings in a temporary tree ------------------------------ */

typedef struct {
    const char *vendor, *version, *date;   /* NULL: no file; AS_DIR: a directory in its place */
    bool ok;
    const char *text;   /* ok: the value; else the reason's start, '@' standing for the sysfs root */
} firmware_case_t;

#define AS_DIR "<dir>"

static const firmware_case_t firmware_cases[] = {
    { "American Megatrends Inc.", "2.3.1", "05/10/2021", true,
      "American Megatrends Inc. 2.3.1 (2021-05-10)" },
    /* blanks around a string dropped; a date already ISO is kept */
    { "  Dell Inc. ", "1.5.6\t", "2022-03-21", true, "Dell Inc. 1.5.6 (2022-03-21)" },
    /* a date in neither form is kept as written */
    { "SeaBIOS", "rel-1.16.0", "1/4/2014", true, "SeaBIOS rel-1.16.0 (1/4/2014)" },
    { NULL, "1.0", NULL, true, "1.0 (date unknown; vendor unknown)" },
    { "Acme", "1.0", "", true, "Acme 1.0 (date unknown)" },
    /* control characters (a terminal escape, a tab inside, SOH) shown as \xHH */
    { "Evil\033[2J", "1.0\tbeta\001", "12/31/2020", true, "Evil^[[2J 1.0^Ibeta^A (2020-12-31)" },
    { "Dell Inc.", NULL, "03/21/2022", false,
      "no @/class/dmi/id/bios_version (no DMI: a VM or non-x86 may have none)" },
    { "Dell Inc.", "  ", NULL, false, "@/class/dmi/id/bios_version is empty" },
    { "Dell Inc.", AS_DIR, NULL, false, "cannot read @/class/dmi/id/bios_version: " },
};

static void put_dmi(const char *root, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/class/dmi/id/%s", root, name);
    if (!text)
        return;
    if (strcmp(text, AS_DIR) == 0) {
        CHECK(mkdir(path, 0755) == 0, "mkdir %s", path);
        return;
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "write %s", path);
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void test_firmware(void)
{
    char tmp[] = "/tmp/test_sysinfo_dmi.XXXXXX", root[4200], cmd[8500];
    CHECK(mkdtemp(tmp) != NULL, "temporary sysfs root");
    snprintf(root, sizeof root, "%s/sys", tmp);
    setenv("MEMSUITE_SYSFS", root, 1);
    for (size_t i = 0; i < sizeof firmware_cases / sizeof firmware_cases[0]; i++) {
        const firmware_case_t *c = &firmware_cases[i];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/class/dmi/id'", root, root);
        CHECK(system(cmd) == 0, "case %zu: tree reset", i);
        put_dmi(root, "bios_vendor", c->vendor);
        put_dmi(root, "bios_version", c->version);
        put_dmi(root, "bios_date", c->date);
        char want[4600];
        const char *at = strchr(c->text, '@');
        if (at)
            snprintf(want, sizeof want, "%.*s%s%s", (int)(at - c->text), c->text, root, at + 1);
        else
            snprintf(want, sizeof want, "%s", c->text);
        mb_fact_t f;
        CHECK(mb_sysinfo_one("firmware", &f), "case %zu: firmware is a sysinfo key", i);
        if (c->ok)
            CHECK(f.ok && strcmp(f.value, want) == 0, "case %zu: firmware '%s' (got ok %d '%s' why '%s')",
                  i, want, f.ok, f.value, f.why);
        else
            CHECK(!f.ok && strncmp(f.why, want, strlen(want)) == 0 && !f.value[0],
                  "case %zu: firmware unavailable: '%s...' (got ok %d '%s' why '%s')", i, want, f.ok,
                  f.value, f.why);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd) == 0, "temporary tree removed");
}

/* ---- environment and build facts ---------------------------------------------- */

static void test_env_facts(void)
{
    char buf[128];
    use_fixture("env-vm");
    setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=2", 1);
    unsetenv("LD_PRELOAD");
    mb_sysinfo_collect(&si);
    CHECK_EQ_STR(mb_sysinfo_get(&si, "glibc_tunables")->value, "glibc.malloc.arena_max=2",
                 "GLIBC_TUNABLES recorded");
    CHECK_EQ_STR(mb_sysinfo_get(&si, "ld_preload")->value, "unset", "LD_PRELOAD unset is a value");
    CHECK(mb_sysinfo_get(&si, "ld_preload")->ok, "unset LD_PRELOAD is ok, not unavailable");
    unsetenv("GLIBC_TUNABLES");
    mb_sysinfo_collect(&si);
    CHECK_EQ_STR(mb_sysinfo_get(&si, "glibc_tunables")->value, "unset", "GLIBC_TUNABLES unset");
    CHECK_EQ_STR(mb_sysinfo_get(&si, "glibc")->value, gnu_get_libc_version(), "glibc version");
    CHECK_EQ_STR(mb_sysinfo_get(&si, "compiler")->value, mb_build_compiler(), "compiler");
    CHECK_EQ_STR(mb_sysinfo_get(&si, "cflags")->value, mb_build_cflags(), "cflags");
    const mb_fact_t *omp = mb_sysinfo_get(&si, "openmp");
    CHECK(omp->ok && omp->numeric && omp->num == mb_build_openmp(), "openmp %d", mb_build_openmp());
    CHECK_EQ_STR(mb_sysinfo_get(&si, "libnuma")->value, mb_numa_version(buf, sizeof buf), "libnuma");
    CHECK_EQ_STR(mb_sysinfo_get(&si, "papi")->value, mb_counters_papi_version(buf, sizeof buf),
                 "papi");
    const mb_fact_t *t = mb_sysinfo_get(&si, "utc_time");
    CHECK(t->ok && strlen(t->value) == 20 && t->value[10] == 'T' && t->value[19] == 'Z',
          "utc_time is ISO 8601 UTC: %s", t->value);
    const mb_fact_t *llc = mb_sysinfo_get(&si, "llc");
    CHECK(llc->ok ? strstr(llc->value, "total") != NULL : llc->why[0] != '\0',
          "llc: a value or a reason (%s%s)", llc->value, llc->why);
    const mb_fact_t *k = mb_sysinfo_get(&si, "kernel");
    CHECK(k->ok && strncmp(k->value, "Linux ", 6) == 0, "kernel: %s", k->value);
}

/* ---- JSON -------------------------------------------------------------- */

static void test_json(void)
{
    use_fixture("env-vm");
    mb_sysinfo_collect(&si);
    char path[] = "/tmp/memsuite-test-sysinfo-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL, "temporary JSON file");
    if (!f)
        return;
    mb_json_t j;
    mb_json_init(&j, f, true);
    mb_json_object_begin(&j, NULL);
    mb_sysinfo_json(&si, &j, "sysinfo");
    mb_json_object_end(&j);
    mb_json_finish(&j);
    fclose(f);

    if (system("command -v jq >/dev/null 2>&1") != 0) {
        printf("ok %d - # skip JSON checks: jq not installed\n", ++check_count_);
        unlink(path);
        return;
    }
    static const char *const filters[] = {
        ".sysinfo.swappiness == 60",
        ".sysinfo.cores == 2",
        ".sysinfo.thp_enabled == \"never\"",
        ".sysinfo.governor == null",
        ".sysinfo.governor_unavailable | test(\"no cpufreq directory\")",
        ".sysinfo.numa_nodes == null and (.sysinfo.numa_nodes_unavailable | type) == \"string\"",
        ".sysinfo.ld_preload | type == \"string\"",
        ("[.sysinfo | to_entries[] | select(.value == null) | .key + \"_unavailable\"] - "
         "(.sysinfo | keys) == []"),
        ".sysinfo | has(\"swappiness_unavailable\") | not",
        ".sysinfo | keys | length >= 32",
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "jq -e '%s' '%s' >/dev/null", filters[i], path);
        CHECK(system(cmd) == 0, "json: %s", filters[i]);
    }
    unlink(path);
}

/* ---- DIMMs through the fixture's dmidecode stub ------------------------------- */

static void test_dimms(void)
{
    char stub_dir[4096], newpath[8192];
    const char *old = getenv("PATH");
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", old ? old : "/usr/bin:/bin");
    snprintf(stub_dir, sizeof stub_dir, "%s/tests/fixtures/env-uniform/bin", repo_root());
    snprintf(newpath, sizeof newpath, "%s:%s", stub_dir, saved);
    setenv("PATH", newpath, 1);
    use_fixture("env-uniform");
    mb_sysinfo_collect(&si);
    const mb_fact_t *d = mb_sysinfo_get(&si, "dimms");
    if (geteuid() == 0)
        CHECK(d->ok && strcmp(d->value, "2/4 slots populated, DDR4, 16 GB each, 2933 MT/s (socket ? 2/4)") == 0,
              "dimms summarised from the stub (got '%s' / '%s')", d->value, d->why);
    else
        CHECK(!d->ok && strstr(d->why, "dmidecode needs root"), "dimms need root: %s", d->why);
    setenv("PATH", saved, 1);
}

/* ---- allocator ------------------------------------------------------------ */

#define CHILD_FLAG "--allocator-child"

/* Run this binary again with LD_PRELOAD=lib; its stdout is "<name>|<text>". */
static int run_child(const char *self, const char *lib, char *out, size_t outlen)
{
    int pfd[2];
    if (pipe(pfd) != 0)
        return -errno;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env) {
        close(pfd[0]);
        close(pfd[1]);
        return -ENOMEM;
    }
    char preload[4200];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lib);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
            env[k++] = environ[i];
    env[k++] = preload;
    env[k] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    char *argv[] = { (char *)self, (char *)CHILD_FLAG, NULL };
    pid_t pid;
    int rc = posix_spawn(&pid, self, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return -rc;
    }
    size_t got = 0;
    ssize_t r;
    while (got + 1 < outlen && (r = read(pfd[0], out + got, outlen - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = '\0';
    close(pfd[0]);
    int st;
    waitpid(pid, &st, 0);
    out[strcspn(out, "\n")] = '\0';
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

typedef struct {
    const char *lib;
    const char *name;
} preload_case_t;

/* The allocators in the Debian multiarch directory of the architecture
 * this test is built for: an x86-64 library cannot be preloaded into an
 * aarch64 process (qemu-aarch64 runs this test on an x86-64 host, where
 * the x86-64 libraries exist). */
#if defined(__x86_64__)
#define MULTIARCH_LIB "/usr/lib/x86_64-linux-gnu/"
#elif defined(__aarch64__)
#define MULTIARCH_LIB "/usr/lib/aarch64-linux-gnu/"
#elif defined(__i386__)
#define MULTIARCH_LIB "/usr/lib/i386-linux-gnu/"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define MULTIARCH_LIB "/usr/lib/powerpc64le-linux-gnu/"
#elif defined(__riscv) && __riscv_xlen == 64
#define MULTIARCH_LIB "/usr/lib/riscv64-linux-gnu/"
#else
#define MULTIARCH_LIB NULL   /* no known directory: the cases are skipped */
#endif

static const preload_case_t preload_cases[] = {
    { "libjemalloc.so.2", "jemalloc" },
    { "libtcmalloc.so.4", "tcmalloc" },
    { "libmimalloc.so.2", "mimalloc" },
};

static void test_allocator(const char *self)
{
    char buf[256], want[64];
    const char *name = mb_allocator_detect(buf, sizeof buf);
    snprintf(want, sizeof want, "glibc %s", gnu_get_libc_version());
    CHECK_EQ_STR(name, "glibc", "this test binary uses glibc malloc");
    CHECK_EQ_STR(buf, want, "allocator text");
    const mb_fact_t *f = mb_sysinfo_get(&si, "allocator");
    CHECK(f && f->ok && strcmp(f->value, want) == 0, "allocator fact: %s", f ? f->value : "?");

    for (size_t i = 0; i < sizeof preload_cases / sizeof preload_cases[0]; i++) {
        const preload_case_t *c = &preload_cases[i];
        if (UNDER_ASAN) {
            printf("ok %d - # skip %s: LD_PRELOAD of an allocator conflicts with ASan\n",
                   ++check_count_, c->name);
            continue;
        }
        const char *dir = MULTIARCH_LIB;
        if (!dir) {
            printf("ok %d - # skip %s: no multiarch library directory known for this "
                   "architecture\n", ++check_count_, c->name);
            continue;
        }
        char lib[256];
        snprintf(lib, sizeof lib, "%s%s", dir, c->lib);
        if (access(lib, R_OK) != 0) {
            printf("ok %d - # skip %s: %s is not installed\n", ++check_count_, c->name, lib);
            continue;
        }
        char out[512];
        int rc = run_child(self, lib, out, sizeof out);
        size_t len = strlen(c->name);
        CHECK(rc == 0 && strncmp(out, c->name, len) == 0 && out[len] == '|' &&
                  strncmp(out + len + 1, c->name, len) == 0 && out[2 * len + 1] == ' ' &&
                  out[2 * len + 2] != '\0',
              "LD_PRELOAD=%s detected as %s with a version (got rc %d: '%s')", lib, c->name,
              rc, out);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], CHILD_FLAG) == 0) {
        char buf[256];
        const char *name = mb_allocator_detect(buf, sizeof buf);
        printf("%s|%s\n", name, buf);
        return 0;
    }
    test_fixture_facts();
    test_empty_root();
    test_firmware();
    test_env_facts();
    test_json();
    test_dimms();
    test_allocator("/proc/self/exe");
    return check_done();
}
