#!/usr/bin/env bats
# make install / make uninstall with DESTDIR, and the installed tree at
# work: memsuite finds its library, profiles and peer scripts under
# PREFIX/share/memsuite, man pages cite PREFIX, Lmod's module puts the
# tools on PATH and MANPATH.  The build is the suite's own ($MEMSUITE_BIN,
# taken as up to date: make -o all).

load test_helper

PREFIX=/opt/memsuite/test

local_setup() {
    unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
    unset NUMA PAPI MARCH CFLAGS SANITIZE
    DEST="$SANDBOX/dest"
    P="$DEST$PREFIX"
}

make_target() {     # make_target TARGET: install/uninstall into $DEST
    make -s -C "$ROOT" -o all BUILD="${MEMSUITE_BUILD:-$ROOT/build}" BIN="$BIN" \
        PREFIX="$PREFIX" DESTDIR="$DEST" "$1"
}

@test "make install: the FHS layout under PREFIX" {
    make_target install
    local f
    for f in lib/memsuite/bin/stream lib/memsuite/bin/mbw lib/memsuite/bin/mencal bin/memsuite \
             libexec/memsuite/memsuite-size libexec/memsuite/memsuite-facts libexec/memsuite/memsuite-out lib/memsuite/man/man1/stream.1 lib/memsuite/man/man1/mbw.1 \
             share/man/man1/memsuite-stream.1 share/man/man1/memsuite-mbw.1 share/man/man1/memsuite-mencal.1 share/man/man1/memsuite.1 \
             share/memsuite/result.schema.json share/memsuite/result-v1.schema.json share/memsuite/plan.schema.json share/memsuite/facts.schema.json share/memsuite/lib/common.sh \
             share/memsuite/analysis/memsuite-analyse share/memsuite/analysis/memsuite_analysis/aggregate.py \
             share/memsuite/profiles/tuned.profile share/memsuite/peers/peers-stream.sh \
             share/bash-completion/completions/memsuite share/modulefiles/memsuite/0.1.0.lua \
             sbin/memsuite-slurm-check share/memsuite/nhc/memsuite.nhc share/doc/memsuite/LICENSE \
             share/doc/memsuite/acceptance.md share/doc/memsuite/node-validation.md share/doc/memsuite/examples/requirements.json; do
        [ -f "$P/$f" ] || { echo "missing $PREFIX/$f"; return 1; }
    done
    [ -x "$P/lib/memsuite/bin/stream" ] && [ -x "$P/bin/memsuite" ]
    [ "$(readlink "$P/bin/memsuite-stream")" = ../lib/memsuite/bin/stream ]
    [ "$(readlink "$P/bin/memsuite-mbw")" = ../lib/memsuite/bin/mbw ]
    [ "$(readlink "$P/share/bash-completion/completions/memsuite-stream")" = memsuite ]
    if [ -x "$BIN/stream_mpi" ]; then
        [ -x "$P/lib/memsuite/bin/stream_mpi" ] && [ -f "$P/share/man/man1/memsuite-stream_mpi.1" ]
    fi
    # no path that another package owns (ImageMagick's stream, Debian's mbw)
    for f in bin/stream bin/mbw bin/mencal bin/stream_mpi share/man/man1/stream.1 share/man/man1/mbw.1 \
             share/bash-completion/completions/stream share/bash-completion/completions/mbw; do
        [ ! -e "$P/$f" ] && [ ! -L "$P/$f" ] || { echo "installed $PREFIX/$f"; return 1; }
    done
    [ -x "$P/sbin/memsuite-slurm-check" ]
    # memsuite-stream(1) carries its installed name; stream(1) the classic one
    grep -qx '.TH MEMSUITE\\-STREAM 1 .*' "$P/share/man/man1/memsuite-stream.1"
    grep -qx '.B memsuite\\-stream' "$P/share/man/man1/memsuite-stream.1"
    grep -q '^memsuite-mencal \\- ' "$P/share/man/man1/memsuite-mencal.1"
    grep -qx '.TH STREAM 1 .*' "$P/lib/memsuite/man/man1/stream.1"
    # man pages cite the installed paths of this PREFIX
    grep -q "$PREFIX/share/memsuite/result.schema.json" "$P/share/man/man1/memsuite-stream.1"
    grep -q "$PREFIX/lib/memsuite/bin/" "$P/share/man/man1/memsuite.1"
    run grep -c '/usr/share/memsuite\|/usr/lib/memsuite\|/usr/bin/memsuite' "$P"/share/man/man1/*.1
    refute_output --regexp ':[1-9]'
}

@test "installed memsuite: help, profiles and peer scripts from PREFIX/share/memsuite" {
    make_target install
    unset MEMSUITE_BIN
    run env -u MEMSUITE_PEERS_DIR PATH=/usr/bin:/bin "$P/bin/memsuite" help
    assert_success
    assert_output --partial "peers"
    run env PATH=/usr/bin:/bin "$P/bin/memsuite" profile list
    assert_success
    assert_output --partial "tuned"
    run env -u MEMSUITE_PEERS_DIR PATH=/usr/bin:/bin "$P/bin/memsuite" peers stream -- --help
    assert_success
    assert_line "== peers-stream.sh =="
    assert_output --partial "Usage:"
    # a peer script runs the installed tools (PREFIX/lib/memsuite/bin), not the tree's
    run env -u MEMSUITE_PEERS_DIR PATH=/usr/bin:/bin MEMSUITE_DEBUG=1 "$P/bin/memsuite" peers mbw -- --size 8 --runs 1 --rounds 1
    assert_success
    assert_output --partial "+ ours=$P/lib/memsuite/bin/mbw"
    assert_output --regexp "ours MEMCPY / Debian \"DUMB\" +[0-9.]+ +[0-9.]+ MiB/s"
    # every installed script finds the installed tools through the shared
    # library (PREFIX/lib/memsuite/bin; peers-curves looked in PREFIX/share/memsuite/bin)
    for n in curves mencal stream mbw; do
        run env -u MEMSUITE_PEERS_DIR PATH=/usr/bin:/bin MEMSUITE_DEBUG=1 "$P/bin/memsuite" peers "$n" -- --rounds 0
        assert_output --partial "+ bin=$P/lib/memsuite/bin"
        refute_output --partial "mencal not found"
    done
    [ -f "$P/share/memsuite/lib/peers.sh" ]
}

@test "installed memsuite runs its own tools, never another package's PREFIX/bin/stream" {
    make_target install
    unset MEMSUITE_BIN
    printf '#!/bin/sh\necho "ImageMagick stream: not STREAM" >&2\nexit 1\n' >"$P/bin/stream"
    chmod +x "$P/bin/stream"
    run env PATH="$P/bin:/usr/bin:/bin" MEMSUITE_LOCK="$SANDBOX/lock" "$P/bin/memsuite" run --bench stream,mbw \
        --sizes 1M --threads 1 --reps 2 --cooldown 0 --out res
    assert_success
    run grep -c "^env .* $P/lib/memsuite/bin/\(stream\|mbw\) " res/commands.txt
    assert_output 2
    run jq -r .tool res/cells/stream-s1048576-t1.json
    assert_output stream
}

@test "installed memsuite: sizes through PREFIX/libexec/memsuite/memsuite-size" {
    make_target install
    unset MEMSUITE_BIN
    run env PATH=/usr/bin:/bin "$P/bin/memsuite" run --sizes 64M,12Q --out x
    assert_failure 2
    assert_output --regexp "^memsuite: run: --sizes: in size list '64M,12Q': invalid size '12Q': trailing garbage 'Q'"
    [ ! -e x ]
    run env PATH=/usr/bin:/bin MEMSUITE_DEBUG=1 "$P/bin/memsuite" run --sizes 64M,12Q --out x
    assert_output --partial "$P/bin/../libexec/memsuite/memsuite-size 12Q"
}

@test "installed memsuite: env through PREFIX/libexec/memsuite/memsuite-facts" {
    make_target install
    unset MEMSUITE_BIN
    [ -x "$P/libexec/memsuite/memsuite-facts" ]
    run env PATH=/usr/bin:/bin "$P/bin/memsuite" env --json
    assert_success
    run jq -r '.schema, ([.facts[].key] | index("cores") != null)' <<<"$output"
    assert_output $'memsuite/env/1\ntrue'
}

@test "installed memsuite: cluster --aggregate through the analyser in PREFIX/share/memsuite/analysis" {
    make_target install
    "$ROOT/scripts/bench-aggregate.sh" --generate g --ref-out g.ref --nodes 3 --fail 2
    run env PATH=/usr/bin:/bin "$P/bin/memsuite" cluster --aggregate g --ref g.ref --format json
    assert_failure 1
    run jq -r '"\(.reported) \(.counts.pass) \(.counts.fail) \(.nodes[0].node)"' <<<"$output"
    assert_output "3 2 1 node00002"
    run env PATH=/usr/bin:/bin MEMSUITE_DEBUG=1 "$P/bin/memsuite" cluster --aggregate g --ref g.ref
    assert_output --partial "$P/share/memsuite/lib/../analysis/memsuite-analyse aggregate"
    # nothing written next to the installed package (no __pycache__)
    run find "$P/share/memsuite/analysis" -name '__pycache__'
    assert_output ""
}

@test "make uninstall removes exactly what make install installed" {
    mkdir -p "$P/bin" "$P/share/man/man1"
    echo keep >"$P/bin/other-tool"
    echo keep >"$P/share/man/man1/other.1"
    make_target install
    make_target uninstall
    run bash -c "find '$DEST' -mindepth 1 \\( -type f -o -type l \\) -printf '%P\\n' | sort"
    assert_output "$(printf '%s\n' "${PREFIX#/}/bin/other-tool" "${PREFIX#/}/share/man/man1/other.1" | sort)"
    [ ! -e "$P/share/memsuite" ] && [ ! -e "$P/share/modulefiles" ] && [ ! -e "$P/share/bash-completion" ]
    [ ! -e "$P/libexec/memsuite" ]
    # a second uninstall is harmless
    make_target uninstall
}

@test "Lmod: module load puts the tools on PATH and MANPATH, unload removes them" {
    local init
    init=$(ls /usr/share/lmod/lmod/init/bash 2>/dev/null || ls /usr/share/lmod/*/init/bash 2>/dev/null | head -1)
    [ -n "$init" ] || { echo "Lmod is not installed; run 'make deps'"; return 1; }
    make_target install
    cat >lmod.sh <<SH
