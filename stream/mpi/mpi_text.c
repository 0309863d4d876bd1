/* mpi_text: stream_mpi 1.8's report and the StarSTREAM table. */
#include "mpi_text.h"

#include "kernels.h"
#include "text.h"

#define HLINE "-------------------------------------------------------------\n"

static const double mib = 1024.0 * 1024.0, gib = 1024.0 * 1024.0 * 1024.0;

static void sizes(const st_mpi_summary_t *s, const st_plan_t *p, FILE *f)
{
    const double eb = (double)p->elem_bytes;

    if (s->star) {
        const double per = eb * (double)p->n;
        fprintf(f, "StarSTREAM: each of the %d MPI ranks runs its own full-size STREAM at the "
                   "same time.\n", s->ranks);
        fprintf(f, "Array size per MPI rank = %llu (elements), Offset = %d (elements)\n",
                (unsigned long long)p->n, (int)p->offset);
        fprintf(f, "Memory per array per MPI rank = %.1f MiB (= %.1f GiB).\n", per / mib, per / gib);
        fprintf(f, "Total memory per MPI rank = %.1f MiB (= %.1f GiB).\n", 3.0 * per / mib,
                3.0 * per / gib);
        fprintf(f, "Total Aggregate memory required = %.1f MiB (= %.1f GiB).\n",
                3.0 * per * s->ranks / mib, 3.0 * per * s->ranks / gib);
        return;
    }
    const double total = (double)p->n_total, part = (double)s->part_big;
    fprintf(f, "Total Aggregate Array size = %llu (elements)\n", (unsigned long long)p->n_total);
    fprintf(f, "Total Aggregate Memory per array = %.1f MiB (= %.1f GiB).\n", eb * total / mib,
            eb * total / gib);
    fprintf(f, "Total Aggregate memory required = %.1f MiB (= %.1f GiB).\n", 3.0 * eb * total / mib,
            3.0 * eb * total / gib);
    fprintf(f, "Data is distributed across %d MPI ranks\n", s->ranks);
    fprintf(f, "   Array size per MPI rank = %llu (elements)\n", (unsigned long long)s->part_big);
    fprintf(f, "   Memory per array per MPI rank = %.1f MiB (= %.1f GiB).\n", eb * part / mib,
            eb * part / gib);
    fprintf(f, "   Total memory per MPI rank = %.1f MiB (= %.1f GiB).\n", 3.0 * eb * part / mib,
            3.0 * eb * part / gib);
    /* An uneven split is explained on stderr only (stream_mpi 1.8 prints
     * no such line; its parsers expect the lines above and nothing more). */
}

static void header(const st_mpi_summary_t *s, const st_plan_t *p, const mb_affinity_t *aff,
                   FILE *f)
{
    fputs(HLINE, f);
    fputs("STREAM version $Revision: 1.8 $\n", f);
    fputs(HLINE, f);
    if (p->tuned)
        fprintf(f, "%s\n", p->tuned_line);
    fprintf(f, "This system uses %d bytes per array element.\n", (int)p->elem_bytes);
    fputs(HLINE, f);
    sizes(s, p, f);
    fputs(HLINE, f);
    fprintf(f, "Each kernel will be executed %d times.\n", p->ntimes);
    fputs(" The *best* time for each kernel (excluding the first iteration)\n", f);
    fputs(" will be used to compute the reported bandwidth.\n", f);
    fprintf(f, "The SCALAR value used for this run is %f\n", p->scalar);
    fputs(HLINE, f);
    fprintf(f, "Number of Threads requested for each MPI rank = %i\n", aff->requested);
    fprintf(f, "Number of Threads counted for rank 0 = %i\n", aff->counted);
}

static void timer_block(const st_run_t *run, FILE *f)
{
    fputs(HLINE, f);
    st_text_clock_block(run, "timer", f);
}

static void table(const st_mpi_summary_t *s, const st_plan_t *p, FILE *f)
{
    if (s->star) {
        fputs("Function    Rank Min MB/s  Rank Avg MB/s  Rank Max MB/s  Aggregate MB/s\n", f);
        for (size_t i = 0; i < p->nkernels; i++)
            fprintf(f, "%s%13.1f  %13.1f  %13.1f  %14.1f\n",
                    st_kernel_get((st_kernel_id_t)p->kernel[i])->label, s->rank_min_mbps[i],
                    s->rank_avg_mbps[i], s->rank_max_mbps[i], s->sum[i].best_rate_mbps);
        fputs(HLINE, f);
        return;
    }
    fputs("Function    Best Rate MB/s  Avg time     Min time     Max time\n", f);
    for (size_t i = 0; i < p->nkernels; i++) {
        const st_summary_t *m = &s->sum[i];
        fprintf(f, "%s%11.1f  %11.6f  %11.6f  %11.6f\n",
                st_kernel_get((st_kernel_id_t)m->id)->label, m->best_rate_mbps, m->stats.mean,
                m->stats.min, m->stats.max);
    }
    fputs(HLINE, f);
}

/* STREAM's validation lines over the aggregate, then one line per failing
 * rank (at most 16, then a count). */
static void validation(const st_mpi_summary_t *s, FILE *f)
{
    int shown = 0;

    st_text_validation(&s->val, f);
    if (s->nfailed == 0)
        return;
    for (int r = 0; r < s->ranks; r++) {
        const st_mpi_rank_t *k = &s->rank[r];
        if (k->valid)
            continue;
        if (shown++ == 16) {
            fprintf(f, "... and %d more ranks failed validation\n", s->nfailed - 16);
            break;
        }
        fprintf(f, "Rank %d on %s failed validation:", k->rank, k->host);
        for (int a = 0; a < 3; a++)
            if (!k->arr_ok[a])
                fprintf(f, " array %c[] %llu errors;", 'a' + a, (unsigned long long)k->errors[a]);
        if (k->has_dot && !k->dot_ok)
            fputs(" dot product;", f);
        fputc('\n', f);
    }
    fputs(HLINE, f);
}

int st_mpi_text_render(const st_mpi_summary_t *s, const st_plan_t *plan, const st_run_t *run,
                       const mb_affinity_t *aff, FILE *f)
{
    header(s, plan, aff, f);
    timer_block(run, f);
    table(s, plan, f);
    validation(s, f);
    return ferror(f) ? -1 : 0;
}
