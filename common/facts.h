/* facts: the environment document memsuite records (`memsuite-facts`,
 * `memsuite env`, a run directory's env.json): every fact with one key,
 * a verdict (ok | warn | unavailable), the reason and the command that
 * fixes it.  The values come from sysinfo's collectors (one table, one
 * key per fact) and common/dimms, virt, sizing; this file adds only what
 * memsuite judges: the verdicts, the fixes, and the facts read by running
 * a program (numactl --hardware, perf stat / papi_avail, cpupower).
 * Paths honour MEMSUITE_SYSFS / MEMSUITE_PROCFS; dmidecode's root check
 * honours MEMSUITE_ASSUME_ROOT. */
#ifndef MB_FACTS_H
#define MB_FACTS_H

#include <stdbool.h>
#include <stdio.h>

#define MB_FACTS_SCHEMA "memsuite/facts/1"
#define MB_ENV_SCHEMA "memsuite/env/1"
#define MB_FACTS_MAX_NODES 1024

typedef enum { MB_VERDICT_OK, MB_VERDICT_WARN, MB_VERDICT_UNAVAILABLE } mb_verdict_t;

typedef struct {
    char key[48];          /* "smt", "governor.cpu3", ... */
    mb_verdict_t verdict;
    char value[512];       /* may be set for unavailable too (what was seen) */
    char why[400];         /* warn / unavailable: the reason */
    char fix[300];         /* a command or step that fixes it; "" none */
} mb_envfact_t;

typedef struct {
    size_t n, cap;
    mb_envfact_t *row;
    /* summary fields of the document; -1 / "" unknown */
    char time[32], host[256];
    long long llc_bytes;
    char llc_source[16];
    int cores, sockets;
    int nnodes;
    int nodes[MB_FACTS_MAX_NODES]; /* every NUMA node id in sysfs, memory-only ones too */
    int ncpunodes;
    int cpunodes[MB_FACTS_MAX_NODES]; /* the nodes with CPUs (an unreadable cpulist counts):
                                         the bind targets */
    long long peak_mbps;
    char peak_note[200];
    char hypervisor[32];   /* "" when unknown */
    char virt_evidence[400];
    char tunables[1024];   /* GLIBC_TUNABLES, "" unset */
    void *build;           /* mb_membuild_t (group "build"), NULL when not collected */
    bool env;              /* the env document (mb_facts_add_profile) */
    char profile[128];     /* env: the applied memsuite profile, "" none */
} mb_facts_t;

/* The groups, in document order: host memory virtualization governor smt thp
 * numa dimms build counters tunables frequency.  build: the memory as built
 * (common/membuild: the "memory_build" object and the "edac" row).  only: a comma-separated list of group
 * names, or NULL for all.  Returns 0, or -EINVAL naming the unknown group
 * in why.  Never fails for the machine's sake: an unreadable fact is a row
 * with verdict unavailable. */
int mb_facts_collect(mb_facts_t *d, const char *only, char *why, size_t whylen);
void mb_facts_free(mb_facts_t *d);
/* The group names, space separated (for --help and messages). */
const char *mb_facts_groups(void);

/* Makes d the env document (memsuite env, a run's env.json; schema
 * memsuite/env/1): the facts, memsuite's version and the memsuite profile
 * applied now (profile: its name, "" or NULL for none), which is a fact
 * too: "profile" ok "NAME (applied)" with its restore command, or "none".
 * Memsuite's state knows the profile; the caller passes it. */
void mb_facts_add_profile(mb_facts_t *d, const char *profile);

/* One line per fact: "%-11s %-22s %s" verdict, key, value (": why" for
 * warn; "why [value]" for unavailable), then "fix: ..." lines. */
void mb_facts_text(const mb_facts_t *d, FILE *f);
/* The document (schema memsuite/facts/1, or memsuite/env/1 with
 * memsuite_version and profile after mb_facts_add_profile;
 * docs/results-format.md).  0 or
 * the writer's error. */
int mb_facts_json(const mb_facts_t *d, FILE *f);

#endif
