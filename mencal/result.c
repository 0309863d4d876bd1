/* result: building an mc_result_t (metrics, notes, tables, counters). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter_names.h"
#include "json.h"
#include "result.h"
#include "scenario.h"

void mc_json_uint_or(mb_json_t *j, const char *key, size_t v, const char *why)
{
    if (v)
        mb_json_uint(j, key, v);
    else
        mb_json_unavailable(j, key, why);
}

void mc_json_ints(mb_json_t *j, const char *key, const int *v, int n)
{
    mb_json_array_begin(j, key);
    for (int i = 0; i < n; i++)
        mb_json_int(j, NULL, v[i]);
    mb_json_array_end(j);
}

void mc_result_init(mc_result_t *res, const mc_scenario_t *sc)
{
    memset(res, 0, sizeof *res);
    res->sc = sc;
    res->rec.name = sc ? sc->name : "";
    res->complete = true;
    res->rec.extra = mc_result_json_extra;
    res->rec.extra_ctx = res;
}

void mc_result_free(mc_result_t *res)
{
    for (size_t i = 0; i < res->ntables; i++) {
        free(res->tables[i].num);
        free(res->tables[i].str);
    }
    for (size_t i = 0; i < res->nowned; i++)
        free(res->owned[i]);
    res->ntables = res->nowned = 0;
}

void mc_lines_add(char *lines, size_t width, size_t cap, size_t *n, const char *fmt, va_list ap)
{
    if (*n < cap)
        vsnprintf(lines + width * (*n)++, width, fmt, ap);
}

void mc_result_note(mc_result_t *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_lines_add(res->notes[0], sizeof res->notes[0], MC_MAX_NOTES, &res->nnotes, fmt, ap);
    va_end(ap);
}

void mc_result_label(mc_result_t *res, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_lines_add(res->labels[0], sizeof res->labels[0], sizeof res->labels / sizeof res->labels[0],
                 &res->nlabels, fmt, ap);
    va_end(ap);
}

int mc_result_fail(mc_result_t *res, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->why, sizeof res->why, fmt, ap);
    va_end(ap);
    res->status = code;
    return code;
}

void *mc_result_alloc(mc_result_t *res, size_t bytes)
{
    if (res->nowned >= sizeof res->owned / sizeof res->owned[0])
        return NULL;
    void *p = calloc(1, bytes ? bytes : 1);
    if (p)
        res->owned[res->nowned++] = p;
    return p;
}

const char *mc_result_keep(mc_result_t *res, const char *s)
{
    size_t len = strlen(s) + 1;
    char *p = mc_result_alloc(res, len);
    if (!p)
        return "reason lost (out of memory)";
    memcpy(p, s, len);
    return p;
}

mb_metric_t *mc_metric(mc_result_t *res, const char *name, const char *unit, double v)
{
    if (!isfinite(v))
        return mc_metric_na(res, name, unit, "not finite (nothing was measured)");
    return mb_record_add(&res->rec, name, unit, v);
}

mb_metric_t *mc_metric_na(mc_result_t *res, const char *name, const char *unit, const char *why)
{
    return mb_record_add_unavailable(&res->rec, name, unit, why);
}

mb_metric_t *mc_metric_samples(mc_result_t *res, const char *name, const char *unit,
                               const double *samples, size_t n, const char *why_empty)
{
    if (n == 0)
        return mc_metric_na(res, name, unit, why_empty);
    size_t idx = res->rec.nmetric;
    if (idx >= MB_REC_MAX_METRICS)
        return NULL;
    mb_stats_t *st = &res->stats[idx];
    if (mb_stats_compute(samples, n, 0, st) != 0)
        return mc_metric_na(res, name, unit, "samples are not finite");
    mb_metric_t *m = mb_record_add(&res->rec, name, unit, st->median);
    if (!m)
        return NULL;
    m->stats = st;
    double *copy = mc_result_alloc(res, n * sizeof *copy);
    if (copy) {
        memcpy(copy, samples, n * sizeof *copy);
        m->samples = copy;
        m->nsamples = n;
    }
    return m;
}

mc_table_t *mc_table_new(mc_result_t *res, const char *name, const mc_col_t *cols, int ncols)
{
    if (res->ntables >= MC_MAX_TABLES)
        return NULL;
    mc_table_t *t = &res->tables[res->ntables++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->cols = cols;
    t->ncols = ncols;
    return t;
}

long mc_table_row(mc_table_t *t)
{
    if (!t)
        return -1;
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        double *num = realloc(t->num, cap * (size_t)t->ncols * sizeof *num);
        if (!num)
            return -1;
        t->num = num;
        char(*str)[64] = realloc(t->str, cap * (size_t)t->ncols * sizeof *str);
        if (!str)
            return -1;
        t->str = str;
        t->cap = cap;
    }
    size_t r = t->nrows++;
    for (int c = 0; c < t->ncols; c++) {
        t->num[r * (size_t)t->ncols + (size_t)c] = NAN;
        t->str[r * (size_t)t->ncols + (size_t)c][0] = '\0';
    }
    return (long)r;
}

void mc_table_num(mc_table_t *t, long row, int col, double v)
{
    if (t && row >= 0 && (size_t)row < t->nrows && col >= 0 && col < t->ncols)
        t->num[(size_t)row * (size_t)t->ncols + (size_t)col] = v;
}

void mc_table_str(mc_table_t *t, long row, int col, const char *s)
{
    if (t && row >= 0 && (size_t)row < t->nrows && col >= 0 && col < t->ncols)
        snprintf(t->str[(size_t)row * (size_t)t->ncols + (size_t)col], 64, "%s", s ? s : "");
}

void mc_counters_join(const mc_config_t *cfg, int t)
{
    if (cfg->counters)
        mb_counters_join(cfg->counters, t, omp_get_num_threads());
}

void mc_counters_begin(mc_result_t *res, const mc_config_t *cfg)
{
    if (!cfg->counters)
        return;
    if (!res->counters_used) {
        mb_counters_copy_zeroed(&res->counters, cfg->counters);
        res->counters_used = true;
        res->rec.counters = &res->counters;
    }
    res->counters_base = *cfg->counters;
    mb_counters_start(cfg->counters);
}

void mc_counters_end(mc_result_t *res, const mc_config_t *cfg)
{
    if (!cfg->counters || !res->counters_used)
        return;
    mb_counters_stop(cfg->counters);
    mb_counters_add_delta(&res->counters, cfg->counters, &res->counters_base);
}

void mc_result_counter_bytes(mc_result_t *res, double bytes)
{
    if (res->counters_used && bytes > 0)
        res->counters.bytes_moved = bytes;
}

void mc_counters_add(mc_result_t *res, const mb_counters_t *round)
{
    if (!res->counters_used) {
        mb_counters_copy_zeroed(&res->counters, round);
        res->counters_used = true;
        res->rec.counters = &res->counters;
    }
    mb_counters_add_delta(&res->counters, round, NULL);
}

/* The event `name` (a PAPI preset) as requested: by that name, or by the
 * perf-style alias that maps to it (dTLB-load-misses for PAPI_TLB_DM). */
