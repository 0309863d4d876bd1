/* memsuite-facts: the environment facts memsuite records, from the one C
 * collector (common/facts over common/sysinfo, dimms, virt, sizing), for
 * `memsuite env`, a run directory's env.json and every script that needs
 * a machine fact (the bash side reads them with jq, it collects none).
 *
 *   memsuite-facts [--only GROUP[,GROUP...]]          text: one line per fact,
 *                                                     "verdict key value", fix lines
 *   memsuite-facts --json [--only GROUP[,GROUP...]]   the memsuite/facts/1 document
 *   memsuite-facts --env [--profile NAME] [--json] [--only ...]
 *                                   the env document (memsuite/env/1): the facts,
 *                                   memsuite's version and the applied profile
 *   memsuite-facts --throttle-verdict FILE [--threshold PCT]
 *                                   "ok|warn|unavailable<TAB>detail": common/cpufreq's
 *                                   verdict on the frequency samples memsuite run took
 *                                   around a cell (t_s, kHz, throttle count a line)
 *
 * The groups: host memory virtualization governor smt thp numa dimms
 * counters tunables frequency (--only collects just those: dmidecode, numactl and perf are
 * not run for a `--only host` question).  MEMSUITE_SYSFS, MEMSUITE_PROCFS,
 * MEMSUITE_LLC and MEMSUITE_ASSUME_ROOT are honoured as by the tools.
 * Exit status: 0 the facts were printed (an unavailable fact is a line,
 * not a failure), 2 usage, 3 the output could not be written. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildinfo.h"
#include "cpufreq.h"
#include "exitcodes.h"
#include "facts.h"
#include "log.h"

static const char usage[] =
    "Usage: memsuite-facts [--json] [--only GROUP[,GROUP...]] [--env [--profile NAME]]\n"
    "       memsuite-facts --throttle-verdict FILE [--threshold PCT]\n"
    "Print the environment facts memsuite records, each with a verdict (ok, warn,\n"
    "unavailable), the reason and the command that fixes it; --json prints the\n"
    "memsuite/facts/1 document (docs/results-format.md).\n"
    "Groups: host memory virtualization governor smt thp numa dimms build counters tunables frequency.\n"
    "--throttle-verdict: the frequency and throttle verdict on FILE's samples\n"
    "(\"t_s<TAB>kHz<TAB>throttle count\" a line, as memsuite run takes them; a drop of\n"
    "more than PCT percent, default 10, below the first sample warns).\n"
    "--env: the env document (memsuite/env/1): the facts, memsuite's version and the\n"
    "memsuite profile applied now (--profile NAME; none without it), itself a fact.\n"
    "A helper of scripts/memsuite.  Exit status: 0 printed, 2 usage, 3 write failed.\n";

/* The verdict on the samples in path: "status<TAB>detail" on stdout.  A
 * line of another shape is not a sample (skipped). */
static int throttle_verdict(const char *path, double pct)
{
    static const char *const status[] = { "ok", "warn", "unavailable" };
    char shown[256];
    /* non-blocking: a FIFO or a device named here must not hang the run */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        mb_error("--throttle-verdict: cannot read '%s': %s", mb_shown(path, 200, shown, sizeof shown),
                 fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return MB_EXIT_RESOURCE;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        mb_error("--throttle-verdict: cannot read '%s': %s", mb_shown(path, 200, shown, sizeof shown),
                 strerror(errno));
        return MB_EXIT_RESOURCE;
    }
    mb_freq_sample_t *s = NULL;
    int n = 0, cap = 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            mb_freq_sample_t *grown = realloc(s, (size_t)cap * sizeof *s);
            if (!grown) {
                free(s);
                fclose(f);
                mb_error("--throttle-verdict: out of memory at sample %d", n);
                return MB_EXIT_RESOURCE;
            }
            s = grown;
        }
        if (mb_freq_parse_sample(line, &s[n]) == 0)
            n++;
    }
    fclose(f);
    mb_freq_verdict_t v;
    mb_freq_verdict(s, n, pct, &v);
    free(s);
    const char *text = v.text;
    if (v.status == MB_FREQ_UNAVAILABLE && strncmp(text, "unavailable: ", 13) == 0)
        text += 13;
    printf("%s\t%s\n", status[v.status], text);
    return fflush(stdout) == 0 && !ferror(stdout) ? MB_EXIT_OK : MB_EXIT_RESOURCE;
}

