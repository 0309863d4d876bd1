/* facts: rows with verdicts and fixes over sysinfo's collectors. */
#include "facts.h"
#include "factfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "armcpu.h"
#include "buildinfo.h"
#include "cpufreq.h"
#include "damon.h"
#include "dimms.h"
#include "json.h"
#include "membuild.h"
#include "pagesize.h"
#include "sizing.h"
#include "sysinfo.h"
#include "tunables.h"
#include "virt.h"

/* ---- rows --------------------------------------------------------------------- */

static mb_envfact_t *row(mb_facts_t *d, const char *key, mb_verdict_t v)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        mb_envfact_t *grown = realloc(d->row, cap * sizeof *grown);
        if (!grown)
            return NULL;
        d->row = grown;
        d->cap = cap;
    }
    mb_envfact_t *r = &d->row[d->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->key, sizeof r->key, "%s", key);
    r->verdict = v;
    return r;
}

/* A tab or newline in a value would split a line of the text form. */
static void flatten(char *s)
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r')
            *s = ' ';
}

/* add(d, key, verdict, value, why, fix): NULL means "". */
static void add(mb_facts_t *d, const char *key, mb_verdict_t v, const char *value,
                const char *why, const char *fix)
{
    mb_envfact_t *r = row(d, key, v);
    if (!r)
        return;
    snprintf(r->value, sizeof r->value, "%s", value ? value : "");
    snprintf(r->why, sizeof r->why, "%s", why ? why : "");
    snprintf(r->fix, sizeof r->fix, "%s", fix ? fix : "");
    flatten(r->value);
    flatten(r->why);
    flatten(r->fix);
}

static void __attribute__((format(printf, 2, 3))) fmt(char *buf, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, 512, f, ap);
    va_end(ap);
}

/* A sysinfo fact as a row: ok with its value, or unavailable with its
 * reason and `fix`.  Returns the fact for the caller's verdict. */
static const mb_fact_t *sysinfo_row(mb_facts_t *d, const char *key, const char *fix)
{
    static mb_fact_t f;
    mb_sysinfo_one(key, &f);
    if (f.ok)
        add(d, key, MB_VERDICT_OK, f.value, NULL, NULL);
    else
        add(d, key, MB_VERDICT_UNAVAILABLE, NULL, f.why, fix);
    return &f;
}

static mb_envfact_t *last(mb_facts_t *d)
{
    return d->n ? &d->row[d->n - 1] : NULL;
}

static void judge(mb_facts_t *d, mb_verdict_t v, const char *why, const char *fix)
{
    mb_envfact_t *r = last(d);
    if (!r)
        return;
    r->verdict = v;
    snprintf(r->why, sizeof r->why, "%.399s", why ? why : "");
    snprintf(r->fix, sizeof r->fix, "%.299s", fix ? fix : "");
}

/* ---- CPUs ------------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Ids of <sysfs>/<rel>/<prefix>N, ascending; count (ids malloc'd). */
static int list_ids(const char *rel, const char *prefix, int **ids)
{
    char dir[4096];
    mb_sysfs_path(dir, sizeof dir, rel);
    *ids = NULL;
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    int n = 0, cap = 0;
    size_t plen = strlen(prefix);
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (strncmp(de->d_name, prefix, plen) != 0 || !isdigit((unsigned char)de->d_name[plen]))
            continue;
        char *end;
        long id = strtol(de->d_name + plen, &end, 10);
        if (*end || id > 1 << 20)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            int *g = realloc(*ids, (size_t)cap * sizeof **ids);
            if (!g)
                break;
            *ids = g;
        }
        (*ids)[n++] = (int)id;
    }
    closedir(dp);
    if (n)
        qsort(*ids, (size_t)n, sizeof **ids, cmp_int);
    return n;
}

/* cpuN/online absent means online (cpu0). */
static bool cpu_online(int cpu)
{
    char rel[96], path[4096], line[16];
    snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/online", cpu);
    mb_sysfs_path(path, sizeof path, rel);
    return mb_read_line(path, line, sizeof line) < 0 || strcmp(line, "1") == 0;
}

/* ---- groups ------------------------------------------------------------------- */

/* The words of a flags line that shape a memory figure, in `wanted`
 * order, into out. */
static void pick_flags(const char *line, const char *const *wanted, size_t nwanted, char *out,
                       size_t outlen)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t w = 0; w < nwanted; w++) {
        size_t len = strlen(wanted[w]);
        for (const char *p = line; (p = strstr(p, wanted[w])) != NULL; p += len)
            if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
                (p[len] == ' ' || p[len] == '\t' || p[len] == '\0')) {
                if (at < outlen)
                    at += (size_t)snprintf(out + at, outlen - at, "%s%s", at ? " " : "", wanted[w]);
                break;
            }
    }
}

