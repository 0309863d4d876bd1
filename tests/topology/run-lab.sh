#!/usr/bin/env bash
# Summary: the topology lab: boot real kernels on emulated NUMA/SMT shapes
# Usage: tests/topology/run-lab.sh BIN_DIR WORK_DIR [SHAPE...]
#
# The architecture is the tools': BIN_DIR's stream is an x86-64 or an
# aarch64 ELF file, and the shapes of tests/topology/shapes.tsv for that
# architecture are booted (all of them when none is named).
#
# Builds an initramfs (bash, jq, numactl, python3, GNU coreutils and
# friends, busybox for the rest, the tools in BIN_DIR, scripts/memsuite
# with its lib/, profiles/ and the analyser, and
# tests/topology/guest-checks.sh), then boots each shape under QEMU TCG.
#   x86-64   the host's own programs and every library ldd lists, the
#            distribution kernel (/boot/vmlinuz-*, newest, or LAB_KERNEL)
#   aarch64  Debian's arm64 packages, fetched with apt-get download (the
#            closure of apt-cache depends, into LAB_DEB_DIR, default
#            WORK_DIR.debs, kept between runs) and unpacked with dpkg-deb;
#            the kernel of linux-image-arm64 (or LAB_KERNEL); qemu-system-
#            aarch64 -M virt, a device-tree machine
# The guest prints TAP between two marker lines on its serial console;
# this script collects it, prefixes each test with the shape, and ends
# with "N passed, N failed, N skipped".  A guest that does not boot, runs
# past LAB_TIMEOUT seconds (default 480), or prints no plan or fewer
# results than its plan is a failure, never a skip.  A guest that freezes
# (its /init prints nothing within LAB_BOOT_TIMEOUT seconds, default 150,
# or its console, heartbeat included, is silent for LAB_STALL_TIMEOUT
# seconds, default 90) is booted afresh, and says so, up to LAB_BOOT_TRIES
# boots (default 3): TCG freezes a guest now and then.
# Console logs stay in WORK_DIR/<shape>.console.
# Exit: 0 all passed, 1 a failure, 2 usage, 3 a missing tool or kernel.
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/../.." && pwd)

die() { echo "check-topology: $2" >&2; exit "$1"; }

[ $# -ge 2 ] || die 2 "usage: tests/topology/run-lab.sh BIN_DIR WORK_DIR [SHAPE...]"
bindir=$(cd -- "$1" && pwd) || die 2 "BIN_DIR '$1' is not a directory"
work="$2"
shift 2
timeout_s="${LAB_TIMEOUT:-480}"   # TCG; the analyser (python3) starts slowly there
[[ "$timeout_s" =~ ^[0-9]+$ ]] || die 2 "LAB_TIMEOUT='$timeout_s': expected whole seconds"
for b in stream mencal mbw; do
    [ -x "$bindir/$b" ] || die 3 "$bindir/$b missing; build the tools first (make check-topology or make check-aarch64)"
done

# The ELF e_machine of the tools (bytes 18-19, little-endian): 0x3e
# x86-64, 0xb7 aarch64.
case "$(od -An -tx1 -j18 -N2 -- "$bindir/stream" | tr -d ' \n')" in
    3e00) arch=x86_64 ;;
    b700) arch=aarch64 ;;
    *) die 2 "$bindir/stream is neither an x86-64 nor an aarch64 ELF file" ;;
esac

need=(cpio jq timeout)
if [ "$arch" = x86_64 ]; then
    need+=(qemu-system-x86_64 busybox ldd)
    hint="make deps (qemu-system-x86 linux-image-amd64 busybox-static cpio)"
else
    need+=(qemu-system-aarch64 apt-get apt-cache dpkg-deb)
    hint="make deps-aarch64 (qemu-system-arm, the arm64 architecture in dpkg)"
fi
for t in "${need[@]}"; do
    command -v "$t" >/dev/null 2>&1 || die 3 "$t not found; run '$hint'"
done

# --- initramfs ---
rm -rf -- "$work"
mkdir -p -- "$work"
work=$(cd -- "$work" && pwd)
rd="$work/root"
mkdir -p "$rd"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,lab/bin,lab/scripts}

copy_with_libs() {     # copy_with_libs FILE DEST_DIR: FILE and its libraries
    local f="$1" dest="$2" lib
    cp -L -- "$f" "$rd$dest/${f##*/}"
    while read -r lib; do
        [ -e "$rd$lib" ] && continue
        mkdir -p "$rd$(dirname -- "$lib")"
        cp -L -- "$lib" "$rd$lib"
    done < <(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | sort -u)
}

