/* test_virt: virtualisation from fake sysfs/procfs trees (a table of
 * DMI strings and cpuinfo flags -> verdict), the unknown case with both
 * reasons, and the sysinfo fact built from it. */
#include "check.h"
#include "sysinfo.h"
#include "virt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const char *sys_vendor, *product_name, *bios_vendor;   /* NULL: no file */
    const char *flags;                                      /* NULL: no cpuinfo */
    bool known, vm;
    const char *hypervisor;
    const char *text_has;
} virt_case_t;

static const virt_case_t cases[] = {
    { "QEMU", "Standard PC (Q35 + ICH9, 2009)", "SeaBIOS", "fpu vme hypervisor lahf_lm", true,
      true, "qemu", "DMI sys_vendor 'QEMU'; cpuinfo flag hypervisor" },
    { "VMware, Inc.", "VMware Virtual Platform", NULL, "fpu vme hypervisor", true, true, "vmware",
      NULL },
    { "Microsoft Corporation", "Virtual Machine", NULL, "fpu hypervisor", true, true, "hyperv",
      NULL },
    { "Amazon EC2", "m5.metal", NULL, "fpu vme", true, false, "none", NULL },
    { "Amazon EC2", "m5.large", NULL, "fpu hypervisor", true, true, "amazon", NULL },
    { "Dell Inc.", "PowerEdge R650", "Dell Inc.", "fpu vme sse2", true, false, "none",
      "no hypervisor vendor; cpuinfo without the hypervisor flag" },
    { NULL, NULL, NULL, "fpu vme hypervisor", true, true, "vm",
      "no DMI strings under" },
    { "Dell Inc.", "PowerEdge", NULL, NULL, true, false, "none", "cannot read" },
    { NULL, NULL, NULL, NULL, false, false, "", NULL },
};


/* aarch64: no hypervisor flag; DMI, then the device tree and /sys/hypervisor. */
typedef struct {
    const char *sys_vendor, *product_name;   /* NULL: no file */
    const char *dt_compatible;               /* root compatible strings, "a\0b\0" */
    size_t dt_len;
    const char *hyp_type;                    /* /sys/hypervisor/type */
    bool vm;
    const char *hypervisor, *text_has;
} arm_case_t;

static const arm_case_t arm_cases[] = {
    { "Amazon EC2", "c7g.xlarge", NULL, 0, NULL, true, "amazon",
      "DMI sys_vendor 'Amazon EC2'; aarch64 cpuinfo has no hypervisor flag" },
    { NULL, NULL, "linux,dummy-virt\0", 17, NULL, true, "qemu",
      "qemu (device tree compatible 'linux,dummy-virt'; no DMI strings under" },
    { NULL, NULL, NULL, 0, "xen", true, "xen", "xen (/sys/hypervisor/type 'xen'" },
    { "NVIDIA", "Grace Hopper", "nvidia,grace\0arm,sbsa\0", 23, NULL, false, "none",
      "no hypervisor vendor; aarch64 cpuinfo has no hypervisor flag" },
};

static char root[] = "/tmp/test_virt.XXXXXX";

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", root, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void tree(const virt_case_t *c)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/sys' '%s/proc' && mkdir -p '%s/sys/class/dmi/id' "
             "'%s/proc'", root, root, root, root);
    CHECK(system(cmd) == 0, "tree reset");
    if (c->sys_vendor)
        put("/sys/class/dmi/id/sys_vendor", c->sys_vendor);
    if (c->product_name)
        put("/sys/class/dmi/id/product_name", c->product_name);
    if (c->bios_vendor)
        put("/sys/class/dmi/id/bios_vendor", c->bios_vendor);
    if (c->flags) {
        char body[300];
        snprintf(body, sizeof body, "processor\t: 0\nvendor_id\t: X\nflags\t\t: %s", c->flags);
        put("/proc/cpuinfo", body);
    }
}

static void arm_tree(const arm_case_t *c)
{
    virt_case_t base = { c->sys_vendor, c->product_name, NULL, NULL, true, false, "", NULL };
    tree(&base);
    put("/proc/cpuinfo", "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n"
        "CPU part\t: 0xd40");
    char cmd[600];
    if (c->dt_compatible) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/sys/firmware/devicetree/base'", root);
        CHECK(system(cmd) == 0, "device tree directory");
        char path[512];
        snprintf(path, sizeof path, "%s/sys/firmware/devicetree/base/compatible", root);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(c->dt_compatible, 1, c->dt_len, f);
            fclose(f);
        }
    }
    if (c->hyp_type) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/sys/hypervisor'", root);
        CHECK(system(cmd) == 0, "hypervisor directory");
        put("/sys/hypervisor/type", c->hyp_type);
    }
}

int main(void)
{
    CHECK(mkdtemp(root) != NULL, "temp root");
    char sys[600], proc[600];
    snprintf(sys, sizeof sys, "%s/sys", root);
    snprintf(proc, sizeof proc, "%s/proc", root);
    setenv("MEMSUITE_SYSFS", sys, 1);
    setenv("MEMSUITE_PROCFS", proc, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const virt_case_t *c = &cases[i];
        tree(c);
        mb_virt_t v;
        mb_virt_detect(&v);
        if (!c->known) {
            CHECK(!v.known && strstr(v.why, "no DMI strings") && strstr(v.why, "cannot read"),
                  "case %zu: neither witness: unknown, both reasons: %s", i, v.why);
            continue;
        }
        CHECK(v.known && v.virtual_machine == c->vm && strcmp(v.hypervisor, c->hypervisor) == 0 &&
              strncmp(v.text, c->hypervisor, strlen(c->hypervisor)) == 0 &&
              (!c->text_has || strstr(v.text, c->text_has)),
              "case %zu: %s / %s / %s -> %s", i, c->sys_vendor ? c->sys_vendor : "-",
              c->product_name ? c->product_name : "-", c->flags ? c->flags : "-", v.text);
    }
    for (size_t i = 0; i < sizeof arm_cases / sizeof arm_cases[0]; i++) {
        const arm_case_t *c = &arm_cases[i];
        arm_tree(c);
        mb_virt_t v;
        mb_virt_detect(&v);
        CHECK(v.known && v.virtual_machine == c->vm && strcmp(v.hypervisor, c->hypervisor) == 0 &&
              strstr(v.text, c->text_has),
              "aarch64 case %zu: %s -> %s", i, c->hypervisor, v.known ? v.text : v.why);
    }
    /* The sysinfo fact carries the same text. */
    tree(&cases[0]);
    mb_sysinfo_t si;
    mb_sysinfo_collect(&si);
    const mb_fact_t *f = mb_sysinfo_get(&si, "virtualization");
    CHECK(f && f->ok && strncmp(f->value, "qemu (DMI sys_vendor 'QEMU'", 27) == 0,
          "sysinfo virtualization: %s", f ? f->value : "(missing)");
    tree(&cases[sizeof cases / sizeof cases[0] - 1]);
    mb_sysinfo_collect(&si);
    f = mb_sysinfo_get(&si, "virtualization");
    CHECK(f && !f->ok && strlen(f->why) > 0, "sysinfo virtualization unavailable: %s",
          f ? f->why : "(missing)");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleanup");
    return check_done();
}
