/* units: the unit table and the base quantities' directions (contract in
 * units.h). */
#include "units.h"

#include <stddef.h>
#include <string.h>

static const mb_unit_t units[] = {
    /* bandwidth */
    { "B/s", "B/s", 1.0 },
    { "KB/s", "B/s", 1e3 },
    { "MB/s", "B/s", 1e6 },
    { "GB/s", "B/s", 1e9 },
    { "TB/s", "B/s", 1e12 },
    { "KiB/s", "B/s", 1024.0 },
    { "MiB/s", "B/s", 1048576.0 },
    { "GiB/s", "B/s", 1073741824.0 },
    /* time */
    { "s", "s", 1.0 },
    { "ms", "s", 1e-3 },
    { "us", "s", 1e-6 },
    { "ns", "s", 1e-9 },
    /* bytes */
    { "B", "B", 1.0 },
    { "bytes", "B", 1.0 },
    { "KiB", "B", 1024.0 },
    { "MiB", "B", 1048576.0 },
    { "GiB", "B", 1073741824.0 },
    /* ratios */
    { "fraction", "fraction", 1.0 },
    { "ratio", "fraction", 1.0 },
    { "%", "fraction", 0.01 },
    { "percent", "fraction", 0.01 },
    /* per second */
    { "Hz", "Hz", 1.0 },
    { "1/s", "Hz", 1.0 },
    { "MHz", "Hz", 1e6 },
    { "GHz", "Hz", 1e9 },
    /* counts */
    { "count", "count", 1.0 },
};
#define NUNITS (sizeof units / sizeof units[0])

/* The direction of each base quantity; a base not listed has none. */
static const struct {
    const char *base;
    mb_better_t better;
} bases[] = {
    { "B/s", MB_BETTER_HIGHER },
    { "s", MB_BETTER_LOWER },
};
#define NBASES (sizeof bases / sizeof bases[0])

const mb_unit_t *mb_unit_find(const char *unit)
{
    for (size_t i = 0; unit && i < NUNITS; i++)
        if (strcmp(unit, units[i].unit) == 0)
            return &units[i];
    return NULL;
}

const char *mb_unit_base(const char *unit)
{
    const mb_unit_t *u = mb_unit_find(unit);
    return u ? u->base : unit ? unit : "";
}

double mb_unit_scale(const char *unit)
{
    const mb_unit_t *u = mb_unit_find(unit);
    return u ? u->scale : 1.0;
}

mb_better_t mb_unit_better(const char *unit, mb_better_t b)
{
    if (b != MB_BETTER_DEFAULT)
        return b;
    const char *base = mb_unit_base(unit);
    for (size_t i = 0; i < NBASES; i++)
        if (strcmp(base, bases[i].base) == 0)
            return bases[i].better;
    return MB_BETTER_NONE;
}

const char *mb_better_name(mb_better_t b)
{
    return b == MB_BETTER_HIGHER ? "higher" : b == MB_BETTER_LOWER ? "lower" : NULL;
}
