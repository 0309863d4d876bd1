/* stream_mpi: STREAM over MPI ranks (stream_mpi 1.8 rules, StarSTREAM).
 *
 * Pipeline on every rank: parse -> layout -> plan this rank's part (one
 * agreement: a refusal on any rank ends every rank with the same code)
 * -> allocate -> first-touch init -> checkpoint -> calibrate -> timed
 * rounds (barrier, kernel, barrier) -> validate its own part -> send its
 * report and times to rank 0.  Rank 0 builds the aggregate, renders it
 * and tells every rank the exit status.
 *
 * Exit status (the same on every rank): 0 ok; 1 validation failed on
 * some rank, or a rank died/hung (the job is aborted); 2 usage error;
 * 3 resource unavailable; 4 feature not built. */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity.h"
#include "arrays.h"
#include "buildinfo.h"
#include "exitcodes.h"
#include "kernels.h"
#include "log.h"
#include "mpi_options.h"
#include "mpi_result.h"
#include "mpi_summary.h"
#include "mpi_text.h"
#include "mpi_world.h"
#include "numa.h"
#include "outfile.h"
#include "outcome.h"
#include "plan.h"
#include "report.h"
#include "result.h"
#include "run.h"
#include "sysinfo.h"
#include "threads.h"
#include "validate.h"
#include "warns.h"

/* Under AddressSanitizer (make SANITIZE=1): Open MPI keeps memory until
 * exit by design.  Its leaks are suppressed by module name; our own
 * allocations never pass through these libraries.  (LeakSanitizer calls
 * this hook; it is inert in a normal build.) */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\nleak:mca_\n"
           "leak:libhwloc.so\nleak:libevent\nleak:libpmix.so\nleak:libucs.so\n"
           "leak:libucp.so\nleak:libfabric.so\n";
}

/* Full stacks for allocations: Open MPI's libraries have no frame
 * pointers, so the fast unwinder stops inside them and the suppressions
 * could not see whose memory it is.  (AddressSanitizer's hook.) */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "fast_unwind_on_malloc=0";
}

/* Everything one rank holds; freed by finish(). */
typedef struct {
    st_mpi_world_t w;
    st_mpi_options_t opts;
    st_plan_t plan;
    st_run_t run;
    bool run_ready;
    st_block_t block;
    bool have_block;
    mb_out_t out;
    bool out_open;
    double *kernel_only_s;
    double *times_all;             /* rank 0 */
    st_mpi_rank_t *ranks;          /* rank 0 */
} st_mpi_ctx_t;

static int finish(st_mpi_ctx_t *c, int code)
{
    if (c->out_open)
        mb_out_abort(&c->out);
    if (c->have_block)
        st_block_free(&c->block);
    if (c->run_ready)
        st_run_free(&c->plan, &c->run);
    free(c->kernel_only_s);
    free(c->times_all);
    free(c->ranks);
    st_mpi_world_free(&c->w);
    MPI_Finalize();
    return code;
}

/* Usage checks that need the rank count. */
static int check_ranks(const st_mpi_ctx_t *c, char *msg, size_t msglen)
{
    const st_mpi_options_t *o = &c->opts;

    if (o->inject_rank >= c->w.ranks) {
        snprintf(msg, msglen, "--inject-rank %lld: there are only %d ranks (0..%d)",
                 o->inject_rank, c->w.ranks, c->w.ranks - 1);
        return MB_EXIT_USAGE;
    }
    if (o->fault != ST_FAULT_NONE && o->fault_rank >= c->w.ranks) {
        snprintf(msg, msglen, "--fault: rank %lld does not exist; there are %d ranks (0..%d)",
                 o->fault_rank, c->w.ranks, c->w.ranks - 1);
        return MB_EXIT_USAGE;
    }
    return 0;
}

/* The ranks on this host together against its CPUs: more threads than
 * CPUs is not a standard result (every rank's plan only sees its own). */
