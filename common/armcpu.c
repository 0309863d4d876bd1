/* armcpu: the MIDR part table, the aarch64 cpuinfo parse and the naming
 * rule (see armcpu.h). */
#include "armcpu.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "sizing.h"

/* ---- the tables --------------------------------------------------------- */

/* Implementer codes (MIDR_EL1 bits 31:24), as Linux's
 * arch/arm64/include/asm/cputype.h lists them. */
static const struct {
    unsigned code;
    const char *name;
} implementers[] = {
    { 0x41, "ARM" },       { 0x42, "Broadcom" },  { 0x43, "Cavium" },
    { 0x46, "Fujitsu" },   { 0x48, "HiSilicon" }, { 0x4e, "NVIDIA" },
    { 0x50, "APM" },       { 0x51, "Qualcomm" },  { 0x61, "Apple" },
    { 0x6d, "Microsoft" }, { 0xc0, "Ampere" },
};

/* The parts HPC and cloud nodes use (MIDR_EL1 bits 15:4 within an
 * implementer).  The SoCs built on them, for the reader: Neoverse N1 is
 * AWS Graviton2 and Ampere Altra; V1 is Graviton3; V2 is NVIDIA Grace
 * and Graviton4; Cortex-A72 is the first Graviton. */
static const struct {
    unsigned implementer, part;
    const char *name;
} parts[] = {
    { 0x41, 0xd03, "ARM Cortex-A53" },
    { 0x41, 0xd07, "ARM Cortex-A57" },
    { 0x41, 0xd08, "ARM Cortex-A72" },
    { 0x41, 0xd0b, "ARM Cortex-A76" },
    { 0x41, 0xd0c, "ARM Neoverse N1" },
    { 0x41, 0xd40, "ARM Neoverse V1" },
    { 0x41, 0xd49, "ARM Neoverse N2" },
    { 0x41, 0xd4f, "ARM Neoverse V2" },
    { 0x41, 0xd83, "ARM Neoverse V3AE" },
    { 0x41, 0xd84, "ARM Neoverse V3" },
    { 0x42, 0x516, "Broadcom Vulcan" },
    { 0x43, 0x0af, "Cavium ThunderX2" },
    { 0x46, 0x001, "Fujitsu A64FX" },
    { 0x48, 0xd01, "HiSilicon TaiShan v110 (Kunpeng 920)" },
    { 0x4e, 0x003, "NVIDIA Denver" },
    { 0x4e, 0x004, "NVIDIA Carmel" },
    { 0x4e, 0x010, "NVIDIA Olympus" },
    { 0x6d, 0xd49, "Microsoft Azure Cobalt 100 (Neoverse N2)" },
    { 0xc0, 0xac3, "AmpereOne" },
    { 0xc0, 0xac4, "AmpereOne AC04" },
};

/* SMCCC SoC IDs (<sysfs>/devices/soc0/soc_id: "jep106:<JEP106 bank and
 * code of the maker>:<the maker's chip id>"). */
static const struct {
    const char *soc_id, *name;
} socs[] = {
    { "jep106:036b:0241", "NVIDIA Grace" },
};

/* EC2's aarch64 instances: the Graviton generation by its core. */
static const struct {
    unsigned implementer, part;
    const char *name;
} gravitons[] = {
    { 0x41, 0xd08, "AWS Graviton" },
    { 0x41, 0xd0c, "AWS Graviton2" },
    { 0x41, 0xd40, "AWS Graviton3" },
    { 0x41, 0xd4f, "AWS Graviton4" },
};

#define COUNT(a) (sizeof (a) / sizeof (a)[0])

const char *mb_arm_implementer_name(unsigned implementer)
{
    for (size_t i = 0; i < COUNT(implementers); i++)
        if (implementers[i].code == implementer)
            return implementers[i].name;
    return NULL;
}

const char *mb_arm_part_name(unsigned implementer, unsigned part)
{
    for (size_t i = 0; i < COUNT(parts); i++)
        if (parts[i].implementer == implementer && parts[i].part == part)
            return parts[i].name;
    return NULL;
}

