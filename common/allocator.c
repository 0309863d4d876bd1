/* allocator: which malloc this process really uses, found from the
 * symbols loaded into it (declared in sysinfo.h). */
#include "sysinfo.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef const char *(*tc_version_fn)(int *, int *, const char **);
typedef int (*mi_version_fn)(void);

/* Version text of each known allocator, or false when it is not loaded. */
static bool jemalloc_version(char *buf, size_t buflen)
{
    mallctl_fn mallctl = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
    if (!mallctl)
        return false;
    const char *v = NULL;
    size_t len = sizeof v;
    if (mallctl("version", &v, &len, NULL, 0) != 0 || !v)
        v = "(version unknown)";
    snprintf(buf, buflen, "%s", v);
    return true;
}

static bool tcmalloc_version(char *buf, size_t buflen)
{
    if (!dlsym(RTLD_DEFAULT, "tc_malloc") &&
        !dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty"))
        return false;
    tc_version_fn tc_version = (tc_version_fn)dlsym(RTLD_DEFAULT, "tc_version");
    int major = 0, minor = 0;
    const char *patch = "";
    if (tc_version && tc_version(&major, &minor, &patch))
        snprintf(buf, buflen, "%d.%d%s", major, minor, patch ? patch : "");
    else
        snprintf(buf, buflen, "(version unknown)");
    return true;
}

static bool mimalloc_version(char *buf, size_t buflen)
{
    mi_version_fn mi_version = (mi_version_fn)dlsym(RTLD_DEFAULT, "mi_version");
    if (!mi_version)
        return false;
    int v = mi_version();     /* e.g. 209 for 2.0.9 */
    snprintf(buf, buflen, "%d.%d.%d", v / 100, v / 10 % 10, v % 10);
    return true;
}

typedef struct {
    const char *name;            /* short name returned */
    bool (*version)(char *buf, size_t buflen);
} allocator_desc_t;

static const allocator_desc_t allocators[] = {
    { "jemalloc", jemalloc_version },
    { "tcmalloc", tcmalloc_version },
    { "mimalloc", mimalloc_version },
};

/* The object that defines the malloc every call here resolves to. */
static const char *malloc_owner(void)
{
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    if (sym && dladdr(sym, &info) && info.dli_fname)
        return info.dli_fname;
    return NULL;
}

const char *mb_allocator_detect(char *buf, size_t buflen)
{
    const char *owner = malloc_owner();
    bool owner_is_libc = owner && strstr(owner, "libc.so") != NULL;
    for (size_t i = 0; i < sizeof allocators / sizeof allocators[0]; i++) {
        const allocator_desc_t *a = &allocators[i];
        char ver[96];
        if (!a->version(ver, sizeof ver))
            continue;
        /* Loaded is not the same as in effect: a library may be linked
         * or dlopen'ed without interposing malloc. */
        if (owner_is_libc) {
            snprintf(buf, buflen, "glibc %s (%s %s loaded but malloc resolves to libc)",
                     gnu_get_libc_version(), a->name, ver);
            return "glibc";
        }
        snprintf(buf, buflen, "%s %s", a->name, ver);
        return a->name;
    }
    snprintf(buf, buflen, "glibc %s", gnu_get_libc_version());
    return "glibc";
}