/* Whether <procfs>/cpuinfo is the aarch64 format ("CPU implementer"
 * lines): by the file present, not by the architecture built for. */
static bool cpuinfo_is_arm(void)
{
    char path[4096];
    mb_procfs_path(path, sizeof path, "/cpuinfo");
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    static mb_arm_cpuinfo_t ci;   /* large: static */
    mb_arm_cpuinfo_parse(f, &ci);
    fclose(f);
    return ci.arm;
}

/* The first "microcode" and "flags" lines of <procfs>/cpuinfo (x86), or
 * the "Features" line (aarch64, which has no microcode line: its
 * firmware is the firmware fact): microcode as written, flags reduced to
 * those that shape a memory figure. */
static void cpuinfo_rows(mb_facts_t *d)
{
    static const char *const x86[] = { "sse2", "avx", "avx2", "fma", "avx512f", "avx512bw",
                                       "avx512vl", "erms", "fsrm", "movdir64b", "hypervisor" };
    /* SIMD widths, atomics, cache maintenance to the point of persistence,
     * and the matrix/bfloat extensions the kernels may dispatch on */
    static const char *const arm[] = { "asimd", "sve", "sve2", "sme", "atomics", "lrcpc",
                                       "dcpop", "dcpodp", "i8mm", "bf16", "mte" };
    char path[4096], line[8192], mc[128] = "", flags[512] = "", why[512];
    bool have_flags = false, have_features = false;
    mb_procfs_path(path, sizeof path, "/cpuinfo");
    FILE *f = mb_fact_fopen(path);
    if (!f) {
        fmt(why, "cannot read %.300s: %s", path, mb_fact_strerror(errno));
        add(d, "microcode", MB_VERDICT_UNAVAILABLE, NULL, why, NULL);
        add(d, "cpu_flags", MB_VERDICT_UNAVAILABLE, NULL, why, NULL);
        return;
    }
    while (fgets(line, sizeof line, f) && (!mc[0] || (!have_flags && !have_features))) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        if (!mc[0] && strncmp(line, "microcode", 9) == 0) {
            snprintf(mc, sizeof mc, "%s", v);
        } else if (!have_flags && !have_features && strncmp(line, "flags", 5) == 0 &&
                   (line[5] == ' ' || line[5] == '\t')) {
            have_flags = true;
            pick_flags(v, x86, sizeof x86 / sizeof x86[0], flags, sizeof flags);
        } else if (!have_flags && !have_features && strncmp(line, "Features", 8) == 0 &&
                   (line[8] == ' ' || line[8] == '\t' || line[8] == ':')) {
            have_features = true;
            pick_flags(v, arm, sizeof arm / sizeof arm[0], flags, sizeof flags);
        }
    }
    fclose(f);
    if (mc[0])
        add(d, "microcode", MB_VERDICT_OK, mc, NULL, NULL);
    else if (have_features)
        add(d, "microcode", MB_VERDICT_UNAVAILABLE, NULL,
            "aarch64 has no microcode line in cpuinfo (the firmware fact names the firmware)", NULL);
    else
        add(d, "microcode", MB_VERDICT_UNAVAILABLE, NULL, "no microcode line in cpuinfo (a VM may hide it)", NULL);
    if (have_flags || have_features)
        add(d, "cpu_flags", MB_VERDICT_OK, flags, NULL, NULL);
    else
        add(d, "cpu_flags", MB_VERDICT_UNAVAILABLE, NULL,
            "no flags (x86) or Features (aarch64) line in cpuinfo", NULL);
}

static void g_host(mb_facts_t *d)
{
    const mb_fact_t *f = sysinfo_row(d, "hostname", NULL);
    if (f->ok)
        snprintf(d->host, sizeof d->host, "%.255s", f->value);
    sysinfo_row(d, "kernel", NULL);
    sysinfo_row(d, "cpu_model", NULL);
    cpuinfo_rows(d);
    sysinfo_row(d, "firmware", NULL);
    sysinfo_row(d, "cpus_online", NULL);
    f = sysinfo_row(d, "cores", NULL);
    if (f->ok)
        d->cores = (int)f->num;
    f = sysinfo_row(d, "sockets", NULL);
    if (f->ok)
        d->sockets = (int)f->num;

    mb_llc_t llc;
    char err[256];
    if (mb_llc_detect(NULL, &llc, err, sizeof err) == 0 && llc.source != MB_LLC_NONE &&
        llc.total_bytes > 0) {
        d->llc_bytes = (long long)llc.total_bytes;
        snprintf(d->llc_source, sizeof d->llc_source, "%s", mb_llc_source_name(llc.source));
    }
    f = sysinfo_row(d, "llc", "MEMSUITE_LLC=<size> memsuite run ... or --sizes with absolute sizes");
    if (f->ok && llc.source == MB_LLC_SYSCONF)
        judge(d, MB_VERDICT_WARN, "sysconf may report the host's cache in a VM",
              "MEMSUITE_LLC=<size> memsuite run ... (if the value is wrong)");
}

