/* render: a run's results as text (environment, detail tables, summary
 * table), JSON (memsuite/result/2) or CSV (the summary rows, then one
 * block per detail table). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "buffer.h"
#include "counter_names.h"
#include "render.h"
#include "label.h"
#include "scenario.h"

/* ---- JSON config ------------------------------------------------------ */

void mc_config_json(mb_json_t *j, const void *ctx)
{
    const mc_run_t *run = ctx;
    const mc_config_t *cfg = run->cfg;
    mb_json_string(j, "subcommand", run->subcommand);
    mb_json_array_begin(j, "scenarios");
    for (size_t i = 0; i < run->nscenarios; i++)
        mb_json_string(j, NULL, run->scenarios[i]);
    mb_json_array_end(j);
    mb_json_uint(j, "size_bytes", cfg->size_bytes);
    mb_json_string(j, "size_how", cfg->size_how);
    mb_json_bool(j, "cache_resident", cfg->cache_resident);
    mb_json_bool(j, "allow_cache", cfg->o->allow_cache);
    mc_json_uint_or(j, "mem_available_bytes", cfg->mem_available_bytes, "MemAvailable unreadable");
    mb_json_int(j, "threads", cfg->nthreads);
    mc_json_ints(j, "cpus", cfg->cpu, cfg->nthreads);
    mb_json_string(j, "threads_how", cfg->threads_how);
    mb_json_int(j, "physical_cores", cfg->ncores);
    mb_json_int(j, "reps", cfg->reps);
    mb_json_string(j, "hugepages", mc_hugepages_name(cfg->hugepages));
    mb_json_string(j, "buffer", mc_buffer_kind_name(cfg->buffer));
    mb_json_string(j, "numa", cfg->numa_desc);
    if (cfg->counters_on)
        mb_json_string(j, "counters", cfg->counters_list);
    else
        mb_json_unavailable(j, "counters", "not requested (pass --counters)");
    mb_json_uint(j, "random_state", cfg->random_state);
    mb_json_object_begin(j, "caches");
    const char *unreported = "neither sysfs nor sysconf reported it";
    mc_json_uint_or(j, "l1d_bytes", cfg->caches.l1d_bytes, unreported);
    mb_json_string(j, "l1d_source", cfg->caches.l1d_source);
    mc_json_uint_or(j, "l2_bytes", cfg->caches.l2_bytes, unreported);
    mb_json_string(j, "l2_source", cfg->caches.l2_source);
    mb_json_object_end(j);
    /* each scenario's own values, in registry order */
    for (size_t s = 0; s < mc_scenario_count(); s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        if (!sc->config_json)
            continue;
        mb_json_object_begin(j, sc->name);
        sc->config_json(j, mc_cli_conf(cfg->cli, sc));
        mb_json_object_end(j);
    }
}

/* ---- numbers ---------------------------------------------------------- */

static const char *num_text(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 100)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.4g", v);
    return buf;
}

/* ---- text ------------------------------------------------------------- */

static void table_text(FILE *f, const mc_result_t *res, const mc_table_t *t)
{
    if (!t->nrows)
        return;
    if (t->text_hidden) {
        fprintf(f, "%s %s: %zu rows, in --format json or csv\n", res->rec.name, t->name,
                t->nrows);
        return;
    }
    int width[32] = { 0 };
    char cell[64], head[96];
    int nc = t->ncols < 32 ? t->ncols : 32;
    for (int c = 0; c < nc; c++) {
        snprintf(head, sizeof head, "%s%s%s%s", t->cols[c].name, t->cols[c].unit[0] ? "(" : "",
                 t->cols[c].unit, t->cols[c].unit[0] ? ")" : "");
        width[c] = (int)strlen(head);
        for (size_t r = 0; r < t->nrows; r++) {
            size_t i = r * (size_t)t->ncols + (size_t)c;
            const char *s = t->cols[c].text ? t->str[i] : num_text(t->num[i], cell, sizeof cell);
            int w = (int)strlen(s);
            width[c] = w > width[c] ? w : width[c];
        }
    }
    fprintf(f, "%s %s:\n", res->rec.name, t->name);
    fputs(" ", f);
    for (int c = 0; c < nc; c++) {
        snprintf(head, sizeof head, "%s%s%s%s", t->cols[c].name, t->cols[c].unit[0] ? "(" : "",
                 t->cols[c].unit, t->cols[c].unit[0] ? ")" : "");
        fprintf(f, " %*s", t->cols[c].text ? -width[c] : width[c], head);
    }
    fputc('\n', f);
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(" ", f);
        for (int c = 0; c < nc; c++) {
            size_t i = r * (size_t)t->ncols + (size_t)c;
            const char *s = t->cols[c].text ? t->str[i] : num_text(t->num[i], cell, sizeof cell);
            fprintf(f, " %*s", t->cols[c].text ? -width[c] : width[c], s);
        }
        fputc('\n', f);
    }
}

