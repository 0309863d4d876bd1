/* sysinfo: every environment fact that changes a memory figure, each a
 * value or "unavailable" with the reason.  One collector per fact, listed
 * in one table; sysfs/procfs paths go through sizing.h's root overrides
 * (MEMSUITE_SYSFS / MEMSUITE_PROCFS) so tests can use fixture trees. */
#include "sysinfo.h"
#include "factfile.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "armcpu.h"
#include "buildinfo.h"
#include "counters.h"
#include "damon.h"
#include "dimms.h"
#include "edac.h"
#include "tunables.h"
#include "virt.h"
#include "json.h"
#include "log.h"
#include "memnodes.h"
#include "numa.h"
#include "pagesize.h"
#include "sizing.h"

/* ---- setting a fact ------------------------------------------------------ */

static void __attribute__((format(printf, 2, 3)))
fact_text(mb_fact_t *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->value, sizeof f->value, fmt, ap);
    va_end(ap);
    f->ok = true;
    f->numeric = false;
}

static void fact_num(mb_fact_t *f, double v)
{
    snprintf(f->value, sizeof f->value, "%.17g", v);
    f->num = v;
    f->ok = true;
    f->numeric = true;
}

static void __attribute__((format(printf, 2, 3)))
fact_why(mb_fact_t *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->ok = false;
    f->numeric = false;
    f->value[0] = '\0';
}

/* ---- reading files --------------------------------------------------------- */

/* First line of <root>/rel; 0 or -errno with `path` naming the file. */
static int read_sys(const char *rel, char *path, size_t pathlen, char *buf, size_t buflen)
{
    mb_sysfs_path(path, pathlen, rel);
    return mb_read_line(path, buf, buflen);
}

static int read_proc(const char *rel, char *path, size_t pathlen, char *buf, size_t buflen)
{
    mb_procfs_path(path, pathlen, rel);
    return mb_read_line(path, buf, buflen);
}

/* Whole decimal integer (blanks around allowed). */
static bool parse_long(const char *s, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (errno || end == s)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *v = x;
    return true;
}

/* A numeric procfs knob: value, or the reason it is missing. */
static void proc_number(mb_fact_t *f, const char *rel, const char *missing_hint)
{
    char path[4096], line[128];
    long v;
    int rc = read_proc(rel, path, sizeof path, line, sizeof line);
    if (rc < 0)
        fact_why(f, "cannot read %s: %s%s", path, mb_fact_strerror(rc), missing_hint);
    else if (parse_long(line, &v))
        fact_num(f, (double)v);
    else
        fact_text(f, "%s", line);
}

/* "always [madvise] never" -> "madvise"; a line without brackets is kept. */
static void bracketed_choice(const char *line, char *out, size_t outlen)
{
    const char *open = strchr(line, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (open && close)
        snprintf(out, outlen, "%.*s", (int)(close - open - 1), open + 1);
    else
        snprintf(out, outlen, "%s", line);
}

/* A "Key:   value [kB]" line of <procfs>/meminfo. 0, -errno or -ENOENT. */
static int meminfo_number(const char *key, long long *v, char *path, size_t pathlen)
{
    mb_procfs_path(path, pathlen, "/meminfo");
    FILE *fp = mb_fact_fopen(path);
    if (!fp)
        return -errno;
    char line[256];
    size_t klen = strlen(key);
    int rc = -ENOENT;
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            char *end;
            long long x = strtoll(line + klen + 1, &end, 10);
            if (end != line + klen + 1) {
                *v = x;
                rc = 0;
            } else {
                rc = -EINVAL;
            }
            break;
        }
    }
    fclose(fp);
    return rc;
}