/* ---- cpuinfo ------------------------------------------------------------ */

/* "0x41" or "8": a number the kernel writes in hex or decimal. */
static bool parse_num(const char *v, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 0);
    if (errno || end == v || x > 0xffffffffUL)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *out = (unsigned)x;
    return true;
}

static void add_midr(mb_arm_cpuinfo_t *ci, const mb_arm_midr_t *m)
{
    for (int i = 0; i < ci->nparts; i++) {
        mb_arm_midr_t *p = &ci->part[i];
        if (p->implementer == m->implementer && p->part == m->part && p->variant == m->variant &&
            p->revision == m->revision) {
            p->cpus++;
            return;
        }
    }
    if (ci->nparts == MB_ARM_MAX_PARTS) {
        ci->more_parts++;
        return;
    }
    ci->part[ci->nparts] = *m;
    ci->part[ci->nparts++].cpus = 1;
}

void mb_arm_cpuinfo_parse(FILE *f, mb_arm_cpuinfo_t *ci)
{
    char line[4096];
    mb_arm_midr_t cur;
    bool open = false;   /* a block with an implementer not yet added */
    memset(ci, 0, sizeof *ci);
    memset(&cur, 0, sizeof cur);
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *kend = colon;
        while (kend > line && isspace((unsigned char)kend[-1]))
            kend--;
        *kend = '\0';
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        unsigned x;
        if (strcmp(line, "processor") == 0) {
            if (open)
                add_midr(ci, &cur);
            memset(&cur, 0, sizeof cur);
            open = false;
        } else if (strcmp(line, "CPU implementer") == 0 && parse_num(v, &x)) {
            ci->arm = true;
            cur.implementer = x;
            open = true;
        } else if (strcmp(line, "CPU variant") == 0 && parse_num(v, &x)) {
            cur.variant = x;
        } else if (strcmp(line, "CPU part") == 0 && parse_num(v, &x)) {
            cur.part = x;
        } else if (strcmp(line, "CPU revision") == 0 && parse_num(v, &x)) {
            cur.revision = x;
        } else if (strcmp(line, "Features") == 0 && !ci->have_features) {
            ci->have_features = true;
            snprintf(ci->features, sizeof ci->features, "%s", v);
        }
    }
    if (open)
        add_midr(ci, &cur);
}

/* ---- the firmware's words -------------------------------------------------- */

static bool placeholder(const char *s)
{
    static const char *const words[] = { "", "Not Specified", "Unknown", "None",
                                         "To Be Filled By O.E.M.", "Default string" };
    for (size_t i = 0; i < COUNT(words); i++)
        if (strcasecmp(s, words[i]) == 0)
            return true;
    return false;
}

/* Blanks around s dropped, then made printable (mb_shown). */
static void clean(const char *s, char *out, size_t outlen)
{
    char tmp[256];
    while (*s == ' ' || *s == '\t')
        s++;
    snprintf(tmp, sizeof tmp, "%s", s);
    size_t n = strlen(tmp);
    while (n && isspace((unsigned char)tmp[n - 1]))
        tmp[--n] = '\0';
    mb_shown(tmp, 100, out, outlen);
}

bool mb_arm_smbios_version(const unsigned char *raw, size_t len, char *out, size_t outlen)
{
    /* SMBIOS type 4: byte 0 the type, 1 the formatted length, 0x10 the
     * number of the Processor Version string (0: none); the strings
     * follow the formatted area, each NUL-terminated. */
    if (outlen)
        out[0] = '\0';
    if (len < 0x11 || raw[0] != 4 || raw[1] < 0x11 || raw[1] > len)
        return false;
    unsigned want = raw[0x10];
    if (want == 0)
        return false;
    size_t at = raw[1];
    for (unsigned k = 1; at < len && raw[at]; k++) {
        const char *s = (const char *)raw + at;
        size_t n = strnlen(s, len - at);
        if (at + n >= len)
            return false;   /* an unterminated string: a damaged entry */
        if (k == want) {
            clean(s, out, outlen);
            return !placeholder(out);
        }
        at += n + 1;
    }
    return false;
}