/* DAMON (common/damon): off, absent, or what runs, as a warning: its
 * sampling and its schemes act on the memory under a benchmark. */
static void g_damon(mb_facts_t *d)
{
    mb_damon_t m;
    mb_damon_read(&m);
    if (!m.running) {
        add(d, "damon", MB_VERDICT_OK, m.text, NULL, NULL);
    } else {
        add(d, "damon", MB_VERDICT_WARN, m.text,
            "DAMON is running: it samples page access bits and its schemes act on memory (pageout "
            "reclaims regions idle that long, hugepage/nohugepage change THP, migrate moves pages), "
            "so a benchmark's memory can change under it",
            "echo off > /sys/kernel/mm/damon/admin/kdamonds/N/state as root, where the platform allows "
            "(a cloud guest may run it on purpose); otherwise keep this fact with the result");
    }
}

/* MemTotal (sysinfo) and MemAvailable (MemFree + Cached on old kernels),
 * in bytes: what the memory-fit checks of memsuite run ask. */
static void g_memory(mb_facts_t *d)
{
    sysinfo_row(d, "mem_total_bytes", NULL);
    /* the base page and the PMD huge page (common/pagesize): "64 KiB",
     * "512 MiB (hpage_pmd_size)" */
    char v[96], ps[32];
    mb_page_text(mb_page_size(), ps, sizeof ps);
    add(d, "page_size", MB_VERDICT_OK, ps, NULL, NULL);
    mb_pmd_t pmd;
    mb_pmd_size(&pmd);
    mb_page_text(pmd.bytes, ps, sizeof ps);
    if (pmd.from_sysfs) {
        snprintf(v, sizeof v, "%s (hpage_pmd_size)", ps);
        add(d, "pmd_huge_page", MB_VERDICT_OK, v, NULL, NULL);
    } else {
        snprintf(v, sizeof v, "%s (derived from the page size)", ps);
        add(d, "pmd_huge_page", MB_VERDICT_UNAVAILABLE, v, pmd.why, NULL);
    }
    size_t bytes;
    char why[512], path[4096];
    int rc = mb_mem_available(&bytes);
    if (rc == 0) {
        snprintf(v, sizeof v, "%zu", bytes);
        add(d, "mem_available_bytes", MB_VERDICT_OK, v, NULL, NULL);
    } else {
        fmt(why, "no MemAvailable (or MemFree and Cached) in %.300s: %s",
            mb_procfs_path(path, sizeof path, "/meminfo"), mb_fact_strerror(rc));
        add(d, "mem_available_bytes", MB_VERDICT_UNAVAILABLE, NULL, why, NULL);
    }
    g_damon(d);
}

/* One frequency sample (common/cpufreq): the mean current frequency in
 * kHz and the summed thermal-throttle count; what memsuite run's
 * throttle sampler records every interval. */
static void g_frequency(mb_facts_t *d)
{
    mb_freq_sample_t s;
    char v[64], dir[4096], why[512];
    mb_freq_sample(&s);
    mb_sysfs_path(dir, sizeof dir, "/devices/system/cpu");
    if (s.freq_ok) {
        snprintf(v, sizeof v, "%.0f", s.mhz * 1000);
        add(d, "cpu_freq_khz", MB_VERDICT_OK, v, NULL, NULL);
    } else {
        fmt(why, "no cpuN/cpufreq/scaling_cur_freq under %.300s and no 'cpu MHz' in cpuinfo", dir);
        add(d, "cpu_freq_khz", MB_VERDICT_UNAVAILABLE, NULL, why, NULL);
    }
    if (s.throttle_ok) {
        snprintf(v, sizeof v, "%lld", s.throttle_count);
        add(d, "throttle_count", MB_VERDICT_OK, v, NULL, NULL);
    } else {
        fmt(why, "no cpuN/thermal_throttle counters under %.300s", dir);
        add(d, "throttle_count", MB_VERDICT_UNAVAILABLE, NULL, why, NULL);
    }
}

static void g_virt(mb_facts_t *d)
{
    mb_virt_t v;
    mb_virt_detect(&v);
    if (v.known) {
        add(d, "virtualization", MB_VERDICT_OK, v.text, NULL, NULL);
        snprintf(d->hypervisor, sizeof d->hypervisor, "%s", v.hypervisor);
        snprintf(d->virt_evidence, sizeof d->virt_evidence, "%s", v.text);
    } else {
        add(d, "virtualization", MB_VERDICT_UNAVAILABLE, NULL, v.why,
            "mount sysfs and procfs (or point MEMSUITE_SYSFS/MEMSUITE_PROCFS at them)");
        snprintf(d->virt_evidence, sizeof d->virt_evidence, "%s", v.why);
    }
}

