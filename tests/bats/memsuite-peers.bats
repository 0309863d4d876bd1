#!/usr/bin/env bats
# memsuite peers: the peer report (one alternating run, one table of
# ratios and its JSON) against stub tools with known figures, and the
# peers-*.sh scripts (memsuite peers all|NAME).

load test_helper
load ../fixtures/memsuite-bats/helpers

peer() {    # peer NAME BODY
    mkdir -p "$SANDBOX/peers"
    printf '#!/usr/bin/env bash\n%s\n' "$2" >"$SANDBOX/peers/peers-$1.sh"
    export MEMSUITE_PEERS_DIR="$SANDBOX/peers"
}

# Our tools as stubs with fixed figures (MEMSUITE_BIN), and the peers
# under $SANDBOX/ref: every ratio is known.
#   latency (ns) ours / multichase: TLB 8 100/100, 64 110/100, 256 120/120,
#     full 200/190, 32 KiB 1.0/1.0
#   seqread 20 GB/s; likwid load_avx 20000, load_avx512 25000, sum_avx
#     22000 MB/s (best 25 GB/s: ratio 0.8); stream Triad 30000, --nt-stores
#     33000 MB/s; likwid stream_avx 30000, stream_mem_avx 30000
#   mbw 8000/6000/9000 MiB/s both; STREAM 5.10 and ours 10000..13000 MB/s
#   sysbench read 19073.486328125 MiB/s = 20 GB/s
local_setup() {
    ms_test_env "$SANDBOX" "$STUBS"
    export MEMSUITE_BIN="$SANDBOX/ours" REF="$SANDBOX/ref"
    mkdir -p "$MEMSUITE_BIN" "$REF"
    ms_stub "$MEMSUITE_BIN" mencal '
case " $* " in *" --dry-run "*)
    printf "size: %s bytes\nthreads: 2\ncpus: 0 1\n" "${FAKE_BYTES:-1073741824}"; exit 0 ;; esac
out="" tlb=64 size=""
while [ $# -gt 0 ]; do
    case "$1" in -O) out=$2; shift ;; --tlb-locality) tlb=$2; shift ;; --size) size=$2; shift ;; esac
    shift
done
case "$size/$tlb" in
    32KiB/*) lat=1.0 ;; */8) lat=100 ;; */64) lat=110 ;; */256) lat=120 ;; */0) lat=200 ;; esac
jq -n --argjson lat "${lat:-0}" "{ sysinfo: { cpu_model: \"Fake CPU 9000\", mem_total_bytes: 17179869184 },
    llc: { total_bytes: 33554432, source: \"sysfs\" },
    records: [ { metrics: { bandwidth: { value: 20 }, latency: { value: \$lat } } } ] }" >"$out"'
    ms_stub "$MEMSUITE_BIN" stream '
out="" nt=0 auto=0
for a in "$@"; do [ "$a" = --nt-stores ] && nt=1; [ "$a" = auto ] && auto=1; done
while [ $# -gt 0 ]; do case "$1" in -O) out=$2; shift ;; esac; shift; done
if [ -n "$out" ]; then
    jq -n --argjson t "$([ $nt = 1 ] && echo 33000 || echo 30000)" "{ config: { array_size: 1000000, array_bytes: 8000000 },
        records: [ { name: \"Triad\", metrics: { best_rate_mbps: { value: \$t } } } ] }" >"$out"
else
    printf "Copy:           10000.0     0.1     0.1     0.1\nScale:          11000.0     0.1     0.1     0.1\nAdd:            12000.0     0.1     0.1     0.1\nTriad:          13000.0     0.1     0.1     0.1\n"
fi'
    local mbw_out='printf "AVG\tMethod: MEMCPY\tElapsed: 0.1\tMiB: 256\tCopy: 8000.000 MiB/s\nAVG\tMethod: DUMB\tElapsed: 0.1\tMiB: 256\tCopy: 6000.000 MiB/s\nAVG\tMethod: MCBLOCK\tElapsed: 0.1\tMiB: 256\tCopy: 9000.000 MiB/s\n"'
    ms_stub "$MEMSUITE_BIN" mbw "$mbw_out"
    ms_stub "$REF" mbw "$mbw_out"
    ms_stub "$REF" multichase '
case "$*" in
    "-m 1g -T 32k") echo " 100.0" ;; "-m 1g -T 256k") echo " 100.0" ;; "-m 1g -T 1m") echo " 120.0" ;;
    "-m 1g -T 1g") echo " 190.0" ;; "-m 32k") echo "  1.000" ;; *) echo "unexpected $*"; exit 1 ;;
