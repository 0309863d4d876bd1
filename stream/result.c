/* result: the memsuite result model for stream. */
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "kernels.h"
#include "nt.h"
#include "text.h"

static const char *const size_source_name[] = {
    [ST_SIZE_DEFAULT] = "default", [ST_SIZE_ELEMENTS] = "elements",
    [ST_SIZE_BYTES] = "bytes", [ST_SIZE_AUTO] = "auto",
};

static const char *const type_name[ST_NTYPES] = { [ST_DOUBLE] = "double", [ST_FLOAT] = "float" };

/* ---- per-record members --------------------------------------------- */

typedef struct {
    const st_outcome_t *o;
    size_t i;
} rec_ctx_t;

static void record_extra(mb_json_t *j, const void *ctx_)
{
    const rec_ctx_t *ctx = ctx_;
    const st_plan_t *p = ctx->o->plan;
    const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)p->kernel[ctx->i]);
    const bool nt = ctx->o->run->nt_used[ctx->i];

    mb_json_string(j, "kernel", kd->name);
    mb_json_string(j, "formula", kd->formula);
    mb_json_uint(j, "words", kd->words);
    mb_json_uint(j, "words_write_allocate", nt ? kd->words : kd->words_wa);
    mb_json_bool(j, "standard", kd->standard);
    mb_json_bool(j, "nontemporal", nt && p->nt_isa->nontemporal);
    if (nt)
        mb_json_string(j, "isa", p->nt_isa->name);
}

static const char zero_time_why[] =
    "the best time was 0 s: the kernel ran faster than the clock resolves; use a larger --array-size";

static void fill_record(const st_outcome_t *o, size_t i, mb_record_t *rec, rec_ctx_t *ctx)
{
    const st_summary_t *s = &o->sum[i];
    const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)s->id);
    const bool rate_ok = s->stats_ok && s->stats.min > 0;
    mb_metric_t *m;

    memset(rec, 0, sizeof *rec);
    rec->name = kd->title;
    rec->headline = "best_rate_mbps";   /* STREAM's Best Rate MB/s */
    ctx->o = o;
    ctx->i = i;
    rec->extra = record_extra;
    rec->extra_ctx = ctx;
    if (o->run->counters)
        rec->counters = &o->run->counters[i];

    if (rate_ok) {
        mb_record_add(rec, "best_rate_mbps", "MB/s", s->best_rate_mbps);
        mb_record_add(rec, "best_rate_write_allocate_mbps", "MB/s", s->best_rate_wa_mbps);
    } else {
        const char *why = s->stats_ok ? zero_time_why : "no valid time sample";
        mb_record_add_unavailable(rec, "best_rate_mbps", "MB/s", why);
        mb_record_add_unavailable(rec, "best_rate_write_allocate_mbps", "MB/s", why);
    }
    if (s->stats_ok) {
        m = mb_record_add(rec, "min_time_s", "s", s->stats.min);
        if (m) {
            m->stats = &s->stats;
            m->samples = s->samples;
            m->nsamples = (size_t)o->plan->ntimes;
        }
        mb_record_add(rec, "avg_time_s", "s", s->stats.mean);
        mb_record_add(rec, "max_time_s", "s", s->stats.max);
        mb_record_add(rec, "median_time_s", "s", s->stats.median);
        mb_record_add(rec, "stddev_time_s", "s", s->stats.stddev);
        mb_metric_better(mb_record_add(rec, "cv_time", "fraction", s->stats.cv), MB_BETTER_LOWER);
    } else {
        mb_record_add_unavailable(rec, "min_time_s", "s", "no valid time sample");
    }
    mb_record_add(rec, "bytes", "bytes", s->bytes);
    mb_record_add(rec, "bytes_write_allocate", "bytes", s->bytes_wa);
    if (o->record_more)
        o->record_more(rec, i, o->record_more_ctx);
}

/* ---- config ----------------------------------------------------------- */

static void placement_json(mb_json_t *j, const char *key, const mb_numa_placement_t *pl)
{
    if (!pl->valid) {
        mb_json_unavailable(j, key, pl->why[0] ? pl->why : "placement not verified");
        return;
    }
    mb_json_object_begin(j, key);
    mb_json_uint(j, "pages_sampled", pl->pages_sampled);
    mb_json_uint(j, "pages_not_present", pl->pages_not_present);
    mb_json_object_begin(j, "pages_per_node");
    for (int n = 0; n <= pl->max_node && n < MB_NUMA_MAX_NODES; n++) {
        char k[16];
        snprintf(k, sizeof k, "%d", n);
        mb_json_uint(j, k, pl->pages_on_node[n]);
    }
    mb_json_object_end(j);
    mb_json_object_end(j);
}

