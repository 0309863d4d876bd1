#!/usr/bin/env bash
# Summary: install memsuite's .deb packages beside ImageMagick and Debian's
#          mbw in a throw-away copy of this system, remove them again, and
#          check that every file of those packages is intact at each step.
# Usage: scripts/check-coexist.sh DEB...   (as root; make check-packages
#        passes the memsuite and memsuite-mpi .deb files it built)
#
# The sandbox: a private mount namespace (unshare) in which /usr, /etc and
# /var are overlays on this system's own, their upper layers in a temporary
# directory: what apt and dpkg install or remove there never reaches the
# real system, and the directory goes when the script ends.
#   1. ImageMagick and mbw: apt-get install them there when this system
#      lacks them (needs the Debian mirror; make deps installs them here);
#   2. record the foreign state: every file and link of the packages that
#      own /usr/bin/stream and /usr/bin/mbw (sha256 for files, the target
#      for links), every alternative (/etc/alternatives and dpkg's
#      records), and where `stream`, `mbw` and their man pages resolve;
#   3. apt-get install ./memsuite*.deb: the state is byte-identical;
#      memsuite-stream and memsuite-mbw run memsuite's tools, /usr/bin/stream
#      is still ImageMagick's, memsuite run finds its own stream and mbw,
#      and Lmod's module puts the unprefixed memsuite tools first on PATH
#      and takes them away again;
#   4. apt-get remove: identical again, and no memsuite file is left;
#   5. dpkg --purge: identical.
# Exit: 0 ok, 1 a check failed (the step and the difference named),
# 2 usage, 3 the sandbox cannot be made (not root, no unshare or overlay)
# or ImageMagick/mbw cannot be installed in it.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

prog=check-coexist
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }
need() { say "$1"; exit 3; }

case "${1:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    "") say "no .deb given; usage: $prog DEB..."; exit 2 ;;
esac
debs=()
for d in "$@"; do
    case "$d" in
        *.deb) [ -f "$d" ] || { say "'$d' is not a file"; exit 2; } ;;
        *) say "'$d' is not a .deb file (expected PATH.deb)"; exit 2 ;;
    esac
    debs+=("$(cd "$(dirname "$d")" && pwd)/${d##*/}")
done

# Outside: make the sandbox and run this script again inside it.
if [ "${MS_COEXIST_WORK:-}" = "" ]; then
    [ "$(id -u)" = 0 ] || need "needs root (dpkg and mount, inside a private namespace)"
    command -v unshare >/dev/null || need "'unshare' is missing (util-linux)"
    work=$(mktemp -d "${TMPDIR:-/tmp}/memsuite-coexist.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    rc=0
    MS_COEXIST_WORK=$work unshare --mount --propagation private -- "$0" "${debs[@]}" || rc=$?
    exit "$rc"
fi

# Inside: overlays over the system directories that packages change.
work=$MS_COEXIST_WORK
cp /etc/resolv.conf "$work/resolv.conf" 2>/dev/null || : >"$work/resolv.conf"
for d in usr etc var; do
    mkdir -p "$work/$d.upper" "$work/$d.work"
    mount -t overlay overlay -o "lowerdir=/$d,upperdir=$work/$d.upper,workdir=$work/$d.work" "/$d" ||
        need "cannot mount an overlay on /$d (needs CAP_SYS_ADMIN and overlayfs)"
done
# a resolv.conf bind-mounted over the real one is not in the overlay's lower layer
cat "$work/resolv.conf" >/etc/resolv.conf
# no man-db index rebuild on every dpkg run (it is thrown away anyway)
rm -f /var/lib/man-db/auto-update
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >>"$work/apt.log" 2>&1; }
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

# 1. the foreign packages
missing=()
for p in imagemagick mbw; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get install ${missing[*]} (in the sandbox)"
    apt_get install --no-install-recommends "${missing[@]}" ||
        { tail -5 "$work/apt.log" >&2; need "cannot install ${missing[*]} in the sandbox; run 'make deps' or reach the Debian mirror"; }
fi
owner() { dpkg-query -S "$1" 2>/dev/null | sed -n '1s/: .*//p'; }
stream_real=$(readlink -f /usr/bin/stream)
foreign=("$(owner "$stream_real")" "$(owner /usr/bin/mbw)")
if [ -z "${foreign[0]}" ] || [ -z "${foreign[1]}" ]; then
    fail "cannot tell which packages own $stream_real and /usr/bin/mbw"
fi
say "foreign packages: ${foreign[*]} (stream -> $stream_real)"