static const char *fact(const mb_sysinfo_t *si, const char *key, char *buf, size_t len)
{
    const mb_fact_t *fa = si ? mb_sysinfo_get(si, key) : NULL;
    if (!fa)
        snprintf(buf, len, "unavailable: not collected");
    else if (fa->ok)
        snprintf(buf, len, "%s", fa->value);
    else
        snprintf(buf, len, "unavailable: %s", fa->why);
    return buf;
}

static void env_text(FILE *f, const mc_run_t *run, const mb_result_t *r)
{
    const mc_config_t *cfg = run->cfg;
    char a[32], b[32], v1[600], v2[600], v3[600];
    const mb_llc_t *llc = &cfg->caches.llc;
    fprintf(f, "mencal: %zu scenario%s; size %s per scenario (%s); LLC %s (%s)\n", run->nscenarios,
            run->nscenarios == 1 ? "" : "s", mb_format_bytes(cfg->size_bytes, a, sizeof a),
            cfg->size_how, llc->total_bytes ? mb_format_bytes(llc->total_bytes, b, sizeof b) : "unknown",
            mb_llc_source_name(llc->source));
    fprintf(f, "threads: %d on CPUs", cfg->nthreads);
    for (int t = 0; t < cfg->nthreads && t < 64; t++)
        fprintf(f, "%s%d", t ? "," : " ", cfg->cpu[t]);
    fprintf(f, "%s: %s; reps %d; random state %llu\n", cfg->nthreads > 64 ? ",..." : "",
            cfg->threads_how, cfg->reps, (unsigned long long)cfg->random_state);
    fprintf(f, "memory: buffer %s; hugepages %s; NUMA %s; THP enabled %s, defrag %s\n",
            mc_buffer_kind_name(cfg->buffer), mc_hugepages_name(cfg->hugepages), cfg->numa_desc,
            fact(r->sysinfo, "thp_enabled", v1, sizeof v1),
            fact(r->sysinfo, "thp_defrag", v2, sizeof v2));
    fprintf(f, "tuning: swappiness %s; numa_balancing %s; allocator %s\n",
            fact(r->sysinfo, "swappiness", v1, sizeof v1),
            fact(r->sysinfo, "numa_balancing", v2, sizeof v2),
            fact(r->sysinfo, "allocator", v3, sizeof v3));
    fprintf(f, "cpu: governor %s; SMT %s\n", fact(r->sysinfo, "governor", v1, sizeof v1),
            fact(r->sysinfo, "smt", v2, sizeof v2));
    /* cache_resident: the size rule's sentence is the report's Warning
     * line (mc_config_warn), once; the label points to it. */
}

static void result_text(FILE *f, const mc_result_t *res)
{
    if (res->skipped) {
        fprintf(f, "%s: skipped: %s\n", res->rec.name, res->why);
        return;
    }
    if (res->thp_known)
        fprintf(f, "%s: buffer %zu bytes, THP share %.1f%% (%zu of %zu resident bytes in huge "
                   "pages)\n", res->rec.name, res->buffer_bytes, res->thp_share * 100.0,
                res->thp_bytes, res->rss_bytes);
    for (size_t i = 0; i < res->ntables; i++)
        table_text(f, res, &res->tables[i]);
    for (size_t i = 0; i < res->nnotes; i++)
        fprintf(f, "%s: note: %s\n", res->rec.name, res->notes[i]);
    if (res->counters_used && res->counters.hw_requested)
        mb_counters_text(f, "", res->rec.name, &res->counters);
    if (res->status)
        fprintf(f, "%s: FAILED: %s\n", res->rec.name, res->why);
    else if (!res->complete)
        fprintf(f, "%s: incomplete (interrupted)\n", res->rec.name);
}

/* ---- CSV detail blocks -------------------------------------------------- */