static void thp_json(mb_json_t *j, const mb_thp_t *t)
{
    if (!t->valid) {
        mb_json_unavailable(j, "thp", t->why);
        return;
    }
    mb_json_object_begin(j, "thp");
    mb_json_number(j, "share", t->share);
    mb_json_uint(j, "anon_huge_bytes", t->anon_huge_bytes);
    mb_json_uint(j, "array_bytes", t->range_bytes);
    mb_json_uint(j, "mapping_bytes", t->mapping_bytes);
    mb_json_bool(j, "exact", t->exact);
    if (!t->exact)
        mb_json_string(j, "note", "the mappings extend beyond the arrays; AnonHugePages of the "
                                  "whole mappings is counted");
    mb_json_object_end(j);
}

/* config.nt_stores: how the variant was chosen, and the calibration's figures. */
static void ntpick_json(mb_json_t *j, const st_plan_t *p, const st_ntpick_t *k)
{
    mb_json_string(j, "chosen_by", !p->nt_auto ? "--nt-isa" : k->ran ? "calibration" : "default");
    if (!p->nt_auto)
        return;
    if (!k->ran)
        mb_json_string(j, "calibration_unavailable",
                       k->why[0] ? k->why : "not calibrated by this tool: the best-first variant");
    if (k->n == 0 || k->chunk == 0)
        return;
    mb_json_object_begin(j, "calibration");
    mb_json_array_begin(j, "variants");
    for (size_t i = 0; i < k->n; i++) {
        mb_json_object_begin(j, NULL);
        mb_json_string(j, "isa", k->name[i]);
        mb_json_number(j, "triad_mbps", k->mbps[i]);
        mb_json_object_end(j);
    }
    mb_json_array_end(j);
    mb_json_uint(j, "chunk_elements", k->chunk);
    mb_json_number(j, "took_s", k->took_s);
    mb_json_number(j, "budget_s", k->budget_s);
    mb_json_number(j, "probe_s", k->probe_s);
    mb_json_number(j, "run_estimate_s", k->run_s);
    mb_json_object_end(j);
}

static void config_json(mb_json_t *j, const void *ctx)
{
    const st_outcome_t *o = ctx;
    const st_plan_t *p = o->plan;
    const st_run_t *r = o->run;
    st_ticks_t t;
    static const char *const arr_key[3] = { "a", "b", "c" };

    mb_json_uint(j, "array_size", p->n);
    mb_json_uint(j, "offset", p->offset);
    mb_json_string(j, "type", type_name[p->type]);
    mb_json_uint(j, "bytes_per_element", p->elem_bytes);
    mb_json_int(j, "ntimes", p->ntimes);
    mb_json_string(j, "size_source", size_source_name[p->size_source]);
    mb_json_uint(j, "array_bytes", p->array_bytes);
    mb_json_uint(j, "total_bytes", p->total_bytes);
    if (p->min_array_bytes)
        mb_json_uint(j, "min_array_bytes", p->min_array_bytes);
    else
        mb_json_unavailable(j, "min_array_bytes", "the last-level cache size is unknown");
    if (p->mem_available_bytes)
        mb_json_uint(j, "mem_available_bytes", p->mem_available_bytes);
    else
        mb_json_unavailable(j, "mem_available_bytes", "MemAvailable could not be read");
    mb_json_number(j, "scalar", p->scalar);

    mb_json_array_begin(j, "kernels");
    for (size_t i = 0; i < p->nkernels; i++)
        mb_json_string(j, NULL, st_kernel_get((st_kernel_id_t)p->kernel[i])->name);
    mb_json_array_end(j);
    mb_json_bool(j, "standard_kernels", p->standard_kernels);

    mb_json_int(j, "threads", p->threads);
    mb_json_bool(j, "threads_option", p->threads_given);

    mb_json_object_begin(j, "nt_stores");
    mb_json_bool(j, "enabled", p->nt);
    if (p->nt) {
        mb_json_string(j, "isa", p->nt_isa->name);
        mb_json_string(j, "instructions", p->nt_isa->detail);
        mb_json_bool(j, "nontemporal", p->nt_isa->nontemporal);
        ntpick_json(j, p, &r->ntpick);
    }
    mb_json_object_end(j);

    mb_json_object_begin(j, "hugepages");
    mb_json_string(j, "mode", p->hugepages_name);
    thp_json(j, o->thp);
    mb_json_object_end(j);

    mb_json_object_begin(j, "numa_placement");
    for (int i = 0; i < 3; i++)
        placement_json(j, arr_key[i], &o->placement_arr[i]);
    mb_json_object_end(j);

    mb_json_number(j, "init_s", r->init_s);
    mb_json_number(j, "kernels_total_s", r->kernels_total_s);
    st_text_ticks(r, &t);
    mb_json_object_begin(j, "clock");
    mb_json_uint(j, "granularity_ns", r->granularity_ns);
    mb_json_int(j, "quantum_us", r->quantum_us);
    mb_json_number(j, "calibration_us", r->calib_us);
    mb_json_int(j, "ticks", t.ticks);
    mb_json_object_end(j);
    if (p->inject >= 0)
        mb_json_string(j, "inject_error", p->inject == 3 ? "dot" : arr_key[p->inject]);
    if (o->config_more)
        o->config_more(j, o->config_more_ctx);
}

