#!/usr/bin/env bats
# Kernel variants chosen by measurement beyond seqread (issue 24): sweep's
# read, write and copy loops and loaded's traffic loop (mencal/kcalib.c,
# mencal/trafficcal.c).  Tiny sizes, one repetition; the assertions are on
# what the result records (the variant, the calibration table, the note),
# never on which variant a machine picks.

bats_require_minimum_version 1.5.0
load test_helper

READ_VARIANTS="v16x4 v32x4 v32x8 v64x4 v64x8 v32x4pf v64x4pf"

local_setup() {
    arch_names   # the non-temporal ones are the architecture's (test_helper)
    STORE_VARIANTS="v16 v32 v64 $NT_STORE_VARIANTS"
}

# whether this CPU runs store variant $1 (v32nt needs AVX, v64nt AVX-512F,
# svent SVE, as the binary sees it; v16nt and neonnt every CPU of their
# architecture)
cpu_runs() {
    case "$1" in
        v32nt) grep -qw avx /proc/cpuinfo ;;
        v64nt) grep -qw avx512f /proc/cpuinfo ;;
        svent) bin_cpu_has sve ;;
        *) return 0 ;;
    esac
}

# a forced variant's note: "(N-byte vectors, ...)"; SVE's length is the CPU's
VEC_RE="[0-9]+-byte vectors( \\(SVE, this CPU's length\\))?, .*"

@test "sweep --kernel-variant: each read and store variant forced runs every point and is named" {
    local v k
    for v in $READ_VARIANTS $STORE_VARIANTS; do
        k=read
        [[ " $STORE_VARIANTS " == *" $v "* ]] && k=write
        if ! cpu_runs "$v"; then
            run mencal run sweep --size 64K --allow-cache --reps 1 -t 1 -q --kernels $k --kernel-variant "$v"
            assert_failure 2
            assert_output --partial "this CPU has no"
            continue
        fi
        run mencal run sweep --size 64K --allow-cache --reps 1 -t 1 -q --kernels $k \
            --kernel-variant "$v" --format json -O "s-$v.json"
        assert_success
        run jq -r --arg v "$v" '[.config.sweep.kernel_variant,
                    ([.records[0].tables.mountain[] | .variant == $v] | all),
                    ([.records[0].tables.mountain[]] | length > 0),
                    (.records[0].tables | has("kernel_calibration"))] | join(" ")' "s-$v.json"
        assert_output "$v true true false"
        run jq -r '.records[0].notes[]' "s-$v.json"
        assert_line --regexp "^$k kernel $v forced by --kernel-variant \($VEC_RE\); no calibration$"
    done
    # read and copy forced in one list; the text notes say so too
    run mencal run sweep --size 64K --allow-cache --reps 1 -t 1 --kernels read,copy --kernel-variant "v32x8,$NT_STORE_BASE"
    assert_success
    assert_output --partial "read kernel v32x8 forced by --kernel-variant (32-byte vectors, 8 accumulators, prefetch 0 B); no calibration"
    assert_output --partial "copy kernel $NT_STORE_BASE forced by --kernel-variant (16-byte vectors, non-temporal stores); no calibration"
}

@test "loaded --kernel-variant: each traffic variant forced is named in the JSON and the notes" {
    local v k
    for v in $READ_VARIANTS $STORE_VARIANTS; do
        k=read
        [[ " $STORE_VARIANTS " == *" $v "* ]] && k=copy
        cpu_runs "$v" || continue
        run mencal run loaded --size 8M --allow-cache -t 2 -q --delays 0 --windows 2 --traffic $k \
            --kernel-variant "$v" --format json -O "l-$v.json"
        assert_success
        run jq -r '[.config.loaded.kernel_variant, (.records[0].tables | has("kernel_calibration")),
                    (.records[0].tables.curve | length)] | join(" ")' "l-$v.json"
        assert_output "$v false 2"
        run jq -r '.records[0].notes[]' "l-$v.json"
        assert_line --regexp "^$k kernel $v forced by --kernel-variant \($VEC_RE\); no calibration$"
    done
}

