/* stream: STREAM 5.10 compatible memory bandwidth benchmark.
 *
 * Pipeline: parse -> plan (size, fit and usage checks; nothing allocated)
 * -> open the output -> NUMA policy -> allocate -> parallel first-touch
 * init -> calibrate -> timed rounds -> validate -> render.
 *
 * Exit status: 0 ok; 1 validation failed; 2 usage error; 3 resource
 * unavailable (memory, output file); 4 feature not built (NUMA, ISA);
 * 130 interrupted (SIGINT/SIGTERM: nothing is written, the temporary
 * result file is removed). */
#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "arrays.h"
#include "buildinfo.h"
#include "exitcodes.h"
#include "kernels.h"
#include "log.h"
#include "numa.h"
#include "options.h"
#include "outcome.h"
#include "outfile.h"
#include "nt.h"
#include "ntpick.h"
#include "plan.h"
#include "planout.h"
#include "report.h"
#include "result.h"
#include "run.h"
#include "signals.h"
#include "sysinfo.h"
#include "text.h"
#include "threads.h"
#include "validate.h"
#include "warns.h"

/* mb_threads_start's cleanup: the temporary result file goes. */
static void abort_out(void *out)
{
    mb_out_abort(out);
}

static int fail(mb_out_t *out, int code, const char *msg)
{
    mb_error("%s", msg);
    if (out)
        mb_out_abort(out);
    return code;
}

