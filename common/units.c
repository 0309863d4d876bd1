/* units: the unit table and the base quantities' directions (contract in
 * units.h). */
#include "units.h"

#include <stddef.h>
#include <string.h>

static const mb_unit_t units[] = {
#define MB_UNIT(u, b, s) { u, b, s },
#define MB_BASE_BETTER(b, d)
#include "units.def"
#undef MB_UNIT
#undef MB_BASE_BETTER
};
#define NUNITS (sizeof units / sizeof units[0])

/* The direction of each base quantity; a base not listed has none. */
static const struct {
    const char *base;
    mb_better_t better;
} bases[] = {
#define MB_UNIT(u, b, s)
#define MB_BASE_BETTER(b, d) { b, MB_BETTER_##d },
#include "units.def"
#undef MB_UNIT
#undef MB_BASE_BETTER
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
