/* mpi_summary: per-rank reports and rank 0's aggregate view. */
#include "mpi_summary.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "sizing.h"

/* The affinity mask as a CPU list: "0-3,8,10-11". */
static int cpu_list(char *buf, size_t len)
{
    cpu_set_t set;
    size_t used = 0;
    int count = 0;

    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        int e = c;
        if (!CPU_ISSET(c, &set))
            continue;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
            e++;
        count += e - c + 1;
        if (used < len) {
            int w = e > c ? snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, e)
                          : snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
            if (w > 0)
                used += (size_t)w;
        }
        c = e;
    }
    return count;
}

void st_mpi_rank_fill(st_mpi_rank_t *r, const st_mpi_world_t *w, const st_plan_t *p,
                      const st_validation_t *v, const mb_affinity_t *aff,
                      const double *kernel_only_s)
{
    const size_t nt = (size_t)p->ntimes;

    memset(r, 0, sizeof *r);
    r->rank = w->rank;
    snprintf(r->host, sizeof r->host, "%s", w->host);
    r->allowed_cpus = cpu_list(r->cpus, sizeof r->cpus);
    if (r->allowed_cpus < 0)
        r->allowed_cpus = aff->allowed_cpus;
    r->online_cpus = aff->online_cpus;
    r->threads = aff->counted;
    r->n = p->n;
    for (size_t i = 0; i < p->nkernels; i++) {
        const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)p->kernel[i]);
        double best = 0.0;
        for (size_t k = 1; k < nt; k++) {
            double t = kernel_only_s[i * nt + k];
            if (t > 0 && (best == 0.0 || t < best))
                best = t;
        }
        r->best_own_s[i] = best;
        r->rate_mbps[i] = best > 0 ? st_rate_mbps(st_kernel_bytes(kd->words, p->elem_bytes, p->n),
                                                  best)
                                   : NAN;
    }
    r->valid = v->ok;
    for (int a = 0; a < 3; a++) {
        r->arr_ok[a] = v->arr[a].ok;
        r->expected[a] = v->arr[a].expected;
        r->avg_abs_err[a] = v->arr[a].avg_abs_err;
        r->errors[a] = v->arr[a].errors;
        r->nonfinite[a] = v->arr[a].nonfinite;
    }
    r->has_dot = v->has_dot;
    r->dot_ok = v->dot_ok;
    r->dot_value = v->dot_value;
    r->dot_expected = v->dot_expected;
    r->nreasons = (int32_t)p->nreasons;
    if (p->nreasons)
        snprintf(r->reason, sizeof r->reason, "%s", p->reasons[0]);
}

/* Adds a CPU list ("0-3,8") to set; false when it does not parse. */
static bool list_to_set(const char *s, cpu_set_t *set)
{
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0)
            return false;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a)
                return false;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return false;
    }
    return true;
}

static const st_mpi_rank_t *sort_base;

static int by_host(const void *x, const void *y)
{
    const int a = *(const int *)x, b = *(const int *)y;
    int c = strcmp(sort_base[a].host, sort_base[b].host);
    return c ? c : (a > b) - (a < b);
}

