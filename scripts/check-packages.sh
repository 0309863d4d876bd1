#!/usr/bin/env bash
# Summary: build the .deb and .rpm packages from a copy of this tree, lint
#          them, unpack them into clean directories and smoke-test the
#          installed tools there.
# Usage: scripts/check-packages.sh [--keep DIR]
#
#   1. copy the tracked (and untracked, not ignored) files to a temporary
#      directory: the build never touches this tree's build/ or bin/;
#   2. dpkg-buildpackage -us -uc -b there (debian/), then lintian on the
#      .changes: any error (E:) fails, warnings are printed;
#   3. rpmbuild -bb contrib/rpm/memsuite.spec from a tarball of the same
#      files (--nodeps: on Debian the rpm database knows no build
#      dependency; no debuginfo package: Debian lacks find-debuginfo);
#   4. dpkg-deb -x memsuite and memsuite-mpi into an empty root, and run
#      the installed tools from there with nothing of this tree on PATH:
#      --version (no -march=native in the build), small runs of stream,
#      mbw, mencal and stream_mpi, memsuite help/env/profile/run/report,
#      cluster --aggregate (the analyser) of generated node reports,
#      memsuite peers (each peer script, small sizes), man pages,
#      completion; the same for the .rpm's files (rpm2cpio | cpio);
#   5. no package ships a path of another's (ImageMagick's stream, Debian's
#      or Fedora's mbw: /usr/bin/stream, /usr/bin/mbw and their man pages),
#      and scripts/check-coexist.sh (root) installs the .deb files
#      beside ImageMagick and Debian's mbw in a sandbox, removes them, and
#      checks that those packages' files are byte-identical at each step;
#   6. print "check-packages: ok" and the packages' names and sizes.
# --keep DIR keeps the packages and the unpacked roots in DIR.
# Exit: 0 ok, 1 a step failed (named), 2 usage, 3 a tool missing (run
# 'make deps').  Takes about 3 minutes on 2 cores.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

prog=check-packages
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

keep=
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=${2:?--keep needs a directory}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) say "unknown argument '$1'; see --help"; exit 2 ;;
    esac
done

for t in dpkg-buildpackage dh lintian rpmbuild rpm2cpio cpio dpkg-deb man; do
    command -v "$t" >/dev/null || { say "'$t' is missing; run 'make deps'"; exit 3; }
done