/* CPUs under <sysfs>/devices/system/cpu as sorted ids; count or -errno. */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int list_cpus(int **ids, char *dirpath, size_t dirlen)
{
    mb_sysfs_path(dirpath, dirlen, "/devices/system/cpu");
    *ids = NULL;
    DIR *d = opendir(dirpath);
    if (!d)
        return -errno;
    int n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *s = de->d_name;
        if (strncmp(s, "cpu", 3) != 0 || !isdigit((unsigned char)s[3]))
            continue;
        char *end;
        long id = strtol(s + 3, &end, 10);
        if (*end || id < 0 || id > 1 << 20)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            int *grown = realloc(*ids, (size_t)cap * sizeof **ids);
            if (!grown) {
                closedir(d);
                free(*ids);
                *ids = NULL;
                return -ENOMEM;
            }
            *ids = grown;
        }
        (*ids)[n++] = (int)id;
    }
    closedir(d);
    if (n)
        qsort(*ids, (size_t)n, sizeof **ids, cmp_int);
    return n;
}

/* Number of CPUs in a kernel list such as "0-3,8,10-11"; -1 if malformed. */
static long count_cpu_list(const char *s)
{
    long total = 0;
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s || lo < 0)
            return -1;
        s = end;
        if (*s == '-') {
            hi = strtol(s + 1, &end, 10);
            if (end == s + 1 || hi < lo)
                return -1;
            s = end;
        }
        total += hi - lo + 1;
        if (*s == ',')
            s++;
        else if (*s && !isspace((unsigned char)*s))
            return -1;
        else
            break;
    }
    return total;
}

/* ---- the collectors --------------------------------------------------------- */

static void get_hostname(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char host[256];
    if (gethostname(host, sizeof host) < 0)
        fact_why(f, "gethostname failed: %s", strerror(errno));
    else {
        host[sizeof host - 1] = '\0';
        fact_text(f, "%s", host);
    }
}

static void get_kernel(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    struct utsname u;
    if (uname(&u) < 0)
        fact_why(f, "uname failed: %s", strerror(errno));
    else
        fact_text(f, "%s %s %s", u.sysname, u.release, u.machine);
}

static void get_utc_time(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    time_t now = time(NULL);
    struct tm tm;
    char buf[64];
    if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
        !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        fact_why(f, "the system clock could not be read");
    else
        fact_text(f, "%s", buf);
}

static void get_cpu_model(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    /* By the format present: an aarch64 cpuinfo names its MIDR (common/
     * armcpu), x86 writes "model name", others use other spellings. */
    static const char *const keys[] = { "model name", "Model", "cpu model", "cpu", "Processor" };
    char path[4096], line[512];
    mb_procfs_path(path, sizeof path, "/cpuinfo");
    FILE *fp = mb_fact_fopen(path);
    if (!fp) {
        fact_why(f, "cannot read %s: %s", path, mb_fact_strerror(errno));
        return;
    }
    static mb_arm_cpuinfo_t arm;   /* large: static */
    mb_arm_cpuinfo_parse(fp, &arm);
    if (arm.arm) {
        fclose(fp);
        mb_arm_firmware_t fw;
        mb_arm_firmware_read(&fw);
        char name[sizeof f->value];
        mb_arm_cpu_name(&arm, &fw, name, sizeof name);
        fact_text(f, "%s", name);
        return;
    }
    rewind(fp);
    char found[sizeof keys / sizeof keys[0]][256];
    memset(found, 0, sizeof found);
    while (fgets(line, sizeof line, fp)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *kend = colon;
        while (kend > line && isspace((unsigned char)kend[-1]))
            kend--;
        char *v = colon + 1;
        while (isspace((unsigned char)*v))
            v++;
        v[strcspn(v, "\n")] = '\0';
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (!found[k][0] && *v && (size_t)(kend - line) == strlen(keys[k]) &&
                strncmp(line, keys[k], (size_t)(kend - line)) == 0)
                snprintf(found[k], sizeof found[k], "%s", v);
    }
    fclose(fp);
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (found[k][0]) {
            fact_text(f, "%s", found[k]);
            return;
        }
    }
    fact_why(f, "no 'model name' line in %s", path);
}

/* sockets and cores from topology: distinct packages and distinct
 * (package, die, core) triples. */
typedef struct {
    long pkg, die, core;
} core_key_t;