/* The value an option takes, as its message names it; NULL for a flag. */
static const char *is_valued(const char *opt)
{
    static const struct { const char *name, *value; } valued[] = {
        { "--profile", "NAME, the applied memsuite profile" },
        { "--throttle-verdict", "FILE of frequency samples" },
        { "--threshold", "PCT, a percentage from 0 to 100" },
    };
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++)
        if (strcmp(opt, valued[i].name) == 0)
            return valued[i].value;
    return NULL;
}

int main(int argc, char **argv)
{
    const char *samples = NULL, *profile = NULL;
    bool env = false;
    double pct = 10;
    bool json = false, threshold_given = false;
    const char *only = NULL;

    mb_log_init("memsuite-facts");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--only") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                mb_error("--only needs a value: GROUP[,GROUP...] of %s", mb_facts_groups());
                return MB_EXIT_USAGE;
            }
            only = argv[++i];
        } else if (strcmp(argv[i], "--env") == 0) {
            env = true;
        } else if (is_valued(argv[i]) && (i + 1 >= argc || !argv[i + 1][0])) {
            mb_error("%s needs a value: %s", argv[i], is_valued(argv[i]));
            return MB_EXIT_USAGE;
        } else if (strcmp(argv[i], "--profile") == 0) {
            profile = argv[++i];
        } else if (strcmp(argv[i], "--throttle-verdict") == 0) {
            samples = argv[++i];
        } else if (strcmp(argv[i], "--threshold") == 0) {
            threshold_given = true;
            char *end;
            pct = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(pct >= 0 && pct <= 100)) {
                mb_error("--threshold: invalid value '%.100s'; use a percentage from 0 to 100",
                         argv[i]);
                return MB_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return MB_EXIT_OK;
        } else if (strcmp(argv[i], "--version") == 0) {
            mb_print_version("memsuite-facts");
            return MB_EXIT_OK;
        } else {
            mb_error("unknown argument '%.100s'; accepted: --json, --only GROUP[,GROUP...], "
                     "--env [--profile NAME], --throttle-verdict FILE [--threshold PCT], --help",
                     argv[i]);
            fputs(usage, stderr);
            return MB_EXIT_USAGE;
        }
    }
    if (threshold_given && !samples) {
        mb_error("--threshold is the drop --throttle-verdict warns at; it needs --throttle-verdict FILE");
        return MB_EXIT_USAGE;
    }
    if (samples && (json || env || only)) {
        mb_error("--throttle-verdict judges a file of samples; it does not go with --json, --env or --only");
        return MB_EXIT_USAGE;
    }
    if (samples)
        return throttle_verdict(samples, pct);
    static mb_facts_t d;   /* large: static */
    char why[300];
    if (mb_facts_collect(&d, only, why, sizeof why) != 0) {
        mb_error("--only: %s", why);
        return MB_EXIT_USAGE;
    }
    if (profile && !env) {
        mb_facts_free(&d);
        mb_error("--profile names the applied profile of the env document; it needs --env");
        return MB_EXIT_USAGE;
    }
    if (env)
        mb_facts_add_profile(&d, profile);
    int rc = 0;
    if (json)
        rc = mb_facts_json(&d, stdout);
    else
        mb_facts_text(&d, stdout);
    mb_facts_free(&d);
    if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
        mb_error("writing the facts failed");
        return MB_EXIT_RESOURCE;
    }
    return MB_EXIT_OK;
}
