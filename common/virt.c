/* virt: DMI vendor strings and the cpuinfo hypervisor flag. */
#include "virt.h"
#include "factfile.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sizing.h"

/* The DMI files read, in order. */
static const char *const dmi_files[] = { "sys_vendor", "product_name", "board_vendor",
                                         "bios_vendor" };
#define NDMI (sizeof dmi_files / sizeof dmi_files[0])

/* A DMI string that names a hypervisor: `pattern` (case-insensitive
 * substring) found in the file `file`. */
static const struct {
    const char *file, *pattern, *name;
} dmi_vendors[] = {
    { "sys_vendor", "QEMU", "qemu" },
    { "product_name", "KVM", "kvm" },
    { "sys_vendor", "VMware", "vmware" },
    { "product_name", "VirtualBox", "virtualbox" },
    { "sys_vendor", "innotek", "virtualbox" },
    { "sys_vendor", "Xen", "xen" },
    { "product_name", "Virtual Machine", "hyperv" },
    { "sys_vendor", "Google", "gce" },
    { "sys_vendor", "OpenStack", "openstack" },
    { "product_name", "OpenStack", "openstack" },
    { "sys_vendor", "Parallels", "parallels" },
    { "sys_vendor", "Bochs", "bochs" },
    { "sys_vendor", "BHYVE", "bhyve" },
    { "bios_vendor", "SeaBIOS", "qemu" },
    { "sys_vendor", "Alibaba Cloud", "alibaba" },
    { "product_name", "Amazon EC2", "amazon" },
    { "sys_vendor", "Amazon EC2", "amazon" },
};

/* The firmware's own word, where DMI has none (an aarch64 guest booted
 * with a device tree has no SMBIOS): <sysfs>/hypervisor/type (Xen
 * writes "xen"), then the device tree's root compatible strings
 * (QEMU's virt board is "linux,dummy-virt") and its hypervisor node
 * (Xen's "xen,xen").  Returns the hypervisor name and writes the
 * evidence, or NULL. */
static const struct {
    const char *rel, *pattern, *name;
} fw_marks[] = {
    { "/hypervisor/type", "xen", "xen" },
    { "/firmware/devicetree/base/compatible", "linux,dummy-virt", "qemu" },
    { "/firmware/devicetree/base/hypervisor/compatible", "xen,xen", "xen" },
};

static const char *firmware_mark(char *evidence, size_t evlen)
{
    for (size_t k = 0; k < sizeof fw_marks / sizeof fw_marks[0]; k++) {
        char path[4096], buf[512];
        mb_sysfs_path(path, sizeof path, fw_marks[k].rel);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* a compatible property is a list of NUL-terminated strings */
        for (size_t at = 0; at < n; at += strlen(buf + at) + 1) {
            char *s = buf + at;
            s[strcspn(s, "\n")] = '\0';
            if (strcmp(s, fw_marks[k].pattern) == 0) {
                snprintf(evidence, evlen, "%s '%s'",
                         k == 0 ? "/sys/hypervisor/type" : "device tree compatible",
                         fw_marks[k].pattern);
                return fw_marks[k].name;
            }
        }
    }
    return NULL;
}

/* The "hypervisor" word on a "flags" line of cpuinfo: 1 yes, 0 no,
 * -errno when cpuinfo is unreadable, -ENOENT without a flags line (an
 * aarch64 cpuinfo has none: its CPUs carry no such flag). */
