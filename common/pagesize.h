/* pagesize: the two page sizes a memory figure depends on, from one place.
 *
 * The base page (the unit of mbind, move_pages, first touch and a TLB
 * entry) is sysconf(_SC_PAGESIZE): 4 KiB on x86-64, 4, 16 or 64 KiB on
 * aarch64 (NVIDIA Grace nodes often run 64 KiB kernels).  The PMD huge
 * page (the unit transparent huge pages back a mapping with, and so the
 * alignment that lets THP back a buffer) is
 * <sysfs>/kernel/mm/transparent_hugepage/hpage_pmd_size: 2 MiB with 4 KiB
 * pages, 32 MiB with 16 KiB, 512 MiB with 64 KiB.  Without that file (a
 * kernel without THP) the PMD size is derived from the base page: one
 * page-table page holds page/8 entries of 8 bytes, so a PMD entry maps
 * page * page / 8 bytes.
 *
 * The test hook MEMSUITE_TEST_PAGE_SIZE=BYTES (acting in mb_page_size)
 * makes fixture trees describe a 64 KiB-page machine on a 4 KiB one: it
 * is taken only when it is a power of two and a multiple of the real
 * page size (so every alignment derived from it stays valid here), and
 * ignored otherwise. */
#ifndef MB_PAGESIZE_H
#define MB_PAGESIZE_H

#include <stdbool.h>
#include <stddef.h>

/* The base page size in bytes (a power of two, >= 4096). */
size_t mb_page_size(void);

typedef struct {
    size_t bytes;          /* the PMD huge-page size, never 0 */
    bool from_sysfs;       /* false: derived from the base page (why says why) */
    char why[300];         /* when !from_sysfs: why hpage_pmd_size was not used */
} mb_pmd_t;

/* The PMD huge-page size: hpage_pmd_size when readable and a power of
 * two, else page * page / 8 with the reason in why. */
void mb_pmd_size(mb_pmd_t *out);

/* mb_pmd_size's bytes alone: the alignment that lets THP back a buffer. */
size_t mb_huge_align(void);

/* A page size in exact binary units: "4 KiB", "64 KiB", "2 MiB",
 * "512 MiB" (bytes as "N B" when not a whole KiB).  Returns buf. */
const char *mb_page_text(size_t bytes, char *buf, size_t buflen);

#endif