esac'
    ms_stub "$REF" stream-5.10 '
echo "STREAM version \$Revision: 5.10 \$"
echo "Array size = 1000000 (elements), Offset = 0 (elements)"
echo "Each kernel will be executed 10 times."
printf "Copy:           10000.0     0.1     0.1     0.1\nScale:          10000.0     0.1     0.1     0.1\nAdd:            12000.0     0.1     0.1     0.1\nTriad:          13000.0     0.1     0.1     0.1\n"'
    ms_stub "$REF" likwid-bench '
[ "$1" = -a ] && { printf "load - scalar\nload_avx - AVX\nload_avx512 - AVX-512\nsum_avx - AVX\nstream_avx - AVX\nstream_mem_avx - AVX NT\ncopy_avx - AVX\n"; exit 0; }
case "$2" in load) v=5000 ;; load_avx) v=20000 ;; load_avx512) v=25000 ;; sum_avx) v=22000 ;;
             stream_avx) v=30000 ;; stream_mem_avx) v=30000 ;; *) v=1 ;; esac
printf "MByte/s:\t\t%s\n" "$v"'
    ms_stub "$REF" sysbench '
printf "sysbench %s\n" "$*" >>"$FAKE_LOG"
echo "20000.00 MiB transferred (19073.486328125 MiB/sec)"'
    # the fixture cpuinfo, with microcode and AVX-512
    printf 'microcode\t: 0x2b000590\nflags\t\t: fpu sse2 avx avx2 avx512f hypervisor\n' >"$MEMSUITE_PROCFS/cpuinfo"
}


refs() {   # the options naming every stub peer
    printf '%s\n' --stream510 "$REF/stream-5.10" --multichase "$REF/multichase" \
        --likwid-bench "$REF/likwid-bench" --mbw "$REF/mbw" --sysbench "$REF/sysbench"
}

row() {   # row FILE ID FIELD
    jq -r --arg id "$2" ".rows[] | select(.id == \$id) | .$3" "$1"
}

