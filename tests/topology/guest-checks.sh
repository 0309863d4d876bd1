#!/usr/bin/env bash
# The topology lab's checks, run by /init inside a QEMU guest (see
# run-lab.sh).  Prints TAP on stdout (the serial console): one line per
# check, diagnostics as "# ..." lines, the plan last.  The shape's
# expectations come from the kernel command line (lab.KEY=VALUE, from
# shapes.tsv).  States, placement, exit codes and messages only: timing
# under TCG means nothing, so no figure is ever compared.
set -u

BIN=/lab/bin
MS=/lab/scripts/memsuite
SYS=/sys/devices/system
export MEMSUITE_BIN=$BIN MEMSUITE_STATE_DIR=/var/lib/memsuite

# --- expectations ---
declare -A E=()
read -r -a words </proc/cmdline
for w in "${words[@]}"; do
    case "$w" in lab.*=*) w="${w#lab.}"; E[${w%%=*}]="${w#*=}" ;; esac
done
IFS=, read -r -a NODES <<<"${E[nodes]}"
CPULESS="${E[cpuless]}"
[ "$CPULESS" = none ] && CPULESS=""

# --- TAP ---
N=0
FAILS=0
say() { local l; while IFS= read -r l; do printf '#   %s\n' "$l"; done <<<"$1"; }
ok() { N=$((N + 1)); printf 'ok %d - %s\n' "$N" "$1"; }
notok() {
    N=$((N + 1)) FAILS=$((FAILS + 1))
    printf 'not ok %d - %s\n' "$N" "$1"
    [ -n "${2:-}" ] && say "$2"
    return 0
}
# t DESC CMD...: ok when CMD succeeds; its output is the diagnostic.
t() {
    local d="$1" out
    shift
    if out=$("$@" 2>&1); then ok "$d"; else notok "$d" "$out"; fi
}
# eq WHAT GOT WANT
eq() { [ "$2" = "$3" ] || { printf '%s: got %q, want %q\n' "$1" "$2" "$3"; return 1; }; }

node_cpus() { cat "$SYS/node/node$1/cpulist"; }
# node_free: each node's MemFree (a node with no room spills its pages to
# another, which a placement check then reports: this says whether it was
# room or policy).
node_free() {
    local f
    for f in "$SYS"/node/node*/meminfo; do
        awk '$3 == "MemFree:" { printf "%s MemFree %d MiB\n", "node" $2, $4 / 1024 }' "$f"
    done
}
expand() {     # expand "0-2,5" -> "0 1 2 5"
    local part out=()
    IFS=, read -r -a parts <<<"$1"
    for part in "${parts[@]}"; do
        [ -n "$part" ] || continue
        if [[ "$part" == *-* ]]; then mapfile -t -O "${#out[@]}" out < <(seq "${part%-*}" "${part#*-}"); else out+=("$part"); fi
    done
    echo "${out[*]}"
}
CPUNODES=()
for n in "${NODES[@]}"; do [ "$n" != "$CPULESS" ] && CPUNODES+=("$n"); done

# --- the shape the kernel shows is the shape booted (else the lab lies) ---
shape_sysfs() {
    local want_nodes
    want_nodes=$(IFS=,; echo "${NODES[*]}")
    eq "online nodes with memory" "$(expand "$(cat $SYS/node/has_memory)" | tr ' ' ,)" "$want_nodes" &&
    eq "smt/control" "$(cat $SYS/cpu/smt/control)" "${E[smt]}" &&
    if [ -n "$CPULESS" ]; then eq "node$CPULESS cpulist" "$(node_cpus "$CPULESS")" ""; fi
}
t "kernel shows the shape booted (${E[shape]}: nodes ${E[nodes]}, smt ${E[smt]})" shape_sysfs
say "$(node_free)"

