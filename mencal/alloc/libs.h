/* alloc/libs: the allocators compared and where their libraries are. */
#ifndef MC_ALLOC_LIBS_H
#define MC_ALLOC_LIBS_H

#include <stdbool.h>
#include <stddef.h>

#define MC_ALLOC_MAX_ALLOCATORS 4
#define MC_ALLOC_LIBDIR_ENV "MEMSUITE_ALLOC_LIBDIR"

typedef struct {
    const char *name;               /* as mb_allocator_detect() names it */
    const char *const *sonames;     /* search order; NULL: the C library itself */
    const char *package;            /* Debian package that provides it */
} mc_allocator_t;

size_t mc_allocator_count(void);
const mc_allocator_t *mc_allocator_at(size_t i);
/* Index of the allocator called `name`, or -1. */
int mc_allocator_index(const char *name);
/* "glibc, jemalloc, tcmalloc, mimalloc" */
const char *mc_allocator_names(char *buf, size_t buflen);
/* The library to preload.  Searches the directories of $MEMSUITE_ALLOC_LIBDIR
 * (colon-separated) only, when set; otherwise `ldconfig -p`, then the usual
 * library directories.  A file whose ELF class or machine differs from
 * this binary's is passed over.  0 with path (glibc: path ""), or -ENOENT
 * with why naming what was searched and the package to install. */
int mc_allocator_locate(const mc_allocator_t *a, char *path, size_t pathlen, char *why,
                        size_t whylen);
/* Built with AddressSanitizer: no allocator can be preloaded (locate()
 * answers -ENOTSUP) and the glibc column measures ASan's malloc. */
bool mc_alloc_asan_build(void);

#endif
