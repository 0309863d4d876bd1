/* thp: AnonHugePages of a buffer's range from /proc/self/smaps. */
#include "thp.h"
#include "factfile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* "7f00-7f80 rw-p ..." starts a mapping; "Rss:   4 kB" is a field: the
 * first word of a header has a dash and no colon. */
static bool is_header(const char *line, uintptr_t *lo, uintptr_t *hi)
{
    size_t tok = strcspn(line, " \n");
    if (!memchr(line, '-', tok) || memchr(line, ':', tok))
        return false;
    return sscanf(line, "%" SCNxPTR "-%" SCNxPTR, lo, hi) == 2;
}

int mb_thp_measure_ranges(const char *smaps, const void *const *p, const size_t *bytes, int n,
                          mb_thp_t *out)
{
    memset(out, 0, sizeof *out);
    size_t range = 0;
    for (int k = 0; k < n; k++)
        range += bytes[k];
    out->range_bytes = range;
    out->exact = true;
    FILE *f = mb_fact_fopen(smaps);
    if (!f) {
        int e = errno;
        snprintf(out->why, sizeof out->why, "cannot read %s: %s", smaps, mb_fact_strerror(e));
        return -e;
    }
    bool inside = false, any = false;
    unsigned long long huge_kib = 0, rss_kib = 0, v;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        uintptr_t s, e;
        if (is_header(line, &s, &e)) {
            /* a mapping overlapping any range counts once */
            inside = false;
            for (int k = 0; k < n; k++) {
                const uintptr_t lo = (uintptr_t)p[k], hi = lo + bytes[k];
                if (s < hi && e > lo) {
                    inside = true;
                    if (s < lo || e > hi)
                        out->exact = false;
                }
            }
            if (inside) {
                any = true;
                out->mapping_bytes += (size_t)(e - s);
            }
            continue;
        }
        if (!inside)
            continue;
        if (sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
            huge_kib += v;
        else if (sscanf(line, "Rss: %llu kB", &v) == 1)
            rss_kib += v;
    }
    fclose(f);
    if (!any) {
        snprintf(out->why, sizeof out->why, "no mapping in %s covers the buffer", smaps);
        return -ENOENT;
    }
    out->anon_huge_bytes = (size_t)(huge_kib * 1024);
    out->rss_bytes = (size_t)(rss_kib * 1024);
    out->share = range ? (double)out->anon_huge_bytes / (double)range : 0.0;
    if (out->share > 1.0)
        out->share = 1.0;
    out->share_resident = rss_kib ? (double)huge_kib / (double)rss_kib : 0.0;
    if (out->share_resident > 1.0)
        out->share_resident = 1.0;
    out->valid = true;
    return 0;
}

int mb_thp_measure_file(const char *smaps, const void *p, size_t bytes, mb_thp_t *out)
{
    return mb_thp_measure_ranges(smaps, &p, &bytes, 1, out);
}

int mb_thp_measure(const void *p, size_t bytes, mb_thp_t *out)
{
    return mb_thp_measure_file("/proc/self/smaps", p, bytes, out);
}
