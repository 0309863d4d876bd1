/* planout: mencal's --plan, from mc_config_resolve's configuration. */
#include "planout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "label.h"
#include "log.h"
#include "plandoc.h"

#define MAX_SEL 64

typedef struct {
    const mc_config_t *cfg;
    const mc_scenario_t *const *sel;
    size_t nsel;
    bool resolved;             /* mc_config_resolve succeeded */
    int supported[MAX_SEL];    /* supported()'s answer (0: runs) */
    char why[MAX_SEL][256];
    char *lines;               /* the scenarios' plan lines (their plan hooks) */
} plan_ctx_t;

static void run_json(mb_json_t *j, const void *ctx)
{
    const plan_ctx_t *c = ctx;
    const mc_config_t *cfg = c->cfg;

    mb_json_array_begin(j, "scenarios");
    for (size_t i = 0; i < c->nsel; i++) {
        mb_json_object_begin(j, NULL);
        mb_json_string(j, "name", c->sel[i]->name);
        mb_json_string(j, "summary", c->sel[i]->summary);
        mb_json_bool(j, "supported", c->resolved && c->supported[i] == 0);
        mb_json_string(j, "why", !c->resolved ? "not checked: the configuration was refused"
                                 : c->supported[i] ? c->why[i] : NULL);
        mb_json_object_end(j);
    }
    mb_json_array_end(j);
    mb_json_uint(j, "size_bytes", cfg->size_bytes);
    mb_json_string(j, "size_how", cfg->size_how);
    mb_json_int(j, "reps", cfg->o->reps);
    mb_json_string(j, "hugepages", mc_hugepages_name((mc_hugepages_t)cfg->o->hugepages));
    mb_json_string(j, "buffer", mc_buffer_kind_name((mc_buffer_kind_t)cfg->o->buffer));
    mb_json_string(j, "numa", cfg->numa_desc);
    mb_json_array_begin(j, "cpus");
    for (int t = 0; c->resolved && t < cfg->nthreads; t++)
        mb_json_int(j, NULL, cfg->cpu[t]);
    mb_json_array_end(j);
    mb_json_int(j, "physical_cores", cfg->ncores);
    mb_json_array_begin(j, "scenario_lines");
    for (char *s = c->lines, *nl; s && *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl) {
            mb_json_string(j, NULL, s);
            break;
        }
        *nl = '\0';
        mb_json_string(j, NULL, s);
        *nl = '\n';
    }
    mb_json_array_end(j);
}

static void run_text(FILE *f, const void *ctx)
{
    const plan_ctx_t *c = ctx;
    const mc_config_t *cfg = c->cfg;
    char a[32];

    fprintf(f, "scenarios:");
    for (size_t i = 0; i < c->nsel; i++)
        fprintf(f, " %s", c->sel[i]->name);
    fputc('\n', f);
    for (size_t i = 0; c->resolved && i < c->nsel; i++)
        if (c->supported[i])
            fprintf(f, "  %s would be skipped: %s\n", c->sel[i]->name, c->why[i]);
    if (c->resolved)
        fprintf(f, "working set: %s per scenario (%s); reps %lld\n",
                mb_format_bytes(cfg->size_bytes, a, sizeof a), cfg->size_how, cfg->o->reps);
    if (c->lines && c->lines[0])
        fputs(c->lines, f);
}

int mc_plan_report(const mc_config_t *cfg, const mc_scenario_t *const *sel, size_t nsel, int rc,
                   const char *msg, FILE *f)
{
    static plan_ctx_t ctx;
    static mc_label_t lab;
    mb_plandoc_t d;
    bool counts[MAX_SEL];
    size_t len = 0;

    memset(&ctx, 0, sizeof ctx);
    ctx.cfg = cfg;
    ctx.sel = sel;
    ctx.nsel = nsel < MAX_SEL ? nsel : MAX_SEL;
    ctx.resolved = rc == 0;
    if (ctx.resolved) {
        /* a scenario the machine cannot run is skipped, as in the run */
        for (size_t i = 0; i < ctx.nsel; i++) {
            ctx.supported[i] = sel[i]->supported ? sel[i]->supported(cfg, ctx.why[i],
                                                                     sizeof ctx.why[i]) : 0;
            counts[i] = ctx.supported[i] == 0;
        }
        FILE *mf = open_memstream(&ctx.lines, &len);
        for (size_t i = 0; mf && i < ctx.nsel; i++)
            if (sel[i]->plan)
                sel[i]->plan(mf, mc_cli_conf(cfg->cli, sel[i]));
        if (mf)
            fclose(mf);
        mc_label_config(cfg, sel, counts, ctx.nsel, &lab);
    }

    mb_plandoc_init(&d, "mencal");
    d.exit_code = rc;
    d.rule_checked = cfg->rule_checked;
    d.rule = &cfg->rule;
    d.llc = cfg->rule_checked ? &cfg->caches.llc : NULL;
    d.rule_subject = "the working set";
    d.rule_bytes = cfg->size_bytes;
    d.strict = cfg->o->strict;
    d.fit = cfg->fit;
    d.need_bytes = cfg->size_bytes;
    d.available_bytes = cfg->mem_available_bytes;
    d.fit_message = cfg->fit_msg;
    d.threads_requested = mc_opt_seen(cfg, "threads") ? (int)cfg->o->threads : 0;
    d.threads_effective = cfg->nthreads;
    d.allowed_cpus = cfg->ncpus_allowed;
    d.threads_how = cfg->threads_how;
    if (ctx.resolved) {
        d.label = mc_label_word(&lab);
        for (size_t i = 0; i < lab.n; i++)
            mb_plandoc_reason(&d, lab.reasons[i]);
    }
    for (size_t i = 0; i < cfg->nwarn; i++)
        mb_plandoc_warning(&d, cfg->warn[i]);
    if (rc != 0) {
        mb_plandoc_refuse(&d, cfg->stage ? cfg->stage : "options", msg, rc);
        mb_error("%s", msg);
    } else {
        /* a named scenario that cannot run here fails the run (all skips it) */
        for (size_t i = 0; i < ctx.nsel && !cfg->running_all; i++)
            if (ctx.supported[i] && !d.exit_code)
                d.exit_code = ctx.supported[i];
    }
    d.run_json = run_json;
    d.run_text = run_text;
    d.ctx = &ctx;
    rc = mb_plandoc_render(&d, cfg->format, f);
    free(ctx.lines);
    if (rc != 0) {
        mb_error("writing the plan failed: %s", strerror(EIO));
        return MB_EXIT_RESOURCE;
    }
    return d.exit_code;
}
