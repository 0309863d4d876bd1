/* signals: SIGINT/SIGTERM set one flag (signals.h). */
#include "signals.h"

#include <string.h>

static volatile sig_atomic_t mb_stop_flag;

static void mb_on_signal(int sig)
{
    (void)sig;
    mb_stop_flag = 1;
}

const volatile sig_atomic_t *mb_signals_catch(bool second_kills)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = mb_on_signal;
    sa.sa_flags = second_kills ? SA_RESETHAND : 0;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &mb_stop_flag;
}

void mb_signals_restore(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}
