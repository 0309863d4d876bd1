/* env: `mencal env`, the environment that changes a memory figure:
 * every mb_sysinfo fact, GLIBC_TUNABLES parsed into keys (common/tunables),
 * the huge page pools (common/hugepools) and the allocator actually in
 * effect in this process.  Collection is common/'s; this file renders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "log.h"
#include "env.h"
#include "exitcodes.h"
#include "outfile.h"
#include "hugepools.h"
#include "sysinfo.h"
#include "tunables.h"

#define MAX_TUNABLES 32

typedef struct {
    const mb_sysinfo_t *si;
    bool tunables_set;
    int ntun;
    mb_tunable_t tun[MAX_TUNABLES];
    int npool;
    mb_hugepool_t pool[MB_HUGEPOOLS_MAX];
    char pools_why[200];
    char alloc_name[32], alloc_detail[128];
} env_t;

static void ll_or_unavailable(mb_json_t *j, const char *key, long long v)
{
    if (v >= 0)
        mb_json_int(j, key, v);
    else
        mb_json_unavailable(j, key, "unreadable");
}

static void env_config_json(mb_json_t *j, const void *ctx)
{
    const env_t *e = ctx;
    mb_json_string(j, "subcommand", "env");
    mb_json_object_begin(j, "allocator");
    mb_json_string(j, "name", e->alloc_name);
    mb_json_string(j, "detail", e->alloc_detail);
    mb_json_object_end(j);
    if (e->tunables_set) {
        mb_json_object_begin(j, "glibc_tunables");
        for (int i = 0; i < e->ntun; i++)
            mb_json_string(j, e->tun[i].key, e->tun[i].value);
        mb_json_object_end(j);
    } else {
        mb_json_unavailable(j, "glibc_tunables", "GLIBC_TUNABLES is not set: glibc defaults");
    }
    if (e->pools_why[0]) {
        mb_json_unavailable(j, "hugepage_pools", e->pools_why);
    } else {
        mb_json_array_begin(j, "hugepage_pools");
        for (int i = 0; i < e->npool; i++) {
            const mb_hugepool_t *p = &e->pool[i];
            mb_json_object_begin(j, NULL);
            mb_json_int(j, "page_size_kib", p->size_kib);
            ll_or_unavailable(j, "total", p->total);
            ll_or_unavailable(j, "free", p->free_pages);
            ll_or_unavailable(j, "surplus", p->surplus);
            ll_or_unavailable(j, "reserved", p->reserved);
            mb_json_object_end(j);
        }
        mb_json_array_end(j);
    }
}

static void env_text(FILE *f, const env_t *e)
{
    const mb_sysinfo_t *si = e->si;
    for (size_t i = 0; i < si->n && i < MB_SYSINFO_MAX; i++) {
        const mb_fact_t *fa = &si->fact[i];
        if (fa->ok)
            fprintf(f, "%-24s %s\n", fa->key, fa->value);
        else
            fprintf(f, "%-24s unavailable: %s\n", fa->key, fa->why);
    }
    fprintf(f, "%-24s %s (%s)\n", "allocator_in_effect", e->alloc_name, e->alloc_detail);
    if (!e->tunables_set)
        fprintf(f, "%-24s not set (glibc defaults)\n", "glibc_tunables_parsed");
    for (int i = 0; i < e->ntun; i++)
        fprintf(f, "%-24s %s = %s\n", i ? "" : "glibc_tunables_parsed", e->tun[i].key,
                e->tun[i].value);
    if (e->pools_why[0])
        fprintf(f, "%-24s unavailable: %s\n", "hugepage_pools", e->pools_why);
    for (int i = 0; i < e->npool; i++) {
        const mb_hugepool_t *p = &e->pool[i];
        fprintf(f, "%-24s %lld kB pages: total %lld, free %lld, surplus %lld, reserved %lld\n",
                i ? "" : "hugepage_pools", p->size_kib, p->total, p->free_pages, p->surplus,
                p->reserved);
    }
}

int mc_env_main(const mc_config_t *cfg, const mc_cmdline_t *cmd)
{
    static mb_sysinfo_t si;
    static env_t e;
    mb_sysinfo_collect(&si);
    e.si = &si;
    const char *tun = getenv("GLIBC_TUNABLES");
    e.tunables_set = tun != NULL;
    e.ntun = mb_tunables_parse(tun, e.tun, MAX_TUNABLES);
    e.npool = mb_hugepools_read(e.pool, MB_HUGEPOOLS_MAX, e.pools_why, sizeof e.pools_why);
    if (e.npool < 0)
        e.npool = 0;
    const char *name = mb_allocator_detect(e.alloc_detail, sizeof e.alloc_detail);
    snprintf(e.alloc_name, sizeof e.alloc_name, "%s", name ? name : "unknown");

    char msg[512];
    mb_out_t out;
    if (mb_out_open(&out, cfg->o->output, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return MB_EXIT_RESOURCE;
    }
    int rc = 0;
    if (cfg->format == MB_FMT_TEXT) {
        env_text(out.f, &e);
    } else if (cfg->format == MB_FMT_JSON) {
        static mb_result_t r;
        memset(&r, 0, sizeof r);
        r.tool = "mencal";
        r.label = "standard";
        r.complete = true;
        r.argc = cmd->argc;
        r.argv = cmd->argv;
        r.config = env_config_json;
        r.config_ctx = &e;
        r.sysinfo = &si;
        rc = mb_report_json(&r, out.f);
    } else {
        mb_error("env: --format csv is not supported; use text or json");
        mb_out_abort(&out);
        return MB_EXIT_USAGE;
    }
    if (rc) {
        mb_out_abort(&out);
        mb_error("env: writing failed");
        return MB_EXIT_RESOURCE;
    }
    if (mb_out_commit(&out, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return MB_EXIT_RESOURCE;
    }
    return 0;
}
