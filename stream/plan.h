/* plan: turns the options into a checked run plan before anything is
 * allocated: element type and count, overflow-checked byte sizes, the 4x
 * LLC rule, the memory fit, kernels, threads, NUMA request, non-temporal
 * variant, huge pages, output format and the standard/tuned label.
 *
 * Size policy (the rule itself is mb_size_rule, common to every tool):
 *   - no -s: the build-time STREAM_ARRAY_SIZE, raised to 4x LLC when it
 *     is under it (a note), clamped to memory with a note;
 *   - -s auto: 4x LLC per array, clamped to memory with a note;
 *   - explicit -s: the user's decision; under 4x LLC it runs with a
 *     warning, labelled not-standard, or is refused (exit 2) with --strict
 *     (--allow-small is accepted and does nothing);
 *   - a size still under the rule after a clamp is treated the same way;
 *   - an explicit size that does not fit in MemAvailable: refused (exit 3). */
#ifndef ST_PLAN_H
#define ST_PLAN_H

#include <stddef.h>

#include "config.h"

/* Returns 0, or the exit code (2 usage, 3 resource, 4 not built) with msg
 * filled.  Warnings for a not-standard run are in p->reasons (printed by
 * the caller); tuned reasons are there too (marked by p->tuned). */
int st_plan_build(const st_options_t *o, st_plan_t *p, char *msg, size_t msglen);
/* The same under a split (stream_mpi; see st_split_t): the size options
 * give the aggregate (or, in star mode, every rank's) element count, p->n
 * is this rank's part, and the 4x LLC rule and memory fit are checked
 * for this host's share.  sp NULL is st_plan_build. */
int st_plan_build_split(const st_options_t *o, const st_split_t *sp, st_plan_t *p, char *msg,
                        size_t msglen);

/* After the NUMA request is applied (the CPU set may have shrunk): the
 * threads-versus-CPUs check, then the label. */
void st_plan_finish(st_plan_t *p);

/* Appends a reason; tuning reasons make the label "tuned". */
void st_plan_add_reason(st_plan_t *p, int tuning, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Bit set of which reasons are tuning (not printed as warnings). */
int st_plan_reason_is_tuning(const st_plan_t *p, size_t i);

#endif