# --- LLC detection ---
# l3=N: N distinct L3 instances in sysfs, their sizes summed; l3=none: the
# caches have no sizes (a device-tree guest), which the tools say with
# the reason instead of a figure.
llc_check() {
    local j size
    j=$("$BIN/stream" -s 1MiB -n 2 --format json 2>/dev/null) || { echo "stream failed"; return 1; }
    if [ "${E[l3]}" = none ]; then
        if eq "llc.source" "$(jq -r .llc.source <<<"$j")" none &&
            eq "llc.total_bytes" "$(jq .llc.total_bytes <<<"$j")" null &&
            jq -r .llc.total_bytes_unavailable <<<"$j" | grep -q '^unavailable: the caches have no sizes in sysfs'; then
            return 0
        fi
        echo "llc: $(jq -c .llc <<<"$j")"
        return 1
    fi
    size=$(cat $SYS/cpu/cpu0/cache/index3/size)
    size=$(( ${size%K} * 1024 ))
    eq "llc.instances" "$(jq .llc.instances <<<"$j")" "${E[l3]}" &&
    eq "llc.source" "$(jq -r .llc.source <<<"$j")" sysfs &&
    eq "llc.instance_bytes" "$(jq .llc.instance_bytes <<<"$j")" "$size" &&
    eq "llc.total_bytes" "$(jq .llc.total_bytes <<<"$j")" "$((size * E[l3]))"
}
if [ "${E[l3]}" = none ]; then
    t "stream JSON llc: no cache sizes in sysfs, so no figure: 'unavailable' with the reason" llc_check
else
    t "stream JSON llc: ${E[l3]} L3 instance(s) from sysfs, total = instances x size" llc_check
fi

mencal_llc_check() {
    local j llc
    j=$("$BIN/mencal" env --format json 2>/dev/null) || { echo "mencal env failed"; return 1; }
    if [ "${E[l3]}" = none ]; then
        llc=$(jq -r '.sysinfo.llc_unavailable // empty' <<<"$j")
        { [ "$(jq .sysinfo.llc <<<"$j")" = null ] && grep -q "caches have no sizes in sysfs" <<<"$llc"; } ||
            { echo "mencal env llc: $(jq -c '[.sysinfo.llc, .sysinfo.llc_unavailable]' <<<"$j")"; return 1; }
        return 0
    fi
    jq -r .sysinfo.llc <<<"$j" | grep -q "(sysfs); sysfs: ${E[l3]} distinct L3 instance" ||
        { echo "mencal env llc: $(jq -r .sysinfo.llc <<<"$j")"; return 1; }
}
if [ "${E[l3]}" = none ]; then
    t "mencal env llc: null, with why (no cache sizes in sysfs)" mencal_llc_check
else
    t "mencal env llc names ${E[l3]} distinct L3 instance(s) from sysfs" mencal_llc_check
fi

# --- non-temporal stores: the variant the CPU has, picked at run time ---
# nt=VARIANT: stream --nt-stores uses it, its JSON and banner say so.
nt_check() {
    local j txt
    j=$(run_json "$BIN/stream" -s 1MiB -n 2 -t 1 --nt-stores) || { echo "$j"; return 1; }
    eq "config.nt_stores.isa" "$(jq -r .config.nt_stores.isa <<<"$j")" "${E[nt]}" || return 1
    txt=$("$BIN/stream" -s 1MiB -n 2 -t 1 --nt-stores 2>&1) || { echo "$txt"; return 1; }
    grep -qF "*** tuned run: non-temporal stores (${E[nt]}) ***" <<<"$txt" || { echo "$txt" | head -n 5; return 1; }
}

# --- environment reports ---
mencal_env_check() {
    local j
    j=$("$BIN/mencal" env --format json 2>/dev/null) || { echo "mencal env failed"; return 1; }
    eq sockets "$(jq .sysinfo.sockets <<<"$j")" "${E[sockets]}" &&
    eq smt "$(jq -r .sysinfo.smt <<<"$j" | cut -d' ' -f1)" "${E[smt]}" &&
    eq numa_nodes "$(jq .sysinfo.numa_nodes <<<"$j")" "${#NODES[@]}"
}
t "mencal env: ${E[sockets]} socket(s), smt ${E[smt]}, ${#NODES[@]} node(s)" mencal_env_check

