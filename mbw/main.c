/* mbw: memory bandwidth by copying one array into another, compatible
 * with mbw's command line and output (upstream 1.5 semantics), plus
 * memsuite extensions (threads, NUMA, huge pages, JSON/CSV, counters).
 *
 * Pipeline: parse -> check resources (plan.c; --plan prints them and exits)
 * -> allocate and touch -> measure each
 * method (text lines as runs finish) -> verify -> render the document. */
#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "cli.h"
#include "counters.h"
#include "log.h"
#include "measure.h"
#include "numa.h"
#include "opts.h"
#include "outfile.h"
#include "plan.h"
#include "render.h"
#include "report.h"
#include "session.h"
#include "signals.h"
#include "threads.h"
#include "sizing.h"
#include "timer.h"
#include "wstatus.h"

#define MBW_MIN_SAMPLE_NS 1000u        /* never accept a sample under 1 us */
#define MBW_MIN_SAMPLE_TICKS 100u      /* nor under 100 clock steps */
#define MBW_GRANULARITY_TRIALS 20

/* Set by SIGINT or SIGTERM (common/signals): the first one asks for a
 * clean stop after the current run, so --output is committed or its
 * temporary file removed; a second one ends the process as usual. */
static const volatile sig_atomic_t *mbw_stop;

typedef struct {
    FILE *f;
    const char *name;
    double mib;
} mbw_line_ctx_t;

static void mbw_print_sample(void *ctx, size_t index, double time_s)
{
    const mbw_line_ctx_t *l = ctx;
    char idx[32];
    snprintf(idx, sizeof idx, "%zu", index);
    mbw_text_result_line(l->f, idx, l->name, time_s, l->mib);
}

/* Measure one method; prints its run lines and AVG line to text_f. */
static int mbw_run_method(const mbw_cfg_t *cfg, mbw_session_t *s, mbw_method_run_t *r,
                          FILE *text_f)
{
    mbw_line_ctx_t line = { text_f, r->method->name, (double)cfg->size_mib };
    mbw_measure_t q = {
        .method = r->method,
        .dst = s->arrays.dst,
        .src = s->arrays.src,
        .bytes = cfg->array_bytes,
        .block_bytes = (size_t)cfg->block_bytes,
        .threads = (int)cfg->threads,
        .min_ns = s->min_sample_ns,
        .runs = cfg->runs,
        .stop = mbw_stop,
        .counters = r->counters_on ? &r->counters : NULL,
        .on_sample = mbw_print_sample,
        .ctx = &line,
    };

    if (cfg->verify)
        mbw_arrays_clear_dst(&s->arrays, (int)cfg->threads);
    /* every copying thread (the caller alone for --threads 1) has its own
     * event set; joined again afterwards, a changed OS thread is marked */
    int team = cfg->threads > 1 ? (int)cfg->threads : 1;
    if (r->counters_on)
        mb_counters_join_team(&r->counters, team);
    int rc = mbw_measure(&q, &r->series);
    if (r->counters_on)
        mb_counters_join_team(&r->counters, team);
    if (rc != 0) {
        mb_error("%s: cannot store the time samples: %s", r->method->name, strerror(-rc));
        return rc;
    }
    r->ran = true;
    if (r->series.interrupted)
        s->complete = false;
    if (!cfg->no_avg)
        mbw_text_result_line(text_f, "AVG", r->method->name, mbw_series_mean_s(&r->series),
                             (double)cfg->size_mib);
    if (r->counters_on)
        mbw_text_counters(stderr, r->method->name, &r->counters);
    if (cfg->verify) {
        r->verified = true;
        r->verify_ok = mbw_arrays_verify(&s->arrays, &r->verify) == 0;
        if (r->verify_ok)
            mb_note("--verify: %s: all %zu bytes copied (checksum %016llx)", r->method->name,
                    cfg->array_bytes, (unsigned long long)r->verify.src_sum);
        else
            mb_error("--verify: %s: destination differs from source at byte %zu of %zu "
                     "(checksums %016llx vs %016llx); this copy method is broken",
                     r->method->name, r->verify.first_bad_byte, cfg->array_bytes,
                     (unsigned long long)r->verify.dst_sum,
                     (unsigned long long)r->verify.src_sum);
    }
    return 0;
}

static void mbw_session_init(mbw_session_t *s, const mbw_cfg_t *cfg, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->argc = argc;
    s->argv = argv;
    s->complete = true;
    for (int i = 0; i < MBW_NMETHODS; i++) {
        s->run[i].method = &mbw_methods[i];
        s->run[i].selected = cfg->test[i];
        s->run[i].block_bytes = (size_t)cfg->block_bytes;
    }
}

static void mbw_session_free(mbw_session_t *s)
{
    for (int i = 0; i < MBW_NMETHODS; i++) {
        mbw_series_free(&s->run[i].series);
        if (s->run[i].counters_on)
            mb_counters_finish(&s->run[i].counters);
    }
    mbw_arrays_free(&s->arrays);
}

/* mb_threads_start's cleanup: the temporary result file goes. */
static void mbw_abort_out(void *out)
{
    mb_out_abort(out);
}

