/* render: mbw's text lines and the memsuite result document. */
#include "render.h"
#include "plan.h"

#include "counter_names.h"

#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "sizing.h"
#include "sysinfo.h"

void mbw_text_alloc_line(FILE *f, const mbw_cfg_t *cfg)
{
    if (!f)
        return;
    fprintf(f, "Long uses %d bytes. Allocating 2*%zu elements = %zu bytes of memory.\n",
            (int)sizeof(long), cfg->elements, 2 * cfg->array_bytes);
    fflush(f);
}

void mbw_text_start_lines(FILE *f, const mbw_cfg_t *cfg)
{
    if (!f)
        return;
    if (cfg->test[2])
        fprintf(f, "Using %llu bytes as blocks for memcpy block copy test.\n", cfg->block_bytes);
    fprintf(f, "Getting down to business... Doing %lld runs per test.\n", cfg->runs);
    fflush(f);
}

void mbw_text_result_line(FILE *f, const char *index, const char *name, double time_s, double mib)
{
    if (!f)
        return;
    fprintf(f, "%s\tMethod: %s\tElapsed: %.5f\tMiB: %.5f\tCopy: %.3f MiB/s\n",
            index, name, time_s, mib, mib / time_s);
    fflush(f);
}

void mbw_text_counters(FILE *f, const char *name, const mb_counters_t *c)
{
    fprintf(f, "%s: counters: %s:", mb_log_prog(), name);
    if (c->hw_available) {
        fprintf(f, " threads_counted=%d", mb_counters_threads_counted(c));
        for (int i = 0; i < c->n; i++) {
            if (c->ev[i].available)
                fprintf(f, " %s=%lld", c->ev[i].name, c->ev[i].value);
            else
                fprintf(f, " %s=unavailable", c->ev[i].name);
        }
    } else if (c->hw_requested) {
        fprintf(f, " hardware unavailable (%s);", c->hw_why);
    }
    /* rates from pairs of events (the dTLB miss rate in % of loads, IPC) */
    mb_counter_rate_t rt[MB_COUNTER_RATES_MAX];
    int nr = mb_counter_rates(c, rt, MB_COUNTER_RATES_MAX);
    for (int i = 0; i < nr; i++) {
        if (rt[i].ok)
            fprintf(f, " %s=%.2f", rt[i].key, rt[i].value);
        else
            fprintf(f, " %s=unavailable", rt[i].key);
    }
    if (c->sw_available)
        fprintf(f, " page_faults=%lld context_switches=%lld cpu_migrations=%lld",
                c->sw_page_faults, c->sw_context_switches, c->sw_cpu_migrations);
    else
        fprintf(f, " software events unavailable (%s);", c->sw_why);
    fprintf(f, " minflt=%ld majflt=%ld maxrss_kib=%ld\n", c->minflt, c->majflt, c->maxrss_kib);
}

/* ---- JSON/CSV ------------------------------------------------------ */

static void mbw_json_config(mb_json_t *j, const void *ctx)
{
    const mbw_session_t *s = ctx;
    const mbw_cfg_t *c = s->cfg;

    mb_json_uint(j, "size_mib", c->size_mib);
    mb_json_uint(j, "array_bytes", c->array_bytes);
    mb_json_uint(j, "elements_per_array", c->elements);
    mb_json_int(j, "long_bytes", (long long)sizeof(long));
    mb_json_int(j, "arrays", 2);
    mb_json_uint(j, "block_bytes", c->block_bytes);
    mb_json_int(j, "runs", c->runs);
    mb_json_bool(j, "until_interrupted", c->runs == 0);
    mb_json_array_begin(j, "tests");
    for (int i = 0; i < MBW_NMETHODS; i++) {
        if (c->test[i])
            mb_json_string(j, NULL, mbw_methods[i].name);
    }
    mb_json_array_end(j);
    mb_json_int(j, "threads", c->threads);
    mb_json_string(j, "hugepages", s->arrays.huge_mode);
    if (s->arrays.huge_known)
        mb_json_uint(j, "anon_huge_bytes", s->arrays.huge_bytes);
    else
        mb_json_unavailable(j, "anon_huge_bytes", s->arrays.huge_why);
    if (c->numa_node >= 0)
        mb_json_int(j, "numa_node", c->numa_node);
    mb_json_string(j, "timer", "CLOCK_MONOTONIC");
    mb_json_uint(j, "timer_granularity_ns", s->granularity_ns);
    mb_json_uint(j, "min_sample_ns", s->min_sample_ns);
    mb_json_string(j, "rate_definition",
                   "MiB/s = array size in MiB / seconds per copy (the array counted once, as mbw)");
    mb_json_string(j, "semantics",
                   "mbw 1.5: MEMCPY is one memcpy, DUMB an element loop, MCBLOCK advances "
                   "source and destination block by block (Debian 1.2.2 swaps the first two "
                   "labels and re-reads one block in MCBLOCK)");
    mb_json_bool(j, "verify", c->verify);
    mb_json_bool(j, "strict", c->strict);
}

static void mbw_json_record_extra(mb_json_t *j, const void *ctx)
{
    const mbw_method_run_t *r = ctx;
    char hex[32];

    mb_json_int(j, "test", r->method->id);
    mb_json_string(j, "description", r->method->summary);
    if (r->method->blocked)
        mb_json_uint(j, "block_bytes", r->block_bytes);
    mb_json_uint(j, "runs", r->series.n);
    mb_json_uint(j, "copies_per_sample", r->series.reps);
    if (r->verified) {
        mb_json_object_begin(j, "verify");
        mb_json_bool(j, "ok", r->verify_ok);
        snprintf(hex, sizeof hex, "%016" PRIx64, r->verify.src_sum);
        mb_json_string(j, "src_checksum", hex);
        snprintf(hex, sizeof hex, "%016" PRIx64, r->verify.dst_sum);
        mb_json_string(j, "dst_checksum", hex);
        if (!r->verify_ok)
            mb_json_uint(j, "first_bad_byte", r->verify.first_bad_byte);
        mb_json_object_end(j);
    }
}