memsuite_env_check() {
    local j numa n
    j=$("$MS" env --json 2>/dev/null) || { echo "memsuite env failed"; return 1; }
    eq sockets "$(jq .sockets <<<"$j")" "${E[sockets]}" || return 1
    jq -r '.facts[] | select(.key == "smt") | .value' <<<"$j" | grep -q "^${E[smt]}" ||
        { echo "smt fact: $(jq -c '.facts[] | select(.key == "smt")' <<<"$j")"; return 1; }
    eq numa_nodes "$(jq -c .numa_nodes <<<"$j")" "[$(IFS=,; echo "${NODES[*]}")]" || return 1
    numa=$(jq -r '.facts[] | select(.key == "numa") | .value' <<<"$j")
    grep -q "^${#NODES[@]} node(s)" <<<"$numa" || { echo "numa fact: $numa"; return 1; }
    for n in "${NODES[@]}"; do
        grep -q "node$n " <<<"$numa" || { echo "numa fact lacks node$n: $numa"; return 1; }
    done
    if [ -n "$CPULESS" ]; then
        grep -q "node$CPULESS cpus none" <<<"$numa" || { echo "numa fact, CPU-less node$CPULESS: $numa"; return 1; }
    fi
}
t "memsuite env: ${E[sockets]} socket(s), smt ${E[smt]}, nodes ${E[nodes]}${CPULESS:+ (node$CPULESS CPU-less)}" memsuite_env_check