static void csv_tables(FILE *f, const mc_result_t *res)
{
    for (size_t k = 0; k < res->ntables; k++) {
        const mc_table_t *t = &res->tables[k];
        fprintf(f, "\nrecord,table");
        for (int c = 0; c < t->ncols; c++)
            fprintf(f, ",%s", t->cols[c].name);
        fputc('\n', f);
        for (size_t r = 0; r < t->nrows; r++) {
            fprintf(f, "%s,%s", res->rec.name, t->name);
            for (int c = 0; c < t->ncols; c++) {
                size_t i = r * (size_t)t->ncols + (size_t)c;
                if (t->cols[c].text) {
                    fputc(',', f);
                    /* quote: statuses can hold commas */
                    fputc('"', f);
                    for (const char *s = t->str[i]; *s; s++) {
                        if (*s == '"')
                            fputc('"', f);
                        fputc(*s, f);
                    }
                    fputc('"', f);
                } else if (isfinite(t->num[i])) {
                    fprintf(f, ",%.17g", t->num[i]);
                } else {
                    fputc(',', f);
                }
            }
            fputc('\n', f);
        }
    }
}

/* The last block: each scenario's status, so an interrupted CSV says so. */
static void csv_status(FILE *f, const mc_run_t *run)
{
    fputs("\nrecord,table,status,complete,reason\n", f);
    for (size_t i = 0; i < run->nres; i++) {
        const mc_result_t *res = &run->res[i];
        const char *st = res->skipped ? "skipped" : res->status ? "failed"
                       : !res->complete ? "interrupted" : "ok";
        fprintf(f, "%s,status,%s,%s,\"", res->rec.name, st, res->complete ? "true" : "false");
        for (const char *p = res->why; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fputs("\"\n", f);
    }
}

/* ---- the model ---------------------------------------------------------- */

int mc_render(const mc_run_t *run, mb_result_t *r, FILE *f)
{
    const mc_config_t *cfg = run->cfg;
    /* The configuration's part of the label (label.c, shown by --plan too). */
    static mc_label_t lab;   /* the result keeps the reasons' pointers */
    const mc_scenario_t *scs[64];
    bool counts[64];
    size_t nsc = run->nres < 64 ? run->nres : 64;
    for (size_t i = 0; i < nsc; i++) {
        scs[i] = run->res[i].sc;
        counts[i] = !run->res[i].skipped;
    }
    mc_label_config(cfg, scs, counts, nsc, &lab);
    for (size_t i = 0; i < lab.n; i++)
        mb_result_add_label_reason(r, lab.reasons[i]);
    bool not_standard = lab.not_standard, tuned = lab.tuned;
    mb_record_t recs[64];
    size_t nrec = 0;
    r->complete = !run->stopped;
    for (size_t i = 0; i < run->nres && nrec < 64; i++) {
        mc_result_t *res = &run->res[i];
        for (size_t k = 0; k < res->nlabels; k++) {
            mb_result_add_label_reason(r, res->labels[k]);
            not_standard = true;
        }
        if (!res->complete)
            r->complete = false;
        if (res->status)
            mb_result_warn(r, "%s: %s", res->rec.name, res->why);
        if (res->skipped)
            mb_result_warn(r, "%s: skipped: %s", res->rec.name, res->why);
        if (!r->placement && res->placement_done)
            r->placement = &res->placement;
        recs[nrec] = res->rec;
        recs[nrec].extra = mc_result_json_extra;
        recs[nrec].extra_ctx = res;
        nrec++;
    }
    r->label = not_standard ? "not-standard" : tuned ? "tuned" : "standard";
    r->records = recs;
    r->nrecords = nrec;
    r->config = mc_config_json;
    r->config_ctx = run;
    r->numa_policy = cfg->numa_desc;
    r->llc = &cfg->caches.llc;

    int rc = 0;
    switch (cfg->format) {
    case MB_FMT_JSON:
        rc = mb_report_json(r, f);
        break;
    case MB_FMT_CSV:
        rc = mb_report_csv(r, f);
        for (size_t i = 0; i < run->nres; i++)
            csv_tables(f, &run->res[i]);
        csv_status(f, run);
        break;
    default:
        env_text(f, run, r);
        for (size_t i = 0; i < run->nres; i++)
            result_text(f, &run->res[i]);
        fputc('\n', f);
        rc = mb_report_text(r, f);
        break;
    }
    r->records = NULL;
    r->nrecords = 0;
    return rc;
}
