/* signals: the one way a memsuite tool asks to be stopped cleanly.
 *
 * mb_signals_catch installs a handler for SIGINT and SIGTERM (a batch
 * system's kill, `timeout`) that only sets a flag; the tool polls the
 * flag between rounds, stops, removes its temporary result file and exits
 * MB_EXIT_INTERRUPTED.  A SIGINT the tool inherits ignored stays ignored
 * (the POSIX convention for background jobs: a terminal's ^C to the
 * foreground group must not stop them); stop such a run with SIGTERM, or
 * start it with `env --default-signal=INT`.  SIGTERM is always caught.
 * With second_kills, the first signal resets the handler (SA_RESETHAND):
 * a second one ends the process as usual.  mb_signals_restore puts the
 * actions found back: SIGTERM default, SIGINT default or still ignored.
 * The state: the flag, and whether SIGINT was found ignored. */
#ifndef MB_SIGNALS_H
#define MB_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* Installs the handler; returns the flag it sets (0 until a signal). */
const volatile sig_atomic_t *mb_signals_catch(bool second_kills);
/* SIGTERM to its default action, SIGINT to its default or, when it was
 * found ignored, ignored (the flag stays). */
void mb_signals_restore(void);

#endif