static int build_hosts(st_mpi_summary_t *s, size_t nkernels)
{
    int *idx = malloc((size_t)s->ranks * sizeof *idx);
    int *first_of = NULL;
    cpu_set_t cpus;
    bool union_ok = true;

    s->host = calloc((size_t)s->ranks, sizeof *s->host);
    if (!idx || !s->host) {
        free(idx);
        return -ENOMEM;
    }
    for (int r = 0; r < s->ranks; r++)
        idx[r] = r;
    sort_base = s->rank;
    qsort(idx, (size_t)s->ranks, sizeof *idx, by_host);
    s->nhosts = 0;
    for (int j = 0; j < s->ranks; j++) {
        const st_mpi_rank_t *r = &s->rank[idx[j]];
        st_mpi_host_t *h;
        if (s->nhosts == 0 || strcmp(s->host[s->nhosts - 1].host, r->host) != 0) {
            if (s->nhosts > 0)
                s->host[s->nhosts - 1].cpus = union_ok ? CPU_COUNT(&cpus) : -1;
            h = &s->host[s->nhosts++];
            snprintf(h->host, sizeof h->host, "%s", r->host);
            h->first_rank = r->rank;
            h->valid = true;
            CPU_ZERO(&cpus);
            union_ok = true;
        }
        h = &s->host[s->nhosts - 1];
        h->nranks++;
        union_ok = union_ok && r->cpus[0] && list_to_set(r->cpus, &cpus);
        if (r->online_cpus > h->online_cpus)
            h->online_cpus = r->online_cpus;
        h->threads += r->threads;
        h->n += r->n;
        h->valid = h->valid && r->valid;
        for (size_t i = 0; i < nkernels; i++)
            if (isfinite(r->rate_mbps[i]))
                h->rate_mbps[i] += r->rate_mbps[i];
    }
    if (s->nhosts > 0)
        s->host[s->nhosts - 1].cpus = union_ok ? CPU_COUNT(&cpus) : -1;
    /* Order of first rank: rank 0's host first. */
    first_of = idx;
    for (int a = 1; a < s->nhosts; a++) {
        st_mpi_host_t t = s->host[a];
        int b = a - 1;
        while (b >= 0 && s->host[b].first_rank > t.first_rank) {
            s->host[b + 1] = s->host[b];
            b--;
        }
        s->host[b + 1] = t;
    }
    free(first_of);
    return 0;
}

static void build_validation(st_mpi_summary_t *s, const st_plan_t *p)
{
    st_validation_t *v = &s->val;
    const double R = (double)s->ranks;

    memset(v, 0, sizeof *v);
    v->epsilon = st_epsilon(p->elem_bytes);
    v->arrays_ok = true;
    for (int a = 0; a < 3; a++) {
        st_array_check_t *c = &v->arr[a];
        double sum = 0.0, denom;
        bool all_ok = true;
        c->name = (char)('a' + a);
        c->expected = s->rank[0].expected[a];
        for (int r = 0; r < s->ranks; r++) {
            sum += s->rank[r].avg_abs_err[a];
            c->errors += s->rank[r].errors[a];
            c->nonfinite += s->rank[r].nonfinite[a];
            all_ok = all_ok && s->rank[r].arr_ok[a];
        }
        denom = c->expected != 0.0 ? fabs(c->expected) : 1.0;
        c->avg_abs_err = sum / R;
        c->avg_rel_err = c->avg_abs_err / denom;
        c->ok = all_ok && isfinite(c->avg_rel_err) && c->avg_rel_err <= v->epsilon;
        v->arrays_ok = v->arrays_ok && c->ok;
    }
    v->has_dot = s->rank[0].has_dot;
    v->dot_ok = true;
    if (v->has_dot) {
        v->dot_epsilon = 1e-8;
        for (int r = 0; r < s->ranks; r++) {
            v->dot_value += s->rank[r].dot_value;
            v->dot_expected += s->rank[r].dot_expected;
            v->dot_ok = v->dot_ok && s->rank[r].dot_ok;
        }
        v->dot_rel_err = fabs((v->dot_value - v->dot_expected) / v->dot_expected);
    }
    s->nfailed = 0;
    for (int r = 0; r < s->ranks; r++)
        s->nfailed += !s->rank[r].valid;
    v->ok = v->arrays_ok && v->dot_ok && s->nfailed == 0;
}