@test "sweep auto: the calibration table lists every variant with a positive figure, the winner is the best" {
    # 13 sizes x 2 samples of >= 11 ms: a 5% budget of >= 14 ms, trials of >= 0.2 ms
    run mencal run sweep --size 1M --allow-cache --reps 1 -t 1 -q --kernels read,write,triad \
        --format json -O a.json
    assert_success
    validate_json a.json
    local nstore=0 v
    for v in $STORE_VARIANTS; do cpu_runs "$v" && nstore=$((nstore + 1)); done
    run jq -r '.records[0].tables.kernel_calibration | [([.[] | select(.kernel == "read")] | length),
               ([.[] | select(.kernel == "write")] | length), (map(.bandwidth > 0) | all),
               (map(select(.chosen == "yes")) | length)] | join(" ")' a.json
    assert_output "7 $nstore true 2"
    run jq -r '.records[0].metrics.kernel_calibration_time.value > 0' a.json
    assert_output true
    local k chosen best note
    for k in read write; do
        chosen=$(jq -r --arg k $k '.records[0].tables.kernel_calibration[] | select(.kernel == $k and .chosen == "yes") | .variant' a.json)
        note=$(jq -r --arg k "$k kernel " '.records[0].notes[] | select(startswith($k))' a.json)
        if [[ $note == *"(the default): the calibration could not finish in time"* ]]; then
            continue   # a machine so busy that the trials overran their cap: the default, said so
        fi
        [[ $note == "$k kernel $chosen chosen by calibration, GB/s best of 3 alternating trials of "*" per thread x 1 threads (at 1.0"*"MiB ("*", the level of the sweep's top); the "*" points run it, the others the default "*"; it took "* ]]
        # the chosen variant has the best figure (a tie may keep the default)
        best=$(jq -r --arg k $k '[.records[0].tables.kernel_calibration[] | select(.kernel == $k) | .bandwidth] | max' a.json)
        run jq -r --arg k $k --argjson b "$best" '.records[0].tables.kernel_calibration[] | select(.kernel == $k and .chosen == "yes") | .bandwidth == $b' a.json
        assert_output true
        # the points of the calibration's level run the winner, the others the default
        run jq -r --arg k $k --arg c "$chosen" --arg d "$([ $k = read ] && echo v64x8 || echo v64)" \
            '[.records[0].tables.mountain[] | select(.kernel == $k) | .variant == $c or .variant == $d] | all' a.json
        assert_output true
    done
    run jq -r '.records[0].notes[] | select(startswith("triad kernel"))' a.json
    assert_output "triad kernel: one loop (64-byte vectors), no variants to choose"
    run jq -r '[.records[0].tables.mountain[] | select(.kernel == "triad") | .variant == "one loop"] | all' a.json
    assert_output true
}

@test "loaded auto: the traffic threads time every variant; the winner is the best" {
    run mencal run loaded --size 16M --allow-cache -t 2 -q --delays 0,1000 --windows 30 --traffic read \
        --format json -O a.json
    assert_success
    validate_json a.json
    run jq -r '.records[0].tables.kernel_calibration | [length, (map(.bandwidth > 0) | all),
               (map(select(.chosen == "yes")) | length)] | join(" ")' a.json
    assert_output "7 true 1"
    run jq -r '.records[0].notes[] | select(startswith("read kernel "))' a.json
    assert_output --regexp '^read kernel (v[0-9]+x[48](pf)? chosen by calibration, GB/s best of 3 alternating trials of .* per thread x 1 threads \(by the traffic threads over their slices, .*\): v16x4 [0-9.e+]+, .*; it took [0-9.e+]+ ms|v64x8 \(the default\): the calibration could not finish in time .*)'
}