# 2. the state of the foreign files, one line per path
state() {
    local f p
    for p in "${foreign[@]}"; do installed "$p" || printf 'package %s is not installed\n' "$p"; done
    for p in "${foreign[@]}"; do dpkg-query -L "$p" 2>/dev/null || true; done | sort -u | while IFS= read -r f; do
        if [ -L "$f" ]; then printf 'link %s -> %s\n' "$f" "$(readlink "$f")"
        elif [ -f "$f" ]; then printf 'file %s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)"
        elif [ ! -e "$f" ]; then printf 'missing %s\n' "$f"
        fi
    done
    for f in /etc/alternatives/*; do printf 'alternative %s -> %s\n' "$f" "$(readlink "$f")"; done
    for f in /var/lib/dpkg/alternatives/*; do printf 'record %s %s\n' "$f" "$(sha256sum <"$f" | cut -d' ' -f1)"; done
    for f in /usr/bin/stream /usr/bin/mbw /usr/share/man/man1/stream.1.gz /usr/share/man/man1/mbw.1.gz; do
        printf 'resolves %s -> %s\n' "$f" "$(readlink -f "$f" 2>/dev/null || echo none)"
    done
}
same_as_before() {  # same_as_before STEP: the state equals the recorded one
    state >"$work/state.$1"
    diff -u "$work/state.before" "$work/state.$1" >"$work/diff.$1" ||
        { head -40 "$work/diff.$1" >&2; fail "$1: foreign files changed (diff above)"; }
    say "$1: $(wc -l <"$work/state.before") foreign paths and alternatives identical"
}
state >"$work/state.before"
grep -q '^file /usr/bin/mbw ' "$work/state.before" || fail "Debian's mbw owns no /usr/bin/mbw"

# 3. install memsuite beside them
ours_left() {       # prints the memsuite paths present on the system
    ls -d /usr/bin/memsuite* /usr/lib/memsuite /usr/libexec/memsuite /usr/share/memsuite \
        /usr/share/man/man1/memsuite* /usr/share/bash-completion/completions/memsuite* \
        /usr/share/modulefiles/memsuite 2>/dev/null || true
}
[ -z "$(ours_left)" ] || fail "memsuite is already installed on this system: $(ours_left | head -3 | tr '\n' ' ')"
say "apt-get install ${debs[*]##*/}"
apt_get install --no-install-recommends "${debs[@]}" ||
    { tail -20 "$work/apt.log" >&2; fail "installing memsuite beside ${foreign[*]} (log above)"; }
same_as_before installed
out=$work/out
run_ok() {          # run_ok WHAT ERE CMD...: CMD succeeds and prints ERE
    local what="$1" ere="$2"
    shift 2
    "$@" >"$out" 2>&1 || { tail -20 "$out" >&2; fail "$what: exit $?"; }
    grep -q -E -- "$ere" "$out" || { tail -20 "$out" >&2; fail "$what: no line matching '$ere'"; }
}
run_ok "memsuite-stream" '^Solution Validates' /usr/bin/memsuite-stream -s 200000 -n 3
run_ok "memsuite-mbw" '^AVG' /usr/bin/memsuite-mbw -n 2 4
run_ok "ImageMagick's stream" 'ImageMagick' /usr/bin/stream -version
run_ok "memsuite run" '.' env OMP_NUM_THREADS=1 MEMSUITE_LOCK="$work/memsuite.lock" /usr/bin/memsuite run --bench stream,mbw --sizes 1M \
    --threads 1 --reps 2 --cooldown 0 --out "$work/results"
for t in stream mbw; do
    grep -q "^env .* /usr/lib/memsuite/bin/$t " "$work/results/commands.txt" ||
        { cat "$work/results/commands.txt" >&2; fail "memsuite run did not run /usr/lib/memsuite/bin/$t"; }
done
jq -e -s '[.[].tool] | sort == ["mbw", "stream"]' "$work"/results/cells/*.json >/dev/null ||
    fail "memsuite run: no stream and mbw cells in $work/results/cells"
lmod_init=$(ls /usr/share/lmod/lmod/init/bash 2>/dev/null || true)
if [ -n "$lmod_init" ]; then
    # shellcheck disable=SC2016 # the inner script expands its own variables
    run_ok "module load memsuite" '^ok$' env -i PATH=/usr/bin:/bin HOME="$work" LMOD_ALLOW_ROOT_USE=yes bash -c '
        . "$1"; module use /usr/share/modulefiles
        [ "$(command -v stream)" = /usr/bin/stream ] || { echo "before: $(command -v stream)"; exit 1; }
        module load memsuite
        [ "$(command -v stream)" = /usr/lib/memsuite/bin/stream ] || { echo "loaded: $(command -v stream)"; exit 1; }
        [ "$(command -v mbw)" = /usr/lib/memsuite/bin/mbw ] || { echo "loaded: $(command -v mbw)"; exit 1; }
        module unload memsuite
        [ "$(command -v stream)" = /usr/bin/stream ] || { echo "unloaded: $(command -v stream)"; exit 1; }
        echo ok' lmod "$lmod_init"
else
    say "Lmod is not installed: module load not checked (make deps installs lmod)"
fi
same_as_before "installed, after running"

# 4. and 5. remove, purge
pkgs=()
for d in "${debs[@]}"; do pkgs+=("$(dpkg-deb -f "$d" Package)"); done
say "apt-get remove ${pkgs[*]}"
apt_get remove "${pkgs[@]}" || { tail -20 "$work/apt.log" >&2; fail "apt-get remove ${pkgs[*]}"; }
same_as_before removed
[ -z "$(ours_left)" ] || fail "removed: memsuite files left: $(ours_left | tr '\n' ' ')"
# (dpkg: apt knows no package left without conffiles)
dpkg --purge "${pkgs[@]}" >>"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; fail "dpkg --purge ${pkgs[*]}"; }
same_as_before purged
say "ok: memsuite installed, ran and went beside ${foreign[*]}; their files and alternatives are byte-identical at every step"
