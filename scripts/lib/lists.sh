# shellcheck shell=bash
# lists: parsing of sizes, size lists, thread lists and numeric options.
# Parsers print the result and return 0, or print the error message (on
# stdout, so it survives command substitution) and return 1:
#   v=$(ms_parse_bytes "$x") || ms_usage_error "--size: $v"
#
# Size grammar: the C tools' own (mb_parse_size), through the helper
# memsuite-size, so the two can never disagree (tests/fixtures/sizes.tsv
# is fed to both): 1000, 1e9, 2.5e3, .5K, +7; K M G T and KiB.. TiB are
# powers of 1024, KB MB GB TB powers of 1000; the bytes must be integral.
# The bash side adds its own range: 1 .. MS_SIZE_MAX (bash arithmetic is
# signed 64-bit).  A size list entry may also be "<n>x": n times the
# last-level cache.

MS_SIZE_MAX=$((1 << 60))

# ms_parse_bytes TEXT -> bytes
ms_parse_bytes() {
    local t="$1" out helper
    helper=$(ms_size_helper) || { printf '%s\n' "$MS_SIZE_HELPER_MISSING"; return 1; }
    out=$("$helper" "$t") || true
    case "$out" in
        "ok "*) out=${out#ok } ;;
        "error "*) printf '%s\n' "${out#error }"; return 1 ;;
        *) printf "invalid size '%s': the size helper gave no answer\n" "$t"; return 1 ;;
    esac
    # past 2^63-1 bash cannot compare numbers: too large by length, or by
    # lexical order, which is numeric order for digit strings of one length
    # shellcheck disable=SC2071
    if [ "${#out}" -gt 19 ] || { [ "${#out}" -eq 19 ] && [[ "$out" > 9223372036854775807 ]]; } ||
       [ "$out" -gt "$MS_SIZE_MAX" ]; then
        printf "invalid size '%s': too large\n" "$t"
        return 1
    fi
    if [ "$out" -lt 1 ]; then
        printf "invalid size '%s': must be at least 1 byte\n" "$t"
        return 1
    fi
    printf '%s\n' "$out"
}

# ms_scale_bytes TEXT NUMBER MULTIPLIER -> integral bytes within range
ms_scale_bytes() {
    local out
    out=$(awk -v n="$2" -v m="$3" -v max="$MS_SIZE_MAX" 'BEGIN {
        v = n * m
        if (v > max) { print "range"; exit }
        if (v != int(v)) { print "frac"; exit }
        if (v < 1) { print "zero"; exit }
        printf "%.0f\n", v }')
    case "$out" in
        range) printf "invalid size '%s': too large\n" "$1"; return 1 ;;
        frac) printf "invalid size '%s': not a whole number of bytes\n" "$1"; return 1 ;;
        zero) printf "invalid size '%s': must be at least 1 byte\n" "$1"; return 1 ;;
    esac
    printf '%s\n' "$out"
}

ms_list_shape_ok() {  # no empty items, no control character (a newline would end the list early)
    [ -n "$1" ] && [[ "$1" != ,* ]] && [[ "$1" != *, ]] && [[ "$1" != *,,* ]] && [[ "$1" != *[[:cntrl:]]* ]]
}

# ms_parse_size_list LIST LLC_BYTES -> one byte count per line (in order,
# duplicates dropped).  "<n>x" entries need LLC_BYTES > 0.
ms_parse_size_list() {
    local list="$1" llc="$2" item b
    local -a items out=()
    local -A seen=()
    if ! ms_list_shape_ok "$list"; then
        printf "invalid size list '%s'; use e.g. 64M,256M,1G or 1x,4x,8x\n" "$list"
        return 1
    fi
    IFS=, read -r -a items <<<"$list"
    for item in "${items[@]}"; do
        if [[ "$item" =~ ^([0-9]+([.][0-9]+)?)[xX]$ ]]; then
            if [ "$llc" -le 0 ]; then
                printf "size '%s' is relative to the LLC, which is unknown here; give absolute sizes or set MEMSUITE_LLC\n" "$item"
                return 1
            fi
            b=$(ms_scale_bytes "$item" "${BASH_REMATCH[1]}" "$llc") || { printf '%s\n' "$b"; return 1; }
        else
            b=$(ms_parse_bytes "$item") || { printf "in size list '%s': %s\n" "$list" "$b"; return 1; }
        fi
        [ -n "${seen[$b]:-}" ] && continue
        seen[$b]=1
        out+=("$b")
    done
    printf '%s\n' "${out[@]}"
}

# The most threads a tool runs: MB_MAX_THREADS of common/affinity.h (and
# MAX_THREADS of the analyser's rundir_check.py); a test holds them equal.
MS_MAX_THREADS=1024

# ms_parse_thread_list LIST CORES -> thread counts, ascending, unique,
# each 1..MS_MAX_THREADS.  "cores" stands for the physical core count.
ms_parse_thread_list() {
    local list="$1" cores="$2" item
    local -a items out=()
    if ! ms_list_shape_ok "$list"; then
        printf "invalid thread list '%s'; use e.g. 1,2,4,8 or 1,cores\n" "$list"
        return 1
    fi
    IFS=, read -r -a items <<<"$list"
    for item in "${items[@]}"; do
        [ "$item" = cores ] && item="$cores"
        if ! [[ "$item" =~ ^[0-9]+$ ]] || [ "${#item}" -gt 5 ] || [ "$((10#$item))" -lt 1 ] || [ "$((10#$item))" -gt "$MS_MAX_THREADS" ]; then
            printf "invalid thread count '%s' in '%s'; use whole numbers 1..%d (or 'cores')\n" "$item" "$list" "$MS_MAX_THREADS"
            return 1
        fi
        out+=("$((10#$item))")
    done
    printf '%s\n' "${out[@]}" | sort -n -u
}

# Default threads: 1, 2, 4, ... below the physical cores, then the cores.
ms_default_threads() {
    local cores="$1" t=1
    while [ "$t" -lt "$cores" ]; do
        printf '%s\n' "$t"
        t=$((t * 2))
    done
    printf '%s\n' "$cores"
}

# ms_parse_uint_opt NAME VALUE [MAX [MIN]] -> a whole number MIN (default 0)..MAX
ms_parse_uint_opt() {
    local name="$1" v="$2" max="${3:-1000000}" min="${4:-0}"
    if ! [[ "$v" =~ ^[0-9]+$ ]] || [ "${#v}" -gt 9 ] || [ "$((10#$v))" -gt "$max" ] || [ "$((10#$v))" -lt "$min" ]; then
        printf "%s: invalid value '%s'; use a whole number %s..%s\n" "$name" "$v" "$min" "$max"
        return 1
    fi
    printf '%s\n' "$((10#$v))"
}

# ms_parse_decimal NAME VALUE -> "70", "7.5" (a trailing % is accepted)
ms_parse_decimal() {
    local name="$1" v="${2%\%}"
    # at most 9 digits before the point: 18446744073709551616 is refused
    # here, as 1e308 is, instead of reaching awk or Python as a float
    if ! [[ "$v" =~ ^[0-9]{1,9}([.][0-9]{1,9})?$ ]]; then
        printf "%s: invalid number '%s'; use e.g. 10 or 7.5\n" "$name" "$2"
        return 1
    fi
    printf '%s\n' "$v"
}
