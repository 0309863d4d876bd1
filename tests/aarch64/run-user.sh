#!/usr/bin/env bash
# Summary: run aarch64 binaries' tests on an x86-64 host under qemu-user
# Usage: tests/aarch64/run-user.sh BUILD_DIR BIN_DIR [BATS_FILE...]
#
# Registers qemu-aarch64-static for aarch64 ELF files in a private
# binfmt_misc of a new user and mount namespace (Linux 6.7 and later), so
# that every exec of an aarch64 binary (the tools, the unit tests, the
# helpers the Bats files start by path) runs under qemu, and the host's
# binfmt_misc is never touched.  Then runs tests/run-tests.sh BUILD_DIR
# BIN_DIR [BATS_FILE...] inside it: its closing line "N passed, N failed"
# is this script's.
# Exit: run-tests.sh's; 2 usage; 3 qemu-aarch64-static, unshare or the
# private binfmt_misc unavailable.
set -euo pipefail

root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
die() { echo "check-aarch64: $2" >&2; exit "$1"; }

[ $# -ge 2 ] || die 2 "usage: tests/aarch64/run-user.sh BUILD_DIR BIN_DIR [BATS_FILE...]"
qemu=${QEMU_AARCH64:-/usr/bin/qemu-aarch64-static}
[ -x "$qemu" ] || die 3 "$qemu not found; run 'make deps-aarch64' (qemu-user-static)"
command -v unshare >/dev/null || die 3 "unshare not found; run 'make deps' (util-linux)"
for b in stream mbw mencal; do
    [ -x "$root/$2/$b" ] || die 3 "$2/$b missing; build the aarch64 tree first (make check-aarch64 does)"
done

# The binfmt_misc entry: ELF64, little endian, ET_EXEC or ET_DYN (the mask
# clears the low bit of e_type), e_machine 183 (EM_AARCH64).  "F" opens
# the interpreter now, so it runs whatever the mount namespace holds.
magic='\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
export QEMU_BINFMT=":memsuite-aarch64:M::$magic:$mask:$qemu:F"

# shellcheck disable=SC2016 # expanded by the namespace's bash
exec unshare -U -r -m --propagation private bash -c '
    d=$(mktemp -d)
    mount -t binfmt_misc binfmt_misc "$d" 2>/dev/null || {
        echo "check-aarch64: no private binfmt_misc in a user namespace here (Linux 6.7 or later needed; this is $(uname -r))" >&2
        exit 3; }
    printf "%s" "$QEMU_BINFMT" >"$d/register"
    exec "$0" "$@"' "$root/tests/run-tests.sh" "$@"
