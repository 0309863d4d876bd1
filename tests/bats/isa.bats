#!/usr/bin/env bats
# Portable builds choose their vector loops at run time (common/isa.h):
# built for a baseline ISA, the hot loops of stream and mencal carry
# AVX-512 and AVX2 clones and a resolver; a -march=native build keeps its
# one native body.  On aarch64 stream's parts have SVE and NEON bodies
# behind an ifunc, and the non-temporal kernels use stnp and stnt1d
# (checked with the cross compiler when it is installed: make
# deps-aarch64).  Checked on objects compiled here (a few seconds), and on
# the flags make passes.

bats_require_minimum_version 1.5.0
load test_helper

local_setup() {
    unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
    unset NUMA PAPI MPI MARCH MCPU ARCH_FLAGS CFLAGS SANITIZE CC
}

A64CC=aarch64-linux-gnu-gcc
A64OD=aarch64-linux-gnu-objdump
need_a64() {
    command -v "$A64CC" >/dev/null && command -v "$A64OD" >/dev/null ||
        skip "no aarch64 cross toolchain ($A64CC, $A64OD): make deps-aarch64"
}

# body FUNC: FUNC's instructions in obj.o's aarch64 disassembly
a64_body() {
    "$A64OD" -d --no-show-raw-insn obj.o | awk -v f="<$1>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on'
}

# compile SRC FLAGS...: SRC to obj.o with the project's include paths
# (CC: the compiler, gcc by default)
compile() {
    local src=$1
    shift
    "${CC:-gcc}" -std=gnu11 -fopenmp -D_GNU_SOURCE -I"$ROOT/common" -I"$ROOT/stream" -I"$ROOT/mencal" \
        -I"$ROOT/mbw" -I"$MEMSUITE_BUILD" "$@" -c "$ROOT/$src" -o obj.o
}

@test "portable build: stream's kernels have x86-64-v4/v3 clones and a resolver" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
    compile stream/kernels.c -O3 -march=x86-64
    run nm obj.o
    local k t
    for k in scale add triad nstream dot; do
        for t in d f; do
            assert_output --partial "${k}_part_${t}.arch_x86_64_v4"
            assert_output --partial "${k}_part_${t}.arch_x86_64_v3"
            assert_output --partial "${k}_part_${t}.default"
            assert_output --partial "${k}_part_${t}.resolver"
        done
    done
    # the v4 clone really uses AVX-512 registers or AVX2 at least (ymm)
    objdump -d --no-show-raw-insn obj.o |
        awk '/<triad_part_d.arch_x86_64_v4>:/ { on = 1; next } /^$/ { on = 0 } on' >v4.s
    grep -q -E '%[yz]mm' v4.s
}

@test "portable build: mencal's sequential sum is cloned too; mbw's scalar element loop is not" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
    # DUMB is the original's scalar loop (mbw/dumb.c): one body, no clones
    compile mbw/dumb.c -O3 -march=x86-64 -fno-tree-loop-distribute-patterns -fno-tree-vectorize
    run nm obj.o
    assert_output --partial "T mbw_dumb_copy"
    refute_output --partial "mbw_dumb_copy."
    # seqread's kernels are the variants of mencal/readkern.c (v32x4 the
    # default); each variant's one loop is its _passes function
    compile mencal/readkern.c -O3 -march=x86-64
    run nm obj.o
    assert_output --partial "v32x4_passes.arch_x86_64_v3"
    assert_output --partial "v32x4_passes.resolver"
}

@test "native build: no clones (MB_NO_ISA_CLONES), the one native body" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
    compile stream/kernels.c -O3 -march=native -DMB_NO_ISA_CLONES
    run nm obj.o
    refute_output --partial ".resolver"
    assert_output --partial "triad_part_d"
}

