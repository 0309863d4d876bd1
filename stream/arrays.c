/* arrays: allocation and huge-page advice (the THP read-back is common/thp). */
#include "arrays.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pagesize.h"
#include "sizing.h"

int st_block_alloc(const st_plan_t *plan, st_block_t *b, char *msg, size_t msglen)
{
    size_t rounded;
    char *base;

    const size_t align = mb_huge_align();
    char at[32];

    memset(b, 0, sizeof *b);
    if (!mb_add_size(plan->total_bytes, align - 1, &rounded)) {
        snprintf(msg, msglen, "%zu bytes overflow when rounded to %s", plan->total_bytes,
                 mb_page_text(align, at, sizeof at));
        return -EOVERFLOW;
    }
    rounded -= rounded % align;
    base = aligned_alloc(align, rounded);
    if (!base) {
        char h[32];
        snprintf(msg, msglen, "cannot allocate %s for the arrays: %s; use a smaller --array-size",
                 mb_format_bytes(rounded, h, sizeof h), strerror(errno));
        return -ENOMEM;
    }
    b->base = base;
    b->alloc_bytes = rounded;
    b->x.a = base;
    b->x.b = base + plan->stride_bytes;
    b->x.c = base + 2 * plan->stride_bytes;
    b->x.n = plan->n;
    b->x.scalar = plan->scalar;
    return 0;
}

int st_block_advise(const st_plan_t *plan, st_block_t *b, char *msg, size_t msglen)
{
    int advice;

    if (plan->hugepages == ST_HP_THP)
        return 0;
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    advice = plan->hugepages == ST_HP_MADVISE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
    if (madvise(b->base, b->alloc_bytes, advice) != 0) {
        int e = errno;
        snprintf(msg, msglen, "madvise(%s) on the arrays failed: %s%s",
                 advice == MADV_HUGEPAGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", strerror(e),
                 e == EINVAL ? " (kernel without transparent huge pages?)" : "");
        return -e;
    }
    return 0;
#else
    (void)advice;
    snprintf(msg, msglen, "madvise huge-page advice is not available on this system");
    return -ENOSYS;
#endif
}

void st_block_free(st_block_t *b)
{
    free(b->base);
    b->base = NULL;
}