static int count_topology(int *sockets, int *cores, char *why, size_t whylen)
{
    char dir[4096];
    int *ids;
    int n = list_cpus(&ids, dir, sizeof dir);
    if (n <= 0 || !ids) {
        snprintf(why, whylen, "no cpuN directories under %.200s%s%s", dir,
                 n < 0 ? ": " : "", n < 0 ? mb_fact_strerror(n) : "");
        return -ENOENT;
    }
    core_key_t *keys = calloc((size_t)n, sizeof *keys);
    if (!keys) {
        free(ids);
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    int nk = 0;
    for (int i = 0; i < n; i++) {
        char rel[128], path[4096], line[64];
        core_key_t k = { 0, 0, 0 };
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/topology/physical_package_id", ids[i]);
        if (read_sys(rel, path, sizeof path, line, sizeof line) < 0 || !parse_long(line, &k.pkg))
            continue;
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/topology/core_id", ids[i]);
        if (read_sys(rel, path, sizeof path, line, sizeof line) < 0 || !parse_long(line, &k.core))
            continue;
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/topology/die_id", ids[i]);
        if (read_sys(rel, path, sizeof path, line, sizeof line) < 0 || !parse_long(line, &k.die))
            k.die = 0;
        keys[nk++] = k;
    }
    free(ids);
    if (nk == 0) {
        free(keys);
        snprintf(why, whylen, "no readable topology/physical_package_id and core_id under %.150s/cpuN",
                 dir);
        return -ENOENT;
    }
    int ns = 0, nc = 0;
    for (int i = 0; i < nk; i++) {
        bool new_pkg = true, new_core = true;
        for (int j = 0; j < i; j++) {
            if (keys[j].pkg != keys[i].pkg)
                continue;
            new_pkg = false;
            if (keys[j].die == keys[i].die && keys[j].core == keys[i].core)
                new_core = false;
        }
        ns += new_pkg;
        nc += new_core;
    }
    free(keys);
    *sockets = ns;
    *cores = nc;
    return 0;
}

static void get_sockets(mb_fact_t *f, mb_sysinfo_t *si)
{
    char why[256];
    int sockets, cores;
    if (count_topology(&sockets, &cores, why, sizeof why) < 0) {
        fact_why(f, "%s", why);
        return;
    }
    si->sockets = sockets;
    fact_num(f, sockets);
}

static void get_cores(mb_fact_t *f, mb_sysinfo_t *si)
{
    char why[256];
    int sockets, cores;
    if (count_topology(&sockets, &cores, why, sizeof why) < 0) {
        fact_why(f, "%s", why);
        return;
    }
    si->cores = cores;
    fact_num(f, cores);
}

static void get_cpus_online(mb_fact_t *f, mb_sysinfo_t *si)
{
    char path[4096], line[512];
    long n = -1;
    if (read_sys("/devices/system/cpu/online", path, sizeof path, line, sizeof line) == 0)
        n = count_cpu_list(line);
    if (n <= 0) {
        /* no online list (fixture trees, old kernels): the cpuN
         * directories whose cpuN/online is absent (cpu0) or 1 */
        char dir[4096];
        int *ids;
        int k = list_cpus(&ids, dir, sizeof dir);
        n = 0;
        for (int i = 0; i < k; i++) {
            char rel[96], p[4096], on[16];
            snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/online", ids[i]);
            if (read_sys(rel, p, sizeof p, on, sizeof on) < 0 || strcmp(on, "1") == 0)
                n++;
        }
        free(ids);
    }
    if (n <= 0) {
        long sc = sysconf(_SC_NPROCESSORS_ONLN);
        if (sc <= 0) {
            fact_why(f, "neither %s nor sysconf(_SC_NPROCESSORS_ONLN) answered", path);
            return;
        }
        n = sc;
    }
    si->cpus_online = (int)n;
    fact_num(f, (double)n);
}

static void get_smt(mb_fact_t *f, mb_sysinfo_t *si)
{
    char path[4096], control[64], active[16];
    int rc = read_sys("/devices/system/cpu/smt/control", path, sizeof path, control, sizeof control);
    si->smt_active = -1;
    if (rc < 0) {
        fact_why(f, "cannot read %s: %s (kernel older than 4.19?)", path, mb_fact_strerror(rc));
        return;
    }
    if (strcmp(control, "notsupported") == 0 || strcmp(control, "notimplemented") == 0) {
        fact_text(f, "%s", control);
        return;
    }
    long a;
    if (read_sys("/devices/system/cpu/smt/active", path, sizeof path, active, sizeof active) == 0 &&
        parse_long(active, &a)) {
        si->smt_active = a ? 1 : 0;
        fact_text(f, "%s (%s)", control, a ? "active" : "inactive");
    } else {
        fact_text(f, "%s", control);
    }
}

typedef struct {
    char name[64];
    int cpus;
} gov_count_t;

static int cmp_gov(const void *a, const void *b)
{
    const gov_count_t *x = a, *y = b;
    if (x->cpus != y->cpus)
        return y->cpus - x->cpus;
    return strcmp(x->name, y->name);
}

static void get_governor(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char dir[4096];
    int *ids;
    int n = list_cpus(&ids, dir, sizeof dir);
    if (n <= 0 || !ids) {
        free(ids);
        fact_why(f, "no cpuN directories under %s", dir);
        return;
    }
    gov_count_t g[16];
    memset(g, 0, sizeof g);
    int ng = 0, with = 0;
    for (int i = 0; i < n; i++) {
        char rel[128], path[4096], line[64];
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu%d/cpufreq/scaling_governor", ids[i]);
        if (read_sys(rel, path, sizeof path, line, sizeof line) < 0)
            snprintf(line, sizeof line, "no cpufreq");
        else
            with++;
        int k = 0;
        while (k < ng && strcmp(g[k].name, line) != 0)
            k++;
        if (k == ng) {
            if (ng == (int)(sizeof g / sizeof g[0]))
                continue;
            snprintf(g[ng].name, sizeof g[ng].name, "%s", line);
            g[ng++].cpus = 0;
        }
        g[k].cpus++;
    }
    int first = ids[0];
    free(ids);
    if (with == 0) {
        fact_why(f, "no cpufreq directory under %s/cpu%d (VM or cpufreq driver not loaded)",
                 dir, first);
        return;
    }
    qsort(g, (size_t)ng, sizeof g[0], cmp_gov);
    if (ng == 1) {
        fact_text(f, "%s (%d/%d CPUs)", g[0].name, g[0].cpus, n);
        return;
    }
    size_t len = (size_t)snprintf(f->value, sizeof f->value, "mixed:");
    for (int k = 0; k < ng && len < sizeof f->value; k++)
        len += (size_t)snprintf(f->value + len, sizeof f->value - len, "%s %s (%d/%d CPUs)",
                                k ? "," : "", g[k].name, g[k].cpus, n);
    f->ok = true;
}

static void thp_file(mb_fact_t *f, const char *rel)
{
    char path[4096], line[256], choice[256];
    int rc = read_sys(rel, path, sizeof path, line, sizeof line);
    if (rc < 0) {
        fact_why(f, "cannot read %s: %s (kernel without transparent hugepages?)", path,
                 mb_fact_strerror(rc));
        return;
    }
    bracketed_choice(line, choice, sizeof choice);
    long v;
    if (parse_long(choice, &v))
        fact_num(f, (double)v);
    else
        fact_text(f, "%s", choice);
}

static void get_thp_enabled(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    thp_file(f, "/kernel/mm/transparent_hugepage/enabled");
}

static void get_thp_defrag(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    thp_file(f, "/kernel/mm/transparent_hugepage/defrag");
}

static void get_thp_khugepaged_defrag(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    thp_file(f, "/kernel/mm/transparent_hugepage/khugepaged/defrag");
}

static void get_numa_balancing(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    proc_number(f, "/sys/kernel/numa_balancing", " (kernel without automatic NUMA balancing)");
}

static void get_numa_balancing_cmdline(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char path[4096], line[4096];
    int rc = read_proc("/cmdline", path, sizeof path, line, sizeof line);
    if (rc < 0) {
        fact_why(f, "cannot read %s: %s", path, mb_fact_strerror(rc));
        return;
    }
    static const char param[] = "numa_balancing=";
    for (const char *p = line; (p = strstr(p, param)) != NULL; p += sizeof param - 1) {
        if (p != line && !isspace((unsigned char)p[-1]))
            continue;
        const char *v = p + sizeof param - 1;
        fact_text(f, "%.*s", (int)strcspn(v, " \t"), v);
        return;
    }
    fact_text(f, "unset");
}

static void get_swappiness(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    proc_number(f, "/sys/vm/swappiness", "");
}

static void get_dirty_ratio(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    proc_number(f, "/sys/vm/dirty_ratio", "");
}

static void get_dirty_background_ratio(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    proc_number(f, "/sys/vm/dirty_background_ratio", "");
}

static void get_virtualization(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_virt_t v;
    mb_virt_detect(&v);
    if (v.known)
        fact_text(f, "%s", v.text);
    else
        fact_why(f, "%s", v.why);
}

/* ---- firmware: the DMI BIOS strings ------------------------------------------ */

/* One BIOS string of <sysfs>/class/dmi/id, the directory common/virt
 * reads: blanks around it dropped, then shown with mb_shown (printable
 * ASCII as is, every other byte as \xHH: the firmware writes these and
 * nothing checks them).  0, or -errno (-ENODATA: empty) with `path`
 * naming the file. */
static int dmi_string(const char *name, char *path, size_t pathlen, char *out, size_t outlen)
{
    char rel[64], raw[256];
    snprintf(rel, sizeof rel, "/class/dmi/id/%s", name);
    int rc = read_sys(rel, path, pathlen, raw, sizeof raw);
    if (rc < 0)
        return rc;
    char *s = raw, *end = raw + strlen(raw);
    while (*s == ' ' || *s == '\t')
        s++;
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        *--end = '\0';
    if (!*s)
        return -ENODATA;
    mb_shown(s, 0, out, outlen);
    return 0;
}

/* bios_date as SMBIOS writes it, "MM/DD/YYYY", becomes "YYYY-MM-DD" (a
 * reader cannot mistake the order); any other form is kept as written. */
static void iso_date(char *date, size_t len)
{
    static const char shape[] = "dd/dd/dddd";
    if (strlen(date) != sizeof shape - 1)
        return;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !isdigit((unsigned char)date[i]) : date[i] != shape[i])
            return;
    char iso[16];
    snprintf(iso, sizeof iso, "%.4s-%.2s-%.2s", date + 6, date, date + 3);
    snprintf(date, len, "%s", iso);
}

