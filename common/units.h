/* units: the one table of the units memsuite's tools write, each with its
 * base unit and scale, and the direction ("better") each base quantity
 * has by default.  common/report.c states these on every metric of a
 * memsuite/result/2 document; nothing else in C knows a unit's meaning.
 *
 * Contract:
 *   - a value v in unit u is v * scale(u) in base(u): MB/s -> B/s x 1e6,
 *     MiB/s -> B/s x 1048576, ns -> s x 1e-9, "%" -> fraction x 0.01;
 *   - the base units: "B/s" (bandwidth), "s" (time), "B" (bytes),
 *     "fraction" (a ratio, 1 = 100%), "Hz" (per second), "count";
 *   - a unit the table does not know (including "") is its own base,
 *     scale 1, no direction;
 *   - the default direction: bandwidth higher, time lower, everything
 *     else none (a metric overrides it: mb_metric_better in report.h);
 *   - the table itself is units.def, which the analyser
 *     (scripts/analysis/memsuite_analysis/units.py) reads too: one table
 *     for C and Python. */
#ifndef MB_UNITS_H
#define MB_UNITS_H

#include <stdbool.h>

/* A metric's direction.  DEFAULT (0, what a zeroed metric holds) takes
 * the direction of the unit's base quantity; NONE says there is none (a
 * count, a configuration value, a calibration). */
typedef enum { MB_BETTER_DEFAULT = 0, MB_BETTER_NONE, MB_BETTER_HIGHER, MB_BETTER_LOWER } mb_better_t;

typedef struct {
    const char *unit;    /* as a tool writes it: "MB/s" */
    const char *base;    /* its base unit: "B/s" */
    double scale;        /* value x scale = value in base */
} mb_unit_t;

/* The entry for unit, or NULL when the table does not know it (NULL, "",
 * "faults/op" ...). */
const mb_unit_t *mb_unit_find(const char *unit);
/* The base unit of unit: the table's, else unit itself ("" for NULL). */
const char *mb_unit_base(const char *unit);
/* The scale of unit to its base: the table's, else 1. */
double mb_unit_scale(const char *unit);
/* The direction of a metric in unit whose own choice is `b`: b itself
 * unless it is DEFAULT, then the base quantity's (HIGHER, LOWER or NONE);
 * never DEFAULT. */
mb_better_t mb_unit_better(const char *unit, mb_better_t b);
/* "higher", "lower", or NULL for NONE and DEFAULT. */
const char *mb_better_name(mb_better_t b);

#endif