static int cpu_flag(char *why, size_t whylen)
{
    char path[4096], line[8192];
    mb_procfs_path(path, sizeof path, "/cpuinfo");
    FILE *f = mb_fact_fopen(path);
    if (!f) {
        int e = errno;
        snprintf(why, whylen, "cannot read %.200s: %s", path, mb_fact_strerror(e));
        return -e;
    }
    int found = -ENOENT;
    bool arm = false;
    while (found == -ENOENT && fgets(line, sizeof line, f)) {
        if (strncmp(line, "CPU implementer", 15) == 0)
            arm = true;
        if (strncmp(line, "flags", 5) != 0 || !strchr(line, ':'))
            continue;
        found = 0;
        for (char *t = strtok(strchr(line, ':') + 1, " \t\n"); t; t = strtok(NULL, " \t\n"))
            if (strcmp(t, "hypervisor") == 0)
                found = 1;
    }
    fclose(f);
    if (found == -ENOENT && arm)
        snprintf(why, whylen, "aarch64 cpuinfo has no hypervisor flag");
    else if (found == -ENOENT)
        snprintf(why, whylen, "no flags line in %.200s (not x86?)", path);
    return found;
}

void mb_virt_detect(mb_virt_t *v)
{
    char dmi[NDMI][128], path[4096], dir[4096];
    bool have_dmi = false;
    memset(v, 0, sizeof *v);
    mb_sysfs_path(dir, sizeof dir, "/class/dmi/id");
    for (size_t i = 0; i < NDMI; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "/class/dmi/id/%s", dmi_files[i]);
        mb_sysfs_path(path, sizeof path, rel);
        if (mb_read_line(path, dmi[i], sizeof dmi[i]) < 0)
            dmi[i][0] = '\0';
        have_dmi |= dmi[i][0] != '\0';
    }
    const char *name = NULL, *hit = NULL;
    size_t hit_file = 0;
    for (size_t k = 0; !name && k < sizeof dmi_vendors / sizeof dmi_vendors[0]; k++)
        for (size_t i = 0; i < NDMI; i++)
            if (strcmp(dmi_files[i], dmi_vendors[k].file) == 0 && dmi[i][0] &&
                strcasestr(dmi[i], dmi_vendors[k].pattern)) {
                name = dmi_vendors[k].name;
                hit = dmi[i];
                hit_file = i;
                break;
            }
    /* EC2 bare-metal instances carry the Amazon strings too. */
    if (name && strcmp(name, "amazon") == 0 && strcasestr(dmi[1], "metal"))
        name = NULL;

    char fw_text[120] = "";
    const char *fw_name = name ? NULL : firmware_mark(fw_text, sizeof fw_text);
    char flag_why[300] = "";
    int flag = cpu_flag(flag_why, sizeof flag_why);
    char dmi_text[200], flag_text[320];
    if (name)
        snprintf(dmi_text, sizeof dmi_text, "DMI %s '%.80s'", dmi_files[hit_file], hit);
    else if (have_dmi)
        snprintf(dmi_text, sizeof dmi_text, "DMI sys_vendor '%.60s', product '%.60s': no "
                 "hypervisor vendor", dmi[0][0] ? dmi[0] : "?", dmi[1][0] ? dmi[1] : "?");
    else
        snprintf(dmi_text, sizeof dmi_text, "no DMI strings under %.150s", dir);
    if (flag >= 0)
        snprintf(flag_text, sizeof flag_text, "cpuinfo %s", flag ? "flag hypervisor"
                                                             : "without the hypervisor flag");
    else
        snprintf(flag_text, sizeof flag_text, "%.300s", flag_why);

    if (!name && !fw_name && !have_dmi && flag < 0) {
        snprintf(v->why, sizeof v->why, "%.120s; %.170s", dmi_text, flag_text);
        return;
    }
    v->known = true;
    v->virtual_machine = name != NULL || fw_name != NULL || flag == 1;
    snprintf(v->hypervisor, sizeof v->hypervisor, "%s",
             name ? name : fw_name ? fw_name : v->virtual_machine ? "vm" : "none");
    if (fw_name)
        snprintf(v->text, sizeof v->text, "%s (%.100s; %.120s; %.120s)", v->hypervisor, fw_text,
                 dmi_text, flag_text);
    else
        snprintf(v->text, sizeof v->text, "%s (%.190s; %.170s)", v->hypervisor, dmi_text,
                 flag_text);
}
