/* virt: is this a virtual machine, and which hypervisor?  Two witnesses:
 * the DMI strings (<sysfs>/class/dmi/id/{sys_vendor,product_name,
 * board_vendor,bios_vendor}) matched against known hypervisor vendors,
 * and the CPU's "hypervisor" flag in <procfs>/cpuinfo (x86 only: an
 * aarch64 cpuinfo has no such flag).  Where DMI names none, the
 * firmware's own marks: <sysfs>/hypervisor/type and the device tree
 * (<sysfs>/firmware/devicetree/base: QEMU's "linux,dummy-virt", Xen's
 * hypervisor node), which an aarch64 guest without SMBIOS has.  Paths
 * honour MEMSUITE_SYSFS / MEMSUITE_PROCFS.
 *
 * The answer's first word is the verdict: "none" (DMI names a hardware
 * vendor and the flag is absent), a hypervisor name from the DMI table
 * ("kvm", "vmware", ...), or "vm" (the flag says virtual but DMI does
 * not name the hypervisor); the evidence follows in parentheses.  With
 * neither witness readable the result is unknown, with the reasons. */
#ifndef MB_VIRT_H
#define MB_VIRT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool known;            /* false: neither witness was readable (why) */
    bool virtual_machine;
    char hypervisor[32];   /* "kvm", ..., "vm" (unnamed), "none" */
    char text[400];        /* "kvm (DMI sys_vendor 'QEMU'; cpuinfo flag hypervisor)" */
    char why[300];
} mb_virt_t;

void mb_virt_detect(mb_virt_t *v);

#endif
