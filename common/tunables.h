/* tunables: the GLIBC_TUNABLES names this glibc knows, from its loader's
 * `ld.so --list-tunables` (glibc 2.33+).  glibc ignores a name it does not
 * know without a word (glibc 2.36 has no glibc.malloc.max_total_thread_cache),
 * so a before/after run with it would measure nothing; the tools say so. */
#ifndef MB_TUNABLES_H
#define MB_TUNABLES_H

#include <stdbool.h>
#include <stddef.h>

#define MB_TUNABLES_MAX 160

typedef struct {
    bool ok;                        /* the list was read */
    char why[200];                  /* why not */
    char version[32];               /* "2.36" (gnu_get_libc_version) */
    size_t n;
    char names[MB_TUNABLES_MAX][64];
} mb_tunables_list_t;

void mb_tunables_list(mb_tunables_list_t *l);
bool mb_tunables_known(const mb_tunables_list_t *l, const char *name);
/* The names in a GLIBC_TUNABLES value ("a=1:b=2") that l does not know,
 * space separated, into out; returns how many. */
int mb_tunables_unknown(const mb_tunables_list_t *l, const char *value, char *out, size_t outlen);

/* One "name=value" item of a GLIBC_TUNABLES value. */
typedef struct {
    char key[128], value[128];
} mb_tunable_t;

/* Split "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=2" into at
 * most max items (an item without '=' has an empty value); the count. */
int mb_tunables_parse(const char *value, mb_tunable_t *out, int max);

#endif