set -e
export LMOD_ALLOW_ROOT_USE=yes MODULEPATH= MANPATH=/usr/share/man PATH=/usr/bin:/bin
. "$init"
module use "$P/share/modulefiles"
before=\$(command -v stream || echo none)
module load memsuite
echo "loaded: \$(command -v stream) \$(command -v mbw) \$(command -v memsuite)"
echo "manpath: \$MANPATH"
man -w memsuite
man -w stream
module unload memsuite
echo "unloaded: \$(command -v stream || echo none) (before: \$before)"
echo "manpath after unload: \$MANPATH"
SH
    run bash lmod.sh
    assert_success
    assert_line "loaded: $P/lib/memsuite/bin/stream $P/lib/memsuite/bin/mbw $P/bin/memsuite"
    assert_line --regexp "^manpath: $P/lib/memsuite/man:$P/share/man:"
    assert_line "$P/share/man/man1/memsuite.1"
    assert_line "$P/lib/memsuite/man/man1/stream.1"
    assert_line --regexp "^unloaded: (.*) \(before: \1\)$"
    assert_line "manpath after unload: /usr/share/man"
}

@test "check-coexist: bad arguments are named, exit 2; --help documents the steps" {
    run "$ROOT/scripts/check-coexist.sh"
    assert_failure 2
    assert_output "check-coexist: no .deb given; usage: check-coexist DEB..."
    run "$ROOT/scripts/check-coexist.sh" "$ROOT/README.md"
    assert_failure 2
    assert_output "check-coexist: '$ROOT/README.md' is not a .deb file (expected PATH.deb)"
    run "$ROOT/scripts/check-coexist.sh" missing.deb
    assert_failure 2
    assert_output "check-coexist: 'missing.deb' is not a file"
    run "$ROOT/scripts/check-coexist.sh" --help
    assert_success
    assert_output --partial "byte-identical"
}