static void read_trimmed(const char *rel, char *out, size_t outlen)
{
    char path[4096], raw[256];
    mb_sysfs_path(path, sizeof path, rel);
    out[0] = '\0';
    if (mb_read_line(path, raw, sizeof raw) == 0) {
        clean(raw, out, outlen);
        if (placeholder(out))
            out[0] = '\0';
    }
}

void mb_arm_firmware_read(mb_arm_firmware_t *fw)
{
    memset(fw, 0, sizeof *fw);
    read_trimmed("/devices/soc0/soc_id", fw->soc_id, sizeof fw->soc_id);
    read_trimmed("/class/dmi/id/sys_vendor", fw->dmi_vendor, sizeof fw->dmi_vendor);
    char path[4096];
    mb_sysfs_path(path, sizeof path, "/firmware/dmi/entries/4-0/raw");
    FILE *f = fopen(path, "rbe");
    if (f) {
        unsigned char raw[4096];
        size_t n = fread(raw, 1, sizeof raw, f);
        fclose(f);
        mb_arm_smbios_version(raw, n, fw->smbios_version, sizeof fw->smbios_version);
    }
}

/* ---- the name --------------------------------------------------------------- */

/* "ARM Neoverse V2 r0p0", or the numbers of a part not in the table. */
static void midr_text(const mb_arm_midr_t *m, char *out, size_t outlen)
{
    const char *name = mb_arm_part_name(m->implementer, m->part);
    if (name) {
        snprintf(out, outlen, "%s r%up%u", name, m->variant, m->revision);
        return;
    }
    const char *imp = mb_arm_implementer_name(m->implementer);
    char who[48];
    if (imp)
        snprintf(who, sizeof who, "%s (implementer 0x%02x)", imp, m->implementer);
    else
        snprintf(who, sizeof who, "implementer 0x%02x", m->implementer);
    snprintf(out, outlen, "%s part 0x%03x r%up%u (part not in memsuite's table)", who, m->part,
             m->variant, m->revision);
}

void mb_arm_cpu_name(const mb_arm_cpuinfo_t *ci, const mb_arm_firmware_t *fw, char *out,
                     size_t outlen)
{
    char cores[400] = "";
    size_t at = 0;
    for (int i = 0; i < ci->nparts && at < sizeof cores; i++) {
        char one[160];
        midr_text(&ci->part[i], one, sizeof one);
        if (ci->nparts > 1)
            at += (size_t)snprintf(cores + at, sizeof cores - at, "%s%d x %s", i ? " + " : "",
                                   ci->part[i].cpus, one);
        else
            at += (size_t)snprintf(cores + at, sizeof cores - at, "%s", one);
    }
    if (ci->more_parts && at < sizeof cores)
        snprintf(cores + at, sizeof cores - at, " + %d more", ci->more_parts);

    const mb_arm_midr_t *first = ci->nparts ? &ci->part[0] : NULL;
    const char *product = NULL;
    char evidence[200] = "";
    if (fw && fw->soc_id[0]) {
        for (size_t i = 0; !product && i < COUNT(socs); i++)
            if (strcmp(fw->soc_id, socs[i].soc_id) == 0) {
                product = socs[i].name;
                snprintf(evidence, sizeof evidence, "SoC ID %s", fw->soc_id);
            }
    }
    if (!product && fw && fw->smbios_version[0]) {
        product = fw->smbios_version;
        snprintf(evidence, sizeof evidence, "SMBIOS processor version");
    }
    if (!product && fw && first && strcasestr(fw->dmi_vendor, "Amazon EC2")) {
        for (size_t i = 0; !product && i < COUNT(gravitons); i++)
            if (gravitons[i].implementer == first->implementer && gravitons[i].part == first->part) {
                product = gravitons[i].name;
                snprintf(evidence, sizeof evidence, "DMI sys_vendor '%.100s'", fw->dmi_vendor);
            }
    }
    if (product)
        snprintf(out, outlen, "%s (%s; %s)", product, cores, evidence);
    else
        snprintf(out, outlen, "%s", cores);
}
