/* pagesize: sysconf's base page, sysfs's PMD huge page (see pagesize.h). */
#include "pagesize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sizing.h"

static bool power_of_two(size_t v)
{
    return v && (v & (v - 1)) == 0;
}

static size_t real_page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    /* Linux answers on every architecture it runs on; 4096 is the
     * smallest page any of them has, never larger than the real one. */
    return ps > 0 && power_of_two((size_t)ps) ? (size_t)ps : 4096;
}

size_t mb_page_size(void)
{
    size_t real = real_page_size();
    /* Test hook: see pagesize.h. */
    const char *hook = getenv("MEMSUITE_TEST_PAGE_SIZE");
    if (hook && *hook) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(hook, &end, 10);
        if (!errno && *end == '\0' && v <= (1ULL << 30) && power_of_two((size_t)v) &&
            (size_t)v % real == 0)
            return (size_t)v;
    }
    return real;
}

void mb_pmd_size(mb_pmd_t *out)
{
    char path[4096], line[64];
    size_t page = mb_page_size();
    memset(out, 0, sizeof *out);
    mb_sysfs_path(path, sizeof path, "/kernel/mm/transparent_hugepage/hpage_pmd_size");
    int rc = mb_read_line(path, line, sizeof line);
    if (rc == 0) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(line, &end, 10);
        if (!errno && end != line && *end == '\0' && power_of_two((size_t)v) && v >= page) {
            out->bytes = (size_t)v;
            out->from_sysfs = true;
            return;
        }
        char shown[80];
        mb_shown(line, 60, shown, sizeof shown);
        snprintf(out->why, sizeof out->why, "%.180s holds '%.60s', not a power of two of at "
                 "least a page", path, shown);
    } else {
        snprintf(out->why, sizeof out->why, "cannot read %.200s: %s (kernel without "
                 "transparent hugepages?)", path, strerror(-rc));
    }
    out->bytes = page * (page / 8);
}

size_t mb_huge_align(void)
{
    mb_pmd_t pmd;
    mb_pmd_size(&pmd);
    return pmd.bytes;
}

const char *mb_page_text(size_t bytes, char *buf, size_t buflen)
{
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    size_t u = 0;
    while (u + 1 < sizeof unit / sizeof unit[0] && bytes && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, buflen, "%zu %s", bytes, unit[u]);
    return buf;
}