@test "peers: one table of ratios headed by the machine, the same as JSON" {
    mapfile -t r < <(refs)
    run "$MS" peers "${r[@]}" --rounds 2 --json p.json
    assert_success
    assert_line "memsuite peers: Fake CPU 9000; microcode 0x2b000590; flags sse2 avx avx2 avx512f hypervisor; LLC 32 MiB (sysfs); memory 16 GiB"
    assert_output --regexp 'latency_tlb8 +randread best --tlb-locality 8 +multichase -m 1g -T 32k \(best\) +ns +100 +100 +1 +1-1 +0.97-1.03 ok'
    assert_output --regexp 'latency_tlb64 +randread best --tlb-locality 64 +multichase -m 1g -T 256k \(best\) +ns +110 +100 +1.1 +1.1-1.1 +0.97-1.03 OFF'
    assert_output --regexp 'latency_full .* 200 +190 +1.053 '
    assert_output --regexp 'seqread_load +mencal seqread +likwid-bench best load\*/sum\* \(load_avx512, best median of 4\) +GB/s +20 +25 +0.8 +0.8-0.8 +0.97- +OFF'
    assert_output --regexp 'triad_nt .*\(stream_mem_avx\) +MB/s +33000 +30000 +1.1 +1.1-1.1 +1.02- +ok'
    assert_output --regexp 'stream_scale .* 11000 +10000 +1.1 '
    assert_output --regexp 'mbw_dumb .* 6000 +6000 +1 '
    assert_output --regexp 'seqread_sysbench .* 20 +20 +1 '
    refute_output --partial "not run:"
    # the A/A controls: the stubs never move, so every row is settled
    assert_output --regexp 'control_bandwidth +mencal seqread, run A +the same, run B \(A/A control\) +GB/s +20 +20 +1 +1-1 +- +A/A control'
    assert_output --regexp 'control_latency +randread best --tlb-locality 64, run A .* ns +110 +110 +1 +1-1 +- +A/A control'
    refute_output --partial unsettled
    run jq -r '[.schema, .rounds, (.rows | length), .machine.cpu_model, .machine.microcode] | join(" ")' p.json
    assert_output "memsuite/peers/1 2 18 Fake CPU 9000 0x2b000590"
    [ "$(row p.json latency_tlb8 control)" = control_latency ]
    [ "$(row p.json seqread_load control)" = control_bandwidth ]
    [ "$(row p.json seqread_load settled)" = null ]      # two rounds: too few to judge
    [ "$(row p.json control_bandwidth settled)" = null ]
    [ "$(row p.json control_latency 'per_round | map(.first) | join(",")')" = ours,ours ]
    [ "$(row p.json latency_tlb64 ratio)" = 1.1 ]
    [ "$(row p.json latency_tlb64 rounds_paired)" = 2 ]
    [ "$(row p.json seqread_load 'peer_variants | join(",")')" = load,load_avx,load_avx512,sum_avx ]
    [ "$(row p.json seqread_load peer_variant)" = load_avx512 ]
    [ "$(row p.json seqread_load 'peer_variant_medians.sum_avx')" = 22 ]
    [ "$(row p.json latency_32k better)" = lower ]
    # every round's pair is kept, with the side that ran first
    run jq -c '.rows[] | select(.id == "latency_tlb64") | .per_round | map([.round, .first, .ours, .peer])' p.json
    assert_output '[[1,"ours",110,100],[2,"peer",110,100]]'
    # MCBLOCK has no target: Debian's re-reads one cached block
    [ "$(row p.json mbw_mcblock target)" = null ]
}

@test "peers: randread's best repetition is compared with multichase's best sample; the median rides along" {
    ms_stub "$MEMSUITE_BIN" mencal '
case " $* " in *" --dry-run "*) printf "size: 1073741824 bytes\nthreads: 2\ncpus: 0 1\n"; exit 0 ;; esac
out=""
while [ $# -gt 0 ]; do case "$1" in -O) out=$2; shift ;; esac; shift; done
jq -n "{ records: [ { metrics: { latency: { value: 120, stats: { n: 5, min: 100, median: 120 } } } } ] }" >"$out"'
    run "$MS" peers --multichase "$REF/multichase" --skip stream510,likwid,mbw,sysbench --rounds 1 --json m.json
    assert_success
    [ "$(row m.json latency_tlb8 ours_median)" = 100 ]
    run jq -r '.rows[] | select(.id == "latency_tlb8") | .per_round[0].ours_detail' m.json
    assert_output "median 120"
}

@test "peers: Debian mbw 1.2.2's swapped MEMCPY/DUMB labels are compared as what they are" {
    MEMSUITE_PEERS_MBW_LABELS=swapped run "$MS" peers --mbw "$REF/mbw" --skip stream510,multichase,likwid,sysbench --rounds 1 --json w.json
    assert_success
    # ours MEMCPY 8000 against the peer line labelled DUMB (6000), and back
    [ "$(row w.json mbw_memcpy peer_median)" = 6000 ]
    [ "$(row w.json mbw_dumb peer_median)" = 8000 ]
    assert_output --regexp 'mbw_memcpy .*\(1.2.2 labels swapped\)'
    MEMSUITE_PEERS_MBW_LABELS=as-labelled run "$MS" peers --mbw "$REF/mbw" --skip stream510,multichase,likwid,sysbench --rounds 1 --json a.json
    [ "$(row a.json mbw_memcpy peer_median)" = 8000 ]
}

