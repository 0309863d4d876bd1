#!/usr/bin/env bats
# Bash completion (contrib/completion/memsuite.bash): sourced, then each
# completion function called with COMP_WORDS/COMP_CWORD set as bash would,
# and COMPREPLY compared with the expected candidates.

load test_helper

COMPLETION="$ROOT/contrib/completion/memsuite.bash"

local_setup() {
    export PATH="$ROOT/scripts:$PATH"
    # shellcheck source=/dev/null
    . "$COMPLETION"
}

# complete_words FUNCTION WORD... -> the candidates, one line, sorted
complete_words() {
    local fn="$1"
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMPREPLY=()
    "$fn"
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

help_options() { awk -f "$BATS_TEST_DIRNAME/help-options.awk" | sort -u | tr '\n' ' ' | sed 's/ $//'; }

@test "every command has its completion function registered" {
    run complete -p memsuite stream stream_mpi mbw mencal
    assert_success
    assert_line "complete -F _memsuite_complete memsuite"
    assert_line "complete -F _memsuite_complete_tool stream"
    assert_line "complete -F _memsuite_complete_tool mbw"
    assert_line "complete -F _memsuite_complete_mencal mencal"
    # the installed names (docs/install.md) complete as the tools do
    run complete -p memsuite-stream memsuite-stream_mpi memsuite-mbw memsuite-mencal
    assert_success
    assert_line "complete -F _memsuite_complete_tool memsuite-stream"
    assert_line "complete -F _memsuite_complete_tool memsuite-mbw"
    assert_line "complete -F _memsuite_complete_mencal memsuite-mencal"
}

@test "stream: options by prefix, and the values of a choice option" {
    run complete_words _memsuite_complete_tool stream --nt
    assert_output "--nt-isa --nt-stores --ntimes"
    # the values of the binary's architecture (stream --help's choices)
    local want="auto avx2 avx512"
    [ "$(bin_arch)" = aarch64 ] && want=auto
    run complete_words _memsuite_complete_tool stream --nt-isa a
    assert_output "$want"
    run complete_words _memsuite_complete_tool stream --format ""
    assert_output "csv json text"
}

@test "stream, stream_mpi, mbw: '-' offers exactly the options of --help" {
    local t
    for t in stream stream_mpi mbw; do
        [ -x "$BIN/$t" ] || continue
        run complete_words _memsuite_complete_tool "$t" -
        assert_output "$("$t" --help 2>&1 | help_options)"
    done
}

@test "stream_mpi: its own options" {
    [ -x "$BIN/stream_mpi" ] || skip "stream_mpi not built (no mpicc)"
    run complete_words _memsuite_complete_tool stream_mpi --st
    assert_output "--star --strict"
}

@test "mbw: values of --hugepages; -O completes file names" {
    run complete_words _memsuite_complete_tool mbw --hugepages ""
    assert_output "madvise never thp"
    touch result-a.json result-b.json
    run complete_words _memsuite_complete_tool mbw -O result-
    assert_output "result-a.json result-b.json"
}

@test "mencal: commands, scenarios after run, scenario and alloc options" {
    run complete_words _memsuite_complete_mencal mencal ""
    assert_output "--help --version env list run"
    run complete_words _memsuite_complete_mencal mencal run ""
    assert_output "$( (mencal list | awk '/^[a-z]/ { print $1 }'; echo all) | sort | tr '\n' ' ' | sed 's/ $//')"
    assert_output --partial "randread seqread"
    run complete_words _memsuite_complete_mencal mencal run randread --chains
    assert_output "--chains"
    run complete_words _memsuite_complete_mencal mencal run randread --ch
    assert_output "--chain-layout --chains"
    run complete_words _memsuite_complete_mencal mencal run seqread --hugepages m
    assert_output "madvise"
    run complete_words _memsuite_complete_mencal mencal run alloc --all
    assert_output "--allocators"
    run complete_words _memsuite_complete_mencal mencal run alloc -
    assert_output "$(mencal run alloc --help | help_options)"
}

@test "memsuite: the commands, then each command's options from its help" {
    run complete_words _memsuite_complete memsuite ""
    assert_output "--help --version check cluster compare env help peers profile report run summary"
    # every command of memsuite help (profile completes its actions first)
    local cmd
    local -a cmds
    mapfile -t cmds < <(memsuite help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
    [ "${#cmds[@]}" -ge 8 ]
    for cmd in "${cmds[@]}"; do
        [ "$cmd" = profile ] && continue
        run complete_words _memsuite_complete memsuite "$cmd" --
        assert_output "$(memsuite help "$cmd" | help_options | tr ' ' '\n' | grep -- '^--' | tr '\n' ' ' | sed 's/ $//')"
    done
    run complete_words _memsuite_complete memsuite run --b
    assert_output "--baseline --bench --bind"
}

@test "memsuite: values for run, profile and help" {
    run complete_words _memsuite_complete memsuite run --bind ""
    assert_output "close node: none spread"
    run complete_words _memsuite_complete memsuite run --bench mencal:r
    assert_output "mencal:randread mencal:randread-sweep"
    # mencal's own sweep (the mountain) once, beside memsuite's randread-sweep
    run complete_words _memsuite_complete memsuite run --bench mencal:sw
    assert_output "mencal:sweep"
    run complete_words _memsuite_complete memsuite run --profile ""
    assert_output "default tuned"
    run complete_words _memsuite_complete memsuite profile ""
    assert_output "--help apply list restore show"
    run complete_words _memsuite_complete memsuite profile apply t
    assert_output "tuned"
    run complete_words _memsuite_complete memsuite help c
    assert_output "check cluster compare"
    run complete_words _memsuite_complete memsuite cluster --launcher ""
    assert_output "auto local mpirun srun"
}

@test "memsuite report and compare complete directories" {
    mkdir -p results-1 results-2
    touch results-file
    run complete_words _memsuite_complete memsuite report res
    assert_output "results-1 results-2"
    run complete_words _memsuite_complete memsuite compare results-1 res
    assert_output "results-1 results-2"
}
