/* edac: EDAC memory error counters from sysfs. */
#include "edac.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"

#define EDAC_MC "/devices/system/edac/mc"

/* "mc12" with prefix "mc" -> 12; -1 when not prefix + digits. */
static int numbered(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n] || strlen(name + n) > 6)
        return -1;
    for (const char *p = name + n; *p; p++)
        if (!isdigit((unsigned char)*p))
            return -1;
    return atoi(name + n);
}

/* s made printable: control characters in caret notation, others as \xHH. */
static void printable(const char *s, char *out, size_t len)
{
    size_t at = 0;
    for (; *s && at + 5 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            at += (size_t)snprintf(out + at, len - at, "^%c", c == 0x7f ? '?' : c + '@');
        else if (c >= 0x80)
            at += (size_t)snprintf(out + at, len - at, "\\x%02x", c);
        else
            out[at++] = (char)c;
    }
    out[at] = '\0';
    if (*s && len > 4)
        snprintf(out + (at > len - 4 ? len - 4 : at), 4, "...");
}

/* <dir>/<file> as a count; `shown` names it in the reason ("mc0/ce_count"). */
static void read_count(const char *dir, const char *file, const char *shown, mb_edac_count_t *c)
{
    char path[4200], line[64], seen[48];
    memset(c, 0, sizeof *c);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = mb_read_fact(path, line, sizeof line);
    if (rc == -EFBIG) {
        snprintf(c->why, sizeof c->why, "%.60s is longer than %zu bytes (not a count)", shown, sizeof line - 1);
        return;
    }
    if (rc == -EINVAL) {
        snprintf(c->why, sizeof c->why, "%.60s is not a regular file", shown);
        return;
    }
    if (rc < 0) {
        snprintf(c->why, sizeof c->why, "cannot read %.60s: %s", shown, strerror(-rc));
        return;
    }
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    char *end;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)*p) ? strtoull(p, &end, 10) : 0;
    if (isdigit((unsigned char)*p) && errno == 0) {
        while (*end == ' ' || *end == '\t')
            end++;
        if (*end == '\0' && v <= MB_EDAC_COUNT_MAX) {
            c->ok = true;
            c->value = v;
            return;
        }
    }
    printable(line, seen, sizeof seen);
    snprintf(c->why, sizeof c->why, "%.60s holds '%s', not a count (0..%llu)", shown, seen, MB_EDAC_COUNT_MAX);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The K of every <dir>/<prefix>K, ascending, into ids[max]; the count. */
static int list_numbered(const char *dir, const char *prefix, int *ids, int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        int k = numbered(e->d_name, prefix);
        if (k >= 0 && n < max)
            ids[n++] = k;
    }
    if (d)
        closedir(d);
    qsort(ids, (size_t)n, sizeof ids[0], cmp_int);
    return n;
}

static void read_dimm(const char *mcdir, const char *mcname, int k, mb_edac_dimm_t *m)
{
    char dir[4200], path[4300], shown[4200], label[128];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "dimm%d", k);
    snprintf(dir, sizeof dir, "%.4000s/%s", mcdir, m->name);
    snprintf(shown, sizeof shown, "%s/%s/dimm_ce_count", mcname, m->name);
    read_count(dir, "dimm_ce_count", shown, &m->ce);
    snprintf(shown, sizeof shown, "%s/%s/dimm_ue_count", mcname, m->name);
    read_count(dir, "dimm_ue_count", shown, &m->ue);
    snprintf(path, sizeof path, "%s/dimm_label", dir);
    if (mb_read_fact(path, label, sizeof label) == 0)
        printable(label, m->label, sizeof m->label);
}

void mb_edac_read(mb_edac_t *e)
{
    char root[4096];
    memset(e, 0, sizeof *e);
    mb_sysfs_path(root, sizeof root, EDAC_MC);
    int ids[MB_EDAC_MAX_MC];
    int n = list_numbered(root, "mc", ids, MB_EDAC_MAX_MC);
    if (n == 0) {
        snprintf(e->why, sizeof e->why,
                 "no EDAC driver loaded (%.200s lists no memory controller; a VM, or modprobe the "
                 "platform's EDAC driver)", root);
        return;
    }
    e->available = true;
    for (int i = 0; i < n; i++) {
        mb_edac_mc_t *mc = &e->mc[e->nmc++];
        char dir[4200], shown[48];
        snprintf(mc->name, sizeof mc->name, "mc%d", ids[i]);
        snprintf(dir, sizeof dir, "%s/%s", root, mc->name);
        snprintf(shown, sizeof shown, "%s/ce_count", mc->name);
        read_count(dir, "ce_count", shown, &mc->ce);
        snprintf(shown, sizeof shown, "%s/ue_count", mc->name);
        read_count(dir, "ue_count", shown, &mc->ue);
        int dimms[MB_EDAC_MAX_DIMMS];
        int nd = list_numbered(dir, "dimm", dimms, MB_EDAC_MAX_DIMMS);
        for (int k = 0; k < nd; k++)
            read_dimm(dir, mc->name, dimms[k], &mc->dimm[mc->ndimms++]);
    }
}

static size_t put_count(char *buf, size_t at, size_t len, const char *what, const mb_edac_count_t *c)
{
    if (at >= len)
        return at;
    if (c->ok)
        return at + (size_t)snprintf(buf + at, len - at, " %s %llu", what, c->value);
    return at + (size_t)snprintf(buf + at, len - at, " %s unavailable", what);
}

void mb_edac_text(const mb_edac_t *e, char *buf, size_t len)
{
    if (!e->available) {
        snprintf(buf, len, "%s", e->why);
        return;
    }
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < e->nmc && at < len; i++) {
        const mb_edac_mc_t *mc = &e->mc[i];
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "; " : "", mc->name);
        at = put_count(buf, at, len, "ce", &mc->ce);
        at = put_count(buf, at, len, "ue", &mc->ue);
        for (int k = 0; k < mc->ndimms && at < len; k++) {
            const mb_edac_dimm_t *d = &mc->dimm[k];
            at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : " (", d->label[0] ? d->label : d->name);
            at = put_count(buf, at, len, "ce", &d->ce);
            at = put_count(buf, at, len, "ue", &d->ue);
        }
        if (mc->ndimms && at < len)
            at += (size_t)snprintf(buf + at, len - at, ")");
    }
}