static void mbw_json_validation(mb_json_t *j, const void *ctx)
{
    const mbw_session_t *s = ctx;
    mb_json_string(j, "method", "FNV-1a checksum and byte comparison of destination vs source "
                                "after each method's runs (destination zeroed before)");
    mb_json_array_begin(j, "failed");
    for (int i = 0; i < MBW_NMETHODS; i++) {
        if (s->run[i].verified && !s->run[i].verify_ok)
            mb_json_string(j, NULL, s->run[i].method->name);
    }
    mb_json_array_end(j);
}

static void mbw_fill_record(mbw_method_run_t *r, mb_record_t *rec, double mib)
{
    memset(rec, 0, sizeof *rec);
    rec->name = r->method->name;
    rec->headline = "avg_rate_mibps";   /* mbw's AVG line */
    r->has_stats = mb_stats_compute(r->series.time_s, r->series.n, 0, &r->stats) == 0;
    double mean_s = mbw_series_mean_s(&r->series);

    mb_record_add(rec, "avg_rate_mibps", "MiB/s", mib / mean_s);
    if (r->has_stats) {
        mb_record_add(rec, "best_rate_mibps", "MiB/s", mib / r->stats.min);
        mb_record_add(rec, "worst_rate_mibps", "MiB/s", mib / r->stats.max);
    } else {
        mb_record_add_unavailable(rec, "best_rate_mibps", "MiB/s", "no valid time samples");
        mb_record_add_unavailable(rec, "worst_rate_mibps", "MiB/s", "no valid time samples");
    }
    mb_metric_t *m = mb_record_add(rec, "time_s", "s", mean_s);
    if (m) {
        m->stats = r->has_stats ? &r->stats : NULL;
        m->samples = r->series.time_s;
        m->nsamples = r->series.n;
    }
    if (r->counters_on)
        rec->counters = &r->counters;
    rec->extra = mbw_json_record_extra;
    rec->extra_ctx = r;
}

static void mbw_result_warnings(mb_result_t *res, const mbw_session_t *s)
{
    const mbw_cfg_t *c = s->cfg;
    char a[32];

    if (s->size_rule.verdict != MB_RULE_MET)
        mb_result_warn(res, "%s", s->size_rule.message);
    int allowed = mb_affinity_allowed_cpus();
    if (allowed > 0 && c->threads > allowed)
        mb_result_warn(res, "--threads %lld exceeds the %d CPUs this process may use: "
                       "threads share CPUs", c->threads, allowed);
    if (c->hugepages != MBW_HP_DEFAULT && c->hugepages != MBW_HP_NEVER && s->arrays.huge_known &&
        s->arrays.huge_bytes == 0)
        mb_result_warn(res, "--hugepages %s: no transparent huge page backs the arrays "
                       "(see thp_enabled in sysinfo)", s->arrays.huge_mode);
    if (c->hugepages == MBW_HP_DEFAULT && s->arrays.huge_known && s->arrays.huge_bytes > 0)
        mb_result_warn(res, "transparent huge pages back %s of the arrays (system THP "
                       "setting); a small-page run may differ",
                       mb_format_bytes(s->arrays.huge_bytes, a, sizeof a));
    for (int i = 0; i < MBW_NMETHODS; i++) {
        if (s->run[i].series.truncated)
            mb_result_warn(res, "%s: sample storage ran out; later runs not kept",
                           s->run[i].method->name);
    }
    if (!s->complete)
        mb_result_warn(res, "interrupted by SIGINT or SIGTERM before all runs finished");
}

int mbw_render_doc(mbw_session_t *s, mb_format_t fmt, FILE *f)
{
    const mbw_cfg_t *c = s->cfg;
    mb_result_t res;
    mb_record_t rec[MBW_NMETHODS];
    mb_sysinfo_t si;
    const char *reasons[8];
    double mib = (double)c->size_mib;

    memset(&res, 0, sizeof res);
    res.tool = "mbw";
    size_t nr = mbw_cli_tuned_reasons(c, reasons, 8);
    bool small = s->size_rule.verdict != MB_RULE_MET;
    res.label = mbw_plan_label(c, &s->size_rule);
    for (size_t i = 0; i < nr; i++)
        mb_result_add_label_reason(&res, reasons[i]);
    if (small)
        mb_result_add_label_reason(&res, s->size_rule.message);
    res.argc = s->argc;
    res.argv = s->argv;
    res.complete = s->complete;
    res.has_validation = c->verify;
    res.validated = true;
    for (int i = 0; i < MBW_NMETHODS; i++) {
        if (s->run[i].verified && !s->run[i].verify_ok)
            res.validated = false;
    }
    res.validation_extra = mbw_json_validation;
    res.validation_ctx = s;
    res.config = mbw_json_config;
    res.config_ctx = s;

    size_t n = 0;
    for (int i = 0; i < MBW_NMETHODS; i++) {
        if (s->run[i].ran)
            mbw_fill_record(&s->run[i], &rec[n++], mib);
    }
    res.records = rec;
    res.nrecords = n;
    res.affinity = &s->affinity;
    res.numa_policy = s->numa_desc;
    res.placement = s->has_placement ? &s->placement : NULL;

    res.llc = &s->llc;
    mb_sysinfo_collect(&si);
    res.sysinfo = &si;
    mbw_result_warnings(&res, s);

    return mb_report_render(&res, fmt, f);
}