static void check_host_load(st_mpi_ctx_t *c)
{
    st_plan_t *p = &c->plan;
    int threads = p->threads, online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    MPI_Request req;

    if (c->w.host_ranks < 2)
        return;
    if (MPI_Iallreduce(MPI_IN_PLACE, &threads, 1, MPI_INT, MPI_SUM, c->w.host_comm, &req) !=
        MPI_SUCCESS)
        return;
    st_mpi_wait(&c->w, &req, "counting the threads on this host");
    if (online > 0 && threads > online) {
        st_plan_add_reason(p, 0, "%d MPI ranks with %d threads in all on %s, which has %d "
                           "online CPUs: oversubscribed, not a standard result",
                           c->w.host_ranks, threads, c->w.host, online);
        p->label = p->tuned ? "tuned" : "not-standard";
    }
}

/* Rank 0 names the other ranks' reasons too, so the label covers the run. */
static void merge_reasons(st_plan_t *p, const st_mpi_rank_t *ranks, int nranks)
{
    for (int r = 1; r < nranks; r++) {
        bool known = false;
        if (ranks[r].nreasons == 0)
            continue;
        for (size_t i = 0; i < p->nreasons && !known; i++)
            known = strcmp(p->reasons[i], ranks[r].reason) == 0;
        if (!known)
            st_plan_add_reason(p, 0, "rank %d on %s: %s", r, ranks[r].host, ranks[r].reason);
    }
    p->label = p->tuned ? "tuned" : p->nreasons > 0 ? "not-standard" : "standard";
}

/* A rank far below the others is what a cluster run is looking for. */
static void warn_slow_ranks(const st_mpi_summary_t *s, st_warns_t *w)
{
    size_t k = s->agg.nkernels - 1;
    double v[s->ranks > 0 ? s->ranks : 1], med;
    int n = 0;
    char list[512];
    size_t used = 0;
    int slow = 0;

    for (size_t i = 0; i < s->agg.nkernels; i++)
        if (s->agg.kernel[i] == ST_K_TRIAD)
            k = i;
    if (s->ranks < 2)
        return;
    for (int r = 0; r < s->ranks; r++)
        if (isfinite(s->rank[r].rate_mbps[k]))
            v[n++] = s->rank[r].rate_mbps[k];
    if (n < 2)
        return;
    med = mb_median(v, (size_t)n);
    list[0] = '\0';
    for (int r = 0; r < s->ranks; r++) {
        double x = s->rank[r].rate_mbps[k];
        if (!isfinite(x) || x >= 0.8 * med)
            continue;
        if (slow++ < 8 && used < sizeof list) {
            int m = snprintf(list + used, sizeof list - used, "%s%d on %s (%.1f MB/s)",
                             used ? ", " : "", r, s->rank[r].host, x);
            if (m > 0)
                used += (size_t)m;
        }
    }
    if (slow)
        st_warn(w, "%s: %d rank%s more than 20%% below the median rank (%.1f MB/s): %s%s",
                st_kernel_get((st_kernel_id_t)s->agg.kernel[k])->title, slow,
                slow == 1 ? " is" : "s are", med, list, slow > 8 ? " ..." : "");
}

static void fault(const st_mpi_ctx_t *c)
{
    if (c->opts.fault == ST_FAULT_NONE || c->opts.fault_rank != c->w.rank)
        return;
    fflush(NULL);
    if (c->opts.fault == ST_FAULT_DIE)
        raise(SIGKILL);
    for (;;)
        pause();
}

