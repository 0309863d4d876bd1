#!/usr/bin/env bats
# One size grammar and one LLC detector: the bash side asks the C code
# (common/sizing, through the memsuite-size helper), and one shared table
# of inputs (tests/fixtures/sizes.tsv, also read by tests/unit/test_sizing)
# proves the two agree.

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

HELPER="$BIN/memsuite-size"

# Every row through ms_parse_bytes (scripts/lib/lists.sh) in one shell:
# "INPUT<TAB>ok BYTES" or "INPUT<TAB>error MESSAGE" per row.
bash_answers() {
    MS_SCRIPTS_DIR="$ROOT/scripts" MS_LIB="$ROOT/scripts/lib" bash -c '
        . "$MS_LIB/common.sh"; . "$MS_LIB/lists.sh"
        while IFS= read -r line; do
            case "$line" in "#"*) continue ;; esac
            in=${line%%$'"'\t'"'*}
            if v=$(ms_parse_bytes "$in"); then printf "%s\tok %s\n" "$in" "$v"
            else printf "%s\terror %s\n" "$in" "$v"; fi
        done' <"$FIXTURES/sizes.tsv"
}

@test "bash and C agree on every size of tests/fixtures/sizes.tsv" {
    run -0 bash_answers
    local line in want got bad=0 rows=0 max=1152921504606846976
    while IFS= read -r line; do
        case "$line" in "#"*) continue ;; esac
        in=${line%%$'\t'*} want=${line#*$'\t'}    # an input may be empty or hold spaces
        rows=$((rows + 1))
        got=$(printf '%s\n' "$output" | awk -F'\t' -v k="$in" '$1 "" == k "" { print $2; exit }')
        if [ "$want" = error ]; then
            [[ "$got" == "error invalid size '"* ]] || { echo "'$in': C refuses, bash: $got"; bad=1; }
        elif [ "$want" = 0 ] || [ "${#want}" -gt 19 ] ||
             { [ "${#want}" -eq 19 ] && [[ "$want" > "$max" ]]; }; then
            # the C grammar's value, outside the bash side's range 1..2^60
            [[ "$got" == "error invalid size '$in': "* ]] || { echo "'$in': out of range, bash: $got"; bad=1; }
        else
            [ "$got" = "ok $want" ] || { echo "'$in': C $want, bash: $got"; bad=1; }
        fi
    done <"$FIXTURES/sizes.tsv"
    [ "$rows" -ge 50 ] && [ "$bad" = 0 ]
}

@test "the drift the grammar had is gone: .5K, +7 and 2000e-3 parse in bash" {
    run -0 "$HELPER" .5K +7 2000e-3
    assert_output "$(printf 'ok 512\nok 7\nok 2')"
    run -0 bash_answers
    assert_line "$(printf '.5K\tok 512')"
    assert_line "$(printf '+7\tok 7')"
    assert_line "$(printf '2000e-3\tok 2')"
}

@test "memsuite-size: one line per size, exit 2 when one does not parse; --llc" {
    run -2 "$HELPER" 1K 12Q -5
    assert_line --index 0 "ok 1024"
    assert_line --index 1 --regexp "^error invalid size '12Q': trailing garbage 'Q'"
    assert_line --index 2 --regexp "^error invalid size '-5': negative"
    run -2 "$HELPER"
    MEMSUITE_SYSFS="$FIXTURES/memsuite-host/sys" MEMSUITE_LLC= run -0 "$HELPER" --llc
    assert_line "source sysfs"
    assert_line --regexp '^bytes [1-9][0-9]*$'
    MEMSUITE_LLC=3MiB run -0 "$HELPER" --llc
    assert_line "bytes 3145728"
    assert_line "source override"
    MEMSUITE_LLC=lots run -2 "$HELPER" --llc
    assert_output --regexp "^error MEMSUITE_LLC: invalid size 'lots'"
}

@test "memsuite's LLC is the C detector's (same fixture tree, same bytes and source)" {
    MEMSUITE_LLC= MEMSUITE_SYSFS="$FIXTURES/memsuite-host/sys" run -0 "$HELPER" --llc
    local c_bytes
    c_bytes=$(printf '%s\n' "$output" | sed -n 's/^bytes //p')
    MEMSUITE_LLC= MEMSUITE_SYSFS="$FIXTURES/memsuite-host/sys" run -0 bash -c '
        MS_SCRIPTS_DIR="$1/scripts" MS_LIB="$1/scripts/lib"
        . "$MS_LIB/common.sh"; . "$MS_LIB/sysfs.sh"
        ms_llc_detect; printf "%s %s\n" "$MS_LLC_BYTES" "$MS_LLC_SOURCE"' _ "$ROOT"
    assert_output "$c_bytes sysfs"
}

@test "memsuite run: a bad size is refused with the C grammar's message" {
    run -2 "$MS" run --sizes 64M,12Q
    assert_output --regexp "^memsuite: run: --sizes: in size list '64M,12Q': invalid size '12Q': trailing garbage 'Q'"
}
