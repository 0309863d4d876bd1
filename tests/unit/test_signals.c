/* test_signals: the one SIGINT/SIGTERM helper: the flag, SA_RESETHAND
 * (a second signal kills), an inherited ignored SIGINT kept ignored,
 * and restoring the actions found. */
#include "check.h"
#include "signals.h"

#include <signal.h>
#include <string.h>

static void (*current(int sig))(int)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigaction(sig, NULL, &sa);
    return sa.sa_handler;
}

int main(void)
{
    /* the actions a terminal's command starts with, whatever this test
     * inherited (a harness run as a background job ignores SIGINT) */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const volatile sig_atomic_t *stop = mb_signals_catch(false);
    CHECK(stop && *stop == 0, "the flag starts at 0");
    CHECK(current(SIGINT) != SIG_DFL && current(SIGTERM) != SIG_DFL, "both signals caught");
    raise(SIGTERM);
    CHECK(*stop == 1, "SIGTERM sets the flag");
    CHECK(current(SIGTERM) != SIG_DFL, "without second_kills the handler stays");

    CHECK(mb_signals_catch(true) == stop, "one flag for every installation");
    raise(SIGINT);
    CHECK(*stop == 1 && current(SIGINT) == SIG_DFL && current(SIGTERM) != SIG_DFL,
          "second_kills: the first SIGINT resets its handler, so a second one kills");

    mb_signals_restore();
    CHECK(current(SIGINT) == SIG_DFL && current(SIGTERM) == SIG_DFL, "restore: default actions");

    signal(SIGINT, SIG_IGN);    /* a background job's inherited disposition */
    mb_signals_catch(true);
    CHECK(current(SIGINT) == SIG_IGN && current(SIGTERM) != SIG_DFL,
          "an ignored SIGINT stays ignored; SIGTERM is still caught");
    mb_signals_restore();
    CHECK(current(SIGINT) == SIG_IGN && current(SIGTERM) == SIG_DFL, "restore: SIGINT still ignored");
    return check_done();
}
