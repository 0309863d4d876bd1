/* test_units: the unit table (base unit and scale of each unit the tools
 * write), the default direction of each base quantity, a metric's own
 * direction, and units the table does not know. */
#include <math.h>
#include <stddef.h>

#include "check.h"
#include "units.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

typedef struct {
    const char *unit;
    const char *base;
    double scale;
    const char *better;   /* the default direction's name, NULL for none */
    int known;            /* 1: in the table */
} unit_case_t;

static const unit_case_t cases[] = {
    /* bandwidth: higher is better */
    { "B/s", "B/s", 1, "higher", 1 },
    { "KB/s", "B/s", 1e3, "higher", 1 },
    { "MB/s", "B/s", 1e6, "higher", 1 },        /* stream */
    { "GB/s", "B/s", 1e9, "higher", 1 },        /* mencal */
    { "TB/s", "B/s", 1e12, "higher", 1 },
    { "KiB/s", "B/s", 1024, "higher", 1 },
    { "MiB/s", "B/s", 1048576, "higher", 1 },   /* mbw */
    { "GiB/s", "B/s", 1073741824, "higher", 1 },
    /* time: lower is better */
    { "s", "s", 1, "lower", 1 },
    { "ms", "s", 1e-3, "lower", 1 },
    { "us", "s", 1e-6, "lower", 1 },
    { "ns", "s", 1e-9, "lower", 1 },            /* latency */
    /* sizes: no direction */
    { "B", "B", 1, NULL, 1 },
    { "bytes", "B", 1, NULL, 1 },
    { "KiB", "B", 1024, NULL, 1 },
    { "MiB", "B", 1048576, NULL, 1 },
    { "GiB", "B", 1073741824, NULL, 1 },
    /* ratios: no direction by default (a CV says lower itself) */
    { "fraction", "fraction", 1, NULL, 1 },
    { "ratio", "fraction", 1, NULL, 1 },
    { "%", "fraction", 0.01, NULL, 1 },
    { "percent", "fraction", 0.01, NULL, 1 },
    /* per second */
    { "Hz", "Hz", 1, NULL, 1 },
    { "1/s", "Hz", 1, NULL, 1 },
    { "MHz", "Hz", 1e6, NULL, 1 },
    { "GHz", "Hz", 1e9, NULL, 1 },
    { "count", "count", 1, NULL, 1 },
    /* not in the table: its own base, scale 1, no direction */
    { "faults/op", "faults/op", 1, NULL, 0 },
    { "misses/load", "misses/load", 1, NULL, 0 },
    { "GB/s per min", "GB/s per min", 1, NULL, 0 },
    { "", "", 1, NULL, 0 },
    { "mb/s", "mb/s", 1, NULL, 0 },             /* case matters: not MB/s */
    { "MB/s ", "MB/s ", 1, NULL, 0 },           /* nor does a trailing blank match */
};

static void check_case(const unit_case_t *c)
{
    const mb_unit_t *u = mb_unit_find(c->unit);
    CHECK((u != NULL) == c->known, "'%s': %s the table", c->unit, c->known ? "in" : "not in");
    CHECK_EQ_STR(mb_unit_base(c->unit), c->base, c->unit);
    double sc = mb_unit_scale(c->unit);
    CHECK(sc == c->scale, "'%s': scale %.17g (got %.17g)", c->unit, c->scale, sc);
    const char *b = mb_better_name(mb_unit_better(c->unit, MB_BETTER_DEFAULT));
    CHECK((b == NULL && c->better == NULL) || (b && c->better && strcmp(b, c->better) == 0),
          "'%s': default direction %s (got %s)", c->unit, c->better ? c->better : "none",
          b ? b : "none");
}

/* Every entry of the table is found by its own name and converts to a
 * base that is itself in the table with scale 1 (no chain of bases). */
static void check_bases(void)
{
    for (size_t i = 0; i < LEN(cases); i++) {
        if (!cases[i].known)
            continue;
        const mb_unit_t *u = mb_unit_find(cases[i].unit);
        const mb_unit_t *b = u ? mb_unit_find(u->base) : NULL;
        CHECK(b && strcmp(b->base, u->base) == 0 && b->scale == 1,
              "'%s': its base '%s' is a base unit (scale 1)", cases[i].unit, u ? u->base : "?");
    }
}

/* A metric's own direction wins over its unit's, whatever the unit. */
static void check_override(void)
{
    static const struct {
        const char *unit;
        mb_better_t own;
        mb_better_t want;
    } o[] = {
        { "fraction", MB_BETTER_LOWER, MB_BETTER_LOWER },   /* a CV */
        { "ns", MB_BETTER_NONE, MB_BETTER_NONE },           /* a calibration */
        { "GB/s", MB_BETTER_LOWER, MB_BETTER_LOWER },
        { "1/s", MB_BETTER_HIGHER, MB_BETTER_HIGHER },      /* operations per second */
        { "", MB_BETTER_LOWER, MB_BETTER_LOWER },
        { "GB/s", MB_BETTER_DEFAULT, MB_BETTER_HIGHER },
        { "bytes", MB_BETTER_DEFAULT, MB_BETTER_NONE },
    };
    for (size_t i = 0; i < LEN(o); i++)
        CHECK(mb_unit_better(o[i].unit, o[i].own) == o[i].want, "'%s' with its own direction %d: %d",
              o[i].unit, (int)o[i].own, (int)o[i].want);
}

static void check_null(void)
{
    CHECK(mb_unit_find(NULL) == NULL, "NULL unit: not in the table");
    CHECK_EQ_STR(mb_unit_base(NULL), "", "NULL unit: base \"\"");
    CHECK(mb_unit_scale(NULL) == 1, "NULL unit: scale 1");
    CHECK(mb_unit_better(NULL, MB_BETTER_DEFAULT) == MB_BETTER_NONE, "NULL unit: no direction");
    CHECK(mb_better_name(MB_BETTER_DEFAULT) == NULL && mb_better_name(MB_BETTER_NONE) == NULL,
          "DEFAULT and NONE have no name");
    CHECK_EQ_STR(mb_better_name(MB_BETTER_HIGHER), "higher", "HIGHER is \"higher\"");
    CHECK_EQ_STR(mb_better_name(MB_BETTER_LOWER), "lower", "LOWER is \"lower\"");
}

int main(void)
{
    for (size_t i = 0; i < LEN(cases); i++)
        check_case(&cases[i]);
    check_bases();
    check_override();
    check_null();
    return check_done();
}