static void g_governor(mb_facts_t *d)
{
    char prog[4096], fix[300], dir[4096], why[512];
    mb_sysfs_path(dir, sizeof dir, "/devices/system/cpu");
    if (mb_find_program("cpupower", prog, sizeof prog)) {
        add(d, "cpupower", MB_VERDICT_OK, prog, NULL, NULL);
        snprintf(fix, sizeof fix, "cpupower frequency-set -g performance (or memsuite run --enforce)");
    } else {
        add(d, "cpupower", MB_VERDICT_WARN, "not installed",
            "cpupower sets the governor on every CPU at once",
            "apt-get install linux-cpupower (dnf install kernel-tools)");
        snprintf(fix, sizeof fix,
                 "echo performance | tee %.200s/cpu*/cpufreq/scaling_governor (or memsuite run --enforce)",
                 dir);
    }
    int *ids, n = list_ids("/devices/system/cpu", "cpu", &ids), any = 0;
    for (int i = 0; i < n; i++) {
        char rel[128], path[4096], gov[64], key[48];
        if (!cpu_online(ids[i]))
            continue;
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/cpufreq/scaling_governor", ids[i]);
        mb_sysfs_path(path, sizeof path, rel);
        if (mb_read_line(path, gov, sizeof gov) < 0)
            continue;
        any = 1;
        snprintf(key, sizeof key, "governor.cpu%d", ids[i]);
        if (strcmp(gov, "performance") == 0)
            add(d, key, MB_VERDICT_OK, gov, NULL, NULL);
        else
            add(d, key, MB_VERDICT_WARN, gov,
                "frequency scaling adds noise; STREAM practice is 'performance'", fix);
    }
    free(ids);
    if (!any) {
        fmt(why, "no cpufreq under %.300s/cpu*/cpufreq (VM, or no cpufreq driver loaded)", dir);
        /* the drivers of the CPU the cpuinfo describes: ARM servers
         * scale through ACPI CPPC */
        add(d, "governor", MB_VERDICT_UNAVAILABLE, NULL, why,
            cpuinfo_is_arm()
                ? "nothing to do in a VM; on bare metal load a cpufreq driver (cppc_cpufreq on "
                  "ARM servers: modprobe cppc_cpufreq)"
                : "nothing to do in a VM; on bare metal load a cpufreq driver (intel_pstate, "
                  "amd-pstate, acpi-cpufreq)");
    }
}

static void g_smt(mb_facts_t *d)
{
    char path[4096], fix[512], why[512];
    mb_sysfs_path(path, sizeof path, "/devices/system/cpu/smt/control");
    fmt(fix, "a kernel with CONFIG_HOTPLUG_SMT exposes %.300s", path);
    const mb_fact_t *f = sysinfo_row(d, "smt", fix);
    if (!f->ok)
        return;
    char word[32];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(f->value, " "), f->value);
    if (strcmp(word, "on") == 0) {
        fmt(fix, "echo off > %.300s (or memsuite run --enforce)", path);
        judge(d, MB_VERDICT_WARN, "SMT siblings share a core's caches and add noise", fix);
    } else if (strcmp(word, "notsupported") == 0) {
        snprintf(last(d)->value, sizeof last(d)->value, "notsupported (no SMT siblings)");
    } else if (strcmp(word, "off") != 0 && strcmp(word, "forceoff") != 0) {
        fmt(why, "the kernel cannot switch SMT here (%.100s)", f->value);
        judge(d, MB_VERDICT_UNAVAILABLE, why, "disable SMT in the firmware setup");
    }
}

static void g_thp(mb_facts_t *d)
{
    char path[4096], fix[512];
    mb_sysfs_path(path, sizeof path, "/kernel/mm/transparent_hugepage/enabled");
    const mb_fact_t *f = sysinfo_row(d, "thp_enabled", "a kernel with CONFIG_TRANSPARENT_HUGEPAGE");
    if (f->ok && strcmp(f->value, "always") == 0) {
        fmt(fix, "echo madvise > %.300s; compare with: memsuite run --profile tuned --baseline", path);
        judge(d, MB_VERDICT_WARN,
              "huge pages on for every mapping; the methodology default is off (madvise/never) "
              "with an explicit on/off comparison", fix);
    }
    sysinfo_row(d, "thp_defrag", NULL);
}