/* The system firmware: "<bios_vendor> <bios_version> (<bios_date>)", e.g.
 * "Dell Inc. 1.5.6 (2022-03-21)".  The version names the firmware:
 * without it the fact is unavailable with the reason.  A vendor or date
 * that cannot be read is said in the value: "1.5.6 (date unknown; vendor
 * unknown)". */
static void get_firmware(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char path[4096], vendor[160], version[160], date[160];
    int rc = dmi_string("bios_version", path, sizeof path, version, sizeof version);
    if (rc == -ENOENT) {
        fact_why(f, "no %.200s (no DMI: a VM or non-x86 may have none)", path);
        return;
    }
    if (rc == -ENODATA) {
        fact_why(f, "%.200s is empty", path);
        return;
    }
    if (rc < 0) {
        fact_why(f, "cannot read %.200s: %s", path, mb_fact_strerror(rc));
        return;
    }
    bool have_vendor = dmi_string("bios_vendor", path, sizeof path, vendor, sizeof vendor) == 0;
    bool have_date = dmi_string("bios_date", path, sizeof path, date, sizeof date) == 0;
    if (have_date)
        iso_date(date, sizeof date);
    fact_text(f, "%s%s%s (%s%s)", have_vendor ? vendor : "", have_vendor ? " " : "", version,
              have_date ? date : "date unknown", have_vendor ? "" : "; vendor unknown");
}

