/* signals: the one way a memsuite tool asks to be stopped cleanly.
 *
 * mb_signals_catch installs a handler for SIGINT and SIGTERM (a batch
 * system's kill, `timeout`) that only sets a flag; the tool polls the
 * flag between rounds, stops, removes its temporary result file and exits
 * MB_EXIT_INTERRUPTED.  The handler is installed even when the parent
 * ignored SIGINT (a background job), so `kill -INT` stops a scripted run.
 * With second_kills, the first signal resets the handler (SA_RESETHAND):
 * a second one ends the process as usual.  mb_signals_restore puts the
 * default actions back.  The flag is this module's only state. */
#ifndef MB_SIGNALS_H
#define MB_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* Installs the handler; returns the flag it sets (0 until a signal). */
const volatile sig_atomic_t *mb_signals_catch(bool second_kills);
/* SIGINT and SIGTERM back to their default actions (the flag stays). */
void mb_signals_restore(void);

#endif