/* "0 1 2 3 8" -> "0-3,8" */
static void ranges(const char *list, char *out, size_t outlen)
{
    size_t at = 0;
    long s = -1, p = -1;
    out[0] = '\0';
    for (const char *c = list;;) {
        char *end;
        long x = strtol(c, &end, 10);
        bool got = end != c;
        if (got && s >= 0 && x == p + 1) {
            p = x;
        } else {
            if (s >= 0 && at < outlen)
                at += (size_t)(s == p ? snprintf(out + at, outlen - at, "%s%ld", at ? "," : "", s)
                                      : snprintf(out + at, outlen - at, "%s%ld-%ld", at ? "," : "", s, p));
            s = p = x;
        }
        if (!got)
            break;
        c = end;
    }
}

/* `numactl --hardware` -> "2 node(s): node0 cpus 0,2 32000 MB; ..." */
static bool numactl_layout(FILE *in, char *out, size_t outlen)
{
    char line[8192], head[64] = "";
    static struct {
        long id;
        char cpus[256], size[64];
    } nodes[64];
    int n = 0;
    while (fgets(line, sizeof line, in)) {
        long id;
        int off = 0;
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "available:", 10) == 0) {
            snprintf(head, sizeof head, "%ld node(s)", strtol(line + 10, NULL, 10));
        } else if (sscanf(line, "node %ld cpus:%n", &id, &off) == 1 && off > 0) {
            if (n < 64) {
                nodes[n].id = id;
                nodes[n].size[0] = '\0';
                ranges(line + off, nodes[n].cpus, sizeof nodes[n].cpus);
                n++;
            }
        } else if (sscanf(line, "node %ld size:%n", &id, &off) == 1 && off > 0) {
            for (int k = 0; k < n; k++)
                if (nodes[k].id == id)
                    snprintf(nodes[k].size, sizeof nodes[k].size, "%s", line + off + 1);
        }
    }
    if (!head[0])
        return false;
    size_t at = (size_t)snprintf(out, outlen, "%s", head);
    for (int k = 0; k < n && at < outlen; k++)
        at += (size_t)snprintf(out + at, outlen - at, "%snode%ld cpus %s %s", k ? "; " : ": ",
                               nodes[k].id, nodes[k].cpus[0] ? nodes[k].cpus : "none", nodes[k].size);
    return true;
}

static void g_numa(mb_facts_t *d)
{
    int *ids;
    d->nnodes = list_ids("/devices/system/node", "node", &ids);
    if (d->nnodes > MB_FACTS_MAX_NODES)
        d->nnodes = MB_FACTS_MAX_NODES;
    for (int i = 0; i < d->nnodes; i++) {
        char rel[96], path[4096], cpus[64];
        d->nodes[i] = ids[i];
        snprintf(rel, sizeof rel, "/devices/system/node/node%d/cpulist", ids[i]);
        mb_sysfs_path(path, sizeof path, rel);
        if (mb_read_line(path, cpus, sizeof cpus) < 0 || cpus[0])
            d->cpunodes[d->ncpunodes++] = ids[i];
    }
    free(ids);

    char prog[4096], seen[64], value[512], why[512];
    snprintf(seen, sizeof seen, "%d node(s) in sysfs", d->nnodes);
    if (!mb_find_program("numactl", prog, sizeof prog) || strchr(prog, '\'')) {
        add(d, "numa", MB_VERDICT_UNAVAILABLE, seen,
            "numactl is not installed; --bind node:N and check --per-node need it",
            "apt-get install numactl (dnf install numactl)");
    } else {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "'%s' --hardware 2>&1", prog);
        FILE *p = popen(cmd, "r");
        bool ok = p && numactl_layout(p, value, sizeof value);
        int st = p ? pclose(p) : -1;
        if (ok && st == 0) {
            add(d, "numa", MB_VERDICT_OK, value, NULL, NULL);
        } else {
            fmt(why, "numactl --hardware failed (status %d)", st);
            add(d, "numa", MB_VERDICT_UNAVAILABLE, seen, why, "check that the kernel has NUMA support");
        }
    }

    const mb_fact_t *f = sysinfo_row(d, "numa_balancing",
                                     "none needed: the kernel has no automatic NUMA balancing");
    if (f->ok && strcmp(f->value, "0") != 0) {
        if (d->nnodes > 1) {
            judge(d, MB_VERDICT_WARN, "automatic page migration moves pages during the run",
                  "sysctl -w kernel.numa_balancing=0");
        } else {
            mb_envfact_t *r = last(d);
            char v[400];
            snprintf(v, sizeof v, "%.399s", r->value);
            snprintf(r->value, sizeof r->value, "%.399s (single node: no effect)", v);
        }
    }
    f = sysinfo_row(d, "swappiness", NULL);
    if (f->ok && !f->numeric) {
        fmt(why, "swappiness holds '%.40s', not a number", f->value);
        judge(d, MB_VERDICT_UNAVAILABLE, why, NULL);
        last(d)->value[0] = '\0';
    } else if (f->ok && f->num > 10) {
        judge(d, MB_VERDICT_WARN, "anonymous memory may be swapped under pressure; the tuned profile uses 10",
              "sysctl -w vm.swappiness=10 (or memsuite profile apply tuned)");
    }
    sysinfo_row(d, "dirty_ratio", NULL);
    sysinfo_row(d, "dirty_background_ratio", NULL);
}

