/* dimms: dmidecode's Memory Device blocks -> slots -> summary and peak. */
#include "dimms.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sizing.h"
#include "sysinfo.h"

#define DMIDECODE_TIMEOUT_S 5

/* ---- locators --------------------------------------------------------------- */

static size_t skip_seps(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '_' || s[i] == '-')
        i++;
    return i;
}

/* The socket number after the leftmost CPU|PROC|SOCKET|NODE|P (separators
 * allowed before the digits); -1 when none. `u` is upper case. */
static int locator_socket(const char *u)
{
    static const char *const words[] = { "CPU", "PROC", "SOCKET", "NODE", "P" };
    for (size_t i = 0; u[i]; i++)
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t len = strlen(words[w]);
            if (strncmp(u + i, words[w], len) != 0)
                continue;
            size_t d = skip_seps(u, i + len);
            if (isdigit((unsigned char)u[d]))
                return (int)strtol(u + d, NULL, 10);
        }
    return -1;
}

/* "CHANNEL<sep>X..." -> "X...", else "DIMM<sep>A1" -> "A"; "" when none. */
static void locator_channel(const char *u, char *out, size_t outlen)
{
    out[0] = '\0';
    for (const char *p = u; (p = strstr(p, "CHANNEL")) != NULL; p++) {
        size_t d = skip_seps(p, 7), n = 0;
        while (isalnum((unsigned char)p[d + n]))
            n++;
        if (n) {
            snprintf(out, outlen, "%.*s", (int)n, p + d);
            return;
        }
    }
    for (const char *p = u; (p = strstr(p, "DIMM")) != NULL; p++) {
        size_t d = skip_seps(p, 4);
        if (isupper((unsigned char)p[d]) && isdigit((unsigned char)p[d + 1])) {
            snprintf(out, outlen, "%c", p[d]);
            return;
        }
    }
}

/* ---- parsing ---------------------------------------------------------------- */

/* "3200 MT/s" or "2933 MHz" -> the number; 0 otherwise ("Unknown"). */
static unsigned parse_speed(const char *v)
{
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (end == v || !isdigit((unsigned char)*v))
        return 0;
    while (*end == ' ')
        end++;
    return (strncmp(end, "MT/s", 4) == 0 || strncmp(end, "MHz", 3) == 0) ? (unsigned)x : 0;
}

/* "16 GB" -> 16384 (MB); "No Module Installed" -> 0. */
static unsigned long long parse_size_mb(const char *v)
{
    char *end;
    if (!isdigit((unsigned char)*v))
        return 0;
    unsigned long long x = strtoull(v, &end, 10);
    while (*end == ' ')
        end++;
    if (strncmp(end, "GB", 2) == 0)
        return x * 1024;
    if (strncmp(end, "TB", 2) == 0)
        return x * 1024 * 1024;
    if (strncasecmp(end, "kB", 2) == 0)
        return x / 1024;
    return x;
}

typedef struct {
    bool open;
    mb_dimm_t d;
} slot_t;