int st_mpi_summary_build(st_mpi_summary_t *s, const st_plan_t *plan, const st_run_t *run,
                         const double *times_all, const st_mpi_rank_t *ranks, int nranks)
{
    const size_t nk = plan->nkernels, nt = (size_t)plan->ntimes, cells = nk * nt;
    size_t per, pad, lo, hi;

    memset(s, 0, sizeof *s);
    s->ranks = nranks;
    s->star = plan->star;
    s->rank = ranks;

    /* The aggregate plan: the same run, n = all ranks' elements. */
    s->agg = *plan;
    s->agg.n = plan->n_total;
    if (!mb_mul_size(plan->n_total, plan->elem_bytes, &s->agg.array_bytes))
        s->agg.array_bytes = (size_t)-1;
    if (!mb_mul_size((size_t)nranks, plan->offset, &pad) || !mb_add_size(plan->n_total, pad, &per) ||
        !mb_mul_size(per, plan->elem_bytes, &per) || !mb_mul_size(per, 3, &s->agg.total_bytes))
        s->agg.total_bytes = (size_t)-1;

    s->agg_times_s = calloc(cells ? cells : 1, sizeof *s->agg_times_s);
    if (!s->agg_times_s)
        return -ENOMEM;
    for (size_t c = 0; c < cells; c++) {
        double m = times_all[c];
        for (int r = 1; r < nranks; r++)
            if (times_all[(size_t)r * cells + c] < m)
                m = times_all[(size_t)r * cells + c];
        s->agg_times_s[c] = m;
    }
    s->agg_run = *run;
    s->agg_run.times_s = s->agg_times_s;
    st_run_summarize(&s->agg, &s->agg_run, s->sum);

    for (size_t i = 0; i < nk; i++) {
        double sum = 0.0;
        int n = 0;
        s->rank_min_mbps[i] = s->rank_max_mbps[i] = NAN;
        s->rank_min_id[i] = s->rank_max_id[i] = -1;
        for (int r = 0; r < nranks; r++) {
            double v = ranks[r].rate_mbps[i];
            if (!isfinite(v))
                continue;
            if (n == 0 || v < s->rank_min_mbps[i]) {
                s->rank_min_mbps[i] = v;
                s->rank_min_id[i] = r;
            }
            if (n == 0 || v > s->rank_max_mbps[i]) {
                s->rank_max_mbps[i] = v;
                s->rank_max_id[i] = r;
            }
            sum += v;
            n++;
        }
        s->rank_avg_mbps[i] = n ? sum / n : NAN;
    }

    build_validation(s, plan);
    if (build_hosts(s, nk) != 0)
        return -ENOMEM;

    if (plan->star) {
        s->split_even = true;
        s->part_big = s->part_small = plan->n;
        s->nbig = (size_t)nranks;
    } else {
        st_static_chunk(plan->n_total, 0, nranks, &lo, &hi);
        s->part_big = hi - lo;
        st_static_chunk(plan->n_total, nranks - 1, nranks, &lo, &hi);
        s->part_small = hi - lo;
        s->nbig = plan->n_total % (size_t)nranks;
        s->split_even = s->nbig == 0;
        if (s->split_even)
            s->nbig = (size_t)nranks;
    }
    return 0;
}

void st_mpi_summary_free(st_mpi_summary_t *s)
{
    free(s->agg_times_s);
    free(s->host);
    s->agg_times_s = NULL;
    s->host = NULL;
}

/* "rank 3" or "ranks 0-2" */
static void range_text(size_t lo, size_t hi, char *buf, size_t len)
{
    if (lo == hi)
        snprintf(buf, len, "rank %zu holds", lo);
    else
        snprintf(buf, len, "ranks %zu-%zu hold", lo, hi);
}

void st_mpi_split_text(const st_mpi_summary_t *s, char *buf, size_t len)
{
    char big[64], small[64];

    if (s->split_even) {
        snprintf(buf, len, "every rank holds %zu elements", s->part_big);
        return;
    }
    range_text(0, s->nbig - 1, big, sizeof big);
    range_text(s->nbig, (size_t)s->ranks - 1, small, sizeof small);
    snprintf(buf, len, "%zu elements do not divide by %d ranks: %s %zu elements, %s %zu",
             s->agg.n, s->ranks, big, s->part_big, small, s->part_small);
}