/* Rank 0: aggregate, warn, render, commit.  Returns the exit status. */
static int report(st_mpi_ctx_t *c, int argc, char **argv, const mb_affinity_t *aff,
                  const mb_numa_placement_t *place_all, const mb_numa_placement_t *place,
                  const mb_thp_t *thp, st_warns_t *warns)
{
    static st_mpi_summary_t s;
    static mb_sysinfo_t si;
    st_outcome_t oc;
    char msg[1024], numa_desc[256];
    int rc;

    merge_reasons(&c->plan, c->ranks, c->w.ranks);
    if (st_mpi_summary_build(&s, &c->plan, &c->run, c->times_all, c->ranks, c->w.ranks) != 0) {
        st_mpi_summary_free(&s);
        mb_error("out of memory building the summary of %d ranks", c->w.ranks);
        return MB_EXIT_RESOURCE;
    }
    s.inject_rank = c->plan.inject >= 0 ? (int)c->opts.inject_rank : -1;
    st_check_ticks(&s.agg, &s.agg_run, s.sum, "timer", warns);
    warn_slow_ranks(&s, warns);
    if (!s.split_even) {
        char split[256];
        st_mpi_split_text(&s, split, sizeof split);
        mb_note("%s (bytes count every element exactly)", split);
    }
    for (int r = 0; r < s.ranks; r++) {
        const st_mpi_rank_t *k = &s.rank[r];
        if (k->valid)
            continue;
        mb_error("validation failed on rank %d (host %s): %llu wrong element(s) in a[], %llu in "
                 "b[], %llu in c[]%s; the bandwidth figures are not valid", r, k->host,
                 (unsigned long long)k->errors[0], (unsigned long long)k->errors[1],
                 (unsigned long long)k->errors[2], k->has_dot && !k->dot_ok ? ", dot product wrong" : "");
    }
    if (s.nfailed == 0 && !s.val.ok)
        mb_error("validation failed: the average error over the ranks exceeds epsilon; the "
                 "bandwidth figures are not valid");

    memset(&oc, 0, sizeof oc);
    oc.plan = &s.agg;
    oc.run = &s.agg_run;
    oc.sum = s.sum;
    oc.val = &s.val;
    oc.aff = aff;
    oc.thp = thp;
    oc.placement = place_all;
    oc.placement_arr = place;
    oc.numa_policy = mb_numa_describe(&c->plan.numa, numa_desc, sizeof numa_desc);
    oc.argc = argc;
    oc.argv = argv;
    oc.warnings = warns->ptr;
    oc.nwarnings = warns->n;
    st_mpi_result_hooks(&oc, &s);

    if (c->plan.format == MB_FMT_TEXT) {
        rc = st_mpi_text_render(&s, &c->plan, &c->run, aff, c->out.f);
    } else {
        if (c->plan.format == MB_FMT_JSON)
            mb_sysinfo_collect(&si);
        rc = st_result_render(&oc, c->plan.format == MB_FMT_JSON ? &si : NULL, c->out.f);
    }
    st_mpi_summary_free(&s);
    if (rc != 0) {
        mb_error("writing the result failed; check the output path and free disk space");
        return MB_EXIT_RESOURCE;
    }
    c->out_open = false;
    if (mb_out_commit(&c->out, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return MB_EXIT_RESOURCE;
    }
    return s.val.ok ? 0 : 1;
}

/* mb_threads_start's cleanup on rank 0: the temporary result file goes. */
static void abort_out(void *out)
{
    mb_out_abort(out);
}

int main(int argc, char **argv)
{
    static st_mpi_ctx_t c;
    static st_validation_t val;
    static mb_affinity_t aff;
    static mb_thp_t thp;
    static mb_numa_placement_t place_all, place[3];
    static st_warns_t warns;
    static st_mpi_rank_t me;
    char msg[1024];
    st_split_t split;
    st_run_sync_t sync;
    unsigned long long lo, hi;
    int provided, rc, code;

    /* Open MPI: keep its components loaded until exit, so a leak report
     * (SANITIZE=1) names their modules and the suppressions above apply. */
    setenv("OMPI_MCA_mca_base_component_disable_dlclose", "1", 0);
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "stream_mpi: error: MPI_Init failed; run it with mpirun or srun from a "
                        "working MPI installation\n");
        return MB_EXIT_RESOURCE;
    }
    mb_log_init("stream_mpi");
    if (st_mpi_world_init(&c.w, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return finish(&c, 3);
    }

    rc = st_mpi_options_parse(argc, argv, &c.opts, msg, sizeof msg);
    if (rc == 0)
        rc = check_ranks(&c, msg, sizeof msg);
    if (rc != 0) {
        if (c.w.rank == 0)
            mb_error("%s", msg);
        return finish(&c, rc);
    }
    if (c.opts.st.help || c.opts.st.version) {
        if (c.w.rank == 0) {
            if (c.opts.st.help)
                st_mpi_options_help(stdout);
            else
                mb_print_version("stream_mpi");
        }
        return finish(&c, 0);
    }
    /* The OpenMP environment each rank runs with (libgomp would crash on
     * an absurd OMP_NUM_THREADS): exit 2 naming the variable. */
    rc = mb_threads_env_check(msg, sizeof msg);
    if ((rc = st_mpi_agree(&c.w, rc, msg, true)) != 0)
        return finish(&c, rc);
    /* Warnings and notes come from rank 0 only. */
    mb_log_quiet(c.opts.st.quiet || c.w.rank != 0);
    c.w.timeout_s = c.opts.timeout_s;

    /* Plan this rank's part; every refusal happens before allocation. */
    split.ranks = c.w.ranks;
    split.rank = c.w.rank;
    split.host_ranks = c.w.host_ranks;
    split.host_rank_ids = c.w.host_rank_ids;
    split.star = c.opts.star;
    rc = st_plan_build_split(&c.opts.st, &split, &c.plan, msg, sizeof msg);
    if ((rc = st_mpi_agree(&c.w, rc, msg, rc != 2)) != 0)
        return finish(&c, rc);
    lo = hi = c.plan.n_total;
    st_mpi_allreduce_u64(&c.w, &lo, MPI_MIN, "agreeing on the array size");
    st_mpi_allreduce_u64(&c.w, &hi, MPI_MAX, "agreeing on the array size");
    if (lo != hi) {
        if (c.w.rank == 0)
            mb_error("--array-size %s: the hosts' caches differ, so sizing to 4x the LLC gives "
                     "%llu to %llu elements; give an explicit --array-size",
                     c.plan.size_source == ST_SIZE_AUTO ? "auto" : "not given", lo, hi);
        return finish(&c, 2);
    }

    rc = st_run_prepare(&c.plan, &c.run, msg, sizeof msg);
    c.run_ready = true;
    if (rc == 0 && !(c.kernel_only_s = calloc(c.plan.nkernels * (size_t)c.plan.ntimes,
                                               sizeof *c.kernel_only_s))) {
        snprintf(msg, sizeof msg, "cannot allocate the time table");
        rc = MB_EXIT_RESOURCE;
    }
    if ((rc = st_mpi_agree(&c.w, rc, msg, true)) != 0)
        return finish(&c, rc);
    rc = 0;
    if (c.w.rank == 0) {
        if (mb_out_open(&c.out, c.plan.output, msg, sizeof msg) != 0)
            rc = MB_EXIT_RESOURCE;
        else
            c.out_open = true;
    }
    if ((rc = st_mpi_agree(&c.w, rc, msg, false)) != 0)
        return finish(&c, rc);
    if (c.plan.numa_requested) {
        rc = mb_numa_apply(&c.plan.numa, msg, sizeof msg);
        rc = rc == 0 ? MB_EXIT_OK : rc == -ENOSYS ? MB_EXIT_UNBUILT : rc == -EINVAL ? MB_EXIT_USAGE : MB_EXIT_RESOURCE;
    }
    if ((rc = st_mpi_agree(&c.w, rc, msg, true)) != 0)
        return finish(&c, rc);
    st_plan_finish(&c.plan);
    check_host_load(&c);
    for (size_t i = 0; i < c.plan.nnotes; i++)
        st_warn(&warns, "%s", c.plan.notes[i]);
    for (size_t i = 0; i < c.plan.nreasons; i++)
        if (!st_plan_reason_is_tuning(&c.plan, i))
            st_warn(&warns, "%s", c.plan.reasons[i]);
    if (c.plan.threads_set)
        omp_set_num_threads(c.plan.threads);
    {
        char why[256];
        /* a rank that cannot create its threads exits 3; rank 0 first
         * removes its temporary result file */
        int got = mb_threads_start(c.plan.threads, 3, c.out_open ? abort_out : NULL, &c.out);
        if (mb_threads_shortfall(c.plan.threads, got, why, sizeof why))
            st_warn(&warns, "%s", why);
    }

    rc = st_block_alloc(&c.plan, &c.block, msg, sizeof msg) != 0 ? 3 : 0;
    c.have_block = rc == 0;
    if (rc == 0 && st_block_advise(&c.plan, &c.block, msg, sizeof msg) != 0)
        rc = MB_EXIT_RESOURCE;
    if ((rc = st_mpi_agree(&c.w, rc, msg, true)) != 0)
        return finish(&c, rc);

    /* Measure. */
    st_run_init(&c.plan, &c.block.x, &c.run);
    mb_affinity_record(&aff);
    fault(&c);
    st_mpi_checkpoint(&c.w, "the end of the initialisation");
    st_run_calibrate(&c.plan, &c.block.x, &c.run);
    sync.sync = st_mpi_barrier;
    sync.ctx = &c.w;
    sync.kernel_only_s = c.kernel_only_s;
    (void)st_run_kernels_sync(&c.plan, &c.block.x, &c.run, &sync);
    if (c.opts.inject_rank == c.w.rank)
        st_inject_error(&c.plan, &c.block.x, &c.run.dot_last);

    /* Every rank checks its own part. */
    st_validate(&c.plan, &c.block.x, c.run.dot_last, &val);
    st_mpi_rank_fill(&me, &c.w, &c.plan, &val, &aff, c.kernel_only_s);
    if (c.w.rank == 0) {
        (void)mb_thp_measure(c.block.base, c.plan.total_bytes, &thp);
        (void)mb_numa_placement(c.block.base, c.plan.total_bytes, 0, &place_all);
        (void)mb_numa_placement(c.block.x.a, c.plan.array_bytes, 0, &place[0]);
        (void)mb_numa_placement(c.block.x.b, c.plan.array_bytes, 0, &place[1]);
        (void)mb_numa_placement(c.block.x.c, c.plan.array_bytes, 0, &place[2]);
    }
    st_block_free(&c.block);
    c.have_block = false;

    /* Everything to rank 0. */
    st_mpi_checkpoint(&c.w, "the end of the validation");
    if (c.w.rank == 0) {
        const size_t cells = c.plan.nkernels * (size_t)c.plan.ntimes;
        c.times_all = calloc(cells * (size_t)c.w.ranks, sizeof *c.times_all);
        c.ranks = calloc((size_t)c.w.ranks, sizeof *c.ranks);
        if (!c.times_all || !c.ranks)
            st_mpi_die(&c.w, 3, "cannot allocate the tables of %d ranks on rank 0", c.w.ranks);
    }
    st_mpi_gather_doubles(&c.w, c.run.times_s, c.plan.nkernels * (size_t)c.plan.ntimes,
                          c.times_all, "gathering the kernel times on rank 0");
    st_mpi_gather_bytes(&c.w, &me, sizeof me, c.ranks, "gathering the rank reports on rank 0");

    code = 0;
    if (c.w.rank == 0)
        code = report(&c, argc, argv, &aff, &place_all, place, &thp, &warns);
    st_mpi_bcast_int(&c.w, &code, "sharing the exit status");
    return finish(&c, code);
}
