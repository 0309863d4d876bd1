#!/usr/bin/env bats
# The man pages document every option the commands' --help names, and
# cite installed paths, not the source tree's.  The option list of a help
# text comes from help-options.awk (also the completion's rule); a man
# page "names" an option when it appears as a word once font escapes are
# dropped and \- is read as -.  memsuite: each command's options in its
# own "memsuite CMD" section of memsuite.1.

load test_helper

MAN="$ROOT/docs"
MS="$ROOT/scripts/memsuite"

help_options() { awk -f "$BATS_TEST_DIRNAME/help-options.awk" | sort -u; }
man_text() { sed -e 's/\\f[BIRP]//g; s/\\f(..//g; s/\\-/-/g; s/\\(em/ /g' "$@"; }

# missing_from TEXT_FILE < options: the options TEXT_FILE does not name
missing_from() {
    local opt miss=()
    while IFS= read -r opt; do
        grep -q -E -- "(^|[^a-zA-Z0-9-])${opt}([^a-zA-Z0-9-]|\$)" "$1" || miss+=("$opt")
    done
    if [ "${#miss[@]}" -gt 0 ]; then
        echo "missing from the man page: ${miss[*]}"
        return 1
    fi
}

# check_tool NAME HELP-COMMAND...: every option of that help in NAME.1
check_tool() {
    local name="$1"
    shift
    [ -f "$MAN/$name.1" ] || { echo "no $name.1"; return 1; }
    man_text "$MAN/$name.1" >man.txt
    "$@" >help.txt 2>&1 || true
    help_options <help.txt >opts.txt
    [ "$(wc -l <opts.txt)" -ge 3 ] || { echo "too few options read from: $*"; cat help.txt; return 1; }
    missing_from man.txt <opts.txt
}

@test "stream(1) documents every option of stream --help" {
    check_tool stream "$BIN/stream" --help
}

@test "mbw(1) documents every option of mbw --help" {
    check_tool mbw "$BIN/mbw" --help
}

@test "mencal(1) documents every option of mencal --help and mencal run alloc --help" {
    check_tool mencal "$BIN/mencal" --help
    check_tool mencal "$BIN/mencal" run alloc --help
}

@test "stream_mpi(1) documents every option of stream_mpi --help" {
    [ -x "$BIN/stream_mpi" ] || skip "stream_mpi not built (no mpicc)"
    check_tool stream_mpi "$BIN/stream_mpi" --help
}

@test "memsuite(1) has a section per command, with every option of memsuite help CMD" {
    local cmd
    man_text "$MAN/memsuite.1" >all.txt
    mapfile -t cmds < <("$MS" help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }')
    [ "${#cmds[@]}" -ge 8 ]
    for cmd in "${cmds[@]}"; do
        awk -v h=".SS \"memsuite $cmd\"" '$0 == h { on = 1; next } /^\.S[HS] / { on = 0 } on' all.txt >sec.txt
        [ -s sec.txt ] || { echo "memsuite.1 has no section .SS \"memsuite $cmd\""; return 1; }
        "$MS" help "$cmd" | help_options >opts.txt
        missing_from sec.txt <opts.txt || { echo "(section memsuite $cmd)"; return 1; }
    done
}

@test "the check itself fails on an undocumented option" {
    printf '.TH X 1\n.TP\n.BR \\-\\-alpha\n' >x.1
    man_text x.1 >man.txt
    printf 'Usage: x [--alpha] [--beta]\n' | help_options >opts.txt
    run missing_from man.txt <opts.txt
    assert_failure
    assert_output "missing from the man page: --beta"
}

@test "every installed command has a man page, and pages cite installed paths" {
    local t
    for t in stream mbw mencal stream_mpi memsuite; do
        [ -f "$MAN/$t.1" ] || { echo "no docs/$t.1"; return 1; }
    done
    run grep -n -E '(^|[^a-z/])(docs|scripts)/' "$MAN"/*.1
    assert_failure 1
}

@test "the man pages render without groff warnings" {
    local p
    for p in "$MAN"/*.1; do
        run groff -man -ww -z "$p"
        assert_success
        assert_output ""
    done
}

# tool_help TOOL: the help text of a tool named as guide-options.py names it
tool_help() {
    case "$1" in
        "memsuite "*) "$MS" help "${1#memsuite }" ;;
        "mencal run "*) "$BIN/mencal" run "${1#mencal run }" --help; "$BIN/mencal" --help ;;
        stream_mpi) [ -x "$BIN/stream_mpi" ] && "$BIN/stream_mpi" --help ;;
        *) "$BIN/$1" --help ;;
    esac
}

@test "every option a guide puts on a tool's command line is one that tool's help names" {
    python3 "$BATS_TEST_DIRNAME/guide-options.py" "$ROOT"/README.md "$ROOT"/docs/*.md >uses.tsv
    [ "$(wc -l <uses.tsv)" -ge 150 ] || { echo "too few uses read:"; cat uses.tsv; return 1; }
    local where tool opt bad=0 key
    declare -A opts=()
    while IFS=$'\t' read -r where tool opt; do
        key=${tool// /_}
        if [ -z "${opts[$key]+x}" ]; then
            opts[$key]=" $(tool_help "$tool" 2>&1 | help_options | tr '\n' ' ') "
        fi
        [ "$tool" = stream_mpi ] && [ ! -x "$BIN/stream_mpi" ] && continue
        [[ "${opts[$key]}" == *" $opt "* ]] || { echo "${where#"$ROOT"/}: $tool does not take $opt"; bad=1; }
    done <uses.tsv
    [ "$bad" = 0 ]
}

@test "the guide check itself finds an option a tool does not take" {
    printf '# G\n\n```\nstream --no-such-option -s 10 \\\n   --ntimes 3\n```\nand `mbw --llc 8MiB 64` inline\n' >g.md
    run python3 "$BATS_TEST_DIRNAME/guide-options.py" g.md
    assert_success
    assert_output "$(printf 'g.md:4\tstream\t--no-such-option\ng.md:4\tstream\t--ntimes\ng.md:7\tmbw\t--llc')"
    run bash -c "'$BIN/mbw' --help 2>&1 | awk -f '$BATS_TEST_DIRNAME/help-options.awk' | grep -qx -- --llc"
    assert_failure
}