# --- placement: every array's pages where they were asked ---
# placed JSON NODES: every array in .config.numa_placement (stream) or the
# one .numa.placement (mencal) has all sampled pages on NODES (comma list),
# and with several NODES, pages on each of them.  Nodes listed with 0 pages
# do not count.
placed() {
    local j="$1" want="$2"
    jq -e --arg want "$want" '
        ($want | split(",")) as $w
        | [ (.config.numa_placement // {} | to_entries[] | .value), (.numa.placement // empty) ] as $p
        | ($p | length) > 0 and all($p[];
            type == "object" and .pages_sampled > 0 and .pages_not_present == 0
            and ((.pages_per_node | with_entries(select(.value > 0))) as $on
                 | (($on | keys) - $w) == []
                 and ([$on[]] | add) == .pages_sampled
                 and (if ($w | length) > 1 then (($on | keys | sort) == ($w | sort)) else true end)))' \
        <<<"$j" >/dev/null ||
        { echo "wanted on node(s) $want; got $(jq -c '[.config.numa_placement, .numa] | map(select(. != null))' <<<"$j")"
          node_free; return 1; }
}
run_json() {   # run_json CMD...: the JSON on stdout, exit 0 required
    local out rc=0
    out=$("$@" --format json 2>/tmp/lab.err) || rc=$?
    [ "$rc" -eq 0 ] || { echo "exit $rc: $* : $(tail -n 3 /tmp/lab.err)"; return 1; }
    printf '%s\n' "$out"
}
membind_check() {
    local tool="$1" n="$2" j
    if [ "$tool" = stream ]; then j=$(run_json "$BIN/stream" -s 1MiB -n 2 -t 1 --membind "$n") || { echo "$j"; return 1; }
    else j=$(run_json "$BIN/mencal" run seqread --size 1MiB --threads 1 --reps 1 --membind "$n") || { echo "$j"; return 1; }
    fi
    eq policy "$(jq -r '.numa.policy' <<<"$j")" "membind=$n" && placed "$j" "$n"
}
cpubind_check() {
    local tool="$1" n="$2" j cpus c want
    want=" $(expand "$(node_cpus "$n")") "
    if [ "$tool" = stream ]; then j=$(run_json "$BIN/stream" -s 1MiB -n 2 --cpunodebind "$n") || { echo "$j"; return 1; }
    else j=$(run_json "$BIN/mencal" run seqread --size 1MiB --reps 1 --cpunodebind "$n") || { echo "$j"; return 1; }
    fi
    cpus=$(jq -r '.threads.cpus[]' <<<"$j")
    [ -n "$cpus" ] || { echo "no thread CPUs reported"; return 1; }
    for c in $cpus; do
        [[ "$want" == *" $c "* ]] || { echo "a thread ran on cpu$c, outside node$n (cpus$want)"; return 1; }
    done
    placed "$j" "$n"    # first touch from node n's CPUs
}
interleave_check() {
    local tool="$1" j all
    all=$(IFS=,; echo "${NODES[*]}")
    # 4 KiB pages: with THP a 2 MiB page is the unit of interleaving, and
    # one 1 MiB array may lie in one huge page, on one node.
    if [ "$tool" = stream ]; then j=$(run_json "$BIN/stream" -s 1MiB -n 2 -t 1 --hugepages never --interleave all) || { echo "$j"; return 1; }
    else j=$(run_json "$BIN/mencal" run seqread --size 1MiB --threads 1 --reps 1 --hugepages never --interleave all) || { echo "$j"; return 1; }
    fi
    placed "$j" "$all"
}
for tool in stream mencal; do
    for n in "${NODES[@]}"; do
        t "$tool --membind $n: every array's pages on node$n${CPULESS:+$([ "$n" = "$CPULESS" ] && echo ' (CPU-less)')}" membind_check "$tool" "$n"
    done
    for n in "${CPUNODES[@]}"; do
        t "$tool --cpunodebind $n: threads on node$n's CPUs, pages on node$n" cpubind_check "$tool" "$n"
    done
    t "$tool --interleave all: every array's pages spread over nodes ${E[nodes]}" interleave_check "$tool"
done

if [ -n "${E[nt]:-}" ]; then
    t "stream --nt-stores: the ${E[nt]} variant, named in the JSON and the tuned banner" nt_check
fi

cpuless_refused() {
    local tool="$1" rc=0 err
    if [ "$tool" = stream ]; then "$BIN/stream" -s 1MiB -n 2 --cpunodebind "$CPULESS" >/dev/null 2>/tmp/lab.err || rc=$?
    else "$BIN/mencal" run seqread --size 1MiB --reps 1 --cpunodebind "$CPULESS" >/dev/null 2>/tmp/lab.err || rc=$?
    fi
    err=$(cat /tmp/lab.err)
    eq "exit status" "$rc" 2 || { echo "$err"; return 1; }
    { grep -q "node $CPULESS" <<<"$err" && grep -qi "no cpus" <<<"$err"; } ||
        { echo "message does not name node $CPULESS and its lack of CPUs: $err"; return 1; }
}
if [ -n "$CPULESS" ]; then
    for tool in stream mencal; do
        t "$tool --cpunodebind $CPULESS (CPU-less) is refused with exit 2 and a clear message" cpuless_refused "$tool"
    done
fi

# --- the topology of memory: matrix, HMAT read back, weighted pages, c2c ---
# On a shape that declares HMAT figures (lab.hmat=I:T:LAT:BW,...: the
# latency in ns and bandwidth in MB/s QEMU was told for initiator I and
# target T), or asks for the matrix (lab.matrix=1: the matrix, its tiers
# and the weighted placement, no HMAT).  Structure and placement only;
# TCG timings mean nothing.
if [ -n "${E[hmat]:-}" ] || [ "${E[matrix]:-}" = 1 ]; then
    NCPU=$(expand "$(cat $SYS/cpu/online)" | wc -w)
    matrix_json=$(run_json "$BIN/mencal" run matrix --size 4MiB --reps 1 --hugepages never) || matrix_json=""
    matrix_cells() {
        [ -n "$matrix_json" ] || { echo "mencal run matrix failed"; return 1; }
        eq "cells" "$(jq '.records[0].tables.cells | length' <<<"$matrix_json")" "$(( ${#CPUNODES[@]} * ${#NODES[@]} ))" &&
        eq "initiator x target pairs" \
            "$(jq -r '[.records[0].tables.cells[] | "\(.initiator):\(.target)"] | join(" ")' <<<"$matrix_json")" \
            "$(for i in "${CPUNODES[@]}"; do for t in "${NODES[@]}"; do printf '%s:%s ' "$i" "$t"; done; done | sed 's/ $//')" &&
        eq "target kind of node$CPULESS" \
            "$(jq -r --argjson t "$CPULESS" '[.records[0].tables.cells[] | select(.target == $t) | .target_kind] | unique | join(",")' <<<"$matrix_json")" \
            "CPU-less memory"
    }
    t "mencal run matrix: every initiator (${CPUNODES[*]}) x target (${NODES[*]}) cell, node$CPULESS as CPU-less memory" matrix_cells
    matrix_pages() {
        [ -n "$matrix_json" ] || return 1
        eq "cells with every sampled page on the target" \
            "$(jq '[.records[0].tables.cells[] | select(.pages_on_target == 100)] | length' <<<"$matrix_json")" \
            "$(( ${#CPUNODES[@]} * ${#NODES[@]} ))"
    }
    t "mencal run matrix: every cell's pages are on its target node (move_pages)" matrix_pages
    hmat_readback() {
        [ -n "$matrix_json" ] || return 1
        local e i tg lat bw got n=0 f
        IFS=, read -r -a told <<<"${E[hmat]}"
        for e in "${told[@]}"; do
            IFS=: read -r i tg lat bw <<<"$e"
            got=$(jq -r --argjson i "$i" --argjson t "$tg" \
                '.records[0].tables.cells[] | select(.initiator == $i and .target == $t) | .hmat_read_latency // "none"' <<<"$matrix_json")
            [ "$got" = none ] && continue      # the kernel lists the best initiators only
            n=$((n + 1))
            eq "declared latency $i -> $tg (ns)" "$got" "$lat" || return 1
            got=$(jq -r --argjson i "$i" --argjson t "$tg" \
                '.records[0].tables.cells[] | select(.initiator == $i and .target == $t) | .hmat_read_bandwidth * 1000 | round' <<<"$matrix_json")
            eq "declared bandwidth $i -> $tg (MB/s)" "$got" "$bw" || return 1
        done
        # the declared pairs are each target's best initiators by the told
        # latency (the kernel lists those alone)
        local want got_pairs
        want=$(tr , '\n' <<<"${E[hmat]}" | awk -F: '!($2 in best) || $3 < best[$2] { best[$2] = $3; who[$2] = $1 }
                  END { for (t in who) print who[t] ":" t }' | sort | paste -sd' ' -)
        got_pairs=$(jq -r '[.records[0].tables.cells[] | select(.hmat_read_latency != null) | "\(.initiator):\(.target)"] | sort | join(" ")' <<<"$matrix_json")
        eq "pairs with a declared figure" "$got_pairs" "$want"
    }
    [ -z "${E[hmat]:-}" ] ||
        t "HMAT figures read back (sysfs access0/access1) equal what QEMU was told (${E[hmat]})" hmat_readback
    weighted_pages() {
        local j near far
        j=$(run_json "$BIN/mencal" run seqread --size 8MiB --threads 1 --reps 1 --hugepages never \
            --interleave-weights "${CPUNODES[0]}:3,$CPULESS:1") || { echo "$j"; return 1; }
        near=$(jq --arg n "${CPUNODES[0]}" '.numa.placement.pages_per_node[$n] * 100 / .numa.placement.pages_sampled | round' <<<"$j")
        far=$(jq --arg n "$CPULESS" '.numa.placement.pages_per_node[$n] * 100 / .numa.placement.pages_sampled | round' <<<"$j")
        { [ "$near" -ge 72 ] && [ "$near" -le 78 ] && [ "$far" -ge 22 ] && [ "$far" -le 28 ]; } ||
            { echo "3:1 asked, got node${CPUNODES[0]} $near%, node$CPULESS $far%: $(jq -c .numa.placement <<<"$j")"; return 1; }
        jq -r '.records[0].notes[] | select(startswith("placed by weight"))' <<<"$j"
    }
    t "--interleave-weights ${CPUNODES[0]}:3,$CPULESS:1: 75% of the pages on node${CPUNODES[0]}, 25% on node$CPULESS" weighted_pages
    weights_sweep() {
        local j
        j=$(run_json "$BIN/mencal" run weights --size 8MiB --threads 1 --reps 1 --hugepages never --ratios 1:0,1:1,0:1) || { echo "$j"; return 1; }
        eq "near:far pages per ratio" "$(jq -r '[.records[0].tables.weights[] | "\(.ratio)=\(.pages_on_near | round)"] | join(" ")' <<<"$j")" "1:0=100 1:1=50 0:1=0" &&
        eq "far node" "$(jq .config.weights.far <<<"$j")" "$CPULESS"
    }
    # The tiers: each node's kind and the kernel's memory tier
    # (memory_tiering/memory_tierK/nodelist, Linux 6.1+) as mencal env says.
    tiers_check() {
        local j nodes n k want f
        j=$("$BIN/mencal" env --format json 2>/dev/null) || { echo "mencal env failed"; return 1; }
        nodes=$(jq -r .sysinfo.memory_nodes <<<"$j")
        for n in "${NODES[@]}"; do
            want="node$n local DRAM"
            [ "$n" = "$CPULESS" ] && want="node$n CPU-less memory"
            for f in /sys/devices/virtual/memory_tiering/memory_tier*/nodelist; do
                [ -r "$f" ] || continue
                k=${f%/nodelist}; k=${k##*memory_tier}
                [[ " $(expand "$(cat "$f")") " == *" $n "* ]] && want="$want .* tier $k"
            done
            grep -qE "(^|; )$want(;|$)" <<<"$nodes" || { echo "want '$want' in: $nodes"; return 1; }
        done
    }
    t "mencal env memory nodes: node$CPULESS CPU-less memory, each node in the kernel's memory tier" tiers_check
    t "mencal run weights: each ratio's pages where it asks (1:0, 1:1, 0:1 over node${CPUNODES[0]} and node$CPULESS)" weights_sweep
    c2c_pairs() {
        local j
        j=$(run_json "$BIN/mencal" run c2c --c2c-samples 20) || { echo "$j"; return 1; }
        eq "pairs" "$(jq '.records[0].tables.pairs | length' <<<"$j")" "$((NCPU * (NCPU - 1) / 2))" &&
        eq "pairs with a figure" "$(jq '[.records[0].tables.pairs[] | select(.one_way > 0)] | length' <<<"$j")" "$((NCPU * (NCPU - 1) / 2))" &&
        eq "boundaries seen" "$(jq -r '[.records[0].tables.pairs[].between] | unique | join(",")' <<<"$j")" "other package,same L3"
    }
    [ -z "${E[hmat]:-}" ] ||
        t "mencal run c2c: every pair of the $NCPU CPUs, same-L3 and cross-package pairs told apart" c2c_pairs
fi

# --- memsuite check --per-node: one verdict per node ---
cat >/tmp/ref.json <<'EOF'
{ "schema": "memsuite/ref/1", "description": "topology lab: states only, any figure passes",
  "run": { "bench": "stream", "size_bytes": 1048576, "threads": 1, "reps": 2, "bind": "spread" },
  "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
                 "expected": 1, "lower_pct": 99, "upper_pct": null } ] }
EOF
per_node_check() {
    local out rc=0 n lines
    # The check runs --strict (arrays >= 4x LLC): a small stated LLC keeps
    # the arrays small under emulation.
    out=$(MEMSUITE_LLC=256KiB "$MS" check --ref /tmp/ref.json --per-node --retries 0 --ignore-load 2>&1) || rc=$?
    eq "exit status" "$rc" 0 || { echo "$out"; return 1; }
    for n in "${CPUNODES[@]}"; do
        lines=$(grep -c "^node$n: " <<<"$out")
        [ "$lines" -ge 1 ] || { echo "no verdict line for node$n:"; echo "$out"; return 1; }
    done
    { [ "$(grep -cE '^node[0-9]+: ' <<<"$out")" -eq "${#CPUNODES[@]}" ] &&
        grep -q "^memsuite: PASS .*${#CPUNODES[@]} node(s)" <<<"$out"; } ||
        { echo "want one line per node with CPUs (${CPUNODES[*]}) and PASS:"; echo "$out"; return 1; }
}
t "memsuite check --per-node: one verdict line per node with CPUs (${CPUNODES[*]}), PASS" per_node_check

# --- enforcement on the real sysfs ---
KNOBS=("$SYS/cpu/smt/control" "$SYS/cpu/online" /sys/kernel/mm/transparent_hugepage/enabled
       /proc/sys/kernel/numa_balancing /proc/sys/vm/swappiness)
snapshot() { local f; for f in "${KNOBS[@]}"; do printf '%s: ' "$f"; od -An -c "$f" | tr -s ' '; done; }
BEFORE=$(snapshot)
cur_thp=$(grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled | tr -d '[]')
THP=never; [ "$cur_thp" = never ] && THP=always
[ "$(cat /proc/sys/kernel/numa_balancing)" = 0 ] && NB=1 || NB=0
SW=13
mkdir -p /tmp/profiles /tmp/wbin
printf '# Summary: topology lab\nvm.swappiness=%s\nkernel.numa_balancing=%s\n' "$SW" "$NB" >/tmp/profiles/lab.profile
export MEMSUITE_PROFILES=/tmp/profiles
# A stream that records the knobs as the run sees them, then runs (or, with
# LAB_HANG set, waits to be killed).  memsuite run asks each tool for its
# --plan before it enforces anything: that call is passed straight on.
cat >/tmp/wbin/stream <<EOF
#!/usr/bin/bash
case " \$* " in *" --plan "*) exec $BIN/stream "\$@" ;; esac
{ cat $SYS/cpu/smt/control $SYS/cpu/online; grep -o '\[[a-z]*\]' /sys/kernel/mm/transparent_hugepage/enabled
  cat /proc/sys/kernel/numa_balancing /proc/sys/vm/swappiness; } >/tmp/inrun
if [ -n "\${LAB_HANG:-}" ]; then echo \$\$ >/tmp/hang.pid; sleep 300; fi
exec $BIN/stream "\$@"
EOF
chmod +x /tmp/wbin/stream
ln -sf "$BIN/mbw" /tmp/wbin/mbw
ln -sf "$BIN/mencal" /tmp/wbin/mencal
want_smt="${E[smt]}"; [ "$want_smt" = on ] && want_smt=off
RUN=(run --bench stream --sizes 1MiB --threads 1 --reps 2 --enforce --thp "$THP" --profile lab)
inrun_check() {
    local got want
    got=$(tr '\n' ' ' </tmp/inrun)
    want="$want_smt "
    if [ "${E[smt]}" = on ]; then
        # one thread per core stays online: the first of each sibling list
        want+="$(cat $SYS/cpu/cpu*/topology/thread_siblings_list | sort -u | cut -d, -f1 | cut -d- -f1 | sort -n | paste -sd, -) "
    else
        want+="$(cat $SYS/cpu/online) "
    fi
    want+="[$THP] $NB $SW "
    eq "in-run smt/control, cpus online, thp, numa_balancing, swappiness" "$got" "$want"
}
enforce_check() {
    local out rc=0
    rm -f /tmp/inrun
    out=$(MEMSUITE_BIN=/tmp/wbin "$MS" "${RUN[@]}" --out /tmp/run1 2>&1) || rc=$?
    eq "exit status" "$rc" 0 || { echo "$out"; return 1; }
    inrun_check || return 1
    eq "knobs after the run (bytes)" "$(snapshot)" "$BEFORE"
}
t "memsuite run --enforce --thp $THP --profile lab: smt $want_smt, thp $THP, numa_balancing $NB, swappiness $SW during the run; every knob restored byte for byte" enforce_check

kill_check() {
    local pid i out rc=0
    rm -f /tmp/inrun /tmp/hang.pid
    LAB_HANG=1 MEMSUITE_BIN=/tmp/wbin "$MS" "${RUN[@]}" --out /tmp/run2 >/tmp/run2.log 2>&1 &
    pid=$!
    for ((i = 0; i < 600; i++)); do [ -s /tmp/hang.pid ] && break; sleep 0.1; done
    [ -s /tmp/hang.pid ] || { echo "the run never reached the benchmark:"; cat /tmp/run2.log; kill -9 "$pid"; return 1; }
    kill -9 "$pid" "$(cat /tmp/hang.pid)"
    wait "$pid" 2>/dev/null
    inrun_check || return 1
    if [ "$(snapshot)" = "$BEFORE" ] && [ "$want_smt$THP$NB$SW" != "${E[smt]}$cur_thp" ]; then
        echo "the knobs were already back after SIGKILL: the kill did not land mid-way"; return 1
    fi
    out=$("$MS" run --bench stream --sizes 1MiB --threads 1 --reps 2 --out /tmp/run3 2>&1) || rc=$?
    eq "exit status of the next run" "$rc" 0 || { echo "$out"; tail -n 5 /tmp/run3/logs/* 2>/dev/null; return 1; }
    eq "knobs after the next invocation (bytes)" "$(snapshot)" "$BEFORE" || { echo "$out"; return 1; }
    { [ ! -e /var/lib/memsuite/enforce.state ] && [ ! -e /var/lib/memsuite/profile.state ]; } ||
        { echo "a state file is left: $(ls /var/lib/memsuite)"; return 1; }
}
t "the same run killed with SIGKILL mid-way: the next memsuite run restores every knob byte for byte" kill_check
# Whatever the kill check left, start the next check from the booted state.
"$MS" profile restore >/dev/null 2>&1

profile_check() {
    local rc=0 out
    out=$("$MS" profile apply lab 2>&1) || rc=$?
    eq "apply exit status" "$rc" 0 || { echo "$out"; return 1; }
    eq "swappiness applied" "$(cat /proc/sys/vm/swappiness)" "$SW" || return 1
    eq "numa_balancing applied" "$(cat /proc/sys/kernel/numa_balancing)" "$NB" || return 1
    out=$("$MS" profile restore lab 2>&1) || rc=$?
    eq "restore exit status" "$rc" 0 || { echo "$out"; return 1; }
    eq "knobs after restore (bytes)" "$(snapshot)" "$BEFORE"
}
t "memsuite profile apply lab then restore: knobs changed, then back byte for byte" profile_check

echo "1..$N"
[ "$FAILS" -eq 0 ]