# x86-64 guest userland: the host's GNU tools first on PATH (memsuite is
# written for them), busybox applets for the rest (mount, poweroff, ...),
# Debian's python3 with its standard library less tests, GUI and packaging
# (about 14 MB).
userland_host() {
    local t p b py pylib so lib
    cp -L "$(command -v busybox)" "$rd/bin/busybox"
    local -a tools=(bash jq numactl flock taskset gawk sed grep find xargs getconf)
    mapfile -t -O "${#tools[@]}" tools < <({ dpkg -L coreutils || rpm -ql coreutils; } 2>/dev/null | grep -E '^/usr/bin/[^/]+$' | sed 's#.*/##')
    for t in "${tools[@]}"; do
        p=$(command -v "$t" 2>/dev/null) || continue
        [ -f "$p" ] && copy_with_libs "$p" /usr/bin
    done
    ln -sf gawk "$rd/usr/bin/awk"
    for b in "$bindir"/*; do
        [ -f "$b" ] && [ -x "$b" ] && copy_with_libs "$b" /lab/bin
    done
    # libgomp/libnuma/PAPI may dlopen nothing else; glibc's NSS is not needed.
    py=/usr/bin/python3
    [ -x "$py" ] || die 3 "$py not found; run 'make deps' (python3)"
    copy_with_libs "$py" /usr/bin
    pylib=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
    mkdir -p "$rd$pylib"
    (cd "$pylib" && tar --exclude=./test --exclude=./idlelib --exclude=./tkinter --exclude=./ensurepip \
         --exclude=./lib2to3 --exclude=./pydoc_data --exclude=./dist-packages --exclude=./site-packages \
         --exclude='./lib-dynload/_tkinter*' --exclude='./lib-dynload/_sqlite3*' --exclude='./lib-dynload/_dbm*' \
         --exclude='./lib-dynload/_gdbm*' \
         --exclude='__pycache__' --exclude='./config-*' -cf - .) | (cd "$rd$pylib" && tar -xf -)
    for so in "$rd$pylib"/lib-dynload/*.so; do
        [ -f "$so" ] || continue
        while read -r lib; do
            [ -e "$rd$lib" ] && continue
            mkdir -p "$rd$(dirname -- "$lib")"
            cp -L -- "$lib" "$rd$lib"
        done < <(ldd "$pylib/lib-dynload/${so##*/}" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' | sort -u)
    done
}

# aarch64 guest userland: the same programs from Debian's arm64 packages
# and everything they depend on (no recommends), unpacked into the root;
# the libraries the tools link (libgomp, libnuma, PAPI) come the same way.
# The kernel image is the one linux-image-arm64 depends on.
ARM64_PKGS=(bash busybox-static coreutils findutils gawk grep sed util-linux procps jq numactl
            python3-minimal libpython3.11-stdlib libgomp1 libnuma1 libpapi7.0)
