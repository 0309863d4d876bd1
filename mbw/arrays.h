/* arrays: mbw's two arrays (source and destination), how they are
 * allocated (the --hugepages policy), first touch, and the --verify
 * comparison.
 *
 * Without --hugepages both arrays come from calloc, as in mbw.  With it
 * they are anonymous mappings rounded up to and aligned on the PMD huge
 * page (2 MiB with 4 KiB pages, 512 MiB with 64 KiB: common/pagesize), with
 * the madvise() advice of the chosen mode. */
#ifndef MBW_ARRAYS_H
#define MBW_ARRAYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    long *src, *dst;
    size_t bytes;                 /* per array */
    size_t map_bytes;             /* per mapping with --hugepages, else 0 */
    const char *huge_mode;        /* "default" (calloc) or the --hugepages name */
    /* AnonHugePages backing the arrays after first touch (smaps) */
    bool huge_known;
    size_t huge_bytes;
    char huge_why[320];           /* why huge_bytes is unknown */
} mbw_arrays_t;

/* --hugepages modes; the enum is the index in the choices list. */
typedef enum { MBW_HP_DEFAULT = -1, MBW_HP_NEVER, MBW_HP_THP, MBW_HP_MADVISE } mbw_huge_t;
#define MBW_HUGEPAGES_CHOICES "never|thp|madvise"

/* The mode's name ("never"), or NULL for MBW_HP_DEFAULT (calloc). */
const char *mbw_huge_name(mbw_huge_t huge);

/* Allocate both arrays (not yet touched).  0, or -ENOMEM / -EINVAL with
 * msg. */
int mbw_arrays_alloc(mbw_arrays_t *a, size_t bytes, mbw_huge_t huge, char *msg, size_t msglen);
/* Write every element of both arrays (src: a position-dependent non-zero
 * pattern; dst: 0), by `threads` threads on the slices they will copy, so
 * that first touch places pages where they are used. */
void mbw_arrays_fill(mbw_arrays_t *a, int threads);
/* Zero the destination (before a method, with --verify). */
void mbw_arrays_clear_dst(mbw_arrays_t *a, int threads);
/* Read /proc/self/smaps: how much of the arrays is backed by THP. */
void mbw_arrays_huge_probe(mbw_arrays_t *a);
void mbw_arrays_free(mbw_arrays_t *a);

/* --verify: checksums of both arrays; 0 when equal, else -EIO with
 * *first_bad_byte the first differing byte offset. */
typedef struct {
    uint64_t src_sum, dst_sum;
    size_t first_bad_byte;
} mbw_verify_t;
int mbw_arrays_verify(const mbw_arrays_t *a, mbw_verify_t *out);

#endif