@test "make: -DMB_NO_ISA_CLONES only where CFLAGS has -march=native" {
    run make -n -B -C "$ROOT" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" "$SANDBOX/build/stream/kernels.o"
    assert_success
    assert_output --partial -- "-DMB_NO_ISA_CLONES"
    run make -n -B -C "$ROOT" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" MARCH=x86-64 "$SANDBOX/build/stream/kernels.o"
    assert_success
    assert_output --partial -- "-march=x86-64"
    refute_output --partial -- "-DMB_NO_ISA_CLONES"
    run make -n -B -C "$ROOT" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" CFLAGS="-O2 -g" "$SANDBOX/build/stream/kernels.o"
    refute_output --partial -- "-DMB_NO_ISA_CLONES"
}

@test "aarch64 build: stream's parts have SVE and NEON bodies behind an AT_HWCAP ifunc" {
    need_a64
    CC=$A64CC compile stream/kernels.c -O3 -march=armv8-a
    run "${A64OD%objdump}nm" obj.o
    local k t
    for k in scale add triad nstream dot; do
        for t in d f; do
            assert_line --regexp "^[0-9a-f]+ i ${k}_part_${t}\$"          # the ifunc
            assert_line --regexp "^[0-9a-f]+ t ${k}_part_${t}_resolve\$"
            assert_line --regexp "^[0-9a-f]+ T ${k}_part_${t}_neon\$"
            assert_line --regexp "^ +U ${k}_part_${t}_sve\$"
        done
    done
    # the NEON body: q-register loads and a vector fmla; no SVE
    a64_body triad_part_d_neon >neon.s
    grep -q -E 'ldr[[:space:]]+q[0-9]+' neon.s
    grep -q -E 'fmla[[:space:]]+v[0-9]+\.2d' neon.s
    ! grep -q -E '\bz[0-9]+\.' neon.s
    # the SVE body, its own file: predicated SVE loads and stores
    CC=$A64CC compile stream/kernels_sve.c -O3 -march=armv8-a
    a64_body triad_part_d_sve >sve.s
    grep -q -E 'ld1d[[:space:]]+\{z[0-9]+\.d\}' sve.s
    grep -q -E 'st1d[[:space:]]+\{z[0-9]+\.d\}' sve.s
}

@test "aarch64 build: the non-temporal kernels store with stnp (NEON) and stnt1d (SVE)" {
    need_a64
    CC=$A64CC compile stream/nt.c -O3 -march=armv8-a
    local k
    for k in copy scale add triad nstream; do
        a64_body "nt_${k}_neon_d" | grep -q -E 'stnp[[:space:]]+q[0-9]+, q[0-9]+'
        a64_body "nt_${k}_neon_f" | grep -q -E 'stnp[[:space:]]+q[0-9]+, q[0-9]+'
        a64_body "nt_${k}_sve_d" | grep -q -E 'stnt1d[[:space:]]+\{z[0-9]+\.d\}'
        a64_body "nt_${k}_sve_f" | grep -q -E 'stnt1w[[:space:]]+\{z[0-9]+\.s\}'
    done
    # mencal's store kernels: neonnt and svent; seqread's sums load NEON
    # q registers (fixed-width vectors: one NEON body, isa.h)
    CC=$A64CC compile mencal/storekern.c -O3 -march=armv8-a
    for k in write copy; do
        a64_body "neonnt_$k" | grep -q -E 'stnp[[:space:]]+q[0-9]+, q[0-9]+'
        a64_body "svent_$k" | grep -q -E 'stnt1d[[:space:]]+\{z[0-9]+\.d\}'
    done
    CC=$A64CC compile mencal/readkern.c -O3 -march=armv8-a
    for k in v16x4 v32x4 v64x8; do
        a64_body "${k}_passes" | grep -q -E '(ldp|ldr)[[:space:]]+q[0-9]+|ld1[[:space:]]+\{v[0-9]+\.(16b|2d)'
    done
}

