#!/usr/bin/env bash
# Summary: install what memsuite needs to build, run and test.
# Usage: scripts/deps.sh [--list] [--aarch64]
#
# --aarch64: instead, what the aarch64 cross build and its tests need on
# an x86-64 Debian machine (make deps-aarch64): the cross compiler, the
# arm64 multiarch libnuma/PAPI/libgomp (dpkg --add-architecture arm64),
# qemu-user-static (make check-aarch64's tests/aarch64/run-user.sh registers
# qemu-aarch64-static in a private binfmt_misc of a user namespace, so
# binfmt-support, only recommended, is not needed; unshare is util-linux,
# in make deps), qemu-user (isa.bats starts qemu-aarch64 -cpu CPU itself)
# binutils to read their code (aarch64-linux-gnu-objdump) and
# qemu-system-arm (the topology lab's aarch64 guest; its kernel and
# userland are Debian's arm64 packages, fetched by the lab).  Not
# libomp-14-dev:arm64 nor libopenmpi-dev:arm64: they remove their amd64
# twins (clang's -lomp; gfortran, slurm), so the cross build is MPI=0.
#
# Debian/Ubuntu as root: apt-get install.  RHEL family as root: dnf.
# Anywhere else, or without root: print the exact package list, exit 3.
# Packages already present are not reinstalled (a no-op run takes < 1 s).
set -euo pipefail

# Build: compiler runtime, libnuma, PAPI.  Run: numactl, dmidecode.
# Tests: bats + helpers, jq, a JSON Schema validator, shellcheck, python3-matplotlib (charts);
# clang and its libFuzzer runtime for make fuzz.
# Peers for the comparison scripts: likwid, sysbench, mbw.
# Allocators for mencal alloc: jemalloc, tcmalloc (gperftools), mimalloc.
# Topology lab (make check-topology): QEMU, a distribution kernel, a static
# busybox and cpio for the initramfs.
# Packages (make check-packages): debhelper, dpkg-dev and lintian for the
# .deb, rpm's rpmbuild for the .rpm; Lmod for the modulefile test; groff
# for the man page checks; ImageMagick, whose `stream` the packages must
# leave intact (scripts/check-coexist.sh installs it in its sandbox when
# this system lacks it).
# python3 (standard library only) runs the analyser, scripts/analysis
# (memsuite cluster --aggregate), and its unit tests (tests/analysis).
# The HTML report test renders in headless Chromium.
# promtool (Debian: prometheus, 22.5 MB download, 332 MB installed with
# its web assets; Fedora: golang-github-prometheus) checks check's
# Prometheus output in the tests.
# iproute2 and util-linux (ip netns, nsenter, unshare, setsid) build the
# cluster lab's hosts (make check-cluster: tests/cluster).
DEBIAN_PKGS=(
    python3
    build-essential libnuma-dev numactl libpapi-dev papi-tools dmidecode
    bats bats-assert bats-support jq python3-jsonschema shellcheck cppcheck python3-matplotlib file
    clang libclang-rt-14-dev
    likwid sysbench mbw
    libjemalloc2 libgoogle-perftools4 libmimalloc2.0
    openmpi-bin libopenmpi-dev slurm-wlm munge iproute2 util-linux
    qemu-system-x86 linux-image-amd64 busybox-static cpio
    debhelper
    dpkg-dev
    lintian
    rpm
    lmod
    groff-base
    imagemagick
    chromium
    prometheus
)
RHEL_PKGS=(
    python3
    gcc make numactl-devel numactl papi-devel papi dmidecode
    bats jq python3-jsonschema ShellCheck cppcheck python3-matplotlib file
    clang compiler-rt
    likwid sysbench
    jemalloc gperftools-libs mimalloc
    openmpi openmpi-devel slurm slurm-slurmctld slurm-slurmd munge iproute util-linux
    qemu-system-x86-core kernel-core busybox cpio
    rpm-build
    Lmod
    groff-base
    ImageMagick
    chromium
    golang-github-prometheus
)

AARCH64_PKGS=(
    gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
    libnuma-dev:arm64 libpapi-dev:arm64 libgomp1:arm64
    qemu-user qemu-user-static qemu-system-arm
)
if [ "${1:-}" = "--aarch64" ]; then
    shift
    DEBIAN_PKGS=("${AARCH64_PKGS[@]}")
    RHEL_PKGS=()
    if ! command -v dpkg >/dev/null 2>&1; then
        echo "deps: --aarch64 needs Debian/Ubuntu multiarch (dpkg --add-architecture arm64)" >&2
        exit 3
    fi
    if [ "${1:-}" != "--list" ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
        [ "$(id -u)" -eq 0 ] || { echo "deps: not root; run: dpkg --add-architecture arm64 && apt-get update" >&2; exit 3; }
        dpkg --add-architecture arm64
    fi
fi

if [ "${1:-}" = "--list" ]; then
    echo "Debian/Ubuntu: ${DEBIAN_PKGS[*]}"
    echo "RHEL/Fedora:   ${RHEL_PKGS[*]}"
    exit 0
fi

missing_debian() {
    local p
    for p in "${DEBIAN_PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
    done
}

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    mapfile -t need < <(missing_debian)
    [ ${#need[@]} -eq 0 ] && { echo "deps: all ${#DEBIAN_PKGS[@]} Debian packages present"; exit 0; }
    if [ "$(id -u)" -ne 0 ]; then
        echo "deps: not root; install these packages, then rerun:" >&2
        echo "  apt-get install ${need[*]}" >&2
        exit 3
    fi
    echo "deps: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || { echo "deps: apt-get update failed; check the network or mirrors" >&2; exit 3; }
    apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${need[@]}" >/dev/null ||
        { echo "deps: apt-get install failed for: ${need[*]}" >&2; exit 3; }
    exit 0
fi

if command -v dnf >/dev/null 2>&1; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "deps: not root; run: dnf install ${RHEL_PKGS[*]}" >&2
        exit 3
    fi
    dnf install -y "${RHEL_PKGS[@]}" || { echo "deps: dnf install failed" >&2; exit 3; }
    exit 0
fi

echo "deps: unknown package manager; install the equivalents of:" >&2
echo "  ${DEBIAN_PKGS[*]}" >&2
exit 3
