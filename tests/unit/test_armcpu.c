/* test_armcpu: the MIDR part table, the aarch64 cpuinfo parse (the
 * fixture trees and hand-made blocks: a mixed big.LITTLE file, an x86
 * file, hex and decimal numbers), the SMBIOS type 4 version, and the
 * naming rule's order (SoC ID, SMBIOS, EC2, the MIDR alone). */
#include "armcpu.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *repo_root(void)
{
    const char *root = getenv("MEMSUITE_ROOT");
    return root && *root ? root : ".";
}

/* The table: the real MIDR values of the parts HPC nodes use (Linux's
 * arch/arm64/include/asm/cputype.h). */
static const struct {
    unsigned implementer, part;
    const char *name;
} table_cases[] = {
    { 0x41, 0xd0c, "ARM Neoverse N1" },   /* Graviton2, Ampere Altra */
    { 0x41, 0xd40, "ARM Neoverse V1" },   /* Graviton3 */
    { 0x41, 0xd49, "ARM Neoverse N2" },
    { 0x41, 0xd4f, "ARM Neoverse V2" },   /* NVIDIA Grace, Graviton4 */
    { 0x46, 0x001, "Fujitsu A64FX" },
    { 0xc0, 0xac3, "AmpereOne" },
    { 0x41, 0xd99, NULL },                /* not in the table */
    { 0x4e, 0xd4f, NULL },                /* a part number belongs to its implementer */
};

static void parse_text(const char *text, mb_arm_cpuinfo_t *ci)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    CHECK(f != NULL, "fmemopen");
    if (!f)
        return;
    mb_arm_cpuinfo_parse(f, ci);
    fclose(f);
}

static mb_arm_cpuinfo_t ci;   /* large: static */

static void test_fixtures(void)
{
    static const struct {
        const char *tree;
        unsigned implementer, part, variant, revision;
        int cpus;
        const char *feature;
    } cases[] = {
        { "arm-grace", 0x41, 0xd4f, 0, 0, 4, "sve2" },
        { "arm-graviton3", 0x41, 0xd40, 1, 1, 4, "svebf16" },
        { "arm-a64fx", 0x46, 0x001, 1, 0, 4, "sve" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tests/fixtures/%s/proc/cpuinfo", repo_root(), cases[i].tree);
        FILE *f = fopen(path, "re");
        CHECK(f != NULL, "%s: cpuinfo readable", cases[i].tree);
        if (!f)
            continue;
        mb_arm_cpuinfo_parse(f, &ci);
        fclose(f);
        CHECK(ci.arm && ci.nparts == 1 && ci.part[0].implementer == cases[i].implementer &&
                  ci.part[0].part == cases[i].part && ci.part[0].variant == cases[i].variant &&
                  ci.part[0].revision == cases[i].revision && ci.part[0].cpus == cases[i].cpus,
              "%s: one MIDR 0x%02x 0x%03x r%up%u on %d CPUs (got arm %d parts %d: 0x%02x 0x%03x "
              "r%up%u x %d)", cases[i].tree, cases[i].implementer, cases[i].part,
              cases[i].variant, cases[i].revision, cases[i].cpus, ci.arm, ci.nparts,
              ci.part[0].implementer, ci.part[0].part, ci.part[0].variant, ci.part[0].revision,
              ci.part[0].cpus);
        CHECK(ci.have_features && strstr(ci.features, cases[i].feature) &&
                  strncmp(ci.features, "fp asimd", 8) == 0,
              "%s: the Features line read (%.40s...)", cases[i].tree, ci.features);
    }
}

static void test_parse(void)
{
    /* an x86 cpuinfo is not the aarch64 format */
    parse_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Xeon\n"
               "flags\t\t: fpu sse2 hypervisor\n", &ci);
    CHECK(!ci.arm && ci.nparts == 0 && !ci.have_features, "x86 cpuinfo: not aarch64");
    /* big.LITTLE: two MIDRs, counted, first seen first; decimal numbers too */
    parse_text("processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU variant\t: 0x4\n"
               "CPU part\t: 0xd4d\nCPU revision\t: 0\n\n"
               "processor\t: 1\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU variant\t: 0x1\n"
               "CPU part\t: 0xd46\nCPU revision\t: 1\n\n"
               "processor\t: 2\nFeatures\t: fp asimd\nCPU implementer\t: 65\nCPU variant\t: 1\n"
               "CPU part\t: 3398\nCPU revision\t: 1\n", &ci);
    CHECK(ci.arm && ci.nparts == 2 && ci.part[0].part == 0xd4d && ci.part[0].cpus == 1 &&
              ci.part[1].part == 0xd46 && ci.part[1].cpus == 2,
          "two MIDRs, the decimal one the same as its hex twin (parts %d)", ci.nparts);
    char name[512];
    mb_arm_cpu_name(&ci, NULL, name, sizeof name);
    CHECK_EQ_STR(name, "1 x ARM (implementer 0x41) part 0xd4d r4p0 (part not in memsuite's table) + "
                 "2 x ARM (implementer 0x41) part 0xd46 r1p1 (part not in memsuite's table)",
                 "mixed parts: each named, with its count");
    /* garbage numbers are not a MIDR */
    parse_text("CPU implementer\t: banana\nCPU part\t: 0xd40\n", &ci);
    CHECK(!ci.arm, "an implementer that is no number: not taken");
}

