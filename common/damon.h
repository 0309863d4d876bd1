/* damon: whether the kernel's Data Access MONitor is running, and what its
 * schemes do to memory.  A running kdamond samples page access bits every
 * sample interval and applies its schemes (pageout reclaims regions idle
 * for a given age, hugepage/nohugepage change THP advice, migrate_* move
 * pages between nodes) to the memory a benchmark uses: a fact that can
 * change a figure, and one a cloud guest may run without saying so.
 *
 * Read from <sysfs>/kernel/mm/damon/admin/kdamonds (DAMON's sysfs
 * interface, honours MEMSUITE_SYSFS) and the enabled parameters of the
 * damon_reclaim and damon_lru_sort modules under <sysfs>/module. */
#ifndef MB_DAMON_H
#define MB_DAMON_H

#include <stdbool.h>
#include <stddef.h>

/* The text when the kernel has no DAMON interface at all. */
#define MB_DAMON_ABSENT "not running (no DAMON sysfs interface, no damon_reclaim or damon_lru_sort)"

typedef struct {
    bool interface;     /* the kdamonds directory or a DAMON module exists */
    int running;        /* kdamonds in state "on", plus enabled modules */
    char text[400];     /* what runs: "kdamond 0 on (paddr; pageout at age >= 12 x 5 s)";
                         * "off" (an interface, nothing on); MB_DAMON_ABSENT */
} mb_damon_t;

/* Fills *out; never fails (a missing interface is interface = false). */
void mb_damon_read(mb_damon_t *out);

#endif
