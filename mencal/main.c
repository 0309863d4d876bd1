/* mencal: memory compute efficiency.
 *
 *   mencal list
 *   mencal run SCENARIO...|all [options]
 *   mencal env [--format text|json] [-O FILE]
 *
 * main parses, resolves the configuration, runs the scenarios (each fills
 * an mc_result_t and prints nothing) and renders the results. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "buffer.h"
#include "isa.h"
#include "log.h"
#include "config.h"
#include "env.h"
#include "exitcodes.h"
#include "render.h"
#include "result.h"
#include "scenario.h"
#include "team.h"
#include "outfile.h"
#include "planout.h"
#include "signals.h"
#include "sysinfo.h"
#include "threads.h"

static const char usage_line[] =
    "mencal list\n"
    "       mencal run SCENARIO...|all [options]\n"
    "       mencal env [--format text|json] [-O FILE]\n"
    "       mencal --help | --version";

static void usage(FILE *f, const mc_cli_t *cli)
{
    mb_opts_help(f, usage_line, cli->table, cli->n);
    fputs("\nScenarios (mencal list for details):\n", f);
    for (size_t i = 0; i < mc_scenario_count(); i++)
        fprintf(f, "  %-11s %s\n", mc_scenario_at(i)->name, mc_scenario_at(i)->summary);
    fputs("\n'run all' uses a short stability profile (10 samples x 1 s) unless --iterations,\n"
          "--interval or --duration is given.  Exit: 0 ok, 1 run failure or interrupted,\n"
          "2 usage, 3 resource unavailable, 4 feature not built.  See mencal(1).\n", f);
}

/* One scenario's help: its summary, its own options, and where the common
 * ones are described. */
static void scenario_usage(FILE *f, const mc_scenario_t *sc)
{
    char line[160];
    snprintf(line, sizeof line, "mencal run %s [options]", sc->name);
    fprintf(f, "%s: %s\n\n", sc->name, sc->summary);
    if (sc->nopts)
        mb_opts_help(f, line, sc->opts, sc->nopts);
    else
        fprintf(f, "Usage: %s\n\n%s has no options of its own.\n", line, sc->name);
    fputs("\nCommon options (--size, --threads, --reps, --hugepages, --buffer, --counters,\n"
          "--format, ...): mencal --help.  See mencal(1).\n", f);
}

/* Parse argv[1..argc) into cli (cfg->o points at its common values);
 * positionals into pos.  0 or MB_EXIT_USAGE. */
static int parse(int argc, char **argv, mc_config_t *cfg, mc_cli_t *cli, char **pos, int *npos)
{
    char msg[512];
    if (mc_cli_parse(cli, argc, argv, pos, npos, msg, sizeof msg) != 0) {
        mb_error("%s; see 'mencal --help'", msg);
        return MB_EXIT_USAGE;
    }
    cfg->cli = cli;
    cfg->o = mc_cli_opts(cli);
    if (cfg->o->quiet)
        mb_log_quiet(1);
    return 0;
}

/* What a command gets: the whole command line (argv[first] is the
 * command's name), the parsed options and room for positionals. */
typedef struct {
    mc_cmdline_t cmd;
    mc_config_t *cfg;
    mc_cli_t *cli;
    char **pos;
} mc_cmd_t;

static int cmd_list(const mc_cmd_t *c)
{
    int npos;
    if (parse(c->cmd.argc - c->cmd.first, c->cmd.argv + c->cmd.first, c->cfg, c->cli, c->pos,
              &npos))
        return MB_EXIT_USAGE;
    if (npos) {
        mb_error("list: unexpected argument '%s'; 'mencal list' takes none", c->pos[0]);
        return MB_EXIT_USAGE;
    }
    for (size_t i = 0; i < mc_scenario_count(); i++) {
        const mc_scenario_t *sc = mc_scenario_at(i);
        printf("%-11s %s\n", sc->name, sc->summary);
        printf("%-11s options:", "");
        if (sc->cli)    /* its own command line: its help lists them */
            printf(" its own (mencal run %s --help)", sc->name);
        else if (!sc->nopts)
            printf(" (common options only)");
        for (size_t k = 0; k < sc->nopts; k++)
            printf(" --%s", sc->opts[k].long_name);
        printf("\n");
    }
    return 0;
}

