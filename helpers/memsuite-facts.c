/* memsuite-facts: the environment facts memsuite records, from the one C
 * collector (common/facts over common/sysinfo, dimms, virt, sizing), for
 * `memsuite env`, a run directory's env.json and every script that needs
 * a machine fact (the bash side reads them with jq, it collects none).
 *
 *   memsuite-facts [--only GROUP[,GROUP...]]          text: one line per fact,
 *                                                     "verdict key value", fix lines
 *   memsuite-facts --json [--only GROUP[,GROUP...]]   the memsuite/facts/1 document
 *
 * The groups: host memory virtualization governor smt thp numa dimms
 * counters tunables frequency (--only collects just those: dmidecode, numactl and perf are
 * not run for a `--only host` question).  MEMSUITE_SYSFS, MEMSUITE_PROCFS,
 * MEMSUITE_LLC and MEMSUITE_ASSUME_ROOT are honoured as by the tools.
 * Exit status: 0 the facts were printed (an unavailable fact is a line,
 * not a failure), 2 usage, 3 the output could not be written. */
#include <stdio.h>
#include <string.h>

#include "buildinfo.h"
#include "exitcodes.h"
#include "facts.h"
#include "log.h"

static const char usage[] =
    "Usage: memsuite-facts [--json] [--only GROUP[,GROUP...]]\n"
    "Print the environment facts memsuite records, each with a verdict (ok, warn,\n"
    "unavailable), the reason and the command that fixes it; --json prints the\n"
    "memsuite/facts/1 document (docs/results-format.md).\n"
    "Groups: host memory virtualization governor smt thp numa dimms counters tunables frequency.\n"
    "A helper of scripts/memsuite.  Exit status: 0 printed, 2 usage, 3 write failed.\n";

int main(int argc, char **argv)
{
    bool json = false;
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
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return MB_EXIT_OK;
        } else if (strcmp(argv[i], "--version") == 0) {
            mb_print_version("memsuite-facts");
            return MB_EXIT_OK;
        } else {
            mb_error("unknown argument '%.100s'; accepted: --json, --only GROUP[,GROUP...], --help",
                     argv[i]);
            fputs(usage, stderr);
            return MB_EXIT_USAGE;
        }
    }
    static mb_facts_t d;   /* large: static */
    char why[300];
    if (mb_facts_collect(&d, only, why, sizeof why) != 0) {
        mb_error("--only: %s", why);
        return MB_EXIT_USAGE;
    }
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