static void flush(slot_t *s, mb_dimms_t *t)
{
    if (!s->open)
        return;
    s->open = false;
    if (t->n >= MB_DIMMS_MAX)
        return;
    char u[160];
    snprintf(u, sizeof u, "%s %s", s->d.locator, s->d.bank);
    for (char *p = u; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    s->d.socket = locator_socket(u);
    locator_channel(u, s->d.channel, sizeof s->d.channel);
    s->d.speed_mts = s->d.configured_mts ? s->d.configured_mts : s->d.rated_mts;
    t->d[t->n++] = s->d;
}

/* `line` is "\tKey: value"; the value when the key matches, else NULL. */
static const char *field(const char *line, const char *key)
{
    if (*line != '\t' && *line != ' ')
        return NULL;
    while (*line == '\t' || *line == ' ')
        line++;
    size_t len = strlen(key);
    if (strncmp(line, key, len) != 0 || line[len] != ':')
        return NULL;
    line += len + 1;
    while (*line == ' ' || *line == '\t')
        line++;
    return line;
}

/* A text field, trailing blanks cut; "" for dmidecode's placeholders. */
static void given(char *out, size_t len, const char *v)
{
    static const char *const none[] = { "Not Specified", "Unknown", "NO DIMM", "Not Provided", "" };
    snprintf(out, len, "%s", v);
    for (size_t n = strlen(out); n && (out[n - 1] == ' ' || out[n - 1] == '\t'); n--)
        out[n - 1] = '\0';
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (strcmp(out, none[i]) == 0)
            out[0] = '\0';
}

void mb_dimms_parse(FILE *in, mb_dimms_t *t)
{
    slot_t s;
    char line[512];
    const char *v;
    memset(&s, 0, sizeof s);
    t->n = 0;
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "Handle ", 7) == 0) {
            flush(&s, t);
        } else if (strcmp(line, "Memory Device") == 0) {
            flush(&s, t);
            memset(&s, 0, sizeof s);
            s.open = true;
        } else if (!s.open) {
            continue;
        } else if ((v = field(line, "Size"))) {
            s.d.size_mb = parse_size_mb(v);
        } else if ((v = field(line, "Type"))) {
            snprintf(s.d.type, sizeof s.d.type, "%s", v);
        } else if ((v = field(line, "Speed"))) {
            s.d.rated_mts = parse_speed(v);
        } else if ((v = field(line, "Configured Memory Speed")) ||
                   (v = field(line, "Configured Clock Speed"))) {
            s.d.configured_mts = parse_speed(v);   /* what it runs at */
        } else if ((v = field(line, "Locator"))) {
            snprintf(s.d.locator, sizeof s.d.locator, "%s", v);
        } else if ((v = field(line, "Bank Locator"))) {
            snprintf(s.d.bank, sizeof s.d.bank, "%s", v);
        } else if ((v = field(line, "Rank"))) {
            s.d.rank = isdigit((unsigned char)*v) ? atoi(v) : 0;
        } else if ((v = field(line, "Manufacturer"))) {
            given(s.d.manufacturer, sizeof s.d.manufacturer, v);
        } else if ((v = field(line, "Part Number"))) {
            given(s.d.part, sizeof s.d.part, v);
        }
    }
    flush(&s, t);
}

/* ---- summary ---------------------------------------------------------------- */

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

#define APPEND(buf, at, ...)                                                                   \
    do {                                                                                       \
        if ((at) < sizeof(buf))                                                                \
            (at) += (size_t)snprintf((buf) + (at), sizeof(buf) - (at), __VA_ARGS__);          \
    } while (0)