static void test_table(void)
{
    for (size_t i = 0; i < sizeof table_cases / sizeof table_cases[0]; i++) {
        const char *got = mb_arm_part_name(table_cases[i].implementer, table_cases[i].part);
        if (table_cases[i].name)
            CHECK_EQ_STR(got, table_cases[i].name, table_cases[i].name);
        else
            CHECK(got == NULL, "0x%02x 0x%03x: not in the table (got %s)",
                  table_cases[i].implementer, table_cases[i].part, got ? got : "NULL");
    }
    CHECK_EQ_STR(mb_arm_implementer_name(0xc0), "Ampere", "implementer 0xc0");
    CHECK(mb_arm_implementer_name(0x99) == NULL, "implementer 0x99 unknown");
}

/* An SMBIOS type 4 entry: formatted area of `flen` bytes, the version
 * string number at 0x10, then the strings. */
static size_t smbios(unsigned char *buf, unsigned flen, unsigned want, const char *strings,
                     size_t slen)
{
    memset(buf, 0, 512);
    buf[0] = 4;
    buf[1] = (unsigned char)flen;
    buf[0x10] = (unsigned char)want;
    memcpy(buf + flen, strings, slen);
    return flen + slen;
}

static void test_smbios(void)
{
    unsigned char raw[512];
    char out[128];
    size_t n = smbios(raw, 0x2a, 3, "CPU 1\0AWS\0AWS Graviton3\0\0", 26);
    CHECK(mb_arm_smbios_version(raw, n, out, sizeof out) && strcmp(out, "AWS Graviton3") == 0,
          "SMBIOS version string 3: '%s'", out);
    n = smbios(raw, 0x2a, 2, "CPU 1\0Not Specified\0\0", 22);
    CHECK(!mb_arm_smbios_version(raw, n, out, sizeof out), "a placeholder is no version");
    n = smbios(raw, 0x2a, 0, "CPU 1\0\0", 7);
    CHECK(!mb_arm_smbios_version(raw, n, out, sizeof out), "string number 0: none");
    n = smbios(raw, 0x2a, 5, "CPU 1\0AWS\0\0", 12);
    CHECK(!mb_arm_smbios_version(raw, n, out, sizeof out), "a string number past the last string");
    n = smbios(raw, 0x2a, 1, "unterminated", 12);
    CHECK(!mb_arm_smbios_version(raw, n, out, sizeof out), "an unterminated string: damaged");
    raw[0] = 17;
    CHECK(!mb_arm_smbios_version(raw, n, out, sizeof out), "another type: not read");
    n = smbios(raw, 0x2a, 1, "Evil\033[2J\0\0", 11);
    CHECK(mb_arm_smbios_version(raw, n, out, sizeof out) && strcmp(out, "Evil^[[2J") == 0,
          "control characters shown in caret notation (mb_shown): '%s'", out);
}

static void test_rule(void)
{
    parse_text("processor\t: 0\nCPU implementer\t: 0x41\nCPU variant\t: 0x1\nCPU part\t: 0xd40\n"
               "CPU revision\t: 1\n", &ci);
    static const struct {
        mb_arm_firmware_t fw;
        const char *want;
    } cases[] = {
        { { "", "", "" }, "ARM Neoverse V1 r1p1" },
        { { "", "", "Amazon EC2" }, "AWS Graviton3 (ARM Neoverse V1 r1p1; DMI sys_vendor 'Amazon EC2')" },
        { { "", "AWS Graviton3", "Amazon EC2" },
          "AWS Graviton3 (ARM Neoverse V1 r1p1; SMBIOS processor version)" },
        { { "jep106:036b:0241", "AWS Graviton3", "" },
          "NVIDIA Grace (ARM Neoverse V1 r1p1; SoC ID jep106:036b:0241)" },
        { { "jep106:0000:0000", "", "Dell Inc." }, "ARM Neoverse V1 r1p1" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[512];
        mb_arm_cpu_name(&ci, &cases[i].fw, name, sizeof name);
        CHECK_EQ_STR(name, cases[i].want, cases[i].want);
    }
    /* Graviton by EC2 only for the cores Gravitons have */
    parse_text("CPU implementer\t: 0x46\nCPU variant\t: 0x1\nCPU part\t: 0x001\nCPU revision\t: 0\n", &ci);
    mb_arm_firmware_t ec2 = { "", "", "Amazon EC2" };
    char name[512];
    mb_arm_cpu_name(&ci, &ec2, name, sizeof name);
    CHECK_EQ_STR(name, "Fujitsu A64FX r1p0", "an A64FX is no Graviton, whatever DMI says");
}

int main(void)
{
    test_table();
    test_fixtures();
    test_parse();
    test_smbios();
    test_rule();
    return check_done();
}
