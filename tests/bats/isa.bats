#!/usr/bin/env bats
# Portable builds choose their vector loops at run time (common/isa.h):
# built for a baseline ISA, the hot loops of stream and mencal carry
# AVX-512 and AVX2 clones and a resolver; a -march=native build keeps its
# one native body.  Checked on objects compiled here (a few seconds), and
# on the flags make passes.

load test_helper

local_setup() {
    unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
    unset NUMA PAPI MPI MARCH CFLAGS SANITIZE
}

# compile SRC FLAGS...: SRC to obj.o with the project's include paths
compile() {
    local src=$1
    shift
    gcc -std=gnu11 -fopenmp -D_GNU_SOURCE -I"$ROOT/common" -I"$ROOT/stream" -I"$ROOT/mencal" \
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
