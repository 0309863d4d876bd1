/* damon: DAMON's running monitors and their schemes, from sysfs. */
#include "damon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"

#define KDAMONDS "/kernel/mm/damon/admin/kdamonds"

/* <sysfs>/<rel> as one line into buf; false when it cannot be read. */
static bool sysfs_line(const char *rel, char *buf, size_t buflen)
{
    char path[4096];
    mb_sysfs_path(path, sizeof path, rel);
    return mb_read_line(path, buf, buflen) >= 0;
}

/* Appends to out (bounded), with a separator when out is not empty. */
static void append(char *out, size_t outlen, const char *sep, const char *s)
{
    size_t used = strlen(out);
    if (used + 1 >= outlen)
        return;
    snprintf(out + used, outlen - used, "%s%s", used ? sep : "", s);
}

/* The schemes of kdamond k, context 0: "pageout at age >= 12 x 5 s, ...". */
static void schemes(int k, char *out, size_t outlen)
{
    char rel[160], line[64], age[64], aggr[64], one[160];
    int n = 0;
    snprintf(rel, sizeof rel, KDAMONDS "/%d/contexts/0/schemes/nr_schemes", k);
    if (sysfs_line(rel, line, sizeof line))
        n = atoi(line);
    snprintf(rel, sizeof rel, KDAMONDS "/%d/contexts/0/monitoring_attrs/intervals/aggr_us", k);
    if (!sysfs_line(rel, aggr, sizeof aggr))
        aggr[0] = '\0';
    for (int s = 0; s < n && s < 16; s++) {
        snprintf(rel, sizeof rel, KDAMONDS "/%d/contexts/0/schemes/%d/action", k, s);
        if (!sysfs_line(rel, line, sizeof line))
            continue;
        snprintf(rel, sizeof rel, KDAMONDS "/%d/contexts/0/schemes/%d/access_pattern/age/min", k, s);
        if (sysfs_line(rel, age, sizeof age) && atol(age) > 0 && aggr[0])
            snprintf(one, sizeof one, "%s at age >= %s x %g s", line, age, atof(aggr) / 1e6);
        else
            snprintf(one, sizeof one, "%s", line);
        append(out, outlen, ", ", one);
    }
    if (!out[0])
        snprintf(out, outlen, "no scheme: monitoring only");
}

void mb_damon_read(mb_damon_t *out)
{
    static const char *const modules[] = { "damon_reclaim", "damon_lru_sort" };
    char line[64], rel[160], ops[32], sch[240], one[320];
    memset(out, 0, sizeof *out);
    int n = 0;
    if (sysfs_line(KDAMONDS "/nr_kdamonds", line, sizeof line)) {
        out->interface = true;
        n = atoi(line);
    }
    for (int k = 0; k < n && k < 64; k++) {
        snprintf(rel, sizeof rel, KDAMONDS "/%d/state", k);
        if (!sysfs_line(rel, line, sizeof line) || strcmp(line, "on") != 0)
            continue;
        snprintf(rel, sizeof rel, KDAMONDS "/%d/contexts/0/operations", k);
        if (!sysfs_line(rel, ops, sizeof ops))
            snprintf(ops, sizeof ops, "operations unknown");
        sch[0] = '\0';
        schemes(k, sch, sizeof sch);
        snprintf(one, sizeof one, "kdamond %d on (%s; %s)", k, ops, sch);
        append(out->text, sizeof out->text, "; ", one);
        out->running++;
    }
    for (size_t m = 0; m < sizeof modules / sizeof modules[0]; m++) {
        snprintf(rel, sizeof rel, "/module/%s/parameters/enabled", modules[m]);
        if (!sysfs_line(rel, line, sizeof line))
            continue;
        out->interface = true;
        if (line[0] == 'Y' || line[0] == 'y' || line[0] == '1') {
            snprintf(one, sizeof one, "%s enabled", modules[m]);
            append(out->text, sizeof out->text, "; ", one);
            out->running++;
        }
    }
    if (!out->interface)
        snprintf(out->text, sizeof out->text, "%s", MB_DAMON_ABSENT);
    else if (!out->running)
        snprintf(out->text, sizeof out->text, "off");
}
