/* alloc/env: environment facts that change the allocator figures, and
 * the percpu_arena pitfall: jemalloc turns percpu_arena off by itself when the
 * CPU count it sees is "not deterministic" (taskset, cpusets, offline
 * CPUs), printing one line on stderr that is easy to miss. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "sizing.h"

/* The last value of `key` in a jemalloc "k:v,k:v" string, into val. */
static bool conf_value(const char *conf, const char *key, char *val, size_t vallen)
{
    bool found = false;
    size_t klen = strlen(key);
    for (const char *p = conf; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == ':') {
            snprintf(val, vallen, "%.*s", (int)(len - klen - 1), p + klen + 1);
            found = true;
        }
        p += len + (p[len] == ',');
    }
    return found;
}

/* The user's configuration with percpu_arena disabled and narenas set. */
static void conf_fixed(const char *conf, int narenas, char *out, size_t outlen)
{
    size_t used = (size_t)snprintf(out, outlen, "percpu_arena:disabled,narenas:%d", narenas);
    for (const char *p = conf; p && *p && used < outlen;) {
        size_t len = strcspn(p, ",");
        if (len && strncmp(p, "percpu_arena:", 13) != 0 && strncmp(p, "narenas:", 8) != 0)
            used += (size_t)snprintf(out + used, outlen - used, ",%.*s", (int)len, p);
        p += len + (p[len] == ',');
    }
}

void mc_alloc_env_collect(mc_alloc_env_t *e, const mc_alloc_cfg_t *c)
{
    memset(e, 0, sizeof *e);
    cpu_set_t set;
    e->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    e->cpus_configured = (int)sysconf(_SC_NPROCESSORS_CONF);
    e->cpus_allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                  : e->cpus_online;
    const char *src = NULL, *conf = NULL;
    if (c && c->jemalloc_conf)
        src = "--jemalloc-conf", conf = c->jemalloc_conf;
    else if ((conf = getenv("JEMALLOC_CONF")))
        src = "JEMALLOC_CONF";
    else if ((conf = getenv("MALLOC_CONF")))
        src = "MALLOC_CONF";
    e->conf_source = src;
    snprintf(e->conf, sizeof e->conf, "%s", conf ? conf : "");

    char v[64];
    e->percpu_requested = conf_value(e->conf, "percpu_arena", v, sizeof v) &&
                          (strcmp(v, "percpu") == 0 || strcmp(v, "phycpu") == 0);
    /* jemalloc 5.x keeps percpu arenas only when online == configured ==
     * the CPUs of the affinity mask */
    bool deterministic = e->cpus_online == e->cpus_configured &&
                         e->cpus_allowed == e->cpus_configured;
    if (e->percpu_requested && !deterministic) {
        char fixed[400];
        conf_fixed(e->conf, e->cpus_allowed, fixed, sizeof fixed);
        e->percpu_pitfall = true;
        snprintf(e->pitfall, sizeof e->pitfall,
                 "%s asks for percpu_arena:%s but the CPU affinity mask allows %d of %d "
                 "configured CPUs (%d online; taskset or a cpuset?), so jemalloc will print "
                 "\"Number of CPUs detected is not deterministic. Per-CPU arena disabled.\" and "
                 "run with its default arenas; the fix: --jemalloc-conf '%s'",
                 src, v, e->cpus_allowed, e->cpus_configured, e->cpus_online, fixed);
    }
    const char *gt = getenv("GLIBC_TUNABLES");
    snprintf(e->glibc_tunables, sizeof e->glibc_tunables, "%s", gt ? gt : "");
    const char *pre = getenv("LD_PRELOAD");
    snprintf(e->ld_preload, sizeof e->ld_preload, "%s", pre ? pre : "");

    char path[4096], line[256];
    if (mb_read_line(mb_sysfs_path(path, sizeof path, "/kernel/mm/transparent_hugepage/enabled"),
                     line, sizeof line) == 0) {
        const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b)
            snprintf(e->thp, sizeof e->thp, "%.*s", (int)(b - a - 1), a + 1);
        else
            snprintf(e->thp, sizeof e->thp, "unavailable: no [mode] in '%.80s'", line);
    } else {
        snprintf(e->thp, sizeof e->thp, "unavailable: cannot read %.100s", path);
    }
}
