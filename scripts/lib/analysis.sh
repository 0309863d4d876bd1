# shellcheck shell=bash
# analysis: how the bash side reaches memsuite's analyser, the Python
# program scripts/analysis/memsuite-analyse (installed in
# PREFIX/share/memsuite/analysis, beside this library's directory).  Bash
# orchestrates; every verdict, statistic and report is computed there.

# ms_analyse COMMAND [ARG...]: runs the analyser; its exit status.
ms_analyse() {
    ms_require_cmd python3 "install python3 (the analyser is Python 3, standard library only)"
    python3 "$MS_LIB/../analysis/memsuite-analyse" "$@"
}