static bool same_event(const char *requested, const char *name)
{
    const mb_counter_alias_t *a = mb_counter_alias_of(requested);
    return strcmp(requested, name) == 0 || (a && a->preset && strcmp(a->preset, name) == 0);
}

static const mb_counter_t *find_event(const mb_counters_t *c, const char *name)
{
    for (int i = 0; i < c->n && i < MB_COUNTERS_MAX; i++)
        if (same_event(c->ev[i].name, name))
            return c->hw_available && c->ev[i].available ? &c->ev[i] : NULL;
    return NULL;
}

/* "unavailable: <reason>", without doubling a prefix the reason has. */
static const char *unavailable(mc_result_t *res, const char *reason)
{
    char buf[480];
    if (strncmp(reason, "unavailable", 11) == 0)
        return mc_result_keep(res, reason);
    if (snprintf(buf, sizeof buf, "unavailable: %s", reason) >= (int)sizeof buf)
        buf[sizeof buf - 1] = '\0';
    return mc_result_keep(res, buf);
}

static const char *event_why(mc_result_t *res, const char *name)
{
    const mb_counters_t *c = &res->counters;
    char buf[400];
    if (!c->hw_requested)
        return "not requested (pass --counters)";
    for (int i = 0; i < c->n && i < MB_COUNTERS_MAX; i++)
        if (same_event(c->ev[i].name, name))
            return unavailable(res, c->ev[i].why[0] ? c->ev[i].why
                                    : c->hw_why[0] ? c->hw_why : "not counted");
    if (!c->hw_available)
        return unavailable(res, c->hw_why[0] ? c->hw_why : "not counted");
    snprintf(buf, sizeof buf, "%s is not in the --counters list", name);
    return unavailable(res, buf);
}

/* IPC = instructions / cycles; dTLB and LLC misses per load, where a
 * load is what the scenario counts (`load_what`). */