/* ---- damon: the kernel's access monitor (common/damon) ----------------------- */

/* What DAMON runs on this kernel.  No interface under a readable
 * <sysfs>/kernel/mm means this kernel has none; an unreadable
 * <sysfs>/kernel/mm leaves it unknown. */
static void get_damon(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_damon_t m;
    mb_damon_read(&m);
    char path[4096];
    mb_sysfs_path(path, sizeof path, "/kernel/mm");
    DIR *mm = m.interface ? NULL : opendir(path);
    if (!m.interface && !mm) {
        fact_why(f, "cannot read %.200s: %s (sysfs not mounted?)", path, mb_fact_strerror(errno));
        return;
    }
    if (mm)
        closedir(mm);
    fact_text(f, "%s", m.text);
}

static void get_zone_reclaim_mode(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    proc_number(f, "/sys/vm/zone_reclaim_mode", " (kernel without NUMA support)");
}

static void get_overcommit_memory(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    proc_number(f, "/sys/vm/overcommit_memory", "");
}

static void meminfo_fact(mb_fact_t *f, const char *key)
{
    char path[4096];
    long long v = 0;
    int rc = meminfo_number(key, &v, path, sizeof path);
    if (rc == -ENOENT)
        fact_why(f, "no %s line in %s (kernel without hugetlbfs?)", key, path);
    else if (rc < 0)
        fact_why(f, "cannot read %s: %s", path, mb_fact_strerror(rc));
    else
        fact_num(f, (double)v);
}