static void g_dimms(mb_facts_t *d)
{
    mb_dimms_summary_t s;
    mb_dimms_read(&s);
    if (s.verdict == MB_DIMMS_OK)
        add(d, "dimms", MB_VERDICT_OK, s.text, NULL, NULL);
    else if (s.verdict == MB_DIMMS_WARN)
        add(d, "dimms", MB_VERDICT_WARN, s.text, s.why,
            "populate every socket's channels alike (see the board manual)");
    else if (strstr(s.why, "needs root"))
        add(d, "dimms", MB_VERDICT_UNAVAILABLE, NULL, s.why, "sudo memsuite env");
    else if (strstr(s.why, "not installed"))
        add(d, "dimms", MB_VERDICT_UNAVAILABLE, NULL, s.why, "apt-get install dmidecode (dnf install dmidecode)");
    else
        add(d, "dimms", MB_VERDICT_UNAVAILABLE, NULL, s.why, "none in a VM; on bare metal check /sys/firmware/dmi");
    snprintf(d->peak_note, sizeof d->peak_note, "%s", s.peak_text);
    d->peak_mbps = s.peak_mbps;
    if (s.peak_mbps > 0) {
        char v[512];
        fmt(v, "%lld MB/s (%.300s)", s.peak_mbps, s.peak_text);
        add(d, "peak", MB_VERDICT_OK, v, NULL, NULL);
    } else {
        add(d, "peak", MB_VERDICT_UNAVAILABLE, NULL, s.peak_text,
            "run memsuite env as root on bare metal with dmidecode installed");
    }
}

/* The whole output of `cmd` (stdout and stderr as the command line says)
 * into out; the exit status, or -1 when it could not run. */
static int capture(const char *cmd, char *out, size_t outlen)
{
    FILE *p = popen(cmd, "r");
    out[0] = '\0';
    if (!p)
        return -1;
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0)
        ;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void g_counters(mb_facts_t *d)
{
    char prog[4096], cmd[4300], out[8192], v[512];
    if (mb_find_program("perf", prog, sizeof prog) && !strchr(prog, '\'')) {
        snprintf(cmd, sizeof cmd, "'%s' stat -x, -e instructions true 2>&1 >/dev/null", prog);
        int rc = capture(cmd, out, sizeof out);
        const char *line = strstr(out, ",instructions");
        if (line) {
            while (line > out && line[-1] != '\n')
                line--;
        }
        char count[64] = "";
        if (line)
            snprintf(count, sizeof count, "%.*s", (int)strcspn(line, ",\n"), line);
        bool digits = count[0] != '\0';
        for (const char *c = count; *c; c++)
            digits &= isdigit((unsigned char)*c) != 0;
        if (rc == 0 && digits) {
            fmt(v, "perf: instructions counted (%s for 'true')", count);
            add(d, "counters", MB_VERDICT_OK, v, NULL, NULL);
            return;
        }
        if (strstr(out, "perf_event_paranoid")) {
            add(d, "counters", MB_VERDICT_UNAVAILABLE, NULL, "perf: access denied by kernel.perf_event_paranoid",
                "sysctl -w kernel.perf_event_paranoid=1");
            return;
        }
        if (line) {
            fmt(v, "perf: instructions %s (no hardware PMU exposed; VM?)", count[0] ? count : "not counted");
            add(d, "counters", MB_VERDICT_UNAVAILABLE, NULL, v,
                "enable the virtual PMU in the hypervisor, or run on bare metal");
            return;
        }
    }
    if (mb_find_program("papi_avail", prog, sizeof prog) && !strchr(prog, '\'')) {
        snprintf(cmd, sizeof cmd, "'%s' 2>&1", prog);
        capture(cmd, out, sizeof out);
        const char *k = strstr(out, "Number Hardware Counters");
        long n = -1;
        if (k && (k = strchr(k, ':')))
            n = strtol(k + 1, NULL, 10);
        if (n > 0) {
            fmt(v, "papi: %ld hardware counters", n);
            add(d, "counters", MB_VERDICT_OK, v, NULL, NULL);
        } else {
            fmt(v, "papi_avail reports %s hardware counters (VM?)", n == 0 ? "0" : "no");
            add(d, "counters", MB_VERDICT_UNAVAILABLE, NULL, v,
                "enable the virtual PMU in the hypervisor, or run on bare metal");
        }
        return;
    }
    add(d, "counters", MB_VERDICT_UNAVAILABLE, NULL, "neither perf nor papi_avail could count instructions",
        "apt-get install linux-perf papi-tools");
}

