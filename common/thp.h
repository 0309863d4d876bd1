/* thp: how much of a buffer the kernel backed with transparent huge
 * pages, read back from /proc/self/smaps (AnonHugePages and Rss of the
 * mappings that overlap the buffer).  Every tool reports this share so a
 * THP policy change (or --hugepages) shows up in the result, whatever the
 * advice given.
 *
 * The process's own mappings are read from the real /proc (MEMSUITE_PROCFS
 * does not apply: smaps is about this process).  mb_thp_measure_file reads
 * a given file instead, for tests. */
#ifndef MB_THP_H
#define MB_THP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool valid;                /* false: why says what failed */
    char why[160];
    size_t range_bytes;        /* bytes asked about */
    size_t anon_huge_bytes;    /* AnonHugePages summed over overlapping mappings */
    size_t rss_bytes;          /* Rss summed over the same mappings */
    size_t mapping_bytes;      /* size of those mappings */
    bool exact;                /* every mapping lies inside the range: no estimate */
    double share;              /* anon_huge_bytes / range_bytes, at most 1 */
    double share_resident;     /* anon_huge_bytes / rss_bytes (0 when nothing resident) */
} mb_thp_t;

/* 0, or -errno with out->why (smaps unreadable, -ENOENT: no mapping
 * overlaps [p, p+bytes)). */
int mb_thp_measure(const void *p, size_t bytes, mb_thp_t *out);
int mb_thp_measure_file(const char *smaps, const void *p, size_t bytes, mb_thp_t *out);
/* Several ranges at once (mbw's two arrays): a mapping that overlaps any
 * of them counts once; range_bytes is their sum. */
int mb_thp_measure_ranges(const char *smaps, const void *const *p, const size_t *bytes, int n,
                          mb_thp_t *out);

#endif