static void get_hugepages_total(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    meminfo_fact(f, "HugePages_Total");
}

static void get_hugepage_size_kib(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    meminfo_fact(f, "Hugepagesize");
}

/* The base page and the PMD huge page (common/pagesize), in bytes. */
static void get_page_size_bytes(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    fact_num(f, (double)mb_page_size());
}

static void get_pmd_size_bytes(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_pmd_t pmd;
    mb_pmd_size(&pmd);
    if (pmd.from_sysfs)
        fact_num(f, (double)pmd.bytes);
    else   /* derived from the base page: the figure, but not as a fact read */
        fact_why(f, "%s", pmd.why);
}

static void get_mem_total_bytes(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    size_t bytes;
    char path[4096];
    int rc = mb_mem_total(&bytes);
    if (rc < 0)
        fact_why(f, "no MemTotal from %s: %s", mb_procfs_path(path, sizeof path, "/meminfo"),
                 mb_fact_strerror(rc));
    else
        fact_num(f, (double)bytes);
}

static void get_numa_nodes(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char why[256];
    int n = mb_numa_sysfs_nodes(why, sizeof why);
    if (n < 0)
        fact_why(f, "%s", why);
    else
        fact_num(f, n);
}

/* Each memory node's kind, size and tier: "node0 local DRAM 23.5 GiB
 * tier 4; node2 CPU-less memory 2.0 GiB tier 22" (common/memnodes). */
static void get_memory_nodes(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_memnode_t n[MB_MEMNODES_MAX];
    char why[256], text[sizeof f->value] = "";
    int k = mb_memnodes_list(n, MB_MEMNODES_MAX, why, sizeof why);
    if (k < 0) {
        fact_why(f, "%s", why);
        return;
    }
    size_t at = 0;
    for (int i = 0; i < k && at < sizeof text; i++) {
        char size[40] = "", tier[24] = "";
        if (n[i].mem_total_bytes) {
            size[0] = ' ';
            mb_format_bytes(n[i].mem_total_bytes, size + 1, sizeof size - 1);
        }
        if (n[i].memory_tier >= 0)
            snprintf(tier, sizeof tier, " tier %d", n[i].memory_tier);
        at += (size_t)snprintf(text + at, sizeof text - at, "%snode%d %s%s%s", i ? "; " : "",
                               n[i].node, mb_memnode_kind(&n[i]), size, tier);
    }
    fact_text(f, "%s", text);
}