void mc_result_counter_metrics(mc_result_t *res, double loads, const char *load_what)
{
    if (!res->counters_used || !res->counters.hw_requested)
        return;
    const mb_counter_t *cyc = find_event(&res->counters, "PAPI_TOT_CYC");
    const mb_counter_t *ins = find_event(&res->counters, "PAPI_TOT_INS");
    const mb_counter_t *llc = find_event(&res->counters, "PAPI_L3_TCM");
    const mb_counter_t *tlb = find_event(&res->counters, "PAPI_TLB_DM");
    if (cyc && ins && cyc->value > 0)
        mc_metric(res, "ipc", "instructions/cycle", (double)ins->value / (double)cyc->value);
    else
        mc_metric_na(res, "ipc", "instructions/cycle",
                     event_why(res, cyc ? "PAPI_TOT_INS" : "PAPI_TOT_CYC"));
    if (tlb && loads > 0) {
        mb_metric_better(mc_metric(res, "dtlb_miss_rate", "misses/load", (double)tlb->value / loads),
                         MB_BETTER_LOWER);
    } else {
        mc_metric_na(res, "dtlb_miss_rate", "misses/load", event_why(res, "PAPI_TLB_DM"));
    }
    if (llc && loads > 0)
        mb_metric_better(mc_metric(res, "llc_miss_rate", "misses/load", (double)llc->value / loads),
                         MB_BETTER_LOWER);
    else
        mc_metric_na(res, "llc_miss_rate", "misses/load", event_why(res, "PAPI_L3_TCM"));
    if (load_what)
        mc_result_note(res, "counter rates are per %s", load_what);
}

/* ---- JSON inside the record ----------------------------------------- */

static void table_json(mb_json_t *j, const mc_table_t *t)
{
    mb_json_array_begin(j, t->name);
    for (size_t r = 0; r < t->nrows; r++) {
        mb_json_object_begin(j, NULL);
        for (int c = 0; c < t->ncols; c++) {
            size_t i = r * (size_t)t->ncols + (size_t)c;
            if (t->cols[c].text)
                mb_json_string(j, t->cols[c].name, t->str[i]);
            else if (isfinite(t->num[i]))
                mb_json_number(j, t->cols[c].name, t->num[i]);
            else
                mb_json_unavailable(j, t->cols[c].name,
                                    t->str[i][0] ? t->str[i] : "not measured");
        }
        mb_json_object_end(j);
    }
    mb_json_array_end(j);
}

void mc_result_json_extra(mb_json_t *j, const void *ctx)
{
    const mc_result_t *res = ctx;
    const char *status = res->skipped ? "skipped" : res->status ? "failed"
                       : !res->complete ? "interrupted" : "ok";
    mb_json_string(j, "status", status);
    if (res->why[0])
        mb_json_string(j, "reason", res->why);
    mb_json_bool(j, "complete", res->complete);
    mb_json_array_begin(j, "label_reasons");
    for (size_t i = 0; i < res->nlabels; i++)
        mb_json_string(j, NULL, res->labels[i]);
    mb_json_array_end(j);
    if (res->buffer_bytes) {
        mb_json_object_begin(j, "buffer");
        mb_json_uint(j, "bytes", res->buffer_bytes);
        if (res->thp_known) {
            mb_json_number(j, "thp_share", res->thp_share);
            mb_json_uint(j, "anon_huge_bytes", res->thp_bytes);
            mb_json_uint(j, "rss_bytes", res->rss_bytes);
        } else {
            mb_json_unavailable(j, "thp_share", res->thp_why[0] ? res->thp_why : "not measured");
        }
        if (res->placement_done && res->placement.valid) {
            mb_json_object_begin(j, "pages_per_node");
            for (int n = 0; n <= res->placement.max_node && n < MB_NUMA_MAX_NODES; n++) {
                char key[16];
                snprintf(key, sizeof key, "%d", n);
                mb_json_uint(j, key, res->placement.pages_on_node[n]);
            }
            mb_json_object_end(j);
        } else if (res->placement_done) {
            mb_json_unavailable(j, "pages_per_node", res->placement.why);
        }
        mb_json_object_end(j);
    }
    mb_json_object_begin(j, "tables");
    for (size_t i = 0; i < res->ntables; i++)
        table_json(j, &res->tables[i]);
    mb_json_object_end(j);
    mb_json_array_begin(j, "notes");
    for (size_t i = 0; i < res->nnotes; i++)
        mb_json_string(j, NULL, res->notes[i]);
    mb_json_array_end(j);
}
