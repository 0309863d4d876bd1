# shellcheck shell=bash
# peers: what the peer comparisons share (memsuite peers and every
# peers-*.sh): where our tools are, medians and paired ratios, the
# self-comparison check, and the core-clock probe with its sanity check.
# Standalone: it needs nothing from common.sh, so the peers-*.sh scripts
# source it directly (ms_peers_lib below finds it in a source tree and
# when installed).

# The directory of our binaries: MEMSUITE_BIN, else the source tree's bin/
# (this file in scripts/lib/), else the installed PREFIX/lib/memsuite/bin
# (this file in PREFIX/share/memsuite/lib/; PREFIX/bin holds only the
# memsuite-TOOL links, and its stream may be ImageMagick's).  The first that holds mencal wins; with
# none, the source tree's, so that the error names a path to build.
ms_peers_bin_dir() {
    local lib d
    if [ -n "${MEMSUITE_BIN:-}" ]; then
        printf '%s\n' "$MEMSUITE_BIN"
        return
    fi
    lib=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
    for d in "$lib/../../bin" "$lib/../../../lib/memsuite/bin"; do
        if [ -x "$d/mencal" ]; then
            (cd -- "$d" && pwd)
            return
        fi
    done
    printf '%s\n' "$(cd -- "$lib/../.." && pwd)/bin"
}

# Median of the numbers on stdin ("nan" and empty lines ignored); "nan"
# when none.
ms_peers_median() {
    awk '$1 != "nan" && $1 != "" { print $1 }' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ms_peers_pow2_floor N: the largest power of two <= N (N >= 1); what
# sysbench memory accepts as --memory-block-size.
ms_peers_pow2_floor() {
    local n=$1 p=1
    while [ $((p * 2)) -le "$n" ]; do p=$((p * 2)); done
    printf '%s\n' "$p"
}

# ms_peers_positive VALUE: a finite number above zero (what a parsed
# figure must be before it enters a ratio).
ms_peers_positive() {
    [[ "$1" =~ ^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$ ]] && awk -v v="$1" 'BEGIN { exit !(v > 0) }'
}

# ms_peers_is_ours PATH OURS_DIR: true (and the reason on stdout) when the
# "peer" is one of our own binaries: the same file as one in OURS_DIR, or
# a binary carrying memsuite's version mark "(memsuite)" (what our tools'
# --version print).  Read, not run: a peer such as STREAM ignores its
# arguments and would run the whole benchmark.
ms_peers_is_ours() {
    local p=$1 dir=$2 real t
    real=$(readlink -f -- "$p" 2>/dev/null) || real=$p
    for t in stream mbw mencal stream_mpi; do
        if [ -e "$dir/$t" ] && [ "$real" = "$(readlink -f -- "$dir/$t")" ]; then
            printf '%s is our own %s\n' "$p" "$t"
            return 0
        fi
    done
    if [ -f "$real" ] && LC_ALL=C grep -aq -- '(memsuite)' "$real" 2>/dev/null; then
        printf "%s carries memsuite's version mark '(memsuite)': it is one of our own tools\n" "$p"
        return 0
    fi
    return 1
}

# ms_peers_clock CC WORKDIR [CPU]: the core clock actually running, in
# GHz, from two dependent chains timed apart: 1-cycle register adds
# (add %r,%r: no immediate, which Intel's Golden Cove class of cores fold
# at rename; a chain of `add $1` read "15 GHz" there) and 3-cycle 64-bit
# multiplies (imul, 3 cycles on every x86 core since Intel Core 2 and AMD
# Zen).  Sanity: the two must agree within 10% and fall in 0.4-7 GHz;
# prints "GHZ" or "unavailable: why", status 1 when unavailable.
ms_peers_clock() {
    local cc=$1 dir=$2 cpu=${3:-} out pin=()
    cat >"$dir/clock.c" <<'CEOF'
/* GHz from two dependent chains, trials alternating between them so that
 * both see the same machine: "add" (1 cycle per op) and "imul" (3 cycles
 * per op), 60 trials of each of about 5*10^6 cycles (~1 ms: on a shared
 * machine some trial runs unpreempted); prints the best of each. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
/* GHz of one chain: n iterations of ten dependent OPs of CYC cycles. */
#define OP10(OP) OP OP OP OP OP OP OP OP OP OP
#define CHAIN(NAME, OP, N, CYC)                                     \
    static double NAME(void)                                        \
    {                                                               \
        uint64_t x = 3;                                             \
        double t0 = now_ns();                                       \
        for (uint64_t i = 0; i < (N); i++)                          \
            __asm__ volatile(OP10(OP) : "+r"(x));                   \
        return (double)(N) * 10 * (CYC) / (now_ns() - t0);          \
    }
CHAIN(add_ghz, "add %0,%0\n\t", 500000, 1)
CHAIN(imul_ghz, "imul %0,%0\n\t", 170000, 3)
int main(void)
{
    double a = 0, m = 0;
    for (int trial = 0; trial < 60; trial++) {
        double x = add_ghz(), y = imul_ghz();
        a = x > a ? x : a;
        m = y > m ? y : m;
    }
    printf("%.4f %.4f\n", a, m);
    return 0;
}
CEOF
    if ! out=$("$cc" -O2 -o "$dir/clock" "$dir/clock.c" 2>&1); then
        echo "unavailable: compiling the clock probe with $cc failed: ${out%%$'\n'*}"
        return 1
    fi
    [ -n "$cpu" ] && command -v taskset >/dev/null && pin=(taskset -c "$cpu")
    local a m
    read -r a m < <("${pin[@]}" "$dir/clock") || true
    if [ -z "${m:-}" ]; then
        echo "unavailable: the clock probe did not run"
        return 1
    fi
    awk -v a="$a" -v m="$m" 'BEGIN {
        if (a < 0.4 || a > 7 || m < 0.4 || m > 7) {
            printf "unavailable: the clock probe read %.2f GHz (add chain) and %.2f GHz (imul chain), outside 0.4-7 GHz\n", a, m; exit 1 }
        if (a > m * 1.1 || m > a * 1.1) {
            printf "unavailable: the add chain read %.2f GHz and the imul chain %.2f GHz; they disagree by over 10%% (an eliminated or fused chain, or the clock moved)\n", a, m; exit 1 }
        printf "%.3f\n", (a + m) / 2 }'
}