void mb_dimms_summarise(const mb_dimms_t *t, mb_dimms_summary_t *s)
{
    memset(s, 0, sizeof *s);
    s->peak_mbps = -1;
    s->verdict = MB_DIMMS_UNAVAILABLE;
    if (t->n == 0) {
        snprintf(s->why, sizeof s->why, "dmidecode lists no memory devices (VM?)");
        snprintf(s->peak_text, sizeof s->peak_text, "no DIMM data");
        return;
    }
    static unsigned long long sizes[MB_DIMMS_MAX];
    static int sockets[MB_DIMMS_MAX];
    static char types[MB_DIMMS_MAX][32], chans[MB_DIMMS_MAX][24];
    int nsize = 0, nsock = 0, ntype = 0, nchan = 0, pop = 0, nochan = 0, nospeed = 0;
    unsigned minsp = 0, maxsp = 0;
    for (int i = 0; i < t->n; i++) {
        const mb_dimm_t *d = &t->d[i];
        int k;
        for (k = 0; k < nsock && sockets[k] != d->socket; k++)
            ;
        if (k == nsock)
            sockets[nsock++] = d->socket;
        if (d->size_mb == 0)
            continue;
        pop++;
        for (k = 0; k < nsize && sizes[k] != d->size_mb; k++)
            ;
        if (k == nsize)
            sizes[nsize++] = d->size_mb;
        const char *type = d->type[0] ? d->type : "?";
        for (k = 0; k < ntype && strcmp(types[k], type) != 0; k++)
            ;
        if (k == ntype)
            snprintf(types[ntype++], sizeof types[0], "%s", type);
        if (d->speed_mts) {
            if (!minsp || d->speed_mts < minsp)
                minsp = d->speed_mts;
            if (d->speed_mts > maxsp)
                maxsp = d->speed_mts;
        } else {
            nospeed++;
        }
        if (!d->channel[0]) {
            nochan++;
            continue;
        }
        char key[24];
        snprintf(key, sizeof key, "%d/%.15s", d->socket, d->channel);
        for (k = 0; k < nchan && strcmp(chans[k], key) != 0; k++)
            ;
        if (k == nchan)
            snprintf(chans[nchan++], sizeof chans[0], "%s", key);
    }
    if (pop == 0) {
        snprintf(s->why, sizeof s->why, "dmidecode lists %d slots but none populated (VM?)", t->n);
        snprintf(s->peak_text, sizeof s->peak_text, "no populated DIMM data");
        return;
    }
    qsort(sizes, (size_t)nsize, sizeof sizes[0], cmp_ull);
    qsort(sockets, (size_t)nsock, sizeof sockets[0], cmp_int);

    size_t at = 0;
    APPEND(s->text, at, "%d/%d slots populated, ", pop, t->n);
    for (int k = 0; k < ntype; k++)
        APPEND(s->text, at, "%s%s", k ? "/" : "", types[k]);
    APPEND(s->text, at, ", ");
    for (int k = 0; k < nsize; k++) {
        if (sizes[k] >= 1024 && sizes[k] % 1024 == 0)
            APPEND(s->text, at, "%s%llu GB", k ? "/" : "", sizes[k] / 1024);
        else if (sizes[k] >= 1024)
            APPEND(s->text, at, "%s%g GB", k ? "/" : "", (double)sizes[k] / 1024);
        else
            APPEND(s->text, at, "%s%llu MB", k ? "/" : "", sizes[k]);
    }
    APPEND(s->text, at, " each");
    if (minsp)
        APPEND(s->text, at, ", %u MT/s", minsp);
    APPEND(s->text, at, " (");
    int pmin = -1, pmax = -1;
    for (int k = 0; k < nsock; k++) {
        int all = 0, p = 0;
        for (int i = 0; i < t->n; i++)
            if (t->d[i].socket == sockets[k]) {
                all++;
                p += t->d[i].size_mb > 0;
            }
        if (sockets[k] < 0)
            APPEND(s->text, at, "%ssocket ? %d/%d", k ? ", " : "", p, all);
        else
            APPEND(s->text, at, "%ssocket %d %d/%d", k ? ", " : "", sockets[k], p, all);
        if (pmin < 0 || p < pmin)
            pmin = p;
        if (p > pmax)
            pmax = p;
    }
    APPEND(s->text, at, ")");

    size_t w = 0;
    if (pmin != pmax)
        APPEND(s->why, w, "%spopulated DIMMs differ between sockets", w ? "; " : "");
    if (nsize > 1)
        APPEND(s->why, w, "%smixed DIMM sizes", w ? "; " : "");
    if (maxsp != minsp)
        APPEND(s->why, w, "%smixed DIMM speeds (all run at the slowest)", w ? "; " : "");
    if (w) {
        char reasons[200];
        snprintf(reasons, sizeof reasons, "%.199s", s->why);
        snprintf(s->why, sizeof s->why, "unbalanced: %s", reasons);
        s->verdict = MB_DIMMS_WARN;
    } else {
        s->verdict = MB_DIMMS_OK;
    }

    if (!minsp || nospeed) {
        snprintf(s->peak_text, sizeof s->peak_text, "DIMM speed unknown in dmidecode");
        return;
    }
    bool counted = nochan > 0 || nchan == 0;
    int channels = counted ? pop : nchan;
    s->peak_mbps = (long long)channels * minsp * 8;
    snprintf(s->peak_text, sizeof s->peak_text, "%d channel(s) x %u MT/s x 8 bytes%s", channels,
             minsp, counted ? " (channels not named in the locators; counted one per DIMM)" : "");
}

/* ---- running dmidecode ------------------------------------------------------ */

static bool is_root(void)
{
    const char *o = getenv("MEMSUITE_ASSUME_ROOT");
    if (o && (strcmp(o, "0") == 0 || strcmp(o, "1") == 0))
        return o[0] == '1';
    return geteuid() == 0;
}