src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define MB_VERSION "\(.*\)"/\1/p' "$src/common/buildinfo.h")
work=$(mktemp -d "${TMPDIR:-/tmp}/memsuite-pkg.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS

# 1. the source files
list_files() {
    if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$src" ls-files -co --exclude-standard
    else
        (cd "$src" && find . -type f -not -path './build*' -not -path './bin/*' -not -path './.git/*' | sed 's,^\./,,')
    fi
}
mkdir -p "$work/deb/memsuite-$version" "$work/rpm/SOURCES"
list_files | (cd "$src" && tar -cf - -T -) | tar -xf - -C "$work/deb/memsuite-$version"
tar -czf "$work/rpm/SOURCES/memsuite-$version.tar.gz" -C "$work/deb" "memsuite-$version"

# 2. .deb and lintian
say "dpkg-buildpackage -us -uc -b"
(cd "$work/deb/memsuite-$version" && dpkg-buildpackage -us -uc -b -j2) >"$work/deb.log" 2>&1 ||
    { tail -40 "$work/deb.log" >&2; fail "dpkg-buildpackage (log above)"; }
deb_arch=$(dpkg --print-architecture)   # amd64 or arm64 (debian/control)
debs=("$work/deb/memsuite_${version}_${deb_arch}.deb" "$work/deb/memsuite-mpi_${version}_${deb_arch}.deb")
for d in "${debs[@]}"; do [ -f "$d" ] || fail "no ${d##*/} built"; done
say "lintian"
lintian "$work/deb/memsuite_${version}_${deb_arch}.changes" >"$work/lintian.txt" 2>&1 || true
grep -E '^[EW]: ' "$work/lintian.txt" >&2 || true
if grep -q '^E: ' "$work/lintian.txt"; then fail "lintian reports errors"; fi

# 3. .rpm
say "rpmbuild -bb contrib/rpm/memsuite.spec"
rpmbuild -bb --nodeps --define "_topdir $work/rpm" --define 'debug_package %{nil}' \
    "$work/deb/memsuite-$version/contrib/rpm/memsuite.spec" >"$work/rpm.log" 2>&1 ||
    { tail -40 "$work/rpm.log" >&2; fail "rpmbuild (log above)"; }
rpm_arch=$(uname -m)                    # x86_64 or aarch64 (the spec's ExclusiveArch)
rpms=("$work/rpm/RPMS/$rpm_arch/memsuite-$version-1.$rpm_arch.rpm" "$work/rpm/RPMS/$rpm_arch/memsuite-mpi-$version-1.$rpm_arch.rpm")
for r in "${rpms[@]}"; do [ -f "$r" ] || fail "no ${r##*/} built"; done

# 4. unpack and smoke-test
mkdir -p "$work/root-deb" "$work/root-rpm"
for d in "${debs[@]}"; do dpkg-deb -x "$d" "$work/root-deb"; done
for r in "${rpms[@]}"; do (cd "$work/root-rpm" && rpm2cpio "$r" | cpio -idm --quiet); done

# in_root ROOT CMD...: CMD with ROOT/usr/bin first on PATH and none of this
# tree's variables (MEMSUITE_BIN, ...), in an empty working directory; its
# own run lock (a smoke run need not wait for a real one on this machine)
in_root() {
    local root="$1"
    shift
    (cd "$work/cwd" && env -u MEMSUITE_BIN -u MEMSUITE_ROOT -u MEMSUITE_BUILD -u MEMSUITE_PEERS_DIR \
        -u MEMSUITE_PROFILES MEMSUITE_LOCK="$work/memsuite.lock" PATH="$root/usr/bin:/usr/bin:/bin" MANPATH="$root/usr/share/man" \
        OMP_NUM_THREADS=2 "$@")
}
step() {    # step ROOT NAME CMD...: run, fail with its output if it fails
    local root="$1" name="$2"
    shift 2
    if ! in_root "$root" "$@" >"$work/step.out" 2>&1; then
        tail -20 "$work/step.out" >&2
        fail "$name (${root##*/})"
    fi
}
expect() {  # expect NAME ERE: the last step's output matches ERE
    grep -q -E -- "$2" "$work/step.out" || { tail -20 "$work/step.out" >&2; fail "$1: no line matching '$2'"; }
}

smoke() {   # smoke ROOT: the installed tools work from ROOT alone
    local r="$1" b="$1/usr/lib/memsuite/bin" t
    mkdir -p "$work/cwd"
    for t in stream mbw mencal stream_mpi; do
        [ -x "$b/$t" ] || fail "$t is not installed in ${r##*/}/usr/lib/memsuite/bin"
        [ "$(readlink "$r/usr/bin/memsuite-$t")" = "../lib/memsuite/bin/$t" ] ||
            fail "${r##*/}/usr/bin/memsuite-$t is not a link to ../lib/memsuite/bin/$t"
    done
    [ -x "$r/usr/bin/memsuite" ] || fail "memsuite is not installed in ${r##*/}/usr/bin"
    for t in /usr/bin/stream /usr/bin/mbw /usr/share/man/man1/stream.1 /usr/share/man/man1/mbw.1 \
             /usr/share/bash-completion/completions/stream /usr/share/bash-completion/completions/mbw; do
        if compgen -G "$r$t*" >/dev/null; then fail "${r##*/} ships $t, a path of another package"; fi
    done
    for t in stream mbw mencal stream_mpi; do
        step "$r" "$t --version" "$b/$t" --version
        expect "$t --version" 'memsuite|0\.'
        if grep -q -- '-march=native' "$work/step.out"; then fail "$t is built with -march=native"; fi
        if grep -q -- '-prefix-map=' "$work/step.out"; then fail "$t --version names its build directory"; fi
        expect "$t --version" '^BSD 3-Clause licence'
    done
    # the licence ships: Debian's copyright file, the RPM's %license
    compgen -G "$r/usr/share/doc/memsuite*/copyright" >/dev/null ||
        compgen -G "$r/usr/share/licenses/memsuite*/LICENSE" >/dev/null ||
        fail "${r##*/} ships no licence (copyright or LICENSE)"
    step "$r" "stream run" "$b/stream" -s 200000 -n 3
    expect "stream run" '^Solution Validates'
    step "$r" "mbw run" "$b/mbw" -n 2 4
    expect "mbw run" '^AVG'
    step "$r" "mencal run" "$b/mencal" run seqread --size 4MiB --reps 1 --threads 1
    step "$r" "stream_mpi run" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1 \
        timeout 60 mpirun -np 2 "$b/stream_mpi" -s 200000 -n 3
    expect "stream_mpi run" 'Solution Validates'
    b="$r/usr/bin"
    step "$r" "memsuite help" "$b/memsuite" help
    expect "memsuite help" '^ +peers '
    step "$r" "memsuite help run" "$b/memsuite" help run
    step "$r" "memsuite env" "$b/memsuite" env
    step "$r" "memsuite profile list" "$b/memsuite" profile list
    expect "memsuite profile list" '^tuned '
    step "$r" "memsuite run" "$b/memsuite" run --bench stream --sizes 1M --threads 1 --reps 2 \
        --cooldown 0 --out "$work/cwd/results-${r##*/}"
    step "$r" "memsuite report" "$b/memsuite" report "$work/cwd/results-${r##*/}"
    step "$r" "memsuite peers" "$b/memsuite" peers mbw -- --size 8 --runs 1 --rounds 1
    expect "memsuite peers" '^== peers-mbw.sh ==$'
    step "$r" "memsuite peers" "$b/memsuite" peers stream -- --size 8MiB --rounds 1 --ntimes 3 --no-likwid
    expect "memsuite peers" '^== peers-stream.sh ==$'
    step "$r" "memsuite peers" "$b/memsuite" peers mencal -- --help
    # the analyser (PREFIX/share/memsuite/analysis) from the package alone
    "$src/scripts/bench-aggregate.sh" --generate "$work/cwd/agg-${r##*/}" --ref-out "$work/cwd/agg-${r##*/}.ref" --nodes 5
    step "$r" "memsuite cluster --aggregate" "$b/memsuite" cluster --aggregate "$work/cwd/agg-${r##*/}" \
        --ref "$work/cwd/agg-${r##*/}.ref" --nodes 'node[00001-00005]'
    expect "memsuite cluster --aggregate" '^  5 PASS, 0 FAIL, 0 ERROR, 0 MISSING;'
    for t in memsuite-stream memsuite-mbw memsuite-mencal memsuite-stream_mpi memsuite; do
        step "$r" "man $t" man -w "$t"
        expect "man $t" "^$r/usr/share/man/man1/$t\\.1"
    done
    step "$r" "completion" bash -c ". '$r/usr/share/bash-completion/completions/memsuite'
        COMP_WORDS=(memsuite-stream --nt-isa a); COMP_CWORD=2; _memsuite_complete_tool; echo \"\${COMPREPLY[*]}\""
    case "$(uname -m)" in       # the values of the machine's architecture
        aarch64) expect "completion" '^auto$' ;;
        *) expect "completion" '^auto avx512 avx2$' ;;
    esac
}

say "smoke tests of the installed .deb files"
smoke "$work/root-deb"
say "smoke tests of the installed .rpm files"
smoke "$work/root-rpm"

# 5. beside the packages that own stream and mbw
say "beside ImageMagick and Debian's mbw (scripts/check-coexist.sh)"
rc=0
"$src/scripts/check-coexist.sh" "${debs[@]}" || rc=$?
case "$rc" in
    0) ;;
    3) say "the coexistence check cannot run here (above)"; exit 3 ;;
    *) fail "the packages do not coexist with ImageMagick and mbw (above)" ;;
esac

if [ -n "$keep" ]; then
    mkdir -p "$keep"
    cp "${debs[@]}" "${rpms[@]}" "$keep"/
    cp -a "$work/root-deb" "$work/root-rpm" "$keep"/
fi
for f in "${debs[@]}" "${rpms[@]}"; do
    printf '  %s (%s bytes)\n' "${f##*/}" "$(stat -c %s "$f")"
done
say "ok ($((SECONDS - start)) s): .deb and .rpm built, lintian without errors, installed tools pass"
