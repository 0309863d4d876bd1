/* threads: the OpenMP team a tool may start, checked before any parallel
 * region.
 *
 * libgomp reads OMP_NUM_THREADS and OMP_THREAD_LIMIT at load time and
 * trusts them: 100000 threads crash inside GOMP_parallel, and a thread it
 * cannot create ends the process with exit(1) ("libgomp: Thread creation
 * failed").  Every tool therefore (1) checks the variables up front with
 * mb_threads_env_check (a bad value is a usage error, exit 2, naming the
 * variable), and (2) starts its team once with mb_threads_start before the
 * measurement, which turns libgomp's fatal exit into a resource error
 * (exit 3) with a message. */
#ifndef MB_THREADS_H
#define MB_THREADS_H

#include <stddef.h>

#include "affinity.h"            /* MB_MAX_THREADS: the cap of -t and of the environment */

/* OMP_NUM_THREADS: unset, empty, or a comma-separated list (one count per
 * nesting level) of integers in 1..MB_MAX_THREADS.  OMP_THREAD_LIMIT:
 * unset, empty, or an integer in 1..LONG_MAX, the range libgomp accepts (a
 * limit above the cap is harmless; libgomp ignores a larger one).
 * OMP_PROC_BIND and OMP_PLACES: what the runtime made of them
 * (mb_threads_omp_verdict).  Returns 0, or 2 with msg naming the
 * variable, its value (escaped, shortened) and the accepted form. */
int mb_threads_env_check(char *msg, size_t msglen);

/* libgomp parses OMP_PROC_BIND and OMP_PLACES when it loads and ignores a
 * value it cannot use, with one "Invalid value" line on stderr; a result
 * would then record a binding that never happened.  The verdict compares
 * the values (NULL or blank: unset) with what the runtime did:
 * runtime_bind is omp_get_proc_bind() (0: false), runtime_places
 * omp_get_num_places().  A binding other than "false" that left the
 * runtime unbound, or places that made none (unless OMP_PROC_BIND is
 * "false", which drops them), are refused.  0, or 2 with msg. */
int mb_threads_omp_verdict(const char *bind_env, const char *places_env, int runtime_bind,
                           int runtime_places, char *msg, size_t msglen);

/* Runs one empty parallel region of n threads (n <= 0: the runtime's
 * current default), so the team exists before anything is measured
 * (libgomp keeps the threads for later regions).  When libgomp cannot
 * create a thread it prints its own line and calls exit(1); that exit is
 * caught: cleanup(ctx) runs (may be NULL; e.g. remove a temporary result
 * file), then "prog: error: cannot start N OpenMP threads ..." and
 * _exit(status) (3, a resource error; mbw's compatible mode passes 1).  Returns the number of threads the region ran
 * (fewer than n when OMP_THREAD_LIMIT or OMP_DYNAMIC says so). */
int mb_threads_start(int n, int status, void (*cleanup)(void *ctx), void *ctx);

/* When got < requested: a sentence saying why the runtime ran fewer
 * threads (OMP_THREAD_LIMIT=V, OMP_DYNAMIC=V, or the runtime), in buf;
 * otherwise NULL. */
const char *mb_threads_shortfall(int requested, int got, char *buf, size_t buflen);

#endif