/* ---- validation ------------------------------------------------------- */

static void validation_json(mb_json_t *j, const void *ctx)
{
    const st_validation_t *v = ctx;

    mb_json_number(j, "epsilon", v->epsilon);
    mb_json_object_begin(j, "arrays");
    for (int i = 0; i < 3; i++) {
        const st_array_check_t *a = &v->arr[i];
        char key[2] = { a->name, '\0' };
        mb_json_object_begin(j, key);
        mb_json_bool(j, "passed", a->ok);
        mb_json_number(j, "expected", a->expected);
        mb_json_number(j, "avg_abs_err", a->avg_abs_err);
        mb_json_number(j, "avg_rel_err", a->avg_rel_err);
        mb_json_uint(j, "errors", a->errors);
        mb_json_uint(j, "nonfinite", a->nonfinite);
        mb_json_object_end(j);
    }
    mb_json_object_end(j);
    if (v->has_dot) {
        mb_json_object_begin(j, "dot");
        mb_json_bool(j, "passed", v->dot_ok);
        mb_json_number(j, "expected", v->dot_expected);
        mb_json_number(j, "value", v->dot_value);
        mb_json_number(j, "rel_err", v->dot_rel_err);
        mb_json_number(j, "epsilon", v->dot_epsilon);
        mb_json_object_end(j);
    }
}

int st_result_render(const st_outcome_t *o, const mb_sysinfo_t *si, FILE *f)
{
    const st_plan_t *p = o->plan;
    mb_result_t *r;
    mb_record_t *recs;
    rec_ctx_t ctx[ST_MAX_KERNELS];
    int rc;

    r = calloc(1, sizeof *r);
    recs = calloc(p->nkernels ? p->nkernels : 1, sizeof *recs);
    if (!r || !recs) {
        free(r);
        free(recs);
        return -ENOMEM;
    }
    r->tool = o->tool ? o->tool : "stream";
    r->hot_loops = MB_HOT_DISPATCHED;
    r->label = p->label;
    for (size_t i = 0; i < p->nreasons; i++)
        mb_result_add_label_reason(r, p->reasons[i]);
    r->argc = o->argc;
    r->argv = o->argv;
    r->complete = true;
    r->has_validation = true;
    r->validated = o->val->ok;
    r->validation_extra = validation_json;
    r->validation_ctx = o->val;
    r->config = config_json;
    r->config_ctx = o;
    for (size_t i = 0; i < p->nkernels; i++)
        fill_record(o, i, &recs[i], &ctx[i]);
    r->records = recs;
    r->nrecords = p->nkernels;
    r->affinity = o->aff;
    r->numa_policy = o->numa_policy;
    r->placement = o->placement;
    r->counters = &o->run->total;
    r->llc = &p->llc;
    r->sysinfo = si;
    for (size_t i = 0; i < o->nwarnings; i++)
        mb_result_warn(r, "%s", o->warnings[i]);

    rc = mb_report_render(r, p->format, f);
    free(recs);
    free(r);
    return rc;
}
