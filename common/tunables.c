/* tunables: GLIBC_TUNABLES names against `ld.so --list-tunables`. */
#include "tunables.h"

#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>

#include "sysinfo.h"

/* The loader: ld.so on PATH (Debian, Fedora), else the usual paths
 * (loaders[0] is the PATH name). */
static const char *const loaders[] = {
    "ld.so", "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib64/ld64.so.2",
    "/lib/ld-linux-riscv64-lp64d.so.1",
};

static bool read_list(const char *loader, mb_tunables_list_t *l)
{
    char cmd[256], line[256];
    snprintf(cmd, sizeof cmd, "timeout 5 %s --list-tunables 2>/dev/null", loader);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    l->n = 0;
    while (fgets(line, sizeof line, p)) {
        size_t k = strcspn(line, ":");
        if (!line[k] || k == 0 || k >= sizeof l->names[0] || strncmp(line, "glibc.", 6) != 0)
            continue;
        if (l->n < MB_TUNABLES_MAX)
            snprintf(l->names[l->n++], sizeof l->names[0], "%.*s", (int)k, line);
    }
    pclose(p);
    return l->n > 0;
}

void mb_tunables_list(mb_tunables_list_t *l)
{
    memset(l, 0, sizeof *l);
    snprintf(l->version, sizeof l->version, "%s", gnu_get_libc_version());
    /* a loader on PATH is the one asked (a failing one means: not checked) */
    char onpath[4096];
    if (mb_find_program("ld.so", onpath, sizeof onpath)) {
        if (read_list("ld.so", l))
            l->ok = true;
        else
            snprintf(l->why, sizeof l->why, "ld.so --list-tunables gave no list (glibc %s; the list "
                     "needs glibc 2.33 or later)", l->version);
        return;
    }
    for (size_t i = 1; i < sizeof loaders / sizeof loaders[0]; i++)
        if (read_list(loaders[i], l)) {
            l->ok = true;
            return;
        }
    snprintf(l->why, sizeof l->why, "ld.so --list-tunables gave no list (glibc %s; the list "
             "needs glibc 2.33 or later and the loader on PATH)", l->version);
}

bool mb_tunables_known(const mb_tunables_list_t *l, const char *name)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return true;
    return false;
}

int mb_tunables_unknown(const mb_tunables_list_t *l, const char *value, char *out, size_t outlen)
{
    int n = 0;
    size_t used = 0;
    if (outlen)
        out[0] = '\0';
    for (const char *v = value; v && *v;) {
        size_t len = strcspn(v, ":"), klen = strcspn(v, "=:");
        char name[sizeof l->names[0]];
        /* a name too long for the list's slots is no tunable this glibc has
         * (its longest is about 40 characters): unknown, shown shortened */
        const bool fits = klen < sizeof name;
        if (fits)
            snprintf(name, sizeof name, "%.*s", (int)klen, v);
        if (klen && (!fits || !mb_tunables_known(l, name))) {
            n++;
            if (used < outlen)
                used += (size_t)snprintf(out + used, outlen - used, "%s%.*s%s", used ? " " : "",
                                         fits ? (int)klen : 60, v, fits ? "" : "...");
        }
        v += len;
        if (*v == ':')
            v++;
    }
    return n;
}

int mb_tunables_parse(const char *v, mb_tunable_t *out, int max)
{
    int n = 0;
    while (v && *v && n < max) {
        size_t len = strcspn(v, ":");
        if (len) {
            mb_tunable_t *t = &out[n++];
            size_t eq = strcspn(v, "=");
            size_t klen = eq < len ? eq : len;
            snprintf(t->key, sizeof t->key, "%.*s", (int)klen, v);
            if (eq < len)
                snprintf(t->value, sizeof t->value, "%.*s", (int)(len - eq - 1), v + eq + 1);
            else
                t->value[0] = '\0';
        }
        v += len;
        if (*v == ':')
            v++;
    }
    return n;
}
