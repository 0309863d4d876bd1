/* armcpu: naming an aarch64 CPU.  An aarch64 /proc/cpuinfo has no
 * "model name": each processor block gives its Main ID Register as
 * "CPU implementer", "CPU variant", "CPU part" and "CPU revision" lines,
 * and its ISA extensions on a "Features" line (x86: "flags").  The
 * parsing follows the cpuinfo format it is given, never the
 * architecture memsuite was built for, so x86 tests read ARM fixtures.
 *
 * The naming rule.  The MIDR names the core design, not the product:
 * AWS Graviton3 and any other Neoverse V1 chip carry the same
 * implementer 0x41 part 0xd40, NVIDIA Grace is implementer 0x41 (ARM)
 * part 0xd4f (Neoverse V2), Ampere Altra is a Neoverse N1.  So the name
 * is what the MIDR says ("ARM Neoverse V1 r1p1"), and a product name is
 * put before it only when the firmware says it, in this order:
 *   1. the SMCCC SoC ID, <sysfs>/devices/soc0/soc_id, in the table of
 *      known SoCs ("jep106:036b:0241": NVIDIA Grace);
 *   2. the SMBIOS processor version (type 4), from
 *      <sysfs>/firmware/dmi/entries/4-0/raw (readable by root), e.g.
 *      "AWS Graviton3", unless it is a placeholder ("Not Specified");
 *   3. the DMI vendor: <sysfs>/class/dmi/id/sys_vendor "Amazon EC2"
 *      with a Neoverse N1, V1 or V2 is Graviton2, 3 or 4 (each Graviton
 *      generation has one core design, and EC2's aarch64 instances run
 *      only Gravitons); the value names that evidence.
 * The result: "AWS Graviton3 (ARM Neoverse V1 r1p1; DMI sys_vendor
 * 'Amazon EC2')", "NVIDIA Grace (ARM Neoverse V2 r0p0; SoC ID
 * jep106:036b:0241)", "Fujitsu A64FX r1p0".  A part not in the table is
 * named by its numbers: "ARM (implementer 0x41) part 0xd99 r0p0 (part not
 * in memsuite's table)". */
#ifndef MB_ARMCPU_H
#define MB_ARMCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MB_ARM_MAX_PARTS 4

typedef struct {
    unsigned implementer, part, variant, revision;
    int cpus;                  /* processor blocks with this MIDR */
} mb_arm_midr_t;

typedef struct {
    bool arm;                  /* the cpuinfo has "CPU implementer" lines */
    int nparts;                /* distinct MIDRs, first seen first */
    mb_arm_midr_t part[MB_ARM_MAX_PARTS];
    int more_parts;            /* distinct MIDRs beyond MB_ARM_MAX_PARTS */
    bool have_features;
    char features[2048];       /* the first "Features" line's value */
} mb_arm_cpuinfo_t;

/* Reads a cpuinfo stream.  Never fails: out->arm says whether it was the
 * aarch64 format. */
void mb_arm_cpuinfo_parse(FILE *f, mb_arm_cpuinfo_t *out);

/* "ARM Neoverse V2", "Fujitsu A64FX"; NULL for a part not in the table. */
const char *mb_arm_part_name(unsigned implementer, unsigned part);
/* "ARM", "NVIDIA", "Ampere", ...; NULL when unknown. */
const char *mb_arm_implementer_name(unsigned implementer);

/* The firmware's words about the SoC, each "" when absent. */
typedef struct {
    char soc_id[64];           /* <sysfs>/devices/soc0/soc_id */
    char smbios_version[128];  /* SMBIOS type 4 processor version */
    char dmi_vendor[128];      /* <sysfs>/class/dmi/id/sys_vendor */
} mb_arm_firmware_t;

/* Reads them through MEMSUITE_SYSFS. */
void mb_arm_firmware_read(mb_arm_firmware_t *fw);

/* The name by the rule above into out.  fw may be NULL (the MIDR alone). */
void mb_arm_cpu_name(const mb_arm_cpuinfo_t *ci, const mb_arm_firmware_t *fw, char *out,
                     size_t outlen);

/* The SMBIOS type 4 processor version string of a raw entry (the bytes
 * of /sys/firmware/dmi/entries/4-0/raw); false when it has none or only
 * a placeholder. */
bool mb_arm_smbios_version(const unsigned char *raw, size_t len, char *out, size_t outlen);

#endif
