/* mpi_result: the per-rank and per-host tables of stream_mpi's result. */
#include "mpi_result.h"

#include <math.h>
#include <stdio.h>

#include "json.h"
#include "kernels.h"

static void rates_json(mb_json_t *j, const st_mpi_summary_t *s, const double *rate)
{
    mb_json_object_begin(j, "best_rate_mbps");
    for (size_t i = 0; i < s->agg.nkernels; i++) {
        const char *name = st_kernel_get((st_kernel_id_t)s->agg.kernel[i])->name;
        if (isfinite(rate[i]))
            mb_json_number(j, name, rate[i]);
        else
            mb_json_unavailable(j, name, "no valid kernel time on this rank");
    }
    mb_json_object_end(j);
}

static void rank_json(mb_json_t *j, const st_mpi_summary_t *s, const st_mpi_rank_t *r)
{
    static const char *const arr[3] = { "a", "b", "c" };

    mb_json_object_begin(j, NULL);
    mb_json_int(j, "rank", r->rank);
    mb_json_string(j, "host", r->host);
    if (r->cpus[0])
        mb_json_string(j, "cpus", r->cpus);
    else
        mb_json_unavailable(j, "cpus", "sched_getaffinity failed");
    mb_json_int(j, "allowed_cpus", r->allowed_cpus);
    mb_json_int(j, "online_cpus", r->online_cpus);
    mb_json_int(j, "threads", r->threads);
    mb_json_uint(j, "elements", r->n);
    rates_json(j, s, r->rate_mbps);
    mb_json_bool(j, "validated", r->valid != 0);
    mb_json_object_begin(j, "errors");
    for (int a = 0; a < 3; a++)
        mb_json_uint(j, arr[a], r->errors[a]);
    mb_json_object_end(j);
    if (r->has_dot)
        mb_json_bool(j, "dot_validated", r->dot_ok != 0);
    if (r->nreasons > 0)
        mb_json_string(j, "not_standard_reason", r->reason);
    mb_json_object_end(j);
}

static void config_more(mb_json_t *j, const void *ctx)
{
    const st_mpi_summary_t *s = ctx;
    char split[256];

    mb_json_object_begin(j, "mpi");
    mb_json_string(j, "mode", s->star ? "star" : "aggregate");
    mb_json_int(j, "ranks", s->ranks);
    mb_json_int(j, "hosts", s->nhosts);
    mb_json_uint(j, "array_size_total", s->agg.n);
    mb_json_uint(j, "array_size_per_rank_max", s->part_big);
    mb_json_uint(j, "array_size_per_rank_min", s->part_small);
    st_mpi_split_text(s, split, sizeof split);
    mb_json_object_begin(j, "split");
    mb_json_bool(j, "even", s->split_even);
    mb_json_uint(j, "ranks_with_max", s->nbig);
    mb_json_string(j, "description", s->star ? "star mode: every rank holds the full size" : split);
    mb_json_object_end(j);
    mb_json_string(j, "time_rule", "each time spans barrier, kernel, barrier; per round the "
                                   "minimum over the ranks; best/avg/max over rounds 2..N; "
                                   "bytes count the aggregate");
    mb_json_string(j, "rank_rate_rule", "each rank's kernel alone (before the closing barrier) "
                                        "over its own part; best over rounds 2..N");
    if (s->inject_rank >= 0)
        mb_json_int(j, "inject_rank", s->inject_rank);
    mb_json_array_begin(j, "failed_ranks");
    for (int r = 0; r < s->ranks; r++)
        if (!s->rank[r].valid)
            mb_json_int(j, NULL, r);
    mb_json_array_end(j);
    mb_json_array_begin(j, "per_rank");
    for (int r = 0; r < s->ranks; r++)
        rank_json(j, s, &s->rank[r]);
    mb_json_array_end(j);
    mb_json_array_begin(j, "per_host");
    for (int h = 0; h < s->nhosts; h++) {
        const st_mpi_host_t *x = &s->host[h];
        mb_json_object_begin(j, NULL);
        mb_json_string(j, "host", x->host);
        mb_json_int(j, "ranks", x->nranks);
        mb_json_int(j, "first_rank", x->first_rank);
        if (x->cpus >= 0)
            mb_json_int(j, "allowed_cpus", x->cpus);
        else
            mb_json_unavailable(j, "allowed_cpus", "a rank's CPU list could not be read");
        mb_json_int(j, "online_cpus", x->online_cpus);
        mb_json_int(j, "threads", x->threads);
        mb_json_uint(j, "elements", x->n);
        rates_json(j, s, x->rate_mbps);
        mb_json_bool(j, "validated", x->valid);
        mb_json_object_end(j);
    }
    mb_json_array_end(j);
    mb_json_object_end(j);
}

static void record_more(mb_record_t *rec, size_t i, const void *ctx)
{
    const st_mpi_summary_t *s = ctx;
    static const char why[] = "no rank has a valid kernel time";

    if (isfinite(s->rank_avg_mbps[i])) {
        mb_record_add(rec, "rank_min_rate_mbps", "MB/s", s->rank_min_mbps[i]);
        mb_record_add(rec, "rank_avg_rate_mbps", "MB/s", s->rank_avg_mbps[i]);
        mb_record_add(rec, "rank_max_rate_mbps", "MB/s", s->rank_max_mbps[i]);
    } else {
        mb_record_add_unavailable(rec, "rank_min_rate_mbps", "MB/s", why);
        mb_record_add_unavailable(rec, "rank_avg_rate_mbps", "MB/s", why);
        mb_record_add_unavailable(rec, "rank_max_rate_mbps", "MB/s", why);
    }
}

void st_mpi_result_hooks(st_outcome_t *o, const st_mpi_summary_t *s)
{
    o->tool = "stream_mpi";
    o->config_more = config_more;
    o->config_more_ctx = s;
    o->record_more = record_more;
    o->record_more_ctx = s;
}
