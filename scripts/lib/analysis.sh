# shellcheck shell=bash
# analysis: how the bash side reaches memsuite's analyser, the Python
# program scripts/analysis/memsuite-analyse (installed in
# PREFIX/share/memsuite/analysis, beside this library's directory).  Bash
# orchestrates; every verdict, statistic and report is computed there.

# The interpreter: MEMSUITE_PYTHON, else the system's /usr/bin/python3 (the
# packages depend on it; a python3 first on PATH may be a version manager's
# shim, which costs a quarter of a second a start, or another build), else
# python3 on PATH.
ms_python() {
    if [ -n "${MEMSUITE_PYTHON:-}" ]; then
        printf '%s\n' "$MEMSUITE_PYTHON"
    elif [ -x /usr/bin/python3 ]; then
        printf '%s\n' /usr/bin/python3
    else
        ms_require_cmd python3 "install python3 (the analyser is Python 3, standard library only)"
        printf '%s\n' python3
    fi
}

# ms_analyse COMMAND [ARG...]: runs the analyser; its exit status.
# Python started with SIGINT ignored: a Ctrl-C during the interpreter's own
# start-up printed a KeyboardInterrupt traceback from importlib, before any
# code of ours could catch it; memsuite-analyse takes SIGINT back as its
# first act (memsuite's own trap reports the interrupt).
ms_analyse() {
    local py
    py=$(ms_python)
    (trap '' INT; exec "$py" "$MS_LIB/../analysis/memsuite-analyse" "$@")
}

# ms_analyse_args COMMAND [ARG...]: as ms_analyse, the arguments handed
# over in a temp file (NUL-separated; memsuite-analyse --args-file), never
# on the command line: for values taken from documents (a CPU model, a
# tool name, notes), which may be longer than a command line can carry.
# A temp file that cannot be written is exit 3, its reason on stdout.
ms_analyse_args() {
    local cmd="$1" f err
    shift
    f=$(ms_mktemp) || ms_die "$MS_EX_ENV" "cannot write in the temp directory ${MS_TMP:-${TMPDIR:-/tmp}}; set TMPDIR to a directory with space"
    if ! err=$( { printf '%s\0' "$@" >"$f"; } 2>&1 ); then
        # as the analyser says a temp file it cannot write: the reason on
        # stdout, exit 3 (the callers name the directory)
        printf '%s\n' "${err##*: }"
        return "$MS_EX_ENV"
    fi
    ms_analyse "$cmd" --args-file "$f"
}