static void unavailable(mb_dimms_summary_t *s, const char *why, const char *peak)
{
    memset(s, 0, sizeof *s);
    s->verdict = MB_DIMMS_UNAVAILABLE;
    s->peak_mbps = -1;
    snprintf(s->why, sizeof s->why, "%s", why);
    snprintf(s->peak_text, sizeof s->peak_text, "%s", peak);
}

bool mb_dimms_read_table(mb_dimms_t *t, mb_dimms_summary_t *s)
{
    char prog[4096], table[4096], cmd[8400], why[300];
    t->n = 0;
    if (!mb_find_program("dmidecode", prog, sizeof prog)) {
        unavailable(s, "dmidecode is not installed", "no DIMM data (dmidecode not installed)");
        return false;
    }
    mb_sysfs_path(table, sizeof table, "/firmware/dmi/tables/DMI");
    if (access(table, F_OK) != 0) {
        snprintf(why, sizeof why, "no DMI table at %.200s (VM or firmware without SMBIOS)", table);
        unavailable(s, why, "no DIMM data (no DMI table)");
        return false;
    }
    if (!is_root()) {
        unavailable(s, "dmidecode needs root to read the SMBIOS tables", "no DIMM data (needs root)");
        return false;
    }
    if (strchr(prog, '\'')) {
        snprintf(why, sizeof why, "dmidecode path %.200s contains a quote; not run", prog);
        unavailable(s, why, "no DIMM data");
        return false;
    }
    char timeout[4096];
    if (mb_find_program("timeout", timeout, sizeof timeout) && !strchr(timeout, '\''))
        snprintf(cmd, sizeof cmd, "'%s' %d '%s' -t memory 2>/dev/null", timeout, DMIDECODE_TIMEOUT_S, prog);
    else
        snprintf(cmd, sizeof cmd, "'%s' -t memory 2>/dev/null", prog);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(why, sizeof why, "cannot run dmidecode: %s", strerror(errno));
        unavailable(s, why, "no DIMM data");
        return false;
    }
    mb_dimms_parse(p, t);
    int st = pclose(p);
    if (t->n == 0 && st != 0) {
        if (WIFEXITED(st) && WEXITSTATUS(st) == 124)
            snprintf(why, sizeof why, "dmidecode did not answer within %d s", DMIDECODE_TIMEOUT_S);
        else
            snprintf(why, sizeof why, "dmidecode -t memory failed (exit %d) and listed no memory devices",
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        unavailable(s, why, "no DIMM data");
        return false;
    }
    mb_dimms_summarise(t, s);
    return t->n > 0;
}

void mb_dimms_read(mb_dimms_summary_t *s)
{
    static mb_dimms_t t;   /* large: static */
    mb_dimms_read_table(&t, s);
}

int mb_dimms_channels(const mb_dimms_t *t, int *sockets, int *channels, int max)
{
    int n = 0;
    for (int i = 0; i < t->n; i++) {
        int k;
        for (k = 0; k < n && sockets[k] != t->d[i].socket; k++)
            ;
        if (k == n && n < max) {
            sockets[n] = t->d[i].socket;
            channels[n++] = 0;
        }
    }
    for (int k = 0; k < n; k++) {
        /* a channel counts once however many of its DIMMs are populated */
        for (int i = 0; i < t->n; i++) {
            const mb_dimm_t *d = &t->d[i];
            if (d->socket != sockets[k] || d->size_mb == 0)
                continue;
            bool seen = false;
            for (int j = 0; j < i && d->channel[0]; j++)
                seen |= t->d[j].socket == d->socket && t->d[j].size_mb > 0 &&
                        strcmp(t->d[j].channel, d->channel) == 0;
            channels[k] += !seen;
        }
    }
    for (int a = 1; a < n; a++)     /* ascending socket */
        for (int b = a; b > 0 && sockets[b - 1] > sockets[b]; b--) {
            int x = sockets[b], y = channels[b];
            sockets[b] = sockets[b - 1], channels[b] = channels[b - 1];
            sockets[b - 1] = x, channels[b - 1] = y;
        }
    return n;
}