userland_arm64() {
    local debs="${LAB_DEB_DIR:-$work.debs}" p kpkg deb
    local -a pkgs=()
    mkdir -p -- "$debs"
    debs=$(cd -- "$debs" && pwd)
    for p in "${ARM64_PKGS[@]}"; do pkgs+=("$p:arm64"); done
    kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\):arm64$/\1/p' | head -n 1)
    [ -n "$kpkg" ] || [ -n "${LAB_KERNEL:-}" ] ||
        die 3 "apt knows no linux-image-arm64:arm64; run '$hint' (and apt-get update)"
    mapfile -t pkgs < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
        --no-breaks --no-replaces --no-enhances "${pkgs[@]}" 2>/dev/null | grep -E '^[a-z0-9][^ ]*:arm64$' | sort -u)
    [ "${#pkgs[@]}" -gt 10 ] || die 3 "apt-cache resolves no arm64 packages; run '$hint' (and apt-get update)"
    [ -z "$kpkg" ] || [ -n "${LAB_KERNEL:-}" ] || pkgs+=("$kpkg:arm64")
    # The exact files of apt's candidate versions; a cached one is not
    # fetched again, and only these are unpacked (never a stale version
    # an earlier run left in the cache).
    local -a files=()
    local complete=1
    mapfile -t files < <(apt-get download --print-uris "${pkgs[@]}" 2>"$work/apt.err" | awk '{ print $2 }')
    [ "${#files[@]}" -eq "${#pkgs[@]}" ] ||
        die 3 "apt-get names ${#files[@]} files for ${#pkgs[@]} arm64 packages: $(tail -n 2 "$work/apt.err")"
    for deb in "${files[@]}"; do [ -f "$debs/$deb" ] || complete=0; done
    if [ "$complete" = 0 ]; then
        (cd -- "$debs" && apt-get download -q "${pkgs[@]}" >/dev/null 2>"$work/apt.err") ||
            die 3 "apt-get download failed: $(tail -n 2 "$work/apt.err")"
    fi
    for deb in "${files[@]}"; do
        [ -f "$debs/$deb" ] || die 3 "apt-get download gave no $debs/$deb"
        case "$deb" in
            linux-image-*) [ -n "${LAB_KERNEL:-}" ] ||
                dpkg-deb --fsys-tarfile "$debs/$deb" | tar -x -C "$work" --wildcards './boot/vmlinuz-*' ;;
            *) dpkg-deb -x "$debs/$deb" "$rd" ;;
        esac
    done
    # Bookworm's packages keep /bin, /sbin and /lib apart from /usr: merge
    # them as an installed system is (/usr/bin/bash, /usr/bin/env both).
    for p in bin sbin lib; do
        mkdir -p "$rd/usr/$p"
        cp -a -- "$rd/$p/." "$rd/usr/$p/"
        rm -rf -- "${rd:?}/$p"
        ln -s "usr/$p" "$rd/$p"
    done
    rm -rf -- "$rd"/usr/share/{doc,man,info,locale,lintian} "$rd"/usr/lib/python3.*/{test,idlelib,tkinter,ensurepip,lib2to3,pydoc_data}
    cp -- "$bindir"/* "$rd/lab/bin/"
    [ -x "$rd/usr/bin/python3" ] || die 3 "the arm64 packages gave no /usr/bin/python3"
}

if [ "$arch" = x86_64 ]; then
    userland_host
    kernel="${LAB_KERNEL:-}"
    [ -n "$kernel" ] || kernel=$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n 1)
    kernel_hint="run 'make deps' (linux-image-amd64)"
else
    userland_arm64
    kernel="${LAB_KERNEL:-}"
    [ -n "$kernel" ] || kernel=$(find "$work/boot" -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n 1)
    kernel_hint="the linux-image-arm64 package gave none"
fi
{ [ -n "$kernel" ] && [ -r "$kernel" ]; } || die 3 "no readable kernel (LAB_KERNEL or $kernel_hint)"

cp -r "$root/scripts/memsuite" "$root/scripts/lib" "$root/scripts/profiles" "$root/scripts/analysis" "$rd/lab/scripts/"
# the unit table the analyser shares with the tools
mkdir -p "$rd/lab/common"
cp "$root/common/units.def" "$rd/lab/common/"
cp "$here/guest-checks.sh" "$rd/lab/"
cp "$here/init" "$rd/init"
chmod +x "$rd/init"
(cd "$rd" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$work/initrd.cpio"

# --- boot each shape ---
# boot_guest QOPTS APPEND LOG: QEMU's exit status once the guest is done
# (124/137 past LAB_TIMEOUT); 200 when /init printed no begin marker within
# LAB_BOOT_TIMEOUT seconds, 201 when the console then stayed silent for
# LAB_STALL_TIMEOUT seconds, heartbeats included (a frozen guest; it is
# killed either way).
boot_s="${LAB_BOOT_TIMEOUT:-150}"
stall_s="${LAB_STALL_TIMEOUT:-90}"
[[ "$boot_s" =~ ^[0-9]+$ ]] || die 2 "LAB_BOOT_TIMEOUT='$boot_s': expected whole seconds"
[[ "$stall_s" =~ ^[0-9]+$ ]] || die 2 "LAB_STALL_TIMEOUT='$stall_s': expected whole seconds"
boot_guest() {
    local qopts="$1" append="$2" log="$3" pid t0=$SECONDS rc=0 size=-1 now quiet_since=$SECONDS up=0
    # shellcheck disable=SC2086  # qopts is a list of options from the table
    timeout -k 5 "$timeout_s" "${qemu[@]}" $qopts \
        -kernel "$kernel" -initrd "$work/initrd.cpio" -append "$append" \
        -nographic -no-reboot -nodefaults -serial stdio </dev/null >"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        [ "$up" = 1 ] || ! grep -q '=== memsuite-topology-lab begin ===' "$log" || { up=1; quiet_since=$SECONDS; }
        now=$(stat -c %s -- "$log" 2>/dev/null || echo 0)
        [ "$now" = "$size" ] || { size=$now; quiet_since=$SECONDS; }
        if [ "$up" = 0 ] && [ $((SECONDS - t0)) -ge "$boot_s" ]; then rc=200; fi
        if [ "$up" = 1 ] && [ $((SECONDS - quiet_since)) -ge "$stall_s" ]; then rc=201; fi
        if [ "$rc" -ge 200 ]; then
            kill -TERM "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            return "$rc"
        fi
        sleep 2
    done
    wait "$pid" || rc=$?
    return "$rc"
}
# The machine: x86-64 shapes are an Intel model (with an AMD one QEMU does
# not expose SMT); an aarch64 shape names its -cpu in its options.
if [ "$arch" = x86_64 ]; then
    qemu=(qemu-system-x86_64 -accel tcg -cpu Skylake-Server-v4) console=ttyS0
else
    qemu=(qemu-system-aarch64 -accel tcg -M virt) console=ttyAMA0
fi
boot_tries="${LAB_BOOT_TRIES:-3}"
[[ "$boot_tries" =~ ^[1-9]$ ]] || die 2 "LAB_BOOT_TRIES='$boot_tries': expected 1 to 9"

mapfile -t lines < <(grep -v '^#' "$here/shapes.tsv" | grep -v '^[[:space:]]*$')
want=("$@")
passed=0 failed=0 skipped=0

for line in "${lines[@]}"; do
    IFS=$'\t' read -r shape_arch name expect qopts <<<"$line"
    [ "$shape_arch" = "$arch" ] || continue
    if [ "${#want[@]}" -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then continue; fi
    append="console=$console loglevel=1 panic=-1 lab.shape=$name"
    for kv in $expect; do append+=" lab.$kv"; done
    log="$work/$name.console"
    start=$SECONDS
    rc=0
    try=1
    while :; do
        rc=0
        boot_guest "$qopts" "$append" "$log" || rc=$?
        [ "$rc" -ge 200 ] && [ "$try" -lt "$boot_tries" ] || break
        # A TCG guest now and then freezes: before its kernel reaches /init,
        # or later with its heartbeat stopped too (seen in about one boot in
        # eight of these shapes here).  That is QEMU's, not memsuite's: the
        # shape is booted afresh, said here, at most LAB_BOOT_TRIES times.
        mv -- "$log" "$log.frozen-$try"
        if [ "$rc" -eq 200 ]; then
            echo "# [$name] boot $try: /init printed nothing in ${boot_s} s (console: $log.frozen-$try); booting afresh"
        else
            echo "# [$name] boot $try: the guest froze (no output, no heartbeat, for ${stall_s} s; console: $log.frozen-$try); booting afresh"
        fi
        try=$((try + 1))
    done
    tr -d '\r' <"$log" >"$log.tmp" && mv "$log.tmp" "$log"
    # The firmware's escape sequences may precede the first marker.
    tap=$(awk '/=== memsuite-topology-lab begin ===$/ { on = 1; next }
               /^=== memsuite-topology-lab end/ { on = 0 } on' "$log")
    plan=$(grep -m1 -E '^1\.\.[0-9]+$' <<<"$tap" || true)
    ok=$(grep -cE '^ok ' <<<"$tap" || true)
    skip=$(grep -cE '^ok .*# [Ss][Kk][Ii][Pp]' <<<"$tap" || true)
    notok=$(grep -cE '^not ok ' <<<"$tap" || true)
    # Every TAP line and diagnostic, tagged with the shape.
    grep -E '^(ok |not ok |#)' <<<"$tap" | sed "s/^\(not ok\|ok\) \([0-9]*\)/\1 \2 [$name]/" || true
    passed=$((passed + ok - skip)) skipped=$((skipped + skip)) failed=$((failed + notok))
    if [ "$rc" -ge 200 ]; then
        echo "not ok - [$name] the guest froze in each of $try boot(s) (last console: $log)"
        failed=$((failed + 1))
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "not ok - [$name] guest ran past ${timeout_s}s (console: $log)"
        failed=$((failed + 1))
    elif [ -z "$plan" ]; then
        echo "not ok - [$name] guest printed no TAP plan (qemu exit $rc; console: $log)"
        tail -n 15 "$log" | sed 's/^/#   /'
        failed=$((failed + 1))
    elif [ $((ok + notok)) -ne "${plan#1..}" ]; then
        echo "not ok - [$name] guest planned ${plan#1..} tests and reported $((ok + notok)) (console: $log)"
        failed=$((failed + 1))
    fi
    echo "# [$name] $((SECONDS - start)) s"
done
[ $((passed + failed + skipped)) -gt 0 ] || die 2 "no $arch shape matched: ${want[*]:-(all)}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
