#!/usr/bin/env bash
# Summary: static checks for the C sources and the shell scripts.
# Usage: scripts/lint.sh CC "CPPFLAGS"
#
# 1. cppcheck over every C file (warnings, style, portability; errors fail)
# 2. gcc -fanalyzer over every C file (any diagnostic fails)
# 3. shellcheck over scripts/, tests/topology/, tests/aarch64/, tests/cluster/,
#    contrib/completion/, contrib/slurm/ (and the Bats helper)
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${1:-gcc}
cppflags=${2:-}
status=0
mapfile -t csrc < <(git ls-files '*.c' 2>/dev/null || find . -name '*.c' -not -path './build*')

echo "lint: cppcheck (${#csrc[@]} files)"
if command -v cppcheck >/dev/null; then
    # cppcheck takes only the preprocessor part of make's flag list
    read -r -a all <<< "$cppflags"
    flags=()
    for f in "${all[@]}"; do case "$f" in -D*|-I*) flags+=("$f") ;; esac; done
    cppcheck --quiet --error-exitcode=1 --inline-suppr \
        --enable=warning,performance,portability \
        --suppress=missingIncludeSystem -D__GNUC__ -D_OPENMP=201511 \
        "${flags[@]}" -Ibuild -Itests/unit -Itests/fuzz "${csrc[@]}" || status=1
else
    echo "lint: cppcheck missing; run 'make deps'" >&2; status=1
fi

echo "lint: gcc -fanalyzer"
if [ "${cc##*/}" = "clang" ]; then
    an=(clang --analyze -Xclang -analyzer-output=text)
else
    an=(gcc -fanalyzer -Werror)
fi
read -r -a flags <<< "$cppflags"
mpiflags=()
if command -v mpicc >/dev/null; then
    read -r -a mpiflags <<< "$(mpicc --showme:compile 2>/dev/null)"
fi
for f in "${csrc[@]}"; do
    case "$f" in
        stream/mpi*)
            [ ${#mpiflags[@]} -gt 0 ] || { echo "lint: skip $f (no mpicc; install openmpi-bin libopenmpi-dev)"; continue; }
            "${an[@]}" "${flags[@]}" "${mpiflags[@]}" -Istream -O1 -c "$f" -o /dev/null || status=1 ;;
        docs/examples/*|tests/unit/test_mencal*|tests/unit/test_chase*|tests/unit/test_mixer*|tests/unit/test_kcalib*)   # mencal scenario example, mencal's unit tests
            "${an[@]}" "${flags[@]}" -Itests/unit -Imencal -O1 -c "$f" -o /dev/null || status=1 ;;
        tests/fuzz/*)   # libFuzzer targets: the parsers they include live in stream/ too
            "${an[@]}" "${flags[@]}" -Itests/fuzz -Istream -O1 -c "$f" -o /dev/null || status=1 ;;
        tests/unit/test_*.c)   # a tool's own test sees the tool's headers
            tool=${f#tests/unit/test_}; tool=${tool%.c}
            inc=(); [ -d "$tool" ] && inc=(-I"$tool")
            "${an[@]}" "${flags[@]}" -Itests/unit "${inc[@]}" -O1 -c "$f" -o /dev/null || status=1 ;;
        *)
            "${an[@]}" "${flags[@]}" -Itests/unit -O1 -c "$f" -o /dev/null || status=1 ;;
    esac
done

echo "lint: shellcheck"
if command -v shellcheck >/dev/null; then
    mapfile -t sh < <(grep -rlE '^#!.*(bash|sh)' scripts .ci tests/run-tests.sh tests/topology tests/aarch64 2>/dev/null)
    shellcheck -x "${sh[@]}" scripts/lib/*.sh || status=1
    shellcheck -s bash contrib/nhc/memsuite.nhc || status=1
    shellcheck contrib/slurm/memsuite-slurm-check || status=1
    shellcheck -x -s bash tests/cluster/*.sh tests/fixtures/match-lines.bash tests/fixtures/stream-mpi-layout.bash || status=1
    shellcheck -s bash contrib/completion/*.bash || status=1
    shellcheck -s bash -e SC2034,SC2154 tests/bats/test_helper.bash || status=1
else
    echo "lint: shellcheck missing; run 'make deps'" >&2; status=1
fi

[ "$status" -eq 0 ] && echo "lint: clean"
exit "$status"