static void get_llc(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_llc_t llc;
    char err[256], total[32], one[32];
    if (mb_llc_detect(NULL, &llc, err, sizeof err) < 0) {
        fact_why(f, "%s", err);
        return;
    }
    if (llc.source == MB_LLC_NONE || llc.total_bytes == 0) {
        /* the detector's note says "unavailable: why"; a fact's reason is the why */
        static const char prefix[] = "unavailable: ";
        const char *why = llc.note[0] ? llc.note : "no cache size found in sysfs or sysconf";
        if (strncmp(why, prefix, sizeof prefix - 1) == 0)
            why += sizeof prefix - 1;
        fact_why(f, "%s", why);
        return;
    }
    fact_text(f, "%s total: %u x %s L%u (%s)%s%s",
              mb_format_bytes(llc.total_bytes, total, sizeof total), llc.instances,
              mb_format_bytes(llc.instance_bytes, one, sizeof one), llc.level,
              mb_llc_source_name(llc.source), llc.note[0] ? "; " : "", llc.note);
}

static void get_compiler(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    fact_text(f, "%s", mb_build_compiler());
}

static void get_cflags(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    fact_text(f, "%s", mb_build_cflags());
}

static void get_openmp(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    int v = mb_build_openmp();
    if (v)
        fact_num(f, v);
    else
        fact_why(f, "built without OpenMP");
}

static void get_libnuma(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char buf[64];
    fact_text(f, "%s", mb_numa_version(buf, sizeof buf));
}

static void get_papi(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    char buf[64];
    fact_text(f, "%s", mb_counters_papi_version(buf, sizeof buf));
}

static void get_glibc(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    fact_text(f, "%s", gnu_get_libc_version());
}

static void env_fact(mb_fact_t *f, const char *name)
{
    const char *v = getenv(name);
    fact_text(f, "%s", v ? v : "unset");
}

static void get_glibc_tunables(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    env_fact(f, "GLIBC_TUNABLES");
}

/* GLIBC_TUNABLES names this glibc does not know (it ignores them silently). */
static void get_glibc_tunables_check(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    const char *v = getenv("GLIBC_TUNABLES");
    if (!v || !*v) {
        fact_text(f, "GLIBC_TUNABLES not set");
        return;
    }
    static mb_tunables_list_t l;   /* large: static */
    mb_tunables_list(&l);
    if (!l.ok) {
        fact_why(f, "%s", l.why);
        return;
    }
    char unknown[300];
    if (mb_tunables_unknown(&l, v, unknown, sizeof unknown) > 0)
        fact_text(f, "unknown to glibc %s (not in ld.so --list-tunables), which ignores them: %s",
                  l.version, unknown);
    else
        fact_text(f, "every name known to glibc %s", l.version);
}

static void get_ld_preload(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    env_fact(f, "LD_PRELOAD");
}

static void get_allocator(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_allocator_detect(f->value, sizeof f->value);
    f->ok = true;
}

/* ---- DIMMs: common/dimms ---------------------------------------------------- */

bool mb_find_program(const char *name, char *out, size_t outlen)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/sbin:/sbin:/usr/local/sbin", path ? path : "");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, outlen, "%s/%s", d, name);
        if (access(out, X_OK) == 0)
            return true;
    }
    return false;
}

static void get_dimms(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    mb_dimms_summary_t d;
    mb_dimms_read(&d);
    if (d.verdict == MB_DIMMS_UNAVAILABLE)
        fact_why(f, "%s", d.why);
    else if (d.verdict == MB_DIMMS_WARN)
        fact_text(f, "%s: %s", d.text, d.why);
    else
        fact_text(f, "%s", d.text);
}

/* EDAC error counters (common/edac): "mc0 ce 0 ue 0 (...)" or why not. */
static void get_edac(mb_fact_t *f, mb_sysinfo_t *si)
{
    (void)si;
    static mb_edac_t e;   /* large: static */
    mb_edac_read(&e);
    char text[sizeof f->value];
    mb_edac_text(&e, text, sizeof text);
    if (e.available)
        fact_text(f, "%s", text);
    else
        fact_why(f, "%.250s", text);
}

/* ---- the table ------------------------------------------------------------ */

typedef struct {
    const char *key;
    void (*collect)(mb_fact_t *f, mb_sysinfo_t *si);
} fact_desc_t;

