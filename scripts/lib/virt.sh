# shellcheck shell=bash
# virt: virtual machine or not, from the DMI vendor strings
# (<sysfs>/class/dmi/id/{sys_vendor,product_name,bios_vendor}) and the CPU's
# "hypervisor" flag (<procfs>/cpuinfo); the same rules as common/virt.c.
#
# ms_virt_detect sets MS_VIRT (none | vm | kvm | qemu | vmware | ... ;
# empty when neither witness is readable) and MS_VIRT_TEXT (the verdict
# and its evidence, or the reasons when unknown).

ms_use sysfs

# file<TAB>pattern (case-insensitive substring)<TAB>hypervisor
MS_VIRT_VENDORS='sys_vendor	QEMU	qemu
product_name	KVM	kvm
sys_vendor	VMware	vmware
product_name	VirtualBox	virtualbox
sys_vendor	innotek	virtualbox
sys_vendor	Xen	xen
product_name	Virtual Machine	hyperv
sys_vendor	Google	gce
sys_vendor	OpenStack	openstack
product_name	OpenStack	openstack
sys_vendor	Parallels	parallels
sys_vendor	Bochs	bochs
sys_vendor	BHYVE	bhyve
bios_vendor	SeaBIOS	qemu
sys_vendor	Alibaba Cloud	alibaba
product_name	Amazon EC2	amazon
sys_vendor	Amazon EC2	amazon'

MS_VIRT="" MS_VIRT_TEXT=""

ms_virt_detect() {
    local dir f v file pat name hit="" hitfile="" have=0 flag flagtxt dmitxt
    local -A dmi=()
    dir=$(ms_sysfs /class/dmi/id)
    for f in sys_vendor product_name bios_vendor; do
        v=$(ms_read_line "$dir/$f" 2>/dev/null) || v=""
        dmi[$f]="$v"
        [ -n "$v" ] && have=1
    done
    while IFS=$'\t' read -r file pat name; do
        v="${dmi[$file]:-}"
        [ -n "$v" ] || continue
        if [[ "${v,,}" == *"${pat,,}"* ]]; then
            hit="$name" hitfile="$file"
            break
        fi
    done <<<"$MS_VIRT_VENDORS"
    # EC2 bare-metal instances carry the Amazon strings too
    if [ "$hit" = amazon ] && [[ "${dmi[product_name],,}" == *metal* ]]; then hit=""; fi
    local cpuinfo
    cpuinfo=$(ms_procfs /cpuinfo)
    if [ ! -r "$cpuinfo" ]; then
        flag=-1 flagtxt="cannot read $cpuinfo"
    elif ! v=$(grep -m 1 '^flags' "$cpuinfo"); then
        flag=-1 flagtxt="no flags line in $cpuinfo (not x86?)"
    elif [[ " ${v#*:} " == *" hypervisor "* ]]; then
        flag=1 flagtxt="cpuinfo flag hypervisor"
    else
        flag=0 flagtxt="cpuinfo without the hypervisor flag"
    fi
    if [ -n "$hit" ]; then
        dmitxt="DMI $hitfile '${dmi[$hitfile]}'"
    elif [ "$have" = 1 ]; then
        dmitxt="DMI sys_vendor '${dmi[sys_vendor]:-?}', product '${dmi[product_name]:-?}': no hypervisor vendor"
    else
        dmitxt="no DMI strings under $dir"
    fi
    if [ -z "$hit" ] && [ "$have" = 0 ] && [ "$flag" = -1 ]; then
        MS_VIRT="" MS_VIRT_TEXT="$dmitxt; $flagtxt"
        return 1
    fi
    if [ -n "$hit" ]; then MS_VIRT="$hit"
    elif [ "$flag" = 1 ]; then MS_VIRT=vm
    else MS_VIRT=none
    fi
    MS_VIRT_TEXT="$MS_VIRT ($dmitxt; $flagtxt)"
}