@test "a calibration that cannot finish in time: the default variant, and the result says so" {
    run mencal run sweep --size 256K --allow-cache --reps 1 -t 1 -q --kernels read,copy \
        --kernel-calibration 0.000001 --format json -O s.json
    assert_success
    run jq -r '.records[0].notes[] | select(test("^(read|copy) kernel"))' s.json
    assert_line --regexp '^read kernel v64x8 \(the default\): the calibration cannot finish in time: its trials would be shorter than 0.2 ms within its budget \(budget [0-9.e+-]+ ms = .*\); force one with --kernel-variant$'
    assert_line --regexp '^copy kernel v64 \(the default\): the calibration cannot finish in time: .*$'
    run jq -r '[(.records[0].tables | has("kernel_calibration")), ([.records[0].tables.mountain[] | .variant] | unique | join(","))] | join(" ")' s.json
    assert_output "false v64,v64x8"
    run mencal run loaded --size 8M --allow-cache -t 2 -q --delays 0 --windows 2 --traffic write \
        --kernel-calibration 0.000001 --format json -O l.json
    assert_success
    run jq -r '.records[0].notes[] | select(startswith("write kernel"))' l.json
    assert_output --regexp '^write kernel v64 \(the default\): the calibration cannot finish in time: '
    run mencal run loaded --size 8M --allow-cache -t 2 -q --delays 0 --windows 2 --kernel-calibration 0 \
        --format json -O z.json
    assert_success
    run jq -r '.records[0].notes[] | select(startswith("read kernel"))' z.json
    assert_output --partial "read kernel v64x8 (the default): --kernel-calibration 0: no calibration"
}

@test "--kernel-variant bad input: an unknown name lists the names, another family's name and two of one family are refused" {
    run mencal run sweep --size 64K --allow-cache --kernel-variant v128x2
    assert_failure 2
    assert_output --partial "--kernel-variant: invalid value 'v128x2': must be one of auto|v16x4|v32x4|v32x8|v64x4|v64x8|v32x4pf|v64x4pf|v16|v32|v64|${NT_STORE_VARIANTS// /|}"
    run mencal run loaded --size 8M --allow-cache -t 2 --kernel-variant nope
    assert_failure 2
    assert_output --partial "--kernel-variant: invalid value 'nope': must be one of auto|"
    run mencal run sweep --size 64K --allow-cache --kernels read --kernel-variant v64
    assert_failure 2
    assert_output --partial "--kernel-variant v64: a variant of the write and copy kernels, which this run does not use; its kernels take v16x4|"
    run mencal run loaded --size 8M --allow-cache -t 2 --traffic triad --kernel-variant v64x4
    assert_failure 2
    assert_output --partial "its kernels take no variant"
    run mencal run seqread --size 4M --allow-cache --kernel-variant "$NT_STORE_BASE"
    assert_failure 2
    assert_output --partial "--kernel-variant $NT_STORE_BASE: a variant of the write and copy kernels, which this run does not use"
    run mencal run sweep --size 64K --allow-cache --kernel-variant v64x4,v32x4
    assert_failure 2
    assert_output --partial "two variants of the read kernels (v64x4 and v32x4)"
    run mencal run sweep --size 64K --allow-cache --kernel-variant ""
    assert_failure 2
    run mencal run sweep --size 64K --allow-cache --kernel-calibration 2
    assert_failure 2
    assert_output --partial "--kernel-calibration"
}

@test "loaded bad input: --stride below or off the pointer size, a TLB group larger than the slice" {
    run mencal run loaded --size 8M --allow-cache -t 2 --stride 12
    assert_failure 2
    assert_output --partial "--stride 12: expected a multiple of 8 bytes"
    run mencal run loaded --size 8M --allow-cache -t 2 --stride 4
    assert_failure 2
    assert_output --partial "--stride"
    run mencal run loaded --size 8M --allow-cache -t 2 --tlb-locality 4096
    assert_failure 2
    assert_output --partial "loaded: --tlb-locality 4096: a group of 4096 pages is larger than the latency thread's slice of 1024 pages (4 KiB); expected 0 to 1024"
}
