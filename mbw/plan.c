/* plan: mbw's checks before allocating, and --plan's document. */
#include "plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "affinity.h"
#include "counters.h"
#include "exitcodes.h"
#include "log.h"
#include "numa.h"
#include "opts.h"
#include "sizing.h"
#include "threads.h"

static int refuse(mbw_plan_t *p, const char *check, int code)
{
    p->refused_by = check;
    return p->code = code;
}

/* --numa-node N: check, then bind CPUs and memory (before allocating). */
static int check_numa(const mbw_cfg_t *cfg, mbw_session_t *s, mbw_plan_t *p)
{
    char node[32], msg[512];
    mb_numa_request_t req = { NULL, NULL, NULL };

    if (cfg->numa_node < 0) {
        mb_numa_describe(&req, s->numa_desc, sizeof s->numa_desc);
        return 0;
    }
    snprintf(node, sizeof node, "%lld", cfg->numa_node);
    req.cpunodebind = node;
    req.membind = node;
    int rc = mb_numa_check_request(&req, msg, sizeof msg);
    if (rc == 0)
        rc = mb_numa_apply(&req, msg, sizeof msg);
    if (rc != 0) {
        snprintf(p->msg, sizeof p->msg, "--numa-node %lld: %s", cfg->numa_node, msg);
        return refuse(p, "numa", mbw_exit_code(cfg, rc == -ENOSYS ? MB_EXIT_UNBUILT
                                                                  : MB_EXIT_USAGE));
    }
    mb_numa_describe(&req, s->numa_desc, sizeof s->numa_desc);
    return 0;
}

/* Counters for every selected method before measuring, so that a
 * malformed list is a usage error and not a half-done run. */
static int check_counters(const mbw_cfg_t *cfg, mbw_session_t *s, mbw_plan_t *p)
{
    char msg[512];
    if (!cfg->counters)
        return 0;
    for (int i = 0; i < MBW_NMETHODS; i++) {
        mbw_method_run_t *r = &s->run[i];
        if (!r->selected)
            continue;
        if (mb_counters_init(&r->counters, cfg->counter_list, msg, sizeof msg) != 0) {
            snprintf(p->msg, sizeof p->msg, "--counters: %s", msg);
            return refuse(p, "counters", mbw_exit_code(cfg, MB_EXIT_USAGE));
        }
        r->counters_on = true;
    }
    return 0;
}

/* mb_rule_suggest_fn: mbw's positional size, whole MiB rounded up. */
static void suggest_size(size_t min_bytes, const void *ctx, char *buf, size_t buflen)
{
    (void)ctx;
    const size_t mib = (size_t)MBW_MIB_BYTES;
    snprintf(buf, buflen, "an array size of %zu (MiB)", min_bytes / mib + (min_bytes % mib != 0));
}

/* The 4x LLC rule, mb_size_rule's policy: under it the run warns (the
 * document is labelled not-standard), or with --strict refuses (exit 2). */
static int check_rule(const mbw_cfg_t *cfg, mbw_session_t *s, mbw_plan_t *p)
{
    char err[256], given[64];

    if (mb_llc_detect(NULL, &s->llc, err, sizeof err) != 0) {
        snprintf(p->msg, sizeof p->msg, "%s", err);
        return refuse(p, "llc", mbw_exit_code(cfg, MB_EXIT_USAGE));
    }
    snprintf(given, sizeof given, "array size %llu MiB", cfg->size_mib);
    mb_rule_query_t q = { &s->llc, cfg->array_bytes, "each array", given, cfg->strict,
                          suggest_size, NULL };
    mb_size_rule(&q, &s->size_rule);
    p->rule_checked = true;
    if (s->size_rule.verdict == MB_RULE_REFUSED) {
        snprintf(p->msg, sizeof p->msg, "%s", s->size_rule.message);
        return refuse(p, "size_rule", MB_EXIT_USAGE);    /* only --strict refuses */
    }
    return 0;
}

/* The two arrays against MemAvailable. */
static int check_memory(const mbw_cfg_t *cfg, mbw_plan_t *p)
{
    size_t avail, need = 2 * cfg->array_bytes;
    char fit[512], need_s[32], avail_s[32];
    int rc = mb_mem_available(&avail);

    p->need_bytes = need;
    if (rc != 0) {
        p->fit = MB_FIT_UNKNOWN;
        snprintf(p->fit_msg, sizeof p->fit_msg, "memory check: cannot read MemAvailable: %s; "
                 "allocating without the check", strerror(-rc));
        return 0;
    }
    p->available_bytes = avail;
    if (mb_fits_in_memory(need, avail, fit, sizeof fit)) {
        p->fit = MB_FIT_FITS;
        return 0;
    }
    p->fit = MB_FIT_REFUSED;
    snprintf(p->fit_msg, sizeof p->fit_msg, "%s", fit);
    size_t usable = avail - avail / 10;
    snprintf(p->msg, sizeof p->msg, "array size %llu MiB: the 2 arrays need %s but MemAvailable "
             "is %s (10%% is kept for the OS); use an array size of at most %zu MiB",
             cfg->size_mib, mb_format_bytes(need, need_s, sizeof need_s),
             mb_format_bytes(avail, avail_s, sizeof avail_s), usable / 2 / (size_t)MBW_MIB_BYTES);
    return refuse(p, "memory", mbw_exit_code(cfg, MB_EXIT_RESOURCE));
}

