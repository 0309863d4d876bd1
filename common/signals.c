/* signals: SIGINT/SIGTERM set one flag (signals.h). */
#include "signals.h"

#include <string.h>

static volatile sig_atomic_t mb_stop_flag;
static bool mb_int_ignored;     /* SIGINT was ignored when first caught */

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
    struct sigaction now;
    memset(&now, 0, sizeof now);
    if (sigaction(SIGINT, NULL, &now) == 0 && now.sa_handler == SIG_IGN)
        mb_int_ignored = true;      /* a background job: it stays ignored */
    if (!mb_int_ignored)
        sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &mb_stop_flag;
}

void mb_signals_restore(void)
{
    signal(SIGINT, mb_int_ignored ? SIG_IGN : SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}