@test "peers: a self-comparison is refused by path and by version mark; the others still run" {
    run "$MS" peers --mbw "$MEMSUITE_BIN/mbw" --multichase "$REF/multichase" --skip stream510,likwid,sysbench --rounds 1
    assert_success
    assert_line "not run: mbw: self-comparison refused: $MEMSUITE_BIN/mbw is our own mbw"
    assert_output --regexp 'latency_tlb8 .* 1 +1-1 +0.97-1.03 ok'
    # a copy elsewhere, found by the mark our tools' --version print
    printf '#!/bin/sh\n# mbw (memsuite) 0.1.0\n' >"$SANDBOX/mbw-copy"
    chmod +x "$SANDBOX/mbw-copy"
    run "$MS" peers --mbw "$SANDBOX/mbw-copy" --multichase "$REF/multichase" --skip stream510,likwid,sysbench --rounds 1
    assert_success
    assert_line "not run: mbw: self-comparison refused: $SANDBOX/mbw-copy carries memsuite's version mark '(memsuite)': it is one of our own tools"
}

@test "peers: each peer it cannot run is reported with the reason; an unreadable figure is not used" {
    ms_stub "$REF" likwid-bench 'echo "ERROR: likwid-bench: cannot run in this VM (no access to the perf counters)" >&2; exit 1'
    ms_stub "$REF" multichase '[ "$*" = "-m 32k" ] && { echo garbage; exit 0; }; echo " 100.0"'
    run "$MS" peers --multichase "$REF/multichase" --likwid-bench "$REF/likwid-bench" \
        --sysbench "$SANDBOX/none" --mbw "$REF/mbw" --rounds 1 --json q.json
    assert_success
    assert_line "not run: stream510: not given: pass --stream510 PATH (STREAM 5.10 built from stream.c outside this tree)"
    assert_line --partial "not run: likwid: likwid-bench cannot run here: ERROR: likwid-bench: cannot run in this VM"
    assert_line "not run: sysbench: $SANDBOX/none is not an executable file"
    assert_output --regexp "latency_32k .* unavailable: peer: no figure \(read 'garbage'\)"
    assert_output --regexp 'mbw_memcpy .* 1 +1-1 +0.97-1.03 ok'
    [ "$(row q.json latency_32k ratio)" = null ]
    run jq -r '.not_run | map(.group) | join(",")' q.json
    assert_output "stream510,likwid,sysbench"
}