static const fact_desc_t fact_table[] = {
    { "hostname", get_hostname },
    { "kernel", get_kernel },
    { "utc_time", get_utc_time },
    { "cpu_model", get_cpu_model },
    { "sockets", get_sockets },
    { "cores", get_cores },
    { "cpus_online", get_cpus_online },
    { "smt", get_smt },
    { "governor", get_governor },
    { "thp_enabled", get_thp_enabled },
    { "thp_defrag", get_thp_defrag },
    { "thp_khugepaged_defrag", get_thp_khugepaged_defrag },
    { "numa_balancing", get_numa_balancing },
    { "numa_balancing_cmdline", get_numa_balancing_cmdline },
    { "swappiness", get_swappiness },
    { "dirty_ratio", get_dirty_ratio },
    { "dirty_background_ratio", get_dirty_background_ratio },
    { "zone_reclaim_mode", get_zone_reclaim_mode },
    { "overcommit_memory", get_overcommit_memory },
    { "hugepages_total", get_hugepages_total },
    { "hugepage_size_kib", get_hugepage_size_kib },
    { "page_size_bytes", get_page_size_bytes },
    { "pmd_size_bytes", get_pmd_size_bytes },
    { "mem_total_bytes", get_mem_total_bytes },
    { "numa_nodes", get_numa_nodes },
    { "memory_nodes", get_memory_nodes },
    { "llc", get_llc },
    { "compiler", get_compiler },
    { "cflags", get_cflags },
    { "openmp", get_openmp },
    { "libnuma", get_libnuma },
    { "papi", get_papi },
    { "glibc", get_glibc },
    { "glibc_tunables", get_glibc_tunables },
    { "glibc_tunables_check", get_glibc_tunables_check },
    { "ld_preload", get_ld_preload },
    { "allocator", get_allocator },
    { "dimms", get_dimms },
    { "edac", get_edac },
    { "virtualization", get_virtualization },
    { "firmware", get_firmware },
    { "damon", get_damon },
};

_Static_assert(sizeof fact_table / sizeof fact_table[0] <= MB_SYSINFO_MAX,
               "MB_SYSINFO_MAX too small for the fact table");

void mb_sysinfo_collect(mb_sysinfo_t *si)
{
    memset(si, 0, sizeof *si);
    si->cpus_online = -1;
    si->cores = -1;
    si->sockets = -1;
    si->smt_active = -1;
    for (size_t i = 0; i < sizeof fact_table / sizeof fact_table[0]; i++) {
        mb_fact_t *f = &si->fact[si->n++];
        f->key = fact_table[i].key;
        fact_table[i].collect(f, si);
        if (!f->ok && !f->why[0])
            snprintf(f->why, sizeof f->why, "not determined");
    }
}

bool mb_sysinfo_one(const char *key, mb_fact_t *f)
{
    static mb_sysinfo_t scratch;   /* the typed copies nobody reads here */
    for (size_t i = 0; i < sizeof fact_table / sizeof fact_table[0]; i++) {
        if (strcmp(fact_table[i].key, key) != 0)
            continue;
        memset(f, 0, sizeof *f);
        f->key = fact_table[i].key;
        fact_table[i].collect(f, &scratch);
        if (!f->ok && !f->why[0])
            snprintf(f->why, sizeof f->why, "not determined");
        return true;
    }
    return false;
}

const mb_fact_t *mb_sysinfo_get(const mb_sysinfo_t *si, const char *key)
{
    for (size_t i = 0; i < si->n; i++)
        if (strcmp(si->fact[i].key, key) == 0)
            return &si->fact[i];
    return NULL;
}

void mb_sysinfo_json(const mb_sysinfo_t *si, struct mb_json *j, const char *key)
{
    mb_json_object_begin(j, key);
    for (size_t i = 0; i < si->n; i++) {
        const mb_fact_t *f = &si->fact[i];
        if (!f->ok)
            mb_json_unavailable(j, f->key, f->why);
        else if (f->numeric)
            mb_json_number(j, f->key, f->num);
        else
            mb_json_string(j, f->key, f->value);
    }
    mb_json_object_end(j);
}