/* A scenario option given while no selected scenario takes it. */
static int check_scenario_options(const mc_cli_t *cli, const mc_scenario_t **sel, size_t nsel)
{
    const mb_opt_t *t = cli->table;
    for (size_t i = 0; i < cli->n; i++) {
        if (!cli->seen[i])
            continue;
        bool specific = false, taken = false;
        char owners[256] = "";
        size_t used = 0;
        for (size_t s = 0; s < mc_scenario_count(); s++)
            if (mc_scenario_accepts(mc_scenario_at(s), t[i].long_name)) {
                specific = true;
                used += (size_t)snprintf(owners + used, used < sizeof owners ? sizeof owners - used : 0,
                                         "%s%s", used ? ", " : "", mc_scenario_at(s)->name);
            }
        for (size_t s = 0; s < nsel; s++)
            taken |= mc_scenario_accepts(sel[s], t[i].long_name);
        if (specific && !taken) {
            mb_error("--%s applies to %s, which is not in this run; add the scenario or drop "
                     "the option", t[i].long_name, owners);
            return MB_EXIT_USAGE;
        }
    }
    return 0;
}

/* Options whose value names one output file: two selected scenarios that
 * both take one would write the same file, the second over the first. */
static const char *const one_file_options[] = { "plot" };

static int check_one_file_options(const mc_cli_t *cli, const mc_scenario_t **sel, size_t nsel)
{
    for (size_t i = 0; i < cli->n; i++) {
        if (!cli->seen[i])
            continue;
        for (size_t k = 0; k < sizeof one_file_options / sizeof one_file_options[0]; k++) {
            if (strcmp(cli->table[i].long_name, one_file_options[k]) != 0)
                continue;
            const char *first = NULL, *second = NULL;
            for (size_t s = 0; s < nsel && !second; s++)
                if (mc_scenario_accepts(sel[s], one_file_options[k])) {
                    second = first ? sel[s]->name : NULL;
                    first = first ? first : sel[s]->name;
                }
            if (second) {
                mb_error("--%s names one file, and %s and %s would both write it (only the "
                         "last would be kept); run them separately, each with its own --%s",
                         one_file_options[k], first, second, one_file_options[k]);
                return MB_EXIT_USAGE;
            }
        }
    }
    return 0;
}

static void print_plan(const mc_config_t *cfg, const mc_scenario_t **sel, size_t nsel)
{
    char a[32], b[32];
    printf("plan:");
    for (size_t i = 0; i < nsel; i++)
        printf(" %s", sel[i]->name);
    printf("\nsize: %zu bytes (%s; %s)\n", cfg->size_bytes,
           mb_format_bytes(cfg->size_bytes, a, sizeof a), cfg->size_how);
    printf("llc: %zu bytes (%s, %s)\n", cfg->caches.llc.total_bytes,
           mb_format_bytes(cfg->caches.llc.total_bytes, b, sizeof b),
           mb_llc_source_name(cfg->caches.llc.source));
    printf("cache_resident: %s\n", cfg->cache_resident ? "yes" : "no");
    printf("threads: %d\ncpus:", cfg->nthreads);
    for (int t = 0; t < cfg->nthreads; t++)
        printf(" %d", cfg->cpu[t]);
    printf("\nthreads_how: %s\nphysical_cores: %d\n", cfg->threads_how, cfg->ncores);
    printf("reps: %d\nhugepages: %s\nbuffer: %s\nnuma: %s\nrandom_state: %llu\n", cfg->reps,
           mc_hugepages_name(cfg->hugepages), mc_buffer_kind_name(cfg->buffer), cfg->numa_desc,
           (unsigned long long)cfg->random_state);
    for (size_t s = 0; s < mc_scenario_count(); s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        if (sc->plan)
            sc->plan(stdout, mc_cli_conf(cfg->cli, sc));
    }
}

/* mb_threads_start's cleanup: the temporary result file goes. */
static void abort_out(void *out)
{
    mb_out_abort(out);
}

