"""Exit codes: the mirror of common/exitcodes.h (enum mb_exit) and of
scripts/lib/common.sh's MS_EX_*."""

OK = 0              # ran, results valid
FAIL = 1            # ran, and what it judged failed
USAGE = 2           # bad command line or input file
RESOURCE = 3        # memory, permission, device or file unavailable
UNBUILT = 4         # the feature was not built in
BUSY = 5            # check, cluster: the node is busy; nothing was judged
INTERRUPTED = 130   # SIGINT/SIGTERM
