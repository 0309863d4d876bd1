/* alloc-bridge: INTERIM.  Hands `mencal run alloc [alloc options]` to
 * mc_alloc_main() before main() runs.
 *
 * The alloc scenario has its own options (--allocators, a --threads list,
 * --block-sizes, ...) that mencal's common option table does not know, so
 * main() would refuse them.  Until main.c dispatches a scenario with its
 * own command line (requested: an `int (*cli)(int, char **, const
 * volatile sig_atomic_t *)` member in mc_scenario_t, called by cmd_run
 * when the first word after `run` names such a scenario), this
 * constructor does it.  Delete this file once main.c does. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "log.h"

/* The signal flag of an alloc run started here. */
static volatile sig_atomic_t alloc_stop;

static void on_signal(int sig)
{
    (void)sig;
    alloc_stop = 1;
}

__attribute__((constructor)) static void mc_alloc_bridge(int argc, char **argv, char **envp)
{
    (void)envp;
    if (argc < 3 || !argv || !argv[1] || !argv[2] || strcmp(argv[1], "run") != 0 ||
        strcmp(argv[2], "alloc") != 0)
        return;
    mb_log_init("mencal");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int rc = mc_alloc_main(argc - 2, argv + 2, &alloc_stop);
    fflush(NULL);
    exit(rc);
}
