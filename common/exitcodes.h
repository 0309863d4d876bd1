/* exitcodes: the one list of exit statuses every memsuite tool uses in its
 * extended modes (docs/design: exit codes).  scripts/lib/common.sh (MS_EX_*) and the
 * analyser (memsuite_analysis/exitcodes.py) mirror them by name, and
 * tests/bats/memsuite-exitcodes.bats keeps the three lists, memsuite
 * help's line and docs/results-format.md's table in step.
 * Compatible modes keep the original program's statuses where scripts
 * depend on them (mbw exits 1 on usage errors) and say so in their man page. */
#ifndef MB_EXITCODES_H
#define MB_EXITCODES_H

enum mb_exit {
    MB_EXIT_OK = 0,           /* ran, results valid */
    MB_EXIT_FAIL = 1,         /* ran, but a run or validation failed */
    MB_EXIT_USAGE = 2,        /* bad command line or input file; nothing ran */
    MB_EXIT_RESOURCE = 3,     /* memory, permission, device or file unavailable */
    MB_EXIT_UNBUILT = 4,      /* the feature was not built in (NUMA=0, PAPI=0) */
    MB_EXIT_BUSY = 5,         /* check, cluster: the node is busy; nothing was judged */
    MB_EXIT_INTERRUPTED = 130 /* SIGINT/SIGTERM stopped the run; partial results kept */
};

#endif