int mbw_plan_build(const mbw_cfg_t *cfg, mbw_session_t *s, mbw_plan_t *p)
{
    memset(p, 0, sizeof *p);
    if (mb_threads_env_check(p->msg, sizeof p->msg) != 0)
        return refuse(p, "environment", mbw_exit_code(cfg, MB_EXIT_USAGE));
    if (check_numa(cfg, s, p) || check_counters(cfg, s, p) || check_rule(cfg, s, p) ||
        check_memory(cfg, p))
        return p->code;
    return 0;
}

const char *mbw_plan_label(const mbw_cfg_t *cfg, const mb_rule_t *rule)
{
    const char *reasons[8];
    if (mbw_cli_tuned_reasons(cfg, reasons, 8))
        return "tuned";
    return rule->verdict != MB_RULE_MET ? "not-standard" : "standard";
}

typedef struct {
    const mbw_cfg_t *cfg;
    const mbw_session_t *s;
} plan_ctx_t;

static void run_json(mb_json_t *j, const void *ctx)
{
    const plan_ctx_t *c = ctx;
    char hp[16];

    mb_json_array_begin(j, "methods");
    for (int i = 0; i < MBW_NMETHODS; i++)
        if (c->cfg->test[i])
            mb_json_string(j, NULL, mbw_methods[i].name);
    mb_json_array_end(j);
    mb_json_uint(j, "array_mib", c->cfg->size_mib);
    mb_json_uint(j, "array_bytes", c->cfg->array_bytes);
    mb_json_int(j, "arrays", 2);
    mb_json_int(j, "runs", c->cfg->runs);
    mb_json_uint(j, "block_bytes", c->cfg->block_bytes);
    mb_json_string(j, "hugepages", c->cfg->hugepages == MBW_HP_DEFAULT ? "default" :
                   mb_opts_choice_name(MBW_HUGEPAGES_CHOICES, c->cfg->hugepages, hp, sizeof hp));
    mb_json_string(j, "numa", c->s->numa_desc);
    mb_json_bool(j, "verify", c->cfg->verify);
}

static void run_text(FILE *f, const void *ctx)
{
    const plan_ctx_t *c = ctx;
    char a[32];

    fprintf(f, "methods:");
    for (int i = 0, k = 0; i < MBW_NMETHODS; i++)
        if (c->cfg->test[i])
            fprintf(f, "%s%s", k++ ? "," : " ", mbw_methods[i].name);
    fprintf(f, "\narrays: 2 x %llu MiB (%s in all); runs %lld; block %llu bytes\n",
            c->cfg->size_mib, mb_format_bytes(2 * c->cfg->array_bytes, a, sizeof a),
            c->cfg->runs, c->cfg->block_bytes);
}

int mbw_plan_report(const mbw_cfg_t *cfg, const mbw_session_t *s, const mbw_plan_t *p, FILE *f)
{
    const char *tuned[8];
    size_t ntuned = mbw_cli_tuned_reasons(cfg, tuned, 8);
    plan_ctx_t ctx = { cfg, s };
    mb_plandoc_t d;

    mb_plandoc_init(&d, "mbw");
    d.exit_code = p->code;
    d.rule_checked = p->rule_checked;
    d.rule = &s->size_rule;
    d.llc = p->rule_checked || s->llc.note[0] ? &s->llc : NULL;
    d.rule_subject = "each array";
    d.rule_bytes = cfg->array_bytes;
    d.strict = cfg->strict;
    d.fit = p->fit;
    d.need_bytes = 2 * cfg->array_bytes;
    d.available_bytes = p->available_bytes;
    d.fit_message = p->fit == MB_FIT_REFUSED || p->fit == MB_FIT_UNKNOWN ? p->fit_msg : NULL;
    d.threads_requested = (int)cfg->threads;
    d.threads_effective = (int)cfg->threads;
    d.allowed_cpus = mb_affinity_allowed_cpus();
    d.threads_how = cfg->threads == 1 ? "one thread per copy: classic mbw"
                                      : "--threads: each copy split across the threads";
    d.label = mbw_plan_label(cfg, &s->size_rule);
    for (size_t i = 0; i < ntuned; i++)
        mb_plandoc_reason(&d, tuned[i]);
    if (p->rule_checked && s->size_rule.verdict != MB_RULE_MET) {
        mb_plandoc_reason(&d, s->size_rule.message);
        mb_plandoc_warning(&d, s->size_rule.message);
    }
    if (p->fit == MB_FIT_UNKNOWN)
        mb_plandoc_warning(&d, p->fit_msg);
    if (p->refused_by) {
        mb_plandoc_refuse(&d, p->refused_by, p->msg, p->code);
        mb_error("%s", p->msg);
    }
    d.run_json = run_json;
    d.run_text = run_text;
    d.ctx = &ctx;
    if (mb_plandoc_render(&d, (mb_format_t)cfg->format, f) != 0) {
        mb_error("writing the plan failed: %s", strerror(EIO));
        return mbw_exit_code(cfg, MB_EXIT_RESOURCE);
    }
    return p->code;
}