/* Everything after the command line.  Returns the exit status. */
static int mbw_run(const mbw_cfg_t *cfg, mbw_session_t *s)
{
    const mb_format_t fmt = (mb_format_t)cfg->format;
    static mbw_plan_t plan;
    mb_out_t out;
    char msg[512];
    int code = MB_EXIT_OK;

    /* Every check before allocating (plan.c); --plan reports them. */
    code = mbw_plan_build(cfg, s, &plan);
    if (cfg->plan)
        return mbw_plan_report(cfg, s, &plan, stdout);
    if (code != 0 && plan.fit != MB_FIT_REFUSED) {
        mb_error("%s", plan.msg);
        return code;
    }
    if (s->size_rule.verdict != MB_RULE_MET)   /* under the rule, or unchecked */
        mb_warn("%s", s->size_rule.message);
    code = MB_EXIT_OK;
    if (mb_out_open(&out, cfg->output, msg, sizeof msg) != 0) {
        mb_error("--output %s: %s", cfg->output, msg);
        return mbw_exit_code(cfg, MB_EXIT_RESOURCE);
    }
    /* mbw's lines go where the result goes in text mode; beside a json/csv
     * document they go to stdout unless the document itself does. */
    FILE *text_f = fmt == MB_FMT_TEXT ? out.f : (out.is_stdout ? NULL : stdout);
    FILE *info_f = cfg->quiet ? NULL : text_f;

    mbw_text_alloc_line(info_f, cfg);
    if (plan.fit == MB_FIT_UNKNOWN)
        mb_warn("%s", plan.fit_msg);
    if (plan.fit == MB_FIT_REFUSED) {   /* after mbw's allocation line, as before */
        mb_error("%s", plan.msg);
        mb_out_abort(&out);
        return plan.code;
    }
    omp_set_num_threads((int)cfg->threads);
    int got = mb_threads_start((int)cfg->threads, mbw_exit_code(cfg, MB_EXIT_RESOURCE),
                               mbw_abort_out, &out);
    if (mb_threads_shortfall((int)cfg->threads, got, msg, sizeof msg))
        mb_warn("--threads: %s", msg);
    int rc = mbw_arrays_alloc(&s->arrays, cfg->array_bytes, cfg->hugepages, msg, sizeof msg);
    if (rc != 0) {
        if (rc == -ENOMEM)
            fprintf(stderr, "%s\n", msg);    /* mbw's perror() text */
        else
            mb_error("%s", msg);
        mb_out_abort(&out);
        return mbw_exit_code(cfg, MB_EXIT_RESOURCE);
    }
    mbw_arrays_fill(&s->arrays, (int)cfg->threads);
    mbw_arrays_huge_probe(&s->arrays);
    if (cfg->numa_node >= 0)
        s->has_placement = mb_numa_placement(s->arrays.dst, cfg->array_bytes, 0,
                                             &s->placement) == 0;
    mb_affinity_record(&s->affinity);

    uint64_t gran_ns = mb_timer_granularity_ns(MBW_GRANULARITY_TRIALS);
    s->granularity_ns = gran_ns;
    s->min_sample_ns = gran_ns * MBW_MIN_SAMPLE_TICKS > MBW_MIN_SAMPLE_NS
                       ? gran_ns * MBW_MIN_SAMPLE_TICKS : MBW_MIN_SAMPLE_NS;

    mbw_text_start_lines(info_f, cfg);
    mbw_stop = mb_signals_catch(true);
    bool verify_failed = false;
    for (int i = 0; i < MBW_NMETHODS && !*mbw_stop; i++) {
        mbw_method_run_t *r = &s->run[i];
        if (!r->selected)
            continue;
        if (mbw_run_method(cfg, s, r, text_f) != 0) {
            code = MB_EXIT_FAIL;
            break;
        }
        if (r->verified && !r->verify_ok)
            verify_failed = true;
    }
    if (*mbw_stop && cfg->runs > 0)
        s->complete = false;
    mb_signals_restore();

    int we = fmt != MB_FMT_TEXT ? -mbw_render_doc(s, fmt, out.f) : 0;
    if (!we)
        we = mb_write_status(out.f);
    if (we) {
        char fmt_name[8];
        /* the stream's own errno: "No space left on device", not a guess */
        mb_error("--output %s: writing the %s result failed: %s; free disk space or choose "
                 "another path", cfg->output ? cfg->output : "-",
                 mb_opts_choice_name(MB_FORMAT_CHOICES, fmt, fmt_name, sizeof fmt_name),
                 strerror(we > 0 ? we : EIO));
        mb_out_abort(&out);
        return mbw_exit_code(cfg, MB_EXIT_RESOURCE);
    }
    if (mb_out_commit(&out, msg, sizeof msg) != 0) {
        mb_error("--output %s: %s", cfg->output ? cfg->output : "-", msg);
        return mbw_exit_code(cfg, MB_EXIT_RESOURCE);
    }
    if (code != MB_EXIT_OK)
        return code;
    if (verify_failed)
        return MB_EXIT_FAIL;
    if (!s->complete)
        return MB_EXIT_INTERRUPTED;
    return MB_EXIT_OK;
}

int main(int argc, char **argv)
{
    mbw_cfg_t cfg;
    int code = MB_EXIT_OK;
    /* getopt permutes argv; the result document records it as given. */
    char **given = calloc((size_t)argc + 1, sizeof *given);

    mb_log_init("mbw");
    if (!given) {
        fprintf(stderr, "Error allocating memory: %s\n", strerror(ENOMEM));
        return MB_EXIT_FAIL;
    }
    memcpy(given, argv, (size_t)argc * sizeof *given);
    mbw_cfg_defaults(&cfg);
    if (mbw_cli_parse(argc, argv, &cfg, &code) != 0) {
        free(given);
        return code;
    }
    mb_log_quiet(cfg.quiet);

    mbw_session_t session;
    mbw_session_init(&session, &cfg, argc, given);
    code = mbw_run(&cfg, &session);
    mbw_session_free(&session);
    free(given);
    return code;
}
