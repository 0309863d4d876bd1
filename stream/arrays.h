/* arrays: the memory block that holds a, b and c, its huge-page advice,
 * and how much of it the kernel actually backed with transparent huge
 * pages.
 *
 * One heap block (aligned to the PMD huge page, 2 MiB with 4 KiB pages and
 * 512 MiB with 64 KiB (common/pagesize), so huge pages can back it) holds the
 * three arrays back to back, (n + offset) elements apart, as STREAM's
 * static arrays lie in memory.  Nothing is touched here: the parallel
 * initialisation does the first touch. */
#ifndef ST_ARRAYS_H
#define ST_ARRAYS_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "kernels.h"
#include "thp.h"

typedef struct {
    void *base;
    size_t alloc_bytes;        /* rounded up to the PMD huge page (mb_huge_align) */
    st_arrays_t x;
} st_block_t;

/* Allocates plan->total_bytes.  Returns 0, or -ENOMEM/-EOVERFLOW with msg
 * (the caller exits 3). */
int st_block_alloc(const st_plan_t *plan, st_block_t *b, char *msg, size_t msglen);
/* Applies plan->hugepages: madvise(MADV_HUGEPAGE) for madvise,
 * madvise(MADV_NOHUGEPAGE) for never, nothing for thp.  0 or -errno. */
int st_block_advise(const st_plan_t *plan, st_block_t *b, char *msg, size_t msglen);
void st_block_free(st_block_t *b);

/* The THP backing obtained is read back with common/thp (mb_thp_measure). */

#endif
