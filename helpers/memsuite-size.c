/* memsuite-size: the C size grammar and LLC detector (common/sizing) for
 * the bash side, so scripts/memsuite and the tools can never disagree on
 * what "1.5G" means or how large the last-level cache is.
 *
 *   memsuite-size SIZE...   one line per SIZE: "ok BYTES" (mb_parse_size)
 *                           or "error MESSAGE"
 *   memsuite-size --llc     the LLC as the tools detect it (MEMSUITE_LLC,
 *                           sysfs, sysconf), one "key value" line each:
 *                           bytes, source, level, instances, note; or
 *                           "error MESSAGE" when MEMSUITE_LLC does not parse
 *
 * Every word but --llc, --help and --version is a SIZE ("-5" included, so
 * the answer is the grammar's).  Messages are one line (the grammar quotes
 * the text escaped).  Exit status (common/exitcodes.h): 0 all answered,
 * 2 a SIZE or MEMSUITE_LLC did not parse, or no argument. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildinfo.h"
#include "exitcodes.h"
#include "log.h"
#include "sizing.h"

static const char usage[] =
    "Usage: memsuite-size SIZE...    print \"ok BYTES\" or \"error MESSAGE\" per SIZE\n"
    "       memsuite-size --llc      print the last-level cache: bytes, source, level,\n"
    "                                instances and note, one \"key value\" line each\n"
    "       memsuite-size --human BYTES...  each byte count as people read it (1.5 GiB)\n"
    "A helper of scripts/memsuite: the tools' size grammar (512MiB, 2G, 64KB, 1e9)\n"
    "and LLC detection (MEMSUITE_LLC, then sysfs, then sysconf).\n"
    "Exit status: 0 ok, 2 a SIZE or MEMSUITE_LLC did not parse (or no argument).\n";

static int print_llc(void)
{
    mb_llc_t llc;
    char err[512];

    if (mb_llc_detect(NULL, &llc, err, sizeof err) != 0) {
        printf("error %s\n", err);
        return MB_EXIT_USAGE;
    }
    printf("bytes %zu\nsource %s\nlevel %u\ninstances %u\nnote %s\n", llc.total_bytes,
           mb_llc_source_name(llc.source), llc.level, llc.instances, llc.note);
    return MB_EXIT_OK;
}

int main(int argc, char **argv)
{
    int rc = MB_EXIT_OK;

    mb_log_init("memsuite-size");
    if (argc < 2) {
        fputs(usage, stderr);
        return MB_EXIT_USAGE;
    }
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(usage, stdout);
        return MB_EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        mb_print_version("memsuite-size");
        return MB_EXIT_OK;
    }
    if (argc == 2 && strcmp(argv[1], "--llc") == 0)
        return print_llc();
    if (strcmp(argv[1], "--human") == 0) {   /* byte counts as people read them */
        for (int i = 2; i < argc; i++) {
            char *end, buf[32];
            errno = 0;
            unsigned long long b = strtoull(argv[i], &end, 10);
            if (*argv[i] < '0' || *argv[i] > '9' || *end || errno) {
                printf("error '%s' is not a byte count (digits only)\n", argv[i]);
                rc = MB_EXIT_USAGE;
                continue;
            }
            printf("%s\n", mb_format_bytes((size_t)b, buf, sizeof buf));
        }
        return rc;
    }
    for (int i = 1; i < argc; i++) {
        size_t bytes;
        char err[512];
        if (mb_parse_size(argv[i], &bytes, err, sizeof err) == 0) {
            printf("ok %zu\n", bytes);
        } else {
            printf("error %s\n", err);
            rc = MB_EXIT_USAGE;
        }
    }
    return rc;
}
