#!/usr/bin/env bats
# The Makefile's fresh-machine order: `make run` and `make test` install
# the dependencies first and build in a new make, whose feature probes
# (mk/probe.mk, evaluated when make parses the Makefile) then see what
# deps installed.  Checked with `make -n` (nothing is installed or built)
# and with a compiler wrapper that logs each probe with its make level.

bats_require_minimum_version 1.5.0
load test_helper

# The make under test is a new top-level make: nothing of the make that
# runs this suite may reach it.  `make NUMA=0 PAPI=0 test` passes NUMA=0
# both through MAKEFLAGS and as an environment variable of its recipes,
# and MAKELEVEL counts up.
local_setup() {
    unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
    unset NUMA PAPI MPI MARCH CFLAGS SANITIZE STREAM_ARRAY_SIZE NTIMES OFFSET STREAM_TYPE
}

# line number of the first line of FILE matching ERE; empty when none
first_line() { grep -n -E -m1 -- "$2" "$1" | cut -d: -f1; }

# recipe_order GOAL SUBGOAL: deps, then the new make for SUBGOAL, then no
# compilation before that new make starts
recipe_order() {
    make -n -C "$ROOT" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" "$1" >plan.txt 2>&1 ||
        { cat plan.txt; return 1; }
    local deps sub cc
    deps=$(first_line plan.txt '^scripts/deps\.sh$')
    sub=$(first_line plan.txt "make.* $2\$")
    cc=$(first_line plan.txt ' -c [^ ]+\.c ')
    [ -n "$deps" ] || { echo "no deps step"; cat plan.txt; return 1; }
    [ -n "$sub" ] || { echo "no new make for $2 after deps"; cat plan.txt; return 1; }
    [ "$deps" -lt "$sub" ] || { echo "the build's make comes before deps"; return 1; }
    [ -z "$cc" ] || [ "$sub" -lt "$cc" ] || { echo "compiles before the new make"; return 1; }
}

@test "make run: deps first, then the build in a new make (probes after deps)" {
    recipe_order run all
    grep -q '^scripts/run-default\.sh$' plan.txt
}

@test "make test: deps first, then the build in a new make (probes after deps)" {
    recipe_order test tests-build
}

@test "make all never calls deps" {
    make -n -C "$ROOT" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" all >plan.txt 2>&1
    run grep -c 'deps\.sh' plan.txt
    assert_output 0
}

@test "the new make probes again: libnuma and PAPI probes run at make level 1 after deps" {
    # cc wrapper: logs "<MAKELEVEL> <library>" for each feature probe
    cat >"$STUBS/cc" <<STUB
#!/usr/bin/env bash
case " \$* " in
    *" -lnuma "*) echo "\${MAKELEVEL:-0} numa" >>"$SANDBOX/probes" ;;
    *" -lpapi "*) echo "\${MAKELEVEL:-0} papi" >>"$SANDBOX/probes" ;;
esac
exec /usr/bin/cc "\$@"
STUB
    chmod +x "$STUBS/cc"
    make -n -C "$ROOT" CC="$STUBS/cc" BUILD="$SANDBOX/build" BIN="$SANDBOX/bin" run >plan.txt 2>&1
    grep -qx '1 numa' probes
    grep -qx '1 papi' probes
}