int main(int argc, char **argv)
{
    static st_options_t opts;
    static st_plan_t plan;
    static st_run_t run;
    static st_summary_t sum[ST_MAX_KERNELS];
    static st_validation_t val;
    static mb_affinity_t aff;
    static mb_thp_t thp;
    static mb_numa_placement_t place_all, place[3];
    static st_warns_t warns;
    static mb_sysinfo_t si;
    char msg[1024], numa_desc[256];
    st_block_t block;
    mb_out_t out;
    st_outcome_t oc;
    const volatile sig_atomic_t *stop;
    int rc;

    mb_log_init("stream");
    if (st_options_parse(argc, argv, &opts, msg, sizeof msg) != 0)
        return fail(NULL, MB_EXIT_USAGE, msg);
    if (opts.help) {
        st_options_help(stdout);
        return MB_EXIT_OK;
    }
    if (opts.version) {
        mb_print_version("stream");
        return MB_EXIT_OK;
    }
    mb_log_quiet(opts.quiet);

    /* Every refusal happens here, before anything is allocated. */
    if (mb_threads_env_check(msg, sizeof msg) != 0)
        return fail(NULL, MB_EXIT_USAGE, msg);
    if (opts.plan && opts.format == MB_FMT_CSV)
        return fail(NULL, MB_EXIT_USAGE, "--plan --format csv: a plan is written as text or "
                    "json; use --format text or --format json");
    rc = st_plan_build(&opts, &plan, msg, sizeof msg);
    if (opts.plan)          /* the verdicts above, as a document; nothing allocated */
        return st_plan_report(&opts, &plan, rc, msg, stdout);
    if (rc != 0)
        return fail(NULL, rc, msg);
    if ((rc = st_run_prepare(&plan, &run, msg, sizeof msg)) != 0) {
        st_run_free(&plan, &run);
        return fail(NULL, rc, msg);
    }
    /* The first SIGINT or SIGTERM stops after the current round (the
     * temporary result file is then removed); a second one kills.  Caught
     * before the output is opened: once the temporary file exists, a
     * signal reaches this handling (what a test can wait for). */
    stop = mb_signals_catch(true);
    run.stop = stop;
    /* An unwritable output path fails now, not after the measurement. */
    if (mb_out_open(&out, plan.output, msg, sizeof msg) != 0) {
        st_run_free(&plan, &run);
        return fail(NULL, MB_EXIT_RESOURCE, msg);
    }
    if (plan.numa_requested) {
        rc = mb_numa_apply(&plan.numa, msg, sizeof msg);
        if (rc != 0) {
            st_run_free(&plan, &run);
            return fail(&out, rc == -ENOSYS ? MB_EXIT_UNBUILT
                              : rc == -EINVAL ? MB_EXIT_USAGE : MB_EXIT_RESOURCE, msg);
        }
    }
    st_plan_finish(&plan);
    for (size_t i = 0; i < plan.nnotes; i++)
        st_warn(&warns, "%s", plan.notes[i]);
    for (size_t i = 0; i < plan.nreasons; i++)
        if (!st_plan_reason_is_tuning(&plan, i))
            st_warn(&warns, "%s", plan.reasons[i]);
    if (plan.threads_set)
        omp_set_num_threads(plan.threads);
    {
        char why[256];
        int got = mb_threads_start(plan.threads, MB_EXIT_RESOURCE, abort_out, &out);
        if (mb_threads_shortfall(plan.threads, got, why, sizeof why))
            st_warn(&warns, "%s", why);
    }

    if (st_block_alloc(&plan, &block, msg, sizeof msg) != 0) {
        st_run_free(&plan, &run);
        return fail(&out, MB_EXIT_RESOURCE, msg);
    }
    if (st_block_advise(&plan, &block, msg, sizeof msg) != 0) {
        st_block_free(&block);
        st_run_free(&plan, &run);
        return fail(&out, MB_EXIT_RESOURCE, msg);
    }

    /* Measure. */
    st_run_init(&plan, &block.x, &run);
    if (plan.nt && plan.nt_auto) {   /* tuned --nt-stores: the variant by measurement */
        st_ntpick(&plan, &block.x, &run.ntpick);
        st_run_nt_used(&plan, &run);
        if (!run.ntpick.ran)
            st_warn(&warns, "--nt-isa auto: %s; %s (the best-first default) is used",
                    run.ntpick.why, plan.nt_isa->name);
        else if (!opts.quiet)
            st_ntpick_note(&run.ntpick, plan.nt_isa->name);
    }
    mb_affinity_record(&aff);
    st_run_calibrate(&plan, &block.x, &run);
    if (!*stop)
        st_run_kernels(&plan, &block.x, &run);
    if (*stop) {
        /* A partial run has no valid STREAM figures: nothing is written. */
        bool to_file = plan.output && strcmp(plan.output, "-") != 0;
        snprintf(msg, sizeof msg, "interrupted by a signal after %d of %d rounds: no result "
                 "written%s%s", run.rounds_done, plan.ntimes, to_file ? " to " : "",
                 to_file ? plan.output : "");
        st_block_free(&block);
        st_run_free(&plan, &run);
        return fail(&out, MB_EXIT_INTERRUPTED, msg);
    }

    st_run_summarize(&plan, &run, sum);
    st_check_ticks(&plan, &run, sum, "clock", &warns);
    st_inject_error(&plan, &block.x, &run.dot_last);

    /* Validate, and read back where the memory landed. */
    st_validate(&plan, &block.x, run.dot_last, &val);
    (void)mb_thp_measure(block.base, plan.total_bytes, &thp);
    (void)mb_numa_placement(block.base, plan.total_bytes, 0, &place_all);
    (void)mb_numa_placement(block.x.a, plan.array_bytes, 0, &place[0]);
    (void)mb_numa_placement(block.x.b, plan.array_bytes, 0, &place[1]);
    (void)mb_numa_placement(block.x.c, plan.array_bytes, 0, &place[2]);
    st_block_free(&block);

    /* Render. */
    if (!val.ok)
        mb_error("validation failed: the kernels' results do not match the scalar replay "
                 "(details in the report); the bandwidth figures are not valid");
    memset(&oc, 0, sizeof oc);
    oc.plan = &plan;
    oc.run = &run;
    oc.sum = sum;
    oc.val = &val;
    oc.aff = &aff;
    oc.thp = &thp;
    oc.placement = &place_all;
    oc.placement_arr = place;
    oc.numa_policy = mb_numa_describe(&plan.numa, numa_desc, sizeof numa_desc);
    oc.argc = argc;
    oc.argv = argv;
    oc.warnings = warns.ptr;
    oc.nwarnings = warns.n;

    if (plan.format == MB_FMT_TEXT) {
        rc = st_text_render(&oc, out.f);
        st_text_extras(&oc, stderr);
    } else {
        if (plan.format == MB_FMT_JSON)
            mb_sysinfo_collect(&si);
        rc = st_result_render(&oc, plan.format == MB_FMT_JSON ? &si : NULL, out.f);
    }
    st_run_free(&plan, &run);
    if (rc != 0) {
        mb_out_abort(&out);
        mb_error("writing the result failed; check the output path and free disk space");
        return MB_EXIT_RESOURCE;
    }
    if (mb_out_commit(&out, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return MB_EXIT_RESOURCE;
    }
    return val.ok ? MB_EXIT_OK : MB_EXIT_FAIL;
}