@test "make: the native flag per architecture, armv8-a for a cross build, an unknown -mcpu named with the flag to use" {
    local mk=(make -n -B -C "$ROOT" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" "$SANDBOX/build/stream/kernels.o")
    # -mcpu=native is native too: one body
    run "${mk[@]}" CFLAGS="-O3 -mcpu=native"
    assert_output --partial -- "-DMB_NO_ISA_CLONES"
    need_a64
    run "${mk[@]}" CC=$A64CC
    assert_success
    assert_output --partial -- "-O3 -march=armv8-a"
    refute_output --partial -- "-DMB_NO_ISA_CLONES"
    run "${mk[@]}" CC=$A64CC MCPU=neoverse-v1
    assert_success
    assert_output --partial -- "-mcpu=neoverse-v1"
    # GCC 12 has no Neoverse V2 (Grace): the error says what to use
    run "${mk[@]}" CC=$A64CC ARCH_FLAGS=-mcpu=neoverse-v2
    if "$A64CC" -mcpu=neoverse-v2 -E -x c /dev/null -o /dev/null 2>/dev/null; then
        assert_success   # a compiler that knows it (GCC 13 and later)
    else
        assert_failure
        assert_output --partial "does not accept -mcpu=neoverse-v2"
        assert_output --partial 'use ARCH_FLAGS="-mcpu=neoverse-v1" or ARCH_FLAGS="-march=armv9-a -mtune=neoverse-n2"'
    fi
    # -march=native is the build machine's: a cross compiler cannot use it
    run "${mk[@]}" CC=$A64CC CFLAGS="-O3 -march=native"
    assert_failure
    assert_output --partial "does not accept -march=native"
    assert_output --partial "cannot tune for this machine"
    # AR follows the compiler's target
    run make -C "$ROOT" -n -p CC=$A64CC BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" FORCE
    assert_line --regexp '^AR :?= aarch64-linux-gnu-ar$'
}

# a64_triad FLAGS...: a driver of stream's Triad (kernels.c, kernels_sve.c)
# built for aarch64 as ./triad; it prints the hot-loop body and whether
# every element is right
a64_triad() {
    cat >driver.c <<'C'
#include <stdio.h>
#include "isa.h"
#include "kernels.h"
int main(void)
{
    static double a[1003], b[1003], c[1003];
    st_arrays_t x = { a, b, c, 1003, 2.0 };
    st_arrays_fill(ST_DOUBLE, &x, 1.0, 2.0, 3.0);
    st_kernel_get(ST_K_TRIAD)->fn[ST_DOUBLE](&x);
    int ok = 1;
    for (int i = 0; i < 1003; i++)
        ok &= a[i] == 8.0;
    printf("%s %s\n", mb_isa_hot_loops(MB_HOT_DISPATCHED, NULL, 0), ok ? "right" : "wrong");
    return 0;
}
C
    "$A64CC" -std=gnu11 -fopenmp -D_GNU_SOURCE -I"$ROOT/common" -I"$ROOT/stream" -I"$MEMSUITE_BUILD" \
        "$@" -o triad driver.c "$ROOT/stream/kernels.c" "$ROOT/stream/kernels_sve.c" \
        "$ROOT/common/isa.c" "$ROOT/common/log.c"
}

# qemu-aarch64 runs the binaries with the arm64 multiarch libraries (make
# deps-aarch64); not with -L /usr/aarch64-linux-gnu, where a 2-thread
# OpenMP region of this driver was seen to hang under -cpu max.
@test "aarch64 dispatch under qemu: the SVE body where the CPU has SVE, NEON where not; an all-SVE build stops with exit 4, no SIGILL" {
    need_a64
    command -v qemu-aarch64 >/dev/null || skip "qemu-aarch64 not installed (qemu-user): make deps-aarch64"
    a64_triad -O3 -march=armv8-a
    run qemu-aarch64 -cpu max ./triad
    assert_success
    assert_output "sve right"
    local c
    for c in cortex-a72 neoverse-n1; do
        run qemu-aarch64 -cpu "$c" ./triad
        assert_success
        assert_output "neon right"
    done
    # SVE throughout (CFLAGS enable it everywhere): only an SVE CPU runs it
    a64_triad -O3 -march=armv8.2-a+sve
    run qemu-aarch64 -cpu max ./triad
    assert_output "sve right"
    run --separate-stderr qemu-aarch64 -cpu neoverse-n1 ./triad
    assert_failure 4
    [[ "$stderr" == *"built with SVE throughout"*"this CPU has no SVE"*"-march=armv8-a"* ]]
}