static int cmd_run(const mc_cmd_t *c)
{
    mc_config_t *cfg = c->cfg;
    char **pos = c->pos;
    int npos;
    char envmsg[512];
    if (mb_threads_env_check(envmsg, sizeof envmsg) != 0) {
        mb_error("%s", envmsg);
        return MB_EXIT_USAGE;
    }
    /* a scenario with its own command line: `mencal run NAME ...` */
    const int first = c->cmd.first + 1;
    const mc_scenario_t *own = first < c->cmd.argc ? mc_scenario_find(c->cmd.argv[first]) : NULL;
    if (own && own->cli) {
        mc_cmdline_t sub = { c->cmd.argc, c->cmd.argv, first };
        return own->cli(&sub, mb_signals_catch(false));
    }
    if (parse(c->cmd.argc - c->cmd.first, c->cmd.argv + c->cmd.first, cfg, c->cli, pos, &npos))
        return MB_EXIT_USAGE;
    if (cfg->o->help) {
        /* `mencal run NAME --help`: that scenario's own help */
        const mc_scenario_t *one = npos == 1 ? mc_scenario_find(pos[0]) : NULL;
        if (one)
            scenario_usage(stdout, one);
        else
            usage(stdout, c->cli);
        return 0;
    }
    if (cfg->o->version) {
        mb_print_version("mencal");
        return 0;
    }
    char names[256];
    mc_scenario_names(names, sizeof names);
    if (npos == 0) {
        mb_error("run: no scenario named; name one or more of %s, or 'all'", names);
        return MB_EXIT_USAGE;
    }
    static const mc_scenario_t *sel[64];
    size_t nsel = 0;
    bool all = false;
    for (int i = 0; i < npos; i++) {
        if (strcmp(pos[i], "all") == 0) {
            all = true;
            continue;
        }
        const mc_scenario_t *sc = mc_scenario_find(pos[i]);
        if (!sc) {
            mb_error("run: unknown scenario '%s'; valid scenarios: %s, all", pos[i], names);
            return MB_EXIT_USAGE;
        }
    }
    for (size_t s = 0; s < mc_scenario_count(); s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        bool want = all;
        for (int i = 0; i < npos && !want; i++)
            want = strcmp(pos[i], sc->name) == 0;
        if (want && nsel < 64)
            sel[nsel++] = sc;
    }
    if (check_scenario_options(c->cli, sel, nsel) || check_one_file_options(c->cli, sel, nsel))
        return MB_EXIT_USAGE;

    char msg[1024];
    cfg->sel = sel;
    cfg->nsel = nsel;
    cfg->running_all = all;
    if (cfg->o->plan && cfg->o->format == MB_FMT_CSV) {
        mb_error("--plan --format csv: a plan is written as text or json; use --format text or "
                 "--format json");
        return MB_EXIT_USAGE;
    }
    int rc = mc_config_resolve(cfg, msg, sizeof msg);
    if (cfg->o->plan) {     /* the verdicts above, as a document; nothing allocated */
        cfg->format = (mb_format_t)cfg->o->format;
        return mc_plan_report(cfg, sel, nsel, rc, msg, stdout);
    }
    if (rc) {
        mb_error("%s", msg);
        return rc;
    }
    for (size_t i = 0; i < cfg->nwarn; i++)
        mb_warn("%s", cfg->warn[i]);
    if (cfg->o->dry_run) {
        print_plan(cfg, sel, nsel);
        return 0;
    }

    mb_out_t out;
    if (mb_out_open(&out, cfg->o->output, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return MB_EXIT_RESOURCE;
    }
    /* before the first parallel region, so worker threads are counted */
    static mb_counters_t counters;
    if (mb_counters_init(&counters, cfg->counters_list, msg, sizeof msg) != 0) {
        mb_error("--counters: %s", msg);
        mb_out_abort(&out);
        return MB_EXIT_USAGE;
    }
    cfg->counters = &counters;
    if (cfg->counters_on && !counters.hw_available)
        mb_warn("--counters: hardware counters unavailable: %s; rusage figures only",
                counters.hw_why[0] ? counters.hw_why : "no reason given");

    static mb_sysinfo_t si;
    mb_sysinfo_collect(&si);
    /* a tunable glibc ignores would make a before/after measure nothing */
    const mb_fact_t *tc = mb_sysinfo_get(&si, "glibc_tunables_check");
    if (tc && tc->ok && strncmp(tc->value, "unknown", 7) == 0)
        mb_warn("GLIBC_TUNABLES: names %s", tc->value);
    static mb_affinity_t aff;
    (void)mb_threads_start(cfg->nthreads, 3, abort_out, &out);
    mc_team_record(cfg, &aff);
    char shortfall[256];
    bool short_team = mb_threads_shortfall(cfg->nthreads, aff.counted, shortfall,
                                           sizeof shortfall) != NULL;
    if (short_team) {
        /* the scenarios split their work by cfg->nthreads: follow the team
         * that really runs, so no slice is counted without being touched */
        mb_warn("%s", shortfall);
        cfg->nthreads = aff.counted;
        if (cfg->nthreads <= cfg->ncpus_allowed)
            cfg->oversub_threads[0] = '\0';
    }

    cfg->stop = mb_signals_catch(false);   /* polled by the scenarios */

    static mc_result_t res[64];
    const char *scen_names[64];
    for (size_t i = 0; i < nsel; i++) {
        mc_result_t *r = &res[i];
        mc_result_init(r, sel[i]);
        scen_names[i] = sel[i]->name;
        if (*cfg->stop) {
            r->skipped = true;
            r->complete = false;
            snprintf(r->why, sizeof r->why, "interrupted before it started");
            continue;
        }
        char why[256] = "";
        int sup = sel[i]->supported ? sel[i]->supported(cfg, why, sizeof why) : 0;
        if (sup) {
            r->skipped = true;
            snprintf(r->why, sizeof r->why, "%s", why);
            if (!all)
                r->status = sup;
            mb_warn("%s: cannot run here: %s", sel[i]->name, why);
            continue;
        }
        mb_note("running %s", sel[i]->name);
        int st = sel[i]->run(cfg, mc_cli_conf(c->cli, sel[i]), r);
        mc_restore_mask(cfg);
        if (st && !r->status)
            r->status = st;
        if (r->status)
            mb_error("%s: %s", sel[i]->name, r->why);
    }

    /* Whether the run was interrupted is decided once, here, when the
     * measuring is over: the file's "complete" and the exit code both
     * follow it.  A signal from now on stops nothing (all is measured):
     * it neither marks the written file incomplete nor fails the exit. */
    mc_run_t run = { .cfg = cfg, .res = res, .nres = nsel, .subcommand = "run",
                     .scenarios = scen_names, .nscenarios = nsel, .stopped = *cfg->stop != 0 };
    static mb_result_t result;
    memset(&result, 0, sizeof result);
    result.tool = "mencal";
    result.hot_loops = MB_HOT_FIXED_WIDTH;
    result.argc = c->cmd.argc;
    result.argv = c->cmd.argv;
    result.affinity = &aff;
    result.sysinfo = &si;
    for (size_t i = 0; i < cfg->nwarn; i++)
        mb_result_warn(&result, "%s", cfg->warn[i]);
    if (short_team)
        mb_result_warn(&result, "%s", shortfall);
    for (size_t i = 0; i < cfg->nrecord; i++)
        mb_result_warn(&result, "%s", cfg->record[i]);
    rc = mc_render(&run, &result, out.f);
    if (rc) {
        mb_error("writing the result failed: %s", strerror(-rc));
        mb_out_abort(&out);
        return MB_EXIT_RESOURCE;
    }
    if (mb_out_commit(&out, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        return MB_EXIT_RESOURCE;
    }
    int code = 0;
    for (size_t i = 0; i < nsel && !code; i++)
        code = res[i].status;
    if (!code && !result.complete)
        code = MB_EXIT_FAIL;
    if (run.stopped)
        mb_warn("interrupted: the result holds what was measured so far (complete: false)");
    for (size_t i = 0; i < nsel; i++)
        mc_result_free(&res[i]);
    mb_counters_finish(&counters);
    return code;
}

static int cmd_env(const mc_cmd_t *c)
{
    mc_config_t *cfg = c->cfg;
    int npos;
    if (parse(c->cmd.argc - c->cmd.first, c->cmd.argv + c->cmd.first, cfg, c->cli, c->pos, &npos))
        return MB_EXIT_USAGE;
    if (npos) {
        mb_error("env: unexpected argument '%s'", c->pos[0]);
        return MB_EXIT_USAGE;
    }
    cfg->format = (mb_format_t)cfg->o->format;
    return mc_env_main(cfg, &c->cmd);
}

static const struct {
    const char *name;
    int (*fn)(const mc_cmd_t *);
} commands[] = {
    { "list", cmd_list },
    { "run", cmd_run },
    { "env", cmd_env },
};

int main(int argc, char **argv)
{
    mb_log_init("mencal");
    if (argc < 2) {
        mb_error("no command; use 'mencal list', 'mencal run SCENARIO...|all' or 'mencal env' "
                 "(mencal --help)");
        return MB_EXIT_USAGE;
    }
    static mc_config_t cfg;
    static mc_cli_t cli;
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    if (!pos || mc_cli_init(&cli) != 0) {
        free(pos);
        mb_error("out of memory");
        return MB_EXIT_RESOURCE;
    }
    const char *cmd = argv[1];
    int rc = MB_EXIT_USAGE;
    bool found = false;
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout, &cli);
        rc = 0, found = true;
    } else if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        mb_print_version("mencal");
        rc = 0, found = true;
    }
    for (size_t i = 0; !found && i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0) {
            found = true;
            mc_cmd_t c = { { argc, argv, 1 }, &cfg, &cli, pos };
            rc = commands[i].fn(&c);
        }
    if (!found)
        mb_error("unknown command '%s'; use list, run or env (mencal --help)", cmd);
    free(pos);
    mc_cli_free(&cli);
    return rc;
}
