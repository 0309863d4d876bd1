/* sysinfo: every environment fact that changes a memory figure.
 * Each fact is either a value or "unavailable" with the reason; nothing
 * silently vanishes.  Paths honour MEMSUITE_SYSFS / MEMSUITE_PROCFS
 * (see sizing.h). */
#ifndef MB_SYSINFO_H
#define MB_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>

#define MB_SYSINFO_MAX 64

typedef struct {
    const char *key;       /* static snake_case name, e.g. "governor" */
    bool ok;               /* value valid */
    bool numeric;          /* render `num` as a JSON number */
    double num;
    char value[512];       /* text form (also for numeric facts) */
    char why[256];         /* reason when !ok */
} mb_fact_t;

typedef struct {
    size_t n;
    mb_fact_t fact[MB_SYSINFO_MAX];
    /* typed copies used by the tools' logic */
    int cpus_online;
    int cores;              /* physical cores (distinct core ids x packages) */
    int sockets;
    int smt_active;         /* 1 on, 0 off, -1 unknown/notsupported */
} mb_sysinfo_t;

/* Collect all facts.  Never fails: unreadable facts carry their reason.
 * Keys (stable; the schema documents them):
 *   hostname kernel utc_time cpu_model sockets cores cpus_online smt
 *   governor thp_enabled thp_defrag thp_khugepaged_defrag numa_balancing
 *   numa_balancing_cmdline swappiness zone_reclaim_mode overcommit_memory
 *   hugepages_total hugepage_size_kib page_size_bytes pmd_size_bytes (common/pagesize)
 *   mem_total_bytes numa_nodes memory_nodes llc
 *   compiler cflags openmp libnuma papi glibc glibc_tunables glibc_tunables_check ld_preload
 *   allocator dimms virtualization (common/virt: "none|vm|<hypervisor> (evidence)")
 *   firmware (DMI bios_vendor bios_version (bios_date): "Dell Inc. 1.5.6 (2022-03-21)")
 *   damon (common/damon: "off", what runs, or no interface) */
void mb_sysinfo_collect(mb_sysinfo_t *si);
/* Collect the one fact `key` of the table above into f; false when no
 * fact has that key (memsuite-facts collects only what it shows). */
bool mb_sysinfo_one(const char *key, mb_fact_t *f);
/* Lookup by key; NULL when absent. */
const mb_fact_t *mb_sysinfo_get(const mb_sysinfo_t *si, const char *key);

/* Allocator actually in effect in this process, detected from its own
 * symbols (mallctl, tc_malloc / MallocExtension, mi_version), else glibc
 * with gnu_get_libc_version().  Writes e.g. "jemalloc 5.3.0" or
 * "glibc 2.36".  Returns the short name: "glibc", "jemalloc", "tcmalloc",
 * "mimalloc". */
const char *mb_allocator_detect(char *buf, size_t buflen);

/* First executable `name` on PATH, then in the sbin directories, into out. */
bool mb_find_program(const char *name, char *out, size_t outlen);

struct mb_json;
/* Writes "<key>": { fact: value|null, "<fact>_unavailable": why, ... } */
void mb_sysinfo_json(const mb_sysinfo_t *si, struct mb_json *j, const char *key);

#endif
