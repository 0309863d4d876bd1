/* buffer: the measured buffer (mmap or malloc, --hugepages advice), and what
 * a result records of it (THP share, page placement). */
#ifndef MC_BUFFER_H
#define MC_BUFFER_H

#include <stddef.h>

#include "config.h"
#include "result.h"

/* The measured buffer of `bytes`, per --buffer (mmap: rounded up to and
 * aligned on 2 MiB; malloc: from the allocator, aligned on a cache line)
 * with the --hugepages advice.  Nothing is touched.  0 or -errno with why. */
int mc_buffer_alloc(const mc_config_t *cfg, size_t bytes, void **out, char *why, size_t whylen);
void mc_buffer_free(const mc_config_t *cfg, void *p, size_t bytes);
const char *mc_buffer_kind_name(mc_buffer_kind_t k);
/* THP share of the mapping holding p, from /proc/self/smaps, into res. */
void mc_buffer_thp(mc_result_t *res, const void *p, size_t bytes);
/* Page placement sample into res. */
void mc_buffer_placement(mc_result_t *res, const void *p, size_t bytes);
/* The end of every measured scenario: the caller's CPU mask restored, the
 * THP share and page placement recorded into res, the buffer unmapped. */
void mc_buffer_finish(mc_result_t *res, const mc_config_t *cfg, void *p, size_t bytes);
const char *mc_hugepages_name(mc_hugepages_t hp);

#endif
