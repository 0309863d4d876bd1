/* alloc/child: the child process of the allocator comparison.
 *
 * The parent re-executes this binary with LD_PRELOAD of an allocator and
 * argv[1] == MC_ALLOC_CHILD_ARG.  A constructor catches that before
 * main() runs, so the child does none of mencal's own start-up: it checks
 * which allocator is in effect, runs the work and reports.
 *
 * Protocol on --result-fd: one "key value" line each,
 *   allocator <short name>          always, first
 *   allocator_full <text>
 *   error <text>                    the child failed (exit status 1)
 *   wall_s user_s sys_s minflt majflt ops allocs frees nlat p50_ns p99_ns
 *   perf_minflt [perf_why]          minor faults from the threads' own
 *                                   perf events (-1 and why: not counted)
 *   h.<same keys>                   --overhead: the harness-only pass
 *   done 1                          last line of a complete report */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "child.h"
#include "libs.h"
#include "worker.h"
#include "opts.h"
#include "sysinfo.h"

typedef struct {
    const char *expect;
    long long threads, result_fd, random_state;
    size_t block_bytes, slots, ops;
    double duration_s;
    bool nofree, harness_only, overhead, probe;
} child_opts_t;

#define OFF(f) offsetof(child_opts_t, f)
static const mb_opt_t child_options[] = {
    { .long_name = "expect", .type = MB_OPT_STRING, .offset = OFF(expect), .help = "allocator" },
    { .long_name = "threads", .type = MB_OPT_INT, .offset = OFF(threads), .min = 1,
      .max = MC_ALLOC_MAX_THREADS, .help = "threads" },
    { .long_name = "block", .type = MB_OPT_SIZE, .offset = OFF(block_bytes), .min = 1,
      .help = "block size" },
    { .long_name = "slots", .type = MB_OPT_COUNT, .offset = OFF(slots), .min = 1,
      .help = "blocks per thread" },
    { .long_name = "ops", .type = MB_OPT_COUNT, .offset = OFF(ops), .help = "steps per thread" },
    { .long_name = "duration", .type = MB_OPT_DOUBLE, .offset = OFF(duration_s),
      .help = "seconds" },
    { .long_name = "random-state", .type = MB_OPT_INT, .offset = OFF(random_state), .min = 0,
      .help = "where the random generator starts" },
    { .long_name = "result-fd", .type = MB_OPT_INT, .offset = OFF(result_fd), .min = 0,
      .max = 1 << 20, .help = "fd" },
    { .long_name = "nofree", .type = MB_OPT_FLAG, .offset = OFF(nofree), .help = "no free" },
    { .long_name = "harness-only", .type = MB_OPT_FLAG, .offset = OFF(harness_only),
      .help = "harness only" },
    { .long_name = "overhead", .type = MB_OPT_FLAG, .offset = OFF(overhead), .help = "overhead" },
    { .long_name = "probe", .type = MB_OPT_FLAG, .offset = OFF(probe), .help = "probe" },
};
#undef OFF

static void emit_meas(FILE *f, const char *prefix, const mc_alloc_meas_t *m)
{
    fprintf(f, "%swall_s %.17g\n%suser_s %.17g\n%ssys_s %.17g\n", prefix, m->wall_s, prefix,
            m->user_s, prefix, m->sys_s);
    fprintf(f, "%scpu_s %.17g\n%srss_end_kib %ld\n%shwm_kib %ld\n", prefix, m->cpu_s, prefix,
            m->rss_end_kib, prefix, m->hwm_kib);
    fprintf(f, "%sminflt %ld\n%smajflt %ld\n", prefix, m->minflt, prefix, m->majflt);
    fprintf(f, "%sperf_minflt %ld\n", prefix, m->perf_minflt);
    if (m->perf_minflt < 0)
        fprintf(f, "%sperf_why %s\n", prefix, m->perf_why);
    fprintf(f, "%sops %llu\n%sallocs %llu\n%sfrees %llu\n", prefix, (unsigned long long)m->ops,
            prefix, (unsigned long long)m->allocs, prefix, (unsigned long long)m->frees);
    fprintf(f, "%snlat %zu\n%sp50_ns %.17g\n%sp99_ns %.17g\n", prefix, m->nlat, prefix,
            m->lat_p50_ns, prefix, m->lat_p99_ns);
}

__attribute__((format(printf, 2, 3))) static int child_fail(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
    fclose(f);
    return 1;
}

int mc_alloc_child_main(int argc, char **argv)
{
    child_opts_t o = { .threads = 1, .result_fd = 1, .random_state = 1, .slots = 1 };
    char msg[512];
    /* argv[1] is the marker: parse from there as if it were argv[0] */
    if (mb_opts_parse(child_options, sizeof child_options / sizeof child_options[0], argc - 1,
                      argv + 1, &o, NULL, msg, sizeof msg) != 0) {
        fprintf(stderr, "mencal alloc child: %s\n", msg);
        return 2;
    }
    FILE *f = fdopen((int)o.result_fd, "w");
    if (!f) {
        fprintf(stderr, "mencal alloc child: fd %lld: %s\n", o.result_fd, strerror(errno));
        return 2;
    }
    /* die with the parent rather than run on unobserved */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) {
        fclose(f);
        return 1;
    }

    /* one allocation first: jemalloc reads its configuration (and
     * reports a bad one) on the first call */
    free(malloc(64));
    char full[160];
    const char *name = mb_allocator_detect(full, sizeof full);
    fprintf(f, "allocator %s\nallocator_full %s\n", name, full);
    if (!o.expect || strcmp(name, o.expect) != 0) {
        const char *pre = getenv("LD_PRELOAD");
        return child_fail(f, "asked for %s but the allocator in effect is %s (LD_PRELOAD=%s); "
                          "the preload did not take",
                          o.expect ? o.expect : "(none)", full, pre ? pre : "unset");
    }
    if (o.probe) {
        fputs("done 1\n", f);
        fclose(f);
        return 0;
    }
    mc_alloc_work_t w = {
        .threads = (int)o.threads, .block_bytes = o.block_bytes, .slots = o.slots,
        .ops = o.ops, .duration_s = o.duration_s, .nofree = o.nofree,
        .harness_only = o.harness_only, .random_state = (uint64_t)o.random_state,
    };
    mc_alloc_meas_t m;
    if (mc_alloc_work_run(&w, &m, msg, sizeof msg) != 0)
        return child_fail(f, "%s", msg);
    emit_meas(f, "", &m);
    if (o.overhead && !o.harness_only) {
        w.harness_only = true;
        if (mc_alloc_work_run(&w, &m, msg, sizeof msg) != 0)
            return child_fail(f, "harness-only pass: %s", msg);
        emit_meas(f, "h.", &m);
    }
    fputs("done 1\n", f);
    if (fclose(f) != 0)
        return 1;
    return 0;
}

/* glibc passes (argc, argv, envp) to the constructors of the executable. */
__attribute__((constructor)) static void mc_alloc_child_entry(int argc, char **argv, char **envp)
{
    (void)envp;
    if (argc >= 2 && argv && argv[1] && strcmp(argv[1], MC_ALLOC_CHILD_ARG) == 0) {
        fflush(NULL);
        exit(mc_alloc_child_main(argc, argv));
    }
}