static void g_tunables(mb_facts_t *d)
{
    const char *t = getenv("GLIBC_TUNABLES");
    snprintf(d->tunables, sizeof d->tunables, "%s", t ? t : "");
    if (!t || !*t) {
        add(d, "glibc_tunables", MB_VERDICT_OK, "none", NULL, NULL);
    } else {
        static mb_tunables_list_t l;   /* large: static */
        char unknown[300], why[420];
        mb_tunables_list(&l);
        if (l.ok && mb_tunables_unknown(&l, t, unknown, sizeof unknown) > 0) {
            snprintf(why, sizeof why,
                     "unknown to glibc %s (not in ld.so --list-tunables), which ignores them: %s",
                     l.version, unknown);
            add(d, "glibc_tunables", MB_VERDICT_WARN, t, why,
                "drop the unknown names (ld.so --list-tunables lists what this glibc accepts)");
        } else {
            add(d, "glibc_tunables", MB_VERDICT_OK, t, NULL, NULL);
        }
    }
    /* a preloaded allocator replaces glibc's malloc in the benchmarks */
    const char *p = getenv("LD_PRELOAD");
    add(d, "ld_preload", MB_VERDICT_OK, p && *p ? p : "none", NULL, NULL);
}

/* The memory as built (common/membuild), and its EDAC counts as a row:
 * ok when every count is 0, warn when a DIMM has errors, unavailable
 * without a driver or with a count that cannot be read. */
static void g_build(mb_facts_t *d)
{
    mb_membuild_t *b = malloc(sizeof *b);
    if (!b) {
        add(d, "edac", MB_VERDICT_UNAVAILABLE, NULL, "out of memory", NULL);
        return;
    }
    mb_membuild_collect(b);
    free(d->build);
    d->build = b;
    char text[512];
    mb_edac_text(&b->edac, text, sizeof text);
    if (!b->edac.available) {
        add(d, "edac", MB_VERDICT_UNAVAILABLE, NULL, text, "none in a VM; on bare metal load the platform's EDAC driver");
        return;
    }
    bool errors = false, unreadable = false;
    for (int i = 0; i < b->edac.nmc; i++) {
        const mb_edac_mc_t *mc = &b->edac.mc[i];
        unreadable |= !mc->ce.ok || !mc->ue.ok;
        errors |= (mc->ce.ok && mc->ce.value) || (mc->ue.ok && mc->ue.value);
    }
    if (errors)
        add(d, "edac", MB_VERDICT_WARN, text, "the memory controllers counted errors since boot",
            "find the DIMM by its label; memsuite check --ref FILE judges them");
    else if (unreadable)
        add(d, "edac", MB_VERDICT_UNAVAILABLE, text, "a controller's count cannot be read", NULL);
    else
        add(d, "edac", MB_VERDICT_OK, text, NULL, NULL);
}

/* ---- the table ------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*collect)(mb_facts_t *d);
} groups[] = {
    { "host", g_host },         { "memory", g_memory },       { "virtualization", g_virt }, { "governor", g_governor },
    { "smt", g_smt },           { "thp", g_thp },             { "numa", g_numa },
    { "dimms", g_dimms },       { "build", g_build },         { "counters", g_counters },   { "tunables", g_tunables },
    { "frequency", g_frequency },
};
#define NGROUPS (sizeof groups / sizeof groups[0])

const char *mb_facts_groups(void)
{
    return "host memory virtualization governor smt thp numa dimms build counters tunables frequency";
}

/* `name` is one of the comma-separated words of `list`. */
static bool in_list(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, ",");
        if (w == len && strncmp(p, name, len) == 0)
            return true;
        p += w;
        if (*p == ',')
            p++;
    }
    return false;
}

