/* hugepools: the persistent huge page pools the kernel keeps, one per
 * page size: <sysfs>/kernel/mm/hugepages/hugepages-<size>kB/
 * {nr,free,surplus,resv}_hugepages (MEMSUITE_SYSFS applies). */
#ifndef MB_HUGEPOOLS_H
#define MB_HUGEPOOLS_H

#include <stddef.h>

#define MB_HUGEPOOLS_MAX 8

typedef struct {
    long long size_kib;                     /* page size */
    long long total, free_pages, surplus, reserved;   /* pages; -1 unreadable */
} mb_hugepool_t;

/* Fills pools (smallest page size first); the count, or -1 with why when
 * the directory cannot be opened. */
int mb_hugepools_read(mb_hugepool_t *pools, int max, char *why, size_t whylen);

#endif