@test "peers: a row is unsettled where its median is known less precisely than its target; the A/A control rides along" {
    # seqread over the report's 1 GiB alternates 20 and 25 GB/s between
    # calls, three calls a round (seqread_load's, then the control's A and
    # B): seqread_load against likwid's 25 reads 0.8, 1, 0.8, known to
    # +-17% (2 SE), and the control pairs read 1.25, 0.8, 1.25
    ms_stub "$MEMSUITE_BIN" mencal '
case " $* " in *" --dry-run "*) printf "size: 1073741824 bytes\nthreads: 2\ncpus: 0 1\n"; exit 0 ;; esac
n=0
case " $* " in *" --size 1073741824 "*) n=$(( $(cat "$FAKE_CALLS" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$FAKE_CALLS" ;; esac
out=""
while [ $# -gt 0 ]; do case "$1" in -O) out=$2; shift ;; esac; shift; done
jq -n --argjson bw "$([ $((n % 2)) = 1 ] && echo 20 || echo 25)" "{ records: [ { metrics: { bandwidth: { value: \$bw } } } ] }" >"$out"'
    export FAKE_CALLS="$SANDBOX/calls"
    run "$MS" peers --likwid-bench "$REF/likwid-bench" --skip stream510,multichase,mbw,sysbench --rounds 3 --json u.json
    assert_success
    assert_output --regexp 'seqread_load .* 0.8 +0.8-1 +0.97- +unsettled: median \+-16.7% \(2 SE over 3 rounds\); A/A control 0.8-1.25'
    assert_output --regexp 'control_bandwidth .* 1.25 +0.8-1.25 +- +A/A control'
    assert_line --partial "unsettled = the median ratio is known less precisely than the target's tolerance"
    [ "$(row u.json seqread_load settled)" = false ]
    [ "$(row u.json seqread_load 'control_range | join(" ")')" = "0.8 1.25" ]
    # triad_nt's figures never move: settled, and judged as ever
    [ "$(row u.json triad_nt settled)" = true ]
    assert_output --regexp 'triad_nt .* 1.1 +1.1-1.1 +1.02- +ok'
    # no latency row ran, so no latency control either
    [ -z "$(row u.json control_latency id)" ]
    # --skip control: no control row; the rows are still judged by their own spread
    run "$MS" peers --likwid-bench "$REF/likwid-bench" --skip stream510,multichase,mbw,sysbench,control --rounds 3 --json v.json
    assert_success
    [ -z "$(row v.json control_bandwidth id)" ]
    [ "$(row v.json seqread_load control)" = null ]
    refute_output --partial "A/A control"
}

@test "peers: sysbench gets a power-of-two block (2 x 1920 MiB per thread was refused)" {
    FAKE_BYTES=4026531840 run "$MS" peers --sysbench "$REF/sysbench" --skip stream510,multichase,likwid,mbw --rounds 1
    assert_success
    run grep -o -- '--memory-block-size=[0-9]*' "$FAKE_LOG"
    assert_output "--memory-block-size=1073741824"
}

@test "peers: bad input is a usage error naming the value; nothing to compare fails" {
    run "$MS" peers --rounds 0
    assert_failure 2
    assert_output "memsuite: peers: --rounds '0': expected an integer from 1 to 999"
    run "$MS" peers --skip stream,mbw
    assert_failure 2
    assert_output "memsuite: peers: --skip 'stream': expected a comma-separated list of stream510, multichase, likwid, mbw, sysbench, control"
    run "$MS" peers --bogus
    assert_failure 2
    run "$MS" peers --skip stream510,multichase,likwid,mbw,sysbench
    assert_failure 1
    assert_output --partial "no comparison could run"
    # the controls alone compare nothing: they do not run
    run "$MS" peers --skip stream510,multichase,likwid,mbw,sysbench,control
    assert_failure 1
    assert_output --partial "no comparison could run"
}

@test "peers: the scripts find our tools and their library in a source tree and installed" {
    # installed: PREFIX/share/memsuite/{lib,peers}, our tools in
    # PREFIX/lib/memsuite/bin (docs/install.md)
    local p="$SANDBOX/prefix"
    mkdir -p "$p/lib/memsuite/bin" "$p/share/memsuite/lib" "$p/share/memsuite/peers"
    cp "$ROOT/scripts/lib/peers.sh" "$p/share/memsuite/lib/"
    cp "$ROOT/scripts/peers-curves.sh" "$p/share/memsuite/peers/"
    cp "$MEMSUITE_BIN/mencal" "$p/lib/memsuite/bin/"
    unset MEMSUITE_BIN
    run bash -c ". '$p/share/memsuite/lib/peers.sh' && ms_peers_bin_dir"
    assert_output "$p/lib/memsuite/bin"
    run bash -c ". '$ROOT/scripts/lib/peers.sh' && ms_peers_bin_dir"
    assert_output "$ROOT/bin"
    # the installed script loads the library (then refuses a bad --parts)
    run bash "$p/share/memsuite/peers/peers-curves.sh" --parts 9
    assert_failure 2
    assert_output "peers-curves: --parts: '9' is not a list of 1..5"
}

@test "peers: the clock probe's chains must agree" {
    run bash -c ". '$ROOT/scripts/lib/peers.sh' && ms_peers_clock cc '$SANDBOX'"
    # on any machine: a clock in range with both chains agreeing, or the reason
    assert_output --regexp '^([0-9]+\.[0-9]{3}|unavailable: .*)$'
    # a probe whose chains disagree (what an eliminated add chain gives)
    ms_stub "$STUBS" fakecc 'out=""; while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf "#!/bin/sh\necho 15.0 4.6\n" >"$out"; chmod +x "$out"'
    run bash -c ". '$ROOT/scripts/lib/peers.sh' && ms_peers_clock fakecc '$SANDBOX'"
    assert_failure 1
    assert_output --partial "unavailable: the clock probe read 15.00 GHz (add chain) and 4.60 GHz (imul chain), outside 0.4-7 GHz"
    ms_stub "$STUBS" fakecc 'out=""; while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
printf "#!/bin/sh\necho 6.0 4.6\n" >"$out"; chmod +x "$out"'
    run bash -c ". '$ROOT/scripts/lib/peers.sh' && ms_peers_clock fakecc '$SANDBOX'"
    assert_failure 1
    assert_output --partial "the add chain read 6.00 GHz and the imul chain 4.60 GHz; they disagree by over 10%"
}

@test "every peer script runs under its heading" {
    peer stream 'echo "stream vs STREAM 5.10: within 2%"'
    peer mbw 'echo "mbw vs mbw 1.2.2: within 3%"'
    run "$MS" peers all
    assert_success
    assert_output --partial $'== peers-mbw.sh ==\nmbw vs mbw 1.2.2: within 3%'
    assert_output --partial $'== peers-stream.sh ==\nstream vs STREAM 5.10: within 2%'
    assert_output --partial "2 peer script(s) run"
}

@test "a failing peer script: its exit status shown, exit 1" {
    peer stream 'echo partial; exit 4'
    peer mbw 'echo fine'
    run "$MS" peers all
    assert_failure 1
    assert_line "== peers-stream.sh: exit 4 =="
    assert_line "fine"
}

@test "only the named ones; unknown names and no scripts are errors" {
    peer stream 'echo S'
    peer mbw 'echo M'
    run "$MS" peers mbw
    assert_success
    refute_line "S"
    assert_line "M"
    run "$MS" peers nbody
    assert_failure 2
    assert_output "memsuite: peers: no peer script $SANDBOX/peers/peers-nbody.sh"
    mkdir empty
    MEMSUITE_PEERS_DIR="$SANDBOX/empty" run "$MS" peers all
    assert_failure 3
    assert_output "memsuite: peers: no peer scripts (peers-*.sh) in $SANDBOX/empty"
}

@test "arguments after -- reach every script" {
    peer stream 'echo "args: $*"'
    run "$MS" peers stream -- --size 256MiB --rounds 5
    assert_success
    assert_line "args: --size 256MiB --rounds 5"
}

@test "peers-stream.sh: sysbench gets a power-of-two block (2 x 960 MiB arrays was refused)" {
    # our stream as a stub: 960 MiB arrays; sysbench logs its arguments
    ms_stub "$MEMSUITE_BIN" stream '
out=""
while [ $# -gt 0 ]; do case "$1" in -O) out=$2; shift ;; esac; shift; done
jq -n "{ label: \"standard\", config: { array_size: 125829120, array_bytes: 1006632960 },
    records: [ { name: \"Dot\", metrics: { best_rate_mbps: { value: 9000 }, bytes: { value: 2013265920 },
                 avg_time_s: { value: 0.25 } } } ] }" >"$out"'
    ms_stub "$STUBS" sysbench '
printf "sysbench %s\n" "$*" >>"$FAKE_LOG"
for a in "$@"; do
    case "$a" in --memory-block-size=*) b=${a#*=}; [ $((b & (b - 1))) -eq 0 ] || { echo "FATAL: Invalid value for memory-block-size: $b"; exit 1; } ;; esac
done
echo "20000.00 MiB transferred (8583.06640625 MiB/sec)"'
    run bash "$ROOT/scripts/peers-stream.sh" --no-likwid --rounds 1 --threads 1 --ntimes 2
    assert_success
    run grep -o -- '--memory-block-size=[0-9]*' "$FAKE_LOG"
    assert_line "--memory-block-size=1073741824"
    refute_output --partial "2013265920"
}
