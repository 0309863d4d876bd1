/* alloc/libs: the allocators compared and where their libraries are. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libs.h"

static const char *const jemalloc_sonames[] = { "libjemalloc.so.2", "libjemalloc.so", NULL };
/* The full library first (libgoogle-perftools4), then the minimal one. */
static const char *const tcmalloc_sonames[] = { "libtcmalloc.so.4", "libtcmalloc_minimal.so.4",
                                                "libtcmalloc.so", NULL };
static const char *const mimalloc_sonames[] = { "libmimalloc.so.2", "libmimalloc.so", NULL };

static const mc_allocator_t allocators[MC_ALLOC_MAX_ALLOCATORS] = {
    { "glibc", NULL, "libc6" },
    { "jemalloc", jemalloc_sonames, "libjemalloc2" },
    { "tcmalloc", tcmalloc_sonames, "libgoogle-perftools4 (or libtcmalloc-minimal4)" },
    { "mimalloc", mimalloc_sonames, "libmimalloc2.0" },
};

/* Where libraries usually live when ldconfig does not know them. */
static const char *const usual_dirs[] = {
    "/usr/local/lib", "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib64", "/lib64",
    "/usr/lib", "/lib",
};

size_t mc_allocator_count(void)
{
    return sizeof allocators / sizeof allocators[0];
}

const mc_allocator_t *mc_allocator_at(size_t i)
{
    return i < mc_allocator_count() ? &allocators[i] : NULL;
}

int mc_allocator_index(const char *name)
{
    for (size_t i = 0; name && i < mc_allocator_count(); i++)
        if (strcmp(allocators[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *mc_allocator_names(char *buf, size_t buflen)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < mc_allocator_count() && used < buflen; i++)
        used += (size_t)snprintf(buf + used, buflen - used, "%s%s", i ? ", " : "",
                                 allocators[i].name);
    return buf;
}

/* ELF class and machine of a file; false when it is not a readable ELF. */
static bool elf_ident(const char *path, unsigned char *cls, uint16_t *machine)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    Elf64_Ehdr h;   /* e_machine sits at the same offset in 32-bit headers */
    ssize_t n = read(fd, &h, sizeof h);
    close(fd);
    if (n < (ssize_t)(offsetof(Elf64_Ehdr, e_machine) + sizeof h.e_machine) ||
        memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
        return false;
    *cls = h.e_ident[EI_CLASS];
    *machine = h.e_machine;
    return true;
}

/* A library this process could preload: same ELF class and machine. */
static bool loadable(const char *path)
{
    unsigned char cls, self_cls;
    uint16_t mach, self_mach;
    if (!elf_ident(path, &cls, &mach))
        return false;
    if (!elf_ident("/proc/self/exe", &self_cls, &self_mach))
        return true;   /* cannot compare: let the child's check decide */
    return cls == self_cls && mach == self_mach;
}

static bool in_dir(const char *dir, const char *soname, char *path, size_t pathlen)
{
    int n = snprintf(path, pathlen, "%s/%s", dir, soname);
    return n > 0 && (size_t)n < pathlen && access(path, R_OK) == 0 && loadable(path);
}

/* `ldconfig -p` lines: "\tlibjemalloc.so.2 (libc6,x86-64) => /lib/.../libjemalloc.so.2" */
static bool from_ldconfig(const char *soname, char *path, size_t pathlen)
{
    static const char *const cmds[] = { "/sbin/ldconfig -p 2>/dev/null",
                                        "/usr/sbin/ldconfig -p 2>/dev/null",
                                        "ldconfig -p 2>/dev/null" };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        FILE *p = popen(cmds[c], "r");
        if (!p)
            continue;
        char line[1024];
        bool found = false, any = false;
        size_t len = strlen(soname);
        while (fgets(line, sizeof line, p)) {
            any = true;
            const char *s = line + strspn(line, " \t");
            const char *arrow = strstr(s, " => ");
            if (found || !arrow || strncmp(s, soname, len) != 0 || s[len] != ' ')
                continue;
            const char *lib = arrow + 4;
            size_t l = strcspn(lib, "\r\n");
            if (l == 0 || l >= pathlen)
                continue;
            memcpy(path, lib, l);
            path[l] = '\0';
            found = loadable(path);
        }
        pclose(p);
        if (found)
            return true;
        if (any)
            return false;   /* ldconfig answered: it does not know the name */
    }
    return false;
}

#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_BUILD 1
#endif
#endif
#ifndef ASAN_BUILD
#define ASAN_BUILD 0
#endif

bool mc_alloc_asan_build(void)
{
    return ASAN_BUILD;
}

int mc_allocator_locate(const mc_allocator_t *a, char *path, size_t pathlen, char *why,
                        size_t whylen)
{
    if (pathlen)
        path[0] = '\0';
    if (!a->sonames)
        return 0;   /* the C library: nothing to preload */
    if (mc_alloc_asan_build()) {
        /* ASan must be the first library loaded and replaces malloc itself */
        snprintf(why, whylen, "this is an AddressSanitizer build, whose own malloc cannot be "
                 "replaced by a preloaded allocator; compare allocators with a normal build");
        return -ENOTSUP;
    }
    const char *libdir = getenv(MC_ALLOC_LIBDIR_ENV);
    if (libdir) {
        char dirs[4096];
        snprintf(dirs, sizeof dirs, "%s", libdir);
        for (const char *const *so = a->sonames; *so; so++) {
            char *save = NULL;
            char copy[4096];
            snprintf(copy, sizeof copy, "%s", dirs);
            for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
                if (in_dir(d, *so, path, pathlen))
                    return 0;
        }
        snprintf(why, whylen, "%s not found in %s=%s; install %s or point %s at its directory",
                 a->sonames[0], MC_ALLOC_LIBDIR_ENV, libdir, a->package, MC_ALLOC_LIBDIR_ENV);
        return -ENOENT;
    }
    for (const char *const *so = a->sonames; *so; so++) {
        if (from_ldconfig(*so, path, pathlen))
            return 0;
        for (size_t d = 0; d < sizeof usual_dirs / sizeof usual_dirs[0]; d++)
            if (in_dir(usual_dirs[d], *so, path, pathlen))
                return 0;
    }
    if (pathlen)
        path[0] = '\0';
    snprintf(why, whylen,
             "%s not found (searched ldconfig -p, /usr/local/lib, /usr/lib/<arch>, /usr/lib64, "
             "/usr/lib); install %s, or set %s to its directory",
             a->sonames[0], a->package, MC_ALLOC_LIBDIR_ENV);
    return -ENOENT;
}