int mb_facts_collect(mb_facts_t *d, const char *only, char *why, size_t whylen)
{
    memset(d, 0, sizeof *d);
    d->llc_bytes = -1;
    d->cores = d->sockets = -1;
    d->peak_mbps = -1;
    snprintf(d->llc_source, sizeof d->llc_source, "none");
    if (only) {
        for (const char *p = only; *p;) {
            size_t w = strcspn(p, ",");
            size_t g = 0;
            while (g < NGROUPS && !(strlen(groups[g].name) == w && strncmp(p, groups[g].name, w) == 0))
                g++;
            if (g == NGROUPS) {
                snprintf(why, whylen, "unknown fact group '%.*s'; the groups are: %s", (int)(w > 60 ? 60 : w),
                         p, mb_facts_groups());
                return -EINVAL;
            }
            p += w;
            if (*p == ',')
                p++;
        }
    }
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(d->time, sizeof d->time, "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (size_t g = 0; g < NGROUPS; g++)
        if (!only || in_list(only, groups[g].name))
            groups[g].collect(d);
    return 0;
}

void mb_facts_free(mb_facts_t *d)
{
    free(d->row);
    d->row = NULL;
    free(d->build);
    d->build = NULL;
    d->n = d->cap = 0;
}

static const char *const verdict_names[] = { "ok", "warn", "unavailable" };

void mb_facts_text(const mb_facts_t *d, FILE *f)
{
    for (size_t i = 0; i < d->n; i++) {
        const mb_envfact_t *r = &d->row[i];
        if (r->verdict == MB_VERDICT_UNAVAILABLE)
            fprintf(f, "%-11s %-22s %s%s%s%s\n", verdict_names[r->verdict], r->key, r->why,
                    r->value[0] ? " [" : "", r->value, r->value[0] ? "]" : "");
        else
            fprintf(f, "%-11s %-22s %s%s%s\n", verdict_names[r->verdict], r->key, r->value,
                    r->why[0] ? ": " : "", r->why);
        if (r->fix[0])
            fprintf(f, "%-11s %-22s fix: %s\n", "", "", r->fix);
    }
}

void mb_facts_add_profile(mb_facts_t *d, const char *profile)
{
    char value[200], fix[200];
    d->env = true;
    snprintf(d->profile, sizeof d->profile, "%s", profile ? profile : "");
    if (!d->profile[0]) {
        add(d, "profile", MB_VERDICT_OK, "none", NULL, NULL);
        return;
    }
    snprintf(value, sizeof value, "%s (applied)", d->profile);
    snprintf(fix, sizeof fix, "memsuite profile restore %s", d->profile);
    add(d, "profile", MB_VERDICT_OK, value, NULL, fix);
}

static void string_or_null(mb_json_t *j, const char *key, const char *s)
{
    mb_json_string(j, key, s && *s ? s : NULL);
}

int mb_facts_json(const mb_facts_t *d, FILE *f)
{
    mb_json_t j;
    mb_json_init(&j, f, true);
    mb_json_object_begin(&j, NULL);
    mb_json_string(&j, "schema", d->env ? MB_ENV_SCHEMA : MB_FACTS_SCHEMA);
    mb_json_string(&j, "time", d->time);
    string_or_null(&j, "host", d->host);
    mb_json_array_begin(&j, "facts");
    for (size_t i = 0; i < d->n; i++) {
        const mb_envfact_t *r = &d->row[i];
        mb_json_object_begin(&j, NULL);
        mb_json_string(&j, "key", r->key);
        mb_json_string(&j, "verdict", verdict_names[r->verdict]);
        mb_json_string(&j, "value", r->value);
        mb_json_string(&j, "why", r->why);
        mb_json_string(&j, "fix", r->fix);
        mb_json_object_end(&j);
    }
    mb_json_array_end(&j);
    if (d->llc_bytes > 0)
        mb_json_int(&j, "llc_bytes", d->llc_bytes);
    else
        mb_json_string(&j, "llc_bytes", NULL);
    mb_json_string(&j, "llc_source", d->llc_source);
    if (d->cores > 0)
        mb_json_int(&j, "cores", d->cores);
    else
        mb_json_string(&j, "cores", NULL);
    if (d->sockets > 0)
        mb_json_int(&j, "sockets", d->sockets);
    else
        mb_json_string(&j, "sockets", NULL);
    mb_json_array_begin(&j, "numa_nodes");
    for (int i = 0; i < d->nnodes; i++)
        mb_json_int(&j, NULL, d->nodes[i]);
    mb_json_array_end(&j);
    mb_json_array_begin(&j, "numa_cpu_nodes");
    for (int i = 0; i < d->ncpunodes; i++)
        mb_json_int(&j, NULL, d->cpunodes[i]);
    mb_json_array_end(&j);
    if (d->peak_mbps > 0)
        mb_json_int(&j, "peak_mbps", d->peak_mbps);
    else
        mb_json_string(&j, "peak_mbps", NULL);
    mb_json_string(&j, "peak_note", d->peak_note);
    string_or_null(&j, "glibc_tunables", d->tunables);
    mb_json_object_begin(&j, "virtualization");
    string_or_null(&j, "hypervisor", d->hypervisor);
    mb_json_string(&j, "evidence", d->virt_evidence);
    mb_json_object_end(&j);
    if (d->build)
        mb_membuild_json(d->build, &j, "memory_build");
    if (d->env) {
        mb_json_string(&j, "memsuite_version", MB_VERSION);
        string_or_null(&j, "profile", d->profile);
    }
    mb_json_object_end(&j);
    mb_json_finish(&j);
    return mb_json_error(&j);
}
