/* edac: the memory error counters the kernel's EDAC drivers keep, per
 * memory controller and per DIMM (honours MEMSUITE_SYSFS):
 *   <sysfs>/devices/system/edac/mc/mcN/ce_count, ue_count
 *   <sysfs>/devices/system/edac/mc/mcN/dimmK/dimm_ce_count, dimm_ue_count,
 *                                           dimm_label
 * ce: corrected errors (the DIMM still works, and often fails later), ue:
 * uncorrected errors.  Counts since the driver loaded.  Each file is read
 * with mb_read_fact (regular files only, size-capped); a count that is not
 * a whole decimal number up to MB_EDAC_COUNT_MAX is unavailable with the
 * reason, never a number made up. */
#ifndef MB_EDAC_H
#define MB_EDAC_H

#include <stdbool.h>
#include <stddef.h>

#define MB_EDAC_MAX_MC 64
#define MB_EDAC_MAX_DIMMS 64
#define MB_EDAC_COUNT_MAX 1000000000000000ULL   /* 10^15: above is junk */

typedef struct {
    bool ok;                  /* value valid */
    unsigned long long value;
    char why[160];            /* !ok: "mc0/ce_count holds 'x'" */
} mb_edac_count_t;

typedef struct {
    char name[16];            /* "dimm3" */
    char label[64];           /* dimm_label, control characters escaped; "" none */
    mb_edac_count_t ce, ue;
} mb_edac_dimm_t;

typedef struct {
    char name[16];            /* "mc0" */
    mb_edac_count_t ce, ue;
    int ndimms;
    mb_edac_dimm_t dimm[MB_EDAC_MAX_DIMMS];
} mb_edac_mc_t;

typedef struct {
    bool available;           /* the mc directory exists and lists a controller */
    char why[300];            /* !available: "no EDAC driver loaded (...)" */
    int nmc;
    mb_edac_mc_t mc[MB_EDAC_MAX_MC];
} mb_edac_t;

/* Every controller (mcN ascending) and its DIMMs (dimmK ascending). */
void mb_edac_read(mb_edac_t *e);
/* "mc0 ce 0 ue 0 (DIMM_A1 ce 0 ue 0, ...); mc1 ..." or the reason; for
 * the sysinfo fact and memsuite-facts' row. */
void mb_edac_text(const mb_edac_t *e, char *buf, size_t len);

#endif
